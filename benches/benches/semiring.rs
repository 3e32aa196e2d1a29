//! Kernels over semirings other than (+, ×), generated against hand-written loops, on the
//! R-MAT graph of scale 20 (1,048,576 vertices, edge factor 8: 8,175,727 distinct edges drawn
//! with the Graph500 probabilities; skewed degrees, vertex 0 the largest hub). Two groups:
//!
//! - `masked_bool_mxv_rmat20`: one breadth-first-search step in the boolean semiring with a
//!   complemented mask, `next(i) = unless(any[j](and(g(i, j), f(j))), visited(i))`, `g` the
//!   graph as a `Csr<u8>` of ones, `f` a frontier of about 5% of the vertices (a `Dense1<u8>`
//!   of 0/1), `visited` about 30% of them, the frontier included (a `SparseVec<u8>`: a
//!   structural mask). Contenders: `generated_unless` (that kernel, `unless` declared with
//!   `#[function(iterate(x & !m))]`; it skips the visited rows and stores, for every other
//!   row with an edge, 1 if an edge comes from the frontier and 0 if not),
//!   `generated_dense_not` (`and(any[j](..), not(visited(i)))` with everything `Dense1<u8>`:
//!   every row read, the mask a value), and two hand-written loops over the same arrays, a
//!   visited bitset and the dense frontier, which push each newly reached row to a list:
//!   `hand_break` stops reading a row at its first frontier neighbour (`any`'s answer is then
//!   known), `hand_full` reads every edge of the row as the generated kernels do.
//! - `min_plus_mxv_rmat20`: `y(i) = min[j](plus(a(i, j), x(j)))` with `#[fill(inf)] a` (the
//!   R-MAT generator's values, uniform in (0, 1], a repeated edge's summed) and a dense `x`:
//!   one Bellman-Ford relaxation without the `min` with the old distance. Contenders:
//!   `generated`, `hand_iter` (a safe loop over row slices) and `hand_unchecked` (the same
//!   without bounds checks).
//!
//! Before timing, every contender's result is checked against the first hand loop's: the
//! same set of reached vertices, the same minima (exactly: each row is reduced in the same
//! order with the same comparison).
//!
//! Run with `cargo bench -p sparse-benches --bench semiring` (about 50 s). With
//! `SPARSE_BENCH_INTERLEAVE=40` set, each group is first also timed in 40 interleaved rounds
//! (every contender once per round), which prints ratios less exposed to a changing load.

mod common;
use common::{group, interleaved};
use sparse_benches::{rmat, test_vector};
use sparse_runtime::prelude::*;
use std::hint::black_box;

/// R-MAT scale: `2^SCALE` vertices.
const SCALE: u32 = 20;
/// Edges drawn per vertex.
const EDGE_FACTOR: usize = 8;

sparse_kernel! {
    /// `x` where `m` is not stored, nothing where it is: a structural complemented mask.
    #[function(iterate(x & !m))]
    fn unless(x: u8, m: u8) -> u8 {
        if m != 0 { 0 } else { x }
    }

    fn step_unless(next: &mut SparseVec<u8>, g: &Csr<u8>, f: &Dense1<u8>, visited: &SparseVec<u8>) {
        next(i) = unless(any[j](and(g(i, j), f(j))), visited(i))
    }

    fn step_dense_not(next: &mut Dense1<u8>, g: &Csr<u8>, f: &Dense1<u8>, visited: &Dense1<u8>) {
        next(i) = and(any[j](and(g(i, j), f(j))), not(visited(i)))
    }

    /// Addition in the tropical semiring: infinity (no path) annihilates it.
    #[function(commutative, associative, identity = 0, annihilator = inf)]
    fn plus(a: f64, b: f64) -> f64 {
        a + b
    }

    fn min_plus(y: &mut Dense1<f64>, #[fill(inf)] a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = min[j](plus(a(i, j), x(j)))
    }
}

/// The masked step by hand: rows whose bit is set in `visited` are skipped; every other row
/// is reached if one of its columns is in the frontier (`f[j] != 0`), and pushed to `next`.
/// With `stop_early`, a row's reading stops at its first frontier neighbour.
fn step_hand(
    row_ptr: &[u32],
    col_idx: &[u32],
    f: &[u8],
    visited: &[u64],
    next: &mut Vec<u32>,
    stop_early: bool,
) {
    next.clear();
    for (i, bounds) in row_ptr.windows(2).enumerate() {
        if visited[i / 64] >> (i % 64) & 1 != 0 {
            continue;
        }
        let row = &col_idx[bounds[0] as usize..bounds[1] as usize];
        let reached = if stop_early {
            row.iter().any(|&j| f[j as usize] != 0)
        } else {
            row.iter().fold(false, |r, &j| r | (f[j as usize] != 0))
        };
        if reached {
            next.push(i as u32);
        }
    }
}

