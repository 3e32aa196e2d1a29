//! Plain slices as dense vectors: `&[V]` inputs and `&mut [V]` outputs, read and written in
//! place, checked against dense references and against the same kernels over `Dense1`.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn spmv(y: &mut [f64], a: &Csr<f64>, x: &[f64]) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_add(y: &mut [f64], a: &Coo<f64>, x: &[f64]) {
        y(i) += a(i, j) * x(j)
    }
    /// The output read on the right side: every read is of its contents before the call.
    pub fn times_self(y: &mut [f64], a: &Csr<f64>) {
        y(i) = a(i, j) * y(j)
    }
    pub fn dot(s: &mut f64, x: &[f64], y: &SparseVec<f64>) {
        s = x(i) * y(i)
    }
    pub fn axpy_int(y: &mut [i64], alpha: i64, x: &[i64]) {
        y(i) += alpha * x(i)
    }
    /// A slice mixed with tensors in a sequence.
    pub fn residual_norm(r: &mut [f64], norm: &mut f64, a: &Csr<f64>, x: &Dense1<f64>, b: &[f64]) {
        r(i) = b(i);
        r(i) -= a(i, j) * x(j);
        norm = r(i) * r(i);
    }
}

#[test]
fn slices_are_dense_vectors() {
    for shape in [[0, 0], [1, 1], [3, 5], [6, 6], [9, 4]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let [m, n] = shape;
            let ae = operand_entries(shape, density, seed, 0);
            let ad = DenseT::from_entries(&shape, &ae);
            let (x, xd) = dense_vec(n, seed);
            let xs: Vec<f64> = x.vals().to_vec();
            let mut y = vec![7.0; m];
            spmv(&mut y, &build(&shape, &ae), &xs).unwrap();
            assert_close(&y, &matvec(&ad, &xd), 1e-12, (&case, "spmv"));

            let before = y.clone();
            let coo: Coo<f64> = build(&shape, &ae);
            spmv_add(&mut y, &coo, &xs).unwrap();
            let twice: Vec<f64> = before.iter().map(|v| 2.0 * v).collect();
            assert_close(
                &y,
                &DenseT {
                    shape: vec![m],
                    data: twice,
                },
                1e-12,
                (&case, "+="),
            );

            if m == n {
                let mut z = xs.clone();
                times_self(&mut z, &build(&shape, &ae)).unwrap();
                assert_close(&z, &matvec(&ad, &xd), 1e-12, (&case, "y = a y"));
            }

            let ye = random_entries::<f64>(&[n], density, seed + 3);
            let mut s = 1.0;
            dot(&mut s, &xs, &build(&[n], &ye)).unwrap();
            let want: f64 = ye.iter().map(|(c, v)| v * xs[c[0]]).sum();
            assert_scalar_close(s, want, 1e-12, (&case, "dot"));

            let bs: Vec<f64> = (0..m).map(|k| k as f64).collect();
            let (mut r, mut norm) = (vec![0.0; m], 0.0);
            residual_norm(&mut r, &mut norm, &build(&shape, &ae), &x, &bs).unwrap();
            let ax = matvec(&ad, &xd);
            let want: Vec<f64> = bs.iter().zip(&ax.data).map(|(b, v)| b - v).collect();
            assert_close(
                &r,
                &DenseT {
                    shape: vec![m],
                    data: want.clone(),
                },
                1e-12,
                (&case, "r"),
            );
            assert_scalar_close(
                norm,
                want.iter().map(|v| v * v).sum(),
                1e-12,
                (&case, "norm"),
            );
        });
    }
}

#[test]
fn integer_slices_and_shape_errors() {
    let x: Vec<i64> = (0..5).collect();
    let mut y = vec![1i64; 5];
    axpy_int(&mut y, 3, &x).unwrap();
    assert_eq!(y, [1, 4, 7, 10, 13]);

    // A mismatch is an error naming the slices, and leaves the output as it was.
    let mut short = vec![2i64; 4];
    let e = axpy_int(&mut short, 3, &x).unwrap_err();
    assert!(
        e.to_string().contains("`y`") && e.to_string().contains("`x`"),
        "{e}"
    );
    assert_eq!(short, [2; 4]);
    let a: Csr<f64> = build(&[3, 3], &[(vec![0, 1], 1.0)]);
    let mut z = vec![5.0; 2];
    assert!(times_self(&mut z, &a).is_err());
    assert_eq!(z, [5.0; 2]);
}
