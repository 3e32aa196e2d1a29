//! Conjugate gradient on a 2-D Poisson problem: one iteration is one kernel of several
//! statements, checked against a hand-written CG over the same CSR arrays.
//!
//! Run with `cargo run --release -p sparse-runtime --example cg` (a 500 x 500 grid, 250,000
//! unknowns) or pass the grid side: `... --example cg -- 1000`.

use sparse_runtime::prelude::*;
use std::time::{Duration, Instant};

sparse_kernel! {
    /// One CG iteration for `a x = b`. On entry `r = b - a x`, `p` is the search direction
    /// and `rho = r·r`; on return all three are advanced. `q` is scratch.
    pub fn cg_iteration(
        x: &mut Dense1<f64>,
        r: &mut Dense1<f64>,
        p: &mut Dense1<f64>,
        q: &mut Dense1<f64>,
        rho: &mut f64,
        a: &Csr<f64>,
    ) {
        q(i) = a(i, j) * p(j);
        let pq = p(i) * q(i);
        let alpha = rho / pq;
        x(i) += alpha * p(i);
        r(i) -= alpha * q(i);
        let rho_next = r(i) * r(i);
        p(i) = r(i) + rho_next / rho * p(i);
        rho = rho_next;
    }

    /// The residual `r = b - a x` and its squared norm, to start CG and to check its result.
    pub fn residual(r: &mut Dense1<f64>, norm2: &mut f64, a: &Csr<f64>, x: &Dense1<f64>, b: &Dense1<f64>) {
        r(i) = b(i);
        r(i) -= a(i, j) * x(j);
        norm2 = r(i) * r(i);
    }
}

/// What a solve did.
#[derive(Debug)]
pub struct Summary {
    /// Unknowns (grid points).
    pub unknowns: usize,
    /// CG iterations run.
    pub iterations: usize,
    /// `|b - a x| / |b|` of the computed `x`, recomputed from scratch.
    pub relative_residual: f64,
    /// Largest difference between the kernel's `x` and the hand-written CG's.
    pub max_difference: f64,
    /// Largest error against the exact solution (the solve's accuracy times the matrix's
    /// condition number, about `n^2`).
    pub max_error: f64,
    /// Time of the kernel iterations and of the hand-written ones.
    pub times: (Duration, Duration),
}

/// The 5-point Laplacian of an `n x n` grid (Dirichlet boundary), in CSR.
pub fn poisson(n: usize) -> Csr<f64> {
    let mut entries: Vec<([usize; 2], f64)> = Vec::with_capacity(5 * n * n);
    for r in 0..n {
        for c in 0..n {
            let k = r * n + c;
            let neighbours = [
                (r > 0).then(|| k - n),
                (c > 0).then(|| k - 1),
                (c + 1 < n).then_some(k + 1),
                (r + 1 < n).then_some(k + n),
            ];
            entries.push(([k, k], 4.0));
            entries.extend(neighbours.into_iter().flatten().map(|j| ([k, j], -1.0)));
        }
    }
    Csr::from_entries(&[n * n, n * n], entries.iter().map(|(c, v)| (&c[..], *v)))
        .expect("the Laplacian's entries are in range")
}

/// Solves `a x = b` for `b = a x*`, with an exact solution `x*` of pseudo-random values in
/// [0, 1) (it has components along every eigenvector, so CG needs about `n` iterations), until
/// `|r| <= tol |b|`.
pub fn run(n: usize, tol: f64) -> Result<Summary, Error> {
    let a = poisson(n);
    let unknowns = n * n;
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let exact: Vec<f64> = (0..unknowns)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    let b = Dense1::from_vec(hand::spmv(&a, &exact));
    let limit = 10 * n + 10;

    let t = Instant::now();
    let mut x = Dense1::<f64>::zeros(unknowns);
    let mut r = Dense1::<f64>::zeros(unknowns);
    let mut rho = 0.0;
    residual(&mut r, &mut rho, &a, &x, &b)?;
    let stop = tol * tol * rho;
    let (mut p, mut q) = (r.clone(), Dense1::<f64>::zeros(unknowns));
    let mut iterations = 0;
    while rho > stop && iterations < limit {
        cg_iteration(&mut x, &mut r, &mut p, &mut q, &mut rho, &a)?;
        iterations += 1;
    }
    let kernel_time = t.elapsed();

    let t = Instant::now();
    let by_hand = hand::cg(&a, b.vals(), tol, limit);
    let hand_time = t.elapsed();

    let mut check = Dense1::<f64>::zeros(unknowns);
    let mut norm2 = 0.0;
    residual(&mut check, &mut norm2, &a, &x, &b)?;
    let b2: f64 = b.vals().iter().map(|v| v * v).sum();
    let max_diff = |u: &[f64], v: &[f64]| {
        u.iter()
            .zip(v)
            .map(|(s, t)| (s - t).abs())
            .fold(0.0, f64::max)
    };
    Ok(Summary {
        unknowns,
        iterations,
        relative_residual: (norm2 / b2).sqrt(),
        max_difference: max_diff(x.vals(), &by_hand),
        max_error: max_diff(x.vals(), &exact),
        times: (kernel_time, hand_time),
    })
}

/// CG written by hand over the CSR arrays: the loops a user would write without the macro.
mod hand {
    use sparse_runtime::prelude::*;

    pub fn spmv(a: &Csr<f64>, x: &[f64]) -> Vec<f64> {
        let (_, cols) = a.levels();
        let (pos, crd, vals) = (cols.pos(), cols.crd(), a.vals());
        (0..a.shape()[0])
            .map(|i| {
                let (start, end) = (pos[i] as usize, pos[i + 1] as usize);
                (start..end).map(|p| vals[p] * x[crd[p] as usize]).sum()
            })
            .collect()
    }

    fn dot(u: &[f64], v: &[f64]) -> f64 {
        u.iter().zip(v).map(|(s, t)| s * t).sum()
    }

    pub fn cg(a: &Csr<f64>, b: &[f64], tol: f64, limit: usize) -> Vec<f64> {
        let mut x = vec![0.0; b.len()];
        let mut r = b.to_vec();
        let mut p = r.clone();
        let mut rho = dot(&r, &r);
        let stop = tol * tol * rho;
        let mut iterations = 0;
        while rho > stop && iterations < limit {
            let q = spmv(a, &p);
            let alpha = rho / dot(&p, &q);
            for i in 0..x.len() {
                x[i] += alpha * p[i];
                r[i] -= alpha * q[i];
            }
            let next = dot(&r, &r);
            for i in 0..p.len() {
                p[i] = r[i] + next / rho * p[i];
            }
            rho = next;
            iterations += 1;
        }
        x
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse()?,
        None => 500,
    };
    let s = run(n, 1e-8)?;
    let per = |d: Duration| d.as_secs_f64() * 1e3 / s.iterations.max(1) as f64;
    println!("2-D Poisson, {n} x {n} grid: {} unknowns", s.unknowns);
    println!(
        "CG: {} iterations to |r| <= 1e-8 |b|; relative residual {:.2e}, max error vs exact {:.2e}",
        s.iterations, s.relative_residual, s.max_error
    );
    println!(
        "one kernel per iteration: {:.3} ms/iteration; hand-written loops: {:.3} ms/iteration ({:.2}x)",
        per(s.times.0),
        per(s.times.1),
        s.times.0.as_secs_f64() / s.times.1.as_secs_f64()
    );
    println!(
        "largest difference from the hand-written CG's x: {:.2e}",
        s.max_difference
    );
    assert!(s.relative_residual <= 1e-7, "CG did not converge");
    Ok(())
}
