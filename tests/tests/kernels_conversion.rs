//! Kernels with no loop order that traverses every operand in its storage order, which convert
//! an operand on entry into a temporary of another mode order (taco, end of section 4; Chou et
//! al. 2020): the four cycle kernels (`A = B + Cᵀ` and `A = B + C` with `C` in the
//! opposite order, a Csf3 sum with rotated modes, transposition) and a dense output whose
//! operands disagree, against a dense oracle; each sparse output's stored pattern is exactly
//! the iteration space's points, and the output is revalidated.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn plus_transpose(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) {
        a(i, j) = b(i, j) + c(j, i)
    }
    pub fn csr_plus_csc(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csc<f64>) {
        a(i, j) = b(i, j) + c(i, j)
    }
    pub fn rotated_sum(a: &mut Csf3<f64>, b: &Csf3<f64>, c: &Csf3<f64>) {
        a(i, j, k) = b(i, j, k) + c(k, i, j)
    }
    pub fn transpose(a: &mut Csr<f64>, b: &Csr<f64>) {
        a(i, j) = b(j, i)
    }
    /// The diagonal of `a b`: `b` is read row `i` of its transpose at a time.
    pub fn product_diagonal(y: &mut Dense1<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        y(i) = a(i, j) * b(j, i)
    }
}

fn transposed(e: &Entries<f64>) -> Entries<f64> {
    e.iter().map(|(c, v)| (vec![c[1], c[0]], *v)).collect()
}

#[test]
fn matrix_cycles_match_oracle() {
    for shape in [[0, 0], [0, 3], [1, 1], [3, 5], [6, 6], [11, 4]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let [m, n] = shape;
            let be = operand_entries(shape, density, seed, 0);
            let ce = operand_entries([n, m], density, seed, 1);
            let (b, c): (Csr<f64>, Csr<f64>) = (build(&shape, &be), build(&[n, m], &ce));
            let ct = transposed(&ce);
            let mut a: Csr<f64> = build(&shape, &random_entries(&shape, 0.3, seed));
            plus_transpose(&mut a, &b, &c).unwrap();
            let bd = DenseT::from_entries(&shape, &be);
            let want = elementwise(&bd, &DenseT::from_entries(&shape, &ct), |x, y| x + y);
            let mut union = pattern(&be);
            union.extend(pattern(&ct));
            check_sparse_output(&a, &want, &union, (&case, "b + cᵀ"));

            let c_csc: Csc<f64> = build(&shape, &ct);
            csr_plus_csc(&mut a, &b, &c_csc).unwrap();
            check_sparse_output(&a, &want, &union, (&case, "csr + csc"));

            transpose(&mut a, &c).unwrap();
            check_sparse_output(
                &a,
                &DenseT::from_entries(&shape, &ct),
                &pattern(&ct),
                (&case, "cᵀ"),
            );

            let mut y = Dense1::<f64>::new(&[m]).unwrap();
            product_diagonal(&mut y, &b, &c).unwrap();
            let cd = DenseT::from_entries(&[n, m], &ce);
            let mut want = DenseT::zeros(&[m]);
            for i in 0..m {
                for j in 0..n {
                    want.add(&[i], bd.get(&[i, j]) * cd.get(&[j, i]));
                }
            }
            assert_close(y.vals(), &want, f64::TOL, (&case, "diag(b c)"));
        });
    }
}

#[test]
fn rotated_csf3_sum_matches_oracle() {
    for shape in [[0, 2, 3], [1, 1, 1], [2, 3, 4], [4, 1, 5]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let [p, q, r] = shape;
            let be = random_entries(&shape, density, case_seed(seed, &shape, 0));
            // c(k, i, j) holds a tensor of shape (r, p, q).
            let ce = random_entries(&[r, p, q], density, case_seed(seed, &shape, 1));
            let (b, c): (Csf3<f64>, Csf3<f64>) = (build(&shape, &be), build(&[r, p, q], &ce));
            let rotated: Entries<f64> = ce
                .iter()
                .map(|(x, v)| (vec![x[1], x[2], x[0]], *v))
                .collect();
            let mut a: Csf3<f64> = build(&shape, &random_entries(&shape, 0.2, seed));
            rotated_sum(&mut a, &b, &c).unwrap();
            let want = DenseT::from_entries(
                &shape,
                &be.iter().chain(&rotated).cloned().collect::<Vec<_>>(),
            );
            let mut union = pattern(&be);
            union.extend(pattern(&rotated));
            check_sparse_output(&a, &want, &union, case);
        });
    }
}

#[test]
fn converted_operands_are_still_shape_checked() {
    let b = Csr::<f64>::new(&[2, 3]).unwrap();
    let c = Csr::<f64>::new(&[2, 3]).unwrap();
    let mut a = Csr::<f64>::new(&[2, 3]).unwrap();
    let e = plus_transpose(&mut a, &b, &c).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DimensionMismatch {
                kernel: "plus_transpose",
                ..
            }
        ),
        "{e}"
    );
}
