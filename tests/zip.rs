//! `Zip` over arrays and views of any layout: arrays as producers, up to eight operands, and the
//! indexed form, each against a naive loop over indices.

use cnda::prelude::*;

fn field(seed: usize) -> Array<i64, 2> {
    Array::from_fn([5, 7], |[i, j]| ((i * 31 + j * 17 + seed * 7) % 23) as i64 - 11)
}

#[test]
fn arrays_are_producers_like_their_views() {
    let (a, b) = (field(1), field(2));
    let mut out = Array::<i64, 2>::zeros([5, 7]);
    Zip::from(&mut out).and(&a).and(b.view()).for_each(|o, &x, &y| *o = x * y);
    let mut want = Array::<i64, 2>::zeros([5, 7]);
    for i in 0..5 {
        for j in 0..7 {
            want[[i, j]] = a[[i, j]] * b[[i, j]];
        }
    }
    assert_eq!(out, want);
    // A column-major array walks in index order, not memory order.
    let f = a.to_layout::<ColMajor>();
    let seen = Zip::from(&f).fold(Vec::new(), |mut v, &x| {
        v.push(x);
        v
    });
    assert_eq!(seen, a.iter().copied().collect::<Vec<_>>());
}

#[test]
fn eight_operands_in_lockstep() {
    let fields: Vec<Array<i64, 2>> = (0..7).map(field).collect();
    let mut out = Array::<i64, 2>::zeros([5, 7]);
    Zip::from(&mut out)
        .and(&fields[0])
        .and(&fields[1])
        .and(&fields[2])
        .and(&fields[3])
        .and(&fields[4])
        .and(fields[5].t().t())
        .and(&fields[6])
        .for_each(|o, a, b, c, d, e, f, g| *o = a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g);
    for i in 0..5 {
        for j in 0..7 {
            let want: i64 = (0..7).map(|k| (k as i64 + 1) * fields[k][[i, j]]).sum();
            assert_eq!(out[[i, j]], want);
        }
    }
}

#[test]
fn indexed_gives_each_elements_own_index_in_any_layout() {
    let a = field(3);
    let mut out = Array::<i64, 2>::zeros([7, 5]).to_layout::<ColMajor>();
    // A transposed (column-major) view, flipped: the index is the view's, not memory's.
    Zip::from(out.view_mut().flip(1)).and(a.t()).indexed().for_each(|[i, j], o, &x| *o = x * 100 + (i * 10 + j) as i64);
    for i in 0..7 {
        for j in 0..5 {
            assert_eq!(out[[i, 4 - j]], a[[j, i]] * 100 + (i * 10 + j) as i64);
        }
    }
    let visited = Zip::from(&a).indexed().fold(Vec::new(), |mut v, index, _| {
        v.push(index);
        v
    });
    assert_eq!(visited.len(), 35);
    assert_eq!((visited[0], visited[7], visited[34]), ([0, 0], [1, 0], [4, 6]));
}

#[test]
fn indexed_walks_of_empty_and_rank_zero_arrays() {
    let empty = Array::<f64, 2>::zeros([3, 0]);
    assert_eq!(Zip::from(&empty).indexed().fold(0, |n, _, _| n + 1), 0);
    let scalar = Array::<f64, 0>::full([], 4.0);
    assert_eq!(Zip::from(&scalar).indexed().fold(0.0, |acc, [], &x| acc + x), 4.0);
}
