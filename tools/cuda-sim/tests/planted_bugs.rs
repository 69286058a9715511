//! Kernels with planted bugs, run through the driver entry points as cudarc calls them: the sim
//! must fail each launch with a CUDA error code (`CUDA_ERROR_ILLEGAL_ADDRESS` for memory,
//! `CUDA_ERROR_LAUNCH_FAILED` for races and barriers) and name the kernel, thread and address.
//! The correct versions run and compute the right answers.

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cuda_sim::driver::{device as dev, memory as mem, module};
use cuda_sim::error::{last_error, ILLEGAL_ADDRESS, INVALID_IMAGE, INVALID_VALUE, LAUNCH_FAILED, SUCCESS};

const HEADER: &str = ".version 9.0\n.target sm_80\n.address_size 64\n";

/// A block-wide sum of 256 u32 in shared memory: a tree of halving strides, with `__syncthreads`
/// (`bar.sync 0`) after the store and after every step; `LOOP_BARRIER` is the one a planted bug
/// removes.
const BLOCK_SUM: &str = r#"
.visible .entry block_sum(
    .param .u64 block_sum_param_0,
    .param .u64 block_sum_param_1
)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .shared .align 4 .b8 part[1024];

    ld.param.u64 %rd1, [block_sum_param_0];
    ld.param.u64 %rd2, [block_sum_param_1];
    cvta.to.global.u64 %rd3, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    ld.global.u32 %r2, [%rd5];
    mov.u64 %rd6, part;
    add.s64 %rd7, %rd6, %rd4;
    st.shared.u32 [%rd7], %r2;
    bar.sync 0;
    mov.u32 %r3, 128;
$L_loop:
    setp.ge.u32 %p1, %r1, %r3;
    @%p1 bra $L_skip;
    add.s32 %r4, %r1, %r3;
    mul.wide.u32 %rd8, %r4, 4;
    add.s64 %rd9, %rd6, %rd8;
    ld.shared.u32 %r6, [%rd9];
    ld.shared.u32 %r7, [%rd7];
    add.s32 %r8, %r6, %r7;
    st.shared.u32 [%rd7], %r8;
$L_skip:
    LOOP_BARRIER
    shr.u32 %r3, %r3, 1;
    setp.ne.s32 %p2, %r3, 0;
    @%p2 bra $L_loop;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $L_done;
    ld.shared.u32 %r9, [part];
    cvta.to.global.u64 %rd10, %rd2;
    st.global.u32 [%rd10], %r9;
$L_done:
    ret;
}
"#;

/// `dst[tid] = twice(src[tid])` through a `.func` call with a param and a result.
const COPY_TWICE: &str = r#"
.func (.param .b32 func_retval0) twice(
    .param .b32 twice_param_0
)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [twice_param_0];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [func_retval0+0], %r2;
    ret;
}

.visible .entry copy_twice(
    .param .u64 copy_twice_param_0,
    .param .u64 copy_twice_param_1
)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [copy_twice_param_0];
    ld.param.u64 %rd2, [copy_twice_param_1];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd5];
    {
    .param .b32 param0;
    st.param.b32 [param0+0], %r2;
    .param .b32 retval0;
    call.uni (retval0), twice, (param0);
    ld.param.b32 %r3, [retval0+0];
    }
    st.global.u32 [%rd4], %r3;
    ret;
}
"#;

/// Thread 0 returns before the barrier the others wait at.
const EARLY_EXIT: &str = r#"
.visible .entry early_exit()
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $L_out;
    bar.sync 0;
$L_out:
    ret;
}
"#;

fn load(body: &str) -> *mut c_void {
    assert_eq!(dev::cuInit(0), SUCCESS);
    let text = CString::new(format!("{HEADER}{body}")).unwrap();
    let mut m = null_mut();
    // SAFETY: a valid out-pointer and a NUL-terminated PTX text.
    let r = unsafe { module::cuModuleLoadData(&mut m, text.as_ptr().cast()) };
    assert_eq!(r, SUCCESS, "{:?}", last_error());
    m
}

fn function(m: *mut c_void, name: &str) -> *mut c_void {
    let name = CString::new(name).unwrap();
    let mut f = null_mut();
    // SAFETY: a valid out-pointer, a module handle and a NUL-terminated name.
    assert_eq!(unsafe { module::cuModuleGetFunction(&mut f, m, name.as_ptr()) }, SUCCESS);
    f
}

fn alloc(bytes: usize) -> u64 {
    let mut p = 0u64;
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { mem::cuMemAlloc_v2(&mut p, bytes) }, SUCCESS);
    p
}

fn upload(p: u64, data: &[u32]) {
    // SAFETY: `data` holds the bytes copied.
    assert_eq!(unsafe { mem::cuMemcpyHtoD_v2(p, data.as_ptr().cast(), data.len() * 4) }, SUCCESS);
}

fn download(p: u64, n: usize) -> Vec<u32> {
    let mut out = vec![0u32; n];
    // SAFETY: `out` holds the bytes copied.
    assert_eq!(unsafe { mem::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), p, n * 4) }, SUCCESS);
    out
}

