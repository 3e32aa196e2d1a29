//! Every valid level composition of order 1 to 4 (132 formats), built from
//! random entries and compared with the `BTreeMap` oracle, re-validated with
//! `from_levels`; plus a check that the list is exactly the compositions the
//! format rules accept.

use super::oracle::{check_round_trip, oracle, random_entries, Entries};
use super::prng::XorShift;
use crate::levels::check_format;
use crate::prelude::*;
use crate::{Error, Properties};
use std::collections::BTreeSet;

type D = Dense;
type C = Compressed;
type N = CompressedNonUnique;
type S = Singleton;
type M = SingletonNonUnique;

/// Pairs each listed level tuple with its properties and its test runner.
macro_rules! formats {
    ($($t:ty,)*) => {
        fn formats() -> Vec<(Vec<Properties>, fn(u64))> {
            vec![$((<$t as Levels>::properties(), round_trips::<$t> as fn(u64)),)*]
        }
    };
}

// Generated once by enumerating the 780 tuples of the five level kinds and
// keeping those `check_format` accepts; `the_list_is_every_valid_composition`
// keeps it honest.
formats! {
    (D,),
    (C,),
    (D, D),
    (D, C),
    (D, S),
    (C, D),
    (C, C),
    (C, S),
    (N, S),
    (D, D, D),
    (D, D, C),
    (D, D, S),
    (D, C, D),
    (D, C, C),
    (D, C, S),
    (D, N, S),
    (D, S, D),
    (D, S, C),
    (D, S, S),
    (D, M, S),
    (C, D, D),
    (C, D, C),
    (C, D, S),
    (C, C, D),
    (C, C, C),
    (C, C, S),
    (C, N, S),
    (C, S, D),
    (C, S, C),
    (C, S, S),
    (C, M, S),
    (N, S, D),
    (N, S, C),
    (N, S, S),
    (N, M, S),
    (D, D, D, D),
    (D, D, D, C),
    (D, D, D, S),
    (D, D, C, D),
    (D, D, C, C),
    (D, D, C, S),
    (D, D, N, S),
    (D, D, S, D),
    (D, D, S, C),
    (D, D, S, S),
    (D, D, M, S),
    (D, C, D, D),
    (D, C, D, C),
    (D, C, D, S),
    (D, C, C, D),
    (D, C, C, C),
    (D, C, C, S),
    (D, C, N, S),
    (D, C, S, D),
    (D, C, S, C),
    (D, C, S, S),
    (D, C, M, S),
    (D, N, S, D),
    (D, N, S, C),
    (D, N, S, S),
    (D, N, M, S),
    (D, S, D, D),
    (D, S, D, C),
    (D, S, D, S),
    (D, S, C, D),
    (D, S, C, C),
    (D, S, C, S),
    (D, S, N, S),
    (D, S, S, D),
    (D, S, S, C),
    (D, S, S, S),
    (D, S, M, S),
    (D, M, S, D),
    (D, M, S, C),
    (D, M, S, S),
    (D, M, M, S),
    (C, D, D, D),
    (C, D, D, C),
    (C, D, D, S),
    (C, D, C, D),
    (C, D, C, C),
    (C, D, C, S),
    (C, D, N, S),
    (C, D, S, D),
    (C, D, S, C),
    (C, D, S, S),
    (C, D, M, S),
    (C, C, D, D),
    (C, C, D, C),
    (C, C, D, S),
    (C, C, C, D),
    (C, C, C, C),
    (C, C, C, S),
    (C, C, N, S),
    (C, C, S, D),
    (C, C, S, C),
    (C, C, S, S),
    (C, C, M, S),
    (C, N, S, D),
    (C, N, S, C),
    (C, N, S, S),
    (C, N, M, S),
    (C, S, D, D),
    (C, S, D, C),
    (C, S, D, S),
    (C, S, C, D),
    (C, S, C, C),
    (C, S, C, S),
    (C, S, N, S),
    (C, S, S, D),
    (C, S, S, C),
    (C, S, S, S),
    (C, S, M, S),
    (C, M, S, D),
    (C, M, S, C),
    (C, M, S, S),
    (C, M, M, S),
    (N, S, D, D),
    (N, S, D, C),
    (N, S, D, S),
    (N, S, C, D),
    (N, S, C, C),
    (N, S, C, S),
    (N, S, N, S),
    (N, S, S, D),
    (N, S, S, C),
    (N, S, S, S),
    (N, S, M, S),
    (N, M, S, D),
    (N, M, S, C),
    (N, M, S, S),
    (N, M, M, S),
}

