//! Format conversion (Chou et al. 2020), one criterion group per conversion:
//!
//! - `coo_to_csr_rand8`: 8,000,000 unsorted coordinates (a 1,000,000 x 1,000,000 matrix with 8
//!   uniformly random entries per row, shuffled) into CSR. Contenders: `Csr::from_entries` on
//!   the triplets (`generated`, which includes checking and listing them), `Csr::from_source`
//!   on an `io::Entries` list built before timing (`generated_from_list`), sprs
//!   `TriMatI::to_csr` and nalgebra-sparse `CsrMatrix::from(&CooMatrix)`, each from its own
//!   triplet structure built before timing.
//! - `csr_to_csc_rand8`: the same matrix from CSR to CSC: `a.convert::<Csc<_>>()`, sprs
//!   `to_csc`, nalgebra-sparse `CscMatrix::from(&CsrMatrix)`, the hand-written counting
//!   transpose of the raw arrays (`hand`: count, prefix sums, scatter); and
//!   `a.transpose::<Csr<_>>()`.
//! - `to_coo_rand8`: the same matrix into COO, from CSR and from the `io::Entries` list, against
//!   nalgebra-sparse `CooMatrix::from(&CsrMatrix)`.
//! - `blocked_rand8`: the same matrix into BCSR (2 x 2 blocks) and CSB and back, through their
//!   coordinate remappings, with the transposition to CSR for the cost of a plain view.
//! - `csr_to_dia_lap2d`, `csr_to_ell_lap2d`, `coo_to_dia_lap2d`, `csc_to_ell_lap2d`: the 2-D
//!   Poisson matrix of a 1000 x 1000 grid (1,000,000 rows, 5 diagonals, 4,996,000 entries),
//!   each direct routine against the same conversion through an intermediate format (COO for
//!   the CSR sources, CSR for the others), as the paper compares.
//!
//! Before timing, every contender's result is checked against the generated one (the same
//! arrays, or the same entries). Throughput is the number of stored entries.
//!
//! With `SPARSE_BENCH_DUMP=dir` set, the rand8 triplets are written into `dir` for
//! `benches/scipy_convert.py`, which times SciPy's `tocsr` and `tocsc` on them.
//!
//! Run with `cargo bench -p sparse-benches --bench convert`.

mod common;
use common::group;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra_sparse::{CooMatrix, CscMatrix, CsrMatrix};
use sparse_benches::{poisson_2d, random_per_row, CsrArrays};
use sparse_runtime::prelude::*;
use sprs::TriMatI;
use std::hint::black_box;

/// Rows of the random matrix.
const N: usize = 1_000_000;

/// The entries of `m` as triplets in a fixed pseudo-random order.
fn shuffled_triplets(m: &CsrArrays<u32>) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
    let mut order: Vec<usize> = (0..m.nnz()).collect();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for k in (1..order.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(k, (state % (k as u64 + 1)) as usize);
    }
    let mut rows = vec![0u32; m.nnz()];
    for (r, w) in m.row_ptr.windows(2).enumerate() {
        rows[w[0] as usize..w[1] as usize].fill(r as u32);
    }
    let pick = |v: &dyn Fn(usize) -> u32| order.iter().map(|&p| v(p)).collect::<Vec<u32>>();
    (
        pick(&|p| rows[p]),
        pick(&|p| m.col_idx[p]),
        order.iter().map(|&p| m.vals[p]).collect(),
    )
}

