//! Parallel loops over the positions of a sparse root level whose coordinates are a dense
//! output's rows (`parallel_positions`): SpMV on a `Dcsr` and a `Coo`, MTTKRP on a `Csf3`
//! and a `Coo3` (whose roots are not unique: a row's positions stay in one task). Each task owns the
//! rows from its first position's coordinate to the next task's, so the rows no position
//! names (empty rows) are filled by the task around them. Split at every position, at every
//! few, and by default, the results equal the serial kernel's bit for bit and the dense
//! reference; an output that is added to keeps its rows that no position names.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn spmv(y: &mut Dense1<f64>, a: &Dcsr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    #[schedule(parallel(never))]
    pub fn spmv_serial(y: &mut Dense1<f64>, a: &Dcsr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_add(y: &mut Dense1<i64>, a: &Dcsr<i64>, x: &Dense1<i64>) {
        y(i) += a(i, j) * x(j)
    }
    // A `Coo`'s root is not unique: a task must start where a row's positions start.
    pub fn spmv_coo(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    #[schedule(parallel(never))]
    pub fn spmv_coo_serial(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn mttkrp_coo(a: &mut Dense2<f64>, b: &Coo3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    #[schedule(parallel(never))]
    pub fn mttkrp_coo_serial(a: &mut Dense2<f64>, b: &Coo3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    pub fn mttkrp(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    #[schedule(parallel(never))]
    pub fn mttkrp_serial(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    pub fn ttv_sum(y: &mut Dense1<f64>, b: &Csf3<f64>, x: &Dense1<f64>) {
        y(i) = b(i, j, k) * x(k)
    }
    #[schedule(parallel(never))]
    pub fn ttv_sum_serial(y: &mut Dense1<f64>, b: &Csf3<f64>, x: &Dense1<f64>) {
        y(i) = b(i, j, k) * x(k)
    }
}

/// A few heavy slices (48 of about 1000 entries each: fewer than one task's 4096 rows of
/// one component) are split by the entries they read, by default, on pools of 1 to 3
/// threads: each task's rows as the serial kernel computes them, bit for bit.
#[test]
fn heavy_slices_split_by_their_entries() {
    let [di, dj, dk] = [48, 40, 50];
    let be = random_entries::<f64>(&[di, dj, dk], 0.5, 17);
    let b: Csf3<f64> = build(&[di, dj, dk], &be);
    let x = Dense1::from_vec(wave(dk, 3));
    let mut want = Dense1::from_vec(vec![f64::NAN; di]);
    ttv_sum_serial(&mut want, &b, &x).unwrap();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut y = Dense1::from_vec(vec![f64::NAN; di]);
        pool.install(|| ttv_sum(&mut y, &b, &x)).unwrap();
        assert_eq!(float_bits(y.vals()), float_bits(want.vals()), "{threads}");
    }
}

type Spmv<A> = fn(&mut Dense1<f64>, &A, &Dense1<f64>) -> Result<(), Error>;

/// SpMV over a sparse root (rows `n` of 5 columns) under every split, against the serial
/// kernel bit for bit and the dense reference, into an output pre-filled with NaN.
fn spmv_in_parallel<L: Levels, O: ModeOrder>(
    parallel: Spmv<Tensor<f64, L, O>>,
    serial_kernel: Spmv<Tensor<f64, L, O>>,
) {
    for n in [0, 1, 2, 7, 30] {
        sweep(|density, seed| {
            let entries = random_entries::<f64>(&[n, 5], density, seed);
            let a: Tensor<f64, L, O> = build(&[n, 5], &entries);
            let xv: Vec<f64> = (0..5).map(|j| 0.5 + j as f64).collect();
            let x = Dense1::from_vec(xv.clone());
            let mut serial = Dense1::from_vec(vec![f64::NAN; n]);
            serial_kernel(&mut serial, &a, &x).unwrap();
            let mut want = vec![0.0; n];
            for (at, v) in &entries {
                want[at[0]] += v * xv[at[1]];
            }
            for (s, w) in serial.vals().iter().zip(&want) {
                assert!(
                    (s - w).abs() <= 1e-12 * (1.0 + w.abs()),
                    "{:?}",
                    (n, density, seed)
                );
            }
            for min in SPLITS {
                let mut y = Dense1::from_vec(vec![f64::NAN; n]);
                with_split(min, || parallel(&mut y, &a, &x)).unwrap();
                assert_eq!(
                    float_bits(y.vals()),
                    float_bits(serial.vals()),
                    "{:?}",
                    (n, min, density, seed)
                );
            }
        });
    }
}

#[test]
fn dcsr_spmv_fills_the_rows_between_positions() {
    spmv_in_parallel(spmv, spmv_serial);
}

#[test]
fn coo_spmv_keeps_each_row_in_one_task() {
    spmv_in_parallel(spmv_coo, spmv_coo_serial);
}

#[test]
fn an_added_output_keeps_the_rows_no_position_names() {
    let n = 40;
    sweep(|density, seed| {
        let entries = random_entries::<i64>(&[n, 6], density, seed);
        let a: Dcsr<i64> = build(&[n, 6], &entries);
        let xv: Vec<i64> = (0..6).map(|j| j as i64 - 2).collect();
        let x = Dense1::from_vec(xv.clone());
        let start: Vec<i64> = (0..n as i64).map(|i| 1000 * i).collect();
        let mut want = start.clone();
        for (at, v) in &entries {
            want[at[0]] += v * xv[at[1]];
        }
        for min in SPLITS {
            let mut y = Dense1::from_vec(start.clone());
            with_split(min, || spmv_add(&mut y, &a, &x)).unwrap();
            assert_eq!(y.vals(), &want[..], "{:?}", (min, density, seed));
        }
    });
}

type Mttkrp<B> = fn(&mut Dense2<f64>, &B, &Dense2<f64>, &Dense2<f64>) -> Result<(), Error>;

#[test]
fn mttkrp_on_csf_runs_slices_in_parallel() {
    mttkrp_in_parallel(mttkrp, mttkrp_serial);
}

#[test]
fn mttkrp_on_coo_keeps_each_slice_in_one_task() {
    mttkrp_in_parallel(mttkrp_coo, mttkrp_coo_serial);
}

/// MTTKRP of rank 0, 3, 8, 11 and 19 (register blocks of 16 and 8, and what remains) under every split, against the serial kernel bit for bit
/// and the dense reference.
fn mttkrp_in_parallel<L: Levels, O: ModeOrder>(
    parallel: Mttkrp<Tensor<f64, L, O>>,
    serial_kernel: Mttkrp<Tensor<f64, L, O>>,
) {
    let [di, dk, dl] = [9, 4, 5];
    for r in [0, 3, 8, 11, 19] {
        sweep(|density, seed| {
            let be = random_entries::<f64>(&[di, dk, dl], density, seed);
            let b: Tensor<f64, L, O> = build(&[di, dk, dl], &be);
            let cv: Vec<f64> = (0..dk * r).map(|x| (x as f64 * 0.37).sin()).collect();
            let dv: Vec<f64> = (0..dl * r).map(|x| (x as f64 * 0.91).cos()).collect();
            let c = Dense2::from_vec(dk, r, cv.clone()).unwrap();
            let d = Dense2::from_vec(dl, r, dv.clone()).unwrap();
            let mut serial = Dense2::from_vec(di, r, vec![f64::NAN; di * r]).unwrap();
            serial_kernel(&mut serial, &b, &c, &d).unwrap();
            let mut want = vec![0.0; di * r];
            for (at, v) in &be {
                for j in 0..r {
                    want[at[0] * r + j] += v * cv[at[1] * r + j] * dv[at[2] * r + j];
                }
            }
            for (s, w) in serial.vals().iter().zip(&want) {
                assert!(
                    (s - w).abs() <= 1e-9 * (1.0 + w.abs()),
                    "{:?}",
                    (r, density, seed)
                );
            }
            for min in SPLITS {
                let mut a = Dense2::from_vec(di, r, vec![f64::NAN; di * r]).unwrap();
                with_split(min, || parallel(&mut a, &b, &c, &d)).unwrap();
                let case = (r, min, density, seed);
                assert_eq!(float_bits(a.vals()), float_bits(serial.vals()), "{case:?}");
            }
        });
    }
}
