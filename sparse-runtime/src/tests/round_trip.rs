//! from_entries -> entries round trips on random coordinates, for every alias,
//! other level tuples, mode orders and index types. Every valid level
//! composition of order 1 to 4 is enumerated in `compositions.rs`; the hand
//! lists here add mode orders, index types and orders 5 and 6.

use super::oracle::{check_round_trip, level_sizes, random_entries, Entries};
use super::prng::XorShift;
use crate::prelude::*;
use crate::Index;

/// Random shapes of `order` modes with sizes in 1..=max.
fn random_shape(rng: &mut XorShift, order: usize, max: usize) -> Vec<usize> {
    (0..order).map(|_| 1 + rng.below(max)).collect()
}

/// Round trips `L, O` on many random shapes and entry sets of `order` modes;
/// small shapes force many duplicates, larger ones many empty segments.
fn random_round_trips<L, O>(order: usize, seed: u64)
where
    L: Levels + Clone + PartialEq,
    O: ModeOrder + PartialEq,
{
    let mut rng = XorShift::new(seed);
    for case in 0..40 {
        let max = if case % 2 == 0 { 3 } else { 9 };
        let shape = random_shape(&mut rng, order, max);
        let n = rng.below(40);
        let entries = random_entries(&mut rng, &shape, n);
        check_round_trip::<L, O>(&shape, &entries);
    }
}

#[test]
fn every_alias_round_trips() {
    random_round_trips::<(Dense,), Identity>(1, 1);
    random_round_trips::<(Dense, Dense), Identity>(2, 2);
    random_round_trips::<(Dense, Dense, Dense), Identity>(3, 3);
    random_round_trips::<(Compressed,), Identity>(1, 4);
    random_round_trips::<(Dense, Compressed), Identity>(2, 5);
    random_round_trips::<(Dense, Compressed), Modes<1, 0>>(2, 6);
    random_round_trips::<(Compressed, Compressed), Identity>(2, 7);
    random_round_trips::<(CompressedNonUnique, Singleton), Identity>(2, 8);
    random_round_trips::<(Compressed, Compressed, Compressed), Identity>(3, 9);
    random_round_trips::<(CompressedNonUnique, SingletonNonUnique, Singleton), Identity>(3, 10);
}

#[test]
fn hashed_levels_round_trip_anywhere() {
    // Below a hash level, entries are re-sorted by bucket before the next level is built.
    type H = Hashed;
    random_round_trips::<(H,), Identity>(1, 40);
    random_round_trips::<(Dense, H), Identity>(2, 41);
    random_round_trips::<(H, Compressed), Identity>(2, 42);
    random_round_trips::<(H, H), Identity>(2, 43);
    random_round_trips::<(H, CompressedNonUnique, Singleton), Identity>(3, 44);
    random_round_trips::<(Compressed, H, Dense), Modes<2, 0, 1>>(3, 45);
    random_round_trips::<(H, Dense), Modes<1, 0>>(2, 46);
    random_round_trips::<(Hashed<u64>, Compressed<usize>), Identity>(2, 47);
    random_round_trips::<(Dense, H, H, Compressed), Identity>(4, 48);
}

#[test]
fn other_level_tuples_and_mode_orders_round_trip() {
    random_round_trips::<(Dense, Compressed, Dense, Dense), Identity>(4, 11);
    random_round_trips::<(Compressed, Dense), Identity>(2, 12);
    random_round_trips::<(Dense, Compressed, Compressed), Modes<2, 0, 1>>(3, 13);
    random_round_trips::<(CompressedNonUnique, Singleton), Modes<1, 0>>(2, 14);
    random_round_trips::<
        (
            Compressed,
            CompressedNonUnique,
            SingletonNonUnique,
            Singleton,
        ),
        Identity,
    >(4, 15);
    random_round_trips::<(Dense, Dense, Compressed, Dense, Compressed), Identity>(5, 16);
    random_round_trips::<(Compressed, Dense, Compressed, Dense, Compressed, Dense), Identity>(
        6, 17,
    );
}

