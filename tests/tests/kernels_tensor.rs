//! Higher-order kernels against a dense oracle: TTV, TTM, MTTKRP, the sum of
//! three order-3 tensors into a CSF output, and blocked SpMV written as an
//! order-4 kernel over `(Dense, Compressed, Dense, Dense)` (BCSR).
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// Sizes of the extra (non-tensor-shape) mode of TTM and MTTKRP.
const EXTRA: [usize; 3] = [0, 1, 4];

/// Entries of operand `k` of a case over `shape`.
fn operand(shape: &[usize], density: f64, seed: u64, case: &[usize], k: u64) -> Entries<f64> {
    let d = if k == 0 {
        density
    } else {
        other_density(density, seed, k)
    };
    random_entries(shape, d, case_seed(seed, case, k))
}

/// TTV `a(i,j) = b(i,j,k) * c(k)` for one output, tensor and vector format.
macro_rules! ttv_case {
    ($name:ident, [$($A:tt)*], [$($B:tt)*], [$($C:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn ttv(a: &mut $($A)*, b: &$($B)*, c: &$($C)*) {
                    a(i, j) = b(i, j, k) * c(k)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in TENSOR3_SHAPES {
                    sweep(|density, seed| {
                        let [m, n, p] = shape;
                        let be = operand(&shape, density, seed, &shape, 0);
                        let ce = operand(&[p], density, seed, &shape, 1);
                        let b: $($B)* = build(&shape, &be);
                        let c: $($C)* = build(&[p], &ce);
                        let (bd, cd) = (DenseT::from_entries(&shape, &be), DenseT::from_entries(&[p], &ce));
                        let mut expected = DenseT::zeros(&[m, n]);
                        for i in 0..m {
                            for j in 0..n {
                                let mut s = 0.0;
                                for k in 0..p {
                                    s += bd.get(&[i, j, k]) * cd.get(&[k]);
                                }
                                expected.set(&[i, j], s);
                            }
                        }
                        let mut a: $($A)* = build(&[m, n], &nonzero_entries(&[m, n], seed));
                        ttv(&mut a, &b, &c).unwrap();
                        assert_close(&a.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let b: $($B)* = build(&[2, 3, 4], &random_entries(&[2, 3, 4], 0.5, 1));
                let c: $($C)* = build(&[4], &random_entries(&[4], 1.0, 2));
                let c_bad: $($C)* = build(&[3], &random_entries(&[3], 1.0, 2));
                let mut a: $($A)* = build(&[2, 3], &[]);
                assert!(ttv(&mut a, &b, &c_bad).is_err());
                let mut a_bad: $($A)* = build(&[3, 2], &[]);
                assert!(ttv(&mut a_bad, &b, &c).is_err());
                assert!(ttv(&mut a, &b, &c).is_ok());
            }
        }
    };
}

ttv_case!(
    ttv_csf3_into_dense2,
    [Dense2<f64>],
    [Csf3<f64>],
    [Dense1<f64>]
);
ttv_case!(ttv_csf3_into_csr, [Csr<f64>], [Csf3<f64>], [Dense1<f64>]);
ttv_case!(
    ttv_coo3_into_dense2,
    [Dense2<f64>],
    [Coo3<f64>],
    [Dense1<f64>]
);
ttv_case!(ttv_coo3_into_csr, [Csr<f64>], [Coo3<f64>], [Dense1<f64>]);
ttv_case!(
    ttv_csf3_sparse_c_into_dense2,
    [Dense2<f64>],
    [Csf3<f64>],
    [SparseVec<f64>]
);
ttv_case!(
    ttv_coo3_sparse_c_into_csr,
    [Csr<f64>],
    [Coo3<f64>],
    [SparseVec<f64>]
);
ttv_case!(
    ttv_dense3_into_dense2,
    [Dense2<f64>],
    [Dense3<f64>],
    [Dense1<f64>]
);

/// TTM `a(i,j,k) = b(i,j,l) * c(k,l)` for one tensor format; `a` is Dense3,
/// `c` Dense2.
macro_rules! ttm_case {
    ($name:ident, [$($B:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn ttm(a: &mut Dense3<f64>, b: &$($B)*, c: &Dense2<f64>) {
                    a(i, j, k) = b(i, j, l) * c(k, l)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in TENSOR3_SHAPES {
                    for q in EXTRA {
                        sweep(|density, seed| {
                            let [m, n, p] = shape;
                            let case = [m, n, p, q];
                            let be = operand(&shape, density, seed, &case, 0);
                            let ce = operand(&[q, p], density, seed, &case, 1);
                            let b: $($B)* = build(&shape, &be);
                            let c: Dense2<f64> = build(&[q, p], &ce);
                            let (bd, cd) = (DenseT::from_entries(&shape, &be), DenseT::from_entries(&[q, p], &ce));
                            let mut expected = DenseT::zeros(&[m, n, q]);
                            for i in 0..m {
                                for j in 0..n {
                                    for k in 0..q {
                                        let mut s = 0.0;
                                        for l in 0..p {
                                            s += bd.get(&[i, j, l]) * cd.get(&[k, l]);
                                        }
                                        expected.set(&[i, j, k], s);
                                    }
                                }
                            }
                            let mut a: Dense3<f64> = build(&[m, n, q], &nonzero_entries(&[m, n, q], seed));
                            ttm(&mut a, &b, &c).unwrap();
                            assert_close(&a.to_dense(), &expected, f64::TOL, (case, density, seed));
                        });
                    }
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let b: $($B)* = build(&[2, 3, 4], &random_entries(&[2, 3, 4], 0.5, 1));
                let c_bad = Dense2::<f64>::zeros(5, 3);
                let mut a = Dense3::<f64>::zeros(2, 3, 5);
                assert!(ttm(&mut a, &b, &c_bad).is_err());
                let c = Dense2::<f64>::zeros(5, 4);
                let mut a_bad = Dense3::<f64>::zeros(2, 3, 4);
                assert!(ttm(&mut a_bad, &b, &c).is_err());
                assert!(ttm(&mut a, &b, &c).is_ok());
            }
        }
    };
}

ttm_case!(ttm_csf3, [Csf3<f64>]);
ttm_case!(ttm_coo3, [Coo3<f64>]);
ttm_case!(ttm_dense3, [Dense3<f64>]);

/// MTTKRP `a(i,j) = b(i,k,l) * c(k,j) * d(l,j)` for one tensor format; `a`,
/// `c`, `d` are Dense2.
macro_rules! mttkrp_case {
    ($name:ident, [$($B:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn mttkrp(a: &mut Dense2<f64>, b: &$($B)*, c: &Dense2<f64>, d: &Dense2<f64>) {
                    a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in TENSOR3_SHAPES {
                    for r in EXTRA {
                        sweep(|density, seed| {
                            let [m, p, q] = shape;
                            let case = [m, p, q, r];
                            let be = operand(&shape, density, seed, &case, 0);
                            let ce = operand(&[p, r], density, seed, &case, 1);
                            let de = operand(&[q, r], density, seed, &case, 2);
                            let b: $($B)* = build(&shape, &be);
                            let c: Dense2<f64> = build(&[p, r], &ce);
                            let d: Dense2<f64> = build(&[q, r], &de);
                            let (bd, cd, dd) = (
                                DenseT::from_entries(&shape, &be),
                                DenseT::from_entries(&[p, r], &ce),
                                DenseT::from_entries(&[q, r], &de),
                            );
                            let mut expected = DenseT::zeros(&[m, r]);
                            for i in 0..m {
                                for j in 0..r {
                                    let mut s = 0.0;
                                    for k in 0..p {
                                        for l in 0..q {
                                            s += bd.get(&[i, k, l]) * cd.get(&[k, j]) * dd.get(&[l, j]);
                                        }
                                    }
                                    expected.set(&[i, j], s);
                                }
                            }
                            let mut a: Dense2<f64> = build(&[m, r], &nonzero_entries(&[m, r], seed));
                            mttkrp(&mut a, &b, &c, &d).unwrap();
                            assert_close(&a.to_dense(), &expected, f64::TOL, (case, density, seed));
                        });
                    }
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let b: $($B)* = build(&[2, 3, 4], &random_entries(&[2, 3, 4], 0.5, 1));
                let c = Dense2::<f64>::zeros(3, 5);
                let d = Dense2::<f64>::zeros(4, 5);
                let d_bad = Dense2::<f64>::zeros(4, 6);
                let mut a = Dense2::<f64>::zeros(2, 5);
                assert!(mttkrp(&mut a, &b, &c, &d_bad).is_err());
                assert!(mttkrp(&mut a, &b, &d, &c).is_err());
                assert!(mttkrp(&mut a, &b, &c, &d).is_ok());
            }
        }
    };
}

mttkrp_case!(mttkrp_csf3, [Csf3<f64>]);
mttkrp_case!(mttkrp_coo3, [Coo3<f64>]);

/// `a(i,j,k) = b(i,j,k) + c(i,j,k) + d(i,j,k)` for one combination of formats.
macro_rules! add3_case {
    ($name:ident, [$($A:tt)*], [$($B:tt)*], [$($C:tt)*], [$($D:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn add3(a: &mut $($A)*, b: &$($B)*, c: &$($C)*, d: &$($D)*) {
                    a(i, j, k) = b(i, j, k) + c(i, j, k) + d(i, j, k)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in TENSOR3_SHAPES {
                    sweep(|density, seed| {
                        let be = operand(&shape, density, seed, &shape, 0);
                        let ce = operand(&shape, density, seed, &shape, 1);
                        let de = operand(&shape, density, seed, &shape, 2);
                        let b: $($B)* = build(&shape, &be);
                        let c: $($C)* = build(&shape, &ce);
                        let d: $($D)* = build(&shape, &de);
                        let (bd, cd, dd) = (
                            DenseT::from_entries(&shape, &be),
                            DenseT::from_entries(&shape, &ce),
                            DenseT::from_entries(&shape, &de),
                        );
                        let mut expected = DenseT::zeros(&shape);
                        for i in 0..shape[0] {
                            for j in 0..shape[1] {
                                for k in 0..shape[2] {
                                    let at = [i, j, k];
                                    expected.set(&at, bd.get(&at) + cd.get(&at) + dd.get(&at));
                                }
                            }
                        }
                        let mut a: $($A)* = build(&shape, &random_entries(&shape, 0.5, seed ^ 0x57a1e));
                        add3(&mut a, &b, &c, &d).unwrap();
                        assert_close(&a.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let b: $($B)* = build(&[2, 3, 4], &random_entries(&[2, 3, 4], 0.5, 1));
                let c: $($C)* = build(&[2, 3, 4], &random_entries(&[2, 3, 4], 0.5, 2));
                let d_bad: $($D)* = build(&[2, 4, 4], &random_entries(&[2, 4, 4], 0.5, 3));
                let mut a: $($A)* = build(&[2, 3, 4], &[]);
                assert!(add3(&mut a, &b, &c, &d_bad).is_err());
            }
        }
    };
}

add3_case!(add3_fff, [Csf3<f64>], [Csf3<f64>], [Csf3<f64>], [Csf3<f64>]);
add3_case!(add3_ffc, [Csf3<f64>], [Csf3<f64>], [Csf3<f64>], [Coo3<f64>]);
add3_case!(add3_fcf, [Csf3<f64>], [Csf3<f64>], [Coo3<f64>], [Csf3<f64>]);
add3_case!(add3_fcc, [Csf3<f64>], [Csf3<f64>], [Coo3<f64>], [Coo3<f64>]);
add3_case!(add3_cff, [Csf3<f64>], [Coo3<f64>], [Csf3<f64>], [Csf3<f64>]);
add3_case!(add3_cfc, [Csf3<f64>], [Coo3<f64>], [Csf3<f64>], [Coo3<f64>]);
add3_case!(add3_ccf, [Csf3<f64>], [Coo3<f64>], [Coo3<f64>], [Csf3<f64>]);
add3_case!(add3_ccc, [Csf3<f64>], [Coo3<f64>], [Coo3<f64>], [Coo3<f64>]);
add3_case!(
    add3_ccc_into_dense3,
    [Dense3<f64>],
    [Coo3<f64>],
    [Coo3<f64>],
    [Coo3<f64>]
);

/// Blocked SpMV: BCSR as the order-4 tensor `A(i,j,k,l)` (block row, block
/// column, row in block, column in block).
type Bcsr = Tensor<f64, (Dense, Compressed, Dense, Dense)>;

sparse_kernel! {
    pub fn bcsr_spmv(y: &mut Dense2<f64>, a: &Tensor<f64, (Dense, Compressed, Dense, Dense)>, x: &Dense2<f64>) {
        y(i, k) = a(i, j, k, l) * x(j, l)
    }

    pub fn bcsr_spmv_acc(y: &mut Dense2<f64>, a: &Tensor<f64, (Dense, Compressed, Dense, Dense)>, x: &Dense2<f64>) {
        y(i, k) += a(i, j, k, l) * x(j, l)
    }
}

/// Block sizes (rows x columns in a block).
const BLOCKS: [[usize; 2]; 4] = [[1, 1], [2, 3], [3, 2], [0, 2]];

/// Block-sparse entries: a random block pattern, each present block filled
/// with random values (some explicit zeros).
fn block_entries(shape: [usize; 4], density: f64, seed: u64) -> Entries<f64> {
    let [bi, bj, bk, bl] = shape;
    let pattern: Entries<f64> = random_entries(&[bi, bj], density, seed);
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for (c, _) in pattern {
        for k in 0..bk {
            for l in 0..bl {
                let v = if rng.chance(0.2) {
                    0.0
                } else {
                    f64::random(&mut rng)
                };
                out.push((vec![c[0], c[1], k, l], v));
            }
        }
    }
    out
}

#[test]
fn blocked_spmv_matches_oracle() {
    for [bi, bj] in MATRIX_SHAPES {
        for [bk, bl] in BLOCKS {
            sweep(|density, seed| {
                let shape = [bi, bj, bk, bl];
                let ae = block_entries(shape, density, case_seed(seed, &shape, 0));
                let xe = random_entries(
                    &[bj, bl],
                    other_density(density, seed, 1),
                    case_seed(seed, &shape, 1),
                );
                let a: Bcsr = build(&shape, &ae);
                let x: Dense2<f64> = build(&[bj, bl], &xe);
                let (ad, xd) = (
                    DenseT::from_entries(&shape, &ae),
                    DenseT::from_entries(&[bj, bl], &xe),
                );
                let mut expected = DenseT::zeros(&[bi, bk]);
                for i in 0..bi {
                    for k in 0..bk {
                        let mut s = 0.0;
                        for j in 0..bj {
                            for l in 0..bl {
                                s += ad.get(&[i, j, k, l]) * xd.get(&[j, l]);
                            }
                        }
                        expected.set(&[i, k], s);
                    }
                }
                let case = (shape, density, seed);
                let y0 = nonzero_entries(&[bi, bk], seed);
                let mut y: Dense2<f64> = build(&[bi, bk], &y0);
                bcsr_spmv(&mut y, &a, &x).unwrap();
                assert_close(&y.to_dense(), &expected, f64::TOL, case);

                let mut y: Dense2<f64> = build(&[bi, bk], &y0);
                let mut acc = DenseT::from_entries(&[bi, bk], &y0);
                for (v, e) in acc.data.iter_mut().zip(&expected.data) {
                    *v += e;
                }
                bcsr_spmv_acc(&mut y, &a, &x).unwrap();
                assert_close(&y.to_dense(), &acc, f64::TOL, case);
            });
        }
    }
}

#[test]
fn blocked_spmv_shape_mismatch_is_err() {
    let a: Bcsr = build(&[3, 4, 2, 2], &block_entries([3, 4, 2, 2], 0.5, 1));
    let x = Dense2::<f64>::zeros(4, 2);
    let mut y = Dense2::<f64>::zeros(3, 2);
    assert!(bcsr_spmv(&mut y, &a, &Dense2::zeros(4, 3)).is_err());
    assert!(bcsr_spmv(&mut y, &a, &Dense2::zeros(5, 2)).is_err());
    assert!(bcsr_spmv(&mut Dense2::zeros(3, 3), &a, &x).is_err());
    assert!(bcsr_spmv(&mut y, &a, &x).is_ok());
}
