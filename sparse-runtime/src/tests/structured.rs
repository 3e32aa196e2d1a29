//! DIA and ELL: construction, the view they store, validation of raw arrays, and the
//! structural edge cases (empty and extreme diagonals, rows with no entry and with exactly
//! `width` entries, non-square and empty matrices).

use crate::{Dia, Ell, Error};

fn entries(list: &[([usize; 2], f64)]) -> Vec<(Vec<usize>, f64)> {
    list.iter().map(|&(c, v)| (c.to_vec(), v)).collect()
}

#[test]
fn dia_stores_each_diagonal_in_full() {
    // 3 x 4: offsets -1 (rows 1..3), 0 (rows 0..3), 2 (rows 0..2).
    let list = [
        ([1, 0], 1.0),
        ([0, 0], 2.0),
        ([2, 2], 3.0),
        ([0, 2], 4.0),
        ([1, 3], 5.0),
    ];
    let a = Dia::<f64>::from_entries(&[3, 4], list).unwrap();
    assert_eq!(a.offsets(), &[-1, 0, 2]);
    assert_eq!(a.vals(), &[0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 4.0, 5.0, 0.0]);
    assert_eq!(a.nnz(), 2 + 3 + 2);
    let stored: Vec<Vec<usize>> = a.entries().into_iter().map(|(c, _)| c).collect();
    let expect = [[0, 0], [0, 2], [1, 0], [1, 1], [1, 3], [2, 1], [2, 2]];
    assert_eq!(stored, expect.map(|c| c.to_vec()));
    assert_eq!(a.view().shape(), &[3, 3, 4]);
}

#[test]
fn dia_extreme_and_empty_diagonals() {
    // A single diagonal at each extreme offset holds one entry.
    let low = Dia::<f64>::from_entries(&[4, 3], [([3, 0], 7.0)]).unwrap();
    assert_eq!((low.offsets(), low.nnz()), (&[-3][..], 1));
    assert_eq!(low.entries(), entries(&[([3, 0], 7.0)]));
    let high = Dia::<f64>::from_entries(&[4, 3], [([0, 2], 8.0)]).unwrap();
    assert_eq!((high.offsets(), high.nnz()), (&[2][..], 1));
    // A stored diagonal of zeros is kept (explicit zeros).
    let zeros = Dia::from_diagonals(2, 2, vec![0], vec![0.0, 0.0]).unwrap();
    assert_eq!(zeros.entries(), entries(&[([0, 0], 0.0), ([1, 1], 0.0)]));
    // Empty matrices have no diagonal.
    for shape in [[0, 0], [0, 3], [3, 0]] {
        let e = Dia::<f64>::new(&shape).unwrap();
        assert_eq!((e.offsets().len(), e.nnz(), e.shape()), (0, 0, &shape[..]));
    }
}

#[test]
fn dia_raw_arrays_are_validated() {
    let bad = |r: Result<Dia<f64>, Error>| r.unwrap_err().to_string();
    assert!(
        bad(Dia::from_diagonals(2, 2, vec![1, 0], vec![0.0; 4])).contains("strictly increasing")
    );
    assert!(bad(Dia::from_diagonals(2, 2, vec![2], vec![0.0; 2])).contains("not the offset"));
    assert!(bad(Dia::from_diagonals(2, 2, vec![-2], vec![0.0; 2])).contains("not the offset"));
    assert!(bad(Dia::from_diagonals(3, 0, vec![-1], vec![0.0; 3])).contains("not the offset"));
    assert!(bad(Dia::from_diagonals(2, 2, vec![0], vec![0.0; 3])).contains("vals"));
    // Slot 1 of the superdiagonal is outside a 2 x 2 matrix: a value there would be lost.
    assert!(bad(Dia::from_diagonals(2, 2, vec![1], vec![1.0, 2.0])).contains("outside"));
    assert!(Dia::from_diagonals(2, 2, vec![1], vec![1.0, 0.0]).is_ok());
    assert!(matches!(
        Dia::<f64>::from_entries(&[2, 2, 2], [([0, 0, 0], 1.0)]),
        Err(Error::OrderMismatch { .. })
    ));
    assert!(matches!(
        Dia::<f64>::from_entries(&[2, 2], [([2, 0], 1.0)]),
        Err(Error::CoordinateOutOfBounds { .. })
    ));
}

#[test]
fn ell_pads_short_rows() {
    // Row 0 full (width 3), row 1 empty, row 2 one entry; duplicates are summed.
    let list = [
        ([0, 4], 1.0),
        ([0, 0], 2.0),
        ([2, 1], 3.0),
        ([0, 2], 4.0),
        ([0, 2], 0.5),
    ];
    let a = Ell::<f64>::from_entries(&[3, 5], list).unwrap();
    assert_eq!(a.width(), 3);
    let pad = u32::MAX;
    assert_eq!(a.col_idx(), &[0, 2, 4, pad, pad, pad, 1, pad, pad]);
    assert_eq!(a.vals(), &[2.0, 4.5, 1.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0]);
    assert_eq!(a.nnz(), 4);
    assert_eq!(
        a.entries(),
        entries(&[([0, 0], 2.0), ([0, 2], 4.5), ([0, 4], 1.0), ([2, 1], 3.0)])
    );
    let empty = Ell::<f64>::new(&[4, 2]).unwrap();
    assert_eq!((empty.width(), empty.nnz()), (0, 0));
    assert_eq!(Ell::<f64>::new(&[0, 0]).unwrap().nnz(), 0);
}

