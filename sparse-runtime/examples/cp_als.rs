//! One sweep of CP-ALS (canonical polyadic decomposition by alternating least squares) on a
//! generated sparse 3-tensor, with the MTTKRP of each mode as a `sparse_kernel!` kernel.
//!
//! The model is `X(i, j, k) ~ sum_r A(i, r) B(j, r) C(k, r)`. A sweep updates each factor in
//! turn by its least-squares solution given the other two: `A = X_(1) (C ⊙ B) (CᵀC ∗ BᵀB)⁻¹`,
//! and likewise `B` and `C`. The product of the unfolded tensor with the Khatri-Rao product of
//! the other factors is the MTTKRP, the one step that touches the tensor's nonzeros:
//! `M(i, r) = X(i, j, k) B(j, r) C(k, r)`. Each mode's MTTKRP reads its own copy of the
//! tensor, stored with that mode first (CSF levels in another mode order, made by
//! `convert`), so each kernel walks the tensor by output rows. The Gram matrices, their
//! Hadamard product and the small `rank x rank` solve are plain Rust.
//!
//! The fit `1 - |X - X̂| / |X|` is computed before and after the sweep from `|X|²`, the
//! inner product `<X, X̂>` (a kernel) and `|X̂|²` (from the Gram matrices). Every
//! least-squares update can only lower `|X - X̂|`, so the fit must not decrease.
//!
//! Run with `cargo run --release -p sparse-runtime --example cp_als [NNZ [RANK]]`: a
//! 1000 x 800 x 600 tensor with a million nonzeros (default), rank 16.

use sparse_runtime::prelude::*;
use std::time::{Duration, Instant};

/// The tensor stored with mode 1 (`j`) first, then `i`, then `k`.
pub type CsfJik = Tensor<f64, (Compressed, Compressed, Compressed), Modes<1, 0, 2>>;
/// The tensor stored with mode 2 (`k`) first, then `i`, then `j`.
pub type CsfKij = Tensor<f64, (Compressed, Compressed, Compressed), Modes<2, 0, 1>>;

sparse_kernel! {
    /// MTTKRP of mode 0: `M(i, r) = sum_jk X(i, j, k) B(j, r) C(k, r)`.
    fn mttkrp_i(m: &mut Dense2<f64>, x: &Csf3<f64>, b: &Dense2<f64>, c: &Dense2<f64>) {
        m(i, r) = x(i, j, k) * b(j, r) * c(k, r)
    }

    /// MTTKRP of mode 1, over the copy stored `j` first.
    // A signature names formats by the runtime's aliases or `Tensor<..>` written out: the
    // macro reads type names, so the aliases `CsfJik`, `CsfKij` above cannot be used here.
    fn mttkrp_j(
        m: &mut Dense2<f64>,
        x: &Tensor<f64, (Compressed, Compressed, Compressed), Modes<1, 0, 2>>,
        a: &Dense2<f64>,
        c: &Dense2<f64>,
    ) {
        m(j, r) = x(i, j, k) * a(i, r) * c(k, r)
    }

    /// MTTKRP of mode 2, over the copy stored `k` first.
    fn mttkrp_k(
        m: &mut Dense2<f64>,
        x: &Tensor<f64, (Compressed, Compressed, Compressed), Modes<2, 0, 1>>,
        a: &Dense2<f64>,
        b: &Dense2<f64>,
    ) {
        m(k, r) = x(i, j, k) * a(i, r) * b(j, r)
    }

    /// The inner product of the tensor with the model, `<X, X̂>`: the model is evaluated at
    /// the tensor's nonzeros only.
    fn inner(out: &mut f64, x: &Csf3<f64>, a: &Dense2<f64>, b: &Dense2<f64>, c: &Dense2<f64>) {
        out = x(i, j, k) * a(i, r) * b(j, r) * c(k, r)
    }

    /// `|X|²`.
    fn norm_squared(out: &mut f64, x: &Csf3<f64>) {
        out = x(i, j, k) * x(i, j, k)
    }
}

