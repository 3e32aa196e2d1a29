//! PageRank by power iteration on a generated power-law (R-MAT) graph.
//!
//! Each iteration is `r' = d P r + (1 - d + d m) / n`: `P` is the column-stochastic transition
//! matrix (`P(i, j) = (edges j -> i) / outdegree(j)`, stored as CSR, so row `i` lists the
//! pages linking to `i`), `d` the damping factor and `m` the rank held by dangling pages
//! (pages without out-links), which is spread over every page. One kernel of three statements
//! computes a step (the dangling mass, the teleport share, the product); the rank total and
//! the squared change are kernels too; the L1 change that decides convergence is a plain loop
//! (the notation has no `abs`).
//!
//! Run with `cargo run --release -p sparse-runtime --example pagerank [SCALE]`: a graph of
//! `2^SCALE` pages (20 by default, about a million) and 8 links per page. The ranks are
//! checked to sum to 1, and on a small graph against a plain hand-written power iteration.

use sparse_runtime::prelude::*;
use std::time::{Duration, Instant};

sparse_kernel! {
    /// One power-iteration step, `next = damping * P rank + teleport`, in one kernel of three
    /// statements: the rank held by dangling pages (`dangling` stores 1 at each of them), the
    /// share every page receives by teleport (`inv_n` is `1 / n`), then the product.
    fn step(
        next: &mut Dense1<f64>,
        damping: f64,
        inv_n: f64,
        p: &Csr<f64>,
        rank: &Dense1<f64>,
        dangling: &SparseVec<f64>,
    ) {
        let mass = dangling(j) * rank(j);
        let teleport = (1.0 - damping + damping * mass) * inv_n;
        next(i) = damping * p(i, j) * rank(j) + teleport;
    }

    /// The sum of the ranks.
    fn total(sum: &mut f64, rank: &Dense1<f64>) {
        sum = rank(i)
    }

    /// The squared Euclidean distance between two rank vectors.
    fn squared_change(out: &mut f64, a: &Dense1<f64>, b: &Dense1<f64>) {
        out = (a(i) - b(i)) * (a(i) - b(i))
    }
}

/// The damping factor of the original PageRank paper.
pub const DAMPING: f64 = 0.85;
/// Convergence: the L1 change of one iteration below this.
pub const TOLERANCE: f64 = 1e-10;
/// Iterations at most.
pub const MAX_ITERATIONS: usize = 200;

/// A directed graph as a list of links `(from, to)`; repeated links count with their
/// multiplicity, self-links are allowed.
pub struct Graph {
    /// Number of pages.
    pub nodes: usize,
    /// Every link, `(from, to)`.
    pub links: Vec<(u32, u32)>,
}

/// A small deterministic generator (SplitMix64), so that every run sees the same graph.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// An R-MAT graph (Chakrabarti et al. 2004): `2^scale` pages and `edge_factor * 2^scale`
/// links, each placed by descending `scale` times into one quadrant of the adjacency matrix
/// with probabilities (0.57, 0.19, 0.19, 0.05). Degrees follow a power law; many pages have
/// no out-links (dangling) and many no in-links.
pub fn rmat(scale: u32, edge_factor: usize, seed: u64) -> Graph {
    let nodes = 1usize << scale;
    let mut rng = SplitMix64::new(seed);
    let links = (0..edge_factor * nodes)
        .map(|_| {
            let (mut from, mut to) = (0u32, 0u32);
            for _ in 0..scale {
                let u = rng.next_f64();
                let (f, t) = match u {
                    u if u < 0.57 => (0, 0),
                    u if u < 0.76 => (0, 1),
                    u if u < 0.95 => (1, 0),
                    _ => (1, 1),
                };
                from = from << 1 | f;
                to = to << 1 | t;
            }
            (from, to)
        })
        .collect();
    Graph { nodes, links }
}

/// What one PageRank computation did.
pub struct Summary {
    /// Pages.
    pub nodes: usize,
    /// Links generated (with repeats).
    pub links: usize,
    /// Stored entries of `P` (repeated links merged).
    pub nnz: usize,
    /// Pages without out-links.
    pub dangling: usize,
    /// Power iterations run.
    pub iterations: usize,
    /// Whether the L1 change fell below [`TOLERANCE`].
    pub converged: bool,
    /// The L1 change of the last iteration.
    pub l1_change: f64,
    /// The Euclidean change of the last iteration (from the kernel).
    pub l2_change: f64,
    /// The sum of the final ranks (from the kernel); 1 up to rounding.
    pub rank_sum: f64,
    /// Building `P` and the dangling vector from the links.
    pub setup_time: Duration,
    /// Mean time of one iteration (all four kernels and the L1 loop).
    pub time_per_iteration: Duration,
    /// The final ranks.
    pub ranks: Vec<f64>,
}

/// PageRank of a generated R-MAT graph of `2^scale` pages and `edge_factor` links per page.
pub fn run(scale: u32, edge_factor: usize) -> Result<Summary, Error> {
    pagerank(&rmat(scale, edge_factor, 42))
}

