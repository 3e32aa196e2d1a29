//! Statement splitting: a dense output's terms that no single loop order traverses are
//! computed by consecutive loop nests (`r = b; r -= A x` with `A` stored by columns), products
//! distributed over sums where that gives each term an order (`(A - C) x` with `A` in CSR and `C`
//! in CSC).
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn axpby_csc(y: &mut Dense1<f64>, alpha: f64, a: &Csc<f64>, x: &Dense1<f64>, beta: f64, z: &SparseVec<f64>) {
        y(i) = alpha * a(i, j) * x(j) + beta * z(i)
    }

    pub fn residual_csc(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
        r(i) = b(i) - a(i, j) * x(j)
    }

    // The product is distributed over the sum, `a x + c x`: `a` by rows, then `c` by columns.
    pub fn sum_times_x(y: &mut Dense1<f64>, a: &Csr<f64>, c: &Csc<f64>, x: &Dense1<f64>) {
        y(i) = (a(i, j) - c(i, j)) * x(j)
    }
}

#[test]
fn csc_scaled_and_residual_match_oracle() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let [m, n] = shape;
            let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
            let xe = random_entries(
                &[n],
                other_density(density, seed, 1),
                case_seed(seed, &shape, 1),
            );
            let ze = random_entries(
                &[m],
                other_density(density, seed, 2),
                case_seed(seed, &shape, 2),
            );
            let a: Csc<f64> = build(&shape, &ae);
            let x: Dense1<f64> = build(&[n], &xe);
            let ax = matvec(
                &DenseT::from_entries(&shape, &ae),
                &DenseT::from_entries(&[n], &xe),
            );
            let zd = DenseT::from_entries(&[m], &ze);
            let mut expected = DenseT::zeros(&[m]);
            for i in 0..m {
                expected.set(&[i], 2.0 * ax.get(&[i]) - 0.5 * zd.get(&[i]));
            }
            let mut y = Dense1::from_vec(vec![7.0; m]);
            axpby_csc(&mut y, 2.0, &a, &x, -0.5, &build(&[m], &ze)).unwrap();
            assert_close(y.as_slice(), &expected, f64::TOL, (shape, density, seed));

            for i in 0..m {
                expected.set(&[i], zd.get(&[i]) - ax.get(&[i]));
            }
            residual_csc(&mut y, &build(&[m], &ze), &a, &x).unwrap();
            assert_close(y.as_slice(), &expected, f64::TOL, (shape, density, seed));

            // (a - c) x with c stored by columns: a x - c x.
            let ce = random_entries(&shape, density, case_seed(seed, &shape, 3));
            let cx = matvec(
                &DenseT::from_entries(&shape, &ce),
                &DenseT::from_entries(&[n], &xe),
            );
            for i in 0..m {
                expected.set(&[i], ax.get(&[i]) - cx.get(&[i]));
            }
            let a_rows: Csr<f64> = build(&shape, &ae);
            sum_times_x(&mut y, &a_rows, &build(&shape, &ce), &x).unwrap();
            assert_close(y.as_slice(), &expected, f64::TOL, (shape, density, seed));
        });
    }
}
