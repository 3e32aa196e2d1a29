//! The benchmark suite: every kernel on every dataset against its peers, in one process, with
//! a table of ratios at the end (plain text and Markdown).
//!
//! Datasets (deterministic generators in `sparse_benches`; sizes at `SPARSE_SUITE_SCALE=1`):
//!
//! - `lap2d`: the 2-D Poisson matrix of a 1000 x 1000 grid (1M rows, 5-point stencil);
//! - `lap3d`: the 3-D Poisson matrix of a 100 x 100 x 100 grid (1M rows, 7-point stencil);
//! - `rand8`: 1M x 1M, 8 uniformly random columns per row;
//! - `rmat`: an R-MAT graph of scale 20, edge factor 8 (Graph500 probabilities, duplicates
//!   merged: skewed degrees, hubs in the low rows);
//! - `banded`: 1M x 1M, the 7 diagonals `-3..=3`;
//! - `fem3`: the finite-element-like matrix of 3 x 3 blocks of `spmv_blocked` (a 320 x 320 grid
//!   of nodes, 307,200 rows, 27 entries per interior row), as CSR;
//! - `t3uniform`: a 2000 x 2000 x 2000 tensor of 8M uniformly random distinct entries;
//! - `t3power`: the same size and count, each mode's coordinate drawn R-MAT style (low
//!   coordinates heavy).
//!
//! Kernels (each `sparse_kernel!` below, checked against a hand-written reference before
//! timing): SpMV on CSR, CSC and COO; SpMM with 16 dense columns; SpGEMM `A A`; sparse add
//! `A + B` (`B` 4 random entries per row) into a fresh and into a reused CSR; SDDMM with rank
//! 16; inner products `sum A .* A'` (same pattern) and `sum A .* B` (different patterns); the
//! residual `b - A x`; construction of a CSR from shuffled triplets; on the tensors TTV (from
//! CSF into a fresh and a reused CSR, from COO into a reused CSR) and MTTKRP with rank 16 from
//! CSF and COO. SDDMM and MTTKRP from
//! CSF also run as `precompute(never)` kernels, which sum every product term by term, so the
//! effect of precompute (`sparse_core::precompute`) is measured in the same run.
//!
//! Peers: the best hand-written loop over the same arrays (always), sprs and nalgebra-sparse
//! where they have the kernel. Method: `SPARSE_SUITE_ROUNDS` rounds (default 10), each calling
//! every contender of a group once, in turn (round `r` starting at the `r`-th); the generated
//! contenders run once inside a 1-thread and once inside a 2-thread rayon pool (the kernels use
//! the pool they are called in), the peers inside the 1-thread pool (on the same thread as
//! the generated 1-thread rounds: on the development VM a hand loop on the main thread and the
//! same loop on a pool's thread differed by up to 1.3x); medians and fastest times per
//! contender;
//! ratio = generated median / the fastest peer's median (below 1: generated faster), and the
//! same of the fastest rounds (steadier on a machine with slow phases, where medians of a
//! few rounds can move by a third between runs). A STREAM
//! triad gives the machine's bandwidth, and each SpMV's effective bandwidth is reported as a
//! fraction of it.
//!
//! Environment: `SPARSE_SUITE_ROUNDS=N`, `SPARSE_SUITE_FILTER=substr` (of `kernel/dataset`),
//! `SPARSE_SUITE_SCALE=d` (divide the sizes by `d`), `SPARSE_SUITE_DUMP=dir` (write the
//! matrices, the checksums of the results and the Rust times for `benches/scipy_suite.py`).
//! Under `-- --test` (criterion's test mode) every check runs once at a tiny scale.
//!
//! Run with `cargo bench -p sparse-benches --bench suite`.

mod common;
use common::{add_hand, check_close, check_same, group, nalgebra_csr, spgemm_hand};
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{DMatrix, DVector};
use nalgebra_sparse::ops::serial::{spmm_csc_dense, spmm_csr_dense};
use nalgebra_sparse::ops::Op;
use nalgebra_sparse::{CooMatrix, CscMatrix, CsrMatrix};
use rayon::prelude::*;
use rayon::ThreadPool;
use sparse_benches::{
    banded, csr_to_coo, dump_csr, fem_2d_blocks, poisson_2d, poisson_3d, power_law_tensor3,
    random_per_row, random_uniform, rmat, shuffled_triplets, test_vector, uniform_tensor3, Coords3,
    CsrArrays,
};
use sparse_runtime::prelude::*;
use sprs::{CsMatI, TriMatI};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// Dense columns of SpMM, SDDMM and MTTKRP.
const K: usize = 16;

