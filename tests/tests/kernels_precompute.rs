//! Precompute of loop-invariant factors (`sparse_core::precompute`): a summing loop multiplies
//! its sum by the factors that do not change in it once, after the loop. The results follow
//! that order exactly (in MTTKRP, in the columns of whole register blocks; the columns past
//! them run as written), so they are compared bit for bit with sums written in it; integer
//! kernels are summed as written (equal to the dense reference); `precompute(never)` keeps
//! the order as written; and a
//! loop that runs no iteration adds nothing, even when the moved factor is infinite (where
//! `inf * 0` would be NaN).
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn mttkrp(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    #[schedule(precompute(never))]
    pub fn mttkrp_as_written(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    pub fn mttkrp_i64(a: &mut Dense2<i64>, b: &Csf3<i64>, c: &Dense2<i64>, d: &Dense2<i64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    pub fn scaled_spmv(y: &mut Dense1<f64>, alpha: f64, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = alpha * a(i, j) * x(j)
    }
    #[schedule(compute(sddmm_values))]
    pub fn sddmm(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
}

/// Row lengths around the register block's and the strip's width (8).
const WIDTHS: [usize; 6] = [0, 1, 8, 9, 16, 17];

/// The entries of a `Csf3`, grouped: `(i, [(k, [(l, v)])])` in storage order.
type Fibers = Vec<(usize, Vec<(usize, Vec<(usize, f64)>)>)>;

fn fibers(b: &Csf3<f64>) -> Fibers {
    let mut out: Fibers = Vec::new();
    for (at, v) in b.entries() {
        let (i, k, l) = (at[0], at[1], at[2]);
        if out.last().is_none_or(|(last, _)| *last != i) {
            out.push((i, Vec::new()));
        }
        let ks = &mut out.last_mut().unwrap().1;
        if ks.last().is_none_or(|(last, _)| *last != k) {
            ks.push((k, Vec::new()));
        }
        ks.last_mut().unwrap().1.push((l, v));
    }
    out
}

#[test]
fn mttkrp_sums_each_fiber_then_multiplies_it_once() {
    let [di, dk, dl] = [4, 5, 6];
    for r in WIDTHS {
        sweep(|density, seed| {
            let be = random_entries::<f64>(&[di, dk, dl], density, seed);
            let b: Csf3<f64> = build(&[di, dk, dl], &be);
            let (cv, dv) = (wave(dk * r, seed), wave(dl * r, seed + 9));
            let c = Dense2::from_vec(dk, r, cv.clone()).unwrap();
            let d = Dense2::from_vec(dl, r, dv.clone()).unwrap();
            let mut a = Dense2::zeros(di, r);
            mttkrp(&mut a, &b, &c, &d).unwrap();
            let mut as_written = Dense2::zeros(di, r);
            mttkrp_as_written(&mut as_written, &b, &c, &d).unwrap();
            // Precomputed in the columns of whole register blocks (8 each): per fiber `(i, k)`,
            // `pre = sum_l b * d(l, j)`, then `a += c(k, j) * pre`; as written in the rest.
            let blocked = r / 8 * 8;
            let mut want = vec![0.0f64; di * r];
            let mut want_written = vec![0.0f64; di * r];
            for (i, ks) in fibers(&b) {
                for (k, ls) in ks {
                    for j in 0..r {
                        let pre = ls.iter().fold(0.0, |s, &(l, v)| s + v * dv[l * r + j]);
                        for &(l, v) in &ls {
                            let term = v * cv[k * r + j] * dv[l * r + j];
                            want_written[i * r + j] += term;
                            if j >= blocked {
                                want[i * r + j] += term;
                            }
                        }
                        if j < blocked {
                            want[i * r + j] += cv[k * r + j] * pre;
                        }
                    }
                }
            }
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            let case = (r, density, seed);
            assert_eq!(bits(a.vals()), bits(&want), "{case:?}");
            assert_eq!(bits(as_written.vals()), bits(&want_written), "{case:?}");
        });
    }
}

#[test]
fn integer_mttkrp_equals_the_dense_reference() {
    let [di, dk, dl] = [3, 4, 5];
    for r in WIDTHS {
        sweep(|density, seed| {
            let be = random_entries::<i64>(&[di, dk, dl], density, seed);
            let b: Csf3<i64> = build(&[di, dk, dl], &be);
            let small = |n: usize, s: u64| -> Vec<i64> {
                (0..n as u64)
                    .map(|x| ((x * 7 + s) % 11) as i64 - 5)
                    .collect()
            };
            let (cv, dv) = (small(dk * r, seed), small(dl * r, seed + 3));
            let c = Dense2::from_vec(dk, r, cv.clone()).unwrap();
            let d = Dense2::from_vec(dl, r, dv.clone()).unwrap();
            let mut a = Dense2::from_vec(di, r, vec![99; di * r]).unwrap();
            mttkrp_i64(&mut a, &b, &c, &d).unwrap();
            let mut want = vec![0i64; di * r];
            for (at, v) in &be {
                for j in 0..r {
                    want[at[0] * r + j] += v * cv[at[1] * r + j] * dv[at[2] * r + j];
                }
            }
            assert_eq!(a.vals(), &want[..], "{:?}", (r, density, seed));
        });
    }
}

/// A `Csf3` of shape `[2, 3, 2]` whose stored fiber `(0, 1)` holds no entry (a valid tensor:
/// segments may be empty), and one entry `(1, 2, 1) = 2`.
fn with_an_empty_fiber() -> Csf3<f64> {
    let i = Compressed::from_raw(2, vec![0, 2], vec![0, 1]).unwrap();
    let k = Compressed::from_raw(3, vec![0, 1, 2], vec![1, 2]).unwrap();
    let l = Compressed::from_raw(2, vec![0, 0, 1], vec![1]).unwrap();
    Csf3::from_levels(&[2, 3, 2], (i, k, l), vec![2.0]).unwrap()
}

#[test]
fn an_empty_fiber_adds_nothing_even_times_infinity() {
    let b = with_an_empty_fiber();
    for r in WIDTHS {
        // `c(1, :)`, the empty fiber's factor, is infinite.
        let mut cv = vec![1.5; 3 * r];
        cv[r..2 * r].fill(f64::INFINITY);
        let c = Dense2::from_vec(3, r, cv).unwrap();
        let d = Dense2::from_vec(2, r, vec![0.5; 2 * r]).unwrap();
        let mut a = Dense2::from_vec(2, r, vec![f64::NAN; 2 * r]).unwrap();
        mttkrp(&mut a, &b, &c, &d).unwrap();
        let mut want = vec![0.0; 2 * r];
        want[r..].fill(2.0 * 1.5 * 0.5);
        assert_eq!(a.vals(), &want[..], "r = {r}");
    }
}

#[test]
fn an_empty_row_adds_nothing_even_times_infinity() {
    // Row 1 stores nothing; row 0 stores (0, 1) = 2.
    let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0)]).unwrap();
    let x = Dense1::from_vec(vec![1.0, 3.0]);
    let mut y = Dense1::from_vec(vec![f64::NAN; 2]);
    scaled_spmv(&mut y, f64::INFINITY, &a, &x).unwrap();
    assert_eq!(y.vals(), &[f64::INFINITY, 0.0]);
    scaled_spmv(&mut y, 0.5, &a, &x).unwrap();
    assert_eq!(y.vals(), &[3.0, 0.0]);
}