/// Round trips with index type `I` and checks the arrays hold `I`.
fn index_type_round_trips<I: Index + PartialEq>(seed: u64) {
    random_round_trips::<(Dense, Compressed<I>), Identity>(2, seed);
    random_round_trips::<(CompressedNonUnique<I>, Singleton<I>), Identity>(2, seed + 1);
    random_round_trips::<(CompressedNonUnique<I>, SingletonNonUnique<I>, Singleton<I>), Identity>(
        3,
        seed + 2,
    );
    let entries: Entries = vec![(vec![1, 2], 5), (vec![0, 1], 3)];
    let t = check_round_trip::<(Dense, Compressed<I>), Identity>(&[2, 3], &entries);
    let pos: Vec<usize> = t.levels().1.pos().iter().map(|p| p.to_usize()).collect();
    let crd: Vec<usize> = t.levels().1.crd().iter().map(|c| c.to_usize()).collect();
    assert_eq!((pos, crd), (vec![0, 1, 2], vec![1, 2]));
}

#[test]
fn index_types_u32_u64_usize_round_trip() {
    index_type_round_trips::<u32>(20);
    index_type_round_trips::<u64>(30);
    index_type_round_trips::<usize>(40);
}

#[test]
fn duplicates_are_summed_in_every_format() {
    let entries: Entries = vec![
        (vec![1, 2], 1),
        (vec![0, 0], 2),
        (vec![1, 2], 10),
        (vec![1, 2], 100),
        (vec![0, 0], -2),
    ];
    let expected = vec![(vec![0, 0], 0), (vec![1, 2], 111)];
    // Summing to zero keeps an explicit stored zero: it was an entry.
    let coo = check_round_trip::<(CompressedNonUnique, Singleton), Identity>(&[2, 3], &entries);
    assert_eq!(coo.entries(), expected);
    let dcsr = check_round_trip::<(Compressed, Compressed), Identity>(&[2, 3], &entries);
    assert_eq!(dcsr.entries(), expected);
    let csc = check_round_trip::<(Dense, Compressed), Modes<1, 0>>(&[2, 3], &entries);
    assert_eq!(csc.entries(), expected);
    let dense = check_round_trip::<(Dense, Dense), Identity>(&[2, 3], &entries);
    assert_eq!(dense.vals(), &[0, 0, 0, 0, 0, 111]);
}

#[test]
fn float_duplicates_are_summed() {
    let t = Csr::<f64>::from_entries(&[1, 2], [([0, 1], 0.5), ([0, 1], 0.25)]).unwrap();
    assert_eq!(t.entries(), vec![(vec![0, 1], 0.75)]);
}

#[test]
fn csr_arrays_are_the_textbook_ones() {
    let entries: Entries = vec![
        (vec![2, 3], 4),
        (vec![0, 1], 1),
        (vec![0, 0], 2),
        (vec![2, 0], 3),
    ];
    let t = check_round_trip::<(Dense, Compressed), Identity>(&[4, 5], &entries);
    assert_eq!(t.levels().1.pos(), &[0, 2, 2, 4, 4]);
    assert_eq!(t.levels().1.crd(), &[0, 1, 0, 3]);
    assert_eq!(t.vals(), &[2, 1, 3, 4]);
    assert_eq!(level_sizes(&t), [4, 5]);
}

#[test]
fn csc_stores_columns_first() {
    // [[1, 0], [2, 3]]: column 0 holds rows 0 and 1, column 1 holds row 1.
    let t = Csc::<i64>::from_entries(&[2, 2], [([0, 0], 1), ([1, 0], 2), ([1, 1], 3)]).unwrap();
    assert_eq!(t.levels().1.pos(), &[0, 2, 3]);
    assert_eq!(t.levels().1.crd(), &[0, 1, 1]);
    assert_eq!(t.vals(), &[1, 2, 3]);
    assert_eq!(t.shape(), &[2, 2]);
    assert_eq!(t.to_dense(), vec![1, 0, 2, 3]);
    // A non-square CSC: level sizes are the shape in storage order.
    let wide =
        check_round_trip::<(Dense, Compressed), Modes<1, 0>>(&[2, 5], &vec![(vec![1, 4], 7)]);
    assert_eq!(level_sizes(&wide), [5, 2]);
    assert_eq!(wide.levels().1.pos(), &[0, 0, 0, 0, 0, 1]);
}

#[test]
fn dcsr_elides_empty_rows() {
    let t = Dcsr::<i64>::from_entries(&[5, 5], [([3, 1], 1), ([1, 4], 2), ([3, 0], 3)]).unwrap();
    assert_eq!(t.levels().0.pos(), &[0, 2]);
    assert_eq!(t.levels().0.crd(), &[1, 3]);
    assert_eq!(t.levels().1.pos(), &[0, 1, 3]);
    assert_eq!(t.levels().1.crd(), &[4, 0, 1]);
    assert_eq!(t.vals(), &[2, 3, 1]);
}