#[test]
fn ell_raw_arrays_are_validated() {
    let pad = u32::MAX;
    let bad = |r: Result<Ell<f64>, Error>| r.unwrap_err().to_string();
    assert!(bad(Ell::from_ell_arrays(1, 4, 2, vec![2, 1], vec![1.0; 2]))
        .contains("strictly increasing"));
    assert!(
        bad(Ell::from_ell_arrays(1, 4, 2, vec![pad, 1], vec![0.0, 1.0]))
            .contains("empty slots last")
    );
    assert!(
        bad(Ell::from_ell_arrays(1, 4, 2, vec![1, pad], vec![1.0, 2.0])).contains("empty slot")
    );
    assert!(bad(Ell::from_ell_arrays(1, 4, 2, vec![1, 4], vec![1.0, 2.0])).contains("not below"));
    assert!(bad(Ell::from_ell_arrays(2, 4, 2, vec![1, 2], vec![1.0, 2.0])).contains("crd"));
    let ok = Ell::from_ell_arrays(2, 4, 2, vec![1, 3, pad, pad], vec![1.0, 2.0, 0.0, 0.0]).unwrap();
    assert_eq!(ok.entries(), entries(&[([0, 1], 1.0), ([0, 3], 2.0)]));
    // A column count that does not fit the index type.
    assert!(matches!(
        Ell::<f64, u32>::from_entries(&[1, 5_000_000_000], [([0, 0], 1.0)]),
        Err(Error::IndexOverflow { .. })
    ));
}

/// `Slotted` composes like any level: as the root (a padded sparse vector), above a dense
/// block, and its `from_levels` validation names the slot that breaks a rule.
#[test]
fn slotted_level_composes_and_validates() {
    use crate::{Dense, Slotted, Tensor};
    let pad = u32::MAX;
    let v = Tensor::<f64, (Slotted,)>::from_entries(&[9], [([7], 1.0), ([2], 2.0)]).unwrap();
    assert_eq!(v.levels().0.crd(), &[2, 7]);
    assert_eq!(v.entries(), vec![(vec![2], 2.0), (vec![7], 1.0)]);
    // Rows of 2x1 blocks: two block slots per row, the deeper level dense.
    let list = [([0, 3, 1], 1.0), ([0, 3, 0], 2.0), ([1, 0, 1], 3.0)];
    let t = Tensor::<f64, (Dense, Slotted, Dense)>::from_entries(&[2, 4, 2], list).unwrap();
    assert_eq!(t.levels().1.crd(), &[3, 0]);
    assert_eq!(t.levels().1.width(), 1);
    assert_eq!(t.vals(), &[2.0, 1.0, 0.0, 3.0]);
    assert_eq!(t.nnz(), 4);
    let check = |crd: Vec<u32>| {
        let level = Slotted::from_raw(5, 2, crd).unwrap();
        Tensor::<f64, (Dense, Slotted)>::from_levels(&[2, 5], (Dense::new(2), level), vec![0.0; 4])
            .map(drop)
            .map_err(|e| e.to_string())
    };
    assert_eq!(check(vec![0, 4, pad, pad]), Ok(()));
    assert!(check(vec![4, 0, pad, pad])
        .unwrap_err()
        .contains("strictly increasing"));
    assert!(check(vec![1, 1, pad, pad])
        .unwrap_err()
        .contains("strictly increasing"));
    assert!(check(vec![pad, 1, pad, pad])
        .unwrap_err()
        .contains("empty slots last"));
    assert!(Slotted::<u32>::from_raw(5, 2, vec![5, pad]).is_err());
    let short = Slotted::from_raw(5, 2, vec![0, 1, 2]).unwrap();
    let err =
        Tensor::<f64, (Dense, Slotted)>::from_levels(&[2, 5], (Dense::new(2), short), vec![0.0; 3]);
    assert!(err.unwrap_err().to_string().contains("slots"));
}

