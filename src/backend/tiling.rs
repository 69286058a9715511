//! The launch chain of the device backends' time-tiled stencil kernels (`cuda/tiled.rs`,
//! `wgpu/tiled.rs`), written once: `steps - 1` sweeps in launches of up to `per_launch` each,
//! never writing the field a launch reads (other blocks are still loading it), ending in the field
//! that holds sweep `steps - 1`; then the last sweep by the ordinary expression kernel.

use crate::error::Result;
use crate::kernel::expr::{Scalar, Stencil};
use crate::kernel::{CopyKernels, Desc, ExprStencilKernels};

/// Whether two descriptors are one field (a buffer identity each backend knows).
pub(crate) type SameField<'a, B, T, const N: usize> = &'a dyn Fn(&Desc<B, T, N>, &Desc<B, T, N>) -> bool;

/// The run of a time-tiled kernel over the two fields of a time stepper.
pub(crate) struct Chain<'a, B: ExprStencilKernels + CopyKernels, T: Scalar, const N: usize> {
    /// The device.
    pub(crate) dev: &'a B::Device,
    /// The two whole fields (`fields[0]` holds sweep 0).
    pub(crate) fields: [Desc<B, T, N>; 2],
    /// A third whole field of their shape, owned by the caller for the call.
    pub(crate) scratch: Desc<B, T, N>,
    /// The coefficient fields.
    pub(crate) coefficients: &'a [Desc<B, T, N>],
    /// The interior region of a whole field.
    pub(crate) interior: &'a dyn Fn(Desc<B, T, N>) -> Desc<B, T, N>,
    /// Whether two descriptors are one field.
    pub(crate) same: SameField<'a, B, T, N>,
}

impl<B: ExprStencilKernels + CopyKernels, T: Scalar, const N: usize> Chain<'_, B, T, N> {
    /// Runs `steps` sweeps: `launch(cur, dst, sweeps, parity)` advances the interior of `cur`
    /// (holding sweep `done`, of parity `done % 2`) by `sweeps` into `dst`, another field; the
    /// last sweep goes through `ExprStencilKernels::expression`.
    ///
    /// # Safety
    ///
    /// As for `ExprStencilKernels::expression_steps`, and `launch` keeps the contract it is given
    /// (reads only `cur`'s interior and the fields' halos, writes only `dst`'s interior).
    ///
    /// # Errors
    ///
    /// The launches' and kernels' errors.
    pub(crate) unsafe fn run<S: Stencil<T, N>>(
        &self,
        params: &S::Params,
        steps: usize,
        per_launch: usize,
        mut launch: impl FnMut(Desc<B, T, N>, Desc<B, T, N>, usize, usize) -> Result<()>,
    ) -> Result<()> {
        let (fields, scratch, same) = (self.fields, self.scratch, self.same);
        // Sweep `steps - 1` must end in `fields[(steps - 1) % 2]` (`last`), read from elsewhere.
        let last = fields[(steps - 1) % 2];
        let mut cur = fields[0];
        let mut done = 0;
        while done < steps - 1 {
            let chunk = per_launch.min(steps - 1 - done);
            let finishing = done + chunk == steps - 1;
            // `last` at the end; else whichever of the scratch and the other field is not read.
            let dst = if finishing {
                last
            } else if same(&cur, &scratch) {
                fields[steps % 2]
            } else {
                scratch
            };
            if finishing && same(&cur, &last) {
                // Only when the chain is one launch from the initial field: move it aside first.
                // SAFETY: two live, distinct whole fields of one shape.
                unsafe { B::copy(self.dev, (self.interior)(scratch), (self.interior)(cur)) }?;
                cur = scratch;
            }
            launch(cur, dst, chunk, done % 2)?;
            cur = dst;
            done += chunk;
        }
        // The last sweep, from `last` into the other field.
        let mut all = vec![(self.interior)(last)];
        all.extend(self.coefficients.iter().map(|&c| (self.interior)(c)));
        // SAFETY: the caller's contract; the interior of the other field is written from `last`.
        unsafe { B::expression::<S, T, N>(self.dev, &[(self.interior)(fields[steps % 2])], &all, params) }
    }
}

/// The output tile of one block per axis (the last fastest), one thread per point, and the
/// sweeps per launch: 8 x 32 and four in 2D; 2 x 4 x 32 and two in 3D, where a tile widened by
/// that many radii on every side grows fast.
const TILE_2D: [usize; 2] = [8, 32];
const TILE_3D: [usize; 3] = [2, 4, 32];
const STEPS_2D: usize = 4;
const STEPS_3D: usize = 2;

/// The shape of a tiled kernel: per axis the radius, the output tile and the widest loaded
/// extent (the tile widened by `steps` radii on both sides), and the sweeps per launch.
pub(crate) struct Tile {
    pub(crate) radius: Vec<usize>,
    pub(crate) tile: Vec<usize>,
    pub(crate) extent: Vec<usize>,
    pub(crate) steps: usize,
}

impl Tile {
    /// The tile of a rank-2 or rank-3 stencil of `radius`; `None` for other ranks.
    pub(crate) fn new(radius: &[usize]) -> Option<Self> {
        let (tile, steps) = match radius.len() {
            2 => (TILE_2D.to_vec(), STEPS_2D),
            3 => (TILE_3D.to_vec(), STEPS_3D),
            _ => return None,
        };
        let extent = tile.iter().zip(radius).map(|(t, r)| t + 2 * steps * r).collect();
        Some(Tile { radius: radius.to_vec(), tile, extent, steps })
    }

    /// The cells of one loaded tile.
    pub(crate) fn cells(&self) -> usize {
        self.extent.iter().product()
    }

    /// The flat stride of axis `k` in a loaded tile (WebGPU's flat workgroup arrays).
    #[cfg(feature = "wgpu")]
    pub(crate) fn stride(&self, k: usize) -> usize {
        self.extent[k + 1..].iter().product()
    }

    /// The threads of a block: one per output point of the tile (CUDA's launch shape).
    #[cfg(feature = "cuda")]
    pub(crate) fn threads(&self) -> usize {
        self.tile.iter().product()
    }
}
