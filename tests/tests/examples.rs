//! The examples of `sparse-runtime` at reduced size: their own checks (ranks sum to 1, the fit
//! does not decrease), and their results against dense references written here.

#[allow(dead_code)]
#[path = "../../sparse-runtime/examples/pagerank.rs"]
mod pagerank;

#[allow(dead_code)]
#[path = "../../sparse-runtime/examples/cp_als.rs"]
mod cp_als;

use sparse_runtime::prelude::*;

fn max_abs_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn pagerank_converges_to_a_distribution_and_matches_the_hand_written_iteration() {
    let s = pagerank::run(10, 8).unwrap();
    assert_eq!((s.nodes, s.links), (1024, 8192));
    assert!(
        s.converged,
        "L1 change {} after {} iterations",
        s.l1_change, s.iterations
    );
    assert!(s.l1_change < pagerank::TOLERANCE && s.l2_change <= s.l1_change);
    assert!(
        (s.rank_sum - 1.0).abs() < 1e-9,
        "ranks sum to {}",
        s.rank_sum
    );
    assert!((s.ranks.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert!(s.ranks.iter().all(|&r| r > 0.0));
    assert!(s.dangling > 0, "the graph exercises the dangling mass");

    let (want, iterations) = pagerank::reference_pagerank(&pagerank::rmat(10, 8, 42));
    assert_eq!(s.iterations, iterations);
    assert!(max_abs_difference(&s.ranks, &want) < 1e-12);
}

/// The Google matrix `G = d P + (d / n) 1 dᵀ + ((1 - d) / n) 1 1ᵀ` (`dᵀ` the indicator of
/// dangling pages) built densely from the links, and its power iteration run to a fixed
/// number of steps, far past convergence.
fn dense_pagerank(graph: &pagerank::Graph) -> Vec<f64> {
    let n = graph.nodes;
    let d = pagerank::DAMPING;
    let mut outdegree = vec![0.0; n];
    for &(from, _) in &graph.links {
        outdegree[from as usize] += 1.0;
    }
    let mut g = vec![vec![0.0; n]; n];
    for &(from, to) in &graph.links {
        g[to as usize][from as usize] += d / outdegree[from as usize];
    }
    for row in &mut g {
        for (from, v) in row.iter_mut().enumerate() {
            *v += (1.0 - d) / n as f64;
            if outdegree[from] == 0.0 {
                *v += d / n as f64;
            }
        }
    }
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..500 {
        rank = g
            .iter()
            .map(|row| row.iter().zip(&rank).map(|(a, r)| a * r).sum())
            .collect();
    }
    rank
}

#[test]
fn pagerank_matches_the_dense_google_matrix() {
    // A hand-made graph: a cycle 0 -> 1 -> 2 -> 0, a repeated link 3 -> 0 (twice) and
    // 3 -> 4, a self-link at 5, and two dangling pages (4, 6).
    let graph = pagerank::Graph {
        nodes: 7,
        links: vec![
            (0, 1),
            (1, 2),
            (2, 0),
            (3, 0),
            (3, 0),
            (3, 4),
            (5, 5),
            (5, 2),
        ],
    };
    let got = pagerank::pagerank(&graph).unwrap();
    assert!(got.converged);
    assert!(max_abs_difference(&got.ranks, &dense_pagerank(&graph)) < 1e-9);

    // And a generated one.
    let graph = pagerank::rmat(6, 4, 3);
    let got = pagerank::pagerank(&graph).unwrap();
    assert!(got.converged && (got.rank_sum - 1.0).abs() < 1e-9);
    assert!(max_abs_difference(&got.ranks, &dense_pagerank(&graph)) < 1e-9);
}

#[test]
fn cp_als_fit_does_not_decrease() {
    let s = cp_als::run([30, 20, 10], 2000, 4).unwrap();
    assert_eq!((s.shape, s.rank), ([30, 20, 10], 4));
    assert!(s.nnz > 0);
    assert!(s.fit_before.is_finite() && s.fit_after.is_finite());
    assert!(
        s.fit_after >= s.fit_before,
        "fit {} -> {}",
        s.fit_before,
        s.fit_after
    );
    assert!(s.fit_after <= 1.0);
}

/// Solves `F G = M` for `F` by Gaussian elimination with partial pivoting on `Gᵀ` (no
/// Cholesky, so nothing is shared with the example's solver).
fn dense_solve(m: &[f64], g: &[f64], rank: usize) -> Vec<f64> {
    let rows = m.len() / rank;
    let mut f = vec![0.0; m.len()];
    for row in 0..rows {
        // Gᵀ fᵀ = mᵀ, augmented.
        let mut aug: Vec<Vec<f64>> = (0..rank)
            .map(|r| {
                let mut line: Vec<f64> = (0..rank).map(|s| g[s * rank + r]).collect();
                line.push(m[row * rank + r]);
                line
            })
            .collect();
        for col in 0..rank {
            let pivot = (col..rank)
                .max_by(|&a, &b| aug[a][col].abs().total_cmp(&aug[b][col].abs()))
                .unwrap();
            aug.swap(col, pivot);
            let (above, below) = aug.split_at_mut(col + 1);
            let pivot_row = &above[col];
            for line in below {
                let factor = line[col] / pivot_row[col];
                for (v, p) in line[col..].iter_mut().zip(&pivot_row[col..]) {
                    *v -= factor * p;
                }
            }
        }
        for r in (0..rank).rev() {
            let dot: f64 = (r + 1..rank).map(|c| aug[r][c] * f[row * rank + c]).sum();
            f[row * rank + r] = (aug[r][rank] - dot) / aug[r][r];
        }
    }
    f
}

/// The same sweep on the dense tensor: MTTKRP by loops over every component, Gram matrices
/// by loops over every pair of columns, the fit from the residual at every component.
#[test]
fn cp_als_sweep_matches_a_dense_reference() {
    let (shape, nnz, rank) = ([30, 20, 10], 2000, 4);
    let x = cp_als::synthetic_tensor(shape, nnz, cp_als::TENSOR_SEED).unwrap();
    let dense = x.to_dense();
    let [n0, n1, n2] = shape;
    let at = |i: usize, j: usize, k: usize| dense[(i * n1 + j) * n2 + k];
    let initial = cp_als::initial_factors(&x, rank).unwrap();
    let mut f: Vec<Vec<f64>> = initial.iter().map(|m| m.as_slice().to_vec()).collect();

    for mode in 0..3 {
        let (p, q) = [(1, 2), (0, 2), (0, 1)][mode];
        let mut m = vec![0.0; shape[mode] * rank];
        for i in 0..n0 {
            for j in 0..n1 {
                for k in 0..n2 {
                    let c = [i, j, k];
                    for r in 0..rank {
                        m[c[mode] * rank + r] +=
                            at(i, j, k) * f[p][c[p] * rank + r] * f[q][c[q] * rank + r];
                    }
                }
            }
        }
        let gram = |a: &[f64]| -> Vec<f64> {
            let mut g = vec![0.0; rank * rank];
            for r in 0..rank {
                for s in 0..rank {
                    g[r * rank + s] = a.chunks(rank).map(|row| row[r] * row[s]).sum();
                }
            }
            g
        };
        let (gp, gq) = (gram(&f[p]), gram(&f[q]));
        let g: Vec<f64> = gp.iter().zip(&gq).map(|(a, b)| a * b).collect();
        f[mode] = dense_solve(&m, &g, rank);
    }

    let s = cp_als::run(shape, nnz, rank).unwrap();
    for (mode, want) in f.iter().enumerate() {
        let got = s.factors[mode].as_slice();
        let scale = want.iter().fold(1.0, |m: f64, v| m.max(v.abs()));
        let error = max_abs_difference(got, want);
        assert!(error < 1e-8 * scale, "mode {mode}: {error}");
    }

    let (mut residual2, mut norm2) = (0.0, 0.0);
    for i in 0..n0 {
        for j in 0..n1 {
            for k in 0..n2 {
                let model: f64 = (0..rank)
                    .map(|r| f[0][i * rank + r] * f[1][j * rank + r] * f[2][k * rank + r])
                    .sum();
                residual2 += (at(i, j, k) - model).powi(2);
                norm2 += at(i, j, k).powi(2);
            }
        }
    }
    let fit = 1.0 - residual2.sqrt() / norm2.sqrt();
    assert!(
        (s.fit_after - fit).abs() < 1e-8,
        "{} against {fit}",
        s.fit_after
    );
}

#[test]
fn mttkrp_kernels_match_the_hand_written_loop() {
    let x = cp_als::synthetic_tensor([12, 9, 7], 300, 5).unwrap();
    let mut rng = cp_als::SplitMix64::new(11);
    let [a, b, c] = [12, 9, 7].map(|n| cp_als::random_matrix(n, 3, &mut rng));
    let got = cp_als::mttkrp_all(&x, &a, &b, &c).unwrap();
    for (mode, (f, g)) in [(&b, &c), (&a, &c), (&a, &b)].into_iter().enumerate() {
        let want = cp_als::reference_mttkrp(&x, mode, f, g);
        assert!(max_abs_difference(got[mode].as_slice(), &want) < 1e-12);
    }
    // An empty tensor gives zero matrices.
    let empty = Csf3::<f64>::new(&[12, 9, 7]).unwrap();
    let got = cp_als::mttkrp_all(&empty, &a, &b, &c).unwrap();
    assert!(got.iter().all(|m| m.as_slice().iter().all(|&v| v == 0.0)));
}

#[allow(dead_code)]
#[path = "../../sparse-runtime/examples/bfs.rs"]
mod bfs;

#[allow(dead_code)]
#[path = "../../sparse-runtime/examples/sssp.rs"]
mod sssp;

/// BFS levels by relaxation over the edge list, `level(to) = min(level(to), level(from) +
/// 1)` repeated until nothing changes (no queue, no matrix).
fn relaxed_levels(nodes: usize, edges: &[(u32, u32)], source: usize) -> Vec<u32> {
    let mut levels = vec![bfs::UNREACHED; nodes];
    levels[source] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &(from, to) in edges {
            let (from, to) = (from as usize, to as usize);
            if levels[from] != bfs::UNREACHED && levels[from] + 1 < levels[to] {
                levels[to] = levels[from] + 1;
                changed = true;
            }
        }
    }
    levels
}

const FORMULATIONS: [bfs::Formulation; 3] = [
    bfs::Formulation::Unless,
    bfs::Formulation::DenseNot,
    bfs::Formulation::SparseFrontier,
];

/// Every formulation's levels against the hand-written BFS and the relaxation above,
/// and the frontier sizes against the levels.
fn check_bfs(graph: &bfs::Graph, source: usize) {
    let g = bfs::in_edges(graph).unwrap();
    let want = relaxed_levels(graph.nodes, &graph.edges, source);
    assert_eq!(bfs::reference_bfs(graph, source).0, want, "source {source}");
    for formulation in FORMULATIONS {
        let s = bfs::bfs(&g, source, formulation).unwrap();
        assert_eq!(s.levels, want, "{formulation:?} from {source}");
        let deepest = want.iter().filter(|&&l| l != bfs::UNREACHED).max().unwrap();
        assert_eq!(s.steps.len(), *deepest as usize + 1, "{formulation:?}");
        for (depth, step) in s.steps.iter().enumerate() {
            let at = want.iter().filter(|&&l| l == depth as u32 + 1).count();
            assert_eq!(step.frontier, at, "{formulation:?}, level {}", depth + 1);
        }
        assert_eq!(s.steps.last().unwrap().frontier, 0);
        assert_eq!(
            s.reached(),
            want.iter().filter(|&&l| l != bfs::UNREACHED).count()
        );
    }
}

#[test]
fn bfs_levels_match_the_hand_written_search() {
    let graph = bfs::rmat(12, 8, 42);
    assert_eq!(graph.nodes, 4096);
    assert!(graph.edges.len() > 25_000 && graph.edges.windows(2).all(|e| e[0] < e[1]));
    // From the hub, from a vertex with out-edges elsewhere, and from one without any.
    let lonely = (0..graph.nodes)
        .find(|&v| !graph.edges.iter().any(|&(from, _)| from as usize == v))
        .unwrap();
    for source in [0, 1234, lonely] {
        check_bfs(&graph, source);
    }
}

#[test]
fn bfs_on_a_hand_made_graph() {
    // A directed cycle 0 -> 1 -> 2 -> 0 with a tail 2 -> 3 -> 4, a self-loop at 4, an edge
    // back into the reached part (5 -> 1, from an unreached vertex), and an isolated 6.
    let graph = bfs::Graph {
        nodes: 7,
        edges: vec![(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 4), (5, 1)],
    };
    check_bfs(&graph, 0);
    let g = bfs::in_edges(&graph).unwrap();
    let s = bfs::bfs(&g, 0, bfs::Formulation::Unless).unwrap();
    let u = bfs::UNREACHED;
    assert_eq!(s.levels, vec![0, 1, 2, 3, 4, u, u]);
    for source in 0..7 {
        check_bfs(&graph, source);
    }
}

/// Shortest distances by relaxation over the edge list in integers, to the fixed point.
fn relaxed_distances(nodes: usize, edges: &[(u32, u32, u32)], source: usize) -> Vec<f64> {
    let mut d = vec![u64::MAX; nodes];
    d[source] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &(from, to, w) in edges {
            let (from, to) = (from as usize, to as usize);
            if d[from] != u64::MAX && d[from] + u64::from(w) < d[to] {
                d[to] = d[from] + u64::from(w);
                changed = true;
            }
        }
    }
    d.into_iter()
        .map(|d| {
            if d == u64::MAX {
                f64::INFINITY
            } else {
                d as f64
            }
        })
        .collect()
}

