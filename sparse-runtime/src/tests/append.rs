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
fn an_assembly_guard_reassembles_an_output_in_place() {
    let mut t = Csr::<f64>::new(&[3, 4]).unwrap();
    // SAFETY: the levels and values are left valid for shape [3, 4] before
    // `finish`, which debug builds re-check and from_levels confirms below.
    let mut guard = unsafe { t.assemble() };
    let (levels, vals) = guard.parts();
    levels.1.append_init(3);
    levels.1.append_coord(2);
    levels.1.append_edges(1, 0, 1);
    vals.push(5.0);
    levels.1.append_finalize(3).unwrap();
    guard.finish();
    assert_eq!(t.entries(), vec![(vec![1, 2], 5.0)]);
    assert!(Csr::<f64>::from_levels(&[3, 4], t.levels().clone(), t.vals().to_vec()).is_ok());
}

#[cfg(debug_assertions)]
#[test]
fn finish_names_the_broken_invariant_in_debug_builds_and_resets() {
    let mut t = Csr::<f64>::new(&[2, 2]).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: deliberately broken (one value too many) to exercise the
        // debug check; the guard then resets the tensor.
        let mut guard = unsafe { t.assemble() };
        guard.parts().1.push(1.0);
        guard.finish();
    }));
    let message = caught.unwrap_err();
    let message = message
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(
        message.contains("vals has length 1 but must have length 0"),
        "{message}"
    );
    assert_eq!(t.nnz(), 0);
    assert!(Csr::<f64>::from_levels(&[2, 2], t.levels().clone(), t.vals().to_vec()).is_ok());
}

// ----- append_edges / append_finalize misuse --------------------------------

/// A 6-column compressed level under 4 parents, assembly started.
fn started() -> Compressed<u32> {
    let mut c = Compressed::<u32>::from_raw(6, vec![0], vec![]).unwrap();
    c.append_init(4);
    c
}

/// Records parent 2 and then parent 1: the edges go backwards.
fn record_parents_backwards(c: &mut Compressed<u32>) {
    c.append_coord(5);
    c.append_edges(2, 0, 1);
    c.append_coord(4);
    c.append_edges(1, 1, 2);
}

#[cfg(not(debug_assertions))]
#[test]
fn append_finalize_rejects_edges_recorded_backwards() {
    // Once this was "repaired" into the monotone but wrong pos [0, 0, 2, 2, 2].
    let mut c = started();
    record_parents_backwards(&mut c);
    let e = c.append_finalize(4).unwrap_err();
    assert!(
        e.to_string()
            .contains("parent position 1 after parent position 2"),
        "{e}"
    );
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "parent position 1 recorded after parent position 2")]
fn append_edges_asserts_increasing_parents_in_debug_builds() {
    record_parents_backwards(&mut started());
}

#[cfg(not(debug_assertions))]
#[test]
fn append_finalize_rejects_a_parent_recorded_twice() {
    let mut c = started();
    c.append_coord(1);
    c.append_edges(0, 0, 1);
    c.append_coord(2);
    c.append_edges(0, 1, 2);
    let e = c.append_finalize(4).unwrap_err();
    assert!(
        e.to_string()
            .contains("parent position 0 after parent position 0"),
        "{e}"
    );
}

#[test]
fn append_finalize_rejects_segments_that_are_not_contiguous() {
    let mut c = started();
    c.append_coord(1);
    c.append_coord(2);
    c.append_edges(1, 1, 2); // positions 0..1 would belong to nobody
    let e = c.append_finalize(4).unwrap_err();
    assert!(e.to_string().contains("must be contiguous"), "{e}");
    let mut c = started();
    c.append_coord(1);
    c.append_edges(0, 1, 0); // end before begin
    assert!(c.append_finalize(4).is_err());
}

#[test]
fn append_finalize_rejects_parents_beyond_the_parent_size() {
    let mut c = started();
    c.append_coord(1);
    c.append_edges(7, 0, 1);
    let e = c.append_finalize(4).unwrap_err();
    assert!(
        e.to_string()
            .contains("recorded parent position 7 but the parent level has 4 positions"),
        "{e}"
    );
}

#[test]
fn assembly_functions_without_append_init_are_rejected() {
    let mut c = Compressed::<u32>::from_raw(6, vec![0, 1], vec![3]).unwrap();
    let e = c.append_finalize(1).unwrap_err();
    assert!(e.to_string().contains("without append_init"), "{e}");
    c.append_edges(0, 0, 1);
    let e = c.append_finalize(1).unwrap_err();
    assert!(
        e.to_string()
            .contains("append_edges was called without append_init"),
        "{e}"
    );
    // A finished assembly is over: finalizing again is an error too.
    let mut c = started();
    c.append_finalize(4).unwrap();
    assert!(c.append_finalize(4).is_err());
}

#[test]
fn elided_parents_after_the_last_recorded_one_are_filled() {
    let mut c = started();
    c.append_coord(0);
    c.append_coord(5);
    c.append_edges(1, 0, 2);
    c.append_finalize(4).unwrap();
    assert_eq!(c.pos(), &[0, 0, 2, 2, 2]);
    // Recording parent 0 with an empty segment (as kernels do for the root)
    // is fine.
    let mut c = started();
    c.append_edges(0, 0, 0);
    c.append_finalize(1).unwrap();
    assert_eq!(c.pos(), &[0, 0]);
}

// ----- the assembly guard -----------------------------------------------------

