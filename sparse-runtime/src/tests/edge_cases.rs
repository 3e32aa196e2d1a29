//! Empty tensors, size-0 dimensions, index overflow, unrepresentable entries
//! and bad shapes, coordinates and formats.

use crate::prelude::*;
use crate::Error;

#[test]
fn new_tensors_are_empty_or_zero_filled() {
    let csr = Csr::<f64>::new(&[3, 4]).unwrap();
    assert_eq!(csr.levels().1.pos(), &[0, 0, 0, 0]);
    assert!(csr.levels().1.is_empty());
    assert_eq!(csr.nnz(), 0);
    assert!(csr.entries().is_empty());
    assert_eq!(csr.to_dense(), vec![0.0; 12]);
    let coo = Coo3::<i32>::new(&[2, 2, 2]).unwrap();
    assert_eq!(coo.levels().0.pos(), &[0, 0]);
    assert_eq!(coo.nnz(), 0);
    let dense = Dense2::<i32>::new(&[2, 3]).unwrap();
    assert_eq!(dense.vals(), &[0; 6]);
    assert_eq!(dense.entries().len(), 6);
    let bcsr = Tensor::<i32, (Dense, Compressed, Dense, Dense)>::new(&[2, 2, 3, 3]).unwrap();
    assert_eq!(bcsr.nnz(), 0);
    assert_eq!(bcsr.levels().1.pos(), &[0, 0, 0]);
}

#[test]
fn empty_entry_lists_equal_new() {
    let none: [([usize; 2], f64); 0] = [];
    assert_eq!(Dcsr::<f64>::from_entries(&[4, 4], none), Dcsr::new(&[4, 4]));
    assert_eq!(Coo::<f64>::from_entries(&[4, 4], none), Coo::new(&[4, 4]));
}

#[test]
fn size_zero_dimensions() {
    for shape in [[0, 5], [5, 0], [0, 0]] {
        let csr = Csr::<f64>::new(&shape).unwrap();
        assert_eq!(csr.levels().1.pos().len(), shape[0] + 1);
        assert!(csr.entries().is_empty());
        assert!(csr.to_dense().is_empty());
        assert_eq!(Coo::<f64>::new(&shape).unwrap().nnz(), 0);
        assert_eq!(Dcsr::<f64>::new(&shape).unwrap().nnz(), 0);
        assert_eq!(Csc::<f64>::new(&shape).unwrap().shape(), &shape);
        assert_eq!(Dense2::<f64>::new(&shape).unwrap().nnz(), 0);
    }
    assert_eq!(Dense1::<f64>::new(&[0]).unwrap().nnz(), 0);
    assert_eq!(
        SparseVec::<f64>::new(&[0]).unwrap().levels().0.pos(),
        &[0, 0]
    );
    let bcsr = Tensor::<f64, (Dense, Compressed, Dense, Dense)>::new(&[3, 2, 0, 2]).unwrap();
    assert_eq!(bcsr.nnz(), 0);
    // Any coordinate is out of bounds in a size-0 mode.
    let e = Csr::<f64>::from_entries(&[3, 0], [([0, 0], 1.0)]).unwrap_err();
    assert!(matches!(e, Error::CoordinateOutOfBounds { .. }));
}

#[test]
fn size_zero_singleton_under_dense_cannot_pad() {
    let e = Tensor::<f64, (Dense, Singleton)>::new(&[3, 0]).unwrap_err();
    assert!(matches!(e, Error::NotRepresentable { .. }), "{e}");
    assert!(Tensor::<f64, (Dense, Singleton)>::new(&[0, 0]).is_ok());
}

#[test]
fn sizes_that_do_not_fit_the_index_type_overflow() {
    let huge = u32::MAX as usize + 1;
    let expected = Error::IndexOverflow {
        index_type: "u32",
        value: huge,
    };
    assert_eq!(SparseVec::<f64>::new(&[huge]), Err(expected.clone()));
    assert_eq!(Csr::<f64>::new(&[2, huge]), Err(expected.clone()));
    assert_eq!(Dcsr::<f64>::new(&[huge, 1]), Err(expected.clone()));
    assert_eq!(Coo::<f64>::new(&[1, huge]), Err(expected.clone()));
    assert_eq!(Coo3::<f64, u32>::new(&[1, huge, 1]), Err(expected));
    // One less fits; wider index types fit.
    assert!(SparseVec::<f64>::new(&[huge - 1]).is_ok());
    assert!(SparseVec::<f64, u64>::new(&[huge]).is_ok());
    let t = Csr::<f64, usize>::from_entries(&[1, huge], [([0, huge - 1], 1.0)]).unwrap();
    assert_eq!(t.levels().1.crd(), &[huge - 1]);
}

#[test]
fn dense_position_counts_that_overflow_usize_are_errors() {
    let e = Tensor::<f64, (Dense, Dense)>::new(&[usize::MAX, 2]).unwrap_err();
    assert!(matches!(e, Error::NotRepresentable { .. }), "{e}");
}

#[test]
fn entries_a_singleton_cannot_hold_apart() {
    // A unique level above a singleton gives (0, 1) and (0, 2) one position.
    let e =
        Tensor::<i32, (Compressed, Singleton)>::from_entries(&[2, 3], [([0, 1], 1), ([0, 2], 2)])
            .unwrap_err();
    assert!(matches!(e, Error::NotRepresentable { .. }), "{e}");
    assert!(e.to_string().contains("coordinates 1 and 2"), "{e}");
    let ok =
        Tensor::<i32, (Compressed, Singleton)>::from_entries(&[2, 3], [([0, 1], 1), ([1, 2], 2)])
            .unwrap();
    assert_eq!(ok.levels().1.crd(), &[1, 2]);
    let e = Tensor::<i32, (Dense, Singleton)>::from_entries(&[1, 3], [([0, 0], 1), ([0, 2], 2)])
        .unwrap_err();
    assert!(matches!(e, Error::NotRepresentable { .. }));
}

