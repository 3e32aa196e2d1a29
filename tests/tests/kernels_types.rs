//! Value types other than f64: the same kernels over f32 (relative tolerance
//! 1e-4) and i64 (small values, compared exactly).
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// SpMV for one value type and formats.
macro_rules! spmv_case {
    ($name:ident, $V:ident, [$($A:tt)*], [$($X:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn spmv(y: &mut Dense1<$V>, a: &$($A)*, x: &$($X)*) {
                    y(i) = a(i, j) * x(j)
                }
            }

            /// Operands of one case and the oracle's `A x`.
            pub(super) fn operands(shape: [usize; 2], density: f64, seed: u64) -> ($($A)*, $($X)*, DenseT<$V>) {
                let [_, n] = shape;
                let ae: Entries<$V> = random_entries(&shape, density, case_seed(seed, &shape, 0));
                let xe: Entries<$V> = random_entries(&[n], other_density(density, seed, 1), case_seed(seed, &shape, 1));
                let ax = matvec(&DenseT::from_entries(&shape, &ae), &DenseT::from_entries(&[n], &xe));
                (build(&shape, &ae), build(&[n], &xe), ax)
            }

            #[test]
            fn matches_oracle() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (a, x, ax) = operands(shape, density, seed);
                        let mut y: Dense1<$V> = build(&[shape[0]], &nonzero_entries(&[shape[0]], seed));
                        spmv(&mut y, &a, &x).unwrap();
                        assert_close(&y.to_dense(), &ax, <$V>::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let a: $($A)* = build(&[3, 4], &random_entries::<$V>(&[3, 4], 0.5, 1));
                let x: $($X)* = build(&[5], &random_entries::<$V>(&[5], 1.0, 2));
                let mut y = Dense1::<$V>::zeros(3);
                assert!(spmv(&mut y, &a, &x).is_err());
            }

        }
    };
}

/// `y = alpha A x + beta z` (z sparse, alpha and beta scalar parameters),
/// reusing the operands of the SpMV case `$spmv`.
macro_rules! axpby_case {
    ($name:ident, $spmv:ident, $V:ident, [$($A:tt)*], [$($X:tt)*]) => {
        mod $name {
            use super::*;
            use super::$spmv::operands;

            sparse_kernel! {
                pub fn axpby(y: &mut Dense1<$V>, alpha: $V, a: &$($A)*, x: &$($X)*, beta: $V, z: &SparseVec<$V>) {
                    y(i) = alpha * a(i, j) * x(j) + beta * z(i)
                }
            }

            #[test]
            fn scaled_matches_oracle() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let m = shape[0];
                        let (a, x, ax) = operands(shape, density, seed);
                        let ze: Entries<$V> = random_entries(&[m], other_density(density, seed, 2), case_seed(seed, &shape, 2));
                        let z: SparseVec<$V> = build(&[m], &ze);
                        let (alpha, beta) = (<$V>::from_f64(3.0), <$V>::from_f64(-2.0));
                        let zd = DenseT::from_entries(&[m], &ze);
                        let mut expected = DenseT::zeros(&[m]);
                        for i in 0..m {
                            expected.set(&[i], alpha * ax.get(&[i]) + beta * zd.get(&[i]));
                        }
                        let mut y: Dense1<$V> = build(&[m], &nonzero_entries(&[m], seed));
                        axpby(&mut y, alpha, &a, &x, beta, &z).unwrap();
                        assert_close(&y.to_dense(), &expected, <$V>::TOL, (shape, density, seed));
                    });
                }
            }
        }
    };
}