#[test]
fn coo_keeps_one_position_per_entry() {
    let t = Coo::<i64>::from_entries(&[3, 3], [([2, 0], 1), ([0, 2], 2), ([0, 1], 3)]).unwrap();
    assert_eq!(t.levels().0.pos(), &[0, 3]);
    assert_eq!(t.levels().0.crd(), &[0, 0, 2]);
    assert_eq!(t.levels().1.crd(), &[1, 2, 0]);
    assert_eq!(t.vals(), &[3, 2, 1]);
}

#[test]
fn coo3_keeps_one_position_per_entry_at_every_level() {
    let entries = [
        ([1, 0, 2], 1),
        ([0, 1, 1], 2),
        ([0, 1, 0], 3),
        ([0, 0, 4], 4),
    ];
    let t = Coo3::<i64>::from_entries(&[2, 2, 5], entries).unwrap();
    assert_eq!(t.levels().0.pos(), &[0, 4]);
    assert_eq!(t.levels().0.crd(), &[0, 0, 0, 1]);
    assert_eq!(t.levels().1.crd(), &[0, 1, 1, 0]);
    assert_eq!(t.levels().2.crd(), &[4, 0, 1, 2]);
    assert_eq!(t.vals(), &[4, 3, 2, 1]);
    let expected = vec![
        (vec![0, 0, 4], 4),
        (vec![0, 1, 0], 3),
        (vec![0, 1, 1], 2),
        (vec![1, 0, 2], 1),
    ];
    assert_eq!(t.entries(), expected);
}

#[test]
fn csf3_shares_prefixes() {
    let entries = [
        ([0, 1, 2], 1),
        ([0, 1, 3], 2),
        ([0, 2, 0], 3),
        ([2, 0, 0], 4),
    ];
    let t = Csf3::<i64>::from_entries(&[3, 3, 4], entries).unwrap();
    assert_eq!(t.levels().0.crd(), &[0, 2]);
    assert_eq!(t.levels().1.pos(), &[0, 2, 3]);
    assert_eq!(t.levels().1.crd(), &[1, 2, 0]);
    assert_eq!(t.levels().2.pos(), &[0, 2, 3, 4]);
    assert_eq!(t.levels().2.crd(), &[2, 3, 0, 0]);
}

#[test]
fn bcsr_four_levels_store_whole_blocks() {
    // 2x3 blocks of 2x2: entries in block (0,1) and block (1,2).
    let entries: Entries = vec![
        (vec![0, 1, 0, 1], 5),
        (vec![1, 2, 1, 1], 7),
        (vec![0, 1, 1, 0], 6),
    ];
    let t =
        check_round_trip::<(Dense, Compressed, Dense, Dense), Identity>(&[2, 3, 2, 2], &entries);
    assert_eq!(t.levels().1.pos(), &[0, 1, 2]);
    assert_eq!(t.levels().1.crd(), &[1, 2]);
    assert_eq!(t.vals(), &[0, 5, 6, 0, 0, 0, 0, 7]);
    assert_eq!(t.nnz(), 8);
    assert_eq!(t.entries().len(), 8);
}

#[test]
fn dense_singleton_pads_rows_without_entry() {
    // (Dense, Singleton) is ELL with one slot per row: empty rows store an
    // explicit zero at column 0.
    let t = Tensor::<i64, (Dense, Singleton)>::from_entries(&[3, 4], [([1, 2], 5)]).unwrap();
    assert_eq!(t.levels().1.crd(), &[0, 2, 0]);
    assert_eq!(t.vals(), &[0, 5, 0]);
    assert_eq!(
        t.entries(),
        vec![(vec![0, 0], 0), (vec![1, 2], 5), (vec![2, 0], 0)]
    );
    assert_eq!(t.to_dense(), vec![0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0]);
}

#[test]
fn ell_round_trips() {
    // ELL as (Dense rows, Dense slots, Singleton columns) over a 3rd-order view.
    let mut rng = XorShift::new(99);
    for _ in 0..20 {
        let (rows, slots, cols) = (1 + rng.below(5), 1 + rng.below(3), 1 + rng.below(6));
        // At most one column per (row, slot).
        let mut entries: Entries = Vec::new();
        for r in 0..rows {
            for s in 0..slots {
                if rng.below(2) == 0 {
                    entries.push((vec![r, s, rng.below(cols)], 1 + rng.below(5) as i64));
                }
            }
        }
        check_round_trip::<(Dense, Dense, Singleton), Identity>(&[rows, slots, cols], &entries);
    }
}