fn coo_to_csr(c: &mut Criterion, m: &CsrArrays<u32>) {
    let (rows, cols, vals) = shuffled_triplets(m);
    let ours = || {
        let entries = rows
            .iter()
            .zip(&cols)
            .zip(&vals)
            .map(|((&i, &j), &v)| ([i as usize, j as usize], v));
        Csr::<f64, u32>::from_entries(&[m.rows, m.cols], entries).expect("valid entries")
    };
    let want = m.to_csr();
    assert_eq!(ours(), want, "generated COO -> CSR");
    let tri = TriMatI::<f64, u32>::from_triplets(
        (m.rows, m.cols),
        rows.clone(),
        cols.clone(),
        vals.clone(),
    );
    let s: sprs::CsMatI<f64, u32> = tri.to_csr();
    assert_eq!(
        s.indptr().raw_storage(),
        want.levels().1.pos(),
        "sprs COO -> CSR"
    );
    assert_eq!(s.indices(), want.levels().1.crd(), "sprs COO -> CSR");
    let widen = |v: &[u32]| v.iter().map(|&x| x as usize).collect::<Vec<usize>>();
    let coo =
        CooMatrix::try_from_triplets(m.rows, m.cols, widen(&rows), widen(&cols), vals.clone())
            .expect("valid triplets");
    let n = CsrMatrix::from(&coo);
    assert_eq!(
        n.col_indices(),
        &widen(want.levels().1.crd())[..],
        "nalgebra COO -> CSR"
    );

    let mut list = sparse_runtime::io::Entries::with_capacity(&[m.rows, m.cols], m.nnz());
    for ((&i, &j), &v) in rows.iter().zip(&cols).zip(&vals) {
        list.push(&[i as usize, j as usize], v).expect("in range");
    }
    let from_list = || Csr::<f64, u32>::from_source(&list).expect("valid entries");
    assert_eq!(from_list(), want, "generated COO list -> CSR");

    let mut g = group(c, "coo_to_csr_rand8", m.nnz());
    g.bench_function("generated", |b| b.iter(|| black_box(ours())));
    g.bench_function("generated_from_list", |b| b.iter(|| black_box(from_list())));
    g.bench_function("sprs", |b| {
        b.iter(|| black_box::<sprs::CsMatI<f64, u32>>(black_box(&tri).to_csr()))
    });
    g.bench_function("nalgebra", |b| {
        b.iter(|| black_box(CsrMatrix::from(black_box(&coo))))
    });
    g.finish();
}

fn csr_to_csc(c: &mut Criterion, m: &CsrArrays<u32>) {
    let a = m.to_csr();
    let want = m.to_csc();
    let ours: Csc<f64, u32> = a.convert().expect("convertible");
    assert_eq!(ours, want, "generated CSR -> CSC");
    let t: Csr<f64, u32> = a.transpose().expect("a matrix");
    assert_eq!(
        t.levels().1.crd(),
        want.levels().1.crd(),
        "generated transposition"
    );
    let s = common::sprs_csr(m);
    assert_eq!(
        s.to_csc().indices(),
        want.levels().1.crd(),
        "sprs CSR -> CSC"
    );
    let n = common::nalgebra_csr(m);
    let nc = CscMatrix::from(&n);
    assert_eq!(nc.nnz(), want.vals().len(), "nalgebra CSR -> CSC");

    let mut g = group(c, "csr_to_csc_rand8", m.nnz());
    g.bench_function("generated", |b| {
        b.iter(|| black_box(black_box(&a).convert::<Csc<f64, u32>>()))
    });
    g.bench_function("generated_transpose", |b| {
        b.iter(|| black_box(black_box(&a).transpose::<Csr<f64, u32>>()))
    });
    g.bench_function("sprs", |b| b.iter(|| black_box(black_box(&s).to_csc())));
    g.bench_function("nalgebra", |b| {
        b.iter(|| black_box(CscMatrix::from(black_box(&n))))
    });
    g.bench_function("hand", |b| b.iter(|| black_box(black_box(m).transpose())));
    g.finish();
}

/// COO targets (a compressed non-unique level over a singleton), from CSR
/// and from an unsorted list, against nalgebra-sparse `CooMatrix::from(&CsrMatrix)`.
fn to_coo(c: &mut Criterion, m: &CsrArrays<u32>) {
    let a = m.to_csr();
    let from_csr = || a.convert::<Coo<f64, u32>>().expect("convertible");
    let want = from_csr();
    assert_eq!(want.entries(), a.entries(), "generated CSR -> COO");
    let (rows, cols, vals) = shuffled_triplets(m);
    let mut list = sparse_runtime::io::Entries::with_capacity(&[m.rows, m.cols], m.nnz());
    for ((&i, &j), &v) in rows.iter().zip(&cols).zip(&vals) {
        list.push(&[i as usize, j as usize], v).expect("in range");
    }
    let from_list = || Coo::<f64, u32>::from_source(&list).expect("valid entries");
    let listed = from_list();
    assert!(
        listed.levels() == want.levels() && listed.vals() == want.vals(),
        "generated COO list -> COO"
    );
    let n = common::nalgebra_csr(m);
    assert_eq!(CooMatrix::from(&n).nnz(), m.nnz(), "nalgebra CSR -> COO");

    let mut g = group(c, "to_coo_rand8", m.nnz());
    g.bench_function("generated_from_csr", |b| b.iter(|| black_box(from_csr())));
    g.bench_function("generated_from_list", |b| b.iter(|| black_box(from_list())));
    g.bench_function("nalgebra_from_csr", |b| {
        b.iter(|| black_box(CooMatrix::from(black_box(&n))))
    });
    g.finish();
}

