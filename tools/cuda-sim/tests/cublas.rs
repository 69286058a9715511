//! The cuBLAS stand-in's GEMM against a naive reference, with every transpose combination and
//! leading dimensions larger than the rows.

use std::ptr::null_mut;

use cuda_sim::cublas::{cublasDgemm_v2, cublasSgemm_v2, STATUS_EXECUTION_FAILED, STATUS_SUCCESS};
use cuda_sim::driver::{device as dev, memory as mem};

fn upload<T: Copy>(data: &[T]) -> u64 {
    let mut p = 0u64;
    let bytes = std::mem::size_of_val(data);
    // SAFETY: a valid out-pointer, and `data` holds `bytes` bytes.
    unsafe {
        assert_eq!(mem::cuMemAlloc_v2(&mut p, bytes), 0);
        assert_eq!(mem::cuMemcpyHtoD_v2(p, data.as_ptr().cast(), bytes), 0);
    }
    p
}

fn download<T: Copy + Default>(p: u64, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    // SAFETY: `out` holds the bytes copied.
    assert_eq!(unsafe { mem::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), p, n * std::mem::size_of::<T>()) }, 0);
    out
}

#[test]
fn dgemm_honours_transposes_and_leading_dimensions() {
    assert_eq!(dev::cuInit(0), 0);
    let (m, n, k) = (5usize, 4usize, 3usize);
    for (ta, tb) in [(0u32, 0u32), (1, 0), (0, 1), (1, 1)] {
        // Column-major op(A) is m x k; A is stored (ta ? k x m : m x k) with ld = rows + 2.
        let (ar, ac) = if ta == 0 { (m, k) } else { (k, m) };
        let (br, bc) = if tb == 0 { (k, n) } else { (n, k) };
        let (lda, ldb, ldc) = (ar + 2, br + 1, m + 3);
        let a: Vec<f64> = (0..lda * ac).map(|x| (x as f64) * 0.5 - 3.0).collect();
        let b: Vec<f64> = (0..ldb * bc).map(|x| 1.0 + (x % 5) as f64).collect();
        let c0: Vec<f64> = (0..ldc * n).map(|x| x as f64).collect();
        let op_a = |i: usize, p: usize| if ta == 0 { a[i + p * lda] } else { a[p + i * lda] };
        let op_b = |p: usize, j: usize| if tb == 0 { b[p + j * ldb] } else { b[j + p * ldb] };
        let (alpha, beta) = (2.0f64, -1.0f64);
        let mut want = c0.clone();
        for j in 0..n {
            for i in 0..m {
                let dot: f64 = (0..k).map(|p| op_a(i, p) * op_b(p, j)).sum();
                want[i + j * ldc] = alpha * dot + beta * c0[i + j * ldc];
            }
        }
        let (pa, pb, pc) = (upload(&a), upload(&b), upload(&c0));
        // SAFETY: host scalars; device matrices of the sizes described.
        let s = unsafe {
            cublasDgemm_v2(
                null_mut(),
                ta,
                tb,
                m as i32,
                n as i32,
                k as i32,
                &alpha,
                pa as *const f64,
                lda as i32,
                pb as *const f64,
                ldb as i32,
                &beta,
                pc as *mut f64,
                ldc as i32,
            )
        };
        assert_eq!(s, STATUS_SUCCESS);
        assert_eq!(download::<f64>(pc, ldc * n), want, "transa {ta} transb {tb}");
    }
}

#[test]
fn sgemm_with_beta_zero_ignores_nan_in_c_and_checks_bounds() {
    assert_eq!(dev::cuInit(0), 0);
    let a = [1.0f32, 2.0, 3.0, 4.0]; // 2x2 column-major
    let (pa, pc) = (upload(&a), upload(&[f32::NAN; 4]));
    let (one, zero) = (1.0f32, 0.0f32);
    // SAFETY: host scalars; 2x2 device matrices.
    let s = unsafe {
        cublasSgemm_v2(
            null_mut(),
            0,
            0,
            2,
            2,
            2,
            &one,
            pa as *const f32,
            2,
            pa as *const f32,
            2,
            &zero,
            pc as *mut f32,
            2,
        )
    };
    assert_eq!(s, STATUS_SUCCESS);
    assert_eq!(download::<f32>(pc, 4), vec![7.0, 10.0, 15.0, 22.0]);
    // SAFETY: as above, but claiming a 3x3 product: C is too small, and the sim refuses.
    let s = unsafe {
        cublasSgemm_v2(
            null_mut(),
            0,
            0,
            3,
            3,
            1,
            &one,
            pa as *const f32,
            3,
            pa as *const f32,
            1,
            &zero,
            pc as *mut f32,
            3,
        )
    };
    assert_eq!(s, STATUS_EXECUTION_FAILED);
}

#[test]
fn zgemm_refuses_matrices_not_aligned_to_a_whole_complex_number() {
    use cuda_sim::cublas::{cublasZgemm_v2, Cx, STATUS_INVALID_VALUE};
    assert_eq!(dev::cuInit(0), 0);
    // The number at the second word (i) is 8 bytes past a 16-byte boundary; the one at the third
    // (1 + i) is on one.
    let words = [0.0f64, 0.0, 1.0, 1.0, 0.0, 0.0];
    let p = upload(&words);
    let (one, zero) = (Cx { re: 1.0f64, im: 0.0 }, Cx { re: 0.0f64, im: 0.0 });
    let gemm = |a: u64| {
        // SAFETY: host scalars; a 1x1 product of device numbers inside the allocation.
        unsafe {
            cublasZgemm_v2(
                null_mut(),
                0,
                0,
                1,
                1,
                1,
                &one,
                a as *const Cx<f64>,
                1,
                a as *const Cx<f64>,
                1,
                &zero,
                (p + 32) as *mut Cx<f64>,
                1,
            )
        }
    };
    assert_eq!(gemm(p + 8), STATUS_INVALID_VALUE);
    assert_eq!(gemm(p + 16), STATUS_SUCCESS);
    assert_eq!(download::<f64>(p + 32, 2), vec![0.0, 2.0]); // (1 + i)^2
}
