//! Every validation error of `from_raw`, `from_levels` and `from_csr_arrays`.

use super::invalid;
use crate::prelude::*;
use crate::Error;

#[test]
fn compressed_from_raw_accepts_valid_arrays() {
    let c = Compressed::<u32>::from_raw(5, vec![0, 2, 2, 3], vec![1, 4, 0]).unwrap();
    assert_eq!((c.size(), c.len()), (5, 3));
    assert_eq!(c.pos_bounds(0), (0, 2));
    assert_eq!(c.pos_bounds(1), (2, 2));
    // SAFETY: parent position 2 + 1 < pos.len() = 4.
    assert_eq!(unsafe { c.pos_bounds_unchecked(2) }, (2, 3));
    assert_eq!(c.pos_access(1), 4);
    // SAFETY: 2 < crd.len() = 3.
    assert_eq!(unsafe { c.pos_access_unchecked(2) }, 0);
    let empty = Compressed::<u64>::from_raw(0, vec![0], vec![]).unwrap();
    assert!(empty.is_empty());
}

#[test]
fn compressed_from_raw_rejects_broken_pos() {
    let (_, d) = invalid(Compressed::<u32>::from_raw(5, vec![], vec![]));
    assert!(d.contains("pos is empty"), "{d}");
    let (_, d) = invalid(Compressed::<u32>::from_raw(5, vec![1, 1], vec![0]));
    assert!(d.contains("pos[0] is 1"), "{d}");
    let (_, d) = invalid(Compressed::<u32>::from_raw(5, vec![0, 1], vec![0, 1]));
    assert!(d.contains("last pos entry is 1 but crd has 2"), "{d}");
    let (_, d) = invalid(Compressed::<u32>::from_raw(5, vec![0, 2, 1, 2], vec![0, 1]));
    assert!(d.contains("pos[1] = 2 > pos[2] = 1"), "{d}");
}

#[test]
fn compressed_from_raw_rejects_broken_crd() {
    let (_, d) = invalid(Compressed::<u32>::from_raw(3, vec![0, 2], vec![0, 3]));
    assert!(
        d.contains("crd[1] = 3 is not below the level size 3"),
        "{d}"
    );
    let (_, d) = invalid(Compressed::<u32>::from_raw(5, vec![0, 2], vec![1, 1]));
    assert!(d.contains("strictly increasing"), "{d}");
    let (_, d) = invalid(Compressed::<u32>::from_raw(5, vec![0, 2], vec![2, 1]));
    assert!(d.contains("parent position 0"), "{d}");
    // Order is per segment: a new segment may start lower.
    assert!(Compressed::<u32>::from_raw(5, vec![0, 1, 2], vec![3, 1]).is_ok());
}

#[test]
fn compressed_non_unique_allows_repeats_but_not_decreases() {
    let c = CompressedNonUnique::<u32>::from_raw(5, vec![0, 4], vec![1, 1, 1, 3]).unwrap();
    assert_eq!(c.run_end(0, 4), 3);
    assert_eq!(c.run_end(3, 4), 4);
    // SAFETY: 1 < 4 <= crd.len().
    assert_eq!(unsafe { c.run_end_unchecked(1, 4) }, 3);
    let (_, d) = invalid(CompressedNonUnique::<u32>::from_raw(
        5,
        vec![0, 2],
        vec![2, 1],
    ));
    assert!(d.contains("non-decreasing"), "{d}");
}

#[test]
fn sizes_that_do_not_fit_overflow_in_from_raw() {
    let huge = u32::MAX as usize + 1;
    let overflow = Error::IndexOverflow {
        index_type: "u32",
        value: huge,
    };
    assert_eq!(
        Compressed::<u32>::from_raw(huge, vec![0], vec![]).unwrap_err(),
        overflow
    );
    assert_eq!(
        CompressedNonUnique::<u32>::from_raw(huge, vec![0], vec![]).unwrap_err(),
        overflow
    );
    assert_eq!(
        Singleton::<u32>::from_raw(huge, vec![]).unwrap_err(),
        overflow
    );
    assert_eq!(
        SingletonNonUnique::<u32>::from_raw(huge, vec![]).unwrap_err(),
        overflow
    );
    assert!(Singleton::<u64>::from_raw(huge, vec![]).is_ok());
}

