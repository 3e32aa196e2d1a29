//! Reading a Matrix Market file of 10 million entries: `sparse_runtime::io` into its neutral
//! entry list (the parse alone), into `Coo<f64>` and into `Csr<f64>`, against
//! `sprs::io::read_matrix_market` (a triplet matrix, then CSR) and nalgebra-sparse's
//! `load_coo_from_matrix_market_file` (a COO matrix, then CSR).
//!
//! The file (a 1M x 1M matrix, 10 entries per row at random columns, rows in order, values
//! printed with 17 significant digits as most writers do; about 330 MB) is generated from a
//! fixed seed into the temporary directory and removed afterwards, or written to
//! `$SPARSE_BENCH_MTX` and kept there, for `benches/scipy_io.py`:
//!
//!     SPARSE_BENCH_MTX=/tmp/io_read.mtx cargo bench -p sparse-benches --bench io_read
//!     python3 benches/scipy_io.py /tmp/io_read.mtx
//!
//! `SPARSE_BENCH_IO_ROWS` changes the number of rows (10 entries each).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sparse_runtime::io::{self, Entries};
use sparse_runtime::prelude::*;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Entries per row.
const PER_ROW: usize = 10;

/// A xorshift64* generator (the other benches' generators are deterministic too).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Writes the matrix file; returns its entry count.
fn generate(path: &Path, rows: usize) -> std::io::Result<usize> {
    let mut rng = Rng(0x5eed_1234_5678_9abc);
    let file = std::fs::File::create(path)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let nnz = rows * PER_ROW;
    writeln!(out, "%%MatrixMarket matrix coordinate real general")?;
    writeln!(
        out,
        "% io_read bench: {rows} rows, {PER_ROW} random columns each"
    )?;
    writeln!(out, "{rows} {rows} {nnz}")?;
    for i in 1..=rows {
        for _ in 0..PER_ROW {
            let j = rng.next() % rows as u64 + 1;
            let v = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            writeln!(out, "{i} {j} {v:.16e}")?;
        }
    }
    out.flush()?;
    Ok(nnz)
}

/// The sum of `vals` (a cheap fingerprint to check the readers agree).
fn sum(vals: &[f64]) -> f64 {
    vals.iter().sum()
}

fn io_read(c: &mut Criterion) {
    let rows: usize = std::env::var("SPARSE_BENCH_IO_ROWS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1_000_000);
    let (path, keep): (PathBuf, bool) = match std::env::var_os("SPARSE_BENCH_MTX") {
        Some(p) => (p.into(), true),
        None => (
            std::env::temp_dir().join(format!("sparse-io-read-{}.mtx", std::process::id())),
            false,
        ),
    };
    let nnz = generate(&path, rows).expect("the bench file can be written");

    // Every contender reads the same matrix before anything is timed.
    let entries: Entries<f64> = io::read_matrix_market(&path).unwrap();
    let coo: Coo<f64> = io::read_matrix_market(&path).unwrap();
    let csr: Csr<f64> = io::read_matrix_market(&path).unwrap();
    let want = sum(entries.vals());
    assert_eq!(entries.len(), nnz);
    let close = |name: &str, n: usize, s: f64| {
        assert!(
            n <= nnz && (s - want).abs() < 1e-6 * nnz as f64,
            "{name} disagrees"
        );
    };
    close("Coo", coo.nnz(), sum(coo.vals()));
    close("Csr", csr.nnz(), sum(csr.vals()));
    let tri: sprs::TriMatI<f64, u32> = sprs::io::read_matrix_market(&path).unwrap();
    close("sprs", tri.nnz(), sum(tri.data()));
    let nal: nalgebra_sparse::CooMatrix<f64> =
        nalgebra_sparse::io::load_coo_from_matrix_market_file(&path).unwrap();
    close("nalgebra-sparse", nal.nnz(), sum(nal.values()));
    let nal_csr = nalgebra_sparse::CsrMatrix::from(&nal);
    close("nalgebra-sparse CSR", nal_csr.nnz(), sum(nal_csr.values()));
    drop((entries, coo, csr, tri, nal, nal_csr));

    let mut group = c.benchmark_group("io_read");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(nnz as u64));
    group.bench_function("ours: entries (parse only)", |b| {
        b.iter(|| black_box(io::read_matrix_market::<Entries<f64>>(&path).unwrap()))
    });
    group.bench_function("ours: Coo<f64>", |b| {
        b.iter(|| black_box(io::read_matrix_market::<Coo<f64>>(&path).unwrap()))
    });
    group.bench_function("ours: Csr<f64>", |b| {
        b.iter(|| black_box(io::read_matrix_market::<Csr<f64>>(&path).unwrap()))
    });
    group.bench_function("sprs: TriMat", |b| {
        b.iter(|| {
            let t: sprs::TriMatI<f64, u32> = sprs::io::read_matrix_market(&path).unwrap();
            black_box(t)
        })
    });
    group.bench_function("sprs: TriMat then CSR", |b| {
        b.iter(|| {
            let t: sprs::TriMatI<f64, u32> = sprs::io::read_matrix_market(&path).unwrap();
            black_box(t.to_csr::<u32>())
        })
    });
    group.bench_function("nalgebra-sparse: COO", |b| {
        b.iter(|| {
            let m: nalgebra_sparse::CooMatrix<f64> =
                nalgebra_sparse::io::load_coo_from_matrix_market_file(&path).unwrap();
            black_box(m)
        })
    });
    group.bench_function("nalgebra-sparse: COO then CSR", |b| {
        b.iter(|| {
            let m: nalgebra_sparse::CooMatrix<f64> =
                nalgebra_sparse::io::load_coo_from_matrix_market_file(&path).unwrap();
            black_box(nalgebra_sparse::CsrMatrix::from(&m))
        })
    });
    group.finish();
    if !keep {
        let _ = std::fs::remove_file(&path);
    }
}

criterion_group!(benches, io_read);
criterion_main!(benches);
