//! Kernels whose dense output's innermost row is updated in register blocks of
//! `sparse_core::register_block::WIDTHS` (16, then 8) coordinates, with the coordinates past the
//! last whole block in the original loop: rows of 0 to 41 components (no block, one of each
//! width, both, several, each with and without a remainder), empty rows, accumulation into
//! existing values, and a 3-tensor output. Integer
//! values, so every result is compared exactly with a dense reference; a float SpMM is
//! compared bit for bit with the sums in the order of the nonzeros.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn spmm(c: &mut Dense2<i64>, a: &Csr<i64>, b: &Dense2<i64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn spmm_f64(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    /// The block starts from the output's values.
    pub fn spmm_add(c: &mut Dense2<i64>, a: &Csr<i64>, b: &Dense2<i64>) {
        c(i, k) += a(i, j) * b(j, k)
    }
    /// The middle region co-iterates two rows (positions bound before its merge loop).
    pub fn union_times(c: &mut Dense2<i64>, a: &Csr<i64>, b: &Csr<i64>, d: &Dense2<i64>) {
        c(i, k) = (a(i, j) + b(i, j)) * d(j, k)
    }
    /// Blocks of the row `j` held across two sparse loops.
    pub fn mttkrp(a: &mut Dense2<i64>, b: &Csf3<i64>, c: &Dense2<i64>, d: &Dense2<i64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    /// The row's parent is a position of the output's middle level, not a coordinate.
    pub fn ttm(c: &mut Dense3<i64>, a: &Csf3<i64>, b: &Dense2<i64>) {
        c(i, j, k) = a(i, j, l) * b(l, k)
    }
}

/// Row lengths around the block widths (16, then 8): none, fewer than 8, one block of 8
/// with and without a remainder, one of 16, 16 and 8, two of 16, and remainders after each.
const ROWS: [usize; 13] = [0, 1, 7, 8, 9, 15, 16, 17, 24, 25, 32, 40, 41];

fn dense_values(shape: &[usize], seed: u64) -> Vec<i64> {
    let n: usize = shape.iter().product();
    (0..n as u64)
        .map(|x| ((x * 7 + seed * 13) % 11) as i64 - 5)
        .collect()
}

#[test]
fn spmm_rows_of_every_length_match_the_dense_product() {
    for (m, n) in [(0, 3), (1, 1), (5, 4), (9, 7)] {
        for p in ROWS {
            sweep(|density, seed| {
                let case = (m, n, p, density, seed);
                let ae = random_entries::<i64>(&[m, n], density, seed);
                let ad = DenseT::from_entries(&[m, n], &ae);
                let bv = dense_values(&[n, p], seed);
                let b = Dense2::from_vec(n, p, bv.clone()).unwrap();
                let a: Csr<i64> = build(&[m, n], &ae);
                let mut want = vec![0i64; m * p];
                for i in 0..m {
                    for k in 0..p {
                        want[i * p + k] = (0..n).map(|j| ad.get(&[i, j]) * bv[j * p + k]).sum();
                    }
                }
                let mut c = Dense2::from_vec(m, p, vec![3; m * p]).unwrap();
                spmm(&mut c, &a, &b).unwrap();
                assert_eq!(c.vals(), &want[..], "spmm {case:?}");

                let be = random_entries::<i64>(&[m, n], other_density(density, seed, 1), seed + 5);
                let bd = DenseT::from_entries(&[m, n], &be);
                let mut sum = vec![0i64; m * p];
                for i in 0..m {
                    for k in 0..p {
                        sum[i * p + k] = (0..n)
                            .map(|j| (ad.get(&[i, j]) + bd.get(&[i, j])) * bv[j * p + k])
                            .sum();
                    }
                }
                let mut c = Dense2::from_vec(m, p, vec![-4; m * p]).unwrap();
                union_times(&mut c, &a, &build(&[m, n], &be), &b).unwrap();
                assert_eq!(c.vals(), &sum[..], "union_times {case:?}");

                let start = dense_values(&[m, p], seed + 1);
                let mut c = Dense2::from_vec(m, p, start.clone()).unwrap();
                spmm_add(&mut c, &a, &b).unwrap();
                let added: Vec<i64> = start.iter().zip(&want).map(|(s, w)| s + w).collect();
                assert_eq!(c.vals(), &added[..], "spmm_add {case:?}");
            });
        }
    }
}