/// Random entries per format and shape.
const CASES: usize = 24;

/// For a branchless level `j` whose coordinate the format cannot choose
/// freely: the length of the coordinate prefix that identifies its position.
///
/// A branchless level has the positions of the nearest level `a` above it
/// that creates positions. If `a` is unique, a position is a distinct prefix
/// `..=a`. If `a` is non-unique, it stores a tuple through the first unique
/// level `t` below it, and a position is a distinct prefix `..=t`; levels
/// `a + 1..=t` are part of the tuple and free. Entries sharing the prefix
/// must agree at `j`, since `j` stores one coordinate per position.
fn position_prefix(props: &[Properties], j: usize) -> Option<usize> {
    if !props[j].branchless {
        return None;
    }
    let a = (0..j).rev().find(|&a| !props[a].branchless)?;
    if props[a].unique {
        return Some(a + 1);
    }
    let t = (a + 1..props.len()).find(|&t| props[t].unique)?;
    (j > t).then_some(t + 1)
}

/// Whether the format can hold `coords` (distinct, in storage order).
fn representable(props: &[Properties], coords: &[&Vec<usize>]) -> bool {
    (0..props.len()).all(|j| match position_prefix(props, j) {
        None => true,
        Some(n) => coords
            .iter()
            .all(|x| coords.iter().all(|y| x[..n] != y[..n] || x[j] == y[j])),
    })
}

/// Rewrites coordinates so that the format can hold them: a constrained
/// level gets a coordinate that is a function of the prefix identifying its
/// position.
fn make_representable(props: &[Properties], shape: &[usize], entries: &mut Entries) {
    for j in 0..props.len() {
        let Some(n) = position_prefix(props, j) else {
            continue;
        };
        for (c, _) in entries.iter_mut() {
            let h = c[..n].iter().fold(j as u64 + 7, |h, &x| {
                h.wrapping_mul(31).wrapping_add(x as u64)
            });
            c[j] = (h % shape[j] as u64) as usize;
        }
    }
}

/// Whether the empty tensor of `shape` exists: a branchless level of size 0
/// cannot sit under a level that has positions even without entries (only
/// dense levels and the branchless levels below them create such positions).
fn empty_representable(props: &[Properties], shape: &[usize]) -> bool {
    let mut count = 1usize;
    for (p, &n) in props.iter().zip(shape) {
        if p.branchless && n == 0 && count > 0 {
            return false;
        }
        count = match (p.full, p.branchless) {
            (true, _) => count * n,
            (_, true) => count,
            _ => 0,
        };
    }
    true
}

