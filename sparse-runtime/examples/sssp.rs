//! Single-source shortest paths by Bellman-Ford relaxation in the tropical (min, +) semiring.
//!
//! `w` holds the graph's edge weights transposed (`w(i, j)` is the weight of the edge
//! `j -> i`, stored as CSR, so row `i` lists the edges into `i`) with the fill value `+∞`: a
//! missing edge is an infinitely long one. One round relaxes every edge at once,
//!
//! ```text
//! next(i) = min(d(i), min[j](plus(w(i, j), d(j))))
//! ```
//!
//! where `plus` is addition declared with the properties the compiler needs: `+∞`
//! annihilates it (`plus(∞, x) = ∞`, so with `#[fill(inf)] w` only the stored edges are
//! visited) and it is commutative and associative with identity 0. The rounds repeat until no
//! distance changes (a second kernel counts the changes, `ne` summed over `i`): at most one
//! round more than the largest number of edges on a shortest path. The distances are checked
//! against a hand-written Dijkstra (binary heap) over the out-edges, in integers: the weights
//! are whole numbers, so every sum is exact in `f64` and the two must agree exactly.
//!
//! The round and the count are two kernels, not one kernel of two statements, because a
//! parameter's `#[fill(inf)]` is not honoured in a kernel of several statements yet: its
//! statements check and compile `w` as filled with 0, so a call with the `+∞`-filled `w`
//! returns a fill-mismatch error.
//!
//! Run with `cargo run --release -p sparse-runtime --example sssp [SCALE]`: an R-MAT graph of
//! `2^SCALE` vertices (20 by default, about a million) and 8 edges per vertex, with weights
//! from 1 to 100, from vertex 0.

use sparse_runtime::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

sparse_kernel! {
    /// Addition in the tropical semiring: infinity (no path) annihilates it.
    #[function(commutative, associative, identity = 0, annihilator = inf)]
    fn plus(a: f64, b: f64) -> f64 {
        a + b
    }

    /// One Bellman-Ford round over the transposed graph: every stored edge relaxed.
    fn relax(next: &mut Dense1<f64>, #[fill(inf)] w: &Csr<f64>, d: &Dense1<f64>) {
        next(i) = min(d(i), min[j](plus(w(i, j), d(j))))
    }

    /// How many components of `a` and `b` differ.
    fn changes(count: &mut f64, a: &Dense1<f64>, b: &Dense1<f64>) {
        count = ne(a(i), b(i))
    }
}

/// A weighted directed graph: its edges `(from, to, weight)`, sorted by `(from, to)`, each
/// pair once.
pub struct Graph {
    /// Number of vertices.
    pub nodes: usize,
    /// Every edge once, sorted by `(from, to)`; weights are whole numbers from 1 to
    /// [`MAX_WEIGHT`].
    pub edges: Vec<(u32, u32, u32)>,
}

/// The largest edge weight.
pub const MAX_WEIGHT: u32 = 100;

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

/// An R-MAT graph (Chakrabarti et al. 2004): `2^scale` vertices and `edge_factor * 2^scale`
/// edges drawn, each by descending `scale` times into a quadrant of the adjacency matrix with
/// probabilities (0.57, 0.19, 0.19, 0.05), with a weight uniform in `1..=MAX_WEIGHT`; of a
/// repeated edge the first drawn is kept.
pub fn rmat(scale: u32, edge_factor: usize, seed: u64) -> Graph {
    let nodes = 1usize << scale;
    let mut rng = SplitMix64::new(seed);
    let mut edges: Vec<(u32, u32, u32)> = (0..edge_factor * nodes)
        .map(|_| {
            let (mut from, mut to) = (0u32, 0u32);
            for _ in 0..scale {
                let (f, t) = match rng.next_f64() {
                    u if u < 0.57 => (0, 0),
                    u if u < 0.76 => (0, 1),
                    u if u < 0.95 => (1, 0),
                    _ => (1, 1),
                };
                from = from << 1 | f;
                to = to << 1 | t;
            }
            let weight = 1 + (rng.next_u64() % u64::from(MAX_WEIGHT)) as u32;
            (from, to, weight)
        })
        .collect();
    // Stable: of equal pairs, the first drawn stays first and is kept.
    edges.sort_by_key(|&(from, to, _)| (from, to));
    edges.dedup_by_key(|&mut (from, to, _)| (from, to));
    Graph { nodes, edges }
}

/// The transposed weight matrix with fill value `+∞`: `w(i, j)` is the weight of the edge
/// `j -> i`, built from its arrays (a counting sort by destination; sources stay sorted
/// within a row because the edges are sorted by source).
pub fn in_weights(graph: &Graph) -> Result<Csr<f64>, Error> {
    let n = graph.nodes;
    let mut pos = vec![0u32; n + 1];
    for &(_, to, _) in &graph.edges {
        pos[to as usize + 1] += 1;
    }
    for i in 0..n {
        pos[i + 1] += pos[i];
    }
    let mut next = pos.clone();
    let mut crd = vec![0u32; graph.edges.len()];
    let mut vals = vec![0.0; graph.edges.len()];
    for &(from, to, weight) in &graph.edges {
        let slot = &mut next[to as usize];
        crd[*slot as usize] = from;
        vals[*slot as usize] = f64::from(weight);
        *slot += 1;
    }
    let columns = Compressed::<u32>::from_raw(n, pos, crd)?;
    Ok(Csr::from_levels(&[n, n], (Dense::new(n), columns), vals)?.with_fill(f64::INFINITY))
}