#[test]
fn singleton_from_raw_checks_bounds() {
    let s = SingletonNonUnique::<u32>::from_raw(4, vec![2, 2, 3]).unwrap();
    assert_eq!((s.size(), s.len(), s.pos_access(2)), (4, 3, 3));
    assert_eq!(s.run_end(0, 3), 2);
    // SAFETY: 0 < 3 <= crd.len().
    assert_eq!(unsafe { s.run_end_unchecked(0, 3) }, 2);
    // SAFETY: 1 < crd.len().
    assert_eq!(unsafe { s.pos_access_unchecked(1) }, 2);
    let (_, d) = invalid(Singleton::<u32>::from_raw(4, vec![1, 4]));
    assert!(
        d.contains("crd[1] = 4 is not below the level size 4"),
        "{d}"
    );
    assert!(SingletonNonUnique::<u32>::from_raw(2, vec![2]).is_err());
}

fn coo(crd0: Vec<u32>, crd1: Vec<u32>) -> (CompressedNonUnique, Singleton) {
    let n = crd0.len() as u32;
    (
        CompressedNonUnique::from_raw(3, vec![0, n], crd0).unwrap(),
        Singleton::from_raw(3, crd1).unwrap(),
    )
}

#[test]
fn from_levels_accepts_valid_levels() {
    let t = Coo::<f64>::from_levels(
        &[3, 3],
        coo(vec![0, 0, 2], vec![1, 2, 0]),
        vec![1.0, 2.0, 3.0],
    )
    .unwrap();
    assert_eq!(t.entries()[2], (vec![2, 0], 3.0));
    // Singleton coordinates may decrease where the parent run changes.
    assert!(Coo::<f64>::from_levels(&[3, 3], coo(vec![0, 1], vec![2, 1]), vec![0.0; 2]).is_ok());
}

#[test]
fn from_levels_rejects_wrong_shapes_and_sizes() {
    let levels = (
        Dense::new(2),
        Compressed::from_raw(3, vec![0, 0, 0], vec![]).unwrap(),
    );
    let e = Csr::<f64>::from_levels(&[2], levels.clone(), vec![]).unwrap_err();
    assert_eq!(
        e,
        Error::OrderMismatch {
            expected: 2,
            found: 1
        }
    );
    let (level, d) = invalid(Csr::<f64>::from_levels(&[2, 4], levels.clone(), vec![]));
    assert_eq!(level, 1);
    assert!(
        d.contains("size is 3 but mode 1 of the shape has size 4"),
        "{d}"
    );
    let (level, _) = invalid(Csr::<f64>::from_levels(&[3, 3], levels.clone(), vec![]));
    assert_eq!(level, 0);
    // Csc checks level sizes against the permuted shape.
    assert!(Csc::<f64>::from_levels(&[3, 2], levels, vec![]).is_ok());
}

#[test]
fn from_levels_rejects_position_count_mismatches() {
    let levels = (
        Dense::new(3),
        Compressed::from_raw(3, vec![0, 0, 0], vec![]).unwrap(),
    );
    let (level, d) = invalid(Csr::<f64>::from_levels(&[3, 3], levels, vec![]));
    assert_eq!(level, 1);
    assert!(
        d.contains("pos has 3 entries but the parent level has 3 positions"),
        "{d}"
    );
    let levels = (
        CompressedNonUnique::from_raw(3, vec![0, 2], vec![0, 1]).unwrap(),
        Singleton::from_raw(3, vec![0]).unwrap(),
    );
    let (level, d) = invalid(Coo::<f64>::from_levels(&[3, 3], levels, vec![0.0]));
    assert_eq!(level, 1);
    assert!(
        d.contains("crd has 1 entries but the parent level has 2 positions"),
        "{d}"
    );
}

#[test]
fn from_levels_rejects_wrong_value_counts() {
    let e = Coo::<f64>::from_levels(&[3, 3], coo(vec![0, 2], vec![1, 0]), vec![1.0]).unwrap_err();
    assert_eq!(
        e,
        Error::LengthMismatch {
            what: "vals",
            expected: 2,
            found: 1
        }
    );
    let dense = (Dense::new(2), Dense::new(3));
    let e = Dense2::<f64>::from_levels(&[2, 3], dense, vec![0.0; 5]).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { expected: 6, .. }));
}

#[test]
fn from_levels_checks_singleton_order_within_parent_runs() {
    let (level, d) = invalid(Coo::<f64>::from_levels(
        &[3, 3],
        coo(vec![0, 0], vec![1, 1]),
        vec![0.0; 2],
    ));
    assert_eq!(level, 1);
    assert!(d.contains("strictly increasing"), "{d}");
    let (level, _) = invalid(Coo::<f64>::from_levels(
        &[3, 3],
        coo(vec![0, 0], vec![2, 1]),
        vec![0.0; 2],
    ));
    assert_eq!(level, 1);
}

