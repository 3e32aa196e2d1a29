//! Regression tests for the reproducers of the soundness issue: levels that
//! bypass `from_raw` (assembly functions, `Level::build`), `from_entries` on
//! non-unique levels with levels below their tuple, and the smaller defects.
//! (Sealing of `Index` and `ModeOrder` is tested by `compile_fail` doctests on
//! the traits; the assembly guard in `append.rs`.)

use super::invalid;
use crate::prelude::*;
use crate::Error;

#[test]
fn assembled_pos_without_finalize_is_rejected() {
    // The issue's `pos = [0, 1048576, 0]` with an empty crd.
    let mut c = Compressed::<u32>::from_raw(4, vec![0, 0, 0], vec![]).unwrap();
    c.append_init(2);
    c.append_edges(0, 0, 1 << 20);
    assert_eq!(c.pos(), &[0, 0, 0], "a segment past len() is not recorded");
    let e = Csr::<f64>::from_levels(&[2, 4], (Dense::new(2), c.clone()), vec![]);
    assert!(
        e.is_ok(),
        "unfinished but untouched arrays are a valid level"
    );
    let (_, d) = invalid(c.append_finalize(2));
    assert!(d.contains("positions 0..1048576"), "{d}");
}

#[test]
fn an_edge_past_the_coordinates_is_rejected_by_from_levels() {
    // The arrays themselves, however they were produced.
    let c = Compressed::<u32>::from_parts_unchecked(4, vec![0, 1 << 20, 0], vec![]);
    let (level, d) = invalid(Csr::<f64>::from_levels(&[2, 4], (Dense::new(2), c), vec![]));
    assert_eq!(level, 1);
    assert!(
        d.contains("pos is not monotone: pos[1] = 1048576 > pos[2] = 0"),
        "{d}"
    );
}

/// The coordinate `1 << 24` in a 4-column level, appended.
fn append_a_coordinate_beyond_the_size() -> Compressed<u32> {
    let mut c = Compressed::<u32>::from_raw(4, vec![0, 0], vec![]).unwrap();
    c.append_init(1);
    c.append_coord(1 << 24);
    c.append_edges(0, 0, 1);
    c.append_finalize(1).unwrap();
    c
}

#[cfg(not(debug_assertions))]
#[test]
fn an_appended_coordinate_beyond_the_size_is_rejected_by_from_levels() {
    let c = append_a_coordinate_beyond_the_size();
    let (level, d) = invalid(Csr::<f64>::from_levels(
        &[1, 4],
        (Dense::new(1), c),
        vec![1.0],
    ));
    assert_eq!(level, 1);
    assert!(
        d.contains("crd[0] = 16777216 is not below the level size 4"),
        "{d}"
    );
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "coordinate 16777216 >= size 4")]
fn an_appended_coordinate_beyond_the_size_fails_a_debug_assertion() {
    append_a_coordinate_beyond_the_size();
}

#[test]
fn a_singleton_built_beyond_its_size_is_rejected() {
    let mut positions = [0];
    let (s, count) =
        <Singleton<u32> as Level>::build(2, 1, &[50_000_000], &[false], &mut positions).unwrap();
    assert_eq!((s.crd(), count), (&[50_000_000u32][..], 1));
    let levels = (Compressed::from_raw(1, vec![0, 1], vec![0]).unwrap(), s);
    let (level, d) = invalid(Tensor::<f64, (Compressed, Singleton)>::from_levels(
        &[1, 2],
        levels,
        vec![1.0],
    ));
    assert_eq!(level, 1);
    assert!(
        d.contains("crd[0] = 50000000 is not below the level size 2"),
        "{d}"
    );
}

#[test]
fn a_compressed_level_built_unsorted_is_rejected() {
    let mut positions = [0, 0, 0];
    let (c, count) =
        <Compressed<u32> as Level>::build(4, 1, &[3, 1, 1], &[false, false, true], &mut positions)
            .unwrap();
    assert_eq!(
        (c.pos(), c.crd(), count),
        (&[0u32, 2][..], &[3u32, 1][..], 2)
    );
    let (level, d) = invalid(SparseVec::<f64>::from_levels(&[4], (c,), vec![1.0, 2.0]));
    assert_eq!(level, 0);
    assert!(d.contains("not strictly increasing"), "{d}");
}

#[test]
fn from_entries_shares_a_non_unique_position_per_tuple() {
    // The reproducer: (0, 0, 0) and (0, 0, 1) share the tuple (0, 0)
    // of the COO pair, and the last level holds both below one position.
    let entries = [([0, 0, 0], 1.5), ([0, 0, 1], 2.5)];
    let t =
        Tensor::<f64, (CompressedNonUnique, Singleton, Dense)>::from_entries(&[1, 1, 2], entries)
            .unwrap();
    assert_eq!(t.levels().0.pos(), &[0, 1]);
    assert_eq!(t.levels().0.crd(), &[0]);
    assert_eq!(t.levels().1.crd(), &[0]);
    assert_eq!(t.vals(), &[1.5, 2.5]);
    assert_eq!(
        t.entries(),
        vec![(vec![0, 0, 0], 1.5), (vec![0, 0, 1], 2.5)]
    );
    let again = Tensor::from_levels(t.shape(), t.levels().clone(), t.vals().to_vec());
    assert_eq!(again.as_ref(), Ok(&t));

    let t = Tensor::<f64, (CompressedNonUnique, Singleton, Compressed)>::from_entries(
        &[1, 1, 2],
        entries,
    )
    .unwrap();
    assert_eq!(t.levels().0.pos(), &[0, 1]);
    assert_eq!(t.levels().2.pos(), &[0, 2]);
    assert_eq!(t.levels().2.crd(), &[0, 1]);
    let again = Tensor::from_levels(t.shape(), t.levels().clone(), t.vals().to_vec());
    assert_eq!(again.as_ref(), Ok(&t));
}

