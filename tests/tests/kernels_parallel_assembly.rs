//! Sparse outputs whose first level is dense and whose second appends segments (CSR), where
//! each entry takes a loop to compute (a sum below the output's last level: TTV, SDDMM,
//! inner products), are assembled in parallel: over the rows in two phases
//! (`parallel_append_counted`: the sums are dead code in the counting phase), over a root's
//! positions (TTV on a `Csf3`) in chunks of positions, each bounded by its `(i, j)`
//! positions and placed in order (`parallel_append_positions_bounded`), over the runs of a
//! root that is not unique (TTV on a `Coo3`) in chunks of runs, each bounded by its positions
//! (`parallel_append_runs_bounded`).
//! Split at every row (or root position), at every few, and by default, the output equals
//! the serial kernel's (pattern and values bit for bit) and passes validation, on operands
//! with empty rows and empty operands.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

type Dcc = Tensor<f64, (Dense, Compressed, Compressed)>;

sparse_kernel! {
    // Inner products of rows and columns, into 64-bit positions.
    pub fn inner(c: &mut Csr<f64, u64>, a: &Csr<f64>, b: &Csc<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(parallel(never))]
    pub fn inner_serial(c: &mut Csr<f64, u64>, a: &Csr<f64>, b: &Csc<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // SDDMM: a dot product (precomputed) per entry of `b`.
    pub fn sddmm(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
    #[schedule(parallel(never))]
    pub fn sddmm_serial(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
    // TTV: over the rows of a dense root, and over the positions of a sparse one.
    pub fn ttv(c: &mut Csr<f64>, b: &Tensor<f64, (Dense, Compressed, Compressed)>, x: &Dense1<f64>) {
        c(i, j) = b(i, j, k) * x(k)
    }
    #[schedule(parallel(never))]
    pub fn ttv_serial(c: &mut Csr<f64>, b: &Tensor<f64, (Dense, Compressed, Compressed)>, x: &Dense1<f64>) {
        c(i, j) = b(i, j, k) * x(k)
    }
    pub fn ttv_csf(c: &mut Csr<f64>, b: &Csf3<f64>, x: &Dense1<f64>) {
        c(i, j) = b(i, j, k) * x(k)
    }
    #[schedule(parallel(never))]
    pub fn ttv_csf_serial(c: &mut Csr<f64>, b: &Csf3<f64>, x: &Dense1<f64>) {
        c(i, j) = b(i, j, k) * x(k)
    }
    // Over the runs of a root that is not unique: each task starts at a run.
    pub fn ttv_coo(c: &mut Csr<f64>, b: &Coo3<f64>, x: &Dense1<f64>) {
        c(i, j) = b(i, j, k) * x(k)
    }
    #[schedule(parallel(never))]
    pub fn ttv_coo_serial(c: &mut Csr<f64>, b: &Coo3<f64>, x: &Dense1<f64>) {
        c(i, j) = b(i, j, k) * x(k)
    }
    // The old contents are a term, read from a copy while the rows are assembled.
    pub fn ttv_add(c: &mut Csr<f64>, b: &Tensor<f64, (Dense, Compressed, Compressed)>, x: &Dense1<f64>) {
        c(i, j) += b(i, j, k) * x(k)
    }
    #[schedule(parallel(never))]
    pub fn ttv_add_serial(c: &mut Csr<f64>, b: &Tensor<f64, (Dense, Compressed, Compressed)>, x: &Dense1<f64>) {
        c(i, j) += b(i, j, k) * x(k)
    }
}

#[test]
fn inner_products_assembled_by_rows_are_the_serial_ones() {
    for [m, n] in [[0, 3], [1, 1], [9, 6], [40, 10]] {
        sweep(|density, seed| {
            let ae = operand_entries([m, n], density, seed, 0);
            let be = operand_entries([n, m], density, seed, 1);
            let (a, b): (Csr<f64>, Csc<f64>) = (build(&[m, n], &ae), build(&[n, m], &be));
            let mut want = Csr::<f64, u64>::new(&[m, m]).unwrap();
            inner_serial(&mut want, &a, &b).unwrap();
            let (ad, bd) = (
                DenseT::from_entries(&[m, n], &ae),
                DenseT::from_entries(&[n, m], &be),
            );
            assert_close(
                &want.to_dense(),
                &matmul(&ad, &bd),
                1e-12,
                (m, n, density, seed),
            );
            for min in SPLITS {
                let case = ([m, n], density, seed, min);
                // An output that held other entries before.
                let mut c: Csr<f64, u64> =
                    build(&[m, m], &operand_entries([m, m], density, seed, 2));
                with_split(min, || inner(&mut c, &a, &b)).unwrap();
                assert_same_output(&c, &want, case);
            }
        });
    }
}

#[test]
fn sddmm_assembled_by_rows() {
    for [m, n, r] in [[0, 0, 3], [1, 1, 1], [7, 5, 3], [30, 12, 17]] {
        sweep(|density, seed| {
            let s = SddmmCase::new([m, n, r], density, seed);
            let mut want = Csr::<f64>::new(&[m, n]).unwrap();
            sddmm_serial(&mut want, &s.b, &s.c, &s.d).unwrap();
            for min in SPLITS {
                let mut a = Csr::<f64>::new(&[m, n]).unwrap();
                with_split(min, || sddmm(&mut a, &s.b, &s.c, &s.d)).unwrap();
                assert_same_output(&a, &want, ([m, n, r], density, seed, min));
            }
        });
    }
}

#[test]
fn ttv_assembled_by_rows_and_by_root_positions() {
    for [di, dj, dk] in [[0, 2, 2], [1, 1, 1], [13, 5, 4]] {
        sweep(|density, seed| {
            let be = random_entries::<f64>(&[di, dj, dk], density, seed);
            let (b, bf): (Dcc, Csf3<f64>) = (build(&[di, dj, dk], &be), build(&[di, dj, dk], &be));
            let bc: Coo3<f64> = build(&[di, dj, dk], &be);
            let x = Dense1::from_vec(wave(dk, seed));
            let start: Csr<f64> = build(&[di, dj], &random_entries(&[di, dj], density, seed + 5));
            let mut want = Csr::<f64>::new(&[di, dj]).unwrap();
            ttv_serial(&mut want, &b, &x).unwrap();
            let mut want_csf = Csr::<f64>::new(&[di, dj]).unwrap();
            ttv_csf_serial(&mut want_csf, &bf, &x).unwrap();
            let mut want_coo = Csr::<f64>::new(&[di, dj]).unwrap();
            ttv_coo_serial(&mut want_coo, &bc, &x).unwrap();
            assert_same_output(&want_coo, &want_csf, ([di, dj, dk], density, seed, 0));
            // The dense oracle: `c(i, j) = sum_k b(i, j, k) * x(k)` over `b`'s entries.
            let xs = wave(dk, seed);
            let products: Vec<(Vec<usize>, f64)> = be
                .iter()
                .map(|(c, v)| (vec![c[0], c[1]], v * xs[c[2]]))
                .collect();
            let oracle = DenseT::from_entries(&[di, dj], &products);
            assert_close(
                &want_coo.to_dense(),
                &oracle,
                1e-12,
                ([di, dj, dk], density, seed),
            );
            let mut want_add = start.clone();
            ttv_add_serial(&mut want_add, &b, &x).unwrap();
            for min in SPLITS {
                let case = ([di, dj, dk], density, seed, min);
                let mut c = Csr::<f64>::new(&[di, dj]).unwrap();
                with_split(min, || ttv(&mut c, &b, &x)).unwrap();
                assert_same_output(&c, &want, case);
                let mut c = start.clone();
                with_split(min, || ttv_csf(&mut c, &bf, &x)).unwrap();
                assert_same_output(&c, &want_csf, case);
                let mut c = start.clone();
                with_split(min, || ttv_coo(&mut c, &bc, &x)).unwrap();
                assert_same_output(&c, &want_coo, case);
                let mut c = start.clone();
                with_split(min, || ttv_add(&mut c, &b, &x)).unwrap();
                assert_same_output(&c, &want_add, case);
            }
        });
    }
}

/// Enough rows for the default split to make several tasks.
#[test]
fn many_rows_by_default() {
    let (m, n) = (20_000, 50);
    let ae = random_entries::<f64>(&[m, n], 0.1, 3);
    let be = random_entries::<f64>(&[n, n], 0.1, 4);
    let (a, b): (Csr<f64>, Csc<f64>) = (build(&[m, n], &ae), build(&[n, n], &be));
    let mut want = Csr::<f64, u64>::new(&[m, n]).unwrap();
    inner_serial(&mut want, &a, &b).unwrap();
    let mut c = Csr::<f64, u64>::new(&[m, n]).unwrap();
    inner(&mut c, &a, &b).unwrap();
    assert!(want.nnz() > m, "{}", want.nnz());
    assert_same_output(&c, &want, "default split");
}