/// `y(i) = min_j a(i, j) + x(j)` over the stored entries, `+∞` for an empty row: a safe loop
/// over each row's slices.
fn min_plus_hand(row_ptr: &[u32], col_idx: &[u32], vals: &[f64], x: &[f64], y: &mut [f64]) {
    for (yi, bounds) in y.iter_mut().zip(row_ptr.windows(2)) {
        let row = bounds[0] as usize..bounds[1] as usize;
        let mut m = f64::INFINITY;
        for (&j, &v) in col_idx[row.clone()].iter().zip(&vals[row]) {
            let s = v + x[j as usize];
            if s < m {
                m = s;
            }
        }
        *yi = m;
    }
}

/// The same loop without bounds checks.
///
/// # Panics
/// If `x` or `y` does not match the shape of `a`.
fn min_plus_unchecked(a: &Csr<f64>, x: &[f64], y: &mut [f64]) {
    assert_eq!(x.len(), a.shape()[1]);
    assert_eq!(y.len(), a.shape()[0]);
    let (row_ptr, col_idx, vals) = (a.levels().1.pos(), a.levels().1.crd(), a.vals());
    for (r, yi) in y.iter_mut().enumerate() {
        // SAFETY: a validated `Csr` has `rows + 1` non-decreasing row bounds ending at
        // `col_idx.len() == vals.len()`, and every column is below `cols == x.len()`;
        // `r < y.len() == rows`.
        unsafe {
            let (lo, hi) = (
                *row_ptr.get_unchecked(r) as usize,
                *row_ptr.get_unchecked(r + 1) as usize,
            );
            let mut m = f64::INFINITY;
            for p in lo..hi {
                let s = vals.get_unchecked(p) + x.get_unchecked(*col_idx.get_unchecked(p) as usize);
                if s < m {
                    m = s;
                }
            }
            *yi = m;
        }
    }
}