/// A small deterministic generator (SplitMix64), so that every run sees the same tensor.
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

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A `rows x cols` matrix of uniform `[0, 1)` entries.
pub fn random_matrix(rows: usize, cols: usize, rng: &mut SplitMix64) -> Dense2<f64> {
    let v = (0..rows * cols).map(|_| rng.next_f64()).collect();
    Dense2::from_vec(rows, cols, v).expect("rows * cols values")
}

/// A sparse tensor of low rank plus noise: the sum of 8 rank-one blocks, each the outer
/// product of three sparse random vectors (about `cbrt(nnz / 8)` nonzeros each, placed
/// uniformly, values in `[0.5, 1.5)`), so about `nnz` nonzeros (blocks that overlap are
/// summed); every value is then multiplied by `1 + 0.1 u`, `u` uniform in `[-1, 1)`.
pub fn synthetic_tensor(shape: [usize; 3], nnz: usize, seed: u64) -> Result<Csf3<f64>, Error> {
    const TRUE_RANK: usize = 8;
    let mut rng = SplitMix64::new(seed);
    let side = ((nnz / TRUE_RANK) as f64).cbrt().round() as usize;
    let mut entries = Vec::with_capacity(TRUE_RANK * side.pow(3));
    for _ in 0..TRUE_RANK {
        let [is, js, ks] = shape.map(|n| {
            let v: Vec<(usize, f64)> = (0..side.min(n))
                .map(|_| (rng.below(n), 0.5 + rng.next_f64()))
                .collect();
            v
        });
        for &(i, a) in &is {
            for &(j, b) in &js {
                for &(k, c) in &ks {
                    let noise = 1.0 + 0.1 * (2.0 * rng.next_f64() - 1.0);
                    entries.push(([i, j, k], a * b * c * noise));
                }
            }
        }
    }
    Csf3::from_entries(&shape, entries)
}

/// What one sweep did.
pub struct Summary {
    /// The tensor's shape.
    pub shape: [usize; 3],
    /// Its stored entries.
    pub nnz: usize,
    /// The decomposition's rank.
    pub rank: usize,
    /// The fit `1 - |X - X̂| / |X|` before and after the sweep.
    pub fit_before: f64,
    pub fit_after: f64,
    /// Making the tensor and its two other mode orders.
    pub setup_time: Duration,
    /// Each mode's MTTKRP kernel, and the whole sweep (MTTKRPs, Gram matrices, solves).
    pub mttkrp_time: [Duration; 3],
    pub sweep_time: Duration,
    /// The factors after the sweep.
    pub factors: [Dense2<f64>; 3],
}

/// One CP-ALS sweep of rank `rank` on a generated `shape` tensor with `nnz` samples.
pub fn run(
    shape: [usize; 3],
    nnz: usize,
    rank: usize,
) -> Result<Summary, Box<dyn std::error::Error>> {
    let start = Instant::now();
    let x = synthetic_tensor(shape, nnz, TENSOR_SEED)?;
    let x_jik: CsfJik = x.convert()?;
    let x_kij: CsfKij = x.convert()?;
    let setup_time = start.elapsed();

    let [mut a, mut b, mut c] = initial_factors(&x, rank)?;
    let mut norm2 = 0.0;
    norm_squared(&mut norm2, &x)?;
    let fit_before = fit(&x, norm2, [&a, &b, &c])?;

    let start = Instant::now();
    let mut mttkrp_time = [Duration::ZERO; 3];
    // Mode 0: A = MTTKRP(X, B, C) (BᵀB ∗ CᵀC)⁻¹.
    let mut m = Dense2::zeros(shape[0], rank);
    let t = Instant::now();
    mttkrp_i(&mut m, &x, &b, &c)?;
    mttkrp_time[0] = t.elapsed();
    a = solve_rows(m, &hadamard(&gram(&b), &gram(&c)))?;
    // Mode 1, with the new A.
    let mut m = Dense2::zeros(shape[1], rank);
    let t = Instant::now();
    mttkrp_j(&mut m, &x_jik, &a, &c)?;
    mttkrp_time[1] = t.elapsed();
    b = solve_rows(m, &hadamard(&gram(&a), &gram(&c)))?;
    // Mode 2, with the new A and B.
    let mut m = Dense2::zeros(shape[2], rank);
    let t = Instant::now();
    mttkrp_k(&mut m, &x_kij, &a, &b)?;
    mttkrp_time[2] = t.elapsed();
    c = solve_rows(m, &hadamard(&gram(&a), &gram(&b)))?;
    let sweep_time = start.elapsed();

    let fit_after = fit(&x, norm2, [&a, &b, &c])?;
    Ok(Summary {
        shape,
        nnz: x.nnz(),
        rank,
        fit_before,
        fit_after,
        setup_time,
        mttkrp_time,
        sweep_time,
        factors: [a, b, c],
    })
}

