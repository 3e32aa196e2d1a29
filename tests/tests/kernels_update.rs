//! Outputs whose old contents are read. `+=` into sparse outputs that are appended (not
//! written in place): the result is the old contents plus the right side, stored on the union
//! of the old pattern and the right side's iteration space; directly where a loop order appends
//! it, through a workspace otherwise. Outputs read on the right side (dense, sparse, hash):
//! every read is of the contents before the call. A call that fails its shape checks leaves
//! the output as it was.
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
    /// Integer division by a stored zero panics.
    pub fn add_quotient(c: &mut SparseVec<i32>, a: &SparseVec<i32>, d: &Dense1<i32>) {
        c(i) += a(i) / d(i)
    }
    pub fn divide_by_self(y: &mut Dense1<i32>, a: &Csr<i32>) {
        y(i) = a(i, j) / y(j)
    }
}

#[test]
fn a_panic_in_an_update_leaves_the_old_contents() {
    let c0 = SparseVec::<i32>::from_entries(&[4], [([1], 7), ([3], 8)]).unwrap();
    let a = SparseVec::<i32>::from_entries(&[4], [([0], 6), ([2], 5)]).unwrap();
    let d = Dense1::from_vec(vec![2, 1, 0, 1]);
    let mut c = c0.clone();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = add_quotient(&mut c, &a, &d);
    }));
    assert!(panicked.is_err(), "6 / 2 then 5 / 0 panics");
    assert_eq!(c, c0, "the old contents are back after the panic");
    add_quotient(&mut c, &a, &Dense1::from_vec(vec![2, 1, 5, 1])).unwrap();
    assert_eq!(
        c.entries(),
        vec![(vec![0], 3), (vec![1], 7), (vec![2], 1), (vec![3], 8)]
    );

    let a = Csr::<i32>::from_entries(&[2, 2], [([0, 1], 4), ([1, 0], 9)]).unwrap();
    let mut y = Dense1::from_vec(vec![3, 0]);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = divide_by_self(&mut y, &a);
    }));
    assert!(panicked.is_err(), "4 / 0 panics");
    assert_eq!(y.as_slice(), &[3, 0]);
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

sparse_kernel! {
    pub fn scale_by_rows(y: &mut SparseVec<f64>, a: &Csr<f64>) {
        y(i) = a(i, j) * y(j)
    }
    pub fn power_step(y: &mut Dense1<f64>, a: &Csr<f64>) {
        y(i) = a(i, j) * y(j)
    }
    pub fn power_step_add(y: &mut Dense1<f64>, a: &Csc<f64>) {
        y(i) += a(i, j) * y(j)
    }
    pub fn mask_by_self(c: &mut Csr<f64>, b: &Csr<f64>) {
        c(i, j) = c(i, j) * b(i, j) + c(i, j)
    }
    pub fn hash_square(c: &mut HashMat<f64>, a: &Csr<f64>) {
        c(i, k) = c(i, j) * a(j, k)
    }
}

/// A read of the output reads its contents before the call, never a component already
/// overwritten: `y = A y` is a matrix-vector product, not a Gauss-Seidel sweep.
#[test]
fn outputs_read_on_the_right_side_read_their_old_contents() {
    for n in [0, 1, 4, 9] {
        sweep(|density, seed| {
            let case = (n, density, seed);
            let ae = operand_entries([n, n], density, seed, 0);
            let ad = DenseT::from_entries(&[n, n], &ae);
            let (a, a_csc): (Csr<f64>, Csc<f64>) = (build(&[n, n], &ae), build(&[n, n], &ae));
            let (mut y, yd) = dense_vec(n, seed);
            power_step(&mut y, &a).unwrap();
            assert_close(y.vals(), &matvec(&ad, &yd), f64::TOL, (&case, "y = A y"));
            let (mut y, yd) = dense_vec(n, seed);
            power_step_add(&mut y, &a_csc).unwrap();
            let want = elementwise(&yd, &matvec(&ad, &yd), |p, q| p + q);
            assert_close(y.vals(), &want, f64::TOL, (&case, "y += A y"));

            let ye = random_entries(&[n], density, seed + 3);
            let mut y: SparseVec<f64> = build(&[n], &ye);
            scale_by_rows(&mut y, &a).unwrap();
            let yd = DenseT::from_entries(&[n], &ye);
            let ys = pattern(&ye);
            let space: Pattern = ae
                .iter()
                .filter(|(ij, _)| ys.contains(&vec![ij[1]]))
                .map(|(ij, _)| vec![ij[0]])
                .collect();
            check_sparse_output(&y, &matvec(&ad, &yd), &space, (&case, "sparse y = A y"));

            let be = operand_entries([n, n], density, seed, 1);
            let bd = DenseT::from_entries(&[n, n], &be);
            let b: Csr<f64> = build(&[n, n], &be);
            let mut c: Csr<f64> = build(&[n, n], &ae);
            mask_by_self(&mut c, &b).unwrap();
            let want = elementwise(&ad, &bd, |p, q| p * q + p);
            check_sparse_output(&c, &want, &pattern(&ae), (&case, "c = c b + c"));

            let mut h: HashMat<f64> = build(&[n, n], &ae);
            hash_square(&mut h, &a).unwrap();
            let mut want = DenseT::zeros(&[n, n]);
            for (ij, v) in &ae {
                for (jk, w) in ae.iter().filter(|(jk, _)| jk[0] == ij[1]) {
                    want.add(&[ij[0], jk[1]], v * w);
                }
            }
            assert_close(&h.to_dense(), &want, f64::TOL, (&case, "h = h a"));
            revalidate(&h);
        });
    }
}
