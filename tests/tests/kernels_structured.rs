//! Structured formats (`Dia`, remapped; `Ell`, slotted rows) as inputs, against a dense
//! oracle: SpMV (diagonal by diagonal, row by row), products with dense and sparse vectors,
//! element-wise sums and products into outputs written in place or appended (`Ell + Csr` into
//! `Csr`), sums and reductions. Shapes include empty and non-square matrices, densities from
//! empty to full.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn spmv_dia(y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_ell(y: &mut Dense1<f64>, a: &Ell<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_t_dia(y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>) {
        y(j) = a(i, j) * x(i)
    }
    pub fn spmv_ell_sparse_x(y: &mut Dense1<f64>, a: &Ell<f64>, x: &SparseVec<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_ell_sparse_y(y: &mut SparseVec<f64>, a: &Ell<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn add_dia_csr(c: &mut Dense2<f64>, a: &Dia<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn add_ell_csr_hm(c: &mut HashMat<f64>, a: &Ell<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    // A row of ELL slots is one ordered segment: merged with a CSR row in column order.
    pub fn add_ell_csr(c: &mut Csr<f64>, a: &Ell<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn mul_ell_csr(c: &mut Csr<f64>, a: &Ell<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    // Four operands merge compactly (one loop, presence flags): ELL's padding is skipped there
    // too.
    pub fn add4_ell(c: &mut Csr<f64>, a: &Ell<f64>, b: &Csr<f64>, d: &Ell<f64>, e: &Coo<f64>) {
        c(i, j) = a(i, j) + b(i, j) + d(i, j) + e(i, j)
    }
    pub fn mul_dia_dense(c: &mut Dense2<f64>, a: &Dia<f64>, b: &Dense2<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    pub fn mul_ell_dia(c: &mut HashMat<f64>, a: &Ell<f64>, b: &Dia<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    pub fn sum_dia(s: &mut f64, a: &Dia<f64>) {
        s = a(i, j)
    }
    pub fn dia_plus_dia(c: &mut Dense2<f64>, a: &Dia<f64>, b: &Dia<f64>) {
        c(i, j) = a(i, j) - b(i, j)
    }
    // A remapped operand's hidden sum (over diagonals, over slots) belongs to its access: it
    // never spreads over the other terms of an addition around it (difftest CI kernel 240
    // summed `b(i)` once per diagonal).
    pub fn scaled_difference_dia(c: &mut Dense2<f64>, b: &Dense2<f64>, a: &Dia<f64>, alpha: f64) {
        c(i, j) = alpha * (b(i, j) - a(i, j))
    }
    // A product over a sum of differently ordered operands: distributed into one loop nest
    // per term (difftest CI kernel 188).
    pub fn sum_times_dia_ell(c: &mut Dense2<f64>, a: &Dia<f64>, b: &Ell<f64>, h: &HashMat<f64>) {
        c(i, j) = -((a(i, j) - b(i, j)) * h(i, j))
    }
    // An ELL column is merged (not fused) when a union sits above it: its empty slots must
    // give empty segments, never the padding coordinate (sweep kernel 13000206 read
    // `w(u32::MAX)`).
    pub fn ell_t_times_union(g: &mut Dense1<f64>, y: &Dense2<f64>, b: &HashVec<f64>, w: &Dense1<f64>, x: &Ell<f64>) {
        g(i) = (y(i, l) * b(l) + w(i)) * x(l, i)
    }
    // COO in array-of-structs layout: SpMV is one loop over the pairs; a union with CSR rows
    // deduplicates its row runs; with a DIA operand the sum is split into nests.
    pub fn spmv_coo_aos(y: &mut Dense1<f64>, a: &CooAos<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn add_coo_aos_csr(c: &mut Csr<f64>, a: &CooAos<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn mul_coo_aos_ell(c: &mut Coo<f64>, a: &CooAos<f64>, b: &Ell<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    pub fn sum_spmv_dia_csr(y: &mut Dense1<f64>, a: &Dia<f64>, b: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = (a(i, j) + b(i, j)) * x(j)
    }
}

const SHAPES: [[usize; 2]; 6] = [[0, 0], [1, 1], [3, 5], [5, 3], [8, 8], [17, 9]];

#[test]
fn spmv_matches_oracle() {
    for shape in SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = operand_entries(shape, density, seed, 0);
            let dia = Dia::<f64>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let ell = Ell::<f64>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let ad = DenseT::from_entries(&shape, &ae);
            let (x, xd) = dense_vec(shape[1], seed);
            let (xt, xtd) = dense_vec(shape[0], seed + 1);
            let mut y: Dense1<f64> = build(&[shape[0]], &nonzero_entries(&[shape[0]], seed));
            spmv_dia(&mut y, &dia, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
            spmv_ell(&mut y, &ell, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
            let mut yt: Dense1<f64> = build(&[shape[1]], &nonzero_entries(&[shape[1]], seed));
            spmv_t_dia(&mut yt, &dia, &xt).unwrap();
            let mut expect = DenseT::zeros(&[shape[1]]);
            for (c, v) in &ae {
                expect.add(&[c[1]], v * xtd.get(&[c[0]]));
            }
            assert_close(yt.vals(), &expect, f64::TOL, case);
        });
    }
}

/// The entries of a `[n, 1]` matrix as a vector's.
fn entries_1d(e: &[(Vec<usize>, f64)]) -> Vec<(Vec<usize>, f64)> {
    e.iter().map(|(c, v)| (vec![c[0]], *v)).collect()
}

#[test]
fn elementwise_and_reductions_match_oracle() {
    for shape in SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = operand_entries(shape, density, seed, 0);
            let be = operand_entries(shape, density, seed, 1);
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let a_dia = Dia::<f64>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let a_ell = Ell::<f64>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let b_dia = Dia::<f64>::from_entries(&shape, be.iter().cloned()).unwrap();
            let b_csr: Csr<f64> = build(&shape, &be);
            let b_dense: Dense2<f64> = build(&shape, &be);
            let garbage = nonzero_entries(&shape, seed);
            let mut c: Dense2<f64> = build(&shape, &garbage);
            let mut h: HashMat<f64> = build(&shape, &garbage);

            add_dia_csr(&mut c, &a_dia, &b_csr).unwrap();
            assert_close(
                c.vals(),
                &elementwise(&ad, &bd, |x, y| x + y),
                f64::TOL,
                case,
            );
            mul_dia_dense(&mut c, &a_dia, &b_dense).unwrap();
            assert_close(
                c.vals(),
                &elementwise(&ad, &bd, |x, y| x * y),
                f64::TOL,
                case,
            );
            dia_plus_dia(&mut c, &a_dia, &b_dia).unwrap();
            assert_close(
                c.vals(),
                &elementwise(&ad, &bd, |x, y| x - y),
                f64::TOL,
                case,
            );

            let b_ell = Ell::<f64>::from_entries(&shape, be.iter().cloned()).unwrap();
            let b_coo: Coo<f64> = build(&shape, &be);
            let mut cs: Csr<f64> = build(&shape, &garbage);
            add_ell_csr(&mut cs, &a_ell, &b_csr).unwrap();
            assert_close(
                &cs.to_dense(),
                &elementwise(&ad, &bd, |x, y| x + y),
                f64::TOL,
                case,
            );
            revalidate(&cs);
            // Stored exactly where an operand stores an entry.
            let union: std::collections::BTreeSet<_> =
                ae.iter().chain(&be).map(|(c, _)| c.clone()).collect();
            assert_eq!(cs.nnz(), union.len(), "{case:?}");
            mul_ell_csr(&mut cs, &a_ell, &b_csr).unwrap();
            assert_close(
                &cs.to_dense(),
                &elementwise(&ad, &bd, |x, y| x * y),
                f64::TOL,
                case,
            );
            revalidate(&cs);
            add4_ell(&mut cs, &a_ell, &b_csr, &b_ell, &b_coo).unwrap();
            assert_close(
                &cs.to_dense(),
                &elementwise(&ad, &bd, |x, y| x + 3.0 * y),
                f64::TOL,
                case,
            );
            revalidate(&cs);

            add_ell_csr_hm(&mut h, &a_ell, &b_csr).unwrap();
            assert_close(
                &h.to_dense(),
                &elementwise(&ad, &bd, |x, y| x + y),
                f64::TOL,
                case,
            );
            revalidate(&h);
            mul_ell_dia(&mut h, &a_ell, &b_dia).unwrap();
            assert_close(
                &h.to_dense(),
                &elementwise(&ad, &bd, |x, y| x * y),
                f64::TOL,
                case,
            );
            revalidate(&h);

            let mut s = 7.0;
            sum_dia(&mut s, &a_dia).unwrap();
            let total: f64 = ae.iter().map(|(_, v)| v).sum();
            assert_scalar_close(s, total, f64::TOL, case);

            // Sparse vectors meet ELL rows, and a sparse output is appended row by row.
            let xe = random_entries(&[shape[1]], density, case_seed(seed, &shape, 2));
            let x: SparseVec<f64> = build(&[shape[1]], &xe);
            let xd = DenseT::from_entries(&[shape[1]], &xe);
            let mut y: Dense1<f64> = build(&[shape[0]], &nonzero_entries(&[shape[0]], seed));
            spmv_ell_sparse_x(&mut y, &a_ell, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
            let (xdn, xdd) = dense_vec(shape[1], seed);
            let mut ys: SparseVec<f64> = build(&[shape[0]], &nonzero_entries(&[shape[0]], seed));
            spmv_ell_sparse_y(&mut ys, &a_ell, &xdn).unwrap();
            assert_close(&ys.to_dense(), &matvec(&ad, &xdd), f64::TOL, case);
            revalidate(&ys);
        });
    }
}

#[test]
fn remapped_operands_inside_products_and_sums_match_oracle() {
    for shape in SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = operand_entries(shape, density, seed, 0);
            let be = operand_entries(shape, density, seed, 1);
            let he = operand_entries(shape, density, seed, 2);
            let (ad, bd, hd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
                DenseT::from_entries(&shape, &he),
            );
            let a_dia = Dia::<f64>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let b_ell = Ell::<f64>::from_entries(&shape, be.iter().cloned()).unwrap();
            let b_csr: Csr<f64> = build(&shape, &be);
            let h: HashMat<f64> = build(&shape, &he);
            let b_dense: Dense2<f64> = build(&shape, &be);
            let (x, xd) = dense_vec(shape[1], seed);

            let mut c: Dense2<f64> = build(&shape, &nonzero_entries(&shape, seed));
            scaled_difference_dia(&mut c, &b_dense, &a_dia, 1.5).unwrap();
            assert_close(
                c.vals(),
                &elementwise(&bd, &ad, |b, a| 1.5 * (b - a)),
                f64::TOL,
                case,
            );

            sum_times_dia_ell(&mut c, &a_dia, &b_ell, &h).unwrap();
            let diff = elementwise(&ad, &bd, |x, y| x - y);
            assert_close(
                c.vals(),
                &elementwise(&diff, &hd, |d, h| -(d * h)),
                f64::TOL,
                case,
            );

            // g(i) = Σ_l (y(i,l) b(l) + w(i)) x(l,i), with x = b_ell (l by i) and y = hᵀ.
            let (w, wd) = dense_vec(shape[1], seed + 2);
            let be_vec = operand_entries([shape[0], 1], density, seed, 3);
            let b_hash: HashVec<f64> = build(&[shape[0]], &entries_1d(&be_vec));
            let ye: Vec<(Vec<usize>, f64)> =
                he.iter().map(|(c, v)| (vec![c[1], c[0]], *v)).collect();
            let y_dense: Dense2<f64> = build(&[shape[1], shape[0]], &ye);
            let mut g: Dense1<f64> = build(&[shape[1]], &nonzero_entries(&[shape[1]], seed));
            ell_t_times_union(&mut g, &y_dense, &b_hash, &w, &b_ell).unwrap();
            let bv = DenseT::from_entries(&[shape[0]], &entries_1d(&be_vec));
            let mut expect = DenseT::zeros(&[shape[1]]);
            for (c, xv) in &be {
                let (l, i) = (c[0], c[1]);
                let left = hd.get(&[l, i]) * bv.get(&[l]) + wd.get(&[i]);
                expect.add(&[i], left * xv);
            }
            assert_close(g.vals(), &expect, f64::TOL, case);

            let mut y: Dense1<f64> = build(&[shape[0]], &nonzero_entries(&[shape[0]], seed));
            sum_spmv_dia_csr(&mut y, &a_dia, &b_csr, &x).unwrap();
            let sum = elementwise(&ad, &bd, |x, y| x + y);
            assert_close(y.vals(), &matvec(&sum, &xd), f64::TOL, case);
        });
    }
}

#[test]
fn coo_aos_matches_oracle() {
    for shape in SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = operand_entries(shape, density, seed, 0);
            let be = operand_entries(shape, density, seed, 1);
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let a = CooAos::<f64>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let b: Csr<f64> = build(&shape, &be);
            let b_ell = Ell::<f64>::from_entries(&shape, be.iter().cloned()).unwrap();
            let (x, xd) = dense_vec(shape[1], seed);
            let mut y: Dense1<f64> = build(&[shape[0]], &nonzero_entries(&[shape[0]], seed));
            spmv_coo_aos(&mut y, &a, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
            let garbage = nonzero_entries(&shape, seed);
            let mut c: Csr<f64> = build(&shape, &garbage);
            add_coo_aos_csr(&mut c, &a, &b).unwrap();
            let sum = elementwise(&ad, &bd, |x, y| x + y);
            assert_close(&c.to_dense(), &sum, f64::TOL, case);
            revalidate(&c);
            let mut co: Coo<f64> = build(&shape, &garbage);
            mul_coo_aos_ell(&mut co, &a, &b_ell).unwrap();
            let product = elementwise(&ad, &bd, |x, y| x * y);
            assert_close(&co.to_dense(), &product, f64::TOL, case);
            revalidate(&co);
        });
    }
}

/// ELL rows with no entry, with exactly `width` entries, one entry at the last column, and a
/// matrix of width 0: SpMV and `Ell + Csr` into `Csr` against the oracle.
#[test]
fn ell_edge_rows_match_oracle() {
    let pad = u32::MAX;
    #[rustfmt::skip]
    let cols = vec![
        0, 2, 5,        // full row
        pad, pad, pad,  // empty row
        5, pad, pad,    // one entry, last column
        1, 3, 4,        // full row
    ];
    let vals = vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 5.0, 6.0, 7.0];
    let a = Ell::<f64>::from_ell_arrays(4, 6, 3, cols, vals).unwrap();
    let width0 = Ell::<f64>::from_ell_arrays(4, 6, 0, vec![], vec![]).unwrap();
    let be = vec![(vec![1, 0], 8.0), (vec![2, 5], 9.0), (vec![3, 0], 10.0)];
    let b: Csr<f64> = build(&[4, 6], &be);
    let bd = DenseT::from_entries(&[4, 6], &be);
    let (x, xd) = dense_vec(6, 3);
    for a in [a, width0] {
        let ad = DenseT::from_entries(&[4, 6], &a.entries());
        let mut y = Dense1::zeros(4);
        spmv_ell(&mut y, &a, &x).unwrap();
        assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, a.width());
        let mut c = Csr::<f64>::new(&[4, 6]).unwrap();
        add_ell_csr(&mut c, &a, &b).unwrap();
        let expect = elementwise(&ad, &bd, |x, y| x + y);
        assert_close(&c.to_dense(), &expect, f64::TOL, a.width());
        revalidate(&c);
    }
}

