//! Quickstart: compile sparse kernels from index notation, run them on a
//! 2-D Poisson matrix, and check them against plain loops.
//!
//! Run with `cargo run --release --example quickstart`.

use sparse_runtime::prelude::*;
use std::collections::BTreeMap;
use std::time::Instant;

// Each function below is compiled by the macro at build time into plain loops
// specialized to the formats named in its signature. The body is tensor index
// notation: `j` appears only on the right, so it is summed over.
sparse_kernel! {
    /// y = A x, with A in compressed sparse row format.
    fn spmv_csr(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// The same product with A as a coordinate list.
    fn spmv_coo(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    /// C = A + B: a union of two sparsity patterns, assembled into a new CSR matrix.
    fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Coo<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
}

/// Grid side: the matrix has `N * N` = 302,500 rows.
const N: usize = 550;

/// Largest absolute error tolerated (the loops below add in the same order as
/// the kernels, so in practice the error is exactly 0).
const TOLERANCE: f64 = 1e-12;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The 5-point Laplacian on an N x N grid: row `r * N + c` is grid point
    // (r, c), with 4 on the diagonal and -1 for each neighbour. Entries are
    // listed row by row, columns in increasing order.
    let t = Instant::now();
    let rows = N * N;
    let mut entries: Vec<([usize; 2], f64)> = Vec::with_capacity(5 * rows);
    for r in 0..N {
        for c in 0..N {
            let k = r * N + c;
            if r > 0 {
                entries.push(([k, k - N], -1.0));
            }
            if c > 0 {
                entries.push(([k, k - 1], -1.0));
            }
            entries.push(([k, k], 4.0));
            if c + 1 < N {
                entries.push(([k, k + 1], -1.0));
            }
            if r + 1 < N {
                entries.push(([k, k + N], -1.0));
            }
        }
    }
    let t_list = t.elapsed();

    // A second matrix B with a different pattern: the diagonal plus the four diagonal
    // neighbours (r +- 1, c +- 1). A + B then merges two patterns that overlap only on the
    // diagonal, so the add exercises every case of its merge lattice.
    let mut b_entries: Vec<([usize; 2], f64)> = Vec::with_capacity(5 * rows);
    for r in 0..N {
        for c in 0..N {
            let k = r * N + c;
            b_entries.push(([k, k], 1.0));
            for (dr, dc) in [(-1, -1), (-1, 1), (1, -1), (1, 1)] {
                let (nr, nc) = (r as isize + dr, c as isize + dc);
                if (0..N as isize).contains(&nr) && (0..N as isize).contains(&nc) {
                    b_entries.push(([k, nr as usize * N + nc as usize], 0.5));
                }
            }
        }
    }

    // The same matrix in two formats. `from_entries` accepts entries in any
    // order and sums duplicates; CSR can also be built from its raw arrays
    // (`Csr::from_csr_arrays`), which are validated the same way.
    let t = Instant::now();
    let a_csr = Csr::<f64>::from_entries(&[rows, rows], entries.iter().copied())?;
    let t_csr = t.elapsed();
    let t = Instant::now();
    let a_coo = Coo::<f64>::from_entries(&[rows, rows], entries.iter().copied())?;
    let t_coo = t.elapsed();
    let b_coo = Coo::<f64>::from_entries(&[rows, rows], b_entries.iter().copied())?;
    println!(
        "2-D Poisson matrix on a {N} x {N} grid: {rows} rows, {} nonzeros",
        a_csr.nnz()
    );

    // Run the generated kernels, once each (`benches/` has careful timings).
    // They check shapes on entry and return an `Err` on a mismatch; a sparse
    // output is assembled from scratch.
    let x = Dense1::from_vec((0..rows).map(|j| (j % 10) as f64 - 4.5).collect());
    let mut y_csr = Dense1::zeros(rows);
    let mut y_coo = Dense1::zeros(rows);
    let mut c = Csr::<f64>::new(&[rows, rows])?;

    let t = Instant::now();
    spmv_csr(&mut y_csr, &a_csr, &x)?;
    let t_spmv_csr = t.elapsed();
    let t = Instant::now();
    spmv_coo(&mut y_coo, &a_coo, &x)?;
    let t_spmv_coo = t.elapsed();
    let t = Instant::now();
    add(&mut c, &a_csr, &b_coo)?;
    let t_add = t.elapsed();

    // The naive reference: a loop over the entry list for y = A x, and a map
    // from coordinate to value for C = A + B.
    let t = Instant::now();
    let x = x.as_slice();
    let mut y_ref = vec![0.0; rows];
    for &([i, j], v) in &entries {
        y_ref[i] += v * x[j];
    }
    let mut c_ref = BTreeMap::new();
    for &(ij, v) in entries.iter().chain(&b_entries) {
        *c_ref.entry(ij).or_insert(0.0) += v;
    }
    let t_naive = t.elapsed();

    // Compare every value.
    let max_error = |got: &[f64], want: &[f64]| -> f64 {
        assert_eq!(got.len(), want.len());
        got.iter()
            .zip(want)
            .map(|(g, w)| (g - w).abs())
            .fold(0.0, f64::max)
    };
    let err_csr = max_error(y_csr.as_slice(), &y_ref);
    let err_coo = max_error(y_coo.as_slice(), &y_ref);
    let c_entries = c.entries(); // sorted by coordinate, like the map
    let err_add = if c_entries.len() == c_ref.len() {
        let pairs = c_entries.iter().zip(&c_ref);
        pairs
            .map(|((ij, got), (k, want))| match ij[..] == k[..] {
                true => (got - want).abs(),
                false => f64::INFINITY, // an entry at the wrong coordinate
            })
            .fold(0.0, f64::max)
    } else {
        f64::INFINITY
    };

    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!("build   entry list              {:7.2} ms", ms(t_list));
    println!("        Csr::from_entries       {:7.2} ms", ms(t_csr));
    println!("        Coo::from_entries       {:7.2} ms", ms(t_coo));
    println!(
        "kernel  y = A x      (Csr)      {:7.2} ms   max abs error {err_csr:.1e}",
        ms(t_spmv_csr)
    );
    println!(
        "        y = A x      (Coo)      {:7.2} ms   max abs error {err_coo:.1e}",
        ms(t_spmv_coo)
    );
    println!(
        "        C = A + B    (Csr, Coo) {:7.2} ms   max abs error {err_add:.1e}   B has {}, C has {} nonzeros",
        ms(t_add),
        b_coo.nnz(),
        c.nnz()
    );
    println!("naive   y = A x and C = A + B   {:7.2} ms", ms(t_naive));

    if err_csr > TOLERANCE || err_coo > TOLERANCE || err_add > TOLERANCE {
        return Err("a generated kernel disagrees with the naive computation".into());
    }
    println!("ok: every value matches the naive computation");
    Ok(())
}