/// The blocked formats, whose conversions go through a coordinate remapping
/// (`Remapped`): CSR to BCSR of 2 x 2 blocks and to CSB, BCSR back to CSR,
/// and, for the cost of a view, the transposition to CSR (`Transposed`).
fn blocked(c: &mut Criterion, m: &CsrArrays<u32>) {
    let a = m.to_csr();
    let bcsr: Bcsr<f64, 2, 2, u32> = a.convert().expect("convertible");
    let back: Csr<f64, u32> = bcsr.convert().expect("convertible");
    // The blocks' padding comes back as explicit zeros.
    let stored: Vec<_> = back.entries().into_iter().filter(|e| e.1 != 0.0).collect();
    assert!(stored == a.entries(), "generated CSR -> BCSR -> CSR");
    let mut g = group(c, "blocked_rand8", m.nnz());
    g.bench_function("csr_to_bcsr2x2", |b| {
        b.iter(|| black_box(black_box(&a).convert::<Bcsr<f64, 2, 2, u32>>()))
    });
    g.bench_function("csr_to_csb", |b| {
        b.iter(|| black_box(black_box(&a).convert::<Csb<f64, u32>>()))
    });
    g.bench_function("bcsr2x2_to_csr", |b| {
        b.iter(|| black_box(black_box(&bcsr).convert::<Csr<f64, u32>>()))
    });
    g.bench_function("csr_transpose", |b| {
        b.iter(|| black_box(black_box(&a).transpose::<Csr<f64, u32>>()))
    });
    g.finish();
}

/// A direct conversion from `S` to `T` against the same through `Via`.
fn direct_vs_via<S, T, Via>(c: &mut Criterion, name: &str, source: &S)
where
    S: Source<f64>,
    T: Target<f64> + PartialEq + std::fmt::Debug,
    Via: Source<f64> + Target<f64>,
{
    let direct = || source.convert::<T>().expect("convertible");
    let via = || {
        let middle: Via = source.convert().expect("convertible");
        middle.convert::<T>().expect("convertible")
    };
    assert_eq!(
        direct(),
        via(),
        "{name}: direct and through an intermediate"
    );
    let mut g = group(c, name, 4_996_000);
    g.bench_function("direct", |b| b.iter(|| black_box(direct())));
    g.bench_function("via", |b| b.iter(|| black_box(via())));
    g.finish();
}

fn structured(c: &mut Criterion) {
    let m = poisson_2d::<u32>(1000);
    let csr = m.to_csr();
    let csc = m.to_csc();
    let coo: Coo<f64, u32> = csr.convert().expect("convertible");
    direct_vs_via::<_, Dia<f64>, Coo<f64, u32>>(c, "csr_to_dia_lap2d", &csr);
    direct_vs_via::<_, Ell<f64, u32>, Coo<f64, u32>>(c, "csr_to_ell_lap2d", &csr);
    direct_vs_via::<_, Dia<f64>, Csr<f64, u32>>(c, "coo_to_dia_lap2d", &coo);
    direct_vs_via::<_, Ell<f64, u32>, Csr<f64, u32>>(c, "csc_to_ell_lap2d", &csc);
}

/// Writes the shuffled triplets of `m` as `triplets_rand8.{rows,cols}.u32`, `.vals.f64`
/// (little-endian) and `.shape` (`rows cols nnz`).
fn dump_triplets(m: &CsrArrays<u32>, dir: &std::path::Path) -> std::io::Result<()> {
    let (rows, cols, vals) = shuffled_triplets(m);
    let path = |ext: &str| dir.join(format!("triplets_rand8.{ext}"));
    let le = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(path("rows.u32"), le(&rows))?;
    std::fs::write(path("cols.u32"), le(&cols))?;
    std::fs::write(
        path("vals.f64"),
        vals.iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
    )?;
    std::fs::write(
        path("shape"),
        format!("{} {} {}\n", m.rows, m.cols, vals.len()),
    )
}

fn benches(c: &mut Criterion) {
    let m = random_per_row::<u32>(N, 8);
    if let Some(dir) = std::env::var_os("SPARSE_BENCH_DUMP") {
        dump_triplets(&m, &std::path::PathBuf::from(dir)).expect("dump the triplets");
    }
    coo_to_csr(c, &m);
    csr_to_csc(c, &m);
    to_coo(c, &m);
    blocked(c, &m);
    structured(c);
}

criterion_group!(convert, benches);
criterion_main!(convert);
