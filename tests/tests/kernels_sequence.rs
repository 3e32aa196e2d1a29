//! Kernels of several statements: statements run in order, `let` defines a scalar temporary
//! that later statements read, every statement's shape checks run before the first statement,
//! and `-=` subtracts. Checked against dense references on random inputs.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    /// One conjugate-gradient iteration for `a x = b`: `r` is the residual, `p` the search
    /// direction, `rho` holds `r·r` on entry and on return, `q` is scratch.
    pub fn cg_iteration(
        x: &mut Dense1<f64>,
        r: &mut Dense1<f64>,
        p: &mut Dense1<f64>,
        q: &mut Dense1<f64>,
        rho: &mut f64,
        a: &Csr<f64>,
    ) {
        q(i) = a(i, j) * p(j);
        let pq = p(i) * q(i);
        let alpha = rho / pq;
        x(i) += alpha * p(i);
        r(i) -= alpha * q(i);
        let rho_next = r(i) * r(i);
        p(i) = r(i) + rho_next / rho * p(i);
        rho = rho_next;
    }

    /// Sparse outputs in a sequence, each statement reading what the one before wrote.
    pub fn sparse_chain(c: &mut Csr<f64>, d: &mut Dcsr<f64>, norm: &mut f64, a: &Csr<f64>, b: &Csr<f64>, s: f64) {
        c(i, j) = a(i, j) + b(i, j);
        c(i, j) -= s * b(i, j);
        let total = c(i, j) * c(i, j);
        d(i, k) = c(i, j) * a(j, k);
        norm = total + d(i, k) * d(i, k);
    }

    /// A schedule on one statement of a sequence.
    pub fn scheduled(c: &mut Csr<f64>, y: &mut Dense1<f64>, a: &Csr<f64>, b: &Csr<f64>, x: &Dense1<f64>) {
        #[schedule(workspace(k, hash))]
        c(i, k) = a(i, j) * b(j, k);
        y(i) = c(i, k) * x(k);
    }

    /// User names that look like the compiler's own (its statement and check functions, its
    /// locals) and raw identifiers: hygiene keeps them apart.
    pub fn hygiene(statement_1: &mut Dense1<f64>, check_0: &mut f64, r#loop: &Dense1<f64>, t0: f64) {
        let statement_0 = r#loop(i) * r#loop(i);
        statement_1(i) = t0 * r#loop(i) + statement_0;
        let check_1 = statement_1(i) * r#loop(i);
        check_0 = check_1 + statement_0;
    }

    /// `-=` alone: into a dense output in place, into a sparse output on the union.
    pub fn subtract_dense(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) -= a(i, j) * x(j)
    }
    pub fn subtract_sparse(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) -= a(i, j)
    }
    pub fn subtract_integers(y: &mut Dense1<i64>, a: &Csr<i64>, x: &Dense1<i64>) {
        y(i) -= a(i, j) * x(j);
    }
}