/// PageRank of `graph` with the kernels above.
pub fn pagerank(graph: &Graph) -> Result<Summary, Error> {
    let n = graph.nodes;
    let start = Instant::now();
    // P(to, from) = 1 / outdegree(from), once per link: repeated links are summed by
    // `from_entries`, so every column with a link sums to 1.
    let mut outdegree = vec![0u32; n];
    for &(from, _) in &graph.links {
        outdegree[from as usize] += 1;
    }
    let entries = graph.links.iter().map(|&(from, to)| {
        let from = from as usize;
        ([to as usize, from], 1.0 / f64::from(outdegree[from]))
    });
    let p = Csr::<f64>::from_entries(&[n, n], entries)?;
    let dangling_pages = (0..n).filter(|&v| outdegree[v] == 0);
    let dangling = SparseVec::<f64>::from_entries(&[n], dangling_pages.map(|v| ([v], 1.0)))?;
    let setup_time = start.elapsed();

    let mut rank = Dense1::from_vec(vec![1.0 / n as f64; n]);
    let mut next = Dense1::zeros(n);
    let (mut iterations, mut l1_change, mut squared) = (0, f64::INFINITY, f64::INFINITY);
    let start = Instant::now();
    while iterations < MAX_ITERATIONS && l1_change >= TOLERANCE {
        step(&mut next, DAMPING, 1.0 / n as f64, &p, &rank, &dangling)?;
        l1_change = l1_distance(next.as_slice(), rank.as_slice());
        squared_change(&mut squared, &next, &rank)?;
        std::mem::swap(&mut rank, &mut next);
        iterations += 1;
    }
    let elapsed = start.elapsed();
    let mut rank_sum = 0.0;
    total(&mut rank_sum, &rank)?;
    Ok(Summary {
        nodes: n,
        links: graph.links.len(),
        nnz: p.nnz(),
        dangling: dangling.nnz(),
        iterations,
        converged: l1_change < TOLERANCE,
        l1_change,
        l2_change: squared.sqrt(),
        rank_sum,
        setup_time,
        time_per_iteration: elapsed / iterations.max(1) as u32,
        ranks: rank.into_vec(),
    })
}

/// `sum |a - b|`.
fn l1_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

/// The same power iteration written by hand over the link list: the reference the kernels
/// are checked against. Returns the ranks and the iterations run.
pub fn reference_pagerank(graph: &Graph) -> (Vec<f64>, usize) {
    let n = graph.nodes;
    let mut outdegree = vec![0u32; n];
    for &(from, _) in &graph.links {
        outdegree[from as usize] += 1;
    }
    let mut rank = vec![1.0 / n as f64; n];
    let mut iterations = 0;
    loop {
        let mass: f64 = (0..n).filter(|&v| outdegree[v] == 0).map(|v| rank[v]).sum();
        let mut next = vec![(1.0 - DAMPING + DAMPING * mass) / n as f64; n];
        for &(from, to) in &graph.links {
            let from = from as usize;
            next[to as usize] += DAMPING * rank[from] / f64::from(outdegree[from]);
        }
        let change = l1_distance(&next, &rank);
        rank = next;
        iterations += 1;
        if change < TOLERANCE || iterations == MAX_ITERATIONS {
            return (rank, iterations);
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scale = match std::env::args().nth(1) {
        Some(s) => s.parse()?,
        None => 20,
    };
    let s = run(scale, 8)?;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "R-MAT graph: {} pages, {} links ({} distinct), {} dangling pages",
        s.nodes, s.links, s.nnz, s.dangling
    );
    println!(
        "built P (Csr) and the dangling vector in {:.1} ms",
        ms(s.setup_time)
    );
    println!(
        "{} after {} iterations: L1 change {:.2e}, L2 change {:.2e}",
        if s.converged {
            "converged"
        } else {
            "NOT converged"
        },
        s.iterations,
        s.l1_change,
        s.l2_change
    );
    println!("time per iteration: {:.2} ms", ms(s.time_per_iteration));
    let mut top: Vec<(usize, f64)> = s.ranks.iter().copied().enumerate().collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    let top: Vec<String> = top[..5]
        .iter()
        .map(|(v, r)| format!("{v} ({r:.2e})"))
        .collect();
    println!("highest ranks: {}", top.join(", "));
    println!("sum of ranks: {:.15}", s.rank_sum);

    // The checks: the ranks are a probability distribution, and on a small graph the
    // kernels agree with the hand-written iteration.
    let sum_ok = (s.rank_sum - 1.0).abs() < 1e-9 && s.ranks.iter().all(|&r| r > 0.0);
    let small = rmat(10, 8, 7);
    let got = pagerank(&small)?;
    let (want, want_iterations) = reference_pagerank(&small);
    let error = got
        .ranks
        .iter()
        .zip(&want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max);
    println!(
        "small graph ({} pages): {} iterations (hand-written: {want_iterations}), max abs difference {error:.1e}",
        small.nodes, got.iterations
    );
    if !s.converged || !sum_ok || error > 1e-12 || got.iterations != want_iterations {
        return Err("a PageRank check failed".into());
    }
    println!("ok: the ranks sum to 1 and match the hand-written power iteration");
    Ok(())
}
