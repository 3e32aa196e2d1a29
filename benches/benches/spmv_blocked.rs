//! SpMV on the block formats, each comparison one criterion group in one run:
//!
//! - `bcsr_fem3_307k`: `y = A x` on a finite-element-like matrix of 3 x 3 blocks (a 320 x 320
//!   grid of nodes with 3 unknowns each, every node coupled with itself and its 8 neighbours:
//!   307,200 rows, 917,764 blocks, 8,259,876 entries): generated `Bcsr<f64, 3, 3>`, a
//!   hand-written BCSR loop over the same arrays, generated `Csr`, sprs.
//! - `csb_fem3_307k` (the same matrix) and `csb_poisson_1M` (the 2-D Poisson matrix of a
//!   1000 x 1000 grid: 1M rows, 4,996,000 entries): `y = A x` and `y = Aᵀ x` from one `Csb`
//!   copy, against `Csr` (`A x` a gather, `Aᵀ x` a scatter) and `Csc` (`A x` a scatter, `Aᵀ x`
//!   a gather: what a second, transposed copy buys), all generated. `Csb` has its default block
//!   size (`Csb::default_block`: 512 and 1024).
//!
//! Run with `cargo bench -p sparse-benches --bench spmv_blocked`.

mod common;
use common::{check_close, group, sprs_csr, sprs_spmv};
use criterion::{criterion_group, criterion_main, Criterion};
use sparse_benches::{fem_2d_blocks, poisson_2d, test_vector, CsrArrays};
use sparse_runtime::prelude::*;
use std::hint::black_box;

/// Node grid side of the FEM matrix: `3 * G * G = 307,200` rows.
const G: usize = 320;

/// Grid side of the Poisson matrix: `N * N = 1,000,000` rows.
const N: usize = 1000;

