//! [`CsrMatrix`]: a sparse matrix in compressed sparse row form on any backend, its checked
//! construction (from parts, from triplets), its moves between host and device, and `spmv`.

use crate::array::Array;
use crate::element::{Float, Pod};
use crate::error::{or_panic, Error, Result};
use crate::kernel::{Backend, CopyKernels, Cpu, Desc, Download, SparseKernels, Upload};

/// A sparse `rows x cols` matrix in compressed sparse row (CSR) form, SciPy's `csr_matrix`
/// layout with 32-bit indices: row `i`'s entries are `values[offsets[i]..offsets[i + 1]]` in the
/// columns `columns[offsets[i]..offsets[i + 1]]`. Its arrays live on backend `B`; every
/// constructor checks the structure (the kernels trust it), and nothing changes it afterwards.
///
/// ```
/// use cnda::prelude::*;
/// use cnda::sparse::CsrMatrix;
/// // [[2, 0, 1], [0, 0, 0], [0, 3, 4]], with a duplicate that sums.
/// let a = CsrMatrix::from_triplets([3, 3], &[(0, 0, 2.0), (2, 2, 4.0), (0, 2, 1.0), (2, 1, 1.0), (2, 1, 2.0)]);
/// assert_eq!(a.nnz(), 4);
/// assert_eq!(a.offsets().as_slice(), &[0, 2, 2, 4]);
/// let x = Array::from_shape_vec([3], vec![1.0, 10.0, 100.0]).unwrap();
/// let mut y = Array::zeros([3]);
/// a.spmv(&x, &mut y);
/// assert_eq!(y.as_slice(), &[102.0, 0.0, 430.0]);
/// ```
pub struct CsrMatrix<T: Pod, B: Backend = Cpu> {
    shape: [usize; 2],
    offsets: Array<i32, 1, B>,
    columns: Array<i32, 1, B>,
    values: Array<T, 1, B>,
}

impl<T: Pod, B: Backend> core::fmt::Debug for CsrMatrix<T, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CsrMatrix")
            .field("shape", &self.shape)
            .field("nnz", &self.nnz())
            .field("backend", &B::NAME)
            .finish()
    }
}

impl<T: Pod, B: Backend> CsrMatrix<T, B> {
    /// `[rows, cols]`.
    pub fn shape(&self) -> [usize; 2] {
        self.shape
    }

    /// The stored entries (explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.values.shape()[0]
    }

    /// Where each row's entries start, and the end: `rows + 1` offsets from 0 to `nnz`.
    pub fn offsets(&self) -> &Array<i32, 1, B> {
        &self.offsets
    }

    /// The column of each stored entry.
    pub fn columns(&self) -> &Array<i32, 1, B> {
        &self.columns
    }

    /// The value of each stored entry.
    pub fn values(&self) -> &Array<T, 1, B> {
        &self.values
    }
}

impl<T: Float, B: SparseKernels> CsrMatrix<T, B> {
    /// `y = A x` (`x` of `cols` elements, `y` of `rows`).
    ///
    /// # Panics
    ///
    /// As [`CsrMatrix::try_spmv`] errs.
    #[track_caller]
    pub fn spmv(&self, x: &Array<T, 1, B>, y: &mut Array<T, 1, B>) {
        or_panic(self.try_spmv(x, y));
    }

    /// [`CsrMatrix::spmv`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::ShapeMismatch` when `x` or `y` has another length than the matrix takes or gives;
    /// `Error::DeviceMismatch` when they live on another device; the kernel's errors.
    pub fn try_spmv(&self, x: &Array<T, 1, B>, y: &mut Array<T, 1, B>) -> Result<()> {
        // SAFETY: `y` is uniquely borrowed, so apart from `x` and the matrix's arrays; both are
        // live, dense arrays of their own.
        unsafe { self.spmv_descs("CsrMatrix::spmv", x.desc(), y.desc_mut()) }
    }

    /// `y = A x` on descriptors, after checking their lengths and devices.
    ///
    /// # Safety
    ///
    /// `x` and `y` address live memory of their shapes, dense; `y` is writable and overlaps
    /// neither `x` nor the matrix.
    pub(crate) unsafe fn spmv_descs(&self, op: &'static str, x: Desc<B, T, 1>, y: Desc<B, T, 1>) -> Result<()> {
        let [rows, cols] = self.shape;
        for (d, len) in [(&x, cols), (&y, rows)] {
            if d.shape[0] != len {
                return Err(Error::ShapeMismatch { op, expected: vec![len], got: d.shape.to_vec() });
            }
        }
        let dev = B::handle_device(self.values.desc().handle);
        crate::ops::output::same_device::<B>(op, &dev, &[B::handle_device(x.handle), B::handle_device(y.handle)])?;
        // SAFETY: the matrix's structure was checked when it was built and cannot change since;
        // `x` has `cols` elements and `y` `rows` (checked above), the caller's contract does the
        // rest.
        unsafe { B::spmv(&dev, self.offsets.desc(), self.columns.desc(), self.values.desc(), x, y) }
    }
}