#[test]
fn sssp_distances_match_dijkstra() {
    let graph = sssp::rmat(12, 8, 42);
    assert_eq!(graph.nodes, 4096);
    let w = sssp::in_weights(&graph).unwrap();
    assert_eq!(w.fill(), f64::INFINITY);
    for source in [0, 77] {
        let s = sssp::bellman_ford(&w, source).unwrap();
        let want = relaxed_distances(graph.nodes, &graph.edges, source);
        assert_eq!(s.distances, want, "source {source}");
        let (dijkstra, _) = sssp::dijkstra(&graph, source);
        assert_eq!(sssp::differences(&s.distances, &dijkstra), 0);
        // The last round changes nothing, every other something; the first changes the
        // distance of each out-neighbour of the source (no self-loops at the source count).
        let rounds = &s.rounds;
        assert_eq!(rounds.last().unwrap().changed, 0);
        assert!(rounds[..rounds.len() - 1].iter().all(|r| r.changed > 0));
        let neighbours = graph
            .edges
            .iter()
            .filter(|&&(from, to, _)| from as usize == source && to as usize != source)
            .count();
        assert_eq!(rounds[0].changed, neighbours, "source {source}");
    }
}

#[test]
fn sssp_on_a_hand_made_graph() {
    // 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2): the longer path in edges is shorter; 1 -> 3 (1);
    // 4 -> 0 (1) from a vertex nothing reaches; 5 isolated.
    let graph = sssp::Graph {
        nodes: 6,
        edges: vec![(0, 1, 4), (0, 2, 1), (1, 3, 1), (2, 1, 2), (4, 0, 1)],
    };
    let w = sssp::in_weights(&graph).unwrap();
    let s = sssp::bellman_ford(&w, 0).unwrap();
    let inf = f64::INFINITY;
    assert_eq!(s.distances, vec![0.0, 3.0, 1.0, 4.0, inf, inf]);
    assert_eq!(s.distances, relaxed_distances(6, &graph.edges, 0));
    // Round 1 sets 1 (to 4) and 2; round 2 improves 1 (to 3) and sets 3; round 3 improves
    // 3; round 4 changes nothing.
    let changed: Vec<usize> = s.rounds.iter().map(|r| r.changed).collect();
    assert_eq!(changed, vec![2, 2, 1, 0]);
    // From the isolated vertex: one round, nothing changes.
    let s = sssp::bellman_ford(&w, 5).unwrap();
    assert_eq!(s.distances, vec![inf, inf, inf, inf, inf, 0.0]);
    assert_eq!(s.rounds.len(), 1);
}
