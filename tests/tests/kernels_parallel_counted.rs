//! Sparse outputs whose first level is dense and whose second appends segments (CSR, CSC),
//! assembled by a loop that merges or copies its operands' entries (a sparse sum, an
//! elementwise product, a scaled copy) or through a dense accumulator per row (Gustavson's
//! SpGEMM), are assembled in parallel: in one phase where the operands bound each range of
//! rows' entries (`parallel_append_bounded`: chunks of rows write into windows of that bound
//! and are placed in order) or a row's adds into its accumulator bound its entries
//! (`parallel_append_bounded_accumulated`, SpGEMM), else in two (`parallel_append_counted`:
//! the tasks count each row's entries, a prefix sum sizes the output, and the tasks write
//! their rows into place). Split at every row, at every few, and
//! by default, the output equals the serial kernel's (pattern and values bit for bit) and
//! passes validation, on operands with empty rows and empty operands; the serial kernel in
//! turn equals a dense oracle.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// Calls of `counted_max`, the user's function below.
static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

sparse_kernel! {
    // A function with an effect: the loop calling it is not run twice (it stays serial).
    #[function(commutative, associative)]
    fn counted_max(a: f64, b: f64) -> f64 {
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        a.max(b)
    }
    pub fn max_of(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = counted_max(a(i, j), b(i, j))
    }
    // A union, into 64-bit positions.
    pub fn add(c: &mut Csr<f64, u64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    #[schedule(parallel(never))]
    pub fn add_serial(c: &mut Csr<f64, u64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    // An intersection.
    pub fn mul(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    #[schedule(parallel(never))]
    pub fn mul_serial(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    // A union of three, by columns.
    pub fn add3(c: &mut Csc<f64>, a: &Csc<f64>, b: &Csc<f64>, d: &Csc<f64>) {
        c(i, j) = a(i, j) - 2.0 * b(i, j) + d(i, j)
    }
    #[schedule(parallel(never))]
    pub fn add3_serial(c: &mut Csc<f64>, a: &Csc<f64>, b: &Csc<f64>, d: &Csc<f64>) {
        c(i, j) = a(i, j) - 2.0 * b(i, j) + d(i, j)
    }
    // Gustavson's SpGEMM, each task with an accumulator of its own.
    pub fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, k) * b(k, j)
    }
    #[schedule(parallel(never))]
    pub fn spgemm_serial(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, k) * b(k, j)
    }
    pub fn spgemm_add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) += a(i, k) * b(k, j)
    }
    #[schedule(parallel(never))]
    pub fn spgemm_add_serial(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) += a(i, k) * b(k, j)
    }
    // A transposed operand, converted on entry: its rows are the output's.
    pub fn add_transposed(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(j, i)
    }
    #[schedule(parallel(never))]
    pub fn add_transposed_serial(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(j, i)
    }
    // A windowed operand: its rows are not the output's (row `i` reads row `i + 2`).
    pub fn add_window(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i[2..], j) + b(i, j)
    }
    #[schedule(parallel(never))]
    pub fn add_window_serial(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i[2..], j) + b(i, j)
    }
    // The old contents are a term.
    pub fn accumulate(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) += a(i, j)
    }
    #[schedule(parallel(never))]
    pub fn accumulate_serial(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) += a(i, j)
    }
}

const SHAPES: [[usize; 2]; 5] = [[0, 3], [3, 0], [1, 1], [9, 6], [40, 10]];

#[test]
fn sums_and_products_assembled_in_two_phases_are_the_serial_ones() {
    for [m, n] in SHAPES {
        sweep(|density, seed| {
            let (ae, be) = (
                random_entries::<f64>(&[m, n], density, seed),
                random_entries::<f64>(&[m, n], density, seed + 1),
            );
            let (a, b): (Csr<f64>, Csr<f64>) = (build(&[m, n], &ae), build(&[m, n], &be));
            let (ad, bd) = (
                DenseT::from_entries(&[m, n], &ae),
                DenseT::from_entries(&[m, n], &be),
            );
            let mut want_add = Csr::<f64, u64>::new(&[m, n]).unwrap();
            add_serial(&mut want_add, &a, &b).unwrap();
            assert_close(
                &want_add.to_dense(),
                &elementwise(&ad, &bd, |x, y| x + y),
                0.0,
                (m, n, seed),
            );
            let mut want_mul = Csr::<f64>::new(&[m, n]).unwrap();
            mul_serial(&mut want_mul, &a, &b).unwrap();
            assert_close(
                &want_mul.to_dense(),
                &elementwise(&ad, &bd, |x, y| x * y),
                0.0,
                (m, n, seed),
            );
            for min in SPLITS {
                let case = ([m, n], density, seed, min);
                // Outputs that held other entries before.
                let mut c: Csr<f64, u64> = build(&[m, n], &random_entries(&[m, n], 0.5, seed + 2));
                with_split(min, || add(&mut c, &a, &b)).unwrap();
                assert_same_output(&c, &want_add, case);
                let mut c: Csr<f64> = build(&[m, n], &random_entries(&[m, n], 0.5, seed + 3));
                with_split(min, || mul(&mut c, &a, &b)).unwrap();
                assert_same_output(&c, &want_mul, case);
            }
        });
    }
}

