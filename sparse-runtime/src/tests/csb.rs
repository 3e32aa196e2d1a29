//! CSB: round trips of random entries over many shapes and block sizes, the view it
//! stores, blocks cut by the matrix edge, the default block size, and validation of raw
//! block arrays (every broken invariant is an `Err`).

use super::invalid;
use super::oracle::{dense_oracle, oracle, random_entries};
use super::prng::XorShift;
use crate::{Csb, Error};

/// The structure `a` must have: `nb * mb + 1` block pointers, every entry in its block,
/// strictly increasing row-major within a block, and a view of shape `[nb, mb, rows, cols]`.
fn check_structure<I: crate::Index>(a: &Csb<i64, I>) {
    let [rows, cols] = [a.shape()[0], a.shape()[1]];
    let b = a.block_size();
    let (nb, mb) = (rows.div_ceil(b), cols.div_ceil(b));
    assert_eq!(a.view().shape(), &[nb, mb, rows, cols]);
    let (bi, bj, r, c) = a.view().levels();
    assert_eq!(
        (bi.size(), bj.size(), r.size(), c.size()),
        (nb, mb, rows, cols)
    );
    assert_eq!(r.pos(), a.blk_ptr());
    assert_eq!(r.crd(), a.row_idx());
    assert_eq!(c.crd(), a.col_idx());
    assert_eq!(a.blk_ptr().len(), nb * mb + 1);
    assert_eq!(a.blk_ptr()[nb * mb].to_usize(), a.nnz());
    assert_eq!((a.row_idx().len(), a.col_idx().len()), (a.nnz(), a.nnz()));
    assert_eq!(a.vals().len(), a.nnz());
    for (p, w) in a.blk_ptr().windows(2).enumerate() {
        let pairs: Vec<(usize, usize)> = (w[0].to_usize()..w[1].to_usize())
            .map(|q| (a.row_idx()[q].to_usize(), a.col_idx()[q].to_usize()))
            .collect();
        assert!(pairs.windows(2).all(|x| x[0] < x[1]), "block {p} unsorted");
        for (i, j) in pairs {
            assert_eq!((i / b, j / b), (p / mb, p % mb), "({i}, {j}) in block {p}");
        }
    }
    // The view's entries are (I, J, i, j) with I = i / b, J = j / b.
    for (v, _) in a.view().entries() {
        assert_eq!((v[0], v[1]), (v[2] / b, v[3] / b));
    }
}

/// `from_csb_arrays` accepts the arrays `a` holds and rebuilds `a`.
fn rebuild<I: crate::Index>(a: &Csb<i64, I>) -> Csb<i64, I> {
    Csb::from_csb_arrays(
        a.shape()[0],
        a.shape()[1],
        a.block_size(),
        a.blk_ptr().to_vec(),
        a.row_idx().to_vec(),
        a.col_idx().to_vec(),
        a.vals().to_vec(),
    )
    .unwrap_or_else(|e| panic!("from_csb_arrays rejects what from_entries built: {e}"))
}

#[test]
fn random_round_trips_over_shapes_and_block_sizes() {
    let shapes = [
        [0, 0],
        [0, 5],
        [5, 0],
        [1, 1],
        [1, 7],
        [7, 1],
        [3, 7],
        [7, 3],
        [8, 8],
        [10, 10],
        [13, 6],
    ];
    let mut rng = XorShift::new(0xC5B);
    for shape in shapes {
        let largest = shape[0].max(shape[1]);
        for block in [None, Some(1), Some(2), Some(3), Some(4), Some(largest + 5)] {
            for n in [0, 1, 5, 40] {
                let list = random_entries(&mut rng, &shape, n);
                let input = list.iter().map(|(c, v)| (c, *v));
                let a = match block {
                    Some(b) => Csb::<i64>::from_entries_with_block(&shape, b, input),
                    None => Csb::<i64>::from_entries(&shape, input),
                }
                .unwrap_or_else(|e| panic!("shape {shape:?}, block {block:?}: {e}"));
                let map = oracle(&list);
                let expect: Vec<(Vec<usize>, i64)> = map.clone().into_iter().collect();
                assert_eq!(a.entries(), expect, "shape {shape:?}, block {block:?}");
                assert_eq!(a.to_dense(), dense_oracle(&shape, &map));
                assert_eq!(a.nnz(), map.len());
                assert_eq!(a.shape(), &shape);
                if let Some(b) = block {
                    assert_eq!(a.block_size(), b);
                }
                check_structure(&a);
                assert_eq!(rebuild(&a), a);
            }
        }
    }
    // Another index type.
    let list = random_entries(&mut rng, &[9, 11], 30);
    let a =
        Csb::<i64, u64>::from_entries_with_block(&[9, 11], 4, list.iter().map(|(c, v)| (c, *v)))
            .unwrap();
    check_structure(&a);
    assert_eq!(rebuild(&a), a);
    assert_eq!(a.to_dense(), dense_oracle(&[9, 11], &oracle(&list)));
}