/// `c(i,j) = a(i,j) OP b(i,j)` for one value type and formats.
macro_rules! binop_case {
    ($name:ident, $V:ident, $op:tt, [$($C:tt)*], [$($A:tt)*], [$($B:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn kernel(c: &mut $($C)*, a: &$($A)*, b: &$($B)*) {
                    c(i, j) = a(i, j) $op b(i, j)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let ae: Entries<$V> = random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let be: Entries<$V> = random_entries(&shape, other_density(density, seed, 1), case_seed(seed, &shape, 1));
                        let a: $($A)* = build(&shape, &ae);
                        let b: $($B)* = build(&shape, &be);
                        let (ad, bd) = (DenseT::from_entries(&shape, &ae), DenseT::from_entries(&shape, &be));
                        let mut expected = DenseT::zeros(&shape);
                        for i in 0..shape[0] {
                            for j in 0..shape[1] {
                                expected.set(&[i, j], ad.get(&[i, j]) $op bd.get(&[i, j]));
                            }
                        }
                        let mut c: $($C)* = build(&shape, &random_entries::<$V>(&shape, 0.5, seed));
                        kernel(&mut c, &a, &b).unwrap();
                        assert_close(&c.to_dense(), &expected, <$V>::TOL, (shape, density, seed));
                    });
                }
            }
        }
    };
}

/// `out = b(i) * c(i)` and SpMM `c(i,j) = a(i,k) * b(k,j)` for one value type.
macro_rules! products_case {
    ($name:ident, $V:ident) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn dot(out: &mut $V, b: &SparseVec<$V>, c: &Dense1<$V>) {
                    out = b(i) * c(i)
                }

                pub fn spmm(c: &mut Dense2<$V>, a: &Csr<$V>, b: &Dense2<$V>) {
                    c(i, j) = a(i, k) * b(k, j)
                }

                pub fn ttv(a: &mut Csr<$V>, b: &Csf3<$V>, c: &Dense1<$V>) {
                    a(i, j) = b(i, j, k) * c(k)
                }
            }

            #[test]
            fn dot_matches_oracle() {
                for n in VECTOR_LENGTHS {
                    sweep(|density, seed| {
                        let be: Entries<$V> =
                            random_entries(&[n], density, case_seed(seed, &[n], 0));
                        let ce: Entries<$V> = random_entries(
                            &[n],
                            other_density(density, seed, 1),
                            case_seed(seed, &[n], 1),
                        );
                        let (bd, cd) = (
                            DenseT::from_entries(&[n], &be),
                            DenseT::from_entries(&[n], &ce),
                        );
                        let mut expected = <$V>::from_f64(0.0);
                        for i in 0..n {
                            expected += bd.get(&[i]) * cd.get(&[i]);
                        }
                        let mut out = <$V>::from_f64(1.0);
                        dot(&mut out, &build(&[n], &be), &build(&[n], &ce)).unwrap();
                        assert_scalar_close(out, expected, <$V>::TOL, (n, density, seed));
                    });
                }
            }

            #[test]
            fn spmm_matches_oracle() {
                for [m, k] in MATRIX_SHAPES {
                    for n in [0, 1, 4] {
                        sweep(|density, seed| {
                            let s = case_seed(seed, &[m, k, n], 0);
                            let ae: Entries<$V> = random_entries(&[m, k], density, s);
                            let be: Entries<$V> =
                                random_entries(&[k, n], other_density(density, seed, 1), s + 1);
                            let (ad, bd) = (
                                DenseT::from_entries(&[m, k], &ae),
                                DenseT::from_entries(&[k, n], &be),
                            );
                            let mut expected = DenseT::zeros(&[m, n]);
                            for i in 0..m {
                                for j in 0..n {
                                    let mut acc = <$V>::from_f64(0.0);
                                    for l in 0..k {
                                        acc += ad.get(&[i, l]) * bd.get(&[l, j]);
                                    }
                                    expected.set(&[i, j], acc);
                                }
                            }
                            let mut c: Dense2<$V> = build(&[m, n], &nonzero_entries(&[m, n], seed));
                            spmm(&mut c, &build(&[m, k], &ae), &build(&[k, n], &be)).unwrap();
                            assert_close(
                                &c.to_dense(),
                                &expected,
                                <$V>::TOL,
                                ([m, k, n], density, seed),
                            );
                        });
                    }
                }
            }

            #[test]
            fn ttv_matches_oracle() {
                for shape in TENSOR3_SHAPES {
                    sweep(|density, seed| {
                        let [m, n, p] = shape;
                        let be: Entries<$V> =
                            random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let ce: Entries<$V> = random_entries(
                            &[p],
                            other_density(density, seed, 1),
                            case_seed(seed, &shape, 1),
                        );
                        let (bd, cd) = (
                            DenseT::from_entries(&shape, &be),
                            DenseT::from_entries(&[p], &ce),
                        );
                        let mut expected = DenseT::zeros(&[m, n]);
                        for i in 0..m {
                            for j in 0..n {
                                let mut acc = <$V>::from_f64(0.0);
                                for k in 0..p {
                                    acc += bd.get(&[i, j, k]) * cd.get(&[k]);
                                }
                                expected.set(&[i, j], acc);
                            }
                        }
                        let mut a: Csr<$V> =
                            build(&[m, n], &random_entries::<$V>(&[m, n], 0.5, seed));
                        ttv(&mut a, &build(&shape, &be), &build(&[p], &ce)).unwrap();
                        assert_close(&a.to_dense(), &expected, <$V>::TOL, (shape, density, seed));
                    });
                }
            }
        }
    };
}

