//! CSR SpMV `y = A x` with `x` stored as `Dense1`, `SparseVec` or `HashVec`, across densities
//! of `x` (Chou et al. 2018, Figure 16). With a sparse `x` the kernel merges each row of `A`
//! with `x` (co-iteration: the row and `x` up to the row's last column); with a hash `x` the
//! row drives and `x` is located per nonzero (expected O(1) each); a dense `x` is indexed.
//! `A` is the 2-D Poisson matrix of a 100 x 100 grid (10,000 rows, 49,600 nonzeros).
//!
//! Run with `cargo bench -p sparse-benches --bench spmv_x_formats`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sparse_benches::poisson_2d;
use sparse_runtime::prelude::*;
use std::hint::black_box;
use std::time::Duration;

/// Grid side: the matrix has `N * N` rows.
const N: usize = 100;

sparse_kernel! {
    fn spmv_dense_x(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    fn spmv_sparse_x(y: &mut Dense1<f64>, a: &Csr<f64>, x: &SparseVec<f64>) {
        y(i) = a(i, j) * x(j)
    }
    fn spmv_hash_x(y: &mut Dense1<f64>, a: &Csr<f64>, x: &HashVec<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

/// Every `1 / density`-th coordinate of `0..n` (at least one), value `1 + j % 7`.
fn x_entries(n: usize, density: f64) -> Vec<([usize; 1], f64)> {
    let step = ((1.0 / density).round() as usize).max(1);
    (0..n)
        .step_by(step)
        .map(|j| ([j], 1.0 + (j % 7) as f64))
        .collect()
}

fn bench_x_formats(c: &mut Criterion) {
    let m = poisson_2d::<u32>(N);
    let a = Csr::<f64>::from_csr_arrays(m.rows, m.cols, m.row_ptr, m.col_idx, m.vals)
        .expect("valid CSR arrays");
    let n = a.shape()[1];
    let mut group = c.benchmark_group("spmv_x_formats_poisson_10k");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .throughput(Throughput::Elements(a.nnz() as u64));
    for density in [0.001, 0.01, 0.1, 0.5, 1.0] {
        let entries = x_entries(n, density);
        let xd = Dense1::<f64>::from_entries(&[n], entries.clone()).expect("valid x");
        let xs = SparseVec::<f64>::from_entries(&[n], entries.clone()).expect("valid x");
        let xh = HashVec::<f64>::from_entries(&[n], entries).expect("valid x");
        let mut y = Dense1::zeros(m.rows);
        // The three kernels agree (small-integer values: exact sums).
        spmv_dense_x(&mut y, &a, &xd).expect("shapes match");
        let expected = y.as_slice().to_vec();
        spmv_sparse_x(&mut y, &a, &xs).expect("shapes match");
        assert_eq!(y.as_slice(), &expected[..], "sparse x disagrees");
        spmv_hash_x(&mut y, &a, &xh).expect("shapes match");
        assert_eq!(y.as_slice(), &expected[..], "hash x disagrees");
        group.bench_with_input(BenchmarkId::new("dense_x", density), &xd, |b, x| {
            b.iter(|| spmv_dense_x(black_box(&mut y), &a, x))
        });
        group.bench_with_input(BenchmarkId::new("sparse_x", density), &xs, |b, x| {
            b.iter(|| spmv_sparse_x(black_box(&mut y), &a, x))
        });
        group.bench_with_input(BenchmarkId::new("hash_x", density), &xh, |b, x| {
            b.iter(|| spmv_hash_x(black_box(&mut y), &a, x))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_x_formats);
criterion_main!(benches);
