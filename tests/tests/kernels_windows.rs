//! Windows of operands (Henry et al. 2021, section 7.3): `a(i[lo..hi], j)` reads rows
//! `lo..hi` of `a` in place, `a(i, j[(lo..hi).step_by(s)])` every `s`-th column, against a
//! dense reference that copies the window out. Every window of the small shapes, empty ones
//! and ones at the edges included, over Csr, Coo, Dcsr and Dense2 operands.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// `(lo..hi).step_by(step)` of `0..n` as a list of coordinates.
fn window(lo: usize, hi: usize, step: usize) -> Vec<usize> {
    (lo..hi).step_by(step).collect()
}

/// The reference: `a` restricted to `rows` x `cols`.
fn sub(a: &DenseT<f64>, rows: &[usize], cols: &[usize]) -> DenseT<f64> {
    let mut out = DenseT::zeros(&[rows.len(), cols.len()]);
    for (i, &r) in rows.iter().enumerate() {
        for (j, &c) in cols.iter().enumerate() {
            out.set(&[i, j], a.get(&[r, c]));
        }
    }
    out
}

macro_rules! window_add {
    ($name:ident, [$($A:tt)*], [$($B:tt)*], [$($C:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                /// Rows `lo..hi` of `a`, every second column from `c0`, plus `b`.
                pub fn kernel(c: &mut $($C)*, a: &$($A)*, b: &$($B)*, lo: usize, hi: usize, c0: usize) {
                    c(i, j) = a(i[lo..hi], j[(c0..).step_by(2)]) + b(i, j)
                }
            }

            #[test]
            fn matches_reference() {
                // Every window of the small shapes; the large ones at a few.
                for shape in MATRIX_SHAPES {
                    let (m, n) = (shape[0], shape[1]);
                    let small = m * n <= 64;
                    sweep(|density, seed| {
                        let ae = random_entries::<f64>(&shape, density, case_seed(seed, &shape, 0));
                        let ad = DenseT::from_entries(&shape, &ae);
                        let a: $($A)* = build(&shape, &ae);
                        let los: Vec<usize> = if small { (0..=m).collect() } else { vec![0, 1, m / 2, m] };
                        let c0s: Vec<usize> = if small { (0..=n).collect() } else { vec![0, 1, n] };
                        for &lo in &los {
                            for hi in (lo..=m).filter(|&h| small || h == lo || h == m || h == lo + 1) {
                                for &c0 in &c0s {
                                    let rows = window(lo, hi, 1);
                                    let cols = window(c0, n, 2);
                                    let wshape = [rows.len(), cols.len()];
                                    let be = random_entries::<f64>(&wshape, other_density(density, seed, 1), case_seed(seed, &wshape, 1));
                                    let b: $($B)* = build(&wshape, &be);
                                    let mut want = sub(&ad, &rows, &cols);
                                    for (c, v) in &be {
                                        want.add(c, *v);
                                    }
                                    let mut c: $($C)* = build(&wshape, &[]);
                                    kernel(&mut c, &a, &b, lo, hi, c0).unwrap();
                                    let case = (shape, density, seed, lo, hi, c0);
                                    assert_close(&c.to_dense(), &want, f64::TOL, case);
                                    revalidate(&c);
                                }
                            }
                        }
                    });
                }
            }

            #[test]
            fn windows_past_the_mode_are_errors() {
                let a: $($A)* = build(&[3, 4], &[(vec![1, 1], 2.0)]);
                let b: $($B)* = build(&[2, 2], &[]);
                let mut c: $($C)* = build(&[2, 2], &[]);
                // Rows 2..4 of 3; rows 2..1; columns from 5 of 4.
                for (lo, hi, c0) in [(2, 4, 0), (2, 1, 0), (0, 2, 5)] {
                    let e = kernel(&mut c, &a, &b, lo, hi, c0).unwrap_err();
                    assert!(e.to_string().contains("window"), "{e}");
                }
                // A window of the right size but the other operand of another.
                let e = kernel(&mut c, &a, &b, 0, 3, 0).unwrap_err();
                assert!(e.to_string().contains("window `i[lo..hi]`"), "{e}");
            }
        }
    };
}