#[test]
fn duplicates_are_summed_and_zeros_kept() {
    let list = [
        ([1, 2], 1.0),
        ([0, 0], 2.0),
        ([1, 2], 0.5),
        ([2, 1], 3.0),
        ([2, 1], -3.0),
        ([1, 2], 0.25),
    ];
    let a = Csb::<f64>::from_entries_with_block(&[3, 3], 2, list).unwrap();
    assert_eq!(
        a.entries(),
        vec![
            (vec![0, 0], 2.0),
            (vec![1, 2], 1.75),
            (vec![2, 1], 0.0), // cancelled, but stored (explicit zero)
        ]
    );
    assert_eq!(a.nnz(), 3);
    assert_eq!(
        a.to_dense(),
        vec![2.0, 0.0, 0.0, 0.0, 0.0, 1.75, 0.0, 0.0, 0.0]
    );
}

/// A 5 x 7 matrix of 3 x 3 blocks: 2 x 3 blocks, the last block row and column cut.
#[test]
fn blocks_cut_by_the_edge_hold_only_their_entries() {
    let list = [
        ([4, 6], 1.0),
        ([0, 0], 2.0),
        ([3, 5], 3.0),
        ([4, 3], 4.0),
        ([2, 6], 5.0),
        ([3, 3], 6.0),
        ([1, 1], 7.0),
    ];
    let a = Csb::<f64>::from_entries_with_block(&[5, 7], 3, list).unwrap();
    // Blocks (0,0): (0,0), (1,1); (0,2): (2,6); (1,1): (3,3), (3,5), (4,3); (1,2): (4,6).
    assert_eq!(a.blk_ptr(), &[0, 2, 2, 3, 3, 6, 7]);
    assert_eq!(a.row_idx(), &[0, 1, 2, 3, 3, 4, 4]);
    assert_eq!(a.col_idx(), &[0, 1, 6, 3, 5, 3, 6]);
    assert_eq!(a.vals(), &[2.0, 7.0, 5.0, 6.0, 3.0, 4.0, 1.0]);
    assert_eq!(a.view().shape(), &[2, 3, 5, 7]);
    assert_eq!(a.nnz(), 7);
    let dense = a.to_dense();
    assert_eq!((dense[4 * 7 + 6], dense[2 * 7 + 6]), (1.0, 5.0));
    // A block larger than the matrix: one block, plain COO order.
    let one = Csb::<f64>::from_entries_with_block(&[5, 7], 64, list).unwrap();
    assert_eq!(one.blk_ptr(), &[0, 7]);
    assert_eq!(one.row_idx(), &[0, 1, 2, 3, 3, 4, 4]);
    assert_eq!(one.col_idx(), &[0, 1, 6, 3, 5, 3, 6]);
    // 1 x 1 blocks: one block per component.
    let unit = Csb::<f64>::from_entries_with_block(&[2, 3], 1, [([1, 2], 1.0)]).unwrap();
    assert_eq!(unit.blk_ptr(), &[0, 0, 0, 0, 0, 0, 1]);
}

