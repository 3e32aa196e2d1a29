//! `#[schedule(order(..))]`: the listed loops nest in the order given, and the values do not
//! depend on it. Dense operands admit every order; a sparse one fixes its own levels' order,
//! and the schedule orders the rest.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    #[schedule(order(k, j, i))]
    pub fn gemm_kji(c: &mut Dense2<f64>, a: &Dense2<f64>, b: &Dense2<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(order(j, i))]
    pub fn gemv_by_columns(y: &mut Dense1<f64>, a: &Dense2<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    // Rows of `a` outermost, then the columns of `b` (dense) before the inner products.
    #[schedule(order(i, k))]
    pub fn spmm_ik(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(order(i, j, k), workspace(k))]
    pub fn spgemm_ijk(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
}

#[test]
fn scheduled_orders_compute_the_same_values() {
    for [m, n, p] in [[0, 0, 0], [1, 1, 1], [3, 4, 5], [6, 2, 7]] {
        sweep(|density, seed| {
            let case = ([m, n, p], density, seed);
            let ae = random_entries(&[m, n], density, case_seed(seed, &[m, n], 0));
            let be = nonzero_entries(&[n, p], seed);
            let (ad, bd) = (
                DenseT::from_entries(&[m, n], &ae),
                DenseT::from_entries(&[n, p], &be),
            );
            let mut want = DenseT::zeros(&[m, p]);
            for (ij, v) in &ae {
                for k in 0..p {
                    want.add(&[ij[0], k], v * bd.get(&[ij[1], k]));
                }
            }
            let (a_dense, a_csr, b): (Dense2<f64>, Csr<f64>, Dense2<f64>) = (
                build(&[m, n], &ae),
                build(&[m, n], &ae),
                build(&[n, p], &be),
            );
            let stale = nonzero_entries(&[m, p], seed + 1);
            let mut c: Dense2<f64> = build(&[m, p], &stale);
            gemm_kji(&mut c, &a_dense, &b).unwrap();
            assert_close(c.vals(), &want, f64::TOL, (&case, "kji"));
            let mut c: Dense2<f64> = build(&[m, p], &stale);
            spmm_ik(&mut c, &a_csr, &b).unwrap();
            assert_close(c.vals(), &want, f64::TOL, (&case, "spmm ik"));

            let (x, xd) = dense_vec(n, seed);
            let mut y: Dense1<f64> = build(&[m], &nonzero_entries(&[m], seed));
            gemv_by_columns(&mut y, &a_dense, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, (&case, "gemv ji"));

            let be_sparse = random_entries(&[n, p], density, case_seed(seed, &[n, p], 1));
            let b_csr: Csr<f64> = build(&[n, p], &be_sparse);
            let mut want = DenseT::zeros(&[m, p]);
            let mut space = Pattern::new();
            for (ij, v) in &ae {
                for (jk, w) in be_sparse.iter().filter(|(jk, _)| jk[0] == ij[1]) {
                    want.add(&[ij[0], jk[1]], v * w);
                    space.insert(vec![ij[0], jk[1]]);
                }
            }
            let mut c: Csr<f64> = build(&[m, p], &[]);
            spgemm_ijk(&mut c, &a_csr, &b_csr).unwrap();
            check_sparse_output(&c, &want, &space, (&case, "spgemm ijk"));
        });
    }
}