impl<T: Pod> CsrMatrix<T> {
    /// The matrix with these parts (SciPy's `indptr`, `indices`, `data`), checked.
    ///
    /// # Panics
    ///
    /// As [`CsrMatrix::try_from_parts`] errs.
    #[track_caller]
    pub fn from_parts(shape: [usize; 2], offsets: Vec<i32>, columns: Vec<i32>, values: Vec<T>) -> Self {
        or_panic(Self::try_from_parts(shape, offsets, columns, values))
    }

    /// [`CsrMatrix::from_parts`], returning errors. Columns within a row may come in any order
    /// and repeat (their values then add up in a product).
    ///
    /// # Errors
    ///
    /// `Error::Parameter` when `offsets` does not have `rows + 1` entries from 0 to `nnz` that
    /// never decrease, when `columns` and `values` differ in length, when a column is outside
    /// `0..cols`, or when a dimension or `nnz` exceeds `i32::MAX` (32-bit indices).
    pub fn try_from_parts(shape: [usize; 2], offsets: Vec<i32>, columns: Vec<i32>, values: Vec<T>) -> Result<Self> {
        const OP: &str = "CsrMatrix::from_parts";
        check_parts(OP, shape, &offsets, &columns, values.len())?;
        Ok(CsrMatrix {
            shape,
            offsets: Array::from_shape_vec([offsets.len()], offsets)?,
            columns: Array::from_shape_vec([columns.len()], columns)?,
            values: Array::from_shape_vec([values.len()], values)?,
        })
    }
}

impl<T: Float> CsrMatrix<T> {
    /// The matrix with the entries `(row, column, value)`, in any order; repeated positions add
    /// up (as SciPy's `coo_matrix.tocsr()` does). Each row's columns come out sorted.
    ///
    /// # Panics
    ///
    /// As [`CsrMatrix::try_from_triplets`] errs.
    #[track_caller]
    pub fn from_triplets(shape: [usize; 2], triplets: &[(usize, usize, T)]) -> Self {
        or_panic(Self::try_from_triplets(shape, triplets))
    }

    /// [`CsrMatrix::from_triplets`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Parameter` for a position outside the shape, or a dimension or entry count past
    /// `i32::MAX`; `Error::Alloc`.
    pub fn try_from_triplets(shape: [usize; 2], triplets: &[(usize, usize, T)]) -> Result<Self> {
        const OP: &str = "CsrMatrix::from_triplets";
        check_dimensions(OP, shape)?;
        if let Some(&(r, c, _)) = triplets.iter().find(|&&(r, c, _)| r >= shape[0] || c >= shape[1]) {
            return Err(Error::Parameter {
                op: OP,
                reason: format!("the entry ({r}, {c}) lies outside the {} x {} matrix", shape[0], shape[1]),
                fix: "give rows and columns from zero, below the shape",
            });
        }
        let mut sorted: Vec<(usize, usize, T)> = try_vec(OP, triplets.len())?;
        sorted.extend_from_slice(triplets);
        sorted.sort_by_key(|&(r, c, _)| (r, c));
        // Entries per row first (as `usize`: the total is checked before it becomes `i32`).
        let mut counts: Vec<usize> = try_vec(OP, shape[0] + 1)?;
        counts.resize(shape[0] + 1, 0);
        let (mut columns, mut values): (Vec<i32>, Vec<T>) =
            (try_vec(OP, triplets.len())?, try_vec(OP, triplets.len())?);
        let mut previous = None;
        for (r, c, v) in sorted {
            if previous == Some((r, c)) {
                let last: &mut T = values.last_mut().expect("a previous entry was stored");
                *last = *last + v;
                continue;
            }
            previous = Some((r, c));
            // Below `i32::MAX`: the dimensions were checked.
            columns.push(c as i32);
            values.push(v);
            counts[r + 1] += 1;
        }
        if columns.len() > i32::MAX as usize {
            return Err(too_many(OP, columns.len()));
        }
        let mut offsets: Vec<i32> = try_vec(OP, shape[0] + 1)?;
        let mut sum = 0usize;
        for n in counts {
            sum += n;
            // At most the checked entry count.
            offsets.push(sum as i32);
        }
        Self::try_from_parts(shape, offsets, columns, values)
    }
}

impl<T: Pod> CsrMatrix<T> {
    /// This matrix on device `dev` (`&CudaDevice`, `&WgpuDevice`): its three arrays copied.
    ///
    /// # Panics
    ///
    /// As [`CsrMatrix::try_to_device`] errs.
    #[track_caller]
    pub fn to_device<D: Upload>(&self, dev: &D) -> CsrMatrix<T, D::Target> {
        or_panic(self.try_to_device(dev))
    }

    /// [`CsrMatrix::to_device`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Alloc`, `Error::Device`.
    pub fn try_to_device<D: Upload>(&self, dev: &D) -> Result<CsrMatrix<T, D::Target>> {
        Ok(CsrMatrix {
            shape: self.shape,
            offsets: self.offsets.try_to_device(dev)?,
            columns: self.columns.try_to_device(dev)?,
            values: self.values.try_to_device(dev)?,
        })
    }