#[test]
fn sddmm_multiplies_each_dot_product_once() {
    let (m, n) = (5, 6);
    for r in WIDTHS {
        sweep(|density, seed| {
            let SddmmCase {
                b, cv, dv, c, d, ..
            } = SddmmCase::new([m, n, r], density, seed);
            let mut a = Csr::<f64>::new(&[m, n]).unwrap();
            sddmm(&mut a, &b, &c, &d).unwrap();
            let mut values_only = a.clone();
            sddmm_values(&mut values_only, &b, &c, &d).unwrap();
            let want: Vec<(Vec<usize>, u64)> = b
                .entries()
                .into_iter()
                .filter(|_| r > 0)
                .map(|(at, v)| {
                    let (i, j) = (at[0], at[1]);
                    let products: Vec<f64> =
                        (0..r).map(|k| cv[i * r + k] * dv[j * r + k]).collect();
                    let dot = lane_order_sum(0.0, &products);
                    (at, (0.0 + v * dot).to_bits())
                })
                .collect();
            let bits = |t: &Csr<f64>| -> Vec<(Vec<usize>, u64)> {
                t.entries()
                    .into_iter()
                    .map(|(at, v)| (at, v.to_bits()))
                    .collect()
            };
            assert_eq!(bits(&a), want, "{:?}", (r, density, seed));
            assert_eq!(bits(&values_only), want, "{:?}", (r, density, seed));
        });
    }
}
