//! Sparse matrix-matrix product `C = A B`, CSR times CSR into CSR, single-threaded, one
//! criterion group per input:
//!
//! - `spgemm_poisson_1M`: `A A` with `A` the 2-D Poisson matrix of a 1000 x 1000 grid (1M
//!   rows, 4,996,000 entries; `C` has 13 entries per interior row).
//! - `spgemm_rmat16`: `A A` with `A` an R-MAT graph of scale 16 and edge factor 16 (65,536
//!   vertices, 1,048,576 edges drawn with the Graph500 probabilities, duplicates merged;
//!   heavily skewed degrees, so some rows of `C` are nearly full).
//! - `spgemm_rand`: `A B` with `A` and `B` two different 100,000 x 100,000 matrices of 8
//!   uniformly random entries per row (`C` has about 64 entries per row).
//!
//! Contenders: a hand-written Gustavson loop over the raw arrays, into output arrays reused
//! across calls (`hand_gustavson`) and into new ones grown from empty and freed in every call
//! (`hand_gustavson_fresh`, which pays for allocation as sprs and nalgebra-sparse do), sprs
//! (`&a * &b` on `CsMatI<f64, u32>`; built without its `multi_thread` feature, so
//! single-threaded) and nalgebra-sparse (`&a * &b` on `CsrMatrix<f64>`, `usize` indices).
//! The generated kernels: `generated_dense` (the default dense workspace: an array over the
//! columns with a list of touched ones, sorted per row) and `generated_hash` (a hash
//! workspace, `#[schedule(workspace(k, hash))]`), and `generated_unsorted` (the dense
//! workspace into a CSR whose rows may hold their columns in any order, `Compressed<u32,
//! Unordered>`: no sort, as SciPy's `A @ B`, whose rows come out unsorted), and
//! `generated_compute_only` (the assemble/compute split: only the values recomputed into the
//! pattern `spgemm` assembled, as an iterative method whose pattern does not change would).
//! Before timing, every
//! contender's product is checked against the hand loop's: the same row pointers and columns
//! (all three produce each row's columns sorted, without explicit zeros beyond those the
//! symbolic product implies), values equal to rounding. Throughput is the number of stored
//! entries of `C`.
//!
//! `hand_gustavson` writes into output arrays reused across calls, as the generated kernels
//! write into a reused `Csr`; sprs and nalgebra-sparse allocate their result, and free it, in
//! every call (and both make two passes: a symbolic one for the pattern, then a numeric one).
//!
//! With `SPARSE_BENCH_DUMP=dir` set, the inputs and the expected `nnz` and value sum of each
//! product are also written into `dir` for `benches/scipy_spgemm.py` (see there).
//!
//! Run with `cargo bench -p sparse-benches --bench spgemm`.

mod common;
use common::{check_same, group, nalgebra_csr, spgemm_hand, sprs_csr};
use criterion::measurement::WallTime;
use criterion::Throughput;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode};
use sparse_benches::{dump_csr, poisson_2d, random_uniform, rmat, CsrArrays};
use sparse_runtime::prelude::*;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

sparse_kernel! {
    /// C = A·B, Gustavson with the default (dense) workspace; `spgemm_values` recomputes only
    /// the values into a `c` that `spgemm` assembled (the assemble/compute split).
    #[schedule(compute(spgemm_values))]
    fn spgemm(c: &mut Csr<f64, u32>, a: &Csr<f64, u32>, b: &Csr<f64, u32>) { c(i, k) = a(i, j) * b(j, k) }
    /// The same with a hash workspace.
    #[schedule(workspace(k, hash))]
    fn spgemm_hash(c: &mut Csr<f64, u32>, a: &Csr<f64, u32>, b: &Csr<f64, u32>) { c(i, k) = a(i, j) * b(j, k) }
    /// Into rows whose columns may come in any order (as SciPy's `A @ B` leaves them): the
    /// workspace's touched columns are appended unsorted.
    fn spgemm_unsorted(c: &mut Tensor<f64, (Dense, Compressed<u32, Unordered>)>, a: &Csr<f64, u32>, b: &Csr<f64, u32>) { c(i, k) = a(i, j) * b(j, k) }
}