    /// This matrix on a distributed array's backend, through its allocator `alloc`.
    ///
    /// # Errors
    ///
    /// `Error::Alloc`, `Error::Device`.
    #[cfg(feature = "mpi")]
    pub(crate) fn try_to_dist_backend<B: crate::dist::DistBackend>(&self, alloc: &B::Alloc) -> Result<CsrMatrix<T, B>> {
        Ok(CsrMatrix {
            shape: self.shape,
            offsets: B::upload(alloc, &self.offsets)?,
            columns: B::upload(alloc, &self.columns)?,
            values: B::upload(alloc, &self.values)?,
        })
    }

    /// The dense `rows x cols` matrix (for small matrices: tests, printing).
    ///
    /// # Errors
    ///
    /// `Error::Overflow`, `Error::Alloc` for a dense size the memory cannot hold.
    pub fn try_to_dense(&self) -> Result<Array<T, 2>>
    where
        T: Float,
    {
        let mut dense = Array::try_zeros(self.shape)?;
        let (offsets, columns, values) = (self.offsets.as_slice(), self.columns.as_slice(), self.values.as_slice());
        for r in 0..self.shape[0] {
            for j in offsets[r] as usize..offsets[r + 1] as usize {
                let at = [r, columns[j] as usize];
                dense[at] = dense[at] + values[j];
            }
        }
        Ok(dense)
    }
}

impl<T: Pod, B: Download + CopyKernels> CsrMatrix<T, B> {
    /// This matrix on the host.
    ///
    /// # Errors
    ///
    /// `Error::Device`, `Error::Alloc`.
    pub fn try_to_host(&self) -> Result<CsrMatrix<T>> {
        Ok(CsrMatrix {
            shape: self.shape,
            offsets: self.offsets.try_to_host()?,
            columns: self.columns.try_to_host()?,
            values: self.values.try_to_host()?,
        })
    }

    /// As [`CsrMatrix::try_to_host`], panicking on failure.
    #[track_caller]
    pub fn to_host(&self) -> CsrMatrix<T> {
        or_panic(self.try_to_host())
    }
}

/// An empty vector with room for `len` elements, or `Error::Alloc`.
pub(super) fn try_vec<E>(op: &'static str, len: usize) -> Result<Vec<E>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::Alloc {
        op,
        bytes: len.saturating_mul(core::mem::size_of::<E>()),
        reason: "the system allocator refused".into(),
    })?;
    Ok(v)
}

/// `Error::Parameter` for more stored entries than 32-bit offsets count.
fn too_many(op: &'static str, nnz: usize) -> Error {
    Error::Parameter {
        op,
        reason: format!("{nnz} stored entries exceed the 32-bit offsets' {}", i32::MAX),
        fix: "split the matrix into blocks of rows",
    }
}

/// Both dimensions within 32-bit indices.
pub(super) fn check_dimensions(op: &'static str, shape: [usize; 2]) -> Result<()> {
    if shape.iter().any(|&n| n > i32::MAX as usize) {
        return Err(Error::Parameter {
            op,
            reason: format!("the shape {shape:?} exceeds the 32-bit indices' {}", i32::MAX),
            fix: "split the matrix into blocks",
        });
    }
    Ok(())
}

/// The checks every CSR structure passes before a kernel reads it.
pub(super) fn check_parts(
    op: &'static str,
    shape: [usize; 2],
    offsets: &[i32],
    columns: &[i32],
    values: usize,
) -> Result<()> {
    check_dimensions(op, shape)?;
    let refuse = |reason: String| {
        Err(Error::Parameter { op, reason, fix: "give SciPy's CSR arrays: indptr of rows + 1 non-decreasing offsets from 0 to nnz, indices below cols, data of nnz values" })
    };
    if columns.len() > i32::MAX as usize {
        return Err(too_many(op, columns.len()));
    }
    if offsets.len() != shape[0] + 1 {
        return refuse(format!("{} offsets for {} rows (rows + 1 needed)", offsets.len(), shape[0]));
    }
    if columns.len() != values {
        return refuse(format!("{} columns but {values} values", columns.len()));
    }
    if offsets[0] != 0 || offsets[shape[0]] as usize != columns.len() || offsets[shape[0]] < 0 {
        return refuse(format!(
            "the offsets run from {} to {}, not from 0 to the {} entries",
            offsets[0],
            offsets[shape[0]],
            columns.len()
        ));
    }
    if let Some(r) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return refuse(format!("the offsets decrease after row {r} ({} then {})", offsets[r], offsets[r + 1]));
    }
    if let Some(j) = columns.iter().position(|&c| c < 0 || c as usize >= shape[1]) {
        return refuse(format!("entry {j} lies in column {}, outside 0..{}", columns[j], shape[1]));
    }
    Ok(())
}
