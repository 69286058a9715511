//! Dense linear algebra for the solver tests, written without cnda: a stencil's matrix assembled
//! from its taps by a naive loop (with each side's boundary as index arithmetic), Gaussian
//! elimination with partial pivoting, products, and seeded random matrices.
#![allow(dead_code)]

/// What a tap reaching past an axis's end reads.
#[derive(Clone, Copy, Debug)]
pub enum Edge {
    /// Zero (homogeneous Dirichlet): the tap drops out.
    Zero,
    /// The interior mirrored about the face (`-1` reads `0`, `n` reads `n - 1`).
    Mirror,
    /// The periodic image.
    Wrap,
    /// Zero below the axis, mirrored above it.
    ZeroMirror,
}

/// Index `i` on an axis of `n` points under `edge`, `None` when it reads zero.
fn resolve(i: isize, n: usize, edge: Edge) -> Option<usize> {
    let n = n as isize;
    if (0..n).contains(&i) {
        return Some(i as usize);
    }
    match edge {
        Edge::Zero => None,
        Edge::Mirror => Some(if i < 0 { -i - 1 } else { 2 * n - 1 - i } as usize),
        Edge::Wrap => Some(i.rem_euclid(n) as usize),
        Edge::ZeroMirror => (i >= n).then_some((2 * n - 1 - i) as usize),
    }
}

/// The row-major matrix of `sum_k w_k x[p + o_k]` on `shape` with `edges` per axis.
pub fn assemble<const N: usize>(taps: &[([isize; N], f64)], shape: [usize; N], edges: [Edge; N]) -> Vec<Vec<f64>> {
    let len: usize = shape.iter().product();
    let flat = |p: [usize; N]| p.iter().zip(&shape).fold(0, |acc, (&i, &n)| acc * n + i);
    let mut m = vec![vec![0.0; len]; len];
    for (row, m_row) in m.iter_mut().enumerate() {
        let mut p = [0usize; N];
        let mut rest = row;
        for k in (0..N).rev() {
            p[k] = rest % shape[k];
            rest /= shape[k];
        }
        'taps: for (offset, w) in taps {
            let mut q = [0usize; N];
            for k in 0..N {
                match resolve(p[k] as isize + offset[k], shape[k], edges[k]) {
                    Some(i) => q[k] = i,
                    None => continue 'taps,
                }
            }
            m_row[flat(q)] += w;
        }
    }
    m
}

/// `m x`.
pub fn matvec(m: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    m.iter().map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum()).collect()
}

/// The solution of `m x = b` by Gaussian elimination with partial pivoting.
pub fn gauss(mut m: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs())).unwrap();
        m.swap(col, pivot);
        b.swap(col, pivot);
        let (top, bottom) = m.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (offset, row) in bottom.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            if f != 0.0 {
                for (a, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *a -= f * p;
                }
                b[col + 1 + offset] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| m[i][k] * x[k]).sum();
        x[i] = (b[i] - s) / m[i][i];
    }
    x
}

/// Numbers in [-1, 1) from a seed (a 64-bit LCG's high bits).
pub fn random_vec(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// An `n x n` matrix of numbers in [-1, 1).
pub fn random(n: usize, seed: u64) -> Vec<Vec<f64>> {
    let flat = random_vec(n * n, seed);
    flat.chunks(n.max(1)).map(<[f64]>::to_vec).collect()
}
