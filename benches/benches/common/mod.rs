//! Pieces the benches share: sprs and nalgebra-sparse as contenders, the value checks run before timing,
//! and the criterion group settings. Each bench uses a subset, hence `dead_code`.
#![allow(dead_code)]

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};
use nalgebra_sparse::CsrMatrix;
use sparse_benches::CsrArrays;
use sparse_runtime::Index;
use sprs::prod::mul_acc_mat_vec_csr;
use sprs::CsMatI;
use std::time::{Duration, Instant};

/// The sprs matrix of the same arrays.
pub fn sprs_csr(m: &CsrArrays<u32>) -> CsMatI<f64, u32> {
    CsMatI::new(
        (m.rows, m.cols),
        m.row_ptr.clone(),
        m.col_idx.clone(),
        m.vals.clone(),
    )
}

/// sprs SpMV (it accumulates into `y`, so `y` is zeroed first; the others overwrite).
pub fn sprs_spmv(a: &CsMatI<f64, u32>, x: &[f64], y: &mut [f64]) {
    y.fill(0.0);
    mul_acc_mat_vec_csr(a.view(), x, y);
}

/// `got` agrees with `want` to rounding (formats sum each component in different orders).
///
/// # Panics
/// If it does not.
pub fn check_close(name: &str, got: &[f64], want: &[f64]) {
    let worst = got
        .iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs() / (1.0 + w.abs()))
        .fold(0.0, f64::max);
    assert!(
        got.len() == want.len() && worst < 1e-12,
        "{name} disagrees ({worst})"
    );
}

/// A group of 20 samples (1 s warm-up, 3 s measurement) counting `nnz` elements per call.
pub fn group<'c>(c: &'c mut Criterion, name: &str, nnz: usize) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(nnz as u64));
    group
}

/// The nalgebra-sparse matrix of the same arrays (`usize` indices).
pub fn nalgebra_csr(m: &CsrArrays<u32>) -> CsrMatrix<f64> {
    let m = m.with_index::<usize>();
    CsrMatrix::try_from_csr_data(m.rows, m.cols, m.row_ptr, m.col_idx, m.vals)
        .expect("valid CSR arrays")
}

/// `(row_ptr, col_idx, vals)` hold the same matrix as `want`: the same pattern, in the same
/// (sorted) order, and values equal to rounding.
///
/// # Panics
/// If they do not.
pub fn check_same<P: Index, J: Index>(
    name: &str,
    row_ptr: &[P],
    col_idx: &[J],
    vals: &[f64],
    want: &CsrArrays<u32>,
) {
    let same = |got: &[usize], want: &[u32]| {
        got.len() == want.len() && got.iter().zip(want).all(|(&g, &w)| g == w as usize)
    };
    let row_ptr: Vec<usize> = row_ptr.iter().map(|p| p.to_usize()).collect();
    let col_idx: Vec<usize> = col_idx.iter().map(|j| j.to_usize()).collect();
    assert!(same(&row_ptr, &want.row_ptr), "{name}: row pointers differ");
    assert!(same(&col_idx, &want.col_idx), "{name}: columns differ");
    check_close(name, vals, &want.vals);
}

/// With `SPARSE_BENCH_INTERLEAVE=N`, before a criterion group: `N` rounds that call every
/// contender once each, in turn, timing each call, then the fastest and the median time of
/// each and their ratios to the first hand-written loop's (or copying contender's). On a machine shared with other
/// work, the load changes between criterion's consecutive measurements of a group (seconds
/// apart) but hardly within one round, so these ratios vary less than criterion's.
pub fn interleaved(group: &str, contenders: &mut [(&str, &mut dyn FnMut())]) {
    let Some(rounds) = std::env::var("SPARSE_BENCH_INTERLEAVE")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n > 0)
    else {
        return;
    };
    let mut times = vec![Vec::with_capacity(rounds); contenders.len()];
    for _ in 0..rounds {
        for ((_, run), t) in contenders.iter_mut().zip(&mut times) {
            let start = Instant::now();
            run();
            t.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    for t in &mut times {
        t.sort_by(f64::total_cmp);
    }
    let hand = contenders
        .iter()
        .position(|(name, _)| name.starts_with("hand") || name.starts_with("copy"))
        .unwrap_or(0);
    let (hand_min, hand_median) = (times[hand][0], times[hand][rounds / 2]);
    println!(
        "{group}, interleaved, {rounds} rounds (ms; ratio to {}):",
        contenders[hand].0
    );
    for ((name, _), t) in contenders.iter().zip(&times) {
        let (min, median) = (t[0], t[rounds / 2]);
        println!(
            "  {name:<20} fastest {min:8.2} ({:.2})  median {median:8.2} ({:.2})",
            min / hand_min,
            median / hand_median
        );
    }
}
