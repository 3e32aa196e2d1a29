//! Append assembly (Chou et al. 2018, table 3): building levels the way a
//! generated kernel builds a sparse output.

use crate::prelude::*;
use crate::Error;

#[test]
fn append_builds_a_valid_compressed_level_with_elided_segments() {
    let mut c = Compressed::<u32>::from_raw(6, vec![0], vec![]).unwrap();
    c.append_init(4);
    assert_eq!(c.pos(), &[0, 0, 0, 0, 0]);
    // Parent 0 owns coordinates 1 and 3; parents 1 and 3 are never visited.
    c.append_coord(1);
    c.append_coord(3);
    c.append_edges(0, 0, 2);
    c.append_coord(0);
    c.append_edges(2, 2, 3);
    c.append_finalize(4).unwrap();
    assert_eq!(c.pos(), &[0, 2, 2, 3, 3]);
    assert_eq!(c.crd(), &[1, 3, 0]);
    assert_eq!(c.len(), 3);
    assert_eq!(
        Compressed::from_raw(6, c.pos().to_vec(), c.crd().to_vec()),
        Ok(c.clone())
    );
    let t = Csr::<f64>::from_levels(&[4, 6], (Dense::new(4), c), vec![1.0, 2.0, 3.0]).unwrap();
    assert_eq!(
        t.entries(),
        vec![(vec![0, 1], 1.0), (vec![0, 3], 2.0), (vec![2, 0], 3.0)]
    );
}

#[test]
fn append_grows_pos_past_the_hint_and_trims_to_the_parent_size() {
    let mut c = Compressed::<u64>::from_raw(9, vec![0, 0], vec![]).unwrap();
    c.append_init(0);
    c.append_coord(8);
    c.append_edges(5, 0, 1);
    c.append_finalize(7).unwrap();
    assert_eq!(c.pos(), &[0, 0, 0, 0, 0, 0, 1, 1]);
    // Leading empty parents, all parents elided, and a zero-size parent level.
    c.append_init(3);
    c.append_finalize(3).unwrap();
    assert_eq!((c.pos(), c.crd()), (&[0u64, 0, 0, 0][..], &[][..]));
    c.append_init(3);
    c.append_finalize(0).unwrap();
    assert_eq!(c.pos(), &[0]);
}

#[test]
fn append_init_resets_a_used_level() {
    let mut c = Compressed::<usize>::from_raw(4, vec![0, 2], vec![1, 2]).unwrap();
    c.append_init(1);
    assert!(c.is_empty());
    c.append_coord(3);
    c.append_edges(0, 0, 1);
    c.append_finalize(1).unwrap();
    assert_eq!((c.pos(), c.crd()), (&[0usize, 1][..], &[3usize][..]));
}

#[test]
fn append_finalize_rejects_coordinates_without_edges() {
    let mut c = Compressed::<u32>::from_raw(4, vec![0], vec![]).unwrap();
    c.append_init(2);
    c.append_coord(1);
    c.append_coord(2);
    c.append_edges(0, 0, 1);
    let e = c.append_finalize(2).unwrap_err();
    assert!(matches!(e, Error::InvalidLevel { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("recorded 1 positions but 2 coordinates"),
        "{e}"
    );
}

#[test]
fn append_assembles_a_coo_matrix() {
    let mut rows = CompressedNonUnique::<u32>::from_raw(3, vec![0, 0], vec![]).unwrap();
    let mut cols = Singleton::<u32>::from_raw(3, vec![]).unwrap();
    rows.append_init(1);
    cols.append_init(4);
    for (r, c) in [(0, 1), (0, 2), (2, 0)] {
        rows.append_coord(r);
        cols.append_coord(c);
    }
    rows.append_edges(0, 0, 3);
    rows.append_finalize(1).unwrap();
    assert_eq!(cols.crd(), &[1, 2, 0]);
    let t = Coo::<i32>::from_levels(&[3, 3], (rows, cols), vec![1, 2, 3]).unwrap();
    assert_eq!(t.to_dense(), vec![0, 1, 2, 0, 0, 0, 3, 0, 0]);
}

#[test]
fn singleton_non_unique_append() {
    let mut s = SingletonNonUnique::<u64>::from_raw(5, vec![4]).unwrap();
    s.append_init(2);
    assert!(s.is_empty());
    s.append_coord(2);
    s.append_coord(2);
    assert_eq!(s.crd(), &[2, 2]);
}

#[test]
fn assembly_parts_reassembles_an_output_in_place() {
    let mut t = Csr::<f64>::new(&[3, 4]).unwrap();
    // SAFETY: the levels and values are left valid for shape [3, 4] below,
    // which debug_validate and from_levels then confirm.
    let (levels, vals) = unsafe { t.assembly_parts() };
    levels.1.append_init(3);
    levels.1.append_coord(2);
    levels.1.append_edges(1, 0, 1);
    vals.push(5.0);
    levels.1.append_finalize(3).unwrap();
    t.debug_validate();
    assert_eq!(t.entries(), vec![(vec![1, 2], 5.0)]);
    assert!(Csr::<f64>::from_levels(&[3, 4], t.levels().clone(), t.vals().to_vec()).is_ok());
}

#[test]
#[should_panic(expected = "vals has length 1 but must have length 0")]
fn debug_validate_names_the_broken_invariant() {
    let mut t = Csr::<f64>::new(&[2, 2]).unwrap();
    // SAFETY: deliberately broken to exercise debug_validate; the tensor is
    // not read after the expected panic.
    let (_, vals) = unsafe { t.assembly_parts() };
    vals.push(1.0);
    t.debug_validate();
}