#[test]
fn csc_sums_and_accumulation_in_two_phases() {
    for [m, n] in SHAPES {
        sweep(|density, seed| {
            let es: Vec<_> = (0..3)
                .map(|k| random_entries::<f64>(&[m, n], density, seed + k))
                .collect();
            let [a, b, d]: [Csc<f64>; 3] = std::array::from_fn(|k| build(&[m, n], &es[k]));
            let dense: Vec<DenseT<f64>> = es
                .iter()
                .map(|e| DenseT::from_entries(&[m, n], e))
                .collect();
            let mut want = Csc::<f64>::new(&[m, n]).unwrap();
            add3_serial(&mut want, &a, &b, &d).unwrap();
            let oracle = elementwise(
                &elementwise(&dense[0], &dense[1], |x, y| x - 2.0 * y),
                &dense[2],
                |x, y| x + y,
            );
            assert_close(&want.to_dense(), &oracle, 1e-12, (m, n, seed));
            let start: Csr<f64> = build(&[m, n], &es[2]);
            let ar: Csr<f64> = build(&[m, n], &es[0]);
            let mut want_acc = start.clone();
            accumulate_serial(&mut want_acc, &ar).unwrap();
            assert_close(
                &want_acc.to_dense(),
                &elementwise(&dense[2], &dense[0], |x, y| x + y),
                0.0,
                (m, n, seed),
            );
            for min in SPLITS {
                let case = ([m, n], density, seed, min);
                let mut c = Csc::<f64>::new(&[m, n]).unwrap();
                with_split(min, || add3(&mut c, &a, &b, &d)).unwrap();
                assert_same_output(&c, &want, case);
                let mut c = start.clone();
                with_split(min, || accumulate(&mut c, &ar)).unwrap();
                assert_same_output(&c, &want_acc, case);
            }
        });
    }
}

#[test]
fn a_converted_operand_bounds_its_rows_too() {
    for n in [0, 1, 9, 40] {
        sweep(|density, seed| {
            let (ae, be) = (
                random_entries::<f64>(&[n, n], density, seed),
                random_entries::<f64>(&[n, n], density, seed + 1),
            );
            let (a, b): (Csr<f64>, Csr<f64>) = (build(&[n, n], &ae), build(&[n, n], &be));
            let mut want = Csr::<f64>::new(&[n, n]).unwrap();
            add_transposed_serial(&mut want, &a, &b).unwrap();
            let bt: Vec<_> = be.iter().map(|(c, v)| (vec![c[1], c[0]], *v)).collect();
            let oracle = elementwise(
                &DenseT::from_entries(&[n, n], &ae),
                &DenseT::from_entries(&[n, n], &bt),
                |x, y| x + y,
            );
            assert_close(&want.to_dense(), &oracle, 0.0, (n, seed));
            for min in SPLITS {
                let mut c = Csr::<f64>::new(&[n, n]).unwrap();
                with_split(min, || add_transposed(&mut c, &a, &b)).unwrap();
                assert_same_output(&c, &want, (n, density, seed, min));
            }
        });
    }
}

#[test]
fn a_windowed_operand_is_assembled_as_the_serial_kernel_does() {
    // Rows of `a` past the window's start hold many entries, the rows before it none: a
    // bound read from `a`'s first rows instead of its windowed ones would be too small.
    let n = 12;
    let ae: Vec<_> = (2..n + 2)
        .flat_map(|i| (0..n).map(move |j| (vec![i, j], (i * n + j) as f64)))
        .collect();
    let be = random_entries::<f64>(&[n, n], 0.2, 7);
    let (a, b): (Csr<f64>, Csr<f64>) = (build(&[n + 2, n], &ae), build(&[n, n], &be));
    let mut want = Csr::<f64>::new(&[n, n]).unwrap();
    add_window_serial(&mut want, &a, &b).unwrap();
    for min in SPLITS {
        let mut c = Csr::<f64>::new(&[n, n]).unwrap();
        with_split(min, || add_window(&mut c, &a, &b)).unwrap();
        assert_same_output(&c, &want, min);
    }
}

