//! Outputs appended into room reserved from their entry bound (`sparse-core/src/bounded.rs`):
//! one output reused across calls whose inputs grow and shrink (the room is reserved anew
//! from each call's operands, whatever the output held), for Csr, Coo and Dcsr outputs (a
//! Dcsr's row level has no bound and still pushes) and a bound that is a minimum (a product
//! of a sum), each on the serial path and with the kernel's default schedule, against a
//! dense oracle, and revalidated.
#![deny(warnings)]

use sparse_runtime::parallel::with_min_rows;
use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    fn add_csr(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    fn add_coo(c: &mut Coo<f64>, a: &Csr<f64>, b: &Coo<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    fn add_dcsr(c: &mut Dcsr<f64>, a: &Dcsr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    fn scaled_sum(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>, d: &Csr<f64>) {
        c(i, j) = a(i, j) * (b(i, j) + d(i, j))
    }
}

/// The shapes and densities of consecutive calls into one output: growing, shrinking,
/// empty, and full.
const CALLS: [([usize; 2], f64); 6] = [
    ([40, 30], 0.2),
    ([300, 200], 0.05),
    ([3, 2], 0.5),
    ([0, 5], 0.5),
    ([50, 50], 1.0),
    ([120, 7], 0.3),
];

fn oracle(shape: [usize; 2], e: &Entries<f64>) -> DenseT<f64> {
    DenseT::from_entries(&shape, e)
}

/// Runs `check(shape, a, b, d, case)` for every call, serially and with the default schedule.
fn calls(mut check: impl FnMut([usize; 2], &Entries<f64>, &Entries<f64>, &Entries<f64>, &str)) {
    for serial in [true, false] {
        for (n, &(shape, density)) in CALLS.iter().enumerate() {
            let seed = 70 + n as u64;
            let [a, b, d] = [0, 1, 2].map(|k| operand_entries(shape, density, seed, k));
            let case = format!("call {n} on {shape:?}, serial {serial}");
            match serial {
                true => with_min_rows(usize::MAX, || check(shape, &a, &b, &d, &case)),
                false => check(shape, &a, &b, &d, &case),
            }
        }
    }
}

/// Each output first holds a full matrix (stale entries, and arrays larger than the call
/// needs), then the call's sum.
#[test]
fn sums_into_reused_outputs() {
    let sum = |shape: [usize; 2], a: &Entries<f64>, b: &Entries<f64>| {
        elementwise(&oracle(shape, a), &oracle(shape, b), |x, y| x + y)
    };
    calls(|shape, a, b, _, case| {
        let want = sum(shape, a, b);
        let full = operand_entries(shape, 1.0, 5, 0);
        let (a, b, full) = (build(&shape, a), build(&shape, b), build(&shape, &full));
        let mut csr = Csr::<f64>::new(&shape).unwrap();
        add_csr(&mut csr, &full, &full).unwrap();
        add_csr(&mut csr, &a, &b).unwrap();
        assert_close(&csr.to_dense(), &want, 1e-12, (case, "csr"));
        revalidate(&csr);
        let (b_coo, full_coo): (Coo<f64>, Coo<f64>) =
            (b.convert().unwrap(), full.convert().unwrap());
        let mut coo = Coo::<f64>::new(&shape).unwrap();
        add_coo(&mut coo, &full, &full_coo).unwrap();
        add_coo(&mut coo, &a, &b_coo).unwrap();
        assert_close(&coo.to_dense(), &want, 1e-12, (case, "coo"));
        revalidate(&coo);
        let (a_dcsr, full_dcsr): (Dcsr<f64>, Dcsr<f64>) =
            (a.convert().unwrap(), full.convert().unwrap());
        let mut dcsr = Dcsr::<f64>::new(&shape).unwrap();
        add_dcsr(&mut dcsr, &full_dcsr, &full).unwrap();
        add_dcsr(&mut dcsr, &a_dcsr, &b).unwrap();
        assert_close(&dcsr.to_dense(), &want, 1e-12, (case, "dcsr"));
        revalidate(&dcsr);
    });
}

/// A bound that is a minimum (`a * (b + d)` stores at most `a`'s entries), into one output
/// called twice per shape.
#[test]
fn a_minimum_bound_into_an_output_called_twice() {
    let mut c = Csr::<f64>::new(&[0, 0]).unwrap();
    let mut shape_now = [0, 0];
    calls(|shape, a, b, d, case| {
        if shape != shape_now {
            c = Csr::new(&shape).unwrap();
            shape_now = shape;
        }
        for _ in 0..2 {
            scaled_sum(
                &mut c,
                &build(&shape, a),
                &build(&shape, b),
                &build(&shape, d),
            )
            .unwrap();
            let bd = elementwise(&oracle(shape, b), &oracle(shape, d), |x, y| x + y);
            let want = elementwise(&oracle(shape, a), &bd, |x, y| x * y);
            assert_close(&c.to_dense(), &want, 1e-12, case);
            revalidate(&c);
            assert!(
                c.nnz() <= a.len(),
                "{case}: a product has at most a's entries"
            );
        }
    });
}
