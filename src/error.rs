//! The one error type of the crate. Every message says what went wrong, why, and how to fix it.

use crate::element::DType;

/// Result alias used by every fallible operation in cnda.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Everything that can go wrong in cnda. Variants keep the facts (shapes, axes, sizes) so callers
/// can react programmatically; `Display` turns them into a sentence with a fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A buffer's element count does not match the product of the requested shape.
    #[error(
        "{op}: shape {shape:?} needs {expected} elements, got {got}; \
         pass {expected} elements or change the shape"
    )]
    LengthMismatch {
        /// The operation that failed.
        op: &'static str,
        /// The requested shape.
        shape: Vec<usize>,
        /// The element count the shape needs.
        expected: usize,
        /// The element count that was given.
        got: usize,
    },

    /// Two shapes that must be equal differ.
    #[error(
        "{op}: expected shape {expected:?}, got {got:?}; \
         make the shapes equal (slice, reshape or broadcast one operand)"
    )]
    ShapeMismatch {
        /// The operation that failed.
        op: &'static str,
        /// The shape the operation needed.
        expected: Vec<usize>,
        /// The shape it got.
        got: Vec<usize>,
    },

    /// An index is past the end of an axis.
    #[error(
        "index {index} is out of bounds for axis {axis} with size {size}; \
         valid indices on this axis are 0..{size}"
    )]
    IndexOutOfBounds {
        /// The axis whose bound was crossed.
        axis: usize,
        /// The offending index.
        index: usize,
        /// The length of that axis.
        size: usize,
    },

    /// An axis number is not below the rank.
    #[error("{op}: axis {axis} does not exist in a rank-{rank} array; valid axes are 0..{rank}")]
    AxisOutOfRange {
        /// The operation that failed.
        op: &'static str,
        /// The offending axis.
        axis: usize,
        /// The array's rank.
        rank: usize,
    },

    /// A range (slice, narrow, split point) does not fit inside an axis.
    #[error(
        "{op}: range {start}..{end} does not fit axis {axis} of size {size}; \
         use bounds within 0..={size} (negative bounds count from the end) with start <= end"
    )]
    Range {
        /// The operation that failed.
        op: &'static str,
        /// The axis being cut.
        axis: usize,
        /// Requested start, as given (negative counts from the end).
        start: isize,
        /// Requested end, as given (negative counts from the end).
        end: isize,
        /// The length of that axis.
        size: usize,
    },

    /// A slice step of zero.
    #[error(
        "slice: step 0 on axis {axis} would repeat one element forever; use a non-zero step (negative walks backwards)"
    )]
    ZeroStep {
        /// The axis with the zero step.
        axis: usize,
    },

    /// An axis list (for `permute`, `transpose`) is not a valid selection of axes.
    #[error("{op}: axes {axes:?} are not a permutation of 0..{rank}; name every axis below {rank} exactly once")]
    InvalidAxes {
        /// The operation that failed.
        op: &'static str,
        /// The axes given.
        axes: Vec<usize>,
        /// The array's rank.
        rank: usize,
    },

    /// An operation needs row-major contiguous memory and the array is not.
    #[error(
        "{op}: the array with shape {shape:?} and strides {strides:?} is not row-major contiguous; \
         call `.contiguous()` first, which copies only when it must"
    )]
    NotContiguous {
        /// The operation that failed.
        op: &'static str,
        /// The array's shape.
        shape: Vec<usize>,
        /// The array's strides, in elements.
        strides: Vec<isize>,
    },

    /// Shapes cannot be broadcast together.
    #[error(
        "cannot broadcast shape {from:?} to {to:?}: axis {axis} has size {from_size}, which is \
         neither 1 nor {to_size}; insert a size-1 axis (`unsqueeze`) or slice to matching sizes"
    )]
    Broadcast {
        /// The source shape.
        from: Vec<usize>,
        /// The target shape.
        to: Vec<usize>,
        /// The first axis (of the target) that does not fit.
        axis: usize,
        /// The source's size on that axis.
        from_size: usize,
        /// The target's size on that axis.
        to_size: usize,
    },

    /// Two operands' shapes do not broadcast to a common shape.
    #[error(
        "operands of shapes {lhs:?} and {rhs:?} do not broadcast: on axis {axis} of the result \
         (trailing axes aligned) they have sizes {lhs_size} and {rhs_size}, neither equal nor 1; \
         slice one operand, or insert a size-1 axis (`unsqueeze`) where it should repeat"
    )]
    BroadcastOperands {
        /// The left operand's shape.
        lhs: Vec<usize>,
        /// The right operand's shape.
        rhs: Vec<usize>,
        /// The axis of the result shape where they disagree.
        axis: usize,
        /// The left operand's size on that axis.
        lhs_size: usize,
        /// The right operand's size on that axis.
        rhs_size: usize,
    },

    /// The memory layout cannot express the requested view without copying.
    #[error("{op}: {reason}; {fix}")]
    Layout {
        /// The operation that failed.
        op: &'static str,
        /// Why the layout does not allow it.
        reason: String,
        /// What to do instead.
        fix: &'static str,
    },

    /// A domain cannot be split over the requested process grid.
    #[error("{op}: {reason}; {fix}")]
    Decomposition {
        /// The operation that failed.
        op: &'static str,
        /// Why the split is impossible.
        reason: String,
        /// What to do instead.
        fix: &'static str,
    },

    /// An MPI call failed (the library's return code and message), or a process of a collective
    /// operation failed, so that the operation failed on every process of the communicator.
    #[error("{op}: {reason}; {fix}")]
    Mpi {
        /// The operation that failed.
        op: &'static str,
        /// The MPI call and its error, or which process failed and its message.
        reason: String,
        /// What to do instead.
        fix: &'static str,
    },

    /// A run-time rank that does not match: an index of the wrong length for a view of run-time
    /// rank, or a view converted to a rank it does not have.
    #[error("{op}: got {got} axes where the array has {expected}; give one entry per axis (shape and strides alike)")]
    RankMismatch {
        /// The operation that failed.
        op: &'static str,
        /// The array's rank.
        expected: usize,
        /// The rank given.
        got: usize,
    },

    /// A size computation (shape product or byte count) overflows `usize` or exceeds `isize::MAX`.
    #[error(
        "{op}: shape {shape:?} of {elem_size}-byte elements spans more bytes than an allocation may \
         hold (isize::MAX; as in NumPy, the non-zero axes count even when another axis is 0); use \
         a smaller shape or split the data across arrays"
    )]
    Overflow {
        /// The operation that failed.
        op: &'static str,
        /// The requested shape.
        shape: Vec<usize>,
        /// Size of one element in bytes.
        elem_size: usize,
    },

    /// An allocation failed (the system, a pool cap, or a device refused it).
    #[error(
        "{op}: could not allocate {bytes} bytes: {reason}; free memory, use a smaller shape, \
         or raise the limit"
    )]
    Alloc {
        /// The operation that failed.
        op: &'static str,
        /// The number of bytes asked for.
        bytes: usize,
        /// Who refused and why.
        reason: String,
    },

    /// A device backend reported an error.
    #[error("{backend} backend: {message}")]
    Device {
        /// The backend's name.
        backend: &'static str,
        /// The backend's own message, with context.
        message: String,
    },

    /// The operands of one operation live on two different devices of the same backend.
    #[error(
        "{op}: the operands live on two different {backend} devices ({expected} and {got}); move \
         one with `to_device(&dev)` so that both share a device"
    )]
    DeviceMismatch {
        /// The operation that failed.
        op: &'static str,
        /// The backend's name.
        backend: &'static str,
        /// The device of the first operand (or of the output's allocator), as its `Debug` prints it.
        expected: String,
        /// The device of the operand that differs.
        got: String,
    },

    /// A device backend's kernels cannot take this operation as asked: one of their fixed limits,
    /// with its numbers (a rank past `MAX_RANK`, more taps than `MAX_TAPS`).
    #[error("{op}: {what} is {got}, but {backend} kernels take at most {max}; {fix}")]
    Limit {
        /// The operation that failed.
        op: &'static str,
        /// The backend's name.
        backend: &'static str,
        /// What is limited ("the rank of an operand", "the number of stencil taps" ...).
        what: &'static str,
        /// The value asked for.
        got: u64,
        /// The most the kernels take.
        max: u64,
        /// What to do instead.
        fix: &'static str,
    },

    /// No kernel of this backend implements the operation (a host-only op token such as a
    /// closure, or an op that changes the element type): run it on the host.
    #[error("{op}: {backend} has no kernel for this operation ({reason}); run it on the host (`to_host()`) or with an op the backend has")]
    NoKernel {
        /// The operation (op token) that failed.
        op: &'static str,
        /// The backend's name.
        backend: &'static str,
        /// Why there is none.
        reason: &'static str,
    },

    /// A structured element's field layout does not match the one expected.
    #[error("structured element {name}: {reason}; declare the fields with the same names, order, types and byte order on both sides")]
    Structure {
        /// The structured element type.
        name: &'static str,
        /// The first difference found.
        reason: String,
    },

    /// Foreign data (a NumPy array, an `.npy` file, a DLPack tensor) has an element type cnda
    /// does not handle there.
    #[error("{op}: elements of type {got} are not supported; {fix}")]
    UnsupportedDType {
        /// The operation that failed.
        op: &'static str,
        /// The foreign type's name.
        got: String,
        /// What to do instead (which types are supported, how to convert).
        fix: &'static str,
    },

    /// Memory cannot be shared, reallocated or written as asked because of who owns it (memory
    /// borrowed from a foreign owner, read-only memory, memory other views still reference).
    #[error("{op}: {reason}; {fix}")]
    Ownership {
        /// The operation that failed.
        op: &'static str,
        /// Who owns the memory and why that forbids the operation.
        reason: String,
        /// What to do instead.
        fix: &'static str,
    },

    /// A point source's or receiver's coordinates cannot be used with a field.
    #[error(
        "{op}: point {point} {reason}; give coordinates in grid units (index space: 2.5 lies halfway \
         between indices 2 and 3), finite, with every interpolation node inside the field"
    )]
    Coordinate {
        /// The operation that failed.
        op: &'static str,
        /// The point's number.
        point: usize,
        /// What is wrong with it.
        reason: String,
    },

    /// Reading or writing a file or stream failed, or its contents are not what they claim.
    #[error("{op}: {reason}; check the path, and that the file is complete and of the expected format")]
    Io {
        /// The operation that failed.
        op: &'static str,
        /// What the system or the format check reported.
        reason: String,
    },

    /// A parameter is out of its domain (a negative tolerance, a restart length of zero).
    #[error("{op}: {reason}; {fix}")]
    Parameter {
        /// The operation that failed.
        op: &'static str,
        /// Which parameter, its value, and what it must be.
        reason: String,
        /// What to pass instead.
        fix: &'static str,
    },

    /// An iterative solver used its iterations without meeting its tolerance.
    #[error("{method}: no convergence in {iterations} iterations ({reason}); {fix}")]
    NotConverged {
        /// The method (`"cg"`, `"bicgstab"`, `"gmres"`).
        method: &'static str,
        /// The iterations run.
        iterations: usize,
        /// The residual reached against the one asked for.
        reason: String,
        /// What to try.
        fix: &'static str,
    },

    /// An iterative solver's recurrence divided by zero or met a non-finite value, so it cannot
    /// continue.
    #[error("{method}: breakdown at iteration {iteration} ({reason}); {fix}")]
    Breakdown {
        /// The method (`"cg"`, `"bicgstab"`, `"gmres"`).
        method: &'static str,
        /// The iteration at which it broke down.
        iteration: usize,
        /// Which quantity vanished or stopped being finite.
        reason: String,
        /// What to try.
        fix: &'static str,
    },

    /// A stencil read from text (`TextStencil`) is refused: `stencil!`'s own message, where it
    /// points.
    #[error("{op}: line {line}, column {column}: {reason}; {fix}\n{excerpt}")]
    Syntax {
        /// The operation that failed.
        op: &'static str,
        /// The line, from 1.
        line: usize,
        /// The column, in characters from 1.
        column: usize,
        /// What is wrong and what to write instead.
        reason: String,
        /// The line quoted, with a caret under the column.
        excerpt: String,
        /// What to do.
        fix: &'static str,
    },

    /// The element type differs from the one expected (type-erased data).
    #[error(
        "{op}: expected elements of type {expected}, got {got}; \
         convert the data or read it as {got}"
    )]
    DType {
        /// The operation that failed.
        op: &'static str,
        /// The element type the operation needed.
        expected: DType,
        /// The element type it got.
        got: DType,
    },
}