/// The seed of the tensor [`run`] decomposes.
pub const TENSOR_SEED: u64 = 2024;

/// Random factors of rank `rank` for `x` (uniform, then scaled so that the model's norm is the
/// tensor's): where the sweep starts.
pub fn initial_factors(x: &Csf3<f64>, rank: usize) -> Result<[Dense2<f64>; 3], Error> {
    let mut rng = SplitMix64::new(7);
    let [mut a, mut b, mut c] = [0, 1, 2].map(|d| random_matrix(x.shape()[d], rank, &mut rng));
    let mut norm2 = 0.0;
    norm_squared(&mut norm2, x)?;
    let model2: f64 = hadamard(&hadamard(&gram(&a), &gram(&b)), &gram(&c))
        .iter()
        .sum();
    let scale = (norm2 / model2).powf(1.0 / 6.0);
    for f in [&mut a, &mut b, &mut c] {
        f.as_mut_slice().iter_mut().for_each(|v| *v *= scale);
    }
    Ok([a, b, c])
}

/// `1 - |X - X̂| / |X|`, with `|X - X̂|² = |X|² - 2 <X, X̂> + |X̂|²` and
/// `|X̂|² = sum_rs (AᵀA ∗ BᵀB ∗ CᵀC)(r, s)`.
pub fn fit(x: &Csf3<f64>, norm2: f64, [a, b, c]: [&Dense2<f64>; 3]) -> Result<f64, Error> {
    let mut inner_product = 0.0;
    inner(&mut inner_product, x, a, b, c)?;
    let model2: f64 = hadamard(&hadamard(&gram(a), &gram(b)), &gram(c))
        .iter()
        .sum();
    let residual2 = (norm2 - 2.0 * inner_product + model2).max(0.0);
    Ok(1.0 - residual2.sqrt() / norm2.sqrt())
}

/// `FᵀF` of an `n x rank` factor, as a row-major `rank x rank` array.
pub fn gram(f: &Dense2<f64>) -> Vec<f64> {
    let rank = f.shape()[1];
    let mut g = vec![0.0; rank * rank];
    for row in f.as_slice().chunks_exact(rank) {
        for r in 0..rank {
            for s in 0..rank {
                g[r * rank + s] += row[r] * row[s];
            }
        }
    }
    g
}

/// The element-wise (Hadamard) product.
pub fn hadamard(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x * y).collect()
}

/// The rows `f` of `M = F G` for a symmetric positive definite `G` (`rank x rank`): one
/// Cholesky factorization `G = L Lᵀ`, then a forward and a back substitution per row.
pub fn solve_rows(m: Dense2<f64>, g: &[f64]) -> Result<Dense2<f64>, Box<dyn std::error::Error>> {
    let (rows, rank) = (m.shape()[0], m.shape()[1]);
    let mut l = vec![0.0; rank * rank];
    for r in 0..rank {
        for s in 0..=r {
            let dot: f64 = (0..s).map(|t| l[r * rank + t] * l[s * rank + t]).sum();
            let v = g[r * rank + s] - dot;
            l[r * rank + s] = match r == s {
                true if v > 0.0 => v.sqrt(),
                true => {
                    return Err(
                        format!("the Gram product is not positive definite (pivot {v:e})").into(),
                    )
                }
                false => v / l[s * rank + s],
            };
        }
    }
    let mut f = m.into_vec();
    for row in f.chunks_exact_mut(rank) {
        for r in 0..rank {
            let dot: f64 = (0..r).map(|t| l[r * rank + t] * row[t]).sum();
            row[r] = (row[r] - dot) / l[r * rank + r];
        }
        for r in (0..rank).rev() {
            let dot: f64 = (r + 1..rank).map(|t| l[t * rank + r] * row[t]).sum();
            row[r] = (row[r] - dot) / l[r * rank + r];
        }
    }
    Ok(Dense2::from_vec(rows, rank, f)?)
}