window_add!(csr_plus_coo_into_csr, [Csr<f64>], [Coo<f64>], [Csr<f64>]);
window_add!(coo_plus_csr_into_csr, [Coo<f64>], [Csr<f64>], [Csr<f64>]);
window_add!(
    dense_plus_csr_into_dense,
    [Dense2<f64>],
    [Csr<f64>],
    [Dense2<f64>]
);
window_add!(
    dcsr_plus_dense_into_dcsr,
    [Dcsr<f64>],
    [Dense2<f64>],
    [Dcsr<f64>]
);
window_add!(
    csc_plus_csr_into_dense,
    [Csc<f64>],
    [Csr<f64>],
    [Dense2<f64>]
);

sparse_kernel! {
    /// A strided window of a sparse vector times a dense one.
    fn strided_dot(s: &mut f64, a: &SparseVec<f64>, x: &Dense1<f64>) {
        s = a(i[(1..).step_by(3)]) * x(i)
    }

    /// SpMV over a window of rows and columns with constant bounds.
    fn window_spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i[1..4], j[2..7]) * x(j)
    }

    /// A window read through a function: `min` of two row windows of one matrix.
    fn min_of_windows(c: &mut Csr<f64>, #[fill(inf)] a: &Csr<f64>) {
        c(i, j) = min(a(i[0..2], j), a(i[2..4], j))
    }
}

#[test]
fn strided_and_constant_windows() {
    // A window starting past the end is an error.
    let mut s = 0.0;
    let e = strided_dot(&mut s, &build(&[0], &[]), &Dense1::zeros(0)).unwrap_err();
    assert!(e.to_string().contains("ends before it starts"), "{e}");
    for n in VECTOR_LENGTHS.into_iter().filter(|&n| n > 0) {
        sweep(|density, seed| {
            let ae = random_entries::<f64>(&[n], density, case_seed(seed, &[n], 2));
            let ad = DenseT::from_entries(&[n], &ae);
            let idx = window(1, n, 3);
            let (x, xd) = dense_vec(idx.len(), seed);
            let mut s = 0.0;
            strided_dot(&mut s, &build(&[n], &ae), &x).unwrap();
            let want: f64 = idx
                .iter()
                .enumerate()
                .map(|(k, &i)| ad.get(&[i]) * xd.get(&[k]))
                .sum();
            assert!(close(s, want, 1e-12), "{n} {density} {seed}: {s} vs {want}");
        });
    }
    sweep(|density, seed| {
        let shape = [6, 9];
        let ae = random_entries::<f64>(&shape, density, case_seed(seed, &shape, 3));
        let ad = DenseT::from_entries(&shape, &ae);
        let (x, xd) = dense_vec(5, seed);
        let mut y = Dense1::zeros(3);
        window_spmv(&mut y, &build(&shape, &ae), &x).unwrap();
        let want = matvec(&sub(&ad, &[1, 2, 3], &[2, 3, 4, 5, 6]), &xd);
        assert_close(y.vals(), &want, f64::TOL, (density, seed));
        let a: Csr<f64> = build::<f64, _, _>(&shape, &ae).with_fill(f64::INFINITY);
        let full = {
            let mut d = DenseT {
                shape: shape.to_vec(),
                data: vec![f64::INFINITY; 54],
            };
            for (c, v) in &ae {
                d.set(c, *v);
            }
            d
        };
        let mut c: Csr<f64> = build(&[2, 9], &[]);
        min_of_windows(&mut c, &a).unwrap();
        assert_eq!(c.fill(), f64::INFINITY);
        for i in 0..2 {
            for j in 0..9 {
                let want = full.get(&[i, j]).min(full.get(&[i + 2, j]));
                let got = c
                    .entries()
                    .into_iter()
                    .find(|(k, _)| k == &[i, j])
                    .map_or(f64::INFINITY, |e| e.1);
                assert_eq!(got, want, "({i}, {j}) {density} {seed}");
            }
        }
    });
}
