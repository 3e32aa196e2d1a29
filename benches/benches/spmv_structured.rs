//! SpMV `y = A x` on structured formats against CSR, in one run (Chou et al. 2018, section 6):
//!
//! - a 7-diagonal banded matrix of 1M rows and the 2-D Poisson matrix of a 1000 x 1000 grid
//!   (5 diagonals): generated `Dia`, a hand-written DIA loop over the same arrays, generated
//!   `Csr`, sprs;
//! - a 1M-row matrix with exactly 8 uniformly random entries per row: generated `Ell`, a
//!   hand-written ELL loop over the same arrays, generated `Csr`, sprs.
//!
//! Run with `cargo bench -p sparse-benches --bench spmv_structured`.

mod common;
use common::{check_close, group, sprs_csr, sprs_spmv};
use criterion::{criterion_group, criterion_main, Criterion};
use sparse_benches::{banded, poisson_2d, random_per_row, test_vector, CsrArrays};
use sparse_runtime::prelude::*;
use std::hint::black_box;

sparse_kernel! {
    /// Generated DIA SpMV: diagonal by diagonal.
    fn spmv_dia(y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// Generated ELL SpMV: row by row, slot by slot.
    fn spmv_ell(y: &mut Dense1<f64>, a: &Ell<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// Generated CSR SpMV.
    fn spmv_csr(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

/// A hand-written DIA SpMV: zero `y`, then per diagonal one pass over the rows it crosses,
/// as zipped slices (no index arithmetic in the loop).
///
/// # Panics
/// If `x` or `y` does not match the shape of `a`.
fn spmv_dia_hand(a: &Dia<f64>, x: &[f64], y: &mut [f64]) {
    let (rows, cols) = (a.shape()[0], a.shape()[1]);
    assert_eq!((y.len(), x.len()), (rows, cols));
    y.fill(0.0);
    for (&off, diagonal) in a.offsets().iter().zip(a.vals().chunks_exact(rows.max(1))) {
        let first = off.unsigned_abs() * usize::from(off < 0);
        let last = rows.min(cols.saturating_add_signed(-off));
        let x_first = first.wrapping_add_signed(off);
        let ys = &mut y[first..last];
        let xs = &x[x_first..x_first + ys.len()];
        for ((y, &a), &x) in ys.iter_mut().zip(&diagonal[first..last]).zip(xs) {
            *y += a * x;
        }
    }
}

/// A hand-written ELL SpMV: per row, the sum over its slots up to the first empty one.
///
/// # Panics
/// If `x` or `y` does not match the shape of `a`.
fn spmv_ell_hand(a: &Ell<f64>, x: &[f64], y: &mut [f64]) {
    assert_eq!((y.len(), x.len()), (a.shape()[0], a.shape()[1]));
    let width = a.width();
    if width == 0 {
        y.fill(0.0);
        return;
    }
    let rows = a
        .col_idx()
        .chunks_exact(width)
        .zip(a.vals().chunks_exact(width));
    for (y, (cols, vals)) in y.iter_mut().zip(rows) {
        let mut sum = 0.0;
        for (&j, &v) in cols.iter().zip(vals) {
            if j == u32::MAX {
                break;
            }
            sum += v * x[j as usize];
        }
        *y = sum;
    }
}

/// One structured format `T` against CSR and sprs on matrix `m`: the generated kernel on `T`
/// (`label` names it), a hand-written loop over `T`'s arrays, generated CSR, sprs.
fn bench_format<T>(
    c: &mut Criterion,
    name: &str,
    m: &CsrArrays<u32>,
    label: &str,
    build: impl Fn(&Csr<f64>) -> T,
    generated: impl Fn(&mut Dense1<f64>, &T, &Dense1<f64>),
    hand: impl Fn(&T, &[f64], &mut [f64]),
) {
    let a_csr = m.to_csr();
    let a = build(&a_csr);
    let a_sprs = sprs_csr(m);
    let x_vec = test_vector(m.cols);
    let x = Dense1::from_vec(x_vec.clone());
    let mut y = Dense1::zeros(m.rows);
    let mut y_plain = vec![0.0; m.rows];

    spmv_csr(&mut y, &a_csr, &x).expect("shapes match");
    let expected = y.as_slice().to_vec();
    generated(&mut y, &a, &x);
    check_close(&format!("generated {label}"), y.as_slice(), &expected);
    hand(&a, &x_vec, &mut y_plain);
    check_close(&format!("hand {label}"), &y_plain, &expected);
    sprs_spmv(&a_sprs, &x_vec, &mut y_plain);
    check_close("sprs", &y_plain, &expected);

    let mut g = group(c, name, m.nnz());
    g.bench_function(format!("generated_{label}"), |b| {
        b.iter(|| generated(black_box(&mut y), &a, &x))
    });
    g.bench_function(format!("hand_{label}"), |b| {
        b.iter(|| hand(&a, &x_vec, black_box(&mut y_plain)))
    });
    g.bench_function("generated_csr", |b| {
        b.iter(|| spmv_csr(black_box(&mut y), &a_csr, &x).expect("shapes match"))
    });
    g.bench_function("sprs_csr", |b| {
        b.iter(|| sprs_spmv(&a_sprs, &x_vec, black_box(&mut y_plain)))
    });
    g.finish();
}

fn dia(a: &Csr<f64>) -> Dia<f64> {
    Dia::from_entries(a.shape(), a.entries()).expect("valid entries")
}

fn ell(a: &Csr<f64>) -> Ell<f64> {
    Ell::from_entries(a.shape(), a.entries()).expect("valid entries")
}

fn bench_structured(c: &mut Criterion) {
    let on_dia = |y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>| {
        spmv_dia(y, a, x).expect("shapes match")
    };
    let on_ell = |y: &mut Dense1<f64>, a: &Ell<f64>, x: &Dense1<f64>| {
        spmv_ell(y, a, x).expect("shapes match")
    };
    let banded7 = banded::<u32>(1_000_000, 3);
    bench_format(
        c,
        "spmv_banded7_1M",
        &banded7,
        "dia",
        dia,
        on_dia,
        spmv_dia_hand,
    );
    let poisson = poisson_2d::<u32>(1000);
    bench_format(
        c,
        "spmv_poisson_1M",
        &poisson,
        "dia",
        dia,
        on_dia,
        spmv_dia_hand,
    );
    let rand8 = random_per_row::<u32>(1_000_000, 8);
    bench_format(
        c,
        "spmv_rand8_1M",
        &rand8,
        "ell",
        ell,
        on_ell,
        spmv_ell_hand,
    );
}

criterion_group!(benches, bench_structured);
criterion_main!(benches);
