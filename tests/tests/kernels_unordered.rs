//! Unordered compressed levels (`Compressed<I, Unordered>`, Chou et al. 2018, Table 1) as
//! inputs and outputs, against a dense oracle. Built from entries, every segment of such a
//! level is stored in decreasing order, so each kernel here reads out-of-order segments:
//! visited in storage order where order does not matter (SpMV, a reduction, a located
//! operand), reordered through a sorted copy where it is merged with another operand by
//! union or intersection, in a lattice or a compact merge, or feeds a sparse output.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

// The macro reads formats from the types as written, so kernels spell them out.
/// CSR with unordered rows.
type CsrU = Tensor<f64, (Dense, Compressed<u32, Unordered>)>;
/// A sparse vector stored in any order.
type VecU = Tensor<f64, (Compressed<u32, Unordered>,)>;
/// DCSR whose row list is unordered (rows ordered within).
type DcsrU = Tensor<f64, (Compressed<u32, Unordered>, Compressed)>;

sparse_kernel! {
    pub fn spmv_u(y: &mut Dense1<f64>, a: &Tensor<f64, (Dense, Compressed<u32, Unordered>)>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_dcsr_u(y: &mut Dense1<f64>, a: &Tensor<f64, (Compressed<u32, Unordered>, Compressed)>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn add_u_csr(c: &mut Csr<f64>, a: &Tensor<f64, (Dense, Compressed<u32, Unordered>)>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn mul_u_csr(c: &mut Csr<f64>, a: &Tensor<f64, (Dense, Compressed<u32, Unordered>)>, b: &Csr<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    pub fn add_dcsr_u(c: &mut Dcsr<f64>, a: &Tensor<f64, (Compressed<u32, Unordered>, Compressed)>, b: &Dcsr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn add4_u(c: &mut Tensor<f64, (Dense, Compressed<u32, Unordered>)>, a: &Tensor<f64, (Dense, Compressed<u32, Unordered>)>, b: &Csr<f64>, d: &Tensor<f64, (Dense, Compressed<u32, Unordered>)>, e: &Coo<f64>) {
        c(i, j) = a(i, j) + b(i, j) + d(i, j) + e(i, j)
    }
    pub fn dot_u(s: &mut f64, x: &Tensor<f64, (Compressed<u32, Unordered>,)>, y: &SparseVec<f64>) {
        s = x(i) * y(i)
    }
    pub fn axpy_u(z: &mut SparseVec<f64>, x: &Tensor<f64, (Compressed<u32, Unordered>,)>, y: &Tensor<f64, (Compressed<u32, Unordered>,)>, alpha: f64) {
        z(i) = alpha * x(i) + y(i)
    }
}

const SHAPES: [[usize; 2]; 5] = [[0, 0], [1, 1], [3, 5], [8, 8], [17, 9]];

#[test]
fn built_segments_are_out_of_order() {
    let e = vec![(vec![0, 1], 1.0), (vec![0, 4], 2.0), (vec![2, 3], 3.0)];
    let a: CsrU = build(&[3, 5], &e);
    assert_eq!(a.levels().1.crd(), &[4, 1, 3]);
    assert_eq!(a.entries(), e);
}

#[test]
fn matrices_match_oracle() {
    for shape in SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
            let be = random_entries(
                &shape,
                other_density(density, seed, 1),
                case_seed(seed, &shape, 1),
            );
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let a: CsrU = build(&shape, &ae);
            let a_dcsr: DcsrU = build(&shape, &ae);
            let b: Csr<f64> = build(&shape, &be);
            let b_u: CsrU = build(&shape, &be);
            let b_dcsr: Dcsr<f64> = build(&shape, &be);
            let b_coo: Coo<f64> = build(&shape, &be);
            let xe = nonzero_entries(&[shape[1]], seed);
            let (x, xd): (Dense1<f64>, _) = (
                build(&[shape[1]], &xe),
                DenseT::from_entries(&[shape[1]], &xe),
            );
            let garbage = nonzero_entries(&shape, seed);

            let mut y: Dense1<f64> = build(&[shape[0]], &nonzero_entries(&[shape[0]], seed));
            spmv_u(&mut y, &a, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
            spmv_dcsr_u(&mut y, &a_dcsr, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);

            let mut c: Csr<f64> = build(&shape, &garbage);
            add_u_csr(&mut c, &a, &b).unwrap();
            assert_close(
                &c.to_dense(),
                &elementwise(&ad, &bd, |x, y| x + y),
                f64::TOL,
                case,
            );
            revalidate(&c);
            mul_u_csr(&mut c, &a, &b).unwrap();
            assert_close(
                &c.to_dense(),
                &elementwise(&ad, &bd, |x, y| x * y),
                f64::TOL,
                case,
            );
            revalidate(&c);
            let mut cd: Dcsr<f64> = build(&shape, &garbage);
            add_dcsr_u(&mut cd, &a_dcsr, &b_dcsr).unwrap();
            assert_close(
                &cd.to_dense(),
                &elementwise(&ad, &bd, |x, y| x + y),
                f64::TOL,
                case,
            );
            revalidate(&cd);
            let mut cu: CsrU = build(&shape, &garbage);
            add4_u(&mut cu, &a, &b, &b_u, &b_coo).unwrap();
            assert_close(
                &cu.to_dense(),
                &elementwise(&ad, &bd, |x, y| x + 3.0 * y),
                f64::TOL,
                case,
            );
            revalidate(&cu);
        });
    }
}

#[test]
fn vectors_match_oracle() {
    for n in [0, 1, 2, 7, 30] {
        sweep(|density, seed| {
            let case = (n, density, seed);
            let xe = random_entries(&[n], density, case_seed(seed, &[n], 0));
            let ye = random_entries(
                &[n],
                other_density(density, seed, 1),
                case_seed(seed, &[n], 1),
            );
            let (xd, yd) = (
                DenseT::from_entries(&[n], &xe),
                DenseT::from_entries(&[n], &ye),
            );
            let x: VecU = build(&[n], &xe);
            let y_u: VecU = build(&[n], &ye);
            let y: SparseVec<f64> = build(&[n], &ye);
            let mut s = 5.0;
            dot_u(&mut s, &x, &y).unwrap();
            let expect: f64 = (0..n).map(|i| xd.get(&[i]) * yd.get(&[i])).sum();
            assert_scalar_close(s, expect, f64::TOL, case);
            let mut z: SparseVec<f64> = build(&[n], &nonzero_entries(&[n], seed));
            axpy_u(&mut z, &x, &y_u, 2.0).unwrap();
            assert_close(
                &z.to_dense(),
                &elementwise(&xd, &yd, |x, y| 2.0 * x + y),
                f64::TOL,
                case,
            );
            revalidate(&z);
        });
    }
}