/// DIA with one diagonal at either extreme offset (one component each), with an all-zero
/// diagonal between them, and with no diagonal at all: SpMV, transposed SpMV and a sum with
/// `Csr` against the oracle.
#[test]
fn dia_extreme_and_empty_diagonals_match_oracle() {
    let (n, m) = (4, 6);
    // Offset -3 holds (3, 0) at slot 3, offset 0 is all zero, offset 5 holds (0, 5) at slot 0.
    let mut three = vec![0.0; 3 * n];
    three[3] = 2.0;
    three[2 * n] = 7.0;
    let cases = [
        Dia::<f64>::from_diagonals(n, m, vec![-3], vec![0.0, 0.0, 0.0, 2.0]).unwrap(),
        Dia::<f64>::from_diagonals(n, m, vec![5], vec![7.0, 0.0, 0.0, 0.0]).unwrap(),
        Dia::<f64>::from_diagonals(n, m, vec![-3, 0, 5], three).unwrap(),
        Dia::<f64>::new(&[n, m]).unwrap(),
    ];
    let be = vec![(vec![3, 0], 1.0), (vec![0, 5], -1.0), (vec![1, 1], 4.0)];
    let b: Csr<f64> = build(&[n, m], &be);
    let bd = DenseT::from_entries(&[n, m], &be);
    let (x, xd) = dense_vec(m, 5);
    let (xt, xtd) = dense_vec(n, 6);
    for (k, a) in cases.iter().enumerate() {
        let ad = DenseT::from_entries(&[n, m], &a.entries());
        let mut y = Dense1::from_vec(vec![9.0; n]);
        spmv_dia(&mut y, a, &x).unwrap();
        assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, k);
        let mut yt = Dense1::from_vec(vec![9.0; m]);
        spmv_t_dia(&mut yt, a, &xt).unwrap();
        let mut expect = DenseT::zeros(&[m]);
        for (c, v) in a.entries() {
            expect.add(&[c[1]], v * xtd.get(&[c[0]]));
        }
        assert_close(yt.vals(), &expect, f64::TOL, k);
        let mut c = Dense2::zeros(n, m);
        add_dia_csr(&mut c, a, &b).unwrap();
        assert_close(c.vals(), &elementwise(&ad, &bd, |x, y| x + y), f64::TOL, k);
    }
}
