//! The WebGPU backend (feature `wgpu`): wgpu over Vulkan, which also runs on software adapters
//! such as Mesa's lavapipe, so CI executes it for real.

pub mod shaders;
