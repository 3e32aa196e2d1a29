//! The reference the tests compare against: a `BTreeMap` from logical
//! coordinate to summed value, plus a checker that a built tensor matches it.

use super::prng::XorShift;
use crate::{Level, Levels, ModeOrder, Tensor};
use std::collections::BTreeMap;

/// Entries as generated: possibly unsorted and duplicated.
pub type Entries = Vec<(Vec<usize>, i64)>;

/// `n` random entries inside `shape` (values in -4..=4, so sums can cancel).
pub fn random_entries(rng: &mut XorShift, shape: &[usize], n: usize) -> Entries {
    if shape.contains(&0) {
        return Vec::new();
    }
    (0..n)
        .map(|_| {
            let coord = shape.iter().map(|&d| rng.below(d)).collect();
            (coord, rng.below(9) as i64 - 4)
        })
        .collect()
}

/// Duplicates summed, keyed and sorted by coordinate.
pub fn oracle(entries: &Entries) -> BTreeMap<Vec<usize>, i64> {
    let mut map = BTreeMap::new();
    for (c, v) in entries {
        *map.entry(c.clone()).or_insert(0) += v;
    }
    map
}

/// The row-major dense array of `map` over `shape`.
pub fn dense_oracle(shape: &[usize], map: &BTreeMap<Vec<usize>, i64>) -> Vec<i64> {
    let mut dense = vec![0; shape.iter().product()];
    for (c, &v) in map {
        let at = c.iter().zip(shape).fold(0, |at, (&c, &n)| at * n + c);
        dense[at] += v;
    }
    dense
}

/// Builds a tensor from `entries` and checks it against the oracle: every
/// entry is stored with its summed value, anything else stored is a zero of a
/// dense level (formats without dense levels store exactly the oracle), the
/// dense view matches, and the built levels pass `from_levels` validation.
pub fn check_round_trip<L, O>(shape: &[usize], entries: &Entries) -> Tensor<i64, L, O>
where
    L: Levels + Clone + PartialEq,
    O: ModeOrder + PartialEq,
{
    let t = Tensor::<i64, L, O>::from_entries(shape, entries.iter().map(|(c, v)| (c, *v)))
        .unwrap_or_else(|e| panic!("from_entries failed for shape {shape:?}: {e}"));
    let map = oracle(entries);
    let stored = t.entries();
    assert!(
        stored.windows(2).all(|w| w[0].0 < w[1].0),
        "entries not sorted"
    );
    for (c, v) in &stored {
        assert_eq!(*v, map.get(c).copied().unwrap_or(0), "value at {c:?}");
    }
    let stored_coords: Vec<&Vec<usize>> = stored.iter().map(|(c, _)| c).collect();
    for c in map.keys() {
        assert!(stored_coords.binary_search(&c).is_ok(), "{c:?} missing");
    }
    if !L::properties().iter().any(|p| p.full) {
        let expected: Vec<(Vec<usize>, i64)> = map.clone().into_iter().collect();
        assert_eq!(stored, expected);
    }
    assert_eq!(t.nnz(), stored.len());
    assert_eq!(t.shape(), shape);
    assert_eq!(t.order(), shape.len());
    assert_eq!(t.to_dense(), dense_oracle(shape, &map));
    let rebuilt = Tensor::<i64, L, O>::from_levels(shape, t.levels().clone(), t.vals().to_vec());
    assert_eq!(rebuilt.as_ref(), Ok(&t), "built levels fail validation");
    t
}

/// The sizes of the levels of `t`, outermost first.
pub fn level_sizes<L: Levels, O: ModeOrder>(t: &Tensor<i64, L, O>) -> Vec<usize> {
    (0..L::ORDER)
        .map(|k| {
            t.levels()
                .level(k)
                .map_or(usize::MAX, |l: &dyn Level| l.size())
        })
        .collect()
}