/// CSR whose rows may hold their columns in any order.
type UnsortedCsr = Tensor<f64, (Dense, Compressed<u32, Unordered>)>;

/// [`check_same`] for rows in any order: each row's (column, value) pairs sorted first.
fn check_same_unsorted(name: &str, c: &UnsortedCsr, want: &CsrArrays<u32>) {
    let (pos, crd) = (c.levels().1.pos(), c.levels().1.crd());
    let mut col_idx = Vec::with_capacity(crd.len());
    let mut vals = Vec::with_capacity(crd.len());
    for row in pos.windows(2) {
        let (lo, hi) = (row[0] as usize, row[1] as usize);
        let mut entries: Vec<(u32, f64)> = (lo..hi).map(|p| (crd[p], c.vals()[p])).collect();
        entries.sort_unstable_by_key(|e| e.0);
        col_idx.extend(entries.iter().map(|e| e.0));
        vals.extend(entries.iter().map(|e| e.1));
    }
    check_same(name, pos, &col_idx, &vals, want);
}

/// The number of multiply-adds of `A B`: for every entry `A(i, j)`, the entries of row `j`
/// of `B`.
fn flops(a: &CsrArrays<u32>, b: &CsrArrays<u32>) -> usize {
    a.col_idx
        .iter()
        .map(|&j| (b.row_ptr[j as usize + 1] - b.row_ptr[j as usize]) as usize)
        .sum()
}

/// The group of one input: `common::group` when every call is short, else (the slowest
/// contender's first call, `call`, took more than 100 ms) 10 samples of the same number of
/// calls each (flat sampling) after a 1 s warm-up, in about `12 * call`.
fn spgemm_group<'c>(
    c: &'c mut Criterion,
    name: &str,
    nnz: usize,
    call: Duration,
) -> BenchmarkGroup<'c, WallTime> {
    if call <= Duration::from_millis(100) {
        return group(c, name, nnz);
    }
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(call * 12)
        .throughput(Throughput::Elements(nnz as u64));
    g
}

/// The directory of `SPARSE_BENCH_DUMP`, created, if the variable is set.
fn dump_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("SPARSE_BENCH_DUMP")?);
    std::fs::create_dir_all(&dir).expect("SPARSE_BENCH_DUMP is a writable directory");
    Some(dir)
}

/// Writes the operands of `group` and a `{group}.case` file (`op`, the operands' names, the
/// expected `nnz` and value sum of the result) for `scipy_spgemm.py`.
fn dump_case(group: &str, op: &str, operands: [(&str, &CsrArrays<u32>); 2], c: &CsrArrays<u32>) {
    let Some(dir) = dump_dir() else { return };
    for (i, (name, m)) in operands.iter().enumerate() {
        if i == 0 || *name != operands[0].0 {
            dump_csr(m, &dir, name).expect("the dump directory is writable");
        }
    }
    let sum: f64 = c.vals.iter().sum();
    let case = format!(
        "op {op}\na {}\nb {}\nnnz {}\nsum {sum:e}\n",
        operands[0].0,
        operands[1].0,
        c.nnz()
    );
    std::fs::write(dir.join(format!("{group}.case")), case)
        .expect("the dump directory is writable");
}