mod f32_kernels {
    use super::*;

    spmv_case!(spmv_csr, f32, [Csr<f32>], [Dense1<f32>]);
    axpby_case!(axpby_csr, spmv_csr, f32, [Csr<f32>], [Dense1<f32>]);
    spmv_case!(spmv_csc, f32, [Csc<f32>], [Dense1<f32>]);
    spmv_case!(spmv_dcsr, f32, [Dcsr<f32>], [Dense1<f32>]);
    spmv_case!(spmv_coo, f32, [Coo<f32>], [SparseVec<f32>]);
    axpby_case!(axpby_coo, spmv_coo, f32, [Coo<f32>], [SparseVec<f32>]);
    spmv_case!(spmv_dense2, f32, [Dense2<f32>], [SparseVec<f32>]);
    axpby_case!(
        axpby_dense2,
        spmv_dense2,
        f32,
        [Dense2<f32>],
        [SparseVec<f32>]
    );
    binop_case!(add_csr_coo, f32, +, [Csr<f32>], [Csr<f32>], [Coo<f32>]);
    binop_case!(sub_dcsr_dense2, f32, -, [Dense2<f32>], [Dcsr<f32>], [Dense2<f32>]);
    binop_case!(mul_coo_csr, f32, *, [Csr<f32>], [Coo<f32>], [Csr<f32>]);
    products_case!(products, f32);
}

mod i64_kernels {
    use super::*;

    spmv_case!(spmv_csr, i64, [Csr<i64>], [Dense1<i64>]);
    axpby_case!(axpby_csr, spmv_csr, i64, [Csr<i64>], [Dense1<i64>]);
    spmv_case!(spmv_csc, i64, [Csc<i64>], [Dense1<i64>]);
    spmv_case!(spmv_dcsr, i64, [Dcsr<i64>], [Dense1<i64>]);
    spmv_case!(spmv_coo, i64, [Coo<i64>], [SparseVec<i64>]);
    axpby_case!(axpby_coo, spmv_coo, i64, [Coo<i64>], [SparseVec<i64>]);
    spmv_case!(spmv_dense2, i64, [Dense2<i64>], [SparseVec<i64>]);
    axpby_case!(
        axpby_dense2,
        spmv_dense2,
        i64,
        [Dense2<i64>],
        [SparseVec<i64>]
    );
    binop_case!(add_csr_coo, i64, +, [Csr<i64>], [Csr<i64>], [Coo<i64>]);
    binop_case!(sub_dcsr_dense2, i64, -, [Dense2<i64>], [Dcsr<i64>], [Dense2<i64>]);
    binop_case!(mul_coo_csr, i64, *, [Csr<i64>], [Coo<i64>], [Csr<i64>]);
    products_case!(products, i64);
}
