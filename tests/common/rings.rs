//! The reference state of the time stepper's system tests (`stencil_systems.rs`,
//! `stencil_stages.rs`): per field a ring of arrays rotated by hand after each sweep that
//! writes it, the newest levels' halos refilled by their definitions (`naive_halos.rs`), one
//! `apply` per stage. No cnda stepping code.

use cnda::prelude::*;
use cnda::stencil::{Boundary, State};
use proptest::prelude::*;

use super::naive_halos::refill;

/// Per field, a ring of `levels + 1` arrays, each field's newest level at its own position
/// (the scratch after it, older levels after that).
pub struct Rings {
    rings: Vec<Vec<Array<f64, 2>>>,
    newest: Vec<usize>,
}

/// One stage of the reference: the fields it writes and its sweep, which computes them (in
/// that order) from every field's levels, newest first, field by field.
pub type RefStage<'a> = (&'a [usize], &'a dyn Fn(&[&Array<f64, 2>], &mut [Array<f64, 2>]));

impl Rings {
    /// From each field's levels, newest first; the scratch a copy of the newest level.
    pub fn new(levels: &[Vec<Array<f64, 2>>]) -> Rings {
        let rings: Vec<Vec<Array<f64, 2>>> = levels
            .iter()
            .map(|l| {
                let mut ring = vec![l[0].clone(), l[0].clone()];
                ring.extend(l[1..].iter().rev().cloned());
                ring
            })
            .collect();
        Rings { newest: vec![0; rings.len()], rings }
    }

    fn len(&self) -> usize {
        self.rings[0].len()
    }

    fn position(&self, f: usize, back: isize) -> usize {
        (self.newest[f] as isize - back).rem_euclid(self.len() as isize) as usize
    }

    /// Field `f` at `back` sweeps before its newest level (`-1`: the scratch).
    pub fn at(&self, f: usize, back: isize) -> &Array<f64, 2> {
        &self.rings[f][self.position(f, back)]
    }

    /// `steps` sweeps of one stencil writing every field: refill the newest levels' halos (all
    /// levels before the first; field `f` as `b[f]` says, or `b[0]` for all), compute the
    /// scratch arrays by `sweep` from every field's levels, rotate; a last refill.
    #[allow(dead_code)] // not every test that includes this module steps one stage
    pub fn run(
        &mut self,
        steps: usize,
        r: [usize; 2],
        b: &[[[Boundary<f64>; 2]; 2]],
        sweep: impl Fn(&[&Array<f64, 2>], &mut [Array<f64, 2>]),
    ) {
        let all: Vec<usize> = (0..self.rings.len()).collect();
        self.run_stages(steps, r, b, &[(&all, &sweep)]);
    }

    /// `steps` steps of `stages` in order: each computes the scratch arrays of the fields it
    /// writes from every field's newest levels (a field written earlier in the step at its new
    /// level) over the interior of the halo `r`, rotates those fields' rings and refills their
    /// new levels' halos.
    pub fn run_stages(&mut self, steps: usize, r: [usize; 2], b: &[[[Boundary<f64>; 2]; 2]], stages: &[RefStage<'_>]) {
        self.run_stages_then(steps, r, b, stages, &mut |_, _, _| {});
    }

    /// [`Rings::run_stages`], calling `then(t, f, new level)` right after field `f`'s new level
    /// of step `t` (from 0) is written, before its halos are refilled (a source injected there,
    /// a receiver sampled).
    pub fn run_stages_then(
        &mut self,
        steps: usize,
        r: [usize; 2],
        b: &[[[Boundary<f64>; 2]; 2]],
        stages: &[RefStage<'_>],
        then: &mut dyn FnMut(usize, usize, &mut Array<f64, 2>),
    ) {
        let (fields, levels) = (self.rings.len(), self.len() - 1);
        let shape = self.rings[0][0].shape();
        let bound = |f: usize| &b[f.min(b.len() - 1)];
        if steps == 0 || (0..2).any(|k| shape[k] < 2 * r[k] + 1) {
            // No interior point: nothing is written, the levels rotate all the same.
            let ring = self.len();
            for newest in &mut self.newest {
                *newest = (*newest + steps) % ring;
            }
            return;
        }
        for f in 0..fields {
            for back in 0..levels {
                let at = self.position(f, back as isize);
                refill(&mut self.rings[f][at], r, bound(f));
            }
        }
        for t in 0..steps {
            for (writes, sweep) in stages {
                let mut outputs: Vec<Array<f64, 2>> = writes.iter().map(|&f| self.at(f, -1).clone()).collect();
                {
                    let inputs: Vec<&Array<f64, 2>> = (0..fields)
                        .flat_map(|f| (0..levels).map(move |back| (f, back)))
                        .map(|(f, back)| self.at(f, back as isize))
                        .collect();
                    sweep(&inputs, &mut outputs);
                }
                for (&f, out) in writes.iter().zip(outputs) {
                    let scratch = self.position(f, -1);
                    // Every stage writes the interior of the halo `r` (the widest stage's), also
                    // where its own radius is smaller.
                    let old = &self.rings[f][scratch];
                    let inside = |i: [usize; 2]| (0..2).all(|k| i[k] >= r[k] && i[k] + r[k] < shape[k]);
                    let out = Array::from_fn(shape, |i| if inside(i) { out[i] } else { old[i] });
                    self.rings[f][scratch] = out;
                    self.newest[f] = scratch;
                    then(t, f, &mut self.rings[f][scratch]);
                    refill(&mut self.rings[f][scratch], r, bound(f));
                }
            }
        }
    }
}

/// Every level and the scratch of each field of `state` equal the reference's.
pub fn same<const M: usize, const L: usize>(mut state: State<f64, 2, M, L>, want: &Rings) -> Result<(), TestCaseError> {
    for f in 0..M {
        for l in 0..L {
            prop_assert_eq!(state.level(f, l), want.at(f, l as isize), "field {} level {}", f, l);
        }
        prop_assert_eq!(&*state.scratch_mut(f), want.at(f, -1), "field {} scratch", f);
    }
    Ok(())
}