/// `CooAos`: both levels read one pair array; raw pairs are validated like COO's arrays.
#[test]
fn coo_aos_shares_one_pair_array_and_validates() {
    use crate::CooAos;
    let a = CooAos::<f64>::from_entries(
        &[3, 4],
        [([2, 1], 1.0), ([0, 3], 2.0), ([0, 1], 3.0), ([0, 1], 1.0)],
    )
    .unwrap();
    assert_eq!(a.pairs(), &[0, 1, 0, 3, 2, 1]);
    assert_eq!(a.vals(), &[4.0, 2.0, 1.0]);
    let (rows, cols) = a.view().levels();
    assert_eq!((rows.pos_access(2), cols.pos_access(2)), (2, 1));
    assert!(std::ptr::eq(rows.pairs(), a.pairs()));
    assert_eq!(CooAos::<f64>::new(&[0, 5]).unwrap().nnz(), 0);
    let bad = |pairs: Vec<u32>, n: usize| {
        CooAos::<f64>::from_aos_arrays(3, 4, pairs, vec![1.0; n])
            .unwrap_err()
            .to_string()
    };
    assert!(bad(vec![1, 0, 0, 2], 2).contains("non-decreasing"));
    assert!(bad(vec![0, 2, 0, 2], 2).contains("strictly increasing"));
    assert!(bad(vec![3, 0], 1).contains("not below"));
    assert!(bad(vec![0, 4], 1).contains("not below"));
    assert!(bad(vec![0, 1, 2], 1).contains("odd"));
    assert!(CooAos::<f64>::from_aos_arrays(3, 4, vec![0, 1], vec![]).is_err());
    assert!(CooAos::<f64>::from_entries(&[3], [([0], 1.0)]).is_err());
}

/// BCSR: blocks cut by the matrix edge, 1 x 1 blocks, empty matrices, and validation of
/// raw block arrays (edge components outside the matrix must be zero).
#[test]
fn bcsr_blocks_and_edges() {
    use crate::Bcsr;
    let list = [
        ([0, 0], 1.0),
        ([4, 6], 2.0),
        ([1, 2], 3.0),
        ([4, 6], 0.5),
        ([3, 1], 4.0),
    ];
    let a = Bcsr::<f64, 3, 3>::from_entries(&[5, 7], list).unwrap();
    // 2 x 3 block rows and columns; blocks (0,0), (1,0), (1,2), the last two cut.
    assert_eq!(a.row_ptr(), &[0, 1, 3]);
    assert_eq!(a.col_idx(), &[0, 0, 2]);
    // The view (I, J, i, j) holds logical rows and columns below the block coordinates;
    // components of the cut blocks outside the matrix are not in it.
    assert_eq!(a.view().shape(), &[2, 3, 5, 7]);
    let view = a.view().entries();
    assert_eq!(view.len(), 17);
    assert!(view
        .iter()
        .all(|(c, _)| c[0] == c[2] / 3 && c[1] == c[3] / 3));
    assert!(view.contains(&(vec![1, 2, 4, 6], 2.5)));
    assert_eq!(a.block_vals(2)[3], 2.5); // row 4 % 3 = 1, column 6 % 3 = 0
    let expect = entries(&[([0, 0], 1.0), ([1, 2], 3.0), ([3, 1], 4.0), ([4, 6], 2.5)]);
    let nonzero: Vec<_> = a.entries().into_iter().filter(|(_, v)| *v != 0.0).collect();
    assert_eq!(nonzero, expect);
    // Explicit zeros of the stored blocks inside the matrix: 9 + 6 + 2 components.
    assert_eq!(a.nnz(), 17);
    let dense = a.to_dense();
    assert_eq!(
        (
            dense[4 * 7 + 6],
            dense.iter().filter(|&&v| v != 0.0).count()
        ),
        (2.5, 4)
    );

    let unit = Bcsr::<f64, 1, 1>::from_entries(&[2, 2], [([1, 0], 5.0)]).unwrap();
    assert_eq!((unit.block_count(), unit.nnz()), (1, 1));
    assert_eq!(Bcsr::<f64, 2, 3>::new(&[0, 0]).unwrap().block_count(), 0);
    assert_eq!(
        Bcsr::<f64, 2, 3>::new(&[3, 0]).unwrap().row_ptr(),
        &[0, 0, 0]
    );
    assert!(Bcsr::<f64, 0, 2>::new(&[2, 2]).is_err());
    assert!(Bcsr::<f64, 2, 2>::from_entries(&[2, 2], [([2, 0], 1.0)]).is_err());

    // Raw arrays: a 3 x 3 matrix of 2 x 2 blocks, one block (1, 1) cut on both sides.
    let raw =
        |vals: Vec<f64>| Bcsr::<f64, 2, 2>::from_bsr_arrays(3, 3, vec![0, 0, 1], vec![1], vals);
    let ok = raw(vec![7.0, 0.0, 0.0, 0.0]).unwrap();
    assert_eq!(ok.entries(), entries(&[([2, 2], 7.0)]));
    let outside = raw(vec![7.0, 1.0, 0.0, 0.0]).unwrap_err().to_string();
    assert!(outside.contains("outside the 3 x 3 matrix"), "{outside}");
    assert!(raw(vec![7.0; 3]).is_err());
    let unsorted = Bcsr::<f64, 2, 2>::from_bsr_arrays(2, 4, vec![0, 2], vec![1, 0], vec![0.0; 8]);
    assert!(unsorted
        .unwrap_err()
        .to_string()
        .contains("strictly increasing"));
}