sparse_kernel! {
    fn spmv_csr(y: &mut Dense1<f64>, a: &Csr<f64, u32>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    fn spmv_csc(y: &mut Dense1<f64>, a: &Csc<f64, u32>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    fn spmv_coo(y: &mut Dense1<f64>, a: &Coo<f64, u32>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    fn spmm(c: &mut Dense2<f64>, a: &Csr<f64, u32>, b: &Dense2<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    fn spgemm(c: &mut Csr<f64, u32>, a: &Csr<f64, u32>, b: &Csr<f64, u32>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    fn add(c: &mut Csr<f64, u32>, a: &Csr<f64, u32>, b: &Csr<f64, u32>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    #[schedule(compute(sddmm_values))]
    fn sddmm(a: &mut Csr<f64, u32>, b: &Csr<f64, u32>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
    // The same, summing `b * c * d` term by term (no precompute): the comparison of the pass.
    #[schedule(compute(sddmm_in_order_values), precompute(never))]
    fn sddmm_in_order(a: &mut Csr<f64, u32>, b: &Csr<f64, u32>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
    fn inner(s: &mut f64, b: &Csr<f64, u32>, c: &Csr<f64, u32>) {
        s = b(i, j) * c(i, j)
    }
    fn residual(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csr<f64, u32>, x: &Dense1<f64>) {
        r(i) = b(i) - a(i, j) * x(j)
    }
    fn ttv(a: &mut Csr<f64, u32>, b: &Csf3<f64, u32>, c: &Dense1<f64>) {
        a(i, j) = b(i, j, k) * c(k)
    }
    fn ttv_coo(a: &mut Csr<f64, u32>, b: &Coo3<f64, u32>, c: &Dense1<f64>) {
        a(i, j) = b(i, j, k) * c(k)
    }
    fn mttkrp_csf(a: &mut Dense2<f64>, b: &Csf3<f64, u32>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    #[schedule(precompute(never))]
    fn mttkrp_csf_in_order(
        a: &mut Dense2<f64>,
        b: &Csf3<f64, u32>,
        c: &Dense2<f64>,
        d: &Dense2<f64>,
    ) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    fn mttkrp_coo(a: &mut Dense2<f64>, b: &Coo3<f64, u32>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
}

// ---------------------------------------------------------------------------------------------
// The harness.

/// A contender's result, copied out when it is checked (never while it is timed).
enum Out {
    Dense(Vec<f64>),
    Sparse(CsrArrays<u32>),
    Scalar(f64),
}

impl Out {
    /// `(stored entries, sum of the values)`: the checksum written for `scipy_suite.py`.
    fn checksum(&self) -> (usize, f64) {
        match self {
            Out::Dense(v) => (v.len(), v.iter().sum()),
            Out::Sparse(m) => (m.nnz(), m.vals.iter().sum()),
            Out::Scalar(s) => (1, *s),
        }
    }
}

/// `got` holds what `want` does: values equal to rounding, the same pattern.
fn check(name: &str, got: &Out, want: &Out) {
    match (got, want) {
        (Out::Dense(g), Out::Dense(w)) => check_close(name, g, w),
        (Out::Sparse(g), Out::Sparse(w)) => {
            assert_eq!((g.rows, g.cols), (w.rows, w.cols), "{name}: shapes differ");
            check_same(name, &g.row_ptr, &g.col_idx, &g.vals, w);
        }
        (Out::Scalar(g), Out::Scalar(w)) => check_close(name, &[*g], &[*w]),
        _ => panic!("{name}: another kind of result"),
    }
}

/// The arrays of a runtime `Csr`.
fn csr_out(c: &Csr<f64, u32>) -> Out {
    let l = &c.levels().1;
    Out::Sparse(CsrArrays {
        rows: c.shape()[0],
        cols: c.shape()[1],
        row_ptr: l.pos().to_vec(),
        col_idx: l.crd().to_vec(),
        vals: c.vals().to_vec(),
    })
}

/// The arrays of an sprs CSR matrix.
fn sprs_out(c: &CsMatI<f64, u32>) -> Out {
    Out::Sparse(CsrArrays {
        rows: c.rows(),
        cols: c.cols(),
        row_ptr: c.proper_indptr().to_vec(),
        col_idx: c.indices().to_vec(),
        vals: c.data().to_vec(),
    })
}

/// The arrays of a nalgebra-sparse CSR matrix.
fn nalgebra_out(c: &CsrMatrix<f64>) -> Out {
    let narrow = |v: &[usize]| v.iter().map(|&x| x as u32).collect();
    Out::Sparse(CsrArrays {
        rows: c.nrows(),
        cols: c.ncols(),
        row_ptr: narrow(c.row_offsets()),
        col_idx: narrow(c.col_indices()),
        vals: c.values().to_vec(),
    })
}

/// A column-major nalgebra matrix as row-major values.
fn row_major(m: &DMatrix<f64>) -> Out {
    Out::Dense(m.transpose().as_slice().to_vec())
}

/// One contender: `run(check)` calls it once, and returns a copy of its result when `check`.
struct Contender<'a> {
    name: &'static str,
    /// Generated code (run inside each rayon pool), or a peer (run on the calling thread).
    generated: bool,
    run: Box<dyn FnMut(bool) -> Option<Out> + Send + 'a>,
}

fn generated<'a>(
    name: &'static str,
    run: impl FnMut(bool) -> Option<Out> + Send + 'a,
) -> Contender<'a> {
    Contender {
        name,
        generated: true,
        run: Box::new(run),
    }
}

fn peer<'a>(name: &'static str, run: impl FnMut(bool) -> Option<Out> + Send + 'a) -> Contender<'a> {
    Contender {
        name,
        generated: false,
        run: Box::new(run),
    }
}

/// One line of the final table: a generated contender against the fastest peer of its group.
struct Row {
    kernel: &'static str,
    dataset: &'static str,
    variant: &'static str,
    nnz: usize,
    /// Median ms at each pool size.
    generated: Vec<f64>,
    /// Fastest ms at each pool size.
    generated_min: Vec<f64>,
    /// The peer with the lowest median, its median ms.
    peer: Option<(&'static str, f64)>,
    /// The fastest round of any peer, ms.
    peer_min: Option<f64>,
    /// The same among the libraries (every peer but the hand-written loop).
    library: Option<(&'static str, f64)>,
    /// Bytes an SpMV must move at least (its effective bandwidth is reported).
    bytes: Option<f64>,
}

struct Suite {
    rounds: usize,
    filter: Option<String>,
    scale: usize,
    dump: Option<PathBuf>,
    /// `(threads, pool)`, 1 and 2 threads.
    pools: Vec<(usize, ThreadPool)>,
    /// Triad GB/s (fastest round) at each pool size.
    triad: Vec<f64>,
    rows: Vec<Row>,
    /// `kernel dataset contender threads median fastest` (ms) for `scipy_suite.py`.
    times: String,
    /// `kernel dataset nnz sum` of each reference result.
    cases: String,
}

/// Sizes divided by the scale, never below `floor`.
fn scaled(full: usize, scale: usize, floor: usize) -> usize {
    (full / scale).max(floor)
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else if ms >= 0.1 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.4}")
    }
}

fn median(t: &[f64]) -> f64 {
    let mut t = t.to_vec();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn fastest(t: &[f64]) -> f64 {
    t.iter().copied().fold(f64::INFINITY, f64::min)
}

impl Suite {
    fn from_env() -> Suite {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let number = |name: &str, default: usize| {
            env(name).map_or(default, |v| {
                v.parse::<usize>()
                    .ok()
                    .filter(|&n| n > 0)
                    .unwrap_or_else(|| panic!("{name} is a positive integer, not {v:?}"))
            })
        };
        let test = std::env::args().any(|a| a == "--test");
        let (rounds, scale) = if test {
            (1, number("SPARSE_SUITE_SCALE", 1).max(4096))
        } else {
            (
                number("SPARSE_SUITE_ROUNDS", 10),
                number("SPARSE_SUITE_SCALE", 1),
            )
        };
        let dump = env("SPARSE_SUITE_DUMP").map(PathBuf::from);
        if let Some(dir) = &dump {
            std::fs::create_dir_all(dir).expect("SPARSE_SUITE_DUMP is a writable directory");
        }
        let pools = [1, 2]
            .into_iter()
            .map(|t| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .expect("a rayon pool");
                (t, pool)
            })
            .collect();
        Suite {
            rounds,
            filter: env("SPARSE_SUITE_FILTER"),
            scale,
            dump,
            pools,
            triad: vec![],
            rows: vec![],
            times: String::new(),
            cases: String::new(),
        }
    }

    /// Whether `kernel/dataset` passes the filter.
    fn wants(&self, kernel: &str, dataset: &str) -> bool {
        self.filter
            .as_ref()
            .is_none_or(|f| format!("{kernel}/{dataset}").contains(f.as_str()))
    }

    /// Whether any of `kernels` on `dataset` passes the filter.
    fn wants_any(&self, kernels: &[&str], dataset: &str) -> bool {
        kernels.iter().any(|k| self.wants(k, dataset))
    }

    /// Checks every contender against the first (the hand-written reference), then times them
    /// in interleaved rounds and records one row per generated contender.
    fn measure(
        &mut self,
        kernel: &'static str,
        dataset: &'static str,
        nnz: usize,
        bytes: Option<f64>,
        mut contenders: Vec<Contender>,
    ) {
        assert!(
            !contenders[0].generated,
            "the first contender is the reference"
        );
        let want = (contenders[0].run)(true).expect("a result to check");
        let (count, sum) = want.checksum();
        writeln!(self.cases, "{kernel}\t{dataset}\t{count}\t{sum:e}").unwrap();
        for c in &mut contenders[1..] {
            if c.generated {
                for (t, pool) in &self.pools {
                    let run = &mut c.run;
                    let got = pool.install(move || run(true)).expect("a result to check");
                    check(
                        &format!("{kernel}/{dataset} {} ({t} threads)", c.name),
                        &got,
                        &want,
                    );
                }
            } else {
                let got = (c.run)(true).expect("a result to check");
                check(&format!("{kernel}/{dataset} {}", c.name), &got, &want);
            }
        }
        drop(want);

        let pools = if contenders.iter().any(|c| c.generated) {
            self.pools.len()
        } else {
            1
        };
        let mut times = vec![vec![Vec::with_capacity(self.rounds); pools]; contenders.len()];
        // Round `r` starts at contender `r mod n` (and a generated one at pool `r mod pools`), so
        // that no contender always runs right after the same other one (whose data it may
        // find in cache).
        let n = contenders.len();
        for round in 0..self.rounds {
            for step in 0..n {
                let (c, t) = (
                    &mut contenders[(round + step) % n],
                    &mut times[(round + step) % n],
                );
                if c.generated {
                    for s in 0..pools {
                        let p = (round + s) % pools;
                        let run = &mut c.run;
                        let ms = self.pools[p].1.install(move || {
                            let start = Instant::now();
                            black_box(run(false));
                            start.elapsed().as_secs_f64() * 1e3
                        });
                        t[p].push(ms);
                    }
                } else {
                    // On the 1-thread pool's thread, as the generated 1-thread rounds: where a
                    // loop runs (the main thread or a pool's) moved its time by up to 1.3x on
                    // the development VM, so peers and kernels share one.
                    let run = &mut c.run;
                    let ms = self.pools[0].1.install(move || {
                        let start = Instant::now();
                        black_box(run(false));
                        start.elapsed().as_secs_f64() * 1e3
                    });
                    t[0].push(ms);
                }
            }
        }

        let fastest_peer = |libraries_only: bool| {
            contenders
                .iter()
                .zip(&times)
                .filter(|(c, _)| !c.generated && (!libraries_only || c.name != "hand"))
                .map(|(c, t)| (c.name, median(&t[0])))
                .min_by(|a, b| a.1.total_cmp(&b.1))
        };
        let (peer, library) = (fastest_peer(false), fastest_peer(true));
        let peer_min = contenders
            .iter()
            .zip(&times)
            .filter(|(c, _)| !c.generated)
            .map(|(_, t)| fastest(&t[0]))
            .min_by(f64::total_cmp);
        println!(
            "{kernel}/{dataset}: nnz {nnz}, {} rounds, ms median (fastest), ratio of medians to {}",
            self.rounds,
            peer.map_or("-", |p| p.0)
        );
        for (c, t) in contenders.iter().zip(&times) {
            let runs: Vec<(usize, &Vec<f64>)> = if c.generated {
                self.pools.iter().map(|p| p.0).zip(t).collect()
            } else {
                vec![(1, &t[0])]
            };
            for (threads, t) in runs {
                let (med, min) = (median(t), fastest(t));
                let label = if c.generated {
                    format!("{} {threads}t", c.name)
                } else {
                    c.name.to_string()
                };
                let ratio = peer.map_or(String::new(), |p| format!("  {:.2}", med / p.1));
                println!(
                    "  {label:<26} {:>9} ({:>9}){ratio}",
                    fmt_ms(med),
                    fmt_ms(min)
                );
                writeln!(
                    self.times,
                    "{kernel}\t{dataset}\t{}\t{threads}\t{med:e}\t{min:e}",
                    c.name
                )
                .unwrap();
            }
        }
        for (c, t) in contenders.iter().zip(&times) {
            if c.generated {
                self.rows.push(Row {
                    kernel,
                    dataset,
                    variant: c.name,
                    nnz,
                    generated: t.iter().map(|t| median(t)).collect(),
                    generated_min: t.iter().map(|t| fastest(t)).collect(),
                    peer,
                    peer_min,
                    library,
                    bytes,
                });
            }
        }
    }

    /// The STREAM triad `a[i] = b[i] + s * c[i]` over `2^25 / scale` doubles (at least 2^16),
    /// in each pool (the 2-thread one splits the arrays into a chunk per thread); GB/s of the
    /// fastest round, counting 3 arrays of 8-byte values (2 read, 1 written).
    fn triad(&mut self) {
        let n = scaled(1 << 25, self.scale, 1 << 16);
        let (mut a, b, c) = (vec![0.0f64; n], vec![1.0f64; n], vec![2.0f64; n]);
        let s = 3.0;
        let bytes = 24.0 * n as f64;
        let mut line = format!("triad, {n} doubles per array:");
        for (threads, pool) in &self.pools {
            let chunk = n.div_ceil(*threads);
            let mut best = f64::INFINITY;
            for _ in 0..self.rounds.max(5) {
                let secs = pool.install(|| {
                    let start = Instant::now();
                    a.par_chunks_mut(chunk)
                        .zip(b.par_chunks(chunk))
                        .zip(c.par_chunks(chunk))
                        .for_each(|((a, b), c)| {
                            for ((a, &b), &c) in a.iter_mut().zip(b).zip(c) {
                                *a = b + s * c;
                            }
                        });
                    start.elapsed().as_secs_f64()
                });
                best = best.min(secs);
            }
            assert!(
                a.iter().all(|&x| x == 7.0),
                "the triad computed something else"
            );
            let gbs = bytes / best / 1e9;
            self.triad.push(gbs);
            write!(
                line,
                " {threads} thread(s) {gbs:.2} GB/s ({:.2} ms);",
                best * 1e3
            )
            .unwrap();
        }
        println!("{line}");
    }

    /// The table of every generated contender against its fastest peer, in plain text and in
    /// Markdown; and with `SPARSE_SUITE_DUMP`, the times and checksums for `scipy_suite.py`.
    fn report(&self) {
        let threads: Vec<usize> = self.pools.iter().map(|p| p.0).collect();
        let mut md = String::new();
        writeln!(
            md,
            "| kernel | dataset | nnz | generated | {} | fastest peer | peer ms | {} | ratio 1t, fastest rounds | ratio 1t to best library | SpMV GB/s, 1t (of triad) |",
            threads.iter().map(|t| format!("{t}t ms")).collect::<Vec<_>>().join(" | "),
            threads.iter().map(|t| format!("ratio {t}t")).collect::<Vec<_>>().join(" | "),
        )
        .unwrap();
        writeln!(
            md,
            "|---|---|---:|---|{}---|---:|{}---:|---|---|",
            "---:|".repeat(threads.len()),
            "---:|".repeat(threads.len())
        )
        .unwrap();
        for r in &self.rows {
            let (peer, peer_ms) = r.peer.unwrap_or(("-", f64::NAN));
            let ratios: Vec<String> = r
                .generated
                .iter()
                .map(|g| format!("{:.2}", g / peer_ms))
                .collect();
            let robust = r.peer_min.map_or(String::new(), |ms| {
                format!("{:.2}", r.generated_min[0] / ms)
            });
            let library = r.library.map_or(String::new(), |(name, ms)| {
                format!("{:.2} ({name})", r.generated[0] / ms)
            });
            let bandwidth = r.bytes.map_or(String::new(), |bytes| {
                let gbs = bytes / (r.generated_min[0] * 1e-3) / 1e9;
                format!("{gbs:.1} ({:.0}%)", 100.0 * gbs / self.triad[0])
            });
            writeln!(
                md,
                "| {} | {} | {} | {} | {} | {peer} | {} | {} | {robust} | {library} | {bandwidth} |",
                r.kernel,
                r.dataset,
                r.nnz,
                r.variant,
                r.generated
                    .iter()
                    .map(|&m| fmt_ms(m))
                    .collect::<Vec<_>>()
                    .join(" | "),
                fmt_ms(peer_ms),
                ratios.join(" | "),
            )
            .unwrap();
        }
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "\nSuite summary (scale 1/{}, {} rounds, triad {} GB/s at {} threads; load average {}):\n\
             ratio = generated median / fastest peer's median (below 1: generated faster); \
             fastest rounds: the generated kernel's fastest round / any peer's fastest round\n",
            self.scale,
            self.rounds,
            self.triad.iter().map(|g| format!("{g:.2}")).collect::<Vec<_>>().join(" / "),
            threads.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" / "),
            load.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        );
        if let Some(order) = free_page_reporting() {
            println!(
                "This machine's virtio balloon reports free memory to its host (blocks of 2^{order} \
                 pages): memory freed about 2 s or more before a kernel runs costs a host fault \
                 when first touched, so fresh outputs' times are bimodal (benches/README.md, \
                 \"Fresh outputs on a VM that reports free pages\").\n"
            );
        }
        println!("{md}");
        if let Some(dir) = &self.dump {
            let write = |name: &str, text: &str| {
                std::fs::write(dir.join(name), text).expect("the dump directory is writable")
            };
            write(
                "suite.meta",
                &format!(
                    "scale {}\nrounds {}\ntriad_gbs {}\n",
                    self.scale, self.rounds, self.triad[0]
                ),
            );
            write("suite_cases.tsv", &self.cases);
            write("suite_times.tsv", &self.times);
            write("suite_table.md", &md);
        }
    }

    fn dump_matrix(&self, m: &CsrArrays<u32>, name: &str) {
        if let Some(dir) = &self.dump {
            dump_csr(m, dir, name).expect("the dump directory is writable");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Datasets.

const MATRIX_DATASETS: [&str; 6] = ["lap2d", "lap3d", "rand8", "rmat", "banded", "fem3"];
const MATRIX_KERNELS: [&str; 11] = [
    "spmv_csr",
    "spmv_csc",
    "spmv_coo",
    "spmm",
    "spgemm",
    "add",
    "sddmm",
    "inner_same",
    "inner_diff",
    "residual",
    "construct",
];
const TENSOR_DATASETS: [&str; 2] = ["t3uniform", "t3power"];
const TENSOR_KERNELS: [&str; 3] = ["ttv", "mttkrp_csf", "mttkrp_coo"];

/// The matrix `name` at 1/`scale` of its full size.
fn matrix(name: &str, scale: usize) -> CsrArrays<u32> {
    let rows = scaled(1_000_000, scale, 64);
    match name {
        "lap2d" => poisson_2d((rows as f64).sqrt().round() as usize),
        "lap3d" => poisson_3d((rows as f64).cbrt().round() as usize),
        "rand8" => random_per_row(rows, 8),
        "rmat" => rmat(20u32.saturating_sub(scale.ilog2()).max(6), 8, 1),
        "banded" => banded(rows, 3),
        "fem3" => fem_2d_blocks::<u32>(((320.0 / (scale as f64).sqrt()).round() as usize).max(3))
            .to_csr_arrays(),
        _ => unreachable!("unknown dataset {name}"),
    }
}

/// The tensor `name`: 2000 x 2000 x 2000 with `8M / scale` entries.
fn tensor(name: &str, scale: usize) -> Coords3 {
    let nnz = scaled(8_000_000, scale, 1000);
    match name {
        "t3uniform" => uniform_tensor3([2000; 3], nnz, 1),
        "t3power" => power_law_tensor3([2000; 3], nnz, 2),
        _ => unreachable!("unknown dataset {name}"),
    }
}

/// The second operand of `add` and `inner_diff`: 4 random entries per row.
fn partner(a: &CsrArrays<u32>) -> CsrArrays<u32> {
    random_uniform(a.rows, a.cols, 4.min(a.cols), 11)
}

/// A row-major `rows x K` dense matrix of deterministic values (`test_vector` of `rows * K`).
fn dense_k(rows: usize) -> Vec<f64> {
    test_vector(rows * K)
}

// ---------------------------------------------------------------------------------------------
// Hand-written loops. Each reads the arrays of validated runtime tensors, whose invariants make
// the unchecked accesses sound.

/// CSR SpMV, `y = A x`.
///
/// # Panics
/// If the shapes differ.
fn spmv_csr_hand(a: &Csr<f64, u32>, x: &[f64], y: &mut [f64]) {
    assert_eq!((y.len(), x.len()), (a.shape()[0], a.shape()[1]));
    let (ptr, col, val) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    for (i, yi) in y.iter_mut().enumerate() {
        // SAFETY: a validated `Csr` has `rows + 1` non-decreasing row bounds ending at
        // `col.len() == val.len()`, every column is below `cols == x.len()`, `i < rows`.
        unsafe {
            let (lo, hi) = (
                *ptr.get_unchecked(i) as usize,
                *ptr.get_unchecked(i + 1) as usize,
            );
            let mut sum = 0.0;
            for p in lo..hi {
                sum += val.get_unchecked(p) * x.get_unchecked(*col.get_unchecked(p) as usize);
            }
            *yi = sum;
        }
    }
}

/// CSC SpMV, `y = A x`: zero `y`, then scatter each column times its `x`.
///
/// # Panics
/// If the shapes differ.
fn spmv_csc_hand(a: &Csc<f64, u32>, x: &[f64], y: &mut [f64]) {
    assert_eq!((y.len(), x.len()), (a.shape()[0], a.shape()[1]));
    let (ptr, row, val) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    y.fill(0.0);
    for (j, &xj) in x.iter().enumerate() {
        // SAFETY: a validated `Csc` has `cols + 1` non-decreasing column bounds ending at
        // `row.len() == val.len()`, every row is below `rows == y.len()`, `j < cols`.
        unsafe {
            let (lo, hi) = (
                *ptr.get_unchecked(j) as usize,
                *ptr.get_unchecked(j + 1) as usize,
            );
            for p in lo..hi {
                *y.get_unchecked_mut(*row.get_unchecked(p) as usize) += val.get_unchecked(p) * xj;
            }
        }
    }
}

/// COO SpMV, `y = A x`: zero `y`, then scatter every entry.
///
/// # Panics
/// If the shapes differ.
fn spmv_coo_hand(a: &Coo<f64, u32>, x: &[f64], y: &mut [f64]) {
    assert_eq!((y.len(), x.len()), (a.shape()[0], a.shape()[1]));
    let (rows, cols, vals) = (a.levels().0.crd(), a.levels().1.crd(), a.vals());
    y.fill(0.0);
    for ((&i, &j), &v) in rows.iter().zip(cols).zip(vals) {
        // SAFETY: a validated `Coo` has every row below `y.len()` and column below `x.len()`.
        unsafe { *y.get_unchecked_mut(i as usize) += v * x.get_unchecked(j as usize) };
    }
}

/// SpMM `C = A B`, `B` and `C` row-major with `K` columns: each row of `C` accumulated in
/// registers from the rows of `B` its entries select.
///
/// # Panics
/// If the shapes differ.
fn spmm_hand(a: &Csr<f64, u32>, b: &[f64], c: &mut [f64]) {
    assert_eq!((c.len(), b.len()), (a.shape()[0] * K, a.shape()[1] * K));
    let (ptr, col, val) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    for (i, ci) in c.chunks_exact_mut(K).enumerate() {
        let mut acc = [0.0; K];
        // SAFETY: as in `spmv_csr_hand`; a column `j < cols` starts a row `j * K .. j * K + K`
        // of `b`, whose length is `cols * K`.
        unsafe {
            let (lo, hi) = (
                *ptr.get_unchecked(i) as usize,
                *ptr.get_unchecked(i + 1) as usize,
            );
            for p in lo..hi {
                let v = *val.get_unchecked(p);
                let j = *col.get_unchecked(p) as usize;
                let bj = b.get_unchecked(j * K..j * K + K);
                for k in 0..K {
                    acc[k] += v * bj[k];
                }
            }
        }
        ci.copy_from_slice(&acc);
    }
}

/// The multiply-adds of `A B`.
fn flops(a: &CsrArrays<u32>, b: &CsrArrays<u32>) -> usize {
    a.col_idx
        .iter()
        .map(|&j| (b.row_ptr[j as usize + 1] - b.row_ptr[j as usize]) as usize)
        .sum()
}

/// SDDMM `out(i, j) = B(i, j) * sum_k C(i, k) D(j, k)` at `B`'s entries, into the values of a
/// copy of `B`'s pattern (`out` holds one value per entry of `B`).
///
/// # Panics
/// If the shapes differ.
fn sddmm_hand(b: &Csr<f64, u32>, c: &[f64], d: &[f64], out: &mut [f64]) {
    assert_eq!((c.len(), d.len()), (b.shape()[0] * K, b.shape()[1] * K));
    let (ptr, col, val) = (b.levels().1.pos(), b.levels().1.crd(), b.vals());
    assert_eq!(out.len(), val.len());
    for (i, ci) in c.chunks_exact(K).enumerate() {
        // SAFETY: as in `spmv_csr_hand`; `out.len() == val.len()`; a column `j < cols` starts
        // a row `j * K .. j * K + K` of `d`, whose length is `cols * K`.
        unsafe {
            let (lo, hi) = (
                *ptr.get_unchecked(i) as usize,
                *ptr.get_unchecked(i + 1) as usize,
            );
            for p in lo..hi {
                let j = *col.get_unchecked(p) as usize;
                let dj = d.get_unchecked(j * K..j * K + K);
                let mut dot = 0.0;
                for k in 0..K {
                    dot += ci[k] * dj[k];
                }
                *out.get_unchecked_mut(p) = *val.get_unchecked(p) * dot;
            }
        }
    }
}

/// `sum_ij B(i, j) C(i, j)`: a two-pointer intersection of each row pair.
///
/// # Panics
/// If the shapes differ.
fn inner_hand(b: &Csr<f64, u32>, c: &Csr<f64, u32>) -> f64 {
    assert_eq!(b.shape(), c.shape(), "shapes differ");
    let (b_ptr, b_col, b_val) = (b.levels().1.pos(), b.levels().1.crd(), b.vals());
    let (c_ptr, c_col, c_val) = (c.levels().1.pos(), c.levels().1.crd(), c.vals());
    let mut sum = 0.0;
    for i in 0..b.shape()[0] {
        // SAFETY: validated `Csr`s of the same number of rows: bounds in range.
        unsafe {
            let (mut p, p_end) = (
                *b_ptr.get_unchecked(i) as usize,
                *b_ptr.get_unchecked(i + 1) as usize,
            );
            let (mut q, q_end) = (
                *c_ptr.get_unchecked(i) as usize,
                *c_ptr.get_unchecked(i + 1) as usize,
            );
            while p < p_end && q < q_end {
                let (jb, jc) = (*b_col.get_unchecked(p), *c_col.get_unchecked(q));
                if jb == jc {
                    sum += *b_val.get_unchecked(p) * *c_val.get_unchecked(q);
                }
                p += usize::from(jb <= jc);
                q += usize::from(jc <= jb);
            }
        }
    }
    sum
}

/// The residual `r = b - A x`.
///
/// # Panics
/// If the shapes differ.
fn residual_hand(a: &Csr<f64, u32>, b: &[f64], x: &[f64], r: &mut [f64]) {
    assert_eq!(
        (r.len(), b.len(), x.len()),
        (a.shape()[0], a.shape()[0], a.shape()[1])
    );
    let (ptr, col, val) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    for (i, (ri, &bi)) in r.iter_mut().zip(b).enumerate() {
        // SAFETY: as in `spmv_csr_hand`.
        unsafe {
            let (lo, hi) = (
                *ptr.get_unchecked(i) as usize,
                *ptr.get_unchecked(i + 1) as usize,
            );
            let mut sum = 0.0;
            for p in lo..hi {
                sum += val.get_unchecked(p) * x.get_unchecked(*col.get_unchecked(p) as usize);
            }
            *ri = bi - sum;
        }
    }
}

/// CSR arrays from unsorted triplets: a counting sort by row, then each row sorted by column
/// and its duplicates summed (compacting the arrays in place).
///
/// # Panics
/// If a coordinate is out of range or there are more than `u32::MAX` entries.
fn construct_hand(
    rows: usize,
    cols: usize,
    ri: &[u32],
    ci: &[u32],
    vals: &[f64],
) -> CsrArrays<u32> {
    let n = ri.len();
    assert!(ci.len() == n && vals.len() == n && u32::try_from(n).is_ok());
    let mut start = vec![0u32; rows + 1];
    for &r in ri {
        start[r as usize + 1] += 1;
    }
    for r in 0..rows {
        start[r + 1] += start[r];
    }
    let mut next = start.clone();
    let mut entries = vec![(0u32, 0.0f64); n];
    for ((&r, &c), &v) in ri.iter().zip(ci).zip(vals) {
        assert!((c as usize) < cols, "column out of range");
        let q = &mut next[r as usize];
        entries[*q as usize] = (c, v);
        *q += 1;
    }
    let mut m = CsrArrays {
        rows,
        cols,
        row_ptr: Vec::with_capacity(rows + 1),
        col_idx: Vec::with_capacity(n),
        vals: Vec::with_capacity(n),
    };
    m.row_ptr.push(0);
    for w in start.windows(2) {
        let row = &mut entries[w[0] as usize..w[1] as usize];
        row.sort_unstable_by_key(|e| e.0);
        for &(c, v) in row.iter() {
            if m.col_idx.len() > *m.row_ptr.last().expect("a row start") as usize
                && m.col_idx.last() == Some(&c)
            {
                *m.vals.last_mut().expect("an entry") += v;
            } else {
                m.col_idx.push(c);
                m.vals.push(v);
            }
        }
        m.row_ptr.push(m.col_idx.len() as u32);
    }
    m
}

/// TTV `A(i, j) = sum_k B(i, j, k) c(k)` from a `Csf3` into `a`'s arrays (cleared, capacity
/// reused): every `(i, j)` fiber of `B` is one entry of `A`.
fn ttv_hand(b: &Csf3<f64, u32>, c: &[f64], a: &mut CsrArrays<u32>) {
    assert_eq!(c.len(), b.shape()[2]);
    let (l0, l1, l2) = b.levels();
    let (crd0, pos1, crd1, pos2, crd2) = (l0.crd(), l1.pos(), l1.crd(), l2.pos(), l2.crd());
    let vals = b.vals();
    (a.rows, a.cols) = (b.shape()[0], b.shape()[1]);
    a.row_ptr.clear();
    a.col_idx.clear();
    a.vals.clear();
    a.row_ptr.push(0);
    for (pi, &i) in crd0.iter().enumerate() {
        a.row_ptr.resize(i as usize + 1, a.col_idx.len() as u32);
        // SAFETY: a validated `Csf3`: each level's `pos` has one more entry than its parent
        // has positions, bounds in range; the last level's coordinates are below `c.len()`.
        unsafe {
            let (lo, hi) = (
                *pos1.get_unchecked(pi) as usize,
                *pos1.get_unchecked(pi + 1) as usize,
            );
            for pj in lo..hi {
                let (klo, khi) = (
                    *pos2.get_unchecked(pj) as usize,
                    *pos2.get_unchecked(pj + 1) as usize,
                );
                let mut sum = 0.0;
                for pk in klo..khi {
                    sum +=
                        vals.get_unchecked(pk) * c.get_unchecked(*crd2.get_unchecked(pk) as usize);
                }
                a.col_idx.push(*crd1.get_unchecked(pj));
                a.vals.push(sum);
            }
        }
        a.row_ptr.push(a.col_idx.len() as u32);
    }
    a.row_ptr.resize(a.rows + 1, a.col_idx.len() as u32);
}

/// MTTKRP `A(i, j) = sum_{k, l} B(i, k, l) C(k, j) D(l, j)` from a `Csf3`, `A`, `C`, `D`
/// row-major with `K` columns: per `(i, k)` fiber, the sum over `l` of `B(i, k, l) D(l, :)`
/// in registers, then times `C(k, :)` into row `i` of `A`.
fn mttkrp_csf_hand(b: &Csf3<f64, u32>, c: &[f64], d: &[f64], a: &mut [f64]) {
    let [di, dk, dl] = [b.shape()[0], b.shape()[1], b.shape()[2]];
    assert_eq!((a.len(), c.len(), d.len()), (di * K, dk * K, dl * K));
    let (l0, l1, l2) = b.levels();
    let (crd0, pos1, crd1, pos2, crd2) = (l0.crd(), l1.pos(), l1.crd(), l2.pos(), l2.crd());
    let vals = b.vals();
    a.fill(0.0);
    for (pi, &i) in crd0.iter().enumerate() {
        let i = i as usize;
        let mut row = [0.0; K];
        // SAFETY: a validated `Csf3` (see `ttv_hand`); coordinates of mode `m` are below the
        // mode's size, so `k * K + K <= c.len()` and `l * K + K <= d.len()`.
        unsafe {
            let (lo, hi) = (
                *pos1.get_unchecked(pi) as usize,
                *pos1.get_unchecked(pi + 1) as usize,
            );
            for pk in lo..hi {
                let k = *crd1.get_unchecked(pk) as usize;
                let (llo, lhi) = (
                    *pos2.get_unchecked(pk) as usize,
                    *pos2.get_unchecked(pk + 1) as usize,
                );
                let mut t = [0.0; K];
                for pl in llo..lhi {
                    let l = *crd2.get_unchecked(pl) as usize;
                    let v = *vals.get_unchecked(pl);
                    let dl = d.get_unchecked(l * K..l * K + K);
                    for j in 0..K {
                        t[j] += v * dl[j];
                    }
                }
                let ck = c.get_unchecked(k * K..k * K + K);
                for j in 0..K {
                    row[j] += t[j] * ck[j];
                }
            }
        }
        a[i * K..i * K + K].copy_from_slice(&row);
    }
}

/// MTTKRP from a `Coo3`: every entry adds `v C(k, :) .* D(l, :)` to row `i` of `A`.
fn mttkrp_coo_hand(b: &Coo3<f64, u32>, c: &[f64], d: &[f64], a: &mut [f64]) {
    let [di, dk, dl] = [b.shape()[0], b.shape()[1], b.shape()[2]];
    assert_eq!((a.len(), c.len(), d.len()), (di * K, dk * K, dl * K));
    let (l0, l1, l2) = b.levels();
    a.fill(0.0);
    for (((&i, &k), &l), &v) in l0.crd().iter().zip(l1.crd()).zip(l2.crd()).zip(b.vals()) {
        let (i, k, l) = (i as usize, k as usize, l as usize);
        // SAFETY: a validated `Coo3` has every coordinate below its mode's size, so each
        // `x * K + K` is within `a`, `c` or `d`.
        unsafe {
            let (ck, dl) = (
                c.get_unchecked(k * K..k * K + K),
                d.get_unchecked(l * K..l * K + K),
            );
            let ai = a.get_unchecked_mut(i * K..i * K + K);
            for j in 0..K {
                ai[j] += v * ck[j] * dl[j];
            }
        }
    }
}

/// The page order of free page reporting, if a virtio balloon on this machine reports free
/// memory to its host (feature bit 5, `VIRTIO_BALLOON_F_REPORTING`, of the device's
/// `features` string). The host then drops those pages, and the guest's next first touch of
/// them faults into the host too: a fresh 100 MB array took 60-100 ms to fill instead of
/// 19 ms on the development machine.
fn free_page_reporting() -> Option<u32> {
    let devices = std::fs::read_dir("/sys/bus/virtio/drivers/virtio_balloon").ok()?;
    let reports = devices.flatten().any(|d| {
        std::fs::read_to_string(d.path().join("features"))
            .is_ok_and(|f| f.as_bytes().get(5) == Some(&b'1'))
    });
    let order = "/sys/module/page_reporting/parameters/page_reporting_order";
    let order = std::fs::read_to_string(order).ok()?.trim().parse().ok()?;
    reports.then_some(order)
}

// ---------------------------------------------------------------------------------------------
// The groups.

/// Bytes an SpMV must move at least: the matrix's index and value arrays, `x` read once and `y`
/// written once (8-byte values, 4-byte indices).
fn spmv_bytes(index_words: usize, nnz: usize, rows: usize, cols: usize) -> f64 {
    (4 * index_words + 8 * nnz + 8 * rows + 8 * cols) as f64
}

fn matrix_groups(s: &mut Suite, ds: &'static str, m: &CsrArrays<u32>) {
    let (rows, cols, nnz) = (m.rows, m.cols, m.nnz());
    let a = m.to_csr();
    let x_vec = test_vector(cols);
    let x = Dense1::from_vec(x_vec.clone());
    if s.wants("spmv_csr", ds) {
        let (a_sprs, a_nal) = (common::sprs_csr(m), nalgebra_csr(m));
        let x_nal = DVector::from_vec(x_vec.clone());
        let bytes = spmv_bytes(rows + 1 + nnz, nnz, rows, cols);
        let (mut y_hand, mut y_sprs) = (vec![0.0; rows], vec![0.0; rows]);
        let (mut y_nal, mut y_gen) = (DVector::zeros(rows), Dense1::zeros(rows));
        let contenders = vec![
            peer("hand", |check| {
                spmv_csr_hand(&a, x.as_slice(), &mut y_hand);
                check.then(|| Out::Dense(y_hand.clone()))
            }),
            generated("generated", |check| {
                spmv_csr(&mut y_gen, &a, &x).expect("shapes match");
                check.then(|| Out::Dense(y_gen.as_slice().to_vec()))
            }),
            peer("sprs", |check| {
                common::sprs_spmv(&a_sprs, x.as_slice(), &mut y_sprs);
                check.then(|| Out::Dense(y_sprs.clone()))
            }),
            peer("nalgebra", |check| {
                spmm_csr_dense(0.0, &mut y_nal, 1.0, Op::NoOp(&a_nal), Op::NoOp(&x_nal));
                check.then(|| Out::Dense(y_nal.as_slice().to_vec()))
            }),
        ];
        s.measure("spmv_csr", ds, nnz, Some(bytes), contenders);
    }
    if s.wants("spmv_csc", ds) {
        let t = m.transpose();
        let a_csc = m.to_csc();
        let a_sprs = CsMatI::new_csc(
            (rows, cols),
            t.row_ptr.clone(),
            t.col_idx.clone(),
            t.vals.clone(),
        );
        let tu = t.with_index::<usize>();
        let a_nal = CscMatrix::try_from_csc_data(rows, cols, tu.row_ptr, tu.col_idx, tu.vals)
            .expect("valid CSC arrays");
        drop(t);
        let x_nal = DVector::from_vec(x_vec.clone());
        let bytes = spmv_bytes(cols + 1 + nnz, nnz, rows, cols);
        let (mut y_hand, mut y_sprs) = (vec![0.0; rows], vec![0.0; rows]);
        let (mut y_nal, mut y_gen) = (DVector::zeros(rows), Dense1::zeros(rows));
        let contenders = vec![
            peer("hand", |check| {
                spmv_csc_hand(&a_csc, x.as_slice(), &mut y_hand);
                check.then(|| Out::Dense(y_hand.clone()))
            }),
            generated("generated", |check| {
                spmv_csc(&mut y_gen, &a_csc, &x).expect("shapes match");
                check.then(|| Out::Dense(y_gen.as_slice().to_vec()))
            }),
            peer("sprs", |check| {
                y_sprs.fill(0.0);
                sprs::prod::mul_acc_mat_vec_csc(a_sprs.view(), x.as_slice(), &mut y_sprs[..]);
                check.then(|| Out::Dense(y_sprs.clone()))
            }),
            peer("nalgebra", |check| {
                spmm_csc_dense(0.0, &mut y_nal, 1.0, Op::NoOp(&a_nal), Op::NoOp(&x_nal));
                check.then(|| Out::Dense(y_nal.as_slice().to_vec()))
            }),
        ];
        s.measure("spmv_csc", ds, nnz, Some(bytes), contenders);
    }
    if s.wants("spmv_coo", ds) {
        let a_coo = csr_to_coo(m);
        let bytes = spmv_bytes(2 + 2 * nnz, nnz, rows, cols);
        let (mut y_hand, mut y_gen) = (vec![0.0; rows], Dense1::zeros(rows));
        let contenders = vec![
            peer("hand", |check| {
                spmv_coo_hand(&a_coo, x.as_slice(), &mut y_hand);
                check.then(|| Out::Dense(y_hand.clone()))
            }),
            generated("generated", |check| {
                spmv_coo(&mut y_gen, &a_coo, &x).expect("shapes match");
                check.then(|| Out::Dense(y_gen.as_slice().to_vec()))
            }),
        ];
        s.measure("spmv_coo", ds, nnz, Some(bytes), contenders);
    }
    if s.wants("spmm", ds) {
        let b_vec = dense_k(cols);
        let b = Dense2::from_vec(cols, K, b_vec.clone()).expect("a cols x K matrix");
        let a_sprs = common::sprs_csr(m);
        let a_nal = nalgebra_csr(m);
        let b_nal = DMatrix::from_row_slice(cols, K, &b_vec);
        let (mut c_hand, mut c_sprs) = (vec![0.0; rows * K], vec![0.0; rows * K]);
        let (mut c_nal, mut c_gen) = (DMatrix::zeros(rows, K), Dense2::zeros(rows, K));
        let contenders = vec![
            peer("hand", |check| {
                spmm_hand(&a, b.as_slice(), &mut c_hand);
                check.then(|| Out::Dense(c_hand.clone()))
            }),
            generated("generated", |check| {
                spmm(&mut c_gen, &a, &b).expect("shapes match");
                check.then(|| Out::Dense(c_gen.as_slice().to_vec()))
            }),
            peer("sprs", |check| {
                c_sprs.fill(0.0);
                let rhs =
                    ndarray::ArrayView2::from_shape((cols, K), b.as_slice()).expect("cols x K");
                let out = ndarray::ArrayViewMut2::from_shape((rows, K), &mut c_sprs[..])
                    .expect("rows x K");
                sprs::prod::csr_mulacc_dense_rowmaj(a_sprs.view(), rhs, out);
                check.then(|| Out::Dense(c_sprs.clone()))
            }),
            peer("nalgebra", |check| {
                spmm_csr_dense(0.0, &mut c_nal, 1.0, Op::NoOp(&a_nal), Op::NoOp(&b_nal));
                check.then(|| row_major(&c_nal))
            }),
        ];
        s.measure("spmm", ds, nnz, None, contenders);
    }
    if s.wants("spgemm", ds) {
        let work = flops(m, m);
        let limit = scaled(100_000_000, s.scale, 1_000_000);
        if work > limit {
            println!("spgemm/{ds}: skipped, {work} multiply-adds (over {limit})\n");
        } else {
            let (a_sprs, a_nal) = (common::sprs_csr(m), nalgebra_csr(m));
            let mut c_hand = CsrArrays::default();
            let mut c_gen = Csr::<f64, u32>::new(&[rows, cols]).expect("an empty output");
            let contenders = vec![
                peer("hand", |check| {
                    spgemm_hand(&a, &a, &mut c_hand);
                    check.then(|| Out::Sparse(c_hand.clone()))
                }),
                generated("generated", |check| {
                    spgemm(&mut c_gen, &a, &a).expect("shapes match");
                    check.then(|| csr_out(&c_gen))
                }),
                peer("sprs", |check| {
                    let c = &a_sprs * &a_sprs;
                    check.then(|| sprs_out(&c))
                }),
                peer("nalgebra", |check| {
                    let c = &a_nal * &a_nal;
                    check.then(|| nalgebra_out(&c))
                }),
            ];
            s.measure("spgemm", ds, nnz, None, contenders);
        }
    }
    let b_m = partner(m);
    s.dump_matrix(&b_m, &format!("{ds}_b"));
    let b = b_m.to_csr();
    if s.wants("add", ds) {
        let (a_sprs, b_sprs) = (common::sprs_csr(m), common::sprs_csr(&b_m));
        let (a_nal, b_nal) = (nalgebra_csr(m), nalgebra_csr(&b_m));
        let mut c_hand = CsrArrays::default();
        let mut c_gen = Csr::<f64, u32>::new(&[rows, cols]).expect("an empty output");
        let contenders = vec![
            peer("hand", |check| {
                add_hand(&a, &b, &mut c_hand);
                check.then(|| Out::Sparse(c_hand.clone()))
            }),
            generated("generated fresh", |check| {
                let mut c = Csr::<f64, u32>::new(&[rows, cols]).expect("an empty output");
                add(&mut c, &a, &b).expect("shapes match");
                check.then(|| csr_out(&c))
            }),
            generated("generated reused", |check| {
                add(&mut c_gen, &a, &b).expect("shapes match");
                check.then(|| csr_out(&c_gen))
            }),
            peer("sprs", |check| {
                let c = &a_sprs + &b_sprs;
                check.then(|| sprs_out(&c))
            }),
            peer("nalgebra", |check| {
                let c = &a_nal + &b_nal;
                check.then(|| nalgebra_out(&c))
            }),
        ];
        s.measure("add", ds, nnz + b_m.nnz(), None, contenders);
    }
    if s.wants("sddmm", ds) {
        let c = Dense2::from_vec(rows, K, dense_k(rows)).expect("a rows x K matrix");
        let d = Dense2::from_vec(cols, K, dense_k(cols)).expect("a cols x K matrix");
        let mut out_hand = vec![0.0; nnz];
        let (mut out_gen, mut out_values) = (
            Csr::<f64, u32>::new(&[rows, cols]).expect("an empty output"),
            Csr::<f64, u32>::new(&[rows, cols]).expect("an empty output"),
        );
        sddmm(&mut out_values, &a, &c, &d).expect("shapes match");
        let mut out_in_order = Csr::<f64, u32>::new(&[rows, cols]).expect("an empty output");
        sddmm_in_order(&mut out_in_order, &a, &c, &d).expect("shapes match");
        let contenders = vec![
            peer("hand", |check| {
                sddmm_hand(&a, c.as_slice(), d.as_slice(), &mut out_hand);
                check.then(|| {
                    Out::Sparse(CsrArrays {
                        vals: out_hand.clone(),
                        ..m.clone()
                    })
                })
            }),
            generated("generated", |check| {
                sddmm(&mut out_gen, &a, &c, &d).expect("shapes match");
                check.then(|| csr_out(&out_gen))
            }),
            generated("generated compute-only", |check| {
                sddmm_values(&mut out_values, &a, &c, &d).expect("assembled by sddmm");
                check.then(|| csr_out(&out_values))
            }),
            generated("compute-only, precompute(never)", |check| {
                sddmm_in_order_values(&mut out_in_order, &a, &c, &d).expect("assembled");
                check.then(|| csr_out(&out_in_order))
            }),
        ];
        s.measure("sddmm", ds, nnz, None, contenders);
    }
    for (kernel, other) in [("inner_same", None), ("inner_diff", Some(&b))] {
        if !s.wants(kernel, ds) {
            continue;
        }
        // The same pattern with other values, or the partner's pattern.
        let same;
        let other = match other {
            Some(b) => b,
            None => {
                let vals = m
                    .vals
                    .iter()
                    .enumerate()
                    .map(|(p, v)| v * (1.0 + (p % 3) as f64))
                    .collect();
                same = CsrArrays { vals, ..m.clone() }.to_csr();
                &same
            }
        };
        let (mut s_gen, mut s_hand) = (0.0, 0.0);
        let contenders = vec![
            peer("hand", |check| {
                s_hand = inner_hand(&a, other);
                check.then_some(Out::Scalar(s_hand))
            }),
            generated("generated", |check| {
                inner(&mut s_gen, &a, other).expect("shapes match");
                check.then_some(Out::Scalar(s_gen))
            }),
        ];
        s.measure(kernel, ds, nnz, None, contenders);
    }
    if s.wants("residual", ds) {
        let rhs = Dense1::from_vec(test_vector(rows + 3)[3..].to_vec());
        let (mut r_hand, mut r_gen) = (vec![0.0; rows], Dense1::zeros(rows));
        let contenders = vec![
            peer("hand", |check| {
                residual_hand(&a, rhs.as_slice(), x.as_slice(), &mut r_hand);
                check.then(|| Out::Dense(r_hand.clone()))
            }),
            generated("generated", |check| {
                residual(&mut r_gen, &rhs, &a, &x).expect("shapes match");
                check.then(|| Out::Dense(r_gen.as_slice().to_vec()))
            }),
        ];
        s.measure("residual", ds, nnz, None, contenders);
    }
    if s.wants("construct", ds) {
        let (ri, ci, vals) = shuffled_triplets(m, 5);
        let tri =
            TriMatI::<f64, u32>::from_triplets((rows, cols), ri.clone(), ci.clone(), vals.clone());
        let widen = |v: &[u32]| v.iter().map(|&x| x as usize).collect::<Vec<usize>>();
        let coo = CooMatrix::try_from_triplets(rows, cols, widen(&ri), widen(&ci), vals.clone())
            .expect("valid triplets");
        let contenders = vec![
            peer("hand", |check| {
                let c = construct_hand(rows, cols, &ri, &ci, &vals);
                check.then_some(Out::Sparse(c))
            }),
            generated("Csr::from_entries", |check| {
                let entries = ri
                    .iter()
                    .zip(&ci)
                    .zip(&vals)
                    .map(|((&i, &j), &v)| ([i as usize, j as usize], v));
                let c =
                    Csr::<f64, u32>::from_entries(&[rows, cols], entries).expect("valid entries");
                check.then(|| csr_out(&c))
            }),
            generated("Csr::from_coordinate_arrays", |check| {
                let c = Csr::<f64, u32>::from_coordinate_arrays(&[rows, cols], &[&ri, &ci], &vals)
                    .expect("valid entries");
                check.then(|| csr_out(&c))
            }),
            peer("sprs", |check| {
                let c: CsMatI<f64, u32> = tri.to_csr();
                check.then(|| sprs_out(&c))
            }),
            peer("nalgebra", |check| {
                let c = CsrMatrix::from(&coo);
                check.then(|| nalgebra_out(&c))
            }),
        ];
        s.measure("construct", ds, nnz, None, contenders);
    }
}

fn tensor_groups(s: &mut Suite, ds: &'static str, t: &Coords3) {
    let nnz = t.nnz();
    let [di, dj, dk] = t.dims;
    let csf = t.to_csf3();
    let coo = t.to_coo3();
    if s.wants("ttv", ds) {
        let c = Dense1::from_vec(test_vector(dk));
        let mut a_hand = CsrArrays::default();
        let mut a_gen = Csr::<f64, u32>::new(&[di, dj]).expect("an empty output");
        let mut a_coo = Csr::<f64, u32>::new(&[di, dj]).expect("an empty output");
        let contenders = vec![
            peer("hand", |check| {
                ttv_hand(&csf, c.as_slice(), &mut a_hand);
                check.then(|| Out::Sparse(a_hand.clone()))
            }),
            generated("generated fresh", |check| {
                let mut a = Csr::<f64, u32>::new(&[di, dj]).expect("an empty output");
                ttv(&mut a, &csf, &c).expect("shapes match");
                check.then(|| csr_out(&a))
            }),
            generated("generated reused", |check| {
                ttv(&mut a_gen, &csf, &c).expect("shapes match");
                check.then(|| csr_out(&a_gen))
            }),
            // The same tensor as a `Coo3`: runs of equal `(i, j)` found by scanning.
            generated("generated from Coo3, reused", |check| {
                ttv_coo(&mut a_coo, &coo, &c).expect("shapes match");
                check.then(|| csr_out(&a_coo))
            }),
        ];
        s.measure("ttv", ds, nnz, None, contenders);
    }
    let c = Dense2::from_vec(dj, K, dense_k(dj)).expect("a K-column matrix");
    let d =
        Dense2::from_vec(dk, K, test_vector(dk * K + 5)[5..].to_vec()).expect("a K-column matrix");
    if s.wants("mttkrp_csf", ds) {
        let (mut a_hand, mut a_gen) = (vec![0.0; di * K], Dense2::zeros(di, K));
        let mut a_in_order = Dense2::zeros(di, K);
        let contenders = vec![
            peer("hand", |check| {
                mttkrp_csf_hand(&csf, c.as_slice(), d.as_slice(), &mut a_hand);
                check.then(|| Out::Dense(a_hand.clone()))
            }),
            generated("generated", |check| {
                mttkrp_csf(&mut a_gen, &csf, &c, &d).expect("shapes match");
                check.then(|| Out::Dense(a_gen.as_slice().to_vec()))
            }),
            generated("generated, precompute(never)", |check| {
                mttkrp_csf_in_order(&mut a_in_order, &csf, &c, &d).expect("shapes match");
                check.then(|| Out::Dense(a_in_order.as_slice().to_vec()))
            }),
        ];
        s.measure("mttkrp_csf", ds, nnz, None, contenders);
    }
    if s.wants("mttkrp_coo", ds) {
        let (mut a_hand, mut a_gen) = (vec![0.0; di * K], Dense2::zeros(di, K));
        let contenders = vec![
            peer("hand", |check| {
                mttkrp_coo_hand(&coo, c.as_slice(), d.as_slice(), &mut a_hand);
                check.then(|| Out::Dense(a_hand.clone()))
            }),
            generated("generated", |check| {
                mttkrp_coo(&mut a_gen, &coo, &c, &d).expect("shapes match");
                check.then(|| Out::Dense(a_gen.as_slice().to_vec()))
            }),
        ];
        s.measure("mttkrp_coo", ds, nnz, None, contenders);
    }
}

fn bench_suite(crit: &mut Criterion) {
    let mut s = Suite::from_env();
    println!(
        "suite: scale 1/{}, {} rounds, filter {:?}, pools of {:?} threads",
        s.scale,
        s.rounds,
        s.filter,
        s.pools.iter().map(|p| p.0).collect::<Vec<_>>()
    );
    s.triad();
    for ds in MATRIX_DATASETS {
        if !s.wants_any(&MATRIX_KERNELS, ds) {
            continue;
        }
        let start = Instant::now();
        let m = matrix(ds, s.scale);
        println!(
            "{ds}: {} x {}, {} entries (built in {:.1} s)\n",
            m.rows,
            m.cols,
            m.nnz(),
            start.elapsed().as_secs_f64()
        );
        s.dump_matrix(&m, ds);
        matrix_groups(&mut s, ds, &m);
    }
    for ds in TENSOR_DATASETS {
        if !s.wants_any(&TENSOR_KERNELS, ds) {
            continue;
        }
        let start = Instant::now();
        let t = tensor(ds, s.scale);
        println!(
            "{ds}: {:?}, {} entries (built in {:.1} s)\n",
            t.dims,
            t.nnz(),
            start.elapsed().as_secs_f64()
        );
        tensor_groups(&mut s, ds, &t);
    }
    s.report();

    // Criterion's own figures for one representative pair (CSR SpMV on lap2d, this scale).
    let m = matrix("lap2d", s.scale);
    let a = m.to_csr();
    let x_vec = test_vector(m.cols);
    let x = Dense1::from_vec(x_vec.clone());
    let (mut y, mut y_hand) = (Dense1::zeros(m.rows), vec![0.0; m.rows]);
    let mut g = group(crit, "suite_spmv_csr_lap2d", m.nnz());
    g.bench_function("generated", |b| {
        b.iter(|| spmv_csr(black_box(&mut y), &a, &x).expect("shapes match"))
    });
    g.bench_function("hand", |b| {
        b.iter(|| spmv_csr_hand(&a, &x_vec, black_box(&mut y_hand)))
    });
    g.finish();
}

criterion_group!(benches, bench_suite);
criterion_main!(benches);
