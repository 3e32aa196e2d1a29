//! Kernels whose output is a scalar fold their outermost loop in parallel
//! (`sparse_runtime::parallel::fold`): chunks of consecutive iterations, each folded from
//! the reduction's identity, combined in order. Checked here against dense oracles (sums,
//! `max`, `any` with its early exit, over dense, CSR, sparse-vector and COO operands,
//! empty ones included), against the documented order (a float sum is the sum of its
//! chunks' sums, in order, each summed in strips' lanes), for independence from the number of threads (bit for bit), and
//! for the serial order with one chunk.
#![deny(warnings)]

use sparse_runtime::parallel::with_fold_chunk;
use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn dot(d: &mut f64, x: &Dense1<f64>, y: &Dense1<f64>) {
        d = x(i) * y(i)
    }
    #[schedule(parallel(never))]
    pub fn dot_serial(d: &mut f64, x: &Dense1<f64>, y: &Dense1<f64>) {
        d = x(i) * y(i)
    }
    // A merge of two sparse rows inside each iteration of the fold.
    pub fn frobenius(d: &mut f64, a: &Csr<f64>, b: &Csr<f64>) {
        d = a(i, j) * b(i, j)
    }
    // A fold over a sparse root's positions.
    pub fn sparse_dot(d: &mut f64, x: &SparseVec<f64>, y: &Dense1<f64>) {
        d = x(i) * y(i)
    }
    // `+=` folds into the old value after the loop.
    pub fn coo_form(d: &mut f64, a: &Coo<f64>, x: &Dense1<f64>, y: &Dense1<f64>) {
        d += x(i) * a(i, j) * y(j)
    }
    pub fn largest(d: &mut f64, x: &Dense1<f64>, y: &Dense1<f64>) {
        d = max[i](x(i) * y(i))
    }
    // `any` leaves each chunk's loop early once it is 1.
    pub fn overlap(d: &mut u8, a: &Csr<u8>, b: &Csr<u8>) {
        d = any[i](any[j](and(a(i, j), b(i, j))))
    }
    // Integer sums stay serial; `min` folds in parallel, exactly: over the stored entries
    // (the fill is `min`'s identity), and over every coordinate (the fill is 0).
    pub fn int_dot(d: &mut i64, x: &Dense1<i64>, y: &Dense1<i64>) {
        d = x(i) * y(i)
    }
    pub fn int_min(d: &mut i64, #[fill(inf)] a: &Csr<i64>) {
        d = min[i](min[j](a(i, j)))
    }
    pub fn int_min_filled(d: &mut i64, a: &Csr<i64>) {
        d = min[i](min[j](a(i, j)))
    }
}

const SIZES: [usize; 7] = [0, 1, 7, 4095, 4096, 4097, 20_000];

/// The fold chunk lengths a test runs under (`None`: the default, 4096).
const CHUNKS: [Option<usize>; 4] = [Some(1), Some(3), None, Some(usize::MAX)];

fn with_chunk<R>(chunk: Option<usize>, f: impl FnOnce() -> R) -> R {
    match chunk {
        Some(c) => with_fold_chunk(c, f),
        None => f(),
    }
}

fn dense(values: &[f64]) -> Dense1<f64> {
    Dense1::from_vec(values.to_vec())
}

#[test]
fn dense_dot_is_the_sum_of_its_chunks_in_order() {
    for n in SIZES {
        let (xs, ys) = (wave(n, 1), wave(n, 2));
        let (x, y) = (dense(&xs), dense(&ys));
        for chunk in [1, 3, 4096, 5000, usize::MAX] {
            // The documented order: each chunk summed from 0 as a strip-mined loop sums
            // (`sparse_core::lane_sums`), chunks added in order.
            let len = chunk.min(n.max(1));
            let mut want = 0.0;
            for (k, part) in xs.chunks(len).zip(ys.chunks(len)).enumerate() {
                let products: Vec<f64> = part.0.iter().zip(part.1).map(|(a, b)| a * b).collect();
                let s = lane_order_sum(0.0, &products);
                want = if k == 0 { s } else { want + s };
            }
            let mut d = f64::NAN;
            with_fold_chunk(chunk, || dot(&mut d, &x, &y)).unwrap();
            assert_eq!(d.to_bits(), want.to_bits(), "n {n}, chunk {chunk}");
        }
        // One chunk is the serial loop's order.
        let (mut serial, mut one) = (f64::NAN, f64::NAN);
        dot_serial(&mut serial, &x, &y).unwrap();
        with_fold_chunk(usize::MAX, || dot(&mut one, &x, &y)).unwrap();
        assert_eq!(one.to_bits(), serial.to_bits(), "n {n}");
    }
}

#[test]
fn folds_do_not_depend_on_the_number_of_threads() {
    let n = 20_000;
    let (x, y) = (dense(&wave(n, 3)), dense(&wave(n, 4)));
    let a: Csr<f64> = build(&[n, 40], &random_entries(&[n, 40], 0.1, 5));
    let b: Csr<f64> = build(&[n, 40], &random_entries(&[n, 40], 0.1, 6));
    let mut results = Vec::new();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (mut d, mut f) = (0.0, 0.0);
        pool.install(|| dot(&mut d, &x, &y)).unwrap();
        pool.install(|| frobenius(&mut f, &a, &b)).unwrap();
        results.push((d.to_bits(), f.to_bits()));
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]), "{results:?}");
}

