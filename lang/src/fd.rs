//! Finite-difference operators of the stencil language: `laplace(u, order)`, `diff(u, axis, n,
//! order)` and `diff_half(u, axis, order, side)`, expanded at compile time into taps and weights.
//!
//! The weights come from Fornberg's algorithm ("Calculation of weights in finite difference
//! formulas", SIAM Review 40, 1998) in exact rational arithmetic, so each weight is a fraction,
//! rounded once to each precision (from a 40-digit decimal expansion, as a written literal would
//! be). Centred weights are symmetric (even `n`) or antisymmetric (odd `n`), and the expansion
//! groups each pair under one multiplication: `w0 * u[0] + w1 * (u[1] + u[-1]) + ...` for even
//! `n`, `w1 * (u[1] - u[-1]) + ...` for odd `n`. The Laplacian shares each distance's weight over
//! the axes: `N w0 * u[0] + w1 * ((u[1, 0] + u[-1, 0]) + (u[0, 1] + u[0, -1])) + ...`.

/// The largest order of accuracy (a radius of `order / 2 + (n - 1) / 2`).
pub const MAX_ORDER: i64 = 16;
/// The highest derivative `diff` takes.
pub const MAX_DERIVATIVE: i64 = 4;

/// An exact fraction, kept in lowest terms with a positive denominator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Q {
    num: i128,
    den: i128,
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Q {
    pub fn new(num: i128, den: i128) -> Q {
        assert!(den != 0, "a fraction's denominator is not zero");
        let g = gcd(num, den).max(1) * den.signum();
        Q { num: num / g, den: den / g }
    }

    pub fn int(n: i64) -> Q {
        Q::new(n.into(), 1)
    }

    fn is_zero(self) -> bool {
        self.num == 0
    }

    // The operands stay small (orders up to 16 on integer and half-integer points); a product
    // that would overflow is a bug, and panics in the macro rather than rounding silently.
    fn mul(self, o: Q) -> Q {
        let (g1, g2) = (gcd(self.num, o.den).max(1), gcd(o.num, self.den).max(1));
        let num = (self.num / g1).checked_mul(o.num / g2).expect("a finite-difference weight fits i128");
        let den = (self.den / g2).checked_mul(o.den / g1).expect("a finite-difference weight fits i128");
        Q::new(num, den)
    }

    fn div(self, o: Q) -> Q {
        self.mul(Q::new(o.den, o.num))
    }

    fn add(self, o: Q) -> Q {
        let g = gcd(self.den, o.den);
        let num =
            (self.num * (o.den / g)).checked_add(o.num * (self.den / g)).expect("a finite-difference weight fits i128");
        Q::new(num, self.den / g * o.den)
    }

    fn sub(self, o: Q) -> Q {
        self.add(Q::new(-o.num, o.den))
    }

    /// The value as decimal text with 40 significant digits (truncated): what the literal parser
    /// rounds to each precision. A fraction whose expansion ends sooner is exact.
    pub fn decimal(self) -> String {
        let sign = if self.num < 0 { "-" } else { "" };
        let (mut rem, den) = (self.num.abs(), self.den);
        let int = rem / den;
        rem %= den;
        let mut text = format!("{sign}{int}.");
        let mut significant = if int == 0 { 0 } else { int.to_string().len() };
        let mut digits = 0;
        while rem != 0 && significant < 40 && digits < 400 {
            rem *= 10;
            let d = rem / den;
            rem %= den;
            text.push(char::from(b'0' + d as u8));
            digits += 1;
            if d != 0 || significant > 0 {
                significant += 1;
            }
        }
        if text.ends_with('.') {
            text.push('0');
        }
        text
    }
}

/// Fornberg's weights: for evaluation point `x0` and grid points `xs`, the weights of the
/// `m`-th derivative (`m < xs.len()`), one per point.
pub fn weights(x0: Q, xs: &[Q], m: usize) -> Vec<Q> {
    let n = xs.len();
    let zero = Q::int(0);
    let mut c = vec![vec![zero; m + 1]; n];
    let mut c1 = Q::int(1);
    let mut c4 = xs[0].sub(x0);
    c[0][0] = Q::int(1);
    for i in 1..n {
        let mn = i.min(m);
        let mut c2 = Q::int(1);
        let c5 = c4;
        c4 = xs[i].sub(x0);
        for j in 0..i {
            let c3 = xs[i].sub(xs[j]);
            c2 = c2.mul(c3);
            if j == i - 1 {
                for k in (1..=mn).rev() {
                    let kq = Q::int(k as i64);
                    c[i][k] = c1.mul(kq.mul(c[i - 1][k - 1]).sub(c5.mul(c[i - 1][k]))).div(c2);
                }
                c[i][0] = zero.sub(c1.mul(c5).mul(c[i - 1][0])).div(c2);
            }
            for k in (1..=mn).rev() {
                let kq = Q::int(k as i64);
                c[j][k] = c4.mul(c[j][k]).sub(kq.mul(c[j][k - 1])).div(c3);
            }
            c[j][0] = c4.mul(c[j][0]).div(c3);
        }
        c1 = c2;
    }
    c.into_iter().map(|row| row[m]).collect()
}