#[test]
fn spgemm_in_one_phase_with_an_accumulator_per_task() {
    for [m, n, r] in [
        [0, 3, 2],
        [3, 0, 2],
        [2, 3, 0],
        [1, 1, 1],
        [9, 6, 7],
        [40, 10, 30],
    ] {
        sweep(|density, seed| {
            let (ae, be) = (
                random_entries::<f64>(&[m, n], density, seed),
                random_entries::<f64>(&[n, r], density, seed + 1),
            );
            let (a, b): (Csr<f64>, Csr<f64>) = (build(&[m, n], &ae), build(&[n, r], &be));
            let mut want = Csr::<f64>::new(&[m, r]).unwrap();
            spgemm_serial(&mut want, &a, &b).unwrap();
            let product = matmul(
                &DenseT::from_entries(&[m, n], &ae),
                &DenseT::from_entries(&[n, r], &be),
            );
            assert_close(&want.to_dense(), &product, 1e-12, (m, n, r, seed));
            let start: Csr<f64> = build(&[m, r], &random_entries(&[m, r], density, seed + 2));
            let mut want_add = start.clone();
            spgemm_add_serial(&mut want_add, &a, &b).unwrap();
            for min in SPLITS {
                let case = ([m, n, r], density, seed, min);
                let mut c: Csr<f64> = build(&[m, r], &random_entries(&[m, r], 0.5, seed + 3));
                with_split(min, || spgemm(&mut c, &a, &b)).unwrap();
                assert_same_output(&c, &want, case);
                let mut c = start.clone();
                with_split(min, || spgemm_add(&mut c, &a, &b)).unwrap();
                assert_same_output(&c, &want_add, case);
            }
        });
    }
}

#[test]
fn a_user_function_is_called_once_per_entry() {
    let (m, n) = (40, 10);
    let (ae, be) = (
        random_entries::<f64>(&[m, n], 0.5, 1),
        random_entries::<f64>(&[m, n], 0.5, 2),
    );
    let (a, b): (Csr<f64>, Csr<f64>) = (build(&[m, n], &ae), build(&[m, n], &be));
    for min in SPLITS {
        let mut c = Csr::<f64>::new(&[m, n]).unwrap();
        let before = CALLS.load(std::sync::atomic::Ordering::Relaxed);
        with_split(min, || max_of(&mut c, &a, &b)).unwrap();
        let calls = CALLS.load(std::sync::atomic::Ordering::Relaxed) - before;
        // Called where either operand is stored (the other's fill is 0: the function has no
        // identity), once each, and once for the output's fill, f(0, 0).
        let only_b = be
            .iter()
            .filter(|(d, _)| ae.iter().all(|(c, _)| c != d))
            .count();
        assert_eq!(calls, ae.len() + only_b + 1, "{min:?}");
        assert_close(
            &c.to_dense(),
            &elementwise(
                &DenseT::from_entries(&[m, n], &ae),
                &DenseT::from_entries(&[m, n], &be),
                f64::max,
            ),
            0.0,
            min,
        );
    }
}

/// Enough rows for the default split to make several tasks of each phase, with rows of very
/// different lengths (the second phase balances by entries).
#[test]
fn many_rows_by_default() {
    let (m, n) = (30_000, 400);
    let ae: Vec<(Vec<usize>, f64)> = random_entries::<f64>(&[m, n], 0.01, 3)
        .into_iter()
        .chain((0..n).map(|j| (vec![7, j], 1.5)))
        .collect();
    let ae = dedup_entries(ae);
    let be = random_entries::<f64>(&[m, n], 0.02, 4);
    let (a, b): (Csr<f64>, Csr<f64>) = (build(&[m, n], &ae), build(&[m, n], &be));
    let mut want = Csr::<f64, u64>::new(&[m, n]).unwrap();
    add_serial(&mut want, &a, &b).unwrap();
    let bt: Csr<f64> = build(&[n, 50], &random_entries(&[n, 50], 0.05, 5));
    let mut want_product = Csr::<f64>::new(&[m, 50]).unwrap();
    spgemm_serial(&mut want_product, &a, &bt).unwrap();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut c = Csr::<f64, u64>::new(&[m, n]).unwrap();
        pool.install(|| add(&mut c, &a, &b)).unwrap();
        assert!(want.nnz() > m, "{}", want.nnz());
        assert_same_output(&c, &want, threads);
        let mut c = Csr::<f64>::new(&[m, 50]).unwrap();
        pool.install(|| spgemm(&mut c, &a, &bt)).unwrap();
        assert_same_output(&c, &want_product, threads);
    }
}

/// The entries with the first of each coordinate kept.
fn dedup_entries(entries: Vec<(Vec<usize>, f64)>) -> Vec<(Vec<usize>, f64)> {
    let mut seen = std::collections::HashSet::new();
    entries
        .into_iter()
        .filter(|(c, _)| seen.insert(c.clone()))
        .collect()
}