#[test]
fn from_entries_keeps_distinct_tuples_apart() {
    // (0, 0, *) and (0, 1, *) are two tuples under one run of coordinate 0.
    let entries = [
        ([0, 1, 1], 1),
        ([0, 0, 1], 2),
        ([0, 0, 0], 3),
        ([1, 0, 1], 4),
    ];
    let t = Tensor::<i32, (CompressedNonUnique, Singleton, Compressed)>::from_entries(
        &[2, 2, 2],
        entries,
    )
    .unwrap();
    assert_eq!(t.levels().0.crd(), &[0, 0, 1]);
    assert_eq!(t.levels().1.crd(), &[0, 1, 0]);
    assert_eq!(t.levels().2.pos(), &[0, 2, 3, 4]);
    assert_eq!(t.levels().2.crd(), &[0, 1, 1, 1]);
    assert_eq!(t.vals(), &[3, 2, 1, 4]);
    // A non-unique singleton extends the tuple down to the first unique level.
    let t =
        Tensor::<i32, (CompressedNonUnique, SingletonNonUnique, Singleton, Dense)>::from_entries(
            &[1, 2, 2, 2],
            [([0, 1, 1, 0], 1), ([0, 1, 1, 1], 2), ([0, 1, 0, 1], 3)],
        )
        .unwrap();
    assert_eq!(t.levels().0.crd(), &[0, 0]);
    assert_eq!(t.levels().1.crd(), &[1, 1]);
    assert_eq!(t.levels().2.crd(), &[0, 1]);
    assert_eq!(t.vals(), &[0, 3, 1, 2]);
}

#[test]
fn a_singleton_below_a_closed_tuple_holds_one_coordinate_per_tuple() {
    // In (CompressedNonUnique, Singleton, Singleton) the tuple ends at level
    // 1, so level 2 stores one coordinate per (i, j).
    type Nss = (CompressedNonUnique, Singleton, Singleton);
    let e =
        Tensor::<i32, Nss>::from_entries(&[1, 1, 3], [([0, 0, 1], 1), ([0, 0, 2], 2)]).unwrap_err();
    assert!(matches!(e, Error::NotRepresentable { .. }), "{e}");
    let t = Tensor::<i32, Nss>::from_entries(&[1, 2, 3], [([0, 0, 1], 1), ([0, 1, 2], 2)]).unwrap();
    assert_eq!(t.entries(), vec![(vec![0, 0, 1], 1), (vec![0, 1, 2], 2)]);
}

#[test]
#[should_panic(
    expected = "Dense1::zeros(18446744073709551615): the entries cannot be stored in this format: cannot allocate"
)]
#[cfg(target_pointer_width = "64")]
fn dense1_zeros_of_an_impossible_length_panics_with_a_message() {
    Dense1::<f64>::zeros(usize::MAX);
}

#[test]
#[should_panic(expected = "Dense2::zeros(18446744073709551615, 2): ")]
fn dense2_zeros_of_an_overflowing_shape_panics_with_a_message() {
    Dense2::<f64>::zeros(usize::MAX, 2);
}

#[test]
#[should_panic(expected = "Dense3::zeros(")]
fn dense3_zeros_of_an_impossible_shape_panics_with_a_message() {
    Dense3::<u8>::zeros(usize::MAX / 4, 2, 1);
}

#[test]
fn tensor_new_reports_the_same_sizes_as_errors() {
    assert!(matches!(
        Dense1::<f64>::new(&[usize::MAX]),
        Err(Error::NotRepresentable { .. })
    ));
    assert!(matches!(
        Dense2::<f64>::new(&[usize::MAX, 2]),
        Err(Error::NotRepresentable { .. })
    ));
}

#[test]
#[should_panic(expected = "Tensor::to_dense of shape [18446744073709551615]")]
#[cfg(target_pointer_width = "64")]
fn to_dense_of_an_impossible_shape_panics_with_a_message() {
    SparseVec::<f64, u64>::new(&[usize::MAX])
        .unwrap()
        .to_dense();
}

#[test]
#[should_panic(expected = "more than usize::MAX components")]
fn to_dense_of_an_overflowing_shape_panics_with_a_message() {
    Dcsr::<f64, u64>::new(&[usize::MAX, 3]).unwrap().to_dense();
}

#[test]
fn an_empty_singleton_dimension_under_dense_is_explained() {
    let e = Tensor::<f64, (Dense, Singleton)>::new(&[3, 0]).unwrap_err();
    assert!(matches!(e, Error::NotRepresentable { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("size 0 cannot be stored under 3 parent positions"),
        "{msg}"
    );
    assert!(msg.contains("no coordinate is below 0"), "{msg}");
    assert!(msg.contains("(Dense, Compressed)"), "{msg}");
    // The suggested format holds it; so do singletons under no positions.
    assert_eq!(Csr::<f64>::new(&[3, 0]).unwrap().nnz(), 0);
    assert!(Tensor::<f64, (Dense, Singleton)>::new(&[0, 0]).is_ok());
    assert!(Coo::<f64>::new(&[3, 0]).is_ok());
    // Raw levels give the same explanation.
    let s = Singleton::<u32>::from_parts_unchecked(0, vec![0, 0, 0]);
    let (level, d) = invalid(Tensor::<f64, (Dense, Singleton)>::from_levels(
        &[3, 0],
        (Dense::new(3), s),
        vec![0.0; 3],
    ));
    assert_eq!(level, 1);
    assert!(d.contains("no coordinate is below 0"), "{d}");
}
