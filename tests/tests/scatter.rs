//! Fused iteration over non-unique levels (Chou 2018, section 4.5): a loop driven by a COO level
//! alone, computing something linear in that operand, visits positions instead of runs and
//! accumulates. These kernels cover the cases that scatter (SpMV, a scaled and divided SpMV,
//! an order-3 chain, a scalar reduction, a transposed product, a product with a CSR) and
//! ones that must not (an added dense term, a co-iterated sparse vector), on shapes with empty
//! rows and duplicates summed at construction, against a dense oracle.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn scaled(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>, c: &Dense1<f64>, s: f64) {
        y(i) = s * a(i, j) * x(j) / c(i)
    }
    pub fn plus_dense(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>, b: &Dense1<f64>) {
        y(i) = a(i, j) * x(j) + b(i)
    }
    pub fn with_sparse_x(y: &mut Dense1<f64>, a: &Coo<f64>, x: &SparseVec<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn chain3(y: &mut Dense2<f64>, a: &Coo3<f64>, x: &Dense1<f64>) {
        y(i, j) = a(i, j, k) * x(k)
    }
    pub fn reduce(s: &mut f64, a: &Coo<f64>, x: &Dense1<f64>) {
        s = a(i, j) * x(j)
    }
    pub fn transposed(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) {
        y(j) = a(i, j) * x(i)
    }
    pub fn times_csr(c: &mut Dense2<f64>, a: &Coo<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
}

fn dense(shape: &[usize], e: &Entries<f64>) -> DenseT<f64> {
    DenseT::from_entries(shape, e)
}

/// A matrix whose entries repeat (summed at construction) and whose rows are often empty.
fn matrix(shape: [usize; 2], density: f64, seed: u64) -> Entries<f64> {
    let mut e = random_entries(&shape, density, case_seed(seed, &shape, 0));
    let again: Vec<_> = e.iter().step_by(3).cloned().collect();
    e.extend(again);
    e
}

#[test]
fn matrix_kernels_match_the_oracle() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let [m, n] = shape;
            let ae = matrix(shape, density, seed);
            let a: Coo<f64> = build(&shape, &ae);
            let ad = dense(&shape, &ae);
            let xe = random_entries(&[n], 1.0, case_seed(seed, &shape, 1));
            let x: Dense1<f64> = build(&[n], &xe);
            let xd = dense(&[n], &xe);
            let sparse_xe = random_entries(&[n], other_density(density, seed, 2), seed);
            let sparse_x: SparseVec<f64> = build(&[n], &sparse_xe);
            let sxd = dense(&[n], &sparse_xe);
            let ce = random_entries(&[m], 1.0, case_seed(seed, &shape, 3));
            let c: Dense1<f64> = build(&[m], &ce);
            let cd = dense(&[m], &ce);
            let case = (shape, density, seed);

            let mut want = DenseT::zeros(&[m]);
            let mut want_plus = DenseT::zeros(&[m]);
            let mut want_sparse = DenseT::zeros(&[m]);
            for i in 0..m {
                for j in 0..n {
                    want.add(&[i], 1.5 * ad.get(&[i, j]) * xd.get(&[j]) / cd.get(&[i]));
                    want_plus.add(&[i], ad.get(&[i, j]) * xd.get(&[j]));
                    want_sparse.add(&[i], ad.get(&[i, j]) * sxd.get(&[j]));
                }
                want_plus.add(&[i], cd.get(&[i]));
            }
            let mut y: Dense1<f64> = build(&[m], &nonzero_entries(&[m], seed));
            scaled(&mut y, &a, &x, &c, 1.5).unwrap();
            assert_close(&y.to_dense(), &want, f64::TOL, case);
            plus_dense(&mut y, &a, &x, &c).unwrap();
            assert_close(&y.to_dense(), &want_plus, f64::TOL, case);
            with_sparse_x(&mut y, &a, &sparse_x).unwrap();
            assert_close(&y.to_dense(), &want_sparse, f64::TOL, case);

            let mut s = 7.0;
            reduce(&mut s, &a, &x).unwrap();
            let total: f64 = (0..m)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .map(|(i, j)| ad.get(&[i, j]) * xd.get(&[j]))
                .sum();
            assert_scalar_close(s, total, f64::TOL, case);

            let xm: Dense1<f64> = build(&[m], &ce);
            let mut want_t = DenseT::zeros(&[n]);
            for i in 0..m {
                for j in 0..n {
                    want_t.add(&[j], ad.get(&[i, j]) * cd.get(&[i]));
                }
            }
            let mut yt: Dense1<f64> = build(&[n], &nonzero_entries(&[n], seed));
            transposed(&mut yt, &a, &xm).unwrap();
            assert_close(&yt.to_dense(), &want_t, f64::TOL, case);

            let be = random_entries(&[n, 3], other_density(density, seed, 4), seed ^ 9);
            let b: Csr<f64> = build(&[n, 3], &be);
            let bd = dense(&[n, 3], &be);
            let mut want_c = DenseT::zeros(&[m, 3]);
            for i in 0..m {
                for j in 0..n {
                    for k in 0..3 {
                        want_c.add(&[i, k], ad.get(&[i, j]) * bd.get(&[j, k]));
                    }
                }
            }
            let mut cm: Dense2<f64> = build(&[m, 3], &nonzero_entries(&[m, 3], seed));
            times_csr(&mut cm, &a, &b).unwrap();
            assert_close(&cm.to_dense(), &want_c, f64::TOL, case);
        });
    }
}

#[test]
fn an_order_3_chain_matches_the_oracle() {
    for shape in TENSOR3_SHAPES {
        sweep(|density, seed| {
            let [m, n, p] = shape;
            let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
            let a: Coo3<f64> = build(&shape, &ae);
            let ad = dense(&shape, &ae);
            let xe = random_entries(&[p], 1.0, case_seed(seed, &shape, 1));
            let x: Dense1<f64> = build(&[p], &xe);
            let xd = dense(&[p], &xe);
            let mut want = DenseT::zeros(&[m, n]);
            for c in coordinates(&shape) {
                want.add(&c[..2], ad.get(&c) * xd.get(&c[2..]));
            }
            let mut y: Dense2<f64> = build(&[m, n], &nonzero_entries(&[m, n], seed));
            chain3(&mut y, &a, &x).unwrap();
            assert_close(&y.to_dense(), &want, f64::TOL, (shape, density, seed));
        });
    }
}