/// A 3x4 CSR matrix with entries in rows 0 and 2.
fn csr() -> Csr<f64> {
    Csr::<f64>::from_entries(&[3, 4], [([0, 1], 1.0), ([2, 3], 2.0)]).unwrap()
}

/// Checks that `t` is valid (by `from_levels`), consistent and all zero.
fn assert_valid_and_zero(t: &Csr<f64>) {
    let again = Csr::<f64>::from_levels(t.shape(), t.levels().clone(), t.vals().to_vec());
    assert_eq!(again.as_ref(), Ok(t));
    assert_eq!(t.nnz(), t.entries().len());
    assert_eq!(t, &Csr::<f64>::new(&[3, 4]).unwrap());
}

/// Starts re-assembling `t` and stops half-way, in the state of the issue's
/// reproducer: `pos = [0, 3, 0, 0]`, values for 3 positions but 2 coordinates.
fn half_assemble(t: &mut Csr<f64>) -> Result<(), Error> {
    // SAFETY: the guard is dropped (not finished) on every path out of here.
    let mut a = unsafe { t.assemble() };
    let (levels, vals) = a.parts();
    levels.1.append_init(3);
    vals.clear();
    for j in [0, 2] {
        levels.1.append_coord(j);
        vals.push(1.0);
    }
    vals.push(1.0);
    levels.1.append_edges(0, 0, 3);
    levels.1.append_finalize(3)?;
    a.finish();
    Ok(())
}

#[test]
fn an_early_return_leaves_the_zero_tensor() {
    let mut t = csr();
    let e = half_assemble(&mut t).unwrap_err();
    assert!(e.to_string().contains("positions 0..3"), "{e}");
    assert_valid_and_zero(&t);
}

#[test]
fn a_panic_during_assembly_leaves_the_zero_tensor() {
    let mut t = csr();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the closure panics before `finish`; the guard resets the tensor.
        let mut a = unsafe { t.assemble() };
        let (levels, vals) = a.parts();
        levels.1.append_init(3);
        levels.1.append_coord(1);
        vals.push(4.0);
        levels.1.append_coord(0);
        panic!("interrupted");
    }));
    assert!(caught.is_err());
    assert_valid_and_zero(&t);
}

#[test]
fn dropping_the_guard_unfinished_leaves_the_zero_tensor() {
    let mut t = csr();
    {
        // SAFETY: the guard is dropped unfinished, which resets the tensor.
        let mut a = unsafe { t.assemble() };
        let (_, vals) = a.parts();
        vals.push(9.0);
    }
    assert_valid_and_zero(&t);
    // A dense output is reset to zeros as well.
    let mut y = Dense1::from_vec(vec![1.0, 2.0]);
    {
        // SAFETY: as above.
        let mut a = unsafe { y.assemble() };
        a.parts().1[0] = 5.0;
    }
    assert_eq!(y.as_slice(), &[0.0, 0.0]);
}

#[test]
fn a_finished_assembly_keeps_its_result() {
    let mut t = csr();
    // SAFETY: the parts are assembled into a valid 3x4 CSR matrix before finish.
    let mut a = unsafe { t.assemble() };
    let (levels, vals) = a.parts();
    levels.1.append_init(3);
    vals.clear();
    levels.1.append_coord(2);
    vals.push(5.0);
    levels.1.append_edges(1, 0, 1);
    levels.1.append_finalize(3).unwrap();
    a.finish();
    assert_eq!(t.entries(), vec![(vec![1, 2], 5.0)]);
    assert_eq!(t.levels().1.pos(), &[0, 0, 1, 1]);
}

#[cfg(debug_assertions)]
#[test]
fn finishing_an_invalid_assembly_panics_in_debug_builds_and_resets() {
    let mut t = csr();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: deliberately broken; debug builds re-validate in `finish`,
        // panic, and the guard resets the tensor while unwinding.
        let mut a = unsafe { t.assemble() };
        a.parts().1.push(1.0);
        a.finish();
    }));
    let message = caught.unwrap_err();
    let message = message.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("vals has length 3 but must have length 2"),
        "{message}"
    );
    assert_valid_and_zero(&t);
}

#[test]
fn a_reservation_is_a_hint_that_appending_may_pass() {
    // Room for 2 (and, separately, the values' room for 2): appending 3 grows past it, and
    // the level is the one appending alone builds.
    let mut c = Compressed::<u32>::from_raw(5, vec![0], vec![]).unwrap();
    c.append_init(2);
    c.append_reserve(2);
    let mut vals: Vec<f64> = Vec::new();
    crate::__private::reserve_values(&mut vals, 2);
    assert!(vals.capacity() >= 2);
    for (i, v) in [(0, 1.0), (4, 2.0), (2, 3.0)] {
        c.append_coord(i);
        vals.push(v);
    }
    c.append_edges(0, 0, 2);
    c.append_edges(1, 2, 3);
    c.append_finalize(2).unwrap();
    let t = Csr::<f64>::from_levels(&[2, 5], (Dense::new(2), c), vals).unwrap();
    assert_eq!(
        t.entries(),
        vec![(vec![0, 0], 1.0), (vec![0, 4], 2.0), (vec![1, 2], 3.0)]
    );
    // An impossible reservation is ignored.
    let mut s = Singleton::<u32>::from_raw(3, vec![]).unwrap();
    s.append_init(0);
    s.append_reserve(usize::MAX);
    s.append_coord(1);
    assert_eq!(s.len(), 1);
}
