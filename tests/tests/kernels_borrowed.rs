//! Dense operands over the caller's storage: plain slices as vectors (`&[V]` inputs, `&mut [V]`
//! outputs) and dense views as matrices and 3-tensors (`Dense2View`, `Dense2ViewMut`, ...),
//! read and written in place, checked against dense references.
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
    pub fn spmm(c: &mut Dense2ViewMut<'_, f64>, a: &Csr<f64>, b: &Dense2View<'_, f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    /// A view output read on the right side, and a mutable view read as an input.
    pub fn scale_rows(c: &mut Dense2ViewMut<'_, f64>, d: &[f64], e: &Dense2ViewMut<'_, f64>) {
        c(i, j) = d(i) * c(i, j) + e(i, j)
    }
    pub fn mttkrp(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2View<'_, f64>, d: &Dense2View<'_, f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    pub fn ttv(a: &mut Dense2ViewMut<'_, f64>, b: &Dense3View<'_, f64>, c: &[f64]) {
        a(i, j) = b(i, j, k) * c(k)
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

/// Row-major values of a dense oracle tensor.
fn dense_values(shape: &[usize], seed: u64) -> Vec<f64> {
    DenseT::from_entries(shape, &nonzero_entries::<f64>(shape, seed)).data
}

#[test]
fn dense_views_are_dense_tensors() {
    for [m, n, p] in [[0, 0, 0], [1, 1, 1], [3, 5, 2], [6, 4, 7]] {
        sweep(|density, seed| {
            let case = ([m, n, p], density, seed);
            let ae = random_entries::<f64>(&[m, n], density, seed);
            let ad = DenseT::from_entries(&[m, n], &ae);
            let a: Csr<f64> = build(&[m, n], &ae);
            let bv = dense_values(&[n, p], seed + 1);
            let bd = DenseT {
                shape: vec![n, p],
                data: bv.clone(),
            };
            let mut cv = vec![3.0; m * p];
            let mut c = Dense2ViewMut::new([m, p], &mut cv).unwrap();
            spmm(&mut c, &a, &Dense2View::new([n, p], &bv).unwrap()).unwrap();
            let mut want = DenseT::zeros(&[m, p]);
            for i in 0..m {
                for k in 0..p {
                    let v = (0..n).map(|j| ad.get(&[i, j]) * bd.get(&[j, k])).sum();
                    want.set(&[i, k], v);
                }
            }
            assert_close(&cv, &want, 1e-12, (&case, "spmm"));

            let d: Vec<f64> = (0..m).map(|i| i as f64 - 1.5).collect();
            let mut ev = dense_values(&[m, p], seed + 2);
            let e = Dense2ViewMut::new([m, p], &mut ev).unwrap();
            let mut c = Dense2ViewMut::new([m, p], &mut cv).unwrap();
            scale_rows(&mut c, &d, &e).unwrap();
            let mut scaled = want.clone();
            for (at, v) in scaled.data.iter_mut().enumerate() {
                *v = d[at / p] * want.data[at] + e.vals()[at];
            }
            assert_close(&cv, &scaled, 1e-12, (&case, "c = d c + e"));

            let be = random_entries::<f64>(&[m, n, p], density, seed + 3);
            let b3: Csf3<f64> = build(&[m, n, p], &be);
            let (cm, dm) = (
                dense_values(&[n, 4], seed + 4),
                dense_values(&[p, 4], seed + 5),
            );
            let mut out = Dense2::zeros(m, 4);
            mttkrp(
                &mut out,
                &b3,
                &Dense2View::new([n, 4], &cm).unwrap(),
                &Dense2View::new([p, 4], &dm).unwrap(),
            )
            .unwrap();
            let mut want = DenseT::zeros(&[m, 4]);
            for (c, v) in &be {
                for j in 0..4 {
                    want.add(&[c[0], j], v * cm[c[1] * 4 + j] * dm[c[2] * 4 + j]);
                }
            }
            assert_close(out.vals(), &want, 1e-12, (&case, "mttkrp"));

            let b3v = DenseT::from_entries(&[m, n, p], &be).data;
            let cvec: Vec<f64> = (0..p).map(|k| 1.0 + k as f64).collect();
            let mut av = vec![0.0; m * n];
            ttv(
                &mut Dense2ViewMut::new([m, n], &mut av).unwrap(),
                &Dense3View::new([m, n, p], &b3v).unwrap(),
                &cvec,
            )
            .unwrap();
            let mut want = DenseT::zeros(&[m, n]);
            for (c, v) in &be {
                want.add(&[c[0], c[1]], v * cvec[c[2]]);
            }
            assert_close(&av, &want, 1e-12, (&case, "ttv"));
        });
    }
}

#[test]
fn a_view_shape_mismatch_is_an_error_and_changes_nothing() {
    let a: Csr<f64> = build(&[2, 3], &[(vec![0, 1], 1.0)]);
    let b = vec![1.0; 8];
    let mut cv = vec![9.0; 4];
    let e = spmm(
        &mut Dense2ViewMut::new([2, 2], &mut cv).unwrap(),
        &a,
        &Dense2View::new([4, 2], &b).unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("`j`"), "{e}");
    assert_eq!(cv, [9.0; 4]);
}
