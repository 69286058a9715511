//! View chains and constructors from arbitrary bytes, with extreme sizes, steps and axes mixed
//! in. Every `try_` op must return `Ok` or `Err` (never panic), and every view it returns must
//! agree with itself: iteration, `at`, `to_owned`, `contiguous` and `Display` see the same
//! elements, each of which is an element of the source. Run under AddressSanitizer by cargo-fuzz.

#![no_main]

use cnda::prelude::*;
use cnda::{AxisSlice, SliceSpec};
use libfuzzer_sys::fuzz_target;

/// Reads the fuzzer's bytes as small numbers, with extreme values mixed in.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        *first
    }

    fn usize(&mut self) -> usize {
        let small = (self.byte() % 8) as usize;
        match self.byte() % 8 {
            0..=4 => small,
            5 => usize::MAX - small,
            6 => 1usize << (small * 9 % 64),
            _ => isize::MAX as usize - small,
        }
    }

    fn isize(&mut self) -> isize {
        let small = (self.byte() % 8) as isize;
        match self.byte() % 8 {
            0..=2 => small,
            3 | 4 => -small,
            5 => isize::MIN + small,
            6 => isize::MAX - small,
            _ => -(1isize << (small * 9 % 63)),
        }
    }

    fn axis(&mut self) -> usize {
        match self.byte() % 16 {
            15 => self.usize(),
            k => (k % 3) as usize,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let mut shape = [0usize; 3];
    for n in &mut shape {
        *n = (input.byte() % 6) as usize;
    }
    // A huge axis beside an empty one: an empty array whose other sizes overflow.
    if input.byte() % 8 == 0 {
        let axis = input.axis() % 3;
        shape[axis] = input.usize();
    }
    // Non-empty sources stay small (the fuzzer explores metadata, not memory size).
    let count = shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n));
    if !shape.contains(&0) && count.is_none_or(|n| n > 1 << 14) {
        return;
    }
    // Each element holds its own row-major position in the source.
    let Ok(a) = Array::<u64, 3>::try_from_fn(shape, |[i, j, k]| ((i * shape[1] + j) * shape[2] + k) as u64) else {
        return;
    };
    let mut v = a.view().into_strided();
    for _ in 0..input.byte() % 8 {
        let next = match input.byte() % 10 {
            0 => Ok(v.t().into_strided()),
            1 => v.try_transpose(input.axis(), input.axis()),
            2 => {
                let axes = [input.axis(), input.axis(), input.axis()];
                v.try_permute(axes)
            }
            3 => v.try_flip(input.axis()),
            4 => v.try_narrow(input.axis(), input.usize(), input.usize()),
            5 => {
                let mut range = || {
                    let (start, end, step) = (input.isize(), input.isize(), input.isize());
                    let end = if input.byte() % 2 == 0 { None } else { Some(end) };
                    AxisSlice::Range { start, end, step }
                };
                let items = [range(), range(), range()];
                v.try_slice(SliceSpec::<3, 3, false, false>::new(items)).map(|s| s.into_strided())
            }
            6 => {
                let first = input.byte() % 2 == 0;
                v.try_split_at(input.axis(), input.usize()).map(|(l, r)| if first { l } else { r })
            }
            7 => {
                let target = v.shape().map(|n| if n == 1 { input.usize() } else { n });
                v.try_broadcast_to(target)
            }
            8 => {
                let target = [input.usize(), input.usize(), input.usize()];
                v.try_reshape(target).map(|r| r.into_strided())
            }
            _ => v.try_squeeze::<2>(input.axis()).and_then(|s| s.try_unsqueeze::<3>(input.axis())),
        };
        if std::env::var_os("CNDA_FUZZ_TRACE").is_some() {
            eprintln!("{:?} -> {:?}", (v.shape(), v.strides()), next.as_ref().map(|n| (n.shape(), n.strides())));
        }
        match next {
            Ok(view) => v = view,
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    check(&a, v);
});

fn check(source: &Array<u64, 3>, v: ArrayView<'_, u64, 3, Strided>) {
    assert_eq!(v.len(), v.shape().iter().product::<usize>());
    if v.len() > 4096 {
        return;
    }
    let items: Vec<u64> = v.iter().copied().collect();
    assert_eq!(items.len(), v.len());
    for (index, &x) in v.indexed_iter() {
        assert_eq!(v.at(index), Ok(&x));
        let [_, n1, n2] = source.shape().map(|n| n as u64);
        let at_source = [x / (n1 * n2), x / n2 % n1, x % n2].map(|p| p as usize);
        assert_eq!(source.at(at_source), Ok(&x), "every element of a view is one of the source's");
    }
    assert_eq!(v.to_owned().as_slice(), items.as_slice());
    assert_eq!(v.contiguous().as_slice(), items.as_slice());
    let shape = v.shape();
    for axis in 0..3 {
        let mut past = [0; 3];
        past[axis] = shape[axis];
        assert!(v.at(past).is_err());
    }
    let _ = v.to_string();
}
