//! `Tensor::iter`: the lazy entry iterator lists exactly what `entries()` lists (every stored
//! entry, explicit zeros included), in storage order, for every level composition: vectors,
//! matrices in both mode orders, COO's runs, hashed, dense and padded (ELL) matrices, and
//! order-3 formats, on empty, single-entry, sparse and full inputs.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_runtime::{Coord, ModeOrder};
use sparse_tests::random_entries;

/// The shapes each format is tried on, by order.
fn shapes(order: usize) -> Vec<Vec<usize>> {
    match order {
        1 => vec![vec![0], vec![1], vec![9], vec![40]],
        2 => vec![vec![0, 3], vec![3, 0], vec![1, 1], vec![7, 5], vec![12, 30]],
        _ => vec![vec![0, 2, 2], vec![1, 1, 1], vec![4, 3, 5], vec![6, 7, 3]],
    }
}

/// `iter()` against `entries()` on random inputs of every shape and density; also checks that
/// the iterator is fused and follows storage order.
fn check<L: Levels, O: ModeOrder>(name: &str) {
    for shape in shapes(L::ORDER) {
        for (k, density) in [0.0, 0.1, 0.5, 1.0].into_iter().enumerate() {
            let list = random_entries::<f64>(&shape, density, 31 * k as u64 + shape.len() as u64);
            let t = Tensor::<f64, L, O>::from_entries(&shape, list).unwrap();
            let mut it = t.iter();
            let mut listed: Vec<(Vec<usize>, f64)> = Vec::new();
            let mut storage_order: Vec<Vec<usize>> = Vec::new();
            for (c, v) in it.by_ref() {
                assert_eq!(c.len(), shape.len());
                storage_order.push((0..c.len()).map(|m| c[O::mode(m)]).collect());
                listed.push((c.to_vec(), v));
            }
            assert!(it.next().is_none() && it.next().is_none(), "{name}: fused");
            let by_ref: Vec<(Coord, f64)> = (&t).into_iter().collect();
            assert_eq!(by_ref.len(), listed.len());
            listed.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(
                listed,
                t.entries(),
                "{name} on {shape:?} at density {density}"
            );
            let ordered = L::properties().iter().all(|p| p.ordered);
            if ordered {
                assert!(
                    storage_order.windows(2).all(|w| w[0] <= w[1]),
                    "{name}: storage order"
                );
            }
        }
    }
}

#[test]
fn iter_lists_what_entries_lists_in_every_format() {
    check::<(Compressed,), Identity>("SparseVec");
    check::<(Dense,), Identity>("Dense1");
    check::<(Hashed,), Identity>("HashVec");
    check::<(Dense, Compressed), Identity>("Csr");
    check::<(Dense, Compressed), Modes<1, 0>>("Csc");
    check::<(CompressedNonUnique, Singleton), Identity>("Coo");
    check::<(Compressed, Compressed), Identity>("Dcsr");
    check::<(Dense, Dense), Identity>("Dense2");
    check::<(Dense, Hashed), Identity>("HashMat");
    check::<(Dense, Compressed<u64, Unordered>), Identity>("unordered rows");
    check::<(Compressed, Compressed, Compressed), Identity>("Csf3");
    check::<(Compressed, Compressed, Compressed), Modes<2, 0, 1>>("Csf3 (2, 0, 1)");
    check::<(CompressedNonUnique, SingletonNonUnique, Singleton), Identity>("Coo3");
    check::<(Dense, Dense, Dense), Identity>("Dense3");
}

#[test]
fn ell_padding_is_not_listed_but_explicit_zeros_are() {
    let a =
        Ell::<f64>::from_entries(&[3, 4], [([0, 1], 2.0), ([0, 3], 0.0), ([2, 2], 1.0)]).unwrap();
    let listed: Vec<(Vec<usize>, f64)> = a.iter().map(|(c, v)| (c.to_vec(), v)).collect();
    assert_eq!(listed, a.entries());
    assert!(listed.contains(&(vec![0, 3], 0.0)));
    let c = a.iter().next().unwrap().0;
    assert_eq!(c, [0, 1]);
    assert_eq!(format!("{c:?}"), "[0, 1]");
}
