//! Compute-only variants over an output whose first level is dense and whose second has a
//! `pos` array (CSR) run their rows in parallel (`parallel_segments`): each task stores the
//! values of its rows into their slice from its own counter. Split at every row, at every few
//! rows, and by default (by values), the values equal the serial variant's bit for bit, on
//! matrices with empty rows, rows of one entry and empty matrices; a task that would store
//! past its rows is an `Err`, not a write into another task's values.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    #[schedule(compute(sddmm_values))]
    pub fn sddmm(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
    #[schedule(compute(sddmm_values_serial), parallel(never))]
    pub fn sddmm_serial(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
    #[schedule(compute(add_values))]
    pub fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    #[schedule(compute(add_values_serial), parallel(never))]
    pub fn add_serial(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
}

#[test]
fn sddmm_values_split_by_rows_are_the_serial_values() {
    for [m, n, r] in [[0, 0, 3], [1, 1, 1], [7, 5, 3], [30, 12, 17]] {
        sweep(|density, seed| {
            let mut s = SddmmCase::new([m, n, r], density, seed);
            let mut serial = Csr::<f64>::new(&[m, n]).unwrap();
            sddmm_serial(&mut serial, &s.b, &s.c, &s.d).unwrap();
            // New values in the pattern, then the serial variant's values as the reference.
            let s2 = SddmmCase::new([m, n, r], density, seed + 100);
            let fresh = wave(s.b.nnz(), seed + 7);
            s.b.vals_mut().copy_from_slice(&fresh);
            let b2 = &s.b;
            sddmm_values_serial(&mut serial, b2, &s2.c, &s2.d).unwrap();
            for min in SPLITS {
                let mut a = Csr::<f64>::new(&[m, n]).unwrap();
                sddmm(&mut a, b2, &s.c, &s.d).unwrap();
                a.vals_mut().fill(f64::NAN);
                with_split(min, || sddmm_values(&mut a, b2, &s2.c, &s2.d)).unwrap();
                let case = ([m, n, r], density, seed, min);
                assert_eq!(float_bits(a.vals()), float_bits(serial.vals()), "{case:?}");
                assert_eq!(stored(&a), stored(&serial), "{case:?}");
            }
        });
    }
}

#[test]
fn add_values_split_by_rows_are_the_serial_values() {
    for [m, n] in [[0, 4], [1, 1], [9, 6], [40, 10]] {
        sweep(|density, seed| {
            let ae = operand_entries([m, n], density, seed, 0);
            let be = operand_entries([m, n], density, seed, 1);
            let (a, b): (Csr<f64>, Csr<f64>) = (build(&[m, n], &ae), build(&[m, n], &be));
            let mut want = Csr::<f64>::new(&[m, n]).unwrap();
            add_serial(&mut want, &a, &b).unwrap();
            add_values_serial(&mut want, &a, &b).unwrap();
            let mut oracle = DenseT::from_entries(&[m, n], &ae);
            be.iter().for_each(|(c, v)| oracle.add(c, *v));
            assert_close(&want.to_dense(), &oracle, 1e-12, (m, n, density, seed));
            for min in SPLITS {
                let mut c = Csr::<f64>::new(&[m, n]).unwrap();
                add(&mut c, &a, &b).unwrap();
                c.vals_mut().fill(f64::NAN);
                with_split(min, || add_values(&mut c, &a, &b)).unwrap();
                let case = ([m, n], density, seed, min);
                assert_eq!(float_bits(c.vals()), float_bits(want.vals()), "{case:?}");
            }
        });
    }
}

/// The default split balances values: one row holding most of them among many light rows
/// still gives the serial values.
#[test]
fn a_heavy_row_among_light_ones() {
    let (m, n) = (3000, 9000);
    let mut entries: Entries<f64> = (0..n).map(|j| (vec![7, j], 1.0 + j as f64)).collect();
    entries.extend(
        (0..m)
            .filter(|&i| i != 7)
            .map(|i| (vec![i, (i * 31) % n], 0.5)),
    );
    let a: Csr<f64> = build(&[m, n], &entries);
    let mut want = Csr::<f64>::new(&[m, n]).unwrap();
    add_serial(&mut want, &a, &a).unwrap();
    let mut c = Csr::<f64>::new(&[m, n]).unwrap();
    add(&mut c, &a, &a).unwrap();
    c.vals_mut().fill(0.0);
    add_values(&mut c, &a, &a).unwrap();
    assert_eq!(float_bits(c.vals()), float_bits(want.vals()));
}