/// A symmetric positive definite `n x n` matrix: a random symmetric pattern with a dominant
/// diagonal.
fn spd(n: usize, density: f64, seed: u64) -> Entries<f64> {
    let mut dense = DenseT::<f64>::zeros(&[n, n]);
    for (c, v) in random_entries::<f64>(&[n, n], density, seed) {
        dense.add(&[c[0], c[1]], v / 2.0);
        dense.add(&[c[1], c[0]], v / 2.0);
    }
    let mut out = Vec::new();
    for i in 0..n {
        let row: f64 = (0..n).map(|j| dense.get(&[i, j]).abs()).sum();
        dense.add(&[i, i], row + 1.0);
        for j in 0..n {
            let v = dense.get(&[i, j]);
            if v != 0.0 {
                out.push((vec![i, j], v));
            }
        }
    }
    out
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn one_kernel_runs_a_conjugate_gradient_iteration() {
    for n in [1, 2, 7, 40] {
        sweep(|density, seed| {
            let entries = spd(n, density, case_seed(seed, &[n], 0));
            let a: Csr<f64> = build(&[n, n], &entries);
            let ad = DenseT::from_entries(&[n, n], &entries);
            let (b, bd) = dense_vec(n, case_seed(seed, &[n], 1));
            // The reference iteration, in plain Rust over dense arrays.
            let mut xr = vec![0.0; n];
            let mut rr = bd.data.clone();
            let mut pr = bd.data.clone();
            let mut rhor = dot(&rr, &rr);
            let mut x = Dense1::<f64>::zeros(n);
            let mut r = b.clone();
            let mut p = b.clone();
            let mut q = Dense1::<f64>::zeros(n);
            let mut rho = rhor;
            for step in 0..n.min(5) {
                let qr = matvec(
                    &ad,
                    &DenseT {
                        shape: vec![n],
                        data: pr.clone(),
                    },
                )
                .data;
                let alpha = rhor / dot(&pr, &qr);
                for i in 0..n {
                    xr[i] += alpha * pr[i];
                    rr[i] -= alpha * qr[i];
                }
                let next = dot(&rr, &rr);
                for i in 0..n {
                    pr[i] = rr[i] + next / rhor * pr[i];
                }
                rhor = next;
                cg_iteration(&mut x, &mut r, &mut p, &mut q, &mut rho, &a).unwrap();
                let case = (n, density, seed, step);
                let vec = |v: &[f64]| DenseT {
                    shape: vec![n],
                    data: v.to_vec(),
                };
                assert_close(x.vals(), &vec(&xr), 1e-9, (&case, "x"));
                assert_close(r.vals(), &vec(&rr), 1e-9, (&case, "r"));
                assert_close(p.vals(), &vec(&pr), 1e-9, (&case, "p"));
                assert_scalar_close(rho, rhor, 1e-9, (&case, "rho"));
                if rhor < 1e-20 {
                    break;
                }
            }
        });
    }
}

#[test]
fn conjugate_gradient_converges_on_a_poisson_matrix() {
    let n = 64;
    let mut entries = Vec::new();
    for i in 0..n {
        entries.push((vec![i, i], 2.0));
        if i > 0 {
            entries.push((vec![i, i - 1], -1.0));
            entries.push((vec![i - 1, i], -1.0));
        }
    }
    let a: Csr<f64> = build(&[n, n], &entries);
    let ones = Dense1::from_vec(vec![1.0; n]);
    let mut x = Dense1::<f64>::zeros(n);
    let (mut r, mut p, mut q) = (ones.clone(), ones.clone(), Dense1::<f64>::zeros(n));
    let mut rho = n as f64;
    let mut steps = 0;
    while rho > 1e-20 && steps < 2 * n {
        cg_iteration(&mut x, &mut r, &mut p, &mut q, &mut rho, &a).unwrap();
        steps += 1;
    }
    // In exact arithmetic CG ends in n steps; the residual of the computed x is small.
    let ad = DenseT::from_entries(&[n, n], &entries);
    let ax = matvec(
        &ad,
        &DenseT {
            shape: vec![n],
            data: x.vals().to_vec(),
        },
    );
    let worst = ax.data.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
    assert!(
        steps <= n + 1 && worst < 1e-8,
        "{steps} steps, residual {worst}"
    );
}

#[test]
fn statements_read_what_earlier_statements_wrote() {
    for shape in [[0, 0], [1, 1], [4, 4], [6, 6]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let (ae, be) = (
                operand_entries(shape, density, seed, 0),
                operand_entries(shape, density, seed, 1),
            );
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let (a, b): (Csr<f64>, Csr<f64>) = (build(&shape, &ae), build(&shape, &be));
            let s = 0.25;
            let mut c: Csr<f64> = build(&shape, &[]);
            let mut d: Dcsr<f64> = build(&shape, &[]);
            let mut norm = 7.0;
            sparse_chain(&mut c, &mut d, &mut norm, &a, &b, s).unwrap();
            let cd = elementwise(&ad, &bd, |x, y| x + y - s * y);
            let dd = matmul(&cd, &ad);
            let sq = |t: &DenseT<f64>| t.data.iter().map(|v| v * v).sum::<f64>();
            assert_close(&c.to_dense(), &cd, 1e-12, (&case, "c"));
            assert_close(&d.to_dense(), &dd, 1e-12, (&case, "d"));
            assert_scalar_close(norm, sq(&cd) + sq(&dd), 1e-12, (&case, "norm"));
            revalidate(&c);
            revalidate(&d);
        });
    }
}

