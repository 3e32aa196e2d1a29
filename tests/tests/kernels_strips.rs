//! Innermost dense loops run in strips of `sparse_core::strip_mine::STRIP` (8) iterations and a
//! remainder: float sums over 0 to 41 terms (none, one or several strips, with and without a
//! remainder) add their whole strips' terms into a partial sum per lane and then the remainder
//! in order (`sparse_core::lane_sums`), bit for bit, or in index order under
//! `precompute(never)`; a sum of negative zeros keeps the sign the in-order sum gives it; and
//! an early exit (`any`) still stops where it did.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn dot(s: &mut f64, x: &Dense1<f64>, y: &Dense1<f64>) {
        s = x(i) * y(i)
    }
    #[schedule(precompute(never))]
    pub fn dot_in_order(s: &mut f64, x: &Dense1<f64>, y: &Dense1<f64>) {
        s = x(i) * y(i)
    }
    // Summed as written (`tests/kernels_precompute.rs` has the precomputed order).
    #[schedule(precompute(never))]
    pub fn sddmm(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
    pub fn any_row(y: &mut Dense1<u8>, a: &Dense2<u8>) {
        y(i) = any[j](a(i, j))
    }
}

const LENGTHS: [usize; 13] = [0, 1, 7, 8, 9, 15, 16, 17, 24, 25, 32, 40, 41];

#[test]
fn a_dot_product_adds_in_lanes_then_in_order() {
    for n in LENGTHS {
        let (xv, yv) = (wave(n, 1), wave(n, 2));
        let (x, y) = (Dense1::from_vec(xv.clone()), Dense1::from_vec(yv.clone()));
        let products: Vec<f64> = xv.iter().zip(&yv).map(|(a, b)| a * b).collect();
        let mut s = 7.0;
        dot(&mut s, &x, &y).unwrap();
        let want = lane_order_sum(0.0, &products);
        assert_eq!(s.to_bits(), want.to_bits(), "n = {n}");
        dot_in_order(&mut s, &x, &y).unwrap();
        let want = products.iter().fold(0.0f64, |t, p| t + p);
        assert_eq!(s.to_bits(), want.to_bits(), "n = {n}");
    }
}

#[test]
fn a_sum_of_negative_zeros_is_the_in_order_sum() {
    // Every product is `-0.0`; the sum starts at `+0.0`, so in index order it is `+0.0`. The
    // partial sums start at `-0.0`, the one value that leaves whatever it is added to as it
    // was, so splitting the sum cannot change that sign.
    for n in LENGTHS {
        let (x, y) = (
            Dense1::from_vec(vec![-0.0; n]),
            Dense1::from_vec(vec![1.0; n]),
        );
        let mut s = 7.0;
        dot(&mut s, &x, &y).unwrap();
        assert_eq!(s.to_bits(), 0.0f64.to_bits(), "n = {n}");
    }
}

#[test]
fn sddmm_sums_each_entry_in_index_order() {
    let (m, n) = (5, 6);
    for r in LENGTHS {
        sweep(|density, seed| {
            let SddmmCase {
                b, cv, dv, c, d, ..
            } = SddmmCase::new([m, n, r], density, seed);
            let mut a = Csr::<f64>::new(&[m, n]).unwrap();
            sddmm(&mut a, &b, &c, &d).unwrap();
            let want: Vec<(Vec<usize>, f64)> = b
                .entries()
                .into_iter()
                .filter(|_| r > 0)
                .map(|(at, v)| {
                    let (i, j) = (at[0], at[1]);
                    let t = (0..r).fold(0.0f64, |t, k| t + v * cv[i * r + k] * dv[j * r + k]);
                    (at, t)
                })
                .collect();
            let got = a.entries();
            assert_eq!(got.len(), want.len(), "{:?}", (r, density, seed));
            for ((gc, gv), (wc, wv)) in got.iter().zip(&want) {
                assert_eq!(
                    (gc, gv.to_bits()),
                    (wc, wv.to_bits()),
                    "{:?}",
                    (r, density, seed)
                );
            }
        });
    }
}

#[test]
fn an_early_exit_inside_a_strip_gives_the_same_answer() {
    for n in LENGTHS {
        for hit in 0..=n {
            // Row 0 has its only `true` at `hit` (none when `hit == n`); row 1 is all false.
            let mut av = vec![0u8; 2 * n];
            if hit < n {
                av[hit] = 1;
            }
            let a = Dense2::from_vec(2, n, av).unwrap();
            let mut y = Dense1::from_vec(vec![5u8, 5]);
            any_row(&mut y, &a).unwrap();
            assert_eq!(y.vals(), &[u8::from(hit < n), 0], "n = {n}, hit = {hit}");
        }
    }
}
