//! Pieces the benches share: sprs and nalgebra-sparse as contenders, the value checks run before timing,
//! and the criterion group settings. Each bench uses a subset, hence `dead_code`.
#![allow(dead_code)]

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};
use nalgebra_sparse::CsrMatrix;
use sparse_benches::CsrArrays;
use sparse_runtime::prelude::*;
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

/// A hand-written `C = A + B`: per row, a two-pointer merge of the rows of `A` and `B` (an
/// entry in both is summed), then the rest of whichever row is left over; into `c`'s arrays,
/// which are cleared and refilled (their capacity reused across calls).
///
/// # Panics
/// If the shapes differ or `C` has more than `u32::MAX` entries.
pub fn add_hand(a: &Csr<f64, u32>, b: &Csr<f64, u32>, c: &mut CsrArrays<u32>) {
    assert_eq!(a.shape(), b.shape(), "shapes differ");
    let (rows, cols) = (a.shape()[0], a.shape()[1]);
    let (a_ptr, a_col, a_val) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    let (b_ptr, b_col, b_val) = (b.levels().1.pos(), b.levels().1.crd(), b.vals());
    c.rows = rows;
    c.cols = cols;
    c.row_ptr.clear();
    c.col_idx.clear();
    c.vals.clear();
    c.row_ptr.reserve(rows + 1);
    c.col_idx.reserve(a_val.len() + b_val.len());
    c.vals.reserve(a_val.len() + b_val.len());
    c.row_ptr.push(0);
    for i in 0..rows {
        // SAFETY: `a` and `b` are validated `Csr`s of `rows` rows: `pos` has `rows + 1`
        // non-decreasing entries (so `i + 1` is in bounds) ending at `crd.len() ==
        // vals.len()`, so every position below a row's end bound indexes `crd` and `vals`.
        unsafe {
            let (mut p, p_end) = (
                *a_ptr.get_unchecked(i) as usize,
                *a_ptr.get_unchecked(i + 1) as usize,
            );
            let (mut q, q_end) = (
                *b_ptr.get_unchecked(i) as usize,
                *b_ptr.get_unchecked(i + 1) as usize,
            );
            while p < p_end && q < q_end {
                let (ja, jb) = (*a_col.get_unchecked(p), *b_col.get_unchecked(q));
                if ja < jb {
                    c.col_idx.push(ja);
                    c.vals.push(*a_val.get_unchecked(p));
                    p += 1;
                } else if jb < ja {
                    c.col_idx.push(jb);
                    c.vals.push(*b_val.get_unchecked(q));
                    q += 1;
                } else {
                    c.col_idx.push(ja);
                    c.vals
                        .push(*a_val.get_unchecked(p) + *b_val.get_unchecked(q));
                    p += 1;
                    q += 1;
                }
            }
            c.col_idx.extend_from_slice(a_col.get_unchecked(p..p_end));
            c.vals.extend_from_slice(a_val.get_unchecked(p..p_end));
            c.col_idx.extend_from_slice(b_col.get_unchecked(q..q_end));
            c.vals.extend_from_slice(b_val.get_unchecked(q..q_end));
        }
        c.row_ptr
            .push(u32::try_from(c.col_idx.len()).expect("C has at most u32::MAX entries"));
    }
}

/// A hand-written Gustavson SpGEMM (row by row: row `i` of `C` is the sum over the entries
/// `A(i, j)` of `A(i, j)` times row `j` of `B`), into `c`'s arrays, which are cleared and
/// refilled (their capacity reused across calls).
///
/// The workspace is a dense accumulator of `B.cols` values and a `u32` stamp per column: column
/// `k` holds a term of the current row `i` iff `stamp[k] == i + 1`, so neither array is reset
/// between rows. The first touch of `k` in a row appends `k` to `c.col_idx`, whose tail is
/// thus the row's touched-column list; it is sorted in place, then the values are gathered
/// from the accumulator in that order. `C` stores every column some term reached (no
/// cancellation check, as the other contenders).
///
/// # Panics
/// If the inner dimensions differ, `A` has `u32::MAX` rows or more, or `C` has more than
/// `u32::MAX` entries.
pub fn spgemm_hand(a: &Csr<f64, u32>, b: &Csr<f64, u32>, c: &mut CsrArrays<u32>) {
    let (rows, inner, cols) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    assert_eq!(b.shape()[0], inner, "inner dimensions differ");
    assert!(rows < u32::MAX as usize, "row stamps are u32");
    let (a_ptr, a_col, a_val) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    let (b_ptr, b_col, b_val) = (b.levels().1.pos(), b.levels().1.crd(), b.vals());
    let mut acc = vec![0.0f64; cols];
    let mut stamp = vec![0u32; cols];
    c.rows = rows;
    c.cols = cols;
    c.row_ptr.clear();
    c.col_idx.clear();
    c.vals.clear();
    c.row_ptr.push(0);
    for i in 0..rows {
        let mark = i as u32 + 1;
        let start = c.col_idx.len();
        // SAFETY: `a` and `b` are validated `Csr`s: `pos` has `rows + 1` non-decreasing
        // entries (so `i + 1 <= rows` is in bounds) ending at `crd.len() == vals.len()` (so
        // every position in `pos[r]..pos[r + 1]` indexes `crd` and `vals`), and every column
        // is below the matrix's column count. So `j < inner == b`'s row count (`j + 1` indexes
        // `b_ptr`), and `k < cols == acc.len() == stamp.len()`.
        unsafe {
            let lo = *a_ptr.get_unchecked(i) as usize;
            let hi = *a_ptr.get_unchecked(i + 1) as usize;
            for pa in lo..hi {
                let j = *a_col.get_unchecked(pa) as usize;
                let av = *a_val.get_unchecked(pa);
                let b_lo = *b_ptr.get_unchecked(j) as usize;
                let b_hi = *b_ptr.get_unchecked(j + 1) as usize;
                for pb in b_lo..b_hi {
                    let k = *b_col.get_unchecked(pb);
                    let term = av * *b_val.get_unchecked(pb);
                    let seen = stamp.get_unchecked_mut(k as usize);
                    if *seen == mark {
                        *acc.get_unchecked_mut(k as usize) += term;
                    } else {
                        *seen = mark;
                        *acc.get_unchecked_mut(k as usize) = term;
                        c.col_idx.push(k);
                    }
                }
            }
        }
        let row = &mut c.col_idx[start..];
        row.sort_unstable();
        // SAFETY: every column in `row` was pushed above as some `k < cols == acc.len()`.
        c.vals.extend(
            row.iter()
                .map(|&k| unsafe { *acc.get_unchecked(k as usize) }),
        );
        c.row_ptr
            .push(u32::try_from(c.col_idx.len()).expect("C has at most u32::MAX entries"));
    }
}
