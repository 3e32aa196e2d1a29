//! Sparse outputs appended through a workspace (taco's workspaces, Kjolstad et al. CGO 2019)
//! against a dense oracle: Gustavson SpGEMM over Csr and Dcsr with each accumulator, products
//! whose output rows are sums of rows of other operands, transposition and sums of operands
//! stored in opposite orders into a sparse output, SpMV with sparse vectors, a 3-tensor
//! contraction into Csf3, and the schedule's placements. Each output's stored pattern is
//! checked to be exactly the iteration space's points (no explicit zeros beyond them), and the
//! output is revalidated.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_runtime::{Bcsr, Dia};
use sparse_tests::*;

sparse_kernel! {
    pub fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(workspace(k, hash))]
    pub fn spgemm_hash(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(workspace(i))]
    pub fn spgemm_whole(c: &mut Csr<f64, u32>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(workspace(i, dense))]
    pub fn spgemm_whole_dense(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn spgemm_dcsr_csr(c: &mut Csr<f64>, a: &Dcsr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn spgemm_dcsr(c: &mut Dcsr<f64>, a: &Dcsr<f64>, b: &Dcsr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn spgemm_coo(c: &mut Coo<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn spgemm_csc_out(c: &mut Csc<f64>, a: &Csc<f64>, b: &Csc<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn inner_products(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csc<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn outer_products(c: &mut Csr<f64>, a: &Csc<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn outer_products_dense(c: &mut Dense2<f64>, a: &Csc<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn plus_product(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>, d: &Csr<f64>) {
        a(i, j) = b(i, j) + c(i, k) * d(k, j)
    }
    pub fn minus_scaled_product(a: &mut Dcsr<f64>, b: &Csr<f64>, c: &Csr<f64>, d: &Csr<f64>, s: f64) {
        a(i, j) = b(i, j) - s * c(i, k) * d(k, j)
    }
    pub fn transpose(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) = a(j, i)
    }
    pub fn plus_transpose(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) {
        a(i, j) = b(i, j) + c(j, i)
    }
    pub fn csc_plus_csr(a: &mut Csr<f64>, b: &Csc<f64>, c: &Csr<f64>) {
        a(i, j) = b(i, j) + c(i, j)
    }
    pub fn dia_plus_csr(c: &mut Csr<f64>, a: &Dia<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn bcsr_plus_csr(c: &mut Csr<f64>, a: &Bcsr<f64, 2, 3>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    // A dense prefix in the workspace: `a` by columns cannot give rows of `y` in order.
    pub fn outer_into_dense_rows(y: &mut Tensor<f64, (Dense, Dense, Compressed)>, a: &Csc<f64>, x: &SparseVec<f64>) {
        y(i, j, k) = a(i, j) * x(k)
    }
    pub fn spmv_sparse(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &SparseVec<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_sparse_csc(y: &mut SparseVec<f64>, a: &Csc<f64>, x: &SparseVec<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn contract3(a: &mut Csf3<f64>, b: &Csf3<f64>, c: &Csr<f64>) {
        a(i, j, l) = b(i, j, k) * c(k, l)
    }
}

/// The points of `Σ_j A(i,j) B(j,k)`'s iteration space: `(i, k)` with some `j` stored in both.
fn product_pattern(a: &Pattern, b: &Pattern) -> Pattern {
    let mut out = Pattern::new();
    for ij in a {
        for jk in b.iter().filter(|jk| jk[0] == ij[1]) {
            out.insert(vec![ij[0], jk[1]]);
        }
    }
    out
}

fn product(a: &DenseT<f64>, b: &DenseT<f64>) -> DenseT<f64> {
    let (m, n, p) = (a.dim(0), a.dim(1), b.dim(1));
    let mut c = DenseT::zeros(&[m, p]);
    for i in 0..m {
        for j in 0..n {
            for k in 0..p {
                c.add(&[i, k], a.get(&[i, j]) * b.get(&[j, k]));
            }
        }
    }
    c
}

/// `(m, n, p)`: `A` is `m x n`, `B` is `n x p`; empty, thin and non-square ones included.
const PRODUCT_SHAPES: [[usize; 3]; 8] = [
    [0, 0, 0],
    [0, 3, 2],
    [3, 0, 2],
    [2, 3, 0],
    [1, 1, 1],
    [4, 3, 5],
    [7, 7, 7],
    [9, 4, 12],
];

#[test]
fn spgemm_matches_oracle_in_every_format_and_workspace() {
    for [m, n, p] in PRODUCT_SHAPES {
        sweep(|density, seed| {
            let case = ([m, n, p], density, seed);
            let ae = random_entries(&[m, n], density, case_seed(seed, &[m, n], 0));
            let be = random_entries(
                &[n, p],
                other_density(density, seed, 1),
                case_seed(seed, &[n, p], 1),
            );
            let want = product(
                &DenseT::from_entries(&[m, n], &ae),
                &DenseT::from_entries(&[n, p], &be),
            );
            let space = product_pattern(&pattern(&ae), &pattern(&be));
            let stale = random_entries(&[m, p], 0.5, seed);
            let (a_csr, b_csr): (Csr<f64>, Csr<f64>) = (build(&[m, n], &ae), build(&[n, p], &be));
            let (a_csc, b_csc): (Csc<f64>, Csc<f64>) = (build(&[m, n], &ae), build(&[n, p], &be));
            let (a_dcsr, b_dcsr): (Dcsr<f64>, Dcsr<f64>) =
                (build(&[m, n], &ae), build(&[n, p], &be));

            let mut c: Csr<f64> = build(&[m, p], &stale);
            spgemm(&mut c, &a_csr, &b_csr).unwrap();
            check_sparse_output(&c, &want, &space, (&case, "dense"));
            // The output is reassembled from nothing on every call.
            spgemm(&mut c, &a_csr, &b_csr).unwrap();
            check_sparse_output(&c, &want, &space, (&case, "again"));
            spgemm_hash(&mut c, &a_csr, &b_csr).unwrap();
            check_sparse_output(&c, &want, &space, (&case, "hash"));
            spgemm_whole_dense(&mut c, &a_csr, &b_csr).unwrap();
            check_sparse_output(&c, &want, &space, (&case, "whole dense"));
            spgemm_dcsr_csr(&mut c, &a_dcsr, &b_csr).unwrap();
            check_sparse_output(&c, &want, &space, (&case, "dcsr csr"));
            inner_products(&mut c, &a_csr, &b_csc).unwrap();
            check_sparse_output(&c, &want, &space, (&case, "inner"));
            outer_products(&mut c, &a_csc, &b_csr).unwrap();
            check_sparse_output(&c, &want, &space, (&case, "outer"));

            let mut c32: Csr<f64, u32> = build(&[m, p], &stale);
            spgemm_whole(&mut c32, &a_csr, &b_csr).unwrap();
            check_sparse_output(&c32, &want, &space, (&case, "whole"));
            let mut cd: Dcsr<f64> = build(&[m, p], &stale);
            spgemm_dcsr(&mut cd, &a_dcsr, &b_dcsr).unwrap();
            check_sparse_output(&cd, &want, &space, (&case, "dcsr"));
            let mut co: Coo<f64> = build(&[m, p], &stale);
            spgemm_coo(&mut co, &a_csr, &b_csr).unwrap();
            check_sparse_output(&co, &want, &space, (&case, "coo"));
            let mut cc: Csc<f64> = build(&[m, p], &stale);
            spgemm_csc_out(&mut cc, &a_csc, &b_csc).unwrap();
            check_sparse_output(&cc, &want, &space, (&case, "csc"));
            let mut dense: Dense2<f64> = build(&[m, p], &stale);
            outer_products_dense(&mut dense, &a_csc, &b_csr).unwrap();
            assert_close(dense.vals(), &want, f64::TOL, (&case, "outer dense"));
        });
    }
}

#[test]
fn spgemm_reports_mismatched_shapes() {
    let a: Csr<f64> = build(&[2, 3], &[]);
    let b: Csr<f64> = build(&[4, 2], &[]);
    let mut c: Csr<f64> = build(&[2, 2], &[]);
    assert!(matches!(
        spgemm(&mut c, &a, &b),
        Err(sparse_runtime::Error::DimensionMismatch { .. })
    ));
}

#[test]
fn sums_with_products_match_oracle() {
    for [m, n, _] in PRODUCT_SHAPES {
        sweep(|density, seed| {
            let case = ([m, n], density, seed);
            let be = operand_entries([m, m], density, seed, 0);
            let ce = operand_entries([m, n], density, seed, 1);
            let de = operand_entries([n, m], density, seed, 2);
            let bd = DenseT::from_entries(&[m, m], &be);
            let cd = product(
                &DenseT::from_entries(&[m, n], &ce),
                &DenseT::from_entries(&[n, m], &de),
            );
            let mut space = product_pattern(&pattern(&ce), &pattern(&de));
            space.extend(pattern(&be));
            let (b, c, d): (Csr<f64>, Csr<f64>, Csr<f64>) = (
                build(&[m, m], &be),
                build(&[m, n], &ce),
                build(&[n, m], &de),
            );
            let mut a: Csr<f64> = build(&[m, m], &random_entries(&[m, m], 0.5, seed));
            plus_product(&mut a, &b, &c, &d).unwrap();
            check_sparse_output(
                &a,
                &elementwise(&bd, &cd, |x, y| x + y),
                &space,
                (&case, "+"),
            );
            let mut a: Dcsr<f64> = build(&[m, m], &[]);
            minus_scaled_product(&mut a, &b, &c, &d, 0.5).unwrap();
            check_sparse_output(
                &a,
                &elementwise(&bd, &cd, |x, y| x - 0.5 * y),
                &space,
                (&case, "-"),
            );
        });
    }
}

#[test]
fn operands_in_opposite_orders_match_oracle() {
    for shape in [[0, 0], [0, 3], [1, 1], [3, 5], [6, 6], [11, 4]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let [m, n] = shape;
            let ae = operand_entries([n, m], density, seed, 0);
            let at: Vec<(Vec<usize>, f64)> =
                ae.iter().map(|(c, v)| (vec![c[1], c[0]], *v)).collect();
            let a: Csr<f64> = build(&[n, m], &ae);
            let mut t: Csr<f64> = build(&shape, &random_entries(&shape, 0.3, seed));
            transpose(&mut t, &a).unwrap();
            check_sparse_output(&t, &DenseT::from_entries(&shape, &at), &pattern(&at), case);

            let be = operand_entries(shape, density, seed, 1);
            let bd = DenseT::from_entries(&shape, &be);
            let mut union = pattern(&be);
            union.extend(pattern(&at));
            let want = elementwise(&bd, &DenseT::from_entries(&shape, &at), |x, y| x + y);
            let b: Csr<f64> = build(&shape, &be);
            plus_transpose(&mut t, &b, &a).unwrap();
            check_sparse_output(&t, &want, &union, (&case, "b + cᵀ"));

            let ce = operand_entries(shape, density, seed, 2);
            let (b_csc, c): (Csc<f64>, Csr<f64>) = (build(&shape, &be), build(&shape, &ce));
            let mut union = pattern(&be);
            union.extend(pattern(&ce));
            let want = elementwise(&bd, &DenseT::from_entries(&shape, &ce), |x, y| x + y);
            csc_plus_csr(&mut t, &b_csc, &c).unwrap();
            check_sparse_output(&t, &want, &union, (&case, "csc + csr"));

            let dia = Dia::<f64>::from_entries(&shape, be.iter().cloned()).unwrap();
            let mut union: Pattern = dia.entries().into_iter().map(|(c, _)| c).collect();
            union.extend(pattern(&ce));
            dia_plus_csr(&mut t, &dia, &c).unwrap();
            check_sparse_output(&t, &want, &union, (&case, "dia + csr"));

            let bcsr = Bcsr::<f64, 2, 3>::from_entries(&shape, be.iter().cloned()).unwrap();
            let mut union: Pattern = bcsr.entries().into_iter().map(|(c, _)| c).collect();
            union.extend(pattern(&ce));
            bcsr_plus_csr(&mut t, &bcsr, &c).unwrap();
            check_sparse_output(&t, &want, &union, (&case, "bcsr + csr"));

            let xe = random_entries(&[3], density, seed);
            let a: Csc<f64> = build(&shape, &be);
            let x: SparseVec<f64> = build(&[3], &xe);
            let mut y: Tensor<f64, (Dense, Dense, Compressed)> =
                build(&[m, n, 3], &random_entries(&[m, n, 3], 0.3, seed));
            outer_into_dense_rows(&mut y, &a, &x).unwrap();
            let mut want = DenseT::zeros(&[m, n, 3]);
            let mut space = Pattern::new();
            for (ij, v) in &be {
                for (k, w) in &xe {
                    want.set(&[ij[0], ij[1], k[0]], v * w);
                    space.insert(vec![ij[0], ij[1], k[0]]);
                }
            }
            check_sparse_output(&y, &want, &space, (&case, "outer into dense rows"));
        });
    }
}

#[test]
fn spmv_with_sparse_vectors_matches_oracle() {
    for shape in [[0, 0], [3, 0], [0, 3], [1, 1], [5, 8], [9, 9]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = operand_entries(shape, density, seed, 0);
            let xe = random_entries(&[shape[1]], other_density(density, seed, 3), seed);
            let want = matvec(
                &DenseT::from_entries(&shape, &ae),
                &DenseT::from_entries(&[shape[1]], &xe),
            );
            let xs = pattern(&xe);
            let space: Pattern = pattern(&ae)
                .into_iter()
                .filter(|ij| xs.contains(&vec![ij[1]]))
                .map(|ij| vec![ij[0]])
                .collect();
            let x: SparseVec<f64> = build(&[shape[1]], &xe);
            let (a_csr, a_csc): (Csr<f64>, Csc<f64>) = (build(&shape, &ae), build(&shape, &ae));
            let mut y: SparseVec<f64> = build(&[shape[0]], &random_entries(&[shape[0]], 0.5, 1));
            spmv_sparse(&mut y, &a_csr, &x).unwrap();
            check_sparse_output(&y, &want, &space, (&case, "csr"));
            spmv_sparse_csc(&mut y, &a_csc, &x).unwrap();
            check_sparse_output(&y, &want, &space, (&case, "csc"));
        });
    }
}

#[test]
fn contraction_into_csf3_matches_oracle() {
    for [m, n, q, p] in [
        [0, 0, 0, 0],
        [1, 1, 1, 1],
        [2, 3, 4, 5],
        [4, 2, 3, 3],
        [3, 3, 0, 2],
    ] {
        sweep(|density, seed| {
            let case = ([m, n, q, p], density, seed);
            let be = random_entries(&[m, n, q], density, case_seed(seed, &[m, n, q], 0));
            let ce = random_entries(
                &[q, p],
                other_density(density, seed, 1),
                case_seed(seed, &[q, p], 1),
            );
            let (bd, cd) = (
                DenseT::from_entries(&[m, n, q], &be),
                DenseT::from_entries(&[q, p], &ce),
            );
            let mut want = DenseT::zeros(&[m, n, p]);
            let mut space = Pattern::new();
            for (ijk, _) in &be {
                for (kl, _) in ce.iter().filter(|(kl, _)| kl[0] == ijk[2]) {
                    space.insert(vec![ijk[0], ijk[1], kl[1]]);
                }
            }
            for c in coordinates(&[m, n, q]) {
                for l in 0..p {
                    want.add(&[c[0], c[1], l], bd.get(&c) * cd.get(&[c[2], l]));
                }
            }
            let (b, c): (Csf3<f64>, Csr<f64>) = (build(&[m, n, q], &be), build(&[q, p], &ce));
            let mut a: Csf3<f64> = build(&[m, n, p], &random_entries(&[m, n, p], 0.4, seed));
            contract3(&mut a, &b, &c).unwrap();
            check_sparse_output(&a, &want, &space, case);
        });
    }
}
