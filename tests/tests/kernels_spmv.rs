//! Matrix-vector kernels against a dense oracle: SpMV in every matrix format
//! with dense and sparse vectors, the scaled form `alpha A x + beta z`, and
//! the residual `b - A x`.
//!
//! Every case sweeps [`MATRIX_SHAPES`] x [`DENSITIES`] x [`SEEDS`]; each
//! operand is built from the same random entries as the oracle.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// A dense output vector of length `n` holding non-zero garbage.
fn garbage(n: usize, seed: u64) -> Dense1<f64> {
    build(&[n], &nonzero_entries(&[n], seed ^ 0x9a7b))
}

/// Random operands of one case: the matrix entries and a vector's entries.
fn operands(shape: [usize; 2], density: f64, seed: u64) -> (Entries<f64>, Entries<f64>) {
    let a = random_entries(&shape, density, case_seed(seed, &shape, 0));
    let x = random_entries(
        &shape[1..],
        other_density(density, seed, 1),
        case_seed(seed, &shape, 1),
    );
    (a, x)
}

/// SpMV `y(i) = a(i,j) * x(j)` (and its `+=` form) for one matrix format
/// and one vector format.
macro_rules! spmv_case {
    ($name:ident, [$($A:tt)*], [$($X:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn spmv(y: &mut Dense1<f64>, a: &$($A)*, x: &$($X)*) {
                    y(i) = a(i, j) * x(j)
                }

                pub fn spmv_acc(y: &mut Dense1<f64>, a: &$($A)*, x: &$($X)*) {
                    y(i) += a(i, j) * x(j);
                }
            }

            #[test]
            fn overwrites_dense_output() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (ae, xe) = operands(shape, density, seed);
                        let a: $($A)* = build(&shape, &ae);
                        let x: $($X)* = build(&shape[1..], &xe);
                        let expected = matvec(
                            &DenseT::from_entries(&shape, &ae),
                            &DenseT::from_entries(&shape[1..], &xe),
                        );
                        let mut y = garbage(shape[0], seed);
                        spmv(&mut y, &a, &x).unwrap();
                        assert_close(&y.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn accumulates_into_dense_output() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (ae, xe) = operands(shape, density, seed);
                        let a: $($A)* = build(&shape, &ae);
                        let x: $($X)* = build(&shape[1..], &xe);
                        let mut y = garbage(shape[0], seed);
                        let mut expected = matvec(
                            &DenseT::from_entries(&shape, &ae),
                            &DenseT::from_entries(&shape[1..], &xe),
                        );
                        for (e, y0) in expected.data.iter_mut().zip(y.as_slice()) {
                            *e += y0;
                        }
                        spmv_acc(&mut y, &a, &x).unwrap();
                        assert_close(&y.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let ae = random_entries(&[3, 4], 0.5, 7);
                let a: $($A)* = build(&[3, 4], &ae);
                let x: $($X)* = build(&[4], &random_entries(&[4], 1.0, 8));
                let short: $($X)* = build(&[5], &random_entries(&[5], 1.0, 8));
                let mut y = Dense1::<f64>::zeros(3);
                assert!(spmv(&mut y, &a, &short).is_err());
                assert!(spmv_acc(&mut y, &a, &short).is_err());
                let mut wrong_y = Dense1::<f64>::zeros(2);
                assert!(spmv(&mut wrong_y, &a, &x).is_err());
                assert!(spmv_acc(&mut wrong_y, &a, &x).is_err());
                let mut empty_y = Dense1::<f64>::zeros(0);
                assert!(spmv(&mut empty_y, &a, &x).is_err());
                assert!(spmv(&mut y, &a, &x).is_ok());
            }
        }
    };
}

spmv_case!(csr_dense1, [Csr<f64>], [Dense1<f64>]);
spmv_case!(csc_dense1, [Csc<f64>], [Dense1<f64>]);
spmv_case!(dcsr_dense1, [Dcsr<f64>], [Dense1<f64>]);
spmv_case!(coo_dense1, [Coo<f64>], [Dense1<f64>]);
spmv_case!(dense2_dense1, [Dense2<f64>], [Dense1<f64>]);
spmv_case!(csr_sparsevec, [Csr<f64>], [SparseVec<f64>]);
spmv_case!(csc_sparsevec, [Csc<f64>], [SparseVec<f64>]);
spmv_case!(dcsr_sparsevec, [Dcsr<f64>], [SparseVec<f64>]);
spmv_case!(coo_sparsevec, [Coo<f64>], [SparseVec<f64>]);
spmv_case!(dense2_sparsevec, [Dense2<f64>], [SparseVec<f64>]);
spmv_case!(
    csc_spelled_as_tensor,
    [Tensor<f64, (Dense, Compressed), Modes<1, 0>>],
    [Dense1<f64>]
);
spmv_case!(
    csr_usize_index,
    [Tensor<f64, (Dense, Compressed<usize>)>],
    [Dense1<f64>]
);

/// `y(i) = alpha * a(i,j) * x(j) + beta * z(i)` for one format triple.
macro_rules! scaled_case {
    ($name:ident, [$($A:tt)*], [$($X:tt)*], [$($Z:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn axpby(
                    y: &mut Dense1<f64>,
                    alpha: f64,
                    a: &$($A)*,
                    x: &$($X)*,
                    beta: f64,
                    z: &$($Z)*,
                ) {
                    y(i) = alpha * a(i, j) * x(j) + beta * z(i)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (ae, xe) = operands(shape, density, seed);
                        let ze = random_entries(
                            &shape[..1],
                            other_density(density, seed, 2),
                            case_seed(seed, &shape, 2),
                        );
                        let (alpha, beta) = (1.5 + seed as f64 % 3.0, -0.75);
                        let a: $($A)* = build(&shape, &ae);
                        let x: $($X)* = build(&shape[1..], &xe);
                        let z: $($Z)* = build(&shape[..1], &ze);
                        let ax = matvec(
                            &DenseT::from_entries(&shape, &ae),
                            &DenseT::from_entries(&shape[1..], &xe),
                        );
                        let zd = DenseT::from_entries(&shape[..1], &ze);
                        let mut expected = DenseT::zeros(&shape[..1]);
                        for i in 0..shape[0] {
                            expected.set(&[i], alpha * ax.get(&[i]) + beta * zd.get(&[i]));
                        }
                        let mut y = garbage(shape[0], seed);
                        axpby(&mut y, alpha, &a, &x, beta, &z).unwrap();
                        assert_close(&y.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let a: $($A)* = build(&[3, 4], &random_entries(&[3, 4], 0.5, 7));
                let x: $($X)* = build(&[4], &random_entries(&[4], 1.0, 8));
                let z: $($Z)* = build(&[3], &random_entries(&[3], 1.0, 9));
                let z_long: $($Z)* = build(&[4], &random_entries(&[4], 1.0, 9));
                let mut y = Dense1::<f64>::zeros(3);
                assert!(axpby(&mut y, 1.0, &a, &x, 1.0, &z_long).is_err());
                assert!(axpby(&mut y, 1.0, &a, &x, 1.0, &z).is_ok());
            }
        }
    };
}

scaled_case!(
    scaled_csr_dense_dense,
    [Csr<f64>],
    [Dense1<f64>],
    [Dense1<f64>]
);
scaled_case!(
    scaled_csr_dense_sparse,
    [Csr<f64>],
    [Dense1<f64>],
    [SparseVec<f64>]
);
scaled_case!(
    scaled_dcsr_dense_dense,
    [Dcsr<f64>],
    [Dense1<f64>],
    [Dense1<f64>]
);
scaled_case!(
    scaled_dcsr_dense_sparse,
    [Dcsr<f64>],
    [Dense1<f64>],
    [SparseVec<f64>]
);
scaled_case!(
    scaled_coo_dense_dense,
    [Coo<f64>],
    [Dense1<f64>],
    [Dense1<f64>]
);
scaled_case!(
    scaled_coo_dense_sparse,
    [Coo<f64>],
    [Dense1<f64>],
    [SparseVec<f64>]
);
scaled_case!(
    scaled_dense2_dense_dense,
    [Dense2<f64>],
    [Dense1<f64>],
    [Dense1<f64>]
);
scaled_case!(
    scaled_dense2_dense_sparse,
    [Dense2<f64>],
    [Dense1<f64>],
    [SparseVec<f64>]
);
scaled_case!(
    scaled_csr_sparse_dense,
    [Csr<f64>],
    [SparseVec<f64>],
    [Dense1<f64>]
);
scaled_case!(
    scaled_csr_sparse_sparse,
    [Csr<f64>],
    [SparseVec<f64>],
    [SparseVec<f64>]
);
scaled_case!(
    scaled_coo_sparse_sparse,
    [Coo<f64>],
    [SparseVec<f64>],
    [SparseVec<f64>]
);

/// The residual `r(i) = b(i) - a(i,j) * x(j)` for one format triple.
macro_rules! residual_case {
    ($name:ident, [$($A:tt)*], [$($B:tt)*], [$($X:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn residual(r: &mut Dense1<f64>, b: &$($B)*, a: &$($A)*, x: &$($X)*) {
                    r(i) = b(i) - a(i, j) * x(j)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (ae, xe) = operands(shape, density, seed);
                        let be = random_entries(
                            &shape[..1],
                            other_density(density, seed, 2),
                            case_seed(seed, &shape, 2),
                        );
                        let a: $($A)* = build(&shape, &ae);
                        let x: $($X)* = build(&shape[1..], &xe);
                        let b: $($B)* = build(&shape[..1], &be);
                        let ax = matvec(
                            &DenseT::from_entries(&shape, &ae),
                            &DenseT::from_entries(&shape[1..], &xe),
                        );
                        let bd = DenseT::from_entries(&shape[..1], &be);
                        let mut expected = DenseT::zeros(&shape[..1]);
                        for i in 0..shape[0] {
                            expected.set(&[i], bd.get(&[i]) - ax.get(&[i]));
                        }
                        let mut r = garbage(shape[0], seed);
                        residual(&mut r, &b, &a, &x).unwrap();
                        assert_close(&r.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }
        }
    };
}

residual_case!(residual_csr_dense, [Csr<f64>], [Dense1<f64>], [Dense1<f64>]);
residual_case!(
    residual_csr_sparse,
    [Csr<f64>],
    [SparseVec<f64>],
    [Dense1<f64>]
);
residual_case!(
    residual_dcsr_dense,
    [Dcsr<f64>],
    [Dense1<f64>],
    [Dense1<f64>]
);
residual_case!(
    residual_dcsr_sparse,
    [Dcsr<f64>],
    [SparseVec<f64>],
    [Dense1<f64>]
);
residual_case!(residual_coo_dense, [Coo<f64>], [Dense1<f64>], [Dense1<f64>]);
residual_case!(
    residual_coo_sparse,
    [Coo<f64>],
    [SparseVec<f64>],
    [Dense1<f64>]
);
residual_case!(
    residual_dense2_dense,
    [Dense2<f64>],
    [Dense1<f64>],
    [Dense1<f64>]
);
residual_case!(
    residual_dense2_sparse,
    [Dense2<f64>],
    [SparseVec<f64>],
    [Dense1<f64>]
);
residual_case!(
    residual_csr_sparse_x,
    [Csr<f64>],
    [SparseVec<f64>],
    [SparseVec<f64>]
);

/// Further matrix-vector statements: transposed products, a tensor used
/// twice, a reduction over a sum, and literals, each against its own oracle.
macro_rules! mv_extra_case {
    (
        $name:ident, [$($Y:tt)*], [$($A:tt)*], [$($X:tt)*],
        x_len = $xl:expr, y_len = $yl:expr,
        $body:tt,
        $oracle:expr
    ) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn kernel(y: &mut $($Y)*, a: &$($A)*, x: &$($X)*) $body
            }

            #[test]
            fn matches_oracle() {
                let x_len: fn(usize, usize) -> usize = $xl;
                let y_len: fn(usize, usize) -> usize = $yl;
                let oracle: fn(&DenseT<f64>, &DenseT<f64>) -> DenseT<f64> = $oracle;
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let [m, n] = shape;
                        let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let xe = random_entries(
                            &[x_len(m, n)],
                            other_density(density, seed, 1),
                            case_seed(seed, &shape, 1),
                        );
                        let a: $($A)* = build(&shape, &ae);
                        let x: $($X)* = build(&[x_len(m, n)], &xe);
                        let expected = oracle(
                            &DenseT::from_entries(&shape, &ae),
                            &DenseT::from_entries(&[x_len(m, n)], &xe),
                        );
                        assert_eq!(expected.shape, [y_len(m, n)]);
                        let mut y: $($Y)* = build(&[y_len(m, n)], &nonzero_entries(&[y_len(m, n)], seed));
                        kernel(&mut y, &a, &x).unwrap();
                        assert_close(&y.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }
        }
    };
}

/// `y(j) = sum_i a(i,j) x(i)`.
fn transposed(a: &DenseT<f64>, x: &DenseT<f64>) -> DenseT<f64> {
    let mut y = DenseT::zeros(&[a.dim(1)]);
    for j in 0..a.dim(1) {
        let mut s = 0.0;
        for i in 0..a.dim(0) {
            s += a.get(&[i, j]) * x.get(&[i]);
        }
        y.set(&[j], s);
    }
    y
}

/// `y(i) = sum_j a(i,j)^2 x(j)`.
fn squared(a: &DenseT<f64>, x: &DenseT<f64>) -> DenseT<f64> {
    let mut y = DenseT::zeros(&[a.dim(0)]);
    for i in 0..a.dim(0) {
        let mut s = 0.0;
        for j in 0..a.dim(1) {
            s += a.get(&[i, j]) * a.get(&[i, j]) * x.get(&[j]);
        }
        y.set(&[i], s);
    }
    y
}

/// `y(i) = sum_j (a(i,j) + x(j))`.
fn summed_sum(a: &DenseT<f64>, x: &DenseT<f64>) -> DenseT<f64> {
    let mut y = DenseT::zeros(&[a.dim(0)]);
    for i in 0..a.dim(0) {
        let mut s = 0.0;
        for j in 0..a.dim(1) {
            s += a.get(&[i, j]) + x.get(&[j]);
        }
        y.set(&[i], s);
    }
    y
}

/// `y(i) = 2 (sum_j a(i,j) x(j)) + 1`.
fn affine(a: &DenseT<f64>, x: &DenseT<f64>) -> DenseT<f64> {
    let mut y = matvec(a, x);
    for v in &mut y.data {
        *v = 2.0 * *v + 1.0;
    }
    y
}

/// `y(i) = sum_j a(i,j) (x(j) + 1)`.
fn shifted(a: &DenseT<f64>, x: &DenseT<f64>) -> DenseT<f64> {
    let mut y = DenseT::zeros(&[a.dim(0)]);
    for i in 0..a.dim(0) {
        let mut s = 0.0;
        for j in 0..a.dim(1) {
            s += a.get(&[i, j]) * (x.get(&[j]) + 1.0);
        }
        y.set(&[i], s);
    }
    y
}

/// One family of extra statements over several formats `(y, a, x)`.
macro_rules! mv_extra_family {
    (
        $family:ident, x_len = $xl:expr, y_len = $yl:expr, $body:tt, $oracle:expr,
        [$($fmt:ident: [$($Y:tt)*], [$($A:tt)*], [$($X:tt)*]);* $(;)?]
    ) => {
        mod $family {
            use super::*;
            $(
                mv_extra_case!($fmt, [$($Y)*], [$($A)*], [$($X)*], x_len = $xl, y_len = $yl, $body, $oracle);
            )*
        }
    };
}

mv_extra_family!(
    transposed_spmv,
    x_len = |m, _| m,
    y_len = |_, n| n,
    { y(j) = a(i, j) * x(i) },
    transposed,
    [
        csr_dense: [Dense1<f64>], [Csr<f64>], [Dense1<f64>];
        csr_sparse: [Dense1<f64>], [Csr<f64>], [SparseVec<f64>];
        csc_dense: [Dense1<f64>], [Csc<f64>], [Dense1<f64>];
        csc_sparse: [Dense1<f64>], [Csc<f64>], [SparseVec<f64>];
        dcsr_dense: [Dense1<f64>], [Dcsr<f64>], [Dense1<f64>];
        coo_sparse: [Dense1<f64>], [Coo<f64>], [SparseVec<f64>];
        dense2_sparse: [Dense1<f64>], [Dense2<f64>], [SparseVec<f64>];
    ]
);

mv_extra_family!(
    operand_used_twice,
    x_len = |_, n| n,
    y_len = |m, _| m,
    { y(i) = a(i, j) * a(i, j) * x(j) },
    squared,
    [
        csr: [Dense1<f64>], [Csr<f64>], [Dense1<f64>];
        csc: [Dense1<f64>], [Csc<f64>], [SparseVec<f64>];
        dcsr: [Dense1<f64>], [Dcsr<f64>], [SparseVec<f64>];
        coo: [Dense1<f64>], [Coo<f64>], [Dense1<f64>];
    ]
);

mv_extra_family!(
    reduction_over_sum,
    x_len = |_, n| n,
    y_len = |m, _| m,
    { y(i) = a(i, j) + x(j) },
    summed_sum,
    [
        csr_dense: [Dense1<f64>], [Csr<f64>], [Dense1<f64>];
        csr_sparse: [Dense1<f64>], [Csr<f64>], [SparseVec<f64>];
        csc_sparse: [Dense1<f64>], [Csc<f64>], [SparseVec<f64>];
        dcsr_sparse: [Dense1<f64>], [Dcsr<f64>], [SparseVec<f64>];
        coo_sparse: [Dense1<f64>], [Coo<f64>], [SparseVec<f64>];
        dense2_sparse: [Dense1<f64>], [Dense2<f64>], [SparseVec<f64>];
    ]
);

mv_extra_family!(
    literals_outside_reduction,
    x_len = |_, n| n,
    y_len = |m, _| m,
    { y(i) = 2.0 * a(i, j) * x(j) + 1.0 },
    affine,
    [
        csr: [Dense1<f64>], [Csr<f64>], [Dense1<f64>];
        dcsr: [Dense1<f64>], [Dcsr<f64>], [SparseVec<f64>];
        coo: [Dense1<f64>], [Coo<f64>], [SparseVec<f64>];
    ]
);

mv_extra_family!(
    literal_inside_reduction,
    x_len = |_, n| n,
    y_len = |m, _| m,
    { y(i) = a(i, j) * (x(j) + 1.0) },
    shifted,
    [
        csr_sparse: [Dense1<f64>], [Csr<f64>], [SparseVec<f64>];
        csc_sparse: [Dense1<f64>], [Csc<f64>], [SparseVec<f64>];
        dcsr_sparse: [Dense1<f64>], [Dcsr<f64>], [SparseVec<f64>];
        coo_dense: [Dense1<f64>], [Coo<f64>], [Dense1<f64>];
    ]
);

mv_extra_family!(
    sparse_output,
    x_len = |_, n| n,
    y_len = |m, _| m,
    { y(i) = a(i, j) * x(j) },
    matvec,
    [
        csr: [SparseVec<f64>], [Csr<f64>], [Dense1<f64>];
        dcsr: [SparseVec<f64>], [Dcsr<f64>], [SparseVec<f64>];
        coo: [SparseVec<f64>], [Coo<f64>], [Dense1<f64>];
        dense2: [SparseVec<f64>], [Dense2<f64>], [SparseVec<f64>];
    ]
);

mv_extra_family!(
    sparse_output_transposed,
    x_len = |m, _| m,
    y_len = |_, n| n,
    { y(j) = a(i, j) * x(i) },
    transposed,
    [
        csc: [SparseVec<f64>], [Csc<f64>], [Dense1<f64>];
        csc_spelled_as_tensor: [SparseVec<f64>], [Tensor<f64, (Dense, Compressed), Modes<1, 0>>], [SparseVec<f64>];
    ]
);
spmv_case!(dcsc_dense1, [Dcsc<f64>], [Dense1<f64>]);
spmv_case!(dcsc_sparsevec, [Dcsc<f64>], [SparseVec<f64>]);
