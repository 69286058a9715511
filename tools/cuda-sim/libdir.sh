#!/bin/sh
# Builds the CPU-hosted CUDA device (release) and makes a folder in which it answers to the names
# cudarc's loader tries (libcuda.so, libcuda.so.1, libcublas.so, libcublas.so.13, libcufft.so); prints that
# folder, for LD_LIBRARY_PATH. Uses CARGO_TARGET_DIR when set (else ./target).
#   export LD_LIBRARY_PATH="$(tools/cuda-sim/libdir.sh):$LD_LIBRARY_PATH" CNDA_CUDA_PTX=1
set -eu
cd "$(dirname "$0")/../.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --quiet --release -p cuda-sim >&2
dir="$target/cuda-sim-lib"
mkdir -p "$dir"
for name in libcuda.so libcuda.so.1 libcublas.so libcublas.so.13 libcufft.so libcufft.so.12; do
    ln -sf "$target/release/libcuda_sim.so" "$dir/$name"
done
echo "$dir"
