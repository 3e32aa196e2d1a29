//! CSR SpMV `y = A x` on the 2-D Poisson matrix of a 1000 x 1000 grid
//! (1,000,000 rows, 4,996,000 entries): generated kernels against hand-written
//! loops over the same arrays, sprs and nalgebra-sparse. All variants are in
//! one criterion group so their figures are directly comparable.
//!
//! Run with `cargo bench -p sparse-benches --bench spmv`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nalgebra::DVector;
use nalgebra_sparse::ops::serial::spmm_csr_dense;
use nalgebra_sparse::ops::Op;
use nalgebra_sparse::CsrMatrix;
use sparse_benches::{poisson_2d, test_vector, CsrArrays};
use sparse_runtime::prelude::*;
use sprs::prod::mul_acc_mat_vec_csr;
use sprs::{CsMat, CsMatI};
use std::hint::black_box;
use std::time::Duration;

/// Grid side: the matrix has `N * N` rows.
const N: usize = 1000;

sparse_kernel! {
    /// Generated SpMV with the default `u32` indices.
    fn spmv_u32(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// Generated SpMV with `usize` indices.
    fn spmv_usize(y: &mut Dense1<f64>, a: &Csr<f64, usize>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

/// A hand-written CSR SpMV as a careful user writes it: safe Rust, slices and
/// iterators, bounds checks left to the optimizer.
fn spmv_hand(row_ptr: &[u32], col_idx: &[u32], vals: &[f64], x: &[f64], y: &mut [f64]) {
    for (yi, bounds) in y.iter_mut().zip(row_ptr.windows(2)) {
        let row = bounds[0] as usize..bounds[1] as usize;
        *yi = col_idx[row.clone()]
            .iter()
            .zip(&vals[row])
            .map(|(&j, &v)| v * x[j as usize])
            .sum();
    }
}

/// The same loop without any bounds check: the bound of what removing them buys.
///
/// # Panics
/// If `x` or `y` does not match the shape of `a`.
fn spmv_hand_unchecked(a: &Csr<f64>, x: &[f64], y: &mut [f64]) {
    assert_eq!(x.len(), a.shape()[1]);
    assert_eq!(y.len(), a.shape()[0]);
    let (row_ptr, col_idx, vals) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    for (r, yi) in y.iter_mut().enumerate() {
        // SAFETY: a validated `Csr` has `rows + 1` non-decreasing row bounds
        // ending at `col_idx.len() == vals.len()`, and every column is below
        // `cols == x.len()`; `r < y.len() == rows`.
        unsafe {
            let (lo, hi) = (
                *row_ptr.get_unchecked(r) as usize,
                *row_ptr.get_unchecked(r + 1) as usize,
            );
            let mut sum = 0.0;
            for p in lo..hi {
                sum += vals.get_unchecked(p) * x.get_unchecked(*col_idx.get_unchecked(p) as usize);
            }
            *yi = sum;
        }
    }
}

fn sprs_csr<I: Index + sprs::SpIndex>(m: &CsrArrays<I>) -> CsMatI<f64, I> {
    CsMatI::new(
        (m.rows, m.cols),
        m.row_ptr.clone(),
        m.col_idx.clone(),
        m.vals.clone(),
    )
}

fn bench_spmv(c: &mut Criterion) {
    let m32 = poisson_2d::<u32>(N);
    let m64 = m32.with_index::<usize>();
    let x_vec = test_vector(m32.cols);

    let a32 = m32.to_csr();
    let a64 = m64.to_csr();
    let x = Dense1::from_vec(x_vec.clone());
    let a_sprs: CsMat<f64> = sprs_csr(&m64);
    let a_sprs32: CsMatI<f64, u32> = sprs_csr(&m32);
    let a_nal = CsrMatrix::try_from_csr_data(
        m64.rows,
        m64.cols,
        m64.row_ptr.clone(),
        m64.col_idx.clone(),
        m64.vals.clone(),
    )
    .expect("valid CSR arrays");
    let x_nal = DVector::from_vec(x_vec.clone());

    // Every variant, as timed below, writing into its own output.
    let mut y = Dense1::zeros(m32.rows);
    let mut y_plain = vec![0.0; m32.rows];
    let mut y_nal = DVector::zeros(m32.rows);
    let gen_u32 = |y: &mut Dense1<f64>| spmv_u32(y, &a32, &x).expect("shapes match");
    let gen_usize = |y: &mut Dense1<f64>| spmv_usize(y, &a64, &x).expect("shapes match");
    let (ptr, crd, vals) = (a32.levels().1.pos(), a32.levels().1.crd(), a32.vals());
    let hand = |y: &mut [f64]| spmv_hand(ptr, crd, vals, &x_vec, y);
    let unchecked = |y: &mut [f64]| spmv_hand_unchecked(&a32, &x_vec, y);
    // sprs accumulates into y, so it is zeroed first (the others overwrite).
    let with_sprs = |y: &mut [f64]| {
        y.fill(0.0);
        mul_acc_mat_vec_csr(a_sprs.view(), &x_vec[..], y);
    };
    let with_sprs32 = |y: &mut [f64]| {
        y.fill(0.0);
        mul_acc_mat_vec_csr(a_sprs32.view(), &x_vec[..], y);
    };
    let with_nal = |y: &mut DVector<f64>| {
        spmm_csr_dense(0.0, y, 1.0, Op::NoOp(&a_nal), Op::NoOp(&x_nal));
    };

    // Check once, before timing, that every variant computes the same y. The
    // Poisson entries are small integers and every variant sums a row in column
    // order, so the results agree exactly.
    gen_u32(&mut y);
    let expected = y.as_slice().to_vec();
    let check = |name: &str, got: &[f64]| {
        assert_eq!(
            got,
            &expected[..],
            "{name} disagrees with the generated kernel"
        );
    };
    gen_usize(&mut y);
    check("generated usize", y.as_slice());
    hand(&mut y_plain);
    check("hand-written", &y_plain);
    unchecked(&mut y_plain);
    check("hand-written unchecked", &y_plain);
    with_sprs(&mut y_plain);
    check("sprs", &y_plain);
    with_sprs32(&mut y_plain);
    check("sprs u32", &y_plain);
    with_nal(&mut y_nal);
    check("nalgebra-sparse", y_nal.as_slice());

    let mut group = c.benchmark_group("spmv_poisson_1M");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(m32.nnz() as u64));
    group.bench_function("generated_u32", |b| b.iter(|| gen_u32(black_box(&mut y))));
    group.bench_function("generated_usize", |b| {
        b.iter(|| gen_usize(black_box(&mut y)))
    });
    group.bench_function("hand_iter", |b| b.iter(|| hand(black_box(&mut y_plain))));
    group.bench_function("hand_unchecked", |b| {
        b.iter(|| unchecked(black_box(&mut y_plain)))
    });
    group.bench_function("sprs_usize", |b| {
        b.iter(|| with_sprs(black_box(&mut y_plain)))
    });
    group.bench_function("sprs_u32", |b| {
        b.iter(|| with_sprs32(black_box(&mut y_plain)))
    });
    group.bench_function("nalgebra_sparse", |b| {
        b.iter(|| with_nal(black_box(&mut y_nal)))
    });
    group.finish();
}

criterion_group!(benches, bench_spmv);
criterion_main!(benches);