/// One group: `C = A B` by every contender, checked against the hand loop first.
fn bench_case(
    c: &mut Criterion,
    name: &str,
    (a_name, a): (&str, &CsrArrays<u32>),
    (b_name, b): (&str, &CsrArrays<u32>),
) {
    let (a_rt, b_rt) = (a.to_csr(), b.to_csr());
    let (a_sprs, b_sprs) = (sprs_csr(a), sprs_csr(b));
    let (a_nal, b_nal) = (nalgebra_csr(a), nalgebra_csr(b));

    let mut c_hand = CsrArrays::default();
    let start = Instant::now();
    spgemm_hand(&a_rt, &b_rt, &mut c_hand);
    let call = start.elapsed();
    let want = c_hand.clone();
    eprintln!(
        "{name}: A {}x{} ({} entries), B {}x{} ({} entries), C {} entries, {} multiply-adds; \
         first hand call {call:.1?}",
        a.rows,
        a.cols,
        a.nnz(),
        b.rows,
        b.cols,
        b.nnz(),
        want.nnz(),
        flops(a, b),
    );
    dump_case(name, "mul", [(a_name, a), (b_name, b)], &want);

    let start = Instant::now();
    let c_sprs = &a_sprs * &b_sprs;
    let call = call.max(start.elapsed());
    check_same(
        "sprs",
        &c_sprs.proper_indptr(),
        c_sprs.indices(),
        c_sprs.data(),
        &want,
    );
    let start = Instant::now();
    let c_nal = &a_nal * &b_nal;
    let call = call.max(start.elapsed());
    check_same(
        "nalgebra-sparse",
        c_nal.row_offsets(),
        c_nal.col_indices(),
        c_nal.values(),
        &want,
    );
    drop((c_sprs, c_nal));

    let mut c_gen = Csr::<f64, u32>::new(&[a.rows, b.cols]).expect("an empty output");
    spgemm(&mut c_gen, &a_rt, &b_rt).unwrap();
    let got = &c_gen.levels().1;
    check_same("generated dense", got.pos(), got.crd(), c_gen.vals(), &want);
    spgemm_hash(&mut c_gen, &a_rt, &b_rt).unwrap();
    let got = &c_gen.levels().1;
    check_same("generated hash", got.pos(), got.crd(), c_gen.vals(), &want);

    let mut c_unsorted = UnsortedCsr::new(&[a.rows, b.cols]).expect("an empty output");
    spgemm_unsorted(&mut c_unsorted, &a_rt, &b_rt).unwrap();
    check_same_unsorted("generated unsorted", &c_unsorted, &want);

    let mut g = spgemm_group(c, name, want.nnz(), call);
    g.bench_function("generated_unsorted", |bch| {
        bch.iter(|| spgemm_unsorted(black_box(&mut c_unsorted), &a_rt, &b_rt).unwrap())
    });
    g.bench_function("generated_dense", |bch| {
        bch.iter(|| spgemm(black_box(&mut c_gen), &a_rt, &b_rt).unwrap())
    });
    spgemm(&mut c_gen, &a_rt, &b_rt).unwrap();
    g.bench_function("generated_compute_only", |bch| {
        bch.iter(|| spgemm_values(black_box(&mut c_gen), &a_rt, &b_rt).unwrap())
    });
    g.bench_function("generated_hash", |bch| {
        bch.iter(|| spgemm_hash(black_box(&mut c_gen), &a_rt, &b_rt).unwrap())
    });
    g.bench_function("hand_gustavson", |bch| {
        bch.iter(|| spgemm_hand(&a_rt, &b_rt, black_box(&mut c_hand)))
    });
    g.bench_function("hand_gustavson_fresh", |bch| {
        bch.iter(|| {
            let mut c = CsrArrays::default();
            spgemm_hand(&a_rt, &b_rt, &mut c);
            c
        })
    });
    g.bench_function("sprs", |bch| bch.iter(|| &a_sprs * &b_sprs));
    g.bench_function("nalgebra_sparse", |bch| bch.iter(|| &a_nal * &b_nal));
    g.finish();
}

fn bench_poisson(c: &mut Criterion) {
    let a = poisson_2d::<u32>(1000);
    bench_case(
        c,
        "spgemm_poisson_1M",
        ("poisson_1M", &a),
        ("poisson_1M", &a),
    );
}

fn bench_rmat(c: &mut Criterion) {
    let a = rmat::<u32>(16, 16, 1);
    bench_case(c, "spgemm_rmat16", ("rmat16", &a), ("rmat16", &a));
}

fn bench_rand(c: &mut Criterion) {
    const N: usize = 100_000;
    let a = random_uniform::<u32>(N, N, 8, 1);
    let b = random_uniform::<u32>(N, N, 8, 2);
    bench_case(c, "spgemm_rand", ("rand100k_a", &a), ("rand100k_b", &b));
}

criterion_group!(benches, bench_poisson, bench_rmat, bench_rand);
criterion_main!(benches);