#[test]
fn a_statement_keeps_its_schedule() {
    for shape in [[0, 0], [3, 3], [5, 5]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let (ae, be) = (
                operand_entries(shape, density, seed, 0),
                operand_entries(shape, density, seed, 1),
            );
            let (a, b): (Csr<f64>, Csr<f64>) = (build(&shape, &ae), build(&shape, &be));
            let (x, xd) = dense_vec(shape[1], seed);
            let mut c: Csr<f64> = build(&shape, &[]);
            let mut y = Dense1::<f64>::zeros(shape[0]);
            scheduled(&mut c, &mut y, &a, &b, &x).unwrap();
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let cd = matmul(&ad, &bd);
            assert_close(&c.to_dense(), &cd, 1e-12, (&case, "c"));
            assert_close(y.vals(), &matvec(&cd, &xd), 1e-12, (&case, "y"));
            revalidate(&c);
        });
    }
}

#[test]
fn a_shape_mismatch_in_a_later_statement_changes_nothing() {
    let entries = spd(4, 0.5, 1);
    let a: Csr<f64> = build(&[4, 4], &entries);
    let (mut x, mut r, mut p) = (
        Dense1::from_vec(vec![1.0; 4]),
        Dense1::from_vec(vec![2.0; 4]),
        Dense1::from_vec(vec![3.0; 4]),
    );
    // `q` is checked by the first statement; `x` (wrong length) only by the fourth.
    let mut q = Dense1::<f64>::zeros(4);
    let mut short = Dense1::from_vec(vec![5.0; 3]);
    let mut rho = 1.5;
    let before = (r.clone(), p.clone(), q.clone());
    let e = cg_iteration(&mut short, &mut r, &mut p, &mut q, &mut rho, &a).unwrap_err();
    assert!(e.to_string().contains("cg_iteration"), "{e}");
    assert_eq!((r.clone(), p.clone(), q.clone()), before);
    assert_eq!((short.vals(), rho), (&[5.0; 3][..], 1.5));
    cg_iteration(&mut x, &mut r, &mut p, &mut q, &mut rho, &a).unwrap();
}

#[test]
fn subtract_assign_subtracts() {
    for shape in [[0, 0], [1, 1], [4, 4], [5, 7]] {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = operand_entries(shape, density, seed, 0);
            let ce = operand_entries(shape, density, seed, 1);
            let (ad, cd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &ce),
            );
            let a: Csr<f64> = build(&shape, &ae);
            let (x, xd) = dense_vec(shape[1], seed);
            let (mut y, yd) = dense_vec(shape[0], seed + 1);
            subtract_dense(&mut y, &a, &x).unwrap();
            let ax = matvec(&ad, &xd);
            let want = elementwise(&yd, &ax, |u, v| u - v);
            assert_close(y.vals(), &want, 1e-12, (&case, "y -= a x"));

            let mut c: Csr<f64> = build(&shape, &ce);
            subtract_sparse(&mut c, &a).unwrap();
            let mut union = pattern(&ce);
            union.extend(pattern(&ae));
            let want = elementwise(&cd, &ad, |u, v| u - v);
            check_sparse_output(&c, &want, &union, (&case, "c -= a"));

            let ai: Vec<(Vec<usize>, i64)> = ae
                .iter()
                .map(|(c, v)| (c.clone(), (v * 8.0) as i64))
                .collect();
            let a: Csr<i64> = build(&shape, &ai);
            let x = Dense1::from_vec((0..shape[1] as i64).collect());
            let mut y = Dense1::from_vec(vec![3i64; shape[0]]);
            subtract_integers(&mut y, &a, &x).unwrap();
            for i in 0..shape[0] {
                let ax: i64 = ai
                    .iter()
                    .filter(|(c, _)| c[0] == i)
                    .map(|(c, v)| v * c[1] as i64)
                    .sum();
                assert_eq!(y.vals()[i], 3 - ax, "{case:?}: integer row {i}");
            }
        });
    }
}

#[test]
fn names_like_the_compilers_own_are_the_users() {
    let x = Dense1::from_vec(vec![1.0, 2.0, 3.0]);
    let mut y = Dense1::<f64>::zeros(3);
    let mut out = 0.0;
    hygiene(&mut y, &mut out, &x, 2.0).unwrap();
    // statement_0 = 14; y = 2 x + 14 = (16, 18, 20); check_1 = 16 + 36 + 60 = 112.
    assert_eq!(y.vals(), &[16.0, 18.0, 20.0]);
    assert_eq!(out, 126.0);
}
