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