/// Launches `f` on one block of `threads` with two pointer arguments.
fn launch2(f: *mut c_void, threads: u32, a: u64, b: u64) -> u32 {
    let (mut a, mut b) = (a, b);
    let mut args = [(&mut a as *mut u64).cast::<c_void>(), (&mut b as *mut u64).cast::<c_void>()];
    // SAFETY: two parameters, each pointing at a u64, as the kernels declare.
    unsafe { module::cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, null_mut(), args.as_mut_ptr(), null_mut()) }
}

/// The launch's error message (the sim's last error); tests run in parallel, so the message is
/// checked to be about the expected kernel.
fn message(kernel: &str) -> String {
    let e = last_error().expect("an error was reported");
    assert!(e.message.contains(kernel), "{e}");
    e.message
}

#[test]
fn a_correct_shared_memory_reduction_sums_its_block() {
    let m = load(&BLOCK_SUM.replace("LOOP_BARRIER", "bar.sync 0;"));
    let f = function(m, "block_sum");
    let input: Vec<u32> = (0..256).map(|k| k * 7 + 1).collect();
    let (src, dst) = (alloc(1024), alloc(4));
    upload(src, &input);
    for seed_run in 0..3 {
        assert_eq!(launch2(f, 256, src, dst), SUCCESS, "run {seed_run}");
        assert_eq!(download(dst, 1)[0], input.iter().sum::<u32>());
    }
}

#[test]
fn a_missing_syncthreads_in_a_reduction_is_a_race() {
    let m = load(&BLOCK_SUM.replace("LOOP_BARRIER", "").replace("block_sum", "block_sum_racy"));
    let f = function(m, "block_sum_racy");
    let (src, dst) = (alloc(1024), alloc(4));
    upload(src, &[1; 256]);
    assert_eq!(launch2(f, 256, src, dst), LAUNCH_FAILED);
    let msg = message("block_sum_racy");
    assert!(msg.contains("shared-memory race") && msg.contains("__syncthreads"), "{msg}");
}

#[test]
fn an_out_of_bounds_store_names_the_thread_and_the_address() {
    let m = load(&COPY_TWICE.replace("copy_twice", "copy_oob"));
    let f = function(m, "copy_oob");
    let (dst, src) = (alloc(255 * 4), alloc(256 * 4)); // one element short
    upload(src, &(0..256).collect::<Vec<u32>>());
    assert_eq!(launch2(f, 256, dst, src), ILLEGAL_ADDRESS);
    let msg = message("copy_oob");
    let at = format!("0x{:x}", dst + 255 * 4);
    assert!(msg.contains("thread (255,0,0)") && msg.contains("global store") && msg.contains(&at), "{msg}");
}

#[test]
fn a_kernel_reading_a_freed_buffer_fails() {
    let m = load(&COPY_TWICE.replace("copy_twice", "copy_freed"));
    let f = function(m, "copy_freed");
    let (dst, src) = (alloc(64 * 4), alloc(64 * 4));
    upload(src, &[3; 64]);
    assert_eq!(launch2(f, 64, dst, src), SUCCESS);
    assert_eq!(download(dst, 64), vec![6; 64], "twice(3) through the .func call");
    assert_eq!(mem::cuMemFree_v2(src), SUCCESS);
    assert_eq!(launch2(f, 64, dst, src), ILLEGAL_ADDRESS);
    let msg = message("copy_freed");
    assert!(msg.contains("global load") && msg.contains("FREED"), "{msg}");
}

#[test]
fn a_barrier_not_reached_by_every_thread_fails_the_launch() {
    let m = load(EARLY_EXIT);
    let f = function(m, "early_exit");
    // SAFETY: a kernel without parameters.
    let r = unsafe { module::cuLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, null_mut(), null_mut(), null_mut()) };
    assert_eq!(r, LAUNCH_FAILED);
    assert!(message("early_exit").contains("barrier not reached by every thread"));
}

#[test]
fn copies_outside_an_allocation_and_cubin_images_are_refused() {
    assert_eq!(dev::cuInit(0), SUCCESS);
    let p = alloc(100);
    let data = [0u8; 101];
    // SAFETY: `data` holds 101 bytes; the device side is one byte short.
    assert_eq!(unsafe { mem::cuMemcpyHtoD_v2(p, data.as_ptr().cast(), 101) }, INVALID_VALUE);
    assert_eq!(mem::cuMemsetD8_v2(p + 50, 0, 51), INVALID_VALUE);
    assert_eq!(mem::cuMemsetD8_v2(p + 50, 0, 50), SUCCESS);
    assert_eq!(mem::cuMemFree_v2(p + 8), INVALID_VALUE, "not the start of an allocation");
    let elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0";
    let mut m = null_mut();
    // SAFETY: a valid out-pointer and an image with an ELF header.
    assert_eq!(unsafe { module::cuModuleLoadData(&mut m, elf.as_ptr().cast()) }, INVALID_IMAGE);
}