/// A small deterministic generator (SplitMix64) for the frontier and the visited set.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn bench_semiring(c: &mut criterion::Criterion) {
    let m = rmat::<u32>(SCALE, EDGE_FACTOR, 1);
    let n = m.rows;

    // ----- masked boolean mxv -----
    let pattern = || Compressed::<u32>::from_raw(n, m.row_ptr.clone(), m.col_idx.clone());
    let g = Csr::<u8>::from_levels(
        &[n, n],
        (Dense::new(n), pattern().expect("valid CSR arrays")),
        vec![1; m.nnz()],
    )
    .expect("valid CSR arrays");
    // About 5% of the vertices in the frontier, 25% more visited.
    let mut state = 7;
    let mut frontier = vec![0u8; n];
    let mut visited_list = Vec::new();
    let mut visited_bits = vec![0u64; n.div_ceil(64)];
    for i in 0..n {
        let u = splitmix(&mut state) % 100;
        if u < 30 {
            frontier[i] = u8::from(u < 5);
            visited_list.push(i as u32);
            visited_bits[i / 64] |= 1 << (i % 64);
        }
    }
    let f = Dense1::from_vec(frontier.clone());
    let visited_dense = Dense1::from_vec(
        (0..n)
            .map(|i| u8::from(visited_bits[i / 64] >> (i % 64) & 1 != 0))
            .collect(),
    );
    let visited = {
        let ones = vec![1u8; visited_list.len()];
        let level = Compressed::<u32>::from_raw(
            n,
            vec![0, visited_list.len() as u32],
            visited_list.clone(),
        )
        .expect("sorted distinct vertices");
        SparseVec::<u8>::from_levels(&[n], (level,), ones).expect("a valid sparse vector")
    };

    let mut next = SparseVec::<u8>::new(&[n]).expect("a shape");
    let mut next_dense = Dense1::<u8>::zeros(n);
    let mut next_list = Vec::with_capacity(n);
    let hand = |out: &mut Vec<u32>, stop_early: bool| {
        step_hand(
            &m.row_ptr,
            &m.col_idx,
            &frontier,
            &visited_bits,
            out,
            stop_early,
        )
    };
    hand(&mut next_list, true);
    let want = next_list.clone();
    hand(&mut next_list, false);
    assert_eq!(next_list, want, "hand_full disagrees with hand_break");
    step_unless(&mut next, &g, &f, &visited).expect("shapes match");
    let reached: Vec<u32> = next
        .levels()
        .0
        .crd()
        .iter()
        .zip(next.vals())
        .filter(|&(_, &v)| v != 0)
        .map(|(&i, _)| i)
        .collect();
    assert_eq!(reached, want, "generated_unless disagrees");
    step_dense_not(&mut next_dense, &g, &f, &visited_dense).expect("shapes match");
    let reached: Vec<u32> = (0..n as u32)
        .filter(|&i| next_dense.as_slice()[i as usize] != 0)
        .collect();
    assert_eq!(reached, want, "generated_dense_not disagrees");
    println!(
        "masked_bool_mxv_rmat20: {n} vertices, {} edges, frontier {}, visited {}, reached {} (generated_unless stores {})",
        m.nnz(),
        frontier.iter().filter(|&&v| v != 0).count(),
        visited_list.len(),
        want.len(),
        next.nnz()
    );

    let mut other_list = Vec::with_capacity(n);
    interleaved(
        "masked_bool_mxv_rmat20",
        &mut [
            ("hand_break", &mut || hand(black_box(&mut next_list), true)),
            ("hand_full", &mut || hand(black_box(&mut other_list), false)),
            ("generated_unless", &mut || {
                step_unless(black_box(&mut next), &g, &f, &visited).expect("shapes match")
            }),
            ("generated_dense_not", &mut || {
                step_dense_not(black_box(&mut next_dense), &g, &f, &visited_dense)
                    .expect("shapes match")
            }),
        ],
    );
    let mut masked = group(c, "masked_bool_mxv_rmat20", m.nnz());
    masked.bench_function("generated_unless", |b| {
        b.iter(|| step_unless(black_box(&mut next), &g, &f, &visited).expect("shapes match"))
    });
    masked.bench_function("generated_dense_not", |b| {
        b.iter(|| {
            step_dense_not(black_box(&mut next_dense), &g, &f, &visited_dense)
                .expect("shapes match")
        })
    });
    masked.bench_function("hand_break", |b| {
        b.iter(|| hand(black_box(&mut next_list), true))
    });
    masked.bench_function("hand_full", |b| {
        b.iter(|| hand(black_box(&mut next_list), false))
    });
    masked.finish();

    // ----- min-plus mxv -----
    let a = Csr::<f64>::from_levels(
        &[n, n],
        (Dense::new(n), pattern().expect("valid CSR arrays")),
        m.vals.clone(),
    )
    .expect("valid CSR arrays")
    .with_fill(f64::INFINITY);
    let x_vec = test_vector(n);
    let x = Dense1::from_vec(x_vec.clone());
    let mut y = Dense1::<f64>::zeros(n);
    let mut y_hand = vec![0.0; n];
    min_plus_hand(&m.row_ptr, &m.col_idx, &m.vals, &x_vec, &mut y_hand);
    let want = y_hand.clone();
    min_plus_unchecked(&a, &x_vec, &mut y_hand);
    assert_eq!(y_hand, want, "hand_unchecked disagrees with hand_iter");
    min_plus(&mut y, &a, &x).expect("fill and shapes match");
    assert_eq!(
        y.as_slice(),
        &want[..],
        "generated disagrees with hand_iter"
    );

    let mut other_y = y_hand.clone();
    interleaved(
        "min_plus_mxv_rmat20",
        &mut [
            ("hand_iter", &mut || {
                min_plus_hand(
                    &m.row_ptr,
                    &m.col_idx,
                    &m.vals,
                    &x_vec,
                    black_box(&mut y_hand),
                )
            }),
            ("hand_unchecked", &mut || {
                min_plus_unchecked(&a, &x_vec, black_box(&mut other_y))
            }),
            ("generated", &mut || {
                min_plus(black_box(&mut y), &a, &x).expect("fill and shapes match")
            }),
        ],
    );
    let mut group = group(c, "min_plus_mxv_rmat20", m.nnz());
    group.bench_function("generated", |b| {
        b.iter(|| min_plus(black_box(&mut y), &a, &x).expect("fill and shapes match"))
    });
    group.bench_function("hand_iter", |b| {
        b.iter(|| {
            min_plus_hand(
                &m.row_ptr,
                &m.col_idx,
                &m.vals,
                &x_vec,
                black_box(&mut y_hand),
            )
        })
    });
    group.bench_function("hand_unchecked", |b| {
        b.iter(|| min_plus_unchecked(&a, &x_vec, black_box(&mut y_hand)))
    });
    group.finish();
}

criterion::criterion_group!(benches, bench_semiring);
criterion::criterion_main!(benches);