#[test]
fn wrong_shape_and_coordinate_lengths() {
    let order = Error::OrderMismatch {
        expected: 2,
        found: 1,
    };
    assert_eq!(Csr::<f64>::new(&[3]), Err(order.clone()));
    assert_eq!(
        Csr::<f64>::from_entries(&[3, 3], [(vec![1], 1.0)]),
        Err(order)
    );
    let e = Csr::<f64>::from_entries(&[3, 3], [(vec![1, 1, 1], 1.0)]).unwrap_err();
    assert_eq!(
        e,
        Error::OrderMismatch {
            expected: 2,
            found: 3
        }
    );
    assert!(Coo3::<f64>::new(&[1, 1, 1, 1]).is_err());
}

#[test]
fn out_of_bounds_coordinates() {
    let e = Coo::<f64>::from_entries(&[2, 3], [([1, 2], 1.0), ([1, 3], 2.0)]).unwrap_err();
    assert_eq!(
        e,
        Error::CoordinateOutOfBounds {
            coordinate: vec![1, 3],
            shape: vec![2, 3]
        }
    );
    // Bounds are checked in logical order, whatever the mode order.
    let e = Csc::<f64>::from_entries(&[2, 3], [([2, 0], 1.0)]).unwrap_err();
    assert!(matches!(e, Error::CoordinateOutOfBounds { .. }));
    assert!(Csc::<f64>::from_entries(&[2, 3], [([1, 2], 1.0)]).is_ok());
}

#[test]
fn invalid_mode_orders() {
    let dup = Tensor::<f64, (Dense, Dense), Modes<0, 0>>::new(&[2, 2]).unwrap_err();
    assert!(
        matches!(dup, Error::InvalidModeOrder { order: 2, .. }),
        "{dup}"
    );
    let short = Tensor::<f64, (Dense, Dense), Modes<0>>::new(&[2, 2]).unwrap_err();
    assert!(matches!(short, Error::InvalidModeOrder { .. }));
    let long = Tensor::<f64, (Dense, Dense), Modes<1, 0, 2>>::new(&[2, 2]).unwrap_err();
    assert!(matches!(long, Error::InvalidModeOrder { .. }));
    let levels = (Dense::new(2), Dense::new(2));
    let raw =
        Tensor::<f64, (Dense, Dense), Modes<1, 1>>::from_levels(&[2, 2], levels, vec![0.0; 4]);
    assert!(matches!(raw, Err(Error::InvalidModeOrder { .. })));
}

#[test]
fn invalid_level_tuples() {
    let first = Tensor::<f64, (Singleton, Dense)>::new(&[2, 2]).unwrap_err();
    assert!(
        matches!(first, Error::InvalidLevel { level: 0, .. }),
        "{first}"
    );
    let child = Tensor::<f64, (CompressedNonUnique, Compressed)>::new(&[2, 2]).unwrap_err();
    assert!(
        matches!(child, Error::InvalidLevel { level: 0, .. }),
        "{child}"
    );
    let last = Tensor::<f64, (Dense, CompressedNonUnique)>::new(&[2, 2]).unwrap_err();
    assert!(
        matches!(last, Error::InvalidLevel { level: 1, .. }),
        "{last}"
    );
    let lone = Tensor::<f64, (SingletonNonUnique,)>::new(&[2]).unwrap_err();
    assert!(matches!(lone, Error::InvalidLevel { level: 0, .. }));
}

#[test]
fn dense_helpers() {
    let mut v = Dense1::<f64>::zeros(3);
    v.as_mut_slice()[1] = 2.0;
    assert_eq!(v.as_slice(), &[0.0, 2.0, 0.0]);
    assert_eq!(
        Dense1::from_vec(vec![1, 2]).entries(),
        vec![(vec![0], 1), (vec![1], 2)]
    );
    let mut m = Dense2::<i32>::from_vec(2, 3, (0..6).collect()).unwrap();
    assert_eq!(m.entries()[4], (vec![1, 1], 4));
    m.as_mut_slice()[0] = 9;
    assert_eq!(m.as_slice()[0], 9);
    assert_eq!(Dense2::<i32>::zeros(2, 2), Dense2::new(&[2, 2]).unwrap());
    let e = Dense2::<i32>::from_vec(2, 3, vec![0; 5]).unwrap_err();
    assert_eq!(
        e,
        Error::LengthMismatch {
            what: "dense values",
            expected: 6,
            found: 5
        }
    );
    assert!(Dense2::<i32>::from_vec(usize::MAX, 2, vec![]).is_err());
    let t = Dense3::<i32>::from_vec(2, 1, 2, vec![1, 2, 3, 4]).unwrap();
    assert_eq!(t.entries()[3], (vec![1, 0, 1], 4));
    assert_eq!(t.as_slice(), &[1, 2, 3, 4]);
    assert_eq!(Dense3::<i32>::zeros(1, 2, 3).as_slice(), &[0; 6]);
    assert!(Dense3::<i32>::from_vec(1, 1, 1, vec![]).is_err());
}

#[test]
fn vals_mut_keeps_structure() {
    let mut t = Csr::<f64>::from_entries(&[2, 2], [([1, 1], 1.0)]).unwrap();
    t.vals_mut()[0] = 3.0;
    assert_eq!(t.entries(), vec![(vec![1, 1], 3.0)]);
}