#[test]
fn float_folds_match_dense_oracles() {
    for n in SIZES {
        let (xs, ys) = (wave(n, 7), wave(n, 8));
        let (x, y) = (dense(&xs), dense(&ys));
        let m = 12;
        let ae = random_entries::<f64>(&[n, m], 0.3, n as u64);
        let be = random_entries::<f64>(&[n, m], 0.3, n as u64 + 1);
        let (a, b): (Csr<f64>, Csr<f64>) = (build(&[n, m], &ae), build(&[n, m], &be));
        let (ad, bd) = (
            DenseT::from_entries(&[n, m], &ae),
            DenseT::from_entries(&[n, m], &be),
        );
        let coo_e = random_entries::<f64>(&[n, n.min(30)], 0.2, 9);
        let coo: Coo<f64> = build(&[n, n.min(30)], &coo_e);
        let coo_d = DenseT::from_entries(&[n, n.min(30)], &coo_e);
        let sv_entries = random_entries::<f64>(&[n], 0.3, 10);
        let sv: SparseVec<f64> = build(&[n], &sv_entries);
        let svd = DenseT::from_entries(&[n], &sv_entries);
        let want_dot: f64 = xs.iter().zip(&ys).map(|(a, b)| a * b).sum();
        let want_max = xs
            .iter()
            .zip(&ys)
            .map(|(a, b)| a * b)
            .fold(f64::NEG_INFINITY, f64::max);
        let want_frob: f64 = ad.data.iter().zip(&bd.data).map(|(a, b)| a * b).sum();
        let want_sparse: f64 = svd.data.iter().zip(&ys).map(|(a, b)| a * b).sum();
        let cols = n.min(30);
        let y_cols = dense(&ys[..cols]);
        let want_form: f64 = 2.5
            + (0..n)
                .flat_map(|i| (0..cols).map(move |j| (i, j)))
                .map(|(i, j)| xs[i] * coo_d.data[i * cols + j] * ys[j])
                .sum::<f64>();
        for chunk in CHUNKS {
            let case = (n, chunk);
            let mut d = f64::NAN;
            with_chunk(chunk, || dot(&mut d, &x, &y)).unwrap();
            assert_scalar_close(d, want_dot, 1e-9, case);
            with_chunk(chunk, || largest(&mut d, &x, &y)).unwrap();
            assert_eq!(d, want_max, "{case:?}");
            with_chunk(chunk, || frobenius(&mut d, &a, &b)).unwrap();
            assert_scalar_close(d, want_frob, 1e-9, case);
            with_chunk(chunk, || sparse_dot(&mut d, &sv, &y)).unwrap();
            assert_scalar_close(d, want_sparse, 1e-9, case);
            let mut form = 2.5;
            with_chunk(chunk, || coo_form(&mut form, &coo, &x, &y_cols)).unwrap();
            assert_scalar_close(form, want_form, 1e-9, case);
        }
    }
}

#[test]
fn any_leaves_each_chunk_early_and_is_exact() {
    for n in SIZES {
        let m = 9;
        // A quarter of the coordinates, row `n / 2` left empty.
        let ae: Vec<(Vec<usize>, u8)> = coordinates(&[n, m])
            .into_iter()
            .filter(|c| (c[0] * 7 + c[1] * 3) % 4 == 0 && c[0] != n / 2)
            .map(|c| (c, 1))
            .collect();
        // `b` overlaps `a` in at most one entry, near the end.
        let overlap_at = ae.iter().map(|e| e.0.clone()).max();
        for shared in [false, true] {
            let be: Vec<(Vec<usize>, u8)> = match (&overlap_at, shared) {
                (Some(c), true) => vec![(c.clone(), 1)],
                _ => Vec::new(),
            };
            let (a, b): (Csr<u8>, Csr<u8>) = (build(&[n, m], &ae), build(&[n, m], &be));
            let want = u8::from(shared && overlap_at.is_some());
            for chunk in CHUNKS {
                let mut d = 7;
                with_chunk(chunk, || overlap(&mut d, &a, &b)).unwrap();
                assert_eq!(d, want, "n {n}, shared {shared}, chunk {chunk:?}");
            }
        }
    }
}

#[test]
fn integer_folds_are_exact() {
    for n in SIZES {
        let xs: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1000 - 500).collect();
        let ys: Vec<i64> = (0..n as i64).map(|i| (i * 104_729) % 777 - 300).collect();
        let (x, y) = (Dense1::from_vec(xs.clone()), Dense1::from_vec(ys.clone()));
        let ae = random_entries::<i64>(&[n, 5], 0.5, 30 + n as u64);
        let a: Csr<i64> = build(&[n, 5], &ae);
        let a_inf = build::<i64, _, _>(&[n, 5], &ae).with_fill(i64::MAX);
        let _: &Csr<i64> = &a_inf;
        let want_dot: i64 = xs.iter().zip(&ys).map(|(a, b)| a * b).sum();
        let stored_min = ae.iter().map(|e| e.1).min().unwrap_or(i64::MAX);
        // Over every coordinate, absent entries are 0 (the fill).
        let want_filled = match ae.len() == n * 5 {
            true => stored_min,
            false => stored_min.min(0),
        };
        for chunk in CHUNKS {
            let mut d = -1;
            with_chunk(chunk, || int_dot(&mut d, &x, &y)).unwrap();
            assert_eq!(d, want_dot, "n {n}, chunk {chunk:?}");
            with_chunk(chunk, || int_min(&mut d, &a_inf)).unwrap();
            assert_eq!(d, stored_min, "n {n}, chunk {chunk:?}");
            with_chunk(chunk, || int_min_filled(&mut d, &a)).unwrap();
            assert_eq!(d, want_filled, "n {n}, chunk {chunk:?}");
        }
    }
}
