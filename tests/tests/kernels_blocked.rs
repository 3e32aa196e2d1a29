//! Block formats as kernel inputs, against a dense oracle: `Bcsr` (dense `R x C` blocks, the
//! remapped view `(I, J, i, j)`) and `Csb` (square blocks of COO pairs, block size chosen at
//! construction) in SpMV, transposed SpMV, SpMM, element-wise sums and products with other
//! formats into outputs written in place, and reductions. Block sizes 1 x 2, 2 x 3 and 3 x 3
//! (`Bcsr`), 1, 2, 4 and the default (`Csb`); shapes include empty and non-square matrices and
//! blocks cut by the matrix edge on either side; densities from empty to full.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_runtime::{Bcsr, Csb};
use sparse_tests::*;

const N: usize = 2;

sparse_kernel! {
    pub fn spmv_b33(y: &mut Dense1<f64>, a: &Bcsr<f64, 3, 3>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_b23(y: &mut Dense1<f64>, a: &Bcsr<f64, 2, 3, u64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    // The block size may be a const item: rustc checks it against the argument's type.
    pub fn spmv_b11(y: &mut Dense1<f64>, a: &Bcsr<f64, 1, N>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_t_b23(y: &mut Dense1<f64>, a: &Bcsr<f64, 2, 3, u64>, x: &Dense1<f64>) {
        y(j) = a(i, j) * x(i)
    }
    pub fn spmm_b33(c: &mut Dense2<f64>, a: &Bcsr<f64, 3, 3>, b: &Dense2<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn add_b33_csr(c: &mut Dense2<f64>, a: &Bcsr<f64, 3, 3>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn mul_b23_csr_hm(c: &mut HashMat<f64>, a: &Bcsr<f64, 2, 3, u64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    pub fn add_b33_dia_hm(c: &mut HashMat<f64>, a: &Bcsr<f64, 3, 3>, b: &Dia<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn sum_b33(s: &mut f64, a: &Bcsr<f64, 3, 3>) {
        s = a(i, j)
    }
    // Hidden block sums stay inside their access: `x(i)` is added once, not once per block.
    pub fn spmv_csb(y: &mut Dense1<f64>, a: &Csb<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_t_csb(y: &mut Dense1<f64>, a: &Csb<f64, u64>, x: &Dense1<f64>) {
        y(j) = a(i, j) * x(i)
    }
    pub fn add_csb_csr(c: &mut Dense2<f64>, a: &Csb<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn mul_csb_bcsr_hm(c: &mut HashMat<f64>, a: &Csb<f64>, b: &Bcsr<f64, 2, 3, u64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    pub fn sum_csb(s: &mut f64, a: &Csb<f64, u64>) {
        s = a(i, j)
    }
    pub fn residual_b23(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Bcsr<f64, 2, 3, u64>, x: &Dense1<f64>) {
        r(i) = b(i) - a(i, j) * x(j)
    }
}

/// Shapes with blocks cut by the edge and shapes every block size divides (`[6, 9]` for all
/// three `Bcsr` block sizes, `[4, 6]` for 2 x 3 and 1 x 2): kernels run a version of their
/// loops without per-block tests when no block is cut.
const SHAPES: [[usize; 2]; 10] = [
    [0, 0],
    [0, 4],
    [3, 0],
    [1, 1],
    [3, 5],
    [5, 3],
    [4, 6],
    [6, 9],
    [7, 8],
    [17, 9],
];

fn transposed_matvec(a: &DenseT<f64>, x: &DenseT<f64>) -> DenseT<f64> {
    let mut y = DenseT::zeros(&[a.dim(1)]);
    for c in coordinates(&a.shape) {
        y.add(&[c[1]], a.get(&c) * x.get(&[c[0]]));
    }
    y
}

#[test]
fn bcsr_products_match_oracle() {
    for shape in SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = operand_entries(shape, density, seed, 0);
            let ad = DenseT::from_entries(&shape, &ae);
            let a33 = Bcsr::<f64, 3, 3>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let a23 = Bcsr::<f64, 2, 3, u64>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let a11 = Bcsr::<f64, 1, N>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let (x, xd) = dense_vec(shape[1], seed);
            let (xt, xtd) = dense_vec(shape[0], seed + 1);
            let stale = nonzero_entries(&[shape[0]], seed);
            let mut y: Dense1<f64> = build(&[shape[0]], &stale);
            spmv_b33(&mut y, &a33, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
            let mut y: Dense1<f64> = build(&[shape[0]], &stale);
            spmv_b23(&mut y, &a23, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
            let mut y: Dense1<f64> = build(&[shape[0]], &stale);
            spmv_b11(&mut y, &a11, &x).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
            let mut yt: Dense1<f64> = build(&[shape[1]], &nonzero_entries(&[shape[1]], seed));
            spmv_t_b23(&mut yt, &a23, &xt).unwrap();
            assert_close(yt.vals(), &transposed_matvec(&ad, &xtd), f64::TOL, case);

            let (b, r) = (
                dense_vec(shape[0], seed + 2),
                &mut build(&[shape[0]], &stale),
            );
            residual_b23(r, &b.0, &a23, &x).unwrap();
            let ax = matvec(&ad, &xd);
            let mut want = DenseT::zeros(&[shape[0]]);
            for i in 0..shape[0] {
                want.set(&[i], b.1.get(&[i]) - ax.get(&[i]));
            }
            assert_close(r.vals(), &want, f64::TOL, case);

            let k = 3;
            let be = nonzero_entries(&[shape[1], k], seed);
            let (bm, bmd): (Dense2<f64>, _) = (
                build(&[shape[1], k], &be),
                DenseT::from_entries(&[shape[1], k], &be),
            );
            let mut c: Dense2<f64> = build(&[shape[0], k], &nonzero_entries(&[shape[0], k], seed));
            spmm_b33(&mut c, &a33, &bm).unwrap();
            let mut want = DenseT::zeros(&[shape[0], k]);
            for (ij, v) in &ae {
                for l in 0..k {
                    want.add(&[ij[0], l], v * bmd.get(&[ij[1], l]));
                }
            }
            assert_close(c.vals(), &want, f64::TOL, case);

            let mut s = 7.0;
            sum_b33(&mut s, &a33).unwrap();
            assert_scalar_close(s, ae.iter().map(|(_, v)| v).sum(), f64::TOL, case);
        });
    }
}

#[test]
fn bcsr_elementwise_matches_oracle() {
    for shape in SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = operand_entries(shape, density, seed, 0);
            let be = operand_entries(shape, density, seed, 1);
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let a33 = Bcsr::<f64, 3, 3>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let a23 = Bcsr::<f64, 2, 3, u64>::from_entries(&shape, ae.iter().cloned()).unwrap();
            let b_csr: Csr<f64> = build(&shape, &be);
            let b_dia = Dia::<f64>::from_entries(&shape, be.iter().cloned()).unwrap();
            let garbage = nonzero_entries(&shape, seed);
            let mut c: Dense2<f64> = build(&shape, &garbage);
            add_b33_csr(&mut c, &a33, &b_csr).unwrap();
            assert_close(
                c.vals(),
                &elementwise(&ad, &bd, |x, y| x + y),
                f64::TOL,
                case,
            );

            let mut h: HashMat<f64> = build(&shape, &garbage);
            mul_b23_csr_hm(&mut h, &a23, &b_csr).unwrap();
            assert_close(
                &h.to_dense(),
                &elementwise(&ad, &bd, |x, y| x * y),
                f64::TOL,
                case,
            );
            revalidate(&h);
            // Stored where both store: the block's explicit zeros meet b's entries too.
            let in_block: std::collections::BTreeSet<_> =
                a23.entries().into_iter().map(|(c, _)| c).collect();
            let both = be.iter().filter(|(c, _)| in_block.contains(c)).count();
            assert_eq!(h.nnz(), both, "{case:?}");

            add_b33_dia_hm(&mut h, &a33, &b_dia).unwrap();
            assert_close(
                &h.to_dense(),
                &elementwise(&ad, &bd, |x, y| x + y),
                f64::TOL,
                case,
            );
            revalidate(&h);
        });
    }
}

/// Mismatched shapes are an `Err` naming the modes, never a read out of bounds.
#[test]
fn bcsr_shape_mismatch_is_an_error() {
    let a = Bcsr::<f64, 3, 3>::from_entries(&[4, 5], [([3, 4], 1.0)]).unwrap();
    let x = Dense1::<f64>::zeros(4);
    let mut y = Dense1::<f64>::zeros(4);
    let e = spmv_b33(&mut y, &a, &x).unwrap_err().to_string();
    assert!(e.contains("index variable `j`"), "{e}");
    let x = Dense1::<f64>::zeros(5);
    let mut y = Dense1::<f64>::zeros(5);
    assert!(spmv_b33(&mut y, &a, &x).is_err());
}

/// Blocks cut by the matrix edge carry zeros outside the matrix in `vals`; kernels never visit
/// them, so a NaN placed there by raw arrays could not leak in. (Raw arrays must hold zeros
/// there; this checks that even the values a kernel reads are only the matrix's.)
#[test]
fn bcsr_edge_blocks_are_clipped() {
    // 5 x 4 matrix of 3 x 3 blocks: block (1, 1) covers rows 3..5 and columns 3..4 only.
    let mut vals = vec![0.0; 9];
    vals[0] = 2.0; // (3, 3)
    vals[3] = 5.0; // (4, 3)
    let a = Bcsr::<f64, 3, 3>::from_bsr_arrays(5, 4, vec![0, 0, 1], vec![1], vals).unwrap();
    let x = Dense1::from_vec(vec![1.0, 1.0, 1.0, 10.0]);
    let mut y = Dense1::zeros(5);
    spmv_b33(&mut y, &a, &x).unwrap();
    assert_eq!(y.vals(), &[0.0, 0.0, 0.0, 20.0, 50.0]);
}

#[test]
fn csb_matches_oracle() {
    for shape in SHAPES {
        sweep(|density, seed| {
            let ae = operand_entries(shape, density, seed, 0);
            let be = operand_entries(shape, density, seed, 1);
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let b_csr: Csr<f64> = build(&shape, &be);
            let b_bcsr = Bcsr::<f64, 2, 3, u64>::from_entries(&shape, be.iter().cloned()).unwrap();
            let (x, xd) = dense_vec(shape[1], seed);
            let (xt, xtd) = dense_vec(shape[0], seed + 1);
            let garbage = nonzero_entries(&shape, seed);
            for block in [None, Some(1), Some(2), Some(4)] {
                let case = (shape, density, seed, block);
                let a: Csb<f64> = match block {
                    None => Csb::from_entries(&shape, ae.iter().cloned()),
                    Some(b) => Csb::from_entries_with_block(&shape, b, ae.iter().cloned()),
                }
                .unwrap();
                let at = Csb::<f64, u64>::from_entries_with_block(
                    &shape,
                    a.block_size(),
                    ae.iter().cloned(),
                )
                .unwrap();
                let mut y: Dense1<f64> = build(&[shape[0]], &nonzero_entries(&[shape[0]], seed));
                spmv_csb(&mut y, &a, &x).unwrap();
                assert_close(y.vals(), &matvec(&ad, &xd), f64::TOL, case);
                let mut yt: Dense1<f64> = build(&[shape[1]], &nonzero_entries(&[shape[1]], seed));
                spmv_t_csb(&mut yt, &at, &xt).unwrap();
                assert_close(yt.vals(), &transposed_matvec(&ad, &xtd), f64::TOL, case);

                let mut c: Dense2<f64> = build(&shape, &garbage);
                add_csb_csr(&mut c, &a, &b_csr).unwrap();
                assert_close(
                    c.vals(),
                    &elementwise(&ad, &bd, |x, y| x + y),
                    f64::TOL,
                    case,
                );
                let mut h: HashMat<f64> = build(&shape, &garbage);
                mul_csb_bcsr_hm(&mut h, &a, &b_bcsr).unwrap();
                assert_close(
                    &h.to_dense(),
                    &elementwise(&ad, &bd, |x, y| x * y),
                    f64::TOL,
                    case,
                );
                revalidate(&h);

                let mut s = 7.0;
                sum_csb(&mut s, &at).unwrap();
                assert_scalar_close(s, ae.iter().map(|(_, v)| v).sum(), f64::TOL, case);
            }
        });
    }
}