#[test]
fn empty_matrices_and_the_default_block_size() {
    for (shape, nb, mb) in [
        ([0, 0], 0, 0),
        ([0, 5], 0, 3),
        ([5, 0], 3, 0),
        ([1, 1], 1, 1),
    ] {
        let e = Csb::<f64>::new(&shape).unwrap();
        assert_eq!(e.view().shape(), &[nb, mb, shape[0], shape[1]]);
        assert_eq!(e.blk_ptr(), vec![0; nb * mb + 1]);
        assert_eq!((e.nnz(), e.shape()), (0, &shape[..]));
        assert!(e.entries().is_empty());
    }
    let default = Csb::<f64>::default_block;
    let cases = [
        (0, 0, 1),
        (1, 1, 1),
        (2, 1, 2),
        (3, 3, 2),
        (4, 2, 2),
        (7, 1, 2),
        (8, 8, 4),
        (15, 3, 4),
        (16, 16, 4),
        (100, 1, 8),
        (1, 1000, 32),
        (1 << 20, 5, 1 << 10),
        (usize::MAX, 0, 1 << 32),
    ];
    for (rows, cols, b) in cases {
        assert_eq!(default(rows, cols), b, "{rows} x {cols}");
        // Within a factor sqrt(2) of sqrt(max(rows, cols)).
        let n = rows.max(cols) as f64;
        if n > 1.0 {
            let ratio = b as f64 / n.sqrt();
            assert!((0.70..=1.42).contains(&ratio), "{rows} x {cols}: {b}");
        }
    }
    assert_eq!(Csb::<f64>::new(&[100, 3]).unwrap().block_size(), 8);
}

/// A valid 4 x 4 matrix of 2 x 2 blocks, arrays given to `f`: blocks (0,0): (0,1), (1,0);
/// (0,1): (0,3); (1,1): (3,2).
fn raw(
    blk_ptr: Vec<u32>,
    row_idx: Vec<u32>,
    col_idx: Vec<u32>,
    vals: Vec<f64>,
) -> Result<Csb<f64>, Error> {
    Csb::from_csb_arrays(4, 4, 2, blk_ptr, row_idx, col_idx, vals)
}

#[test]
fn raw_arrays_are_validated() {
    let ok = raw(
        vec![0, 2, 3, 3, 4],
        vec![0, 1, 0, 3],
        vec![1, 0, 3, 2],
        vec![1.0; 4],
    )
    .unwrap();
    assert_eq!(ok.entries()[3], (vec![3, 2], 1.0));
    let bp = || vec![0u32, 2, 3, 3, 4];
    let vals = || vec![1.0; 4];

    // An entry in the wrong block: column 1 under block (0, 1); row 1 under block (1, 1).
    let (level, detail) = invalid(raw(bp(), vec![0, 1, 0, 3], vec![1, 0, 1, 2], vals()));
    assert_eq!(level, 3, "{detail}");
    assert!(detail.contains("block column 0"), "{detail}");
    let (level, detail) = invalid(raw(bp(), vec![0, 1, 0, 1], vec![1, 0, 3, 2], vals()));
    assert_eq!(level, 2, "{detail}");
    assert!(detail.contains("block row 0"), "{detail}");
    // Every entry in the wrong block, though sorted and in range: (0, 0)'s entries in (0, 1).
    let (level, _) = invalid(raw(
        vec![0, 0, 2, 2, 2],
        vec![0, 1],
        vec![1, 0],
        vec![1.0; 2],
    ));
    assert_eq!(level, 3);

    // Unsorted within a block: rows decreasing; columns decreasing within a row.
    let (level, detail) = invalid(raw(bp(), vec![1, 0, 0, 3], vec![0, 1, 3, 2], vals()));
    assert_eq!(level, 2);
    assert!(detail.contains("non-decreasing"), "{detail}");
    let (level, detail) = invalid(raw(
        vec![0, 2, 2, 2, 2],
        vec![0, 0],
        vec![1, 0],
        vec![1.0; 2],
    ));
    assert_eq!(level, 3);
    assert!(detail.contains("strictly increasing"), "{detail}");
    // A duplicate (i, j) within a block.
    let (level, detail) = invalid(raw(
        vec![0, 2, 2, 2, 2],
        vec![1, 1],
        vec![0, 0],
        vec![1.0; 2],
    ));
    assert_eq!(level, 3);
    assert!(detail.contains("strictly increasing"), "{detail}");

    // blk_ptr: wrong length (too short, too long), non-monotone, not starting at 0,
    // not ending at the entry count.
    for bad in [
        vec![0, 2, 3, 4],
        vec![0, 2, 3, 3, 4, 4],
        vec![0, 3, 2, 3, 4],
        vec![1, 2, 3, 3, 4],
        vec![0, 2, 3, 3, 3],
    ] {
        let (level, detail) = invalid(raw(bad.clone(), vec![0, 1, 0, 3], vec![1, 0, 3, 2], vals()));
        assert_eq!(level, 2, "{bad:?}: {detail}");
    }

    // Coordinates out of range.
    let (level, detail) = invalid(raw(bp(), vec![0, 1, 0, 4], vec![1, 0, 3, 2], vals()));
    assert_eq!(level, 2);
    assert!(detail.contains("not below"), "{detail}");
    let (level, detail) = invalid(raw(bp(), vec![0, 1, 0, 3], vec![1, 0, 4, 2], vals()));
    assert_eq!(level, 3);
    assert!(detail.contains("not below"), "{detail}");

    // Length mismatches: col_idx, vals.
    let (level, _) = invalid(raw(bp(), vec![0, 1, 0, 3], vec![1, 0, 3], vals()));
    assert_eq!(level, 3);
    let (level, _) = invalid(raw(bp(), vec![0, 1, 0, 3], vec![1, 0, 3, 2, 0], vals()));
    assert_eq!(level, 3);
    assert!(matches!(
        raw(bp(), vec![0, 1, 0, 3], vec![1, 0, 3, 2], vec![1.0; 3]),
        Err(Error::LengthMismatch {
            what: "vals",
            expected: 4,
            found: 3
        })
    ));

    // Block size 0.
    let zero =
        Csb::<f64>::from_csb_arrays(4, 4, 0, bp(), vec![0, 1, 0, 3], vec![1, 0, 3, 2], vals());
    assert!(
        matches!(zero, Err(Error::NotRepresentable { .. })),
        "{zero:?}"
    );
    // A dimension that does not fit the index type.
    let wide = Csb::<f64>::from_csb_arrays(
        1 << 33,
        1,
        1 << 20,
        vec![0; (1 << 13) + 1],
        vec![],
        vec![],
        vec![],
    );
    assert!(
        matches!(
            wide,
            Err(Error::IndexOverflow {
                index_type: "u32",
                ..
            })
        ),
        "{wide:?}"
    );
}

