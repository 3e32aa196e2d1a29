//! Windows (Henry et al. 2021, section 7.3): adding a window of a matrix to another matrix,
//! read in place versus copied out first.
//!
//! - `row_window_add`: `C = A[lo..hi, :] + B`, `A` 1,000,000 x 1,000,000 with 8 uniformly
//!   random entries per row, the window its middle 500,000 rows, `B` 500,000 x 1,000,000 of 8
//!   per row. `generated_window`: one kernel, `c(i, j) = a(i[lo..hi], j) + b(i, j)`, whose
//!   rows of `A` are located at `lo + i`. `copy_then_add`: the rows copied out into a fresh
//!   `Csr` (three slice copies and a shift of the row pointers: the cheapest copy there is,
//!   `Csr::from_csr_arrays` validating it), then the plain generated add.
//! - `column_window_add`: `C = A[:, lo..hi] + B`, the middle half of the columns of `A`
//!   (`B` 1,000,000 x 500,000). `generated_window`: each row of `A` narrowed to the window by
//!   two binary searches. `copy_then_add`: each row's entries in the window copied out (a
//!   filter of every entry of `A`, columns shifted), then the plain add.
//!
//! Outputs are `Csr`s reused across calls. Before timing, both contenders' results are
//! checked equal.
//!
//! Run with `cargo bench -p sparse-benches --bench windows`; with
//! `SPARSE_BENCH_INTERLEAVE=20`, each group is first also timed in interleaved rounds.

mod common;
use common::{group, interleaved};
use criterion::{criterion_group, criterion_main, Criterion};
use sparse_benches::random_uniform;
use sparse_runtime::prelude::*;
use std::hint::black_box;

const N: usize = 1_000_000;

sparse_kernel! {
    fn add(c: &mut Csr<f64, u32>, a: &Csr<f64, u32>, b: &Csr<f64, u32>) {
        c(i, j) = a(i, j) + b(i, j)
    }

    fn add_row_window(c: &mut Csr<f64, u32>, a: &Csr<f64, u32>, b: &Csr<f64, u32>, lo: usize, hi: usize) {
        c(i, j) = a(i[lo..hi], j) + b(i, j)
    }

    fn add_column_window(c: &mut Csr<f64, u32>, a: &Csr<f64, u32>, b: &Csr<f64, u32>, lo: usize, hi: usize) {
        c(i, j) = a(i, j[lo..hi]) + b(i, j)
    }
}

/// Rows `lo..hi` of `a` as a new `Csr`.
fn copy_rows(a: &Csr<f64, u32>, lo: usize, hi: usize) -> Csr<f64, u32> {
    let (pos, crd) = (a.levels().1.pos(), a.levels().1.crd());
    let (start, end) = (pos[lo] as usize, pos[hi] as usize);
    let row_ptr: Vec<u32> = pos[lo..=hi].iter().map(|&p| p - pos[lo]).collect();
    Csr::from_csr_arrays(
        hi - lo,
        a.shape()[1],
        row_ptr,
        crd[start..end].to_vec(),
        a.vals()[start..end].to_vec(),
    )
    .expect("a window of a valid matrix is valid")
}

/// Columns `lo..hi` of `a` as a new `Csr`.
fn copy_columns(a: &Csr<f64, u32>, lo: usize, hi: usize) -> Csr<f64, u32> {
    let (pos, crd, vals) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    let mut row_ptr = Vec::with_capacity(a.shape()[0] + 1);
    let (mut col_idx, mut out) = (Vec::new(), Vec::new());
    row_ptr.push(0u32);
    for r in 0..a.shape()[0] {
        for p in pos[r] as usize..pos[r + 1] as usize {
            let c = crd[p] as usize;
            if (lo..hi).contains(&c) {
                col_idx.push((c - lo) as u32);
                out.push(vals[p]);
            }
        }
        row_ptr.push(col_idx.len() as u32);
    }
    Csr::from_csr_arrays(a.shape()[0], hi - lo, row_ptr, col_idx, out)
        .expect("a window of a valid matrix is valid")
}

fn bench_windows(c: &mut Criterion) {
    let a = random_uniform::<u32>(N, N, 8, 1).to_csr();
    let (lo, hi) = (N / 4, N / 4 + N / 2);

    let b = random_uniform::<u32>(N / 2, N, 8, 2).to_csr();
    let mut c1 = b.clone();
    let mut c2 = b.clone();
    add_row_window(&mut c1, &a, &b, lo, hi).unwrap();
    add(&mut c2, &copy_rows(&a, lo, hi), &b).unwrap();
    assert!(c1 == c2, "row windows disagree");
    interleaved(
        "row_window_add",
        &mut [
            ("copy_then_add", &mut || {
                let w = copy_rows(black_box(&a), lo, hi);
                add(&mut c2, &w, &b).unwrap()
            }),
            ("generated_window", &mut || {
                add_row_window(&mut c1, black_box(&a), &b, lo, hi).unwrap()
            }),
        ],
    );
    let mut g = group(c, "row_window_add", c1.nnz());
    g.bench_function("generated_window", |t| {
        t.iter(|| add_row_window(&mut c1, black_box(&a), &b, lo, hi).unwrap())
    });
    g.bench_function("copy_then_add", |t| {
        t.iter(|| {
            let w = copy_rows(black_box(&a), lo, hi);
            add(&mut c2, &w, &b).unwrap()
        })
    });
    g.finish();

    let b = random_uniform::<u32>(N, N / 2, 8, 3).to_csr();
    let mut c1 = b.clone();
    let mut c2 = b.clone();
    add_column_window(&mut c1, &a, &b, lo, hi).unwrap();
    add(&mut c2, &copy_columns(&a, lo, hi), &b).unwrap();
    assert!(c1 == c2, "column windows disagree");
    interleaved(
        "column_window_add",
        &mut [
            ("copy_then_add", &mut || {
                let w = copy_columns(black_box(&a), lo, hi);
                add(&mut c2, &w, &b).unwrap()
            }),
            ("generated_window", &mut || {
                add_column_window(&mut c1, black_box(&a), &b, lo, hi).unwrap()
            }),
        ],
    );
    let mut g = group(c, "column_window_add", c1.nnz());
    g.bench_function("generated_window", |t| {
        t.iter(|| add_column_window(&mut c1, black_box(&a), &b, lo, hi).unwrap())
    });
    g.bench_function("copy_then_add", |t| {
        t.iter(|| {
            let w = copy_columns(black_box(&a), lo, hi);
            add(&mut c2, &w, &b).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench_windows);
criterion_main!(benches);
