//! `Display` and `Debug` in NumPy's style: nested brackets, right-aligned columns, and `...` in
//! place of the middle of long axes when the array has more than 1000 elements.

use core::fmt::{self, Write as _};

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::kernel::{Backend, HostAccessible};
use crate::layout::Layout;
use crate::view::{ArrayView, ArrayViewMut};

/// Arrays with more elements than this print summarized, as NumPy does.
const SUMMARY_THRESHOLD: usize = 1000;
/// Elements kept at each end of a summarized axis.
const EDGE_ITEMS: usize = 3;

/// Which positions of one axis are printed; `None` marks the `...` gap.
fn shown_positions(len: usize, summarize: bool) -> Vec<Option<usize>> {
    if summarize && len > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).map(Some).chain([None]).chain((len - EDGE_ITEMS..len).map(Some)).collect()
    } else {
        (0..len).map(Some).collect()
    }
}

struct Printer<const N: usize> {
    shown: [Vec<Option<usize>>; N],
    cells: Vec<String>,
    width: usize,
    next: usize,
}

impl<const N: usize> Printer<N> {
    fn collect(&mut self, depth: usize, index: &mut [usize; N], cell: &mut impl FnMut(&[usize; N]) -> String) {
        if depth == N {
            let text = cell(index);
            self.width = self.width.max(text.chars().count());
            self.cells.push(text);
            return;
        }
        for k in 0..self.shown[depth].len() {
            if let Some(i) = self.shown[depth][k] {
                index[depth] = i;
                self.collect(depth + 1, index, cell);
            }
        }
    }

    fn write(&mut self, depth: usize, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if depth == N {
            let cell = &self.cells[self.next];
            self.next += 1;
            return write!(out, "{cell:>width$}", width = self.width);
        }
        out.write_char('[')?;
        for k in 0..self.shown[depth].len() {
            if k > 0 {
                if depth + 1 == N {
                    out.write_str(", ")?;
                } else {
                    out.write_char(',')?;
                    for _ in 0..(N - depth - 1) {
                        out.write_char('\n')?;
                    }
                    for _ in 0..=depth {
                        out.write_char(' ')?;
                    }
                }
            }
            match self.shown[depth][k] {
                Some(_) => self.write(depth + 1, out)?,
                None => out.write_str("...")?,
            }
        }
        out.write_char(']')
    }
}

fn print<T: Pod, const N: usize, L: Layout, C: BoundsCheck>(
    view: ArrayView<'_, T, N, L, C>,
    out: &mut fmt::Formatter<'_>,
    mut text: impl FnMut(&T) -> String,
) -> fmt::Result {
    if view.is_empty() {
        // As NumPy prints every empty array; listing the positions of the other axes could mean
        // 2^40 entries (`[0, 1 << 40]`) or more.
        return out.write_str("[]");
    }
    let summarize = view.len() > SUMMARY_THRESHOLD;
    let shape = view.shape();
    let mut printer = Printer {
        shown: core::array::from_fn(|axis| shown_positions(shape[axis], summarize)),
        cells: Vec::new(),
        width: 0,
        next: 0,
    };
    let mut cell = |index: &[usize; N]| text(&view[*index]);
    printer.collect(0, &mut [0; N], &mut cell);
    printer.write(0, out)
}

fn display_cell<T: fmt::Display>(x: &T, precision: Option<usize>) -> String {
    match precision {
        Some(p) => format!("{x:.p$}"),
        None => x.to_string(),
    }
}

fn debug_tail<const N: usize>(
    out: &mut fmt::Formatter<'_>,
    shape: [usize; N],
    strides: [isize; N],
    names: [&str; 3],
) -> fmt::Result {
    write!(out, ", shape={shape:?}, strides={strides:?}, layout={}, check={}, backend={}", names[0], names[1], names[2])
}

impl<T: Pod + fmt::Display, const N: usize, L: Layout, C: BoundsCheck> fmt::Display for ArrayView<'_, T, N, L, C> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let precision = out.precision();
        print(*self, out, |x| display_cell(x, precision))
    }
}

impl<T: Pod + fmt::Debug, const N: usize, L: Layout, C: BoundsCheck> fmt::Debug for ArrayView<'_, T, N, L, C> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(*self, out, |x| format!("{x:?}"))?;
        debug_tail(out, self.shape(), self.strides(), [L::NAME, C::NAME, "Cpu"])
    }
}

impl<T: Pod + fmt::Display, const N: usize, L: Layout, C: BoundsCheck> fmt::Display for ArrayViewMut<'_, T, N, L, C> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.view(), out)
    }
}

impl<T: Pod + fmt::Debug, const N: usize, L: Layout, C: BoundsCheck> fmt::Debug for ArrayViewMut<'_, T, N, L, C> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.view(), out)
    }
}

impl<T: Pod + fmt::Display, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> fmt::Display
    for Array<T, N, B, L, C>
{
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.host_view(), out)
    }
}

impl<T: Pod + fmt::Debug, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> fmt::Debug
    for Array<T, N, B, L, C>
{
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(self.host_view(), out, |x| format!("{x:?}"))?;
        debug_tail(out, self.shape(), self.strides(), [L::NAME, C::NAME, <B as Backend>::NAME])
    }
}