/// A Coo3 from raw coordinate columns of length n (sizes 3).
fn coo3(
    c0: Vec<u32>,
    c1: Vec<u32>,
    c2: Vec<u32>,
) -> (CompressedNonUnique, SingletonNonUnique, Singleton) {
    let n = c0.len() as u32;
    (
        CompressedNonUnique::from_raw(3, vec![0, n], c0).unwrap(),
        SingletonNonUnique::from_raw(3, c1).unwrap(),
        Singleton::from_raw(3, c2).unwrap(),
    )
}

#[test]
fn from_levels_checks_nested_runs_in_coo3() {
    let ok = coo3(vec![0, 0, 1], vec![0, 0, 0], vec![1, 2, 0]);
    assert!(Coo3::<f64>::from_levels(&[3, 3, 3], ok, vec![0.0; 3]).is_ok());
    // Level 1 repeats coordinate 0 but in different level-0 runs: level 2
    // may restart.
    let ok = coo3(vec![0, 1], vec![0, 0], vec![1, 0]);
    assert!(Coo3::<f64>::from_levels(&[3, 3, 3], ok, vec![0.0; 2]).is_ok());
    let down = coo3(vec![0, 0], vec![1, 0], vec![0, 0]);
    let (level, d) = invalid(Coo3::<f64>::from_levels(&[3, 3, 3], down, vec![0.0; 2]));
    assert_eq!(level, 1);
    assert!(d.contains("non-decreasing"), "{d}");
    let dup = coo3(vec![0, 0], vec![1, 1], vec![2, 2]);
    let (level, _) = invalid(Coo3::<f64>::from_levels(&[3, 3, 3], dup, vec![0.0; 2]));
    assert_eq!(level, 2);
}

#[test]
fn from_levels_rejects_invalid_level_tuples() {
    let levels = (Singleton::from_raw(2, vec![]).unwrap(), Dense::new(2));
    let (level, _) = invalid(Tensor::<f64, (Singleton, Dense)>::from_levels(
        &[2, 2],
        levels,
        vec![],
    ));
    assert_eq!(level, 0);
    let levels = (
        Dense::new(1),
        CompressedNonUnique::from_raw(2, vec![0, 0], vec![]).unwrap(),
    );
    let (level, d) = invalid(Tensor::<f64, (Dense, CompressedNonUnique)>::from_levels(
        &[1, 2],
        levels,
        vec![],
    ));
    assert_eq!(level, 1);
    assert!(d.contains("last level must be unique"), "{d}");
}

#[test]
fn from_csr_arrays_validates_and_tags_the_level() {
    let t = Csr::<f64>::from_csr_arrays(2, 3, vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0])
        .unwrap();
    assert_eq!(
        t.entries(),
        vec![(vec![0, 2], 1.0), (vec![1, 0], 2.0), (vec![1, 1], 3.0)]
    );
    let (level, _) = invalid(Csr::<f64>::from_csr_arrays(
        2,
        3,
        vec![0, 2, 1],
        vec![0],
        vec![1.0],
    ));
    assert_eq!(level, 1);
    let (level, _) = invalid(Csr::<f64>::from_csr_arrays(
        3,
        3,
        vec![0, 1, 1],
        vec![0],
        vec![1.0],
    ));
    assert_eq!(level, 1);
    let e = Csr::<f64, u64>::from_csr_arrays(1, 3, vec![0, 1], vec![0], vec![]).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { what: "vals", .. }));
}

/// An unordered compressed level accepts any order within a segment, never a repeat, and
/// reports itself unordered; an ordered one refuses the same arrays.
#[test]
fn unordered_compressed_checks_uniqueness_only() {
    use crate::{Compressed, Dense, Level, Tensor, Unordered};
    type Unord = Compressed<u32, Unordered>;
    assert!(!Unord::properties().ordered);
    assert_eq!(Unord::properties().to_string(), "Compressed<_, Unordered>");
    let level = Unord::from_raw(5, vec![0, 3, 3], vec![4, 0, 2]).unwrap();
    let t = Tensor::<f64, (Dense, Unord)>::from_levels(
        &[2, 5],
        (Dense::new(2), level),
        vec![1.0, 2.0, 3.0],
    )
    .unwrap();
    assert_eq!(t.entries()[0], (vec![0, 0], 2.0));
    let repeat = Unord::from_raw(5, vec![0, 3], vec![4, 0, 4]).unwrap_err();
    assert!(repeat.to_string().contains("4 appears twice"), "{repeat}");
    assert!(Compressed::<u32>::from_raw(5, vec![0, 3, 3], vec![4, 0, 2]).is_err());
}