sparse_kernel! {
    /// Generated BCSR SpMV: block by block, dense loops inside each block.
    fn spmv_bcsr(y: &mut Dense1<f64>, a: &Bcsr<f64, 3, 3>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// Generated CSR SpMV (a gather per row).
    fn spmv_csr(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// Generated transposed CSR SpMV (a scatter per row).
    fn spmv_t_csr(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(j) = a(i, j) * x(i)
    }

    /// Generated CSC SpMV (a scatter per column).
    fn spmv_csc(y: &mut Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// Generated transposed CSC SpMV (a gather per column).
    fn spmv_t_csc(y: &mut Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
        y(j) = a(i, j) * x(i)
    }

    /// Generated CSB SpMV: block by block, entry by entry.
    fn spmv_csb(y: &mut Dense1<f64>, a: &Csb<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// Generated transposed CSB SpMV: the same walk with the roles of `i` and `j` swapped.
    fn spmv_t_csb(y: &mut Dense1<f64>, a: &Csb<f64>, x: &Dense1<f64>) {
        y(j) = a(i, j) * x(i)
    }
}

/// A hand-written 3 x 3 BCSR SpMV: per block row, three running sums in registers; per block,
/// the three `x` values it covers, and per block row of the block the sum of its three
/// products added to that row's running sum (all loops of constant length 3, fully unrolled).
/// Unchecked indexing, justified by the invariants `Bcsr` validates at construction. (The
/// same loop over safe iterators, `chunks_exact(9)` and a bounds-checked `x[j..j + 3]`,
/// compiles to the same inner loop plus one compare per block.)
///
/// # Panics
/// If `x` or `y` does not match the shape of `a`, or the shape is not a multiple of 3 (this
/// loop has no code for blocks cut by the matrix edge).
fn spmv_bcsr_hand(a: &Bcsr<f64, 3, 3>, x: &[f64], y: &mut [f64]) {
    let (rows, cols) = (a.shape()[0], a.shape()[1]);
    assert_eq!((y.len(), x.len()), (rows, cols));
    assert!(rows % 3 == 0 && cols % 3 == 0, "no edge blocks");
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    for (bi, yb) in y.chunks_exact_mut(3).enumerate() {
        let mut sums = [0.0; 3];
        // SAFETY: a validated `Bcsr` of `rows / 3` block rows has `rows / 3 + 1`
        // non-decreasing block row bounds ending at `col_idx.len()`, `9 * col_idx.len()`
        // values, and block columns below `cols / 3`, so `3 * j + 2 < cols == x.len()`.
        unsafe {
            let lo = *row_ptr.get_unchecked(bi) as usize;
            let hi = *row_ptr.get_unchecked(bi + 1) as usize;
            for b in lo..hi {
                let j = 3 * *col_idx.get_unchecked(b) as usize;
                let xb = [
                    *x.get_unchecked(j),
                    *x.get_unchecked(j + 1),
                    *x.get_unchecked(j + 2),
                ];
                let v = vals.get_unchecked(9 * b..9 * b + 9);
                for (r, sum) in sums.iter_mut().enumerate() {
                    let mut t = 0.0;
                    for (c, xc) in xb.iter().enumerate() {
                        t += v[3 * r + c] * xc;
                    }
                    *sum += t;
                }
            }
        }
        yb.copy_from_slice(&sums);
    }
}

/// BCSR against CSR on the FEM matrix.
fn bench_bcsr(c: &mut Criterion) {
    let blocks = fem_2d_blocks::<u32>(G);
    let m = blocks.to_csr_arrays();
    let a = blocks.to_bcsr();
    let a_csr = m.to_csr();
    let a_sprs = sprs_csr(&m);
    let x_vec = test_vector(m.cols);
    let x = Dense1::from_vec(x_vec.clone());
    let mut y = Dense1::zeros(m.rows);
    let mut y_plain = vec![0.0; m.rows];

    spmv_csr(&mut y, &a_csr, &x).expect("shapes match");
    let expected = y.as_slice().to_vec();
    spmv_bcsr(&mut y, &a, &x).expect("shapes match");
    check_close("generated bcsr", y.as_slice(), &expected);
    spmv_bcsr_hand(&a, &x_vec, &mut y_plain);
    check_close("hand bcsr", &y_plain, &expected);
    sprs_spmv(&a_sprs, &x_vec, &mut y_plain);
    check_close("sprs", &y_plain, &expected);

    let mut g = group(c, "bcsr_fem3_307k", m.nnz());
    g.bench_function("generated_bcsr", |b| {
        b.iter(|| spmv_bcsr(black_box(&mut y), &a, &x).expect("shapes match"))
    });
    g.bench_function("hand_bcsr", |b| {
        b.iter(|| spmv_bcsr_hand(&a, &x_vec, black_box(&mut y_plain)))
    });
    g.bench_function("generated_csr", |b| {
        b.iter(|| spmv_csr(black_box(&mut y), &a_csr, &x).expect("shapes match"))
    });
    g.bench_function("sprs_csr", |b| {
        b.iter(|| sprs_spmv(&a_sprs, &x_vec, black_box(&mut y_plain)))
    });
    g.finish();
}

/// `A x` and `Aᵀ x` from one `Csb` (default block size) against `Csr` and `Csc` on `m`.
fn bench_csb_on(c: &mut Criterion, name: &str, m: &CsrArrays<u32>) {
    let a_csr = m.to_csr();
    let a_csc = m.to_csc();
    let a_csb = m.to_csb(Csb::<f64>::default_block(m.rows, m.cols));
    let x = Dense1::from_vec(test_vector(m.cols));
    let xt = Dense1::from_vec(test_vector(m.rows));
    let mut y = Dense1::zeros(m.rows);
    let mut yt = Dense1::zeros(m.cols);

    spmv_csr(&mut y, &a_csr, &x).expect("shapes match");
    let expected = y.as_slice().to_vec();
    spmv_t_csr(&mut yt, &a_csr, &xt).expect("shapes match");
    let expected_t = yt.as_slice().to_vec();
    spmv_csb(&mut y, &a_csb, &x).expect("shapes match");
    check_close("generated csb A x", y.as_slice(), &expected);
    spmv_csc(&mut y, &a_csc, &x).expect("shapes match");
    check_close("generated csc A x", y.as_slice(), &expected);
    spmv_t_csb(&mut yt, &a_csb, &xt).expect("shapes match");
    check_close("generated csb Aᵀ x", yt.as_slice(), &expected_t);
    spmv_t_csc(&mut yt, &a_csc, &xt).expect("shapes match");
    check_close("generated csc Aᵀ x", yt.as_slice(), &expected_t);

    let mut g = group(c, name, m.nnz());
    g.bench_function("csb_ax", |b| {
        b.iter(|| spmv_csb(black_box(&mut y), &a_csb, &x).expect("shapes match"))
    });
    g.bench_function("csb_atx", |b| {
        b.iter(|| spmv_t_csb(black_box(&mut yt), &a_csb, &xt).expect("shapes match"))
    });
    g.bench_function("csr_ax", |b| {
        b.iter(|| spmv_csr(black_box(&mut y), &a_csr, &x).expect("shapes match"))
    });
    g.bench_function("csr_atx", |b| {
        b.iter(|| spmv_t_csr(black_box(&mut yt), &a_csr, &xt).expect("shapes match"))
    });
    g.bench_function("csc_ax", |b| {
        b.iter(|| spmv_csc(black_box(&mut y), &a_csc, &x).expect("shapes match"))
    });
    g.bench_function("csc_atx", |b| {
        b.iter(|| spmv_t_csc(black_box(&mut yt), &a_csc, &xt).expect("shapes match"))
    });
    g.finish();
}

fn bench_csb(c: &mut Criterion) {
    bench_csb_on(c, "csb_fem3_307k", &fem_2d_blocks::<u32>(G).to_csr_arrays());
    bench_csb_on(c, "csb_poisson_1M", &poisson_2d::<u32>(N));
}

criterion_group!(benches, bench_bcsr, bench_csb);
criterion_main!(benches);