/// A finite-difference operator, its arguments checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// The sum of the second derivatives along every axis.
    Laplace { order: i64 },
    /// The `n`-th derivative along `axis`, centred on the point.
    Diff { axis: usize, n: i64, order: i64 },
    /// The first derivative along `axis` at the half point `side / 2` (`side` is 1 or -1).
    DiffHalf { axis: usize, order: i64, side: i64 },
}

/// One term of an expansion: a weight times the sum of taps at `points` (offsets from the
/// centre), each added (`true`) or subtracted (`false`); the first is always added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub weight: Q,
    pub points: Vec<(Vec<i32>, bool)>,
}

fn unit(rank: usize, axis: usize, d: i64) -> Vec<i32> {
    let mut v = vec![0; rank];
    v[axis] = i32::try_from(d).expect("offsets are at most MAX_ORDER");
    v
}

/// The centred weights of the `n`-th derivative to `order`: `w[k]` for `k = 0..=m`
/// (offsets `-m..=m` are symmetric or antisymmetric).
fn centred(n: i64, order: i64) -> Vec<Q> {
    let m = (n + 1) / 2 - 1 + order / 2;
    let xs: Vec<Q> = (-m..=m).map(Q::int).collect();
    let w = weights(Q::int(0), &xs, n as usize);
    w[m as usize..].to_vec()
}

/// The terms of `op` for a stencil of rank `rank` (the operator's arguments already checked).
pub fn terms(op: Operator, rank: usize) -> Vec<Term> {
    let mut terms = Vec::new();
    let mut push = |weight: Q, points: Vec<(Vec<i32>, bool)>| {
        if !weight.is_zero() {
            terms.push(Term { weight, points });
        }
    };
    match op {
        Operator::Laplace { order } => {
            let w = centred(2, order);
            push(w[0].mul(Q::int(rank as i64)), vec![(vec![0; rank], true)]);
            for (k, &wk) in w.iter().enumerate().skip(1) {
                let k = k as i64;
                let points = (0..rank).flat_map(|a| [(unit(rank, a, k), true), (unit(rank, a, -k), true)]).collect();
                push(wk, points);
            }
        }
        Operator::Diff { axis, n, order } => {
            let w = centred(n, order);
            push(w[0], vec![(vec![0; rank], true)]);
            for (k, &wk) in w.iter().enumerate().skip(1) {
                let k = k as i64;
                push(wk, vec![(unit(rank, axis, k), true), (unit(rank, axis, -k), n % 2 == 0)]);
            }
        }
        Operator::DiffHalf { axis, order, side } => {
            // Points at the half-integers around the evaluation point: `j - 1/2` for
            // `j = -order/2 + 1 ..= order/2`, shifted by `side / 2`.
            let half = order / 2;
            let xs: Vec<Q> = (-half + 1..=half).map(|j| Q::new(2 * i128::from(j) - 1, 2)).collect();
            let w = weights(Q::int(0), &xs, 1);
            // Antisymmetric: the weight of `j - 1/2` is minus that of `1/2 - j`.
            for j in 1..=half {
                let wj = w[(j + half - 1) as usize];
                // Grid offsets of the points `j - 1/2` and `1/2 - j` from the centre, for the
                // half point at `side / 2`: `j - 1/2 + side/2` and `1/2 - j + side/2`.
                let (up, down) = if side > 0 { (j, 1 - j) } else { (j - 1, -j) };
                push(wj, vec![(unit(rank, axis, up), true), (unit(rank, axis, down), false)]);
            }
        }
    }
    terms
}