#[test]
fn from_entries_errors() {
    let none = || std::iter::empty::<([usize; 2], f64)>();
    assert!(matches!(
        Csb::<f64>::from_entries_with_block(&[2, 2], 0, none()),
        Err(Error::NotRepresentable { .. })
    ));
    assert!(matches!(
        Csb::<f64>::from_entries(&[2, 2, 2], [([0, 0, 0], 1.0)]),
        Err(Error::OrderMismatch {
            expected: 2,
            found: 3
        })
    ));
    assert!(matches!(
        Csb::<f64>::from_entries(&[2, 2], [([0, 0, 0], 1.0)]),
        Err(Error::OrderMismatch {
            expected: 2,
            found: 3
        })
    ));
    assert!(matches!(
        Csb::<f64>::from_entries(&[2, 3], [([0, 3], 1.0)]),
        Err(Error::CoordinateOutOfBounds { .. })
    ));
    // nb * mb overflows usize; a representable but unallocatable block count.
    let huge = Csb::<f64, usize>::from_entries_with_block(&[usize::MAX, usize::MAX], 1, none());
    assert!(
        matches!(huge, Err(Error::NotRepresentable { .. })),
        "{huge:?}"
    );
    let huge = Csb::<f64, usize>::from_csb_arrays(
        usize::MAX,
        usize::MAX,
        1,
        vec![0],
        vec![],
        vec![],
        vec![],
    );
    assert!(
        matches!(huge, Err(Error::NotRepresentable { .. })),
        "{huge:?}"
    );
    let big = Csb::<f64, u64>::from_entries_with_block(&[1 << 40, 1 << 20], 1, none());
    assert!(
        matches!(big, Err(Error::NotRepresentable { .. })),
        "{big:?}"
    );
    // A dimension that does not fit u32 (the default index type).
    let wide = Csb::<f64>::from_entries(&[1 << 33, 1], none());
    assert!(matches!(wide, Err(Error::IndexOverflow { .. })), "{wide:?}");
}
