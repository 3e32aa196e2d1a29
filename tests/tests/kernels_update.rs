//! `+=` into sparse outputs that are appended (not written in place): the result is the old
//! contents plus the right side, stored on the union of the old pattern and the right side's
//! iteration space; directly where a loop order appends it, through a workspace otherwise. A
//! call that fails its shape checks leaves the output as it was.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn add_into(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) += a(i, j)
    }
    pub fn add_product_into(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) += a(i, j) * b(j, k)
    }
    pub fn add_scaled_transpose_into(c: &mut Dcsr<f64>, a: &Csr<f64>, s: f64) {
        c(i, j) += s * a(j, i)
    }
    pub fn add_into_coo(c: &mut Coo<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) += a(i, j) * b(i, j)
    }
    pub fn spmv_into_sparse(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) += a(i, j) * x(j)
    }
}

#[test]
fn updates_add_to_the_old_contents_on_the_union_of_patterns() {
    for shape in [[0, 0], [0, 2], [1, 1], [4, 4], [5, 7], [8, 3]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let [m, n] = shape;
            let ce = operand_entries(shape, density, seed, 0);
            let ae = operand_entries(shape, density, seed, 1);
            let (cd, ad) = (
                DenseT::from_entries(&shape, &ce),
                DenseT::from_entries(&shape, &ae),
            );
            let mut union = pattern(&ce);
            union.extend(pattern(&ae));
            let a: Csr<f64> = build(&shape, &ae);
            let mut c: Csr<f64> = build(&shape, &ce);
            add_into(&mut c, &a).unwrap();
            check_sparse_output(
                &c,
                &elementwise(&cd, &ad, |x, y| x + y),
                &union,
                (&case, "c += a"),
            );

            // c += a * b: the old row joins the workspace.
            let be = operand_entries([n, n], density, seed, 2);
            let b: Csr<f64> = build(&[n, n], &be);
            let mut prod = DenseT::zeros(&[m, n]);
            let mut space = pattern(&ce);
            for (ij, v) in &ae {
                for (jk, w) in be.iter().filter(|(jk, _)| jk[0] == ij[1]) {
                    prod.add(&[ij[0], jk[1]], v * w);
                    space.insert(vec![ij[0], jk[1]]);
                }
            }
            let mut c: Csr<f64> = build(&shape, &ce);
            add_product_into(&mut c, &a, &b).unwrap();
            check_sparse_output(
                &c,
                &elementwise(&cd, &prod, |x, y| x + y),
                &space,
                (&case, "c += a b"),
            );

            // c += s aᵀ into a Dcsr: the whole output in a workspace.
            let at: Vec<(Vec<usize>, f64)> =
                ae.iter().map(|(c, v)| (vec![c[1], c[0]], *v)).collect();
            let a_t: Csr<f64> = build(&[n, m], &at);
            let mut c: Dcsr<f64> = build(&shape, &ce);
            add_scaled_transpose_into(&mut c, &a_t, 2.0).unwrap();
            check_sparse_output(
                &c,
                &elementwise(&cd, &ad, |x, y| x + 2.0 * y),
                &union,
                (&case, "c += s aᵀ"),
            );

            // Into a Coo: the product's pattern is the intersection.
            let c_as_operand: Csr<f64> = build(&shape, &ce);
            let mut space = pattern(&ce);
            space.extend(pattern(&ae).intersection(&pattern(&ce)).cloned());
            let mut c: Coo<f64> = build(&shape, &ce);
            add_into_coo(&mut c, &a, &c_as_operand).unwrap();
            check_sparse_output(
                &c,
                &elementwise(&cd, &elementwise(&ad, &cd, |x, y| x * y), |x, y| x + y),
                &space,
                (&case, "coo"),
            );

            // y += A x into a sparse vector: every row A stores joins y's pattern.
            let (x, xd) = dense_vec(n, seed);
            let ye = random_entries(&[m], density, seed + 7);
            let mut y: SparseVec<f64> = build(&[m], &ye);
            spmv_into_sparse(&mut y, &a, &x).unwrap();
            let ax = matvec(&ad, &xd);
            let yd = DenseT::from_entries(&[m], &ye);
            let mut space = pattern(&ye);
            space.extend(ae.iter().map(|(ij, _)| vec![ij[0]]));
            check_sparse_output(
                &y,
                &elementwise(&yd, &ax, |p, q| p + q),
                &space,
                (&case, "y += A x"),
            );
        });
    }
}

#[test]
fn a_failed_update_leaves_the_output_as_it_was() {
    let ce = random_entries(&[3, 4], 0.5, 1);
    let mut c: Csr<f64> = build(&[3, 4], &ce);
    let before = c.clone();
    let a: Csr<f64> = build(&[3, 5], &[]);
    assert!(matches!(
        add_into(&mut c, &a),
        Err(sparse_runtime::Error::DimensionMismatch { .. })
    ));
    assert_eq!(c, before);
}