#[test]
fn float_spmm_adds_in_the_order_of_the_nonzeros() {
    for p in ROWS {
        sweep(|density, seed| {
            let (m, n) = (6, 9);
            let ae = random_entries::<f64>(&[m, n], density, seed);
            let a: Csr<f64> = build(&[m, n], &ae);
            let bv: Vec<f64> = (0..n * p).map(|x| (x as f64 * 0.37).sin()).collect();
            let b = Dense2::from_vec(n, p, bv.clone()).unwrap();
            let mut c = Dense2::zeros(m, p);
            spmm_f64(&mut c, &a, &b).unwrap();
            let (pos, crd) = (a.levels().1.pos(), a.levels().1.crd());
            for i in 0..m {
                for k in 0..p {
                    let mut want = 0.0f64;
                    for q in pos[i] as usize..pos[i + 1] as usize {
                        want += a.vals()[q] * bv[crd[q] as usize * p + k];
                    }
                    let got = c.vals()[i * p + k];
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "{:?}",
                        (p, density, seed, i, k)
                    );
                }
            }
        });
    }
}

#[test]
fn mttkrp_rows_of_every_length_match_the_dense_reference() {
    let [ni, nk, nl] = [4, 3, 5];
    for r in ROWS {
        sweep(|density, seed| {
            let be = random_entries::<i64>(&[ni, nk, nl], density, seed);
            let bd = DenseT::from_entries(&[ni, nk, nl], &be);
            let (cv, dv) = (
                dense_values(&[nk, r], seed),
                dense_values(&[nl, r], seed + 2),
            );
            let c = Dense2::from_vec(nk, r, cv.clone()).unwrap();
            let d = Dense2::from_vec(nl, r, dv.clone()).unwrap();
            let mut a = Dense2::from_vec(ni, r, vec![-1; ni * r]).unwrap();
            mttkrp(&mut a, &build(&[ni, nk, nl], &be), &c, &d).unwrap();
            let mut want = vec![0i64; ni * r];
            for i in 0..ni {
                for j in 0..r {
                    for k in 0..nk {
                        for l in 0..nl {
                            want[i * r + j] += bd.get(&[i, k, l]) * cv[k * r + j] * dv[l * r + j];
                        }
                    }
                }
            }
            assert_eq!(a.vals(), &want[..], "{:?}", (r, density, seed));
        });
    }
}

#[test]
fn a_three_tensor_output_blocks_its_last_mode() {
    let [ni, nj, nl] = [3, 4, 6];
    for p in ROWS {
        sweep(|density, seed| {
            let ae = random_entries::<i64>(&[ni, nj, nl], density, seed);
            let ad = DenseT::from_entries(&[ni, nj, nl], &ae);
            let bv = dense_values(&[nl, p], seed);
            let b = Dense2::from_vec(nl, p, bv.clone()).unwrap();
            let mut c = Dense3::from_vec(ni, nj, p, vec![9; ni * nj * p]).unwrap();
            ttm(&mut c, &build(&[ni, nj, nl], &ae), &b).unwrap();
            let mut want = vec![0i64; ni * nj * p];
            for i in 0..ni {
                for j in 0..nj {
                    for k in 0..p {
                        want[(i * nj + j) * p + k] =
                            (0..nl).map(|l| ad.get(&[i, j, l]) * bv[l * p + k]).sum();
                    }
                }
            }
            assert_eq!(c.vals(), &want[..], "{:?}", (p, density, seed));
        });
    }
}
