//! Everyday operations on any format: `retain` and `pruned` against a filtered reference,
//! `same_values` against the dense values (and `==` as storage equality), `Display`.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_runtime::{Index, ModeOrder};
use sparse_tests::random_entries;

/// The dense values of a sorted entry list of `shape`.
fn dense(shape: &[usize], entries: &[(Vec<usize>, f64)]) -> Vec<f64> {
    let mut out = vec![0.0; shape.iter().product()];
    for (c, v) in entries {
        let at = c.iter().zip(shape).fold(0, |a, (&i, &n)| a * n + i);
        out[at] += v;
    }
    out
}

fn check<L: Levels + PartialEq, O: ModeOrder>(name: &str, shapes: &[&[usize]]) {
    for &shape in shapes {
        for (k, density) in [0.0, 0.2, 1.0].into_iter().enumerate() {
            let mut list = random_entries::<f64>(shape, density, 7 + k as u64);
            // Explicit zeros at a third of the entries.
            for (n, e) in list.iter_mut().enumerate() {
                if n % 3 == 0 {
                    e.1 = 0.0;
                }
            }
            let t = Tensor::<f64, L, O>::from_entries(shape, list.clone()).unwrap();
            let all_full = L::properties().iter().all(|p| p.full);
            // `retain`: the entries a predicate keeps, as a filtered reference.
            let even = t.retain(|c, _| c.iter().sum::<usize>() % 2 == 0).unwrap();
            let mut want: Vec<_> = t.entries();
            want.retain(|(c, _)| c.iter().sum::<usize>() % 2 == 0);
            if all_full {
                assert_eq!(dense(shape, &even.entries()), dense(shape, &want), "{name}");
            } else {
                assert_eq!(even.entries(), want, "{name}: retain on {shape:?}");
            }
            // `pruned`: no stored zero is left (but in dense formats), the values the same.
            let p = t.pruned().unwrap();
            assert!(
                all_full || p.entries().iter().all(|&(_, v)| v != 0.0),
                "{name}"
            );
            assert!(
                p.same_values(&t) && t.same_values(&p),
                "{name}: pruned values"
            );
            let has_zero = t.entries().iter().any(|&(_, v)| v == 0.0);
            assert_eq!(
                p == t,
                !has_zero || all_full,
                "{name}: == is storage equality"
            );
            // `same_values` is false as soon as one component differs.
            if let Some(&(ref c, v)) = t.entries().iter().find(|(_, v)| *v != 0.0) {
                let changed = t.retain(|d, _| d != &c[..]).unwrap();
                assert!(!changed.same_values(&t), "{name}: dropping {c:?} = {v}");
            }
            // `Display` lists every stored entry of a small tensor, sorted.
            let shown = t.to_string();
            let stored = t.entries().len();
            assert!(shown.starts_with("tensor of shape "), "{shown}");
            let lines = shown.lines().count() - 1;
            assert_eq!(lines, stored.min(21), "{name}: {shown}");
        }
    }
}

#[test]
fn retain_pruned_same_values_and_display_in_every_format() {
    let matrices: &[&[usize]] = &[&[0, 3], &[1, 1], &[4, 5], &[9, 7]];
    check::<(Dense, Compressed), Identity>("Csr", matrices);
    check::<(Dense, Compressed), Modes<1, 0>>("Csc", matrices);
    check::<(CompressedNonUnique, Singleton), Identity>("Coo", matrices);
    check::<(Compressed, Compressed), Identity>("Dcsr", matrices);
    check::<(Dense, Dense), Identity>("Dense2", matrices);
    check::<(Dense, Hashed), Identity>("HashMat", matrices);
    check::<(Compressed,), Identity>("SparseVec", &[&[0], &[1], &[30]]);
    check::<(Compressed, Compressed, Compressed), Modes<1, 2, 0>>("Csf3", &[&[3, 4, 5]]);
}

#[test]
fn display_shows_shape_entries_and_what_it_elides() {
    let a = Csr::<f64>::from_entries(&[2, 3], [([1, 0], -2.0), ([0, 2], 1.5)]).unwrap();
    assert_eq!(
        a.to_string(),
        "tensor of shape 2 x 3, 2 stored entries\n  (0, 2): 1.5\n  (1, 0): -2.0\n"
    );
    let v = SparseVec::<i32>::from_entries(&[4], [([3], 7)]).unwrap();
    assert_eq!(
        v.to_string(),
        "tensor of shape 4, 1 stored entry\n  (3): 7\n"
    );
    let d = Dense1::<i64>::from_vec((0..25).collect());
    let shown = d.to_string();
    assert!(shown.starts_with("tensor of shape 25, 25 stored entries\n  (0): 0\n"));
    assert!(shown.ends_with("  (19): 19\n  ... and 5 more\n"), "{shown}");
}

/// A borrowed slice `(inner indices, values)` of outer index `k` in mode `outer` of a
/// matrix, as sorted `(coordinate, value)` entries.
fn slice_entries<I: Index>(
    (inner, vals): (&[I], &[f64]),
    outer: usize,
    k: usize,
) -> Vec<(Vec<usize>, f64)> {
    let mut out: Vec<_> = inner
        .iter()
        .zip(vals)
        .map(|(&c, &v)| {
            let mut coord = vec![c.to_usize(); 2];
            coord[outer] = k;
            (coord, v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn rows_columns_and_fibers_borrow_exactly_their_entries() {
    for (k, shape) in [[0usize, 3], [3, 0], [1, 1], [6, 9], [20, 4]]
        .into_iter()
        .enumerate()
    {
        let list = random_entries::<f64>(&shape, 0.3, 40 + k as u64);
        let csr = Csr::<f64>::from_entries(&shape, list.clone()).unwrap();
        let csc = Csc::<f64>::from_entries(&shape, list.clone()).unwrap();
        let loose =
            Tensor::<f64, (Dense, Compressed<u64, Unordered>)>::from_entries(&shape, list).unwrap();
        let want = csr.entries();
        // The entries whose coordinate in mode `m` is `k`.
        let slice = |m: usize, k: usize| -> Vec<(Vec<usize>, f64)> {
            want.iter().filter(|e| e.0[m] == k).cloned().collect()
        };
        for i in 0..=shape[0] {
            let (Some(row), Some(loose_row)) = (csr.row(i), loose.fiber(i)) else {
                assert!(i == shape[0] && csr.row(i).is_none() && loose.fiber(i).is_none());
                continue;
            };
            // Sorted by column in the CSR row itself, not only after sorting.
            assert!(row.0.windows(2).all(|w| w[0] < w[1]), "row {i} sorted");
            assert_eq!(
                slice_entries(row, 0, i),
                slice(0, i),
                "row {i} of {shape:?}"
            );
            assert_eq!(
                slice_entries(loose_row, 0, i),
                slice(0, i),
                "unordered row {i}"
            );
        }
        for j in 0..=shape[1] {
            let Some(col) = csc.col(j) else {
                assert_eq!(j, shape[1]);
                continue;
            };
            assert!(col.0.windows(2).all(|w| w[0] < w[1]), "column {j} sorted");
            assert_eq!(
                slice_entries(col, 1, j),
                slice(1, j),
                "column {j} of {shape:?}"
            );
        }
    }
}
