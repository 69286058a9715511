//! Property tests of the view algebra: random chains of 1 to 6 view ops on random shapes of rank
//! 1 to 4 (empty and length-1 axes included), checked element by element against a naive model
//! that materializes every intermediate result, plus `contiguous()`, `to_layout()` and writes
//! through the same chain of mutable views. 4 x 2,560 = 10,240 chains per run.

use cnda::prelude::*;
use cnda::{AxisSlice, BroadcastInto, Rank, SliceSpec};
use proptest::prelude::*;

/// The reference: a row-major list of values (original flat positions) and a shape.
#[derive(Clone, Debug)]
struct Model {
    shape: Vec<usize>,
    data: Vec<u32>,
}

impl Model {
    fn new(shape: &[usize]) -> Self {
        let len = shape.iter().product::<usize>();
        Model { shape: shape.to_vec(), data: (0..len as u32).collect() }
    }

    fn at(&self, index: &[usize]) -> u32 {
        let flat = index.iter().zip(&self.shape).fold(0, |acc, (&i, &n)| acc * n + i);
        self.data[flat]
    }

    /// A new model of `shape` whose element at `index` is the old element at `source(index)`.
    fn remap(&self, shape: Vec<usize>, source: impl Fn(&[usize]) -> Vec<usize>) -> Model {
        let len: usize = shape.iter().product();
        let mut data = Vec::with_capacity(len);
        let mut index = vec![0; shape.len()];
        for _ in 0..len {
            data.push(self.at(&source(&index)));
            for axis in (0..shape.len()).rev() {
                index[axis] += 1;
                if index[axis] < shape[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
        Model { shape, data }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Reverse,
    Transpose(usize, usize),
    Permute(Vec<usize>),
    Flip(usize),
    Narrow(usize, usize, usize),
    /// Per axis: (lo, hi, step, write lo/hi negative?)
    Slice(Vec<(usize, usize, isize, bool)>),
    Split(usize, usize, bool),
    Broadcast,
}

fn op_strategy(rank: usize) -> impl Strategy<Value = Op> {
    let axis = 0..rank;
    prop_oneof![
        Just(Op::Reverse),
        (axis.clone(), 0..rank).prop_map(|(a, b)| Op::Transpose(a, b)),
        Just((0..rank).collect::<Vec<_>>()).prop_shuffle().prop_map(Op::Permute),
        axis.clone().prop_map(Op::Flip),
        (axis.clone(), 0usize..6, 0usize..6).prop_map(|(a, s, l)| Op::Narrow(a, s, l)),
        proptest::collection::vec((0usize..6, 0usize..6, prop_oneof![1isize..4, -3isize..0], any::<bool>()), rank)
            .prop_map(Op::Slice),
        (axis, 0usize..6, any::<bool>()).prop_map(|(a, i, f)| Op::Split(a, i, f)),
        Just(Op::Broadcast),
    ]
}

/// Turns random numbers into a valid op for the current model shape (or `None` to skip it).
fn concretize(op: &Op, shape: &[usize]) -> Option<Op> {
    Some(match op {
        Op::Narrow(axis, s, l) => {
            let n = shape[*axis];
            let start = s % (n + 1);
            Op::Narrow(*axis, start, l % (n - start + 1))
        }
        Op::Slice(items) => Op::Slice(
            items
                .iter()
                .zip(shape)
                .map(|(&(a, b, step, neg), &n)| {
                    let (lo, hi) = (a % (n + 1), b % (n + 1));
                    (lo.min(hi), lo.max(hi), step, neg)
                })
                .collect(),
        ),
        Op::Split(axis, i, first) => Op::Split(*axis, i % (shape[*axis] + 1), *first),
        Op::Broadcast if !shape.contains(&1) => return None,
        other => other.clone(),
    })
}

fn apply_model(m: &Model, op: &Op) -> Model {
    let rank = m.shape.len();
    match op {
        Op::Reverse => m.remap(m.shape.iter().rev().copied().collect(), |ix| ix.iter().rev().copied().collect()),
        Op::Transpose(a, b) => {
            let mut shape = m.shape.clone();
            shape.swap(*a, *b);
            m.remap(shape, |ix| {
                let mut s = ix.to_vec();
                s.swap(*a, *b);
                s
            })
        }
        Op::Permute(p) => m.remap(p.iter().map(|&k| m.shape[k]).collect(), |ix| {
            let mut s = vec![0; rank];
            for (k, &axis) in p.iter().enumerate() {
                s[axis] = ix[k];
            }
            s
        }),
        Op::Flip(a) => m.remap(m.shape.clone(), |ix| {
            let mut s = ix.to_vec();
            s[*a] = m.shape[*a] - 1 - ix[*a];
            s
        }),
        Op::Narrow(a, start, len) => {
            let mut shape = m.shape.clone();
            shape[*a] = *len;
            m.remap(shape, |ix| {
                let mut s = ix.to_vec();
                s[*a] += start;
                s
            })
        }
        Op::Slice(items) => {
            let counts: Vec<usize> =
                items.iter().map(|&(lo, hi, step, _)| (hi - lo).div_ceil(step.unsigned_abs())).collect();
            m.remap(counts.clone(), |ix| {
                ix.iter()
                    .zip(items)
                    .map(
                        |(&k, &(lo, hi, step, _))| {
                            if step > 0 {
                                lo + k * step as usize
                            } else {
                                hi - 1 - k * step.unsigned_abs()
                            }
                        },
                    )
                    .collect()
            })
        }
        Op::Split(a, i, first) => {
            let mut shape = m.shape.clone();
            shape[*a] = if *first { *i } else { m.shape[*a] - i };
            m.remap(shape, |ix| {
                let mut s = ix.to_vec();
                if !*first {
                    s[*a] += i;
                }
                s
            })
        }
        Op::Broadcast => {
            let shape: Vec<usize> = m.shape.iter().map(|&n| if n == 1 { 3 } else { n }).collect();
            m.remap(shape, |ix| ix.iter().zip(&m.shape).map(|(&i, &n)| if n == 1 { 0 } else { i }).collect())
        }
    }
}

fn slice_spec<const N: usize>(
    items: &[(usize, usize, isize, bool)],
    shape: [usize; N],
) -> SliceSpec<N, N, false, false> {
    let mut out = [AxisSlice::FULL; N];
    for (k, &(lo, hi, step, neg)) in items.iter().enumerate() {
        let n = shape[k] as isize;
        // Write the bounds negatively (counting from the end) when asked, to test that path.
        let (lo, hi) = (lo as isize, hi as isize);
        let start = if neg && lo < n { lo - n } else { lo };
        let end = match (neg, hi < n) {
            (true, true) => Some(hi - n),
            (true, false) => None,
            (false, _) => Some(hi),
        };
        out[k] = AxisSlice::Range { start, end, step };
    }
    SliceSpec::new(out)
}

fn apply_view<'a, const N: usize>(v: ArrayView<'a, u32, N>, op: &Op) -> ArrayView<'a, u32, N>
where
    Rank<N>: BroadcastInto<Rank<N>>,
{
    match op {
        Op::Reverse => v.t().into_strided(),
        Op::Transpose(a, b) => v.transpose(*a, *b),
        Op::Permute(p) => v.permute(p.clone().try_into().unwrap()),
        Op::Flip(a) => v.flip(*a),
        Op::Narrow(a, s, l) => v.narrow(*a, *s, *l),
        Op::Slice(items) => v.slice(slice_spec(items, v.shape())),
        Op::Split(a, i, first) => {
            let (x, y) = v.split_at(*a, *i);
            if *first {
                x
            } else {
                y
            }
        }
        Op::Broadcast => v.broadcast_to(v.shape().map(|n| if n == 1 { 3 } else { n })),
    }
}

fn apply_view_mut<'a, const N: usize>(v: ArrayViewMut<'a, u32, N>, op: &Op) -> ArrayViewMut<'a, u32, N> {
    match op {
        Op::Reverse => v.t().into_strided(),
        Op::Transpose(a, b) => v.transpose(*a, *b),
        Op::Permute(p) => v.permute(p.clone().try_into().unwrap()),
        Op::Flip(a) => v.flip(*a),
        Op::Narrow(a, s, l) => v.narrow(*a, *s, *l),
        Op::Slice(items) => {
            let spec = slice_spec(items, v.shape());
            v.slice(spec)
        }
        Op::Split(a, i, first) => {
            let (x, y) = v.split_at(*a, *i);
            if *first {
                x
            } else {
                y
            }
        }
        Op::Broadcast => unreachable!("mutable chains never broadcast"),
    }
}

fn check_against<const N: usize>(v: ArrayView<'_, u32, N>, m: &Model) {
    assert_eq!(v.shape().to_vec(), m.shape);
    assert_eq!(v.len(), m.data.len());
    assert_eq!(v.iter().copied().collect::<Vec<_>>(), m.data, "iteration order");
    for (index, &x) in v.indexed_iter() {
        assert_eq!(x, m.at(&index));
        assert_eq!(v[index], x);
    }
}

fn run_chain<const N: usize>(shape: [usize; N], raw_ops: &[Op])
where
    Rank<N>: BroadcastInto<Rank<N>>,
{
    let a = Array::from_shape_vec(shape, (0..shape.iter().product::<usize>() as u32).collect()).unwrap();
    let mut model = Model::new(&shape);
    let mut view = a.view().into_strided();
    let mut ops = Vec::new();
    for raw in raw_ops {
        let Some(op) = concretize(raw, &model.shape) else { continue };
        model = apply_model(&model, &op);
        view = apply_view(view, &op);
        check_against(view, &model);
        ops.push(op);
    }
    let c = view.contiguous();
    assert_eq!(c.as_slice(), model.data.as_slice(), "contiguous() after {ops:?}");
    assert_eq!(c.is_borrowed(), view.is_contiguous());
    let f = view.to_layout::<ColMajor>();
    assert_eq!(f.iter().copied().collect::<Vec<_>>(), model.data, "to_layout::<ColMajor>()");

    // The same chain on mutable views (without broadcasts) writes exactly the selected elements.
    if ops.iter().any(|op| matches!(op, Op::Broadcast)) {
        return;
    }
    let mut b = a.clone();
    let mut vm = b.view_mut().into_strided();
    for op in &ops {
        vm = apply_view_mut(vm, op);
    }
    for x in vm.iter_mut() {
        *x += 1_000_000;
    }
    let selected: std::collections::HashSet<u32> = model.data.iter().copied().collect();
    for (&before, &after) in a.iter().zip(b.iter()) {
        let expected = if selected.contains(&before) { before + 1_000_000 } else { before };
        assert_eq!(after, expected);
    }
}

fn chain<const N: usize>(max_axis: usize) -> impl Strategy<Value = ([usize; N], Vec<Op>)> {
    (proptest::array::uniform::<_, N>(0..max_axis), proptest::collection::vec(op_strategy(N), 1..=6))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2560))]

    #[test]
    fn rank1_chains_match_the_model((shape, ops) in chain::<1>(9)) { run_chain(shape, &ops); }

    #[test]
    fn rank2_chains_match_the_model((shape, ops) in chain::<2>(7)) { run_chain(shape, &ops); }

    #[test]
    fn rank3_chains_match_the_model((shape, ops) in chain::<3>(5)) { run_chain(shape, &ops); }

    #[test]
    fn rank4_chains_match_the_model((shape, ops) in chain::<4>(4)) { run_chain(shape, &ops); }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Rank-changing ops: index_axis, squeeze/unsqueeze and reshape against the model.
    #[test]
    fn rank_changing_ops_match_the_model(shape in proptest::array::uniform::<_, 3>(1usize..5),
                                         axis in 0usize..3, pos in 0usize..5) {
        let m = Model::new(&shape);
        let a = Array::from_shape_vec(shape, m.data.clone()).unwrap();
        let i = pos % shape[axis];
        let sub = a.index_axis(axis, i);
        let mut kept: Vec<usize> = shape.to_vec();
        kept.remove(axis);
        let expected = m.remap(kept, |ix| { let mut s = ix.to_vec(); s.insert(axis, i); s });
        check_against(sub, &expected);
        let u = a.unsqueeze(axis);
        prop_assert_eq!(u.shape()[axis], 1);
        prop_assert_eq!(u.squeeze(axis), a.view());
        let flat = a.reshape([shape.iter().product()]);
        prop_assert_eq!(flat.as_slice(), m.data.as_slice());
        // Reshaping a permuted view succeeds exactly when no copy is needed; when it does, the
        // elements are the permuted view's in row-major order.
        let p = a.permute([1, 0, 2]);
        if let Ok(r) = p.try_reshape([shape[1] * shape[0], shape[2]]) {
            prop_assert_eq!(r.iter().copied().collect::<Vec<_>>(), p.iter().copied().collect::<Vec<_>>());
        } else {
            prop_assert!(shape[0] > 1 && shape[1] > 1);
        }
    }
}
