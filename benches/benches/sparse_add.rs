//! Sparse matrix addition `C = A + B`, all three CSR, one criterion group:
//!
//! - `add_rand_1M`: `A` and `B` two different 1,000,000 x 1,000,000 matrices of 8 uniformly
//!   random entries per row (values in `(0, 1]`, so no sum cancels; `C` has about 16 entries
//!   per row).
//!
//! Contenders: the generated kernel into a `Csr` reused across calls (`generated`), a
//! hand-written two-pointer merge of each row pair into arrays reused across calls
//! (`hand_merge`), sprs (`&a + &b` on `CsMatI<f64, u32>`) and nalgebra-sparse (`&a + &b` on
//! `CsrMatrix<f64>`, `usize` indices); the last two allocate their result, and free it, in
//! every call. Before timing, every contender's sum is checked against the hand merge's: the
//! same row pointers and columns (all four produce each row's columns sorted), values equal to
//! rounding. (sprs drops entries whose sum is zero and the others keep them; none is zero
//! here.) Throughput is the number of stored entries of `C`.
//!
//! With `SPARSE_BENCH_DUMP=dir` set, the inputs and the expected `nnz` and value sum of the
//! result are also written into `dir` for `benches/scipy_spgemm.py` (see there).
//!
//! Run with `cargo bench -p sparse-benches --bench sparse_add`.

mod common;
use common::{add_hand, check_same, group, nalgebra_csr, sprs_csr};
use criterion::{criterion_group, criterion_main, Criterion};
use sparse_benches::{dump_csr, random_uniform, CsrArrays};
use sparse_runtime::prelude::*;
use std::hint::black_box;
use std::path::PathBuf;

/// Rows (and columns) of the operands.
const N: usize = 1_000_000;

sparse_kernel! {
    /// Generated CSR + CSR into CSR: a merge of each row pair, assembled into `c`; `add_values`
    /// recomputes only the values into a `c` that `add` assembled (the assemble/compute split).
    #[schedule(compute(add_values))]
    fn add(c: &mut Csr<f64, u32>, a: &Csr<f64, u32>, b: &Csr<f64, u32>) {
        c(i, j) = a(i, j) + b(i, j)
    }
}

/// With `SPARSE_BENCH_DUMP=dir` set, writes `a`, `b` and a `{group}.case` file (`op add`,
/// the operands' names, the expected `nnz` and value sum of the result) into `dir`.
fn dump_case(
    group: &str,
    (a_name, a): (&str, &CsrArrays<u32>),
    (b_name, b): (&str, &CsrArrays<u32>),
    c: &CsrArrays<u32>,
) {
    let Some(dir) = std::env::var_os("SPARSE_BENCH_DUMP").map(PathBuf::from) else {
        return;
    };
    std::fs::create_dir_all(&dir).expect("SPARSE_BENCH_DUMP is a writable directory");
    dump_csr(a, &dir, a_name).expect("the dump directory is writable");
    dump_csr(b, &dir, b_name).expect("the dump directory is writable");
    let sum: f64 = c.vals.iter().sum();
    let case = format!(
        "op add\na {a_name}\nb {b_name}\nnnz {}\nsum {sum:e}\n",
        c.nnz()
    );
    std::fs::write(dir.join(format!("{group}.case")), case)
        .expect("the dump directory is writable");
}

fn bench_add(c: &mut Criterion) {
    let name = "add_rand_1M";
    let a = random_uniform::<u32>(N, N, 8, 3);
    let b = random_uniform::<u32>(N, N, 8, 4);
    let (a_rt, b_rt) = (a.to_csr(), b.to_csr());
    let (a_sprs, b_sprs) = (sprs_csr(&a), sprs_csr(&b));
    let (a_nal, b_nal) = (nalgebra_csr(&a), nalgebra_csr(&b));

    let mut c_hand = CsrArrays::default();
    add_hand(&a_rt, &b_rt, &mut c_hand);
    let want = c_hand.clone();
    eprintln!(
        "{name}: A {} entries, B {} entries, C {} entries",
        a.nnz(),
        b.nnz(),
        want.nnz()
    );
    dump_case(name, ("rand1M_a", &a), ("rand1M_b", &b), &want);

    let mut c_gen = Csr::<f64, u32>::new(&[N, N]).expect("an empty output");
    add(&mut c_gen, &a_rt, &b_rt).expect("shapes match");
    let got = &c_gen.levels().1;
    check_same("generated", got.pos(), got.crd(), c_gen.vals(), &want);
    let c_sprs = &a_sprs + &b_sprs;
    check_same(
        "sprs",
        &c_sprs.proper_indptr(),
        c_sprs.indices(),
        c_sprs.data(),
        &want,
    );
    let c_nal = &a_nal + &b_nal;
    check_same(
        "nalgebra-sparse",
        c_nal.row_offsets(),
        c_nal.col_indices(),
        c_nal.values(),
        &want,
    );
    drop((c_sprs, c_nal));

    let mut g = group(c, name, want.nnz());
    g.bench_function("generated", |bch| {
        bch.iter(|| add(black_box(&mut c_gen), &a_rt, &b_rt).expect("shapes match"))
    });
    g.bench_function("generated_compute_only", |bch| {
        bch.iter(|| add_values(black_box(&mut c_gen), &a_rt, &b_rt).expect("assembled by add"))
    });
    g.bench_function("hand_merge", |bch| {
        bch.iter(|| add_hand(&a_rt, &b_rt, black_box(&mut c_hand)))
    });
    g.bench_function("sprs", |bch| bch.iter(|| &a_sprs + &b_sprs));
    g.bench_function("nalgebra_sparse", |bch| bch.iter(|| &a_nal + &b_nal));
    g.finish();
}

criterion_group!(benches, bench_add);
criterion_main!(benches);