/// One round.
pub struct Round {
    /// Distances that changed in it.
    pub changed: usize,
    /// The relaxation kernel.
    pub relax: Duration,
    /// The kernel counting the changes.
    pub count: Duration,
}

/// What one computation did.
pub struct Summary {
    /// The distance of each vertex from the source, `+∞` where no path arrives.
    pub distances: Vec<f64>,
    /// Every round, the last one changing nothing.
    pub rounds: Vec<Round>,
    /// All rounds.
    pub total: Duration,
}

/// Shortest distances from `source` by relaxation rounds of `w` (transposed, fill `+∞`,
/// [`in_weights`]) to the fixed point.
pub fn bellman_ford(w: &Csr<f64>, source: usize) -> Result<Summary, Error> {
    let n = w.shape()[0];
    let mut d = Dense1::from_vec(vec![f64::INFINITY; n]);
    d.as_mut_slice()[source] = 0.0;
    let mut next = Dense1::zeros(n);
    let mut rounds = Vec::new();
    let start = Instant::now();
    // A path has at most n - 1 edges, so n rounds reach the fixed point.
    for _ in 0..n.max(1) {
        let t = Instant::now();
        relax(&mut next, w, &d)?;
        let relax_time = t.elapsed();
        let t = Instant::now();
        let mut changed = 0.0;
        changes(&mut changed, &next, &d)?;
        rounds.push(Round {
            changed: changed as usize,
            relax: relax_time,
            count: t.elapsed(),
        });
        std::mem::swap(&mut d, &mut next);
        if changed == 0.0 {
            break;
        }
    }
    Ok(Summary {
        distances: d.into_vec(),
        rounds,
        total: start.elapsed(),
    })
}

/// The hand-written reference: Dijkstra with a binary heap over the out-edges, in integer
/// distances (`None`: unreachable). Returns them and the time of the search alone.
pub fn dijkstra(graph: &Graph, source: usize) -> (Vec<Option<u64>>, Duration) {
    let n = graph.nodes;
    let mut offsets = vec![0usize; n + 1];
    for &(from, _, _) in &graph.edges {
        offsets[from as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let start = Instant::now();
    let mut dist: Vec<Option<u64>> = vec![None; n];
    let mut done = vec![false; n];
    let mut heap = BinaryHeap::new();
    dist[source] = Some(0);
    heap.push(Reverse((0u64, source as u32)));
    while let Some(Reverse((du, u))) = heap.pop() {
        let u = u as usize;
        if done[u] {
            continue;
        }
        done[u] = true;
        for &(_, v, weight) in &graph.edges[offsets[u]..offsets[u + 1]] {
            let candidate = du + u64::from(weight);
            let dv = &mut dist[v as usize];
            if dv.is_none_or(|old| candidate < old) {
                *dv = Some(candidate);
                heap.push(Reverse((candidate, v)));
            }
        }
    }
    (dist, start.elapsed())
}

/// Whether the kernel's distances equal Dijkstra's (`+∞` for unreachable), and how many
/// differ.
pub fn differences(got: &[f64], want: &[Option<u64>]) -> usize {
    got.iter()
        .zip(want)
        .filter(|(g, w)| **g != w.map_or(f64::INFINITY, |w| w as f64))
        .count()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scale = match std::env::args().nth(1) {
        Some(s) => s.parse()?,
        None => 20,
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let t = Instant::now();
    let graph = rmat(scale, 8, 42);
    let w = in_weights(&graph)?;
    println!(
        "R-MAT graph: {} vertices, {} distinct edges, weights 1..={MAX_WEIGHT}; built w (Csr<f64>, fill +inf, rows = destinations) in {:.0} ms",
        graph.nodes,
        graph.edges.len(),
        ms(t.elapsed())
    );
    let s = bellman_ford(&w, 0)?;
    println!("next(i) = min(d(i), min[j](plus(w(i, j), d(j)))) from vertex 0:");
    println!("round  changed   relax ms   count ms");
    for (k, r) in s.rounds.iter().enumerate() {
        println!(
            "{:>5} {:>8} {:>10.2} {:>10.2}",
            k + 1,
            r.changed,
            ms(r.relax),
            ms(r.count)
        );
    }
    let reached: Vec<f64> = s
        .distances
        .iter()
        .copied()
        .filter(|d| d.is_finite())
        .collect();
    let farthest = reached.iter().copied().fold(0.0, f64::max);
    println!(
        "fixed point after {} rounds: {:.1} ms ({:.1} ms per round); {} vertices reached, the farthest at {farthest}",
        s.rounds.len(),
        ms(s.total),
        ms(s.total) / s.rounds.len() as f64,
        reached.len()
    );
    let (want, dijkstra_time) = dijkstra(&graph, 0);
    let wrong = differences(&s.distances, &want);
    println!(
        "hand-written Dijkstra (binary heap): {:.1} ms; distances that differ: {wrong}",
        ms(dijkstra_time)
    );
    if wrong != 0 {
        return Err("the distances differ from Dijkstra's".into());
    }
    println!("ok: the distances equal Dijkstra's");
    Ok(())
}