/// Random round trips of one format: raw random entries (which the format
/// holds or rejects as `NotRepresentable`, as the oracle predicts), the same
/// entries made representable, and every shape with one size-0 mode.
fn round_trips<L: Levels + Clone + PartialEq>(seed: u64) {
    let props = L::properties();
    let mut rng = XorShift::new(seed);
    for case in 0..CASES {
        let max = if case % 2 == 0 { 3 } else { 6 };
        let shape: Vec<usize> = (0..L::ORDER).map(|_| 1 + rng.below(max)).collect();
        let n = rng.below(30);
        let mut entries = random_entries(&mut rng, &shape, n);
        let map = oracle(&entries);
        let coords: Vec<&Vec<usize>> = map.keys().collect();
        if representable(&props, &coords) {
            check_round_trip::<L, Identity>(&shape, &entries);
        } else {
            let r = Tensor::<i64, L>::from_entries(&shape, entries.iter().map(|(c, v)| (c, *v)));
            assert!(
                matches!(r, Err(Error::NotRepresentable { .. })),
                "{shape:?} {entries:?}: {r:?}"
            );
        }
        make_representable(&props, &shape, &mut entries);
        check_round_trip::<L, Identity>(&shape, &entries);
    }
    for zero in 0..L::ORDER {
        let mut shape: Vec<usize> = (0..L::ORDER).map(|_| 1 + rng.below(3)).collect();
        shape[zero] = 0;
        match Tensor::<i64, L>::new(&shape) {
            Ok(t) => {
                assert!(empty_representable(&props, &shape), "{shape:?}");
                assert_eq!(t.nnz(), t.entries().len());
                assert!(t.vals().iter().all(|&v| v == 0));
                let again =
                    Tensor::<i64, L>::from_levels(&shape, t.levels().clone(), t.vals().to_vec());
                assert_eq!(again, Ok(t));
            }
            Err(e) => {
                assert!(!empty_representable(&props, &shape), "{shape:?}: {e}");
                assert!(matches!(e, Error::NotRepresentable { .. }), "{e}");
            }
        }
    }
}

#[test]
fn every_valid_composition_round_trips() {
    for (seed, (props, run)) in formats().into_iter().enumerate() {
        let names: Vec<String> = props.iter().map(|p| p.to_string()).collect();
        eprintln!("{names:?}");
        run(1000 + seed as u64);
    }
}

/// The compiled list holds every composition of order 1 to 4 that the format
/// rules accept, each once, and only those.
#[test]
fn the_list_is_every_valid_composition() {
    let kinds = [
        <D as Level>::properties(),
        <C as Level>::properties(),
        <N as Level>::properties(),
        <S as Level>::properties(),
        <M as Level>::properties(),
    ];
    let mut valid = BTreeSet::new();
    let mut total = 0;
    for order in 1..=4u32 {
        for code in 0..kinds.len().pow(order) {
            let props: Vec<Properties> = (0..order)
                .map(|k| kinds[code / kinds.len().pow(k) % kinds.len()])
                .collect();
            total += 1;
            if check_format(&props).is_ok() {
                valid.insert(props.iter().map(|p| p.to_string()).collect::<Vec<_>>());
            }
        }
    }
    assert_eq!(total, 5 + 25 + 125 + 625);
    let listed: Vec<Vec<String>> = formats()
        .iter()
        .map(|(props, _)| props.iter().map(|p| p.to_string()).collect())
        .collect();
    let listed_set: BTreeSet<Vec<String>> = listed.iter().cloned().collect();
    assert_eq!(
        listed.len(),
        listed_set.len(),
        "a composition is listed twice"
    );
    assert_eq!(listed_set, valid);
    assert_eq!(valid.len(), 132);
}

#[test]
fn the_representability_oracle_agrees_with_known_cases() {
    let coo = <(N, S) as Levels>::properties();
    let csr_s = <(C, S) as Levels>::properties();
    let (a, b) = (vec![0, 1], vec![0, 2]);
    assert!(representable(&coo, &[&a, &b]));
    assert!(!representable(&csr_s, &[&a, &b]));
    // Below the unique singleton that ends COO's tuple, a singleton is a
    // function of the tuple.
    let nss = <(N, S, S) as Levels>::properties();
    let (a, b, c) = (vec![0, 0, 1], vec![0, 0, 2], vec![0, 1, 2]);
    assert!(!representable(&nss, &[&a, &b]));
    assert!(representable(&nss, &[&a, &c]));
    let nms = <(N, M, S) as Levels>::properties();
    assert!(representable(&nms, &[&a, &b, &c]));
    // A non-unique singleton under a unique level cannot create positions.
    let dms = <(D, M, S) as Levels>::properties();
    assert!(!representable(&dms, &[&a, &c]));
    assert!(representable(&dms, &[&a, &vec![1, 1, 0]]));
    let ell = <(D, S) as Levels>::properties();
    assert!(!empty_representable(&ell, &[3, 0]));
    assert!(empty_representable(&ell, &[0, 0]));
    assert!(empty_representable(&coo, &[3, 0]));
}
