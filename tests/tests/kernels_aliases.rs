//! The column-major and order-4 aliases (`Dcsc`, `Csf4`) as inputs and outputs, against
//! a dense oracle; their stored patterns are exactly the oracle's nonzeros.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn add_dcsc(c: &mut Dcsc<f64>, a: &Csc<f64>, b: &Dcsc<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn scale_csf4(c: &mut Csf4<f64>, a: &Csf4<f64>, s: f64) {
        c(i, j, k, l) = s * a(i, j, k, l)
    }
    pub fn contract_csf4(c: &mut Csf3<f64>, a: &Csf4<f64>, x: &Dense1<f64>) {
        c(i, j, k) = a(i, j, k, l) * x(l)
    }
}

/// Every stored value of `t` is a nonzero of the oracle and every nonzero is stored.
fn assert_pattern<L: Levels, O: ModeOrder>(t: &Tensor<f64, L, O>, expected: &DenseT<f64>) {
    let stored: Vec<Vec<usize>> = t.entries().into_iter().map(|(c, _)| c).collect();
    let nonzeros: Vec<Vec<usize>> = coordinates(&expected.shape)
        .into_iter()
        .filter(|c| expected.get(c) != 0.0)
        .collect();
    let mut stored_sorted = stored.clone();
    stored_sorted.sort();
    assert_eq!(stored_sorted, nonzeros, "stored pattern");
}

#[test]
fn dcsc_sum_matches_oracle() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
            let be = random_entries(
                &shape,
                other_density(density, seed, 1),
                case_seed(seed, &shape, 1),
            );
            let a: Csc<f64> = build(&shape, &ae);
            let b: Dcsc<f64> = build(&shape, &be);
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let mut expected = DenseT::zeros(&shape);
            for c in coordinates(&shape) {
                expected.set(&c, ad.get(&c) + bd.get(&c));
            }
            let mut c: Dcsc<f64> = build(&shape, &nonzero_entries(&shape, seed));
            add_dcsc(&mut c, &a, &b).unwrap();
            assert_close(&c.to_dense(), &expected, f64::TOL, (shape, density, seed));
            assert_pattern(&c, &expected);
        });
    }
}

const TENSOR4_SHAPES: [[usize; 4]; 5] = [
    [0, 0, 0, 0],
    [1, 1, 1, 1],
    [2, 3, 1, 4],
    [3, 0, 2, 2],
    [4, 3, 2, 5],
];

#[test]
fn csf4_scale_and_contraction_match_oracle() {
    for shape in TENSOR4_SHAPES {
        sweep(|density, seed| {
            let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
            let xe = random_entries(&shape[3..], 1.0, case_seed(seed, &shape, 1));
            let a: Csf4<f64> = build(&shape, &ae);
            let x: Dense1<f64> = build(&shape[3..], &xe);
            let (ad, xd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape[3..], &xe),
            );

            let mut scaled = DenseT::zeros(&shape);
            for c in coordinates(&shape) {
                scaled.set(&c, 2.5 * ad.get(&c));
            }
            let mut c: Csf4<f64> = build(&shape, &nonzero_entries(&shape, seed));
            scale_csf4(&mut c, &a, 2.5).unwrap();
            assert_close(&c.to_dense(), &scaled, f64::TOL, (shape, density, seed));
            assert_pattern(&c, &scaled);

            let mut contracted = DenseT::zeros(&shape[..3]);
            for c in coordinates(&shape) {
                contracted.add(&c[..3], ad.get(&c) * xd.get(&c[3..]));
            }
            let mut t: Csf3<f64> = build(&shape[..3], &nonzero_entries(&shape[..3], seed));
            contract_csf4(&mut t, &a, &x).unwrap();
            assert_close(&t.to_dense(), &contracted, f64::TOL, (shape, density, seed));
        });
    }
}