impl Error {
    /// The out-of-bounds error for the first axis of `index` that is not below `shape`, if any.
    pub(crate) fn first_out_of_bounds(index: &[usize], shape: &[usize]) -> Option<Error> {
        index
            .iter()
            .zip(shape)
            .enumerate()
            .find(|(_, (&i, &n))| i >= n)
            .map(|(axis, (&index, &size))| Error::IndexOutOfBounds { axis, index, size })
    }

    /// A stencil kernel's tap limit: `got` taps where the kernels take `max`.
    pub(crate) fn taps_limit(backend: &'static str, got: usize, max: usize) -> Error {
        Error::Limit {
            op: "stencil apply",
            backend,
            what: "the number of stencil taps",
            got: got as u64,
            max: max as u64,
            fix: "split the stencil into sums of smaller ones",
        }
    }
}

/// The device backends' limits, built one way.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
impl Error {
    /// A device kernel's rank limit: an operand of `got` axes where the kernels take `max`.
    pub(crate) fn rank_limit(backend: &'static str, got: usize, max: usize) -> Error {
        Error::Limit {
            op: "a device kernel",
            backend,
            what: "the rank of an operand",
            got: got as u64,
            max: max as u64,
            fix: "reshape to fewer axes (merge the contiguous ones)",
        }
    }
}

/// The value, or a panic with the error's message at the caller's line: how every plain-named
/// operation turns its `try_` twin's `Result` into a panic. A `match`, not `unwrap_or_else`,
/// whose closure would report its own location instead of the caller's.
#[track_caller]
pub(crate) fn or_panic<A>(result: Result<A>) -> A {
    match result {
        Ok(value) => value,
        Err(e) => panic!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_mismatch_says_what_why_and_how() {
        let e = Error::LengthMismatch { op: "from_shape_vec", shape: vec![2, 3], expected: 6, got: 5 };
        assert_eq!(
            e.to_string(),
            "from_shape_vec: shape [2, 3] needs 6 elements, got 5; \
             pass 6 elements or change the shape"
        );
    }

    #[test]
    fn first_out_of_bounds_names_the_first_bad_axis() {
        assert_eq!(
            Error::first_out_of_bounds(&[1, 7, 9], &[2, 5, 3]),
            Some(Error::IndexOutOfBounds { axis: 1, index: 7, size: 5 })
        );
        assert_eq!(Error::first_out_of_bounds(&[1, 4], &[2, 5]), None);
    }
}