/// MTTKRP of `mode` written by hand over the tensor's entry list, for checking the kernels:
/// the factors are those of the other two modes, in mode order.
pub fn reference_mttkrp(x: &Csf3<f64>, mode: usize, f: &Dense2<f64>, g: &Dense2<f64>) -> Vec<f64> {
    let rank = f.shape()[1];
    let (f, g) = (f.as_slice(), g.as_slice());
    let mut m = vec![0.0; x.shape()[mode] * rank];
    for (c, v) in x.entries() {
        let others: Vec<usize> = (0..3).filter(|&d| d != mode).map(|d| c[d]).collect();
        for r in 0..rank {
            m[c[mode] * rank + r] += v * f[others[0] * rank + r] * g[others[1] * rank + r];
        }
    }
    m
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let nnz = args.next().map_or(Ok(1_000_000), |s| s.parse())?;
    let rank = args.next().map_or(Ok(16), |s| s.parse())?;
    let s = run([1000, 800, 600], nnz, rank)?;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let [i, j, k] = s.shape;
    println!(
        "tensor {i} x {j} x {k}, {} nonzeros (Csf3, and two more mode orders in {:.1} ms with the tensor)",
        s.nnz,
        ms(s.setup_time)
    );
    println!(
        "rank {}: MTTKRP mode 0 {:.2} ms, mode 1 {:.2} ms, mode 2 {:.2} ms; whole sweep {:.2} ms",
        s.rank,
        ms(s.mttkrp_time[0]),
        ms(s.mttkrp_time[1]),
        ms(s.mttkrp_time[2]),
        ms(s.sweep_time)
    );
    println!(
        "fit before the sweep {:.6}, after {:.6}",
        s.fit_before, s.fit_after
    );

    // Check the kernels against the hand-written MTTKRP on a small tensor, mode by mode.
    let small = synthetic_tensor([30, 20, 10], 1000, 1)?;
    let mut rng = SplitMix64::new(3);
    let [a, b, c] = [30, 20, 10].map(|n| random_matrix(n, 4, &mut rng));
    let mut error: f64 = 0.0;
    for (mode, m) in mttkrp_all(&small, &a, &b, &c)?.iter().enumerate() {
        let (f, g) = [(&b, &c), (&a, &c), (&a, &b)][mode];
        let want = reference_mttkrp(&small, mode, f, g);
        let diffs = m.as_slice().iter().zip(&want).map(|(x, y)| (x - y).abs());
        error = diffs.fold(error, f64::max);
    }
    println!(
        "MTTKRP of a small tensor against the hand-written loop: max abs difference {error:.1e}"
    );
    let fit_kept = s.fit_after >= s.fit_before; // false if either is NaN
    if !fit_kept || error > 1e-12 {
        return Err("a CP-ALS check failed".into());
    }
    println!("ok: the fit did not decrease, and the MTTKRP kernels match the hand-written loop");
    Ok(())
}

/// The three MTTKRPs of `x` with the factors `a`, `b`, `c`, each through its kernel.
pub fn mttkrp_all(
    x: &Csf3<f64>,
    a: &Dense2<f64>,
    b: &Dense2<f64>,
    c: &Dense2<f64>,
) -> Result<[Dense2<f64>; 3], Error> {
    let rank = a.shape()[1];
    let shape = x.shape();
    let [mut mi, mut mj, mut mk] = [0, 1, 2].map(|d| Dense2::zeros(shape[d], rank));
    mttkrp_i(&mut mi, x, b, c)?;
    mttkrp_j(&mut mj, &x.convert()?, a, c)?;
    mttkrp_k(&mut mk, &x.convert()?, a, b)?;
    Ok([mi, mj, mk])
}