/// The radius `op` reaches along its axes.
pub fn reach(op: Operator) -> i64 {
    match op {
        Operator::Laplace { order } => order / 2,
        Operator::Diff { n, order, .. } => (n + 1) / 2 - 1 + order / 2,
        Operator::DiffHalf { order, .. } => order / 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i128, d: i128) -> Q {
        Q::new(n, d)
    }

    fn centred_all(n: i64, order: i64) -> Vec<Q> {
        let m = (n + 1) / 2 - 1 + order / 2;
        let xs: Vec<Q> = (-m..=m).map(Q::int).collect();
        weights(Q::int(0), &xs, n as usize)
    }

    // Fornberg's 1988 table (Math. Comp. 51, table 1), as Devito's `fd_weights` gives them.
    #[test]
    fn centred_second_derivatives_match_the_table() {
        assert_eq!(centred_all(2, 2), [q(1, 1), q(-2, 1), q(1, 1)]);
        assert_eq!(centred_all(2, 4), [q(-1, 12), q(4, 3), q(-5, 2), q(4, 3), q(-1, 12)]);
        assert_eq!(
            centred_all(2, 8),
            [q(-1, 560), q(8, 315), q(-1, 5), q(8, 5), q(-205, 72), q(8, 5), q(-1, 5), q(8, 315), q(-1, 560)]
        );
    }

    #[test]
    fn centred_first_and_higher_derivatives_match_the_table() {
        assert_eq!(centred_all(1, 2), [q(-1, 2), q(0, 1), q(1, 2)]);
        assert_eq!(centred_all(1, 4), [q(1, 12), q(-2, 3), q(0, 1), q(2, 3), q(-1, 12)]);
        assert_eq!(
            centred_all(1, 8),
            [q(1, 280), q(-4, 105), q(1, 5), q(-4, 5), q(0, 1), q(4, 5), q(-1, 5), q(4, 105), q(-1, 280)]
        );
        assert_eq!(centred_all(3, 2), [q(-1, 2), q(1, 1), q(0, 1), q(-1, 1), q(1, 2)]);
        assert_eq!(centred_all(4, 2), [q(1, 1), q(-4, 1), q(6, 1), q(-4, 1), q(1, 1)]);
    }

    #[test]
    fn staggered_first_derivatives_match_the_table() {
        let half = |order: i64| {
            let h = order / 2;
            let xs: Vec<Q> = (-h + 1..=h).map(|j| Q::new(2 * i128::from(j) - 1, 2)).collect();
            weights(Q::int(0), &xs, 1)
        };
        assert_eq!(half(2), [q(-1, 1), q(1, 1)]);
        assert_eq!(half(4), [q(1, 24), q(-9, 8), q(9, 8), q(-1, 24)]);
        assert_eq!(
            half(8),
            [
                q(5, 7168),
                q(-49, 5120),
                q(245, 3072),
                q(-1225, 1024),
                q(1225, 1024),
                q(-245, 3072),
                q(49, 5120),
                q(-5, 7168)
            ]
        );
    }

    #[test]
    fn every_order_and_derivative_computes_exactly_and_sums_to_zero() {
        for order in (2..=MAX_ORDER).step_by(2) {
            for n in 1..=MAX_DERIVATIVE {
                let w = centred_all(n, order);
                // A derivative of a constant is zero; of x^n it is n!.
                assert_eq!(w.iter().fold(Q::int(0), |s, &x| s.add(x)), Q::int(0));
                let m = (w.len() / 2) as i64;
                let moment = w.iter().enumerate().fold(Q::int(0), |s, (i, &x)| {
                    let xi = Q::int(i as i64 - m);
                    s.add(x.mul((0..n).fold(Q::int(1), |p, _| p.mul(xi))))
                });
                assert_eq!(moment, Q::int((1..=n).product()), "n = {n}, order = {order}");
            }
        }
    }

    #[test]
    fn decimals_are_exact_or_forty_digits() {
        assert_eq!(q(-205, 72).decimal(), "-2.847222222222222222222222222222222222222");
        assert_eq!(q(1, 560).decimal(), "0.001785714285714285714285714285714285714285");
        assert_eq!(q(9, 8).decimal(), "1.125");
        assert_eq!(q(-4, 1).decimal(), "-4.0");
        assert_eq!(q(0, 1).decimal(), "0.0");
    }

    #[test]
    fn the_laplacian_shares_each_distance_over_the_axes() {
        let t = terms(Operator::Laplace { order: 2 }, 2);
        assert_eq!(t[0], Term { weight: q(-4, 1), points: vec![(vec![0, 0], true)] });
        assert_eq!(
            t[1],
            Term {
                weight: q(1, 1),
                points: vec![(vec![1, 0], true), (vec![-1, 0], true), (vec![0, 1], true), (vec![0, -1], true)]
            }
        );
        assert_eq!(t.len(), 2);
        assert_eq!(terms(Operator::Laplace { order: 8 }, 3).len(), 5);
    }

    #[test]
    fn odd_derivatives_subtract_and_skip_the_zero_centre() {
        let t = terms(Operator::Diff { axis: 1, n: 1, order: 2 }, 2);
        assert_eq!(t, [Term { weight: q(1, 2), points: vec![(vec![0, 1], true), (vec![0, -1], false)] }]);
        let t = terms(Operator::DiffHalf { axis: 0, order: 2, side: 1 }, 1);
        assert_eq!(t, [Term { weight: q(1, 1), points: vec![(vec![1], true), (vec![0], false)] }]);
        let t = terms(Operator::DiffHalf { axis: 0, order: 2, side: -1 }, 1);
        assert_eq!(t, [Term { weight: q(1, 1), points: vec![(vec![0], true), (vec![-1], false)] }]);
        let t = terms(Operator::DiffHalf { axis: 0, order: 4, side: 1 }, 1);
        assert_eq!(t[1], Term { weight: q(-1, 24), points: vec![(vec![2], true), (vec![-1], false)] });
    }

    #[test]
    fn reach_is_the_largest_offset() {
        for order in (2..=MAX_ORDER).step_by(2) {
            for op in [
                Operator::Laplace { order },
                Operator::Diff { axis: 0, n: 3, order },
                Operator::DiffHalf { axis: 0, order, side: -1 },
            ] {
                let far = terms(op, 1).iter().flat_map(|t| t.points.iter().map(|(p, _)| i64::from(p[0].abs()))).max();
                assert_eq!(far, Some(reach(op)), "{op:?}");
            }
        }
    }
}
