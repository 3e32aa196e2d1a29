//! COO SpMV `y = A x` on the 2-D Poisson matrix of a 1000 x 1000 grid: the generated kernel
//! on `Coo` (a loop over each row's run of nonzeros, summed into `y(i)` once), a hand-written
//! scatter loop over the same arrays, the generated CSR kernel on the same matrix stored as
//! CSR, and converting the COO matrix to CSR before a CSR SpMV (what a library without COO
//! kernels makes a user do; Chou et al. 2018 report up to 3.6x for computing on COO directly).
//!
//! Run with `cargo bench -p sparse-benches --bench coo_spmv`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sparse_benches::{poisson_2d, test_vector};
use sparse_runtime::prelude::*;
use std::hint::black_box;
use std::time::Duration;

/// Grid side: the matrix has `N * N` rows.
const N: usize = 1000;

sparse_kernel! {
    /// Generated COO SpMV.
    fn spmv_coo(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// Generated CSR SpMV.
    fn spmv_csr(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

/// A hand-written COO SpMV: zero `y`, then one scatter pass over the triples.
///
/// # Panics
/// If `x` or `y` does not match the shape of `a`.
fn spmv_coo_hand(a: &Coo<f64>, x: &[f64], y: &mut [f64]) {
    assert_eq!(x.len(), a.shape()[1]);
    assert_eq!(y.len(), a.shape()[0]);
    let (rows, cols, vals) = (a.levels().0.crd(), a.levels().1.crd(), a.vals());
    y.fill(0.0);
    for ((&i, &j), &v) in rows.iter().zip(cols).zip(vals) {
        y[i as usize] += v * x[j as usize];
    }
}

fn bench_coo_spmv(c: &mut Criterion) {
    let m = poisson_2d::<u32>(N);
    let x_vec = test_vector(m.cols);
    let x = Dense1::from_vec(x_vec.clone());
    let csr = Csr::<f64>::from_csr_arrays(
        m.rows,
        m.cols,
        m.row_ptr.clone(),
        m.col_idx.clone(),
        m.vals.clone(),
    )
    .expect("valid CSR arrays");
    let coo = Coo::<f64>::from_entries(&[m.rows, m.cols], csr.entries()).expect("valid entries");

    let mut y = Dense1::zeros(m.rows);
    let mut y_plain = vec![0.0; m.rows];
    let generated = |y: &mut Dense1<f64>| spmv_coo(y, &coo, &x).expect("shapes match");
    let hand = |y: &mut [f64]| spmv_coo_hand(&coo, &x_vec, y);
    let on_csr = |y: &mut Dense1<f64>| spmv_csr(y, &csr, &x).expect("shapes match");
    let convert_then_csr = |y: &mut Dense1<f64>| {
        let converted =
            Csr::<f64>::from_entries(coo.shape(), coo.entries()).expect("valid entries");
        spmv_csr(y, &converted, &x).expect("shapes match")
    };

    // Every variant computes the same y (small-integer entries, sums in column order).
    on_csr(&mut y);
    let expected = y.as_slice().to_vec();
    generated(&mut y);
    assert_eq!(y.as_slice(), &expected[..], "generated COO disagrees");
    hand(&mut y_plain);
    assert_eq!(y_plain, expected, "hand-written COO disagrees");
    convert_then_csr(&mut y);
    assert_eq!(y.as_slice(), &expected[..], "convert-then-CSR disagrees");

    let mut group = c.benchmark_group("coo_spmv_poisson_1M");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(m.nnz() as u64));
    group.bench_function("generated_coo", |b| b.iter(|| generated(black_box(&mut y))));
    group.bench_function("hand_coo", |b| b.iter(|| hand(black_box(&mut y_plain))));
    group.bench_function("generated_csr", |b| b.iter(|| on_csr(black_box(&mut y))));
    group.sample_size(10);
    group.bench_function("convert_to_csr_then_spmv", |b| {
        b.iter(|| convert_then_csr(black_box(&mut y)))
    });
    group.finish();
}

criterion_group!(benches, bench_coo_spmv);
criterion_main!(benches);
