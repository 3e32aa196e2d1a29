//! Hash levels (`HashVec`, `HashMat`) as inputs, against a dense oracle: located in
//! intersections (found or not), iterated by bucket when they drive a loop alone, probed per
//! coordinate beside a dense operand, and merged through a sorted copy in unions and when a
//! sparse output is appended along them. Sparse outputs store exactly the iteration space.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

sparse_kernel! {
    pub fn mul_hs(y: &mut SparseVec<f64>, a: &HashVec<f64>, b: &SparseVec<f64>) {
        y(i) = a(i) * b(i)
    }
    pub fn add_hs(y: &mut SparseVec<f64>, a: &HashVec<f64>, b: &SparseVec<f64>) {
        y(i) = a(i) + b(i)
    }
    pub fn sub_sh_dense(y: &mut Dense1<f64>, a: &SparseVec<f64>, b: &HashVec<f64>) {
        y(i) = a(i) - b(i)
    }
    pub fn add_hd(y: &mut Dense1<f64>, a: &HashVec<f64>, b: &Dense1<f64>) {
        y(i) = a(i) + b(i)
    }
    pub fn scale_h_sparse(y: &mut SparseVec<f64>, a: &HashVec<f64>, s: f64) {
        y(i) = s * a(i)
    }
    pub fn scale_h_dense(y: &mut Dense1<f64>, a: &HashVec<f64>, s: f64) {
        y(i) = s * a(i)
    }
    pub fn dot_hh(d: &mut f64, a: &HashVec<f64>, b: &HashVec<f64>) {
        d = a(i) * b(i)
    }
    pub fn mixed_hsh(y: &mut SparseVec<f64>, a: &HashVec<f64>, b: &SparseVec<f64>, c: &HashVec<f64>) {
        y(i) = (a(i) + b(i)) * c(i)
    }
    // A sum with a constant covers the dimension: the hash vector must be visited everywhere
    // it stores something, not only where `a` does (found by the differential tester).
    pub fn shifted_mul(y: &mut Dense1<f64>, a: &SparseVec<f64>, s: f64, h: &HashVec<f64>) {
        y(i) = (a(i) + s) * h(i)
    }
    pub fn shifted_mul_sparse(y: &mut SparseVec<f64>, a: &SparseVec<f64>, s: f64, h: &HashVec<f64>) {
        y(i) = (a(i) + s) * h(i)
    }
    // Either hash operand could drive `d * g`; every lattice point must follow the top
    // point's choice (`g`), found by the differential tester (kernel 8000598).
    pub fn union_times_hash(y: &mut SparseVec<f64>, d: &HashVec<f64>, f: &HashVec<f64>, g: &HashVec<f64>, s: f64) {
        y(j) = (d(j) + f(j)) * g(j) * s
    }
    pub fn spmv_hm(y: &mut Dense1<f64>, a: &HashMat<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_t_hm(y: &mut Dense1<f64>, a: &HashMat<f64>, x: &Dense1<f64>) {
        y(j) = a(i, j) * x(i)
    }
    pub fn spmv_hm_sparse_x(y: &mut Dense1<f64>, a: &HashMat<f64>, x: &SparseVec<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn add_hm_csr(c: &mut Csr<f64>, a: &HashMat<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn mul_hm_csr(c: &mut Csr<f64>, a: &HashMat<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    pub fn mul_coo_hm(c: &mut Dense2<f64>, a: &Coo<f64>, b: &HashMat<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }
    pub fn copy_hm(c: &mut Dcsr<f64>, a: &HashMat<f64>) {
        c(i, j) = a(i, j)
    }
    // Hash outputs: inserted where a value is present, in any loop order.
    pub fn mul_into_hv(y: &mut HashVec<f64>, a: &SparseVec<f64>, b: &HashVec<f64>) {
        y(i) = a(i) * b(i)
    }
    pub fn add_into_hv(y: &mut HashVec<f64>, a: &SparseVec<f64>, b: &HashVec<f64>) {
        y(i) = a(i) + b(i)
    }
    pub fn accumulate_hv(y: &mut HashVec<f64>, a: &SparseVec<f64>) {
        y(i) += a(i)
    }
    pub fn spmv_csc_into_hv(y: &mut HashVec<f64>, a: &Csc<f64>, x: &SparseVec<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn add_into_hm(c: &mut HashMat<f64>, a: &HashMat<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn spgemm_into_hm(c: &mut HashMat<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, k) * b(k, j)
    }
    pub fn transpose_into_hm(c: &mut HashMat<f64>, a: &Csr<f64>) {
        c(j, i) = a(i, j)
    }
}

/// The coordinates where `present` holds, in order: a sparse output's expected pattern.
fn pattern(shape: &[usize], present: impl Fn(&[usize]) -> bool) -> Vec<Vec<usize>> {
    coordinates(shape)
        .into_iter()
        .filter(|c| present(c))
        .collect()
}

/// A sparse result: its values are the oracle's, it stores exactly `pattern`, and it is valid.
fn expect<L: Levels + Clone, O: ModeOrder>(
    t: &Tensor<f64, L, O>,
    oracle: &DenseT<f64>,
    pattern: Vec<Vec<usize>>,
    case: impl std::fmt::Debug + Copy,
) {
    assert_close(&t.to_dense(), oracle, f64::TOL, case);
    assert_eq!(stored(t), pattern, "{case:?}");
    revalidate(t);
}

/// The entries of operand `n` of a case: the first at the case's density, the others at
/// other densities.
fn operand(shape: &[usize], density: f64, seed: u64, n: u64) -> Vec<(Vec<usize>, f64)> {
    let density = if n == 0 {
        density
    } else {
        other_density(density, seed, n)
    };
    random_entries(shape, density, case_seed(seed, shape, n))
}

fn has(entries: &[(Vec<usize>, f64)], c: &[usize]) -> bool {
    entries.iter().any(|(d, _)| d == c)
}

#[test]
fn hash_vector_kernels_match_oracle() {
    for n in VECTOR_LENGTHS {
        let shape = [n];
        sweep(|density, seed| {
            let case = (n, density, seed);
            let ae = operand(&shape, density, seed, 0);
            let be = operand(&shape, density, seed, 1);
            let ce = operand(&shape, density, seed, 2);
            let a: HashVec<f64> = build(&shape, &ae);
            let bs: SparseVec<f64> = build(&shape, &be);
            let bh: HashVec<f64> = build(&shape, &be);
            let bd: Dense1<f64> = build(&shape, &be);
            let c: HashVec<f64> = build(&shape, &ce);
            let (ad, bdd, cd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
                DenseT::from_entries(&shape, &ce),
            );

            let mut y: SparseVec<f64> = build(&shape, &nonzero_entries(&shape, seed));
            mul_hs(&mut y, &a, &bs).unwrap();
            expect(
                &y,
                &elementwise(&ad, &bdd, |x, y| x * y),
                pattern(&shape, |i| has(&ae, i) && has(&be, i)),
                case,
            );

            add_hs(&mut y, &a, &bs).unwrap();
            expect(
                &y,
                &elementwise(&ad, &bdd, |x, y| x + y),
                pattern(&shape, |i| has(&ae, i) || has(&be, i)),
                case,
            );

            let mut yd: Dense1<f64> = build(&shape, &nonzero_entries(&shape, seed));
            sub_sh_dense(&mut yd, &bs, &a).unwrap();
            assert_close(
                yd.vals(),
                &elementwise(&bdd, &ad, |x, y| x - y),
                f64::TOL,
                case,
            );
            add_hd(&mut yd, &a, &bd).unwrap();
            assert_close(
                yd.vals(),
                &elementwise(&ad, &bdd, |x, y| x + y),
                f64::TOL,
                case,
            );

            scale_h_sparse(&mut y, &a, 2.5).unwrap();
            expect(
                &y,
                &elementwise(&ad, &ad, |x, _| 2.5 * x),
                pattern(&shape, |i| has(&ae, i)),
                case,
            );
            scale_h_dense(&mut yd, &a, -1.5).unwrap();
            assert_close(
                yd.vals(),
                &elementwise(&ad, &ad, |x, _| -1.5 * x),
                f64::TOL,
                case,
            );

            let mut d = 7.0;
            dot_hh(&mut d, &a, &bh).unwrap();
            let expected: f64 = (0..n).map(|i| ad.get(&[i]) * bdd.get(&[i])).sum();
            assert_scalar_close(d, expected, f64::TOL, case);

            shifted_mul(&mut yd, &bs, 0.5, &a).unwrap();
            let shifted = elementwise(&bdd, &ad, |x, h| (x + 0.5) * h);
            assert_close(yd.vals(), &shifted, f64::TOL, case);
            shifted_mul_sparse(&mut y, &bs, 0.5, &a).unwrap();
            expect(&y, &shifted, pattern(&shape, |i| has(&ae, i)), case);

            union_times_hash(&mut y, &a, &bh, &c, 2.0).unwrap();
            let sum = elementwise(&ad, &bdd, |x, y| x + y);
            let in_sum = |i: &[usize]| has(&ae, i) || has(&be, i);
            expect(
                &y,
                &elementwise(&sum, &cd, |x, y| x * y * 2.0),
                pattern(&shape, |i| in_sum(i) && has(&ce, i)),
                case,
            );

            mixed_hsh(&mut y, &a, &bs, &c).unwrap();
            let sum = elementwise(&ad, &bdd, |x, y| x + y);
            assert_close(
                &y.to_dense(),
                &elementwise(&sum, &cd, |x, y| x * y),
                f64::TOL,
                case,
            );
            let in_sum = |i: &[usize]| has(&ae, i) || has(&be, i);
            assert_eq!(stored(&y), pattern(&shape, |i| in_sum(i) && has(&ce, i)));
            revalidate(&y);
        });
    }
}

#[test]
fn hash_matrix_kernels_match_oracle() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let (rows, cols) = (shape[0], shape[1]);
            let ae = operand(&shape, density, seed, 0);
            let be = operand(&shape, density, seed, 1);
            let xe = random_entries(&[cols], 0.5, case_seed(seed, &shape, 2));
            let te = random_entries(&[rows], 1.0, case_seed(seed, &shape, 3));
            let a: HashMat<f64> = build(&shape, &ae);
            let b: Csr<f64> = build(&shape, &be);
            let bc: Coo<f64> = build(&shape, &be);
            let xd: Dense1<f64> = build(&[cols], &xe);
            let xs: SparseVec<f64> = build(&[cols], &xe);
            let td: Dense1<f64> = build(&[rows], &te);
            let (ad, bdd, xo, to) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
                DenseT::from_entries(&[cols], &xe),
                DenseT::from_entries(&[rows], &te),
            );
            assert_eq!(a.entries(), ad_entries(&ae), "{case:?}");
            assert_eq!(a.nnz(), ae.len());

            let mut y: Dense1<f64> = build(&[rows], &nonzero_entries(&[rows], seed));
            spmv_hm(&mut y, &a, &xd).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xo), f64::TOL, case);
            spmv_hm_sparse_x(&mut y, &a, &xs).unwrap();
            assert_close(y.vals(), &matvec(&ad, &xo), f64::TOL, case);
            let mut yt: Dense1<f64> = build(&[cols], &nonzero_entries(&[cols], seed));
            spmv_t_hm(&mut yt, &a, &td).unwrap();
            let mut expected = DenseT::zeros(&[cols]);
            for c in coordinates(&shape) {
                expected.add(&[c[1]], ad.get(&c) * to.get(&[c[0]]));
            }
            assert_close(yt.vals(), &expected, f64::TOL, case);

            let mut c: Csr<f64> = build(&shape, &nonzero_entries(&shape, seed));
            add_hm_csr(&mut c, &a, &b).unwrap();
            expect(
                &c,
                &elementwise(&ad, &bdd, |x, y| x + y),
                pattern(&shape, |i| has(&ae, i) || has(&be, i)),
                case,
            );
            mul_hm_csr(&mut c, &a, &b).unwrap();
            expect(
                &c,
                &elementwise(&ad, &bdd, |x, y| x * y),
                pattern(&shape, |i| has(&ae, i) && has(&be, i)),
                case,
            );

            let mut cd: Dense2<f64> = build(&shape, &nonzero_entries(&shape, seed));
            mul_coo_hm(&mut cd, &bc, &a).unwrap();
            assert_close(
                cd.vals(),
                &elementwise(&bdd, &ad, |x, y| x * y),
                f64::TOL,
                case,
            );

            let mut dc: Dcsr<f64> = build(&shape, &nonzero_entries(&shape, seed));
            copy_hm(&mut dc, &a).unwrap();
            expect(&dc, &ad, pattern(&shape, |i| has(&ae, i)), case);
        });
    }
}

#[test]
fn hash_outputs_match_oracle() {
    for n in VECTOR_LENGTHS {
        let shape = [n];
        sweep(|density, seed| {
            let case = (n, density, seed);
            let ae = operand(&shape, density, seed, 0);
            let be = operand(&shape, density, seed, 1);
            let a: SparseVec<f64> = build(&shape, &ae);
            let b: HashVec<f64> = build(&shape, &be);
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );
            let old = nonzero_entries(&shape, seed);
            let mut y: HashVec<f64> = build(&shape, &old);
            mul_into_hv(&mut y, &a, &b).unwrap();
            expect(
                &y,
                &elementwise(&ad, &bd, |x, y| x * y),
                pattern(&shape, |i| has(&ae, i) && has(&be, i)),
                case,
            );
            add_into_hv(&mut y, &a, &b).unwrap();
            let sum = elementwise(&ad, &bd, |x, y| x + y);
            assert_close(&y.to_dense(), &sum, f64::TOL, case);
            assert_eq!(stored(&y), pattern(&shape, |i| has(&ae, i) || has(&be, i)));
            // `+=` keeps what is stored and adds the new pattern.
            accumulate_hv(&mut y, &a).unwrap();
            expect(
                &y,
                &elementwise(&sum, &ad, |s, x| s + x),
                pattern(&shape, |i| has(&ae, i) || has(&be, i)),
                case,
            );
        });
    }
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let (rows, cols) = (shape[0], shape[1]);
            let ae = operand(&shape, density, seed, 0);
            let be = operand(&shape, density, seed, 1);
            let xe = random_entries(&[cols], 0.5, case_seed(seed, &shape, 2));
            let ah: HashMat<f64> = build(&shape, &ae);
            let ac: Csc<f64> = build(&shape, &ae);
            let ar: Csr<f64> = build(&shape, &ae);
            let b: Csr<f64> = build(&shape, &be);
            let x: SparseVec<f64> = build(&[cols], &xe);
            let (ad, bd, xd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
                DenseT::from_entries(&[cols], &xe),
            );
            let mut y: HashVec<f64> = build(&[rows], &nonzero_entries(&[rows], seed));
            spmv_csc_into_hv(&mut y, &ac, &x).unwrap();
            assert_close(&y.to_dense(), &matvec(&ad, &xd), f64::TOL, case);
            let hit = |i: usize| (0..cols).any(|j| has(&ae, &[i, j]) && has(&xe, &[j]));
            assert_eq!(stored(&y), pattern(&[rows], |c| hit(c[0])));
            revalidate(&y);

            let mut c: HashMat<f64> = build(&shape, &nonzero_entries(&shape, seed));
            add_into_hm(&mut c, &ah, &b).unwrap();
            expect(
                &c,
                &elementwise(&ad, &bd, |x, y| x + y),
                pattern(&shape, |i| has(&ae, i) || has(&be, i)),
                case,
            );

            let mut t: HashMat<f64> = build(&[cols, rows], &[]);
            transpose_into_hm(&mut t, &ar).unwrap();
            let mut expected = DenseT::zeros(&[cols, rows]);
            for (cd, v) in &ae {
                expected.set(&[cd[1], cd[0]], *v);
            }
            assert_close(&t.to_dense(), &expected, f64::TOL, case);
            revalidate(&t);

            // A square product of the operands' leading square blocks.
            let m = rows.min(cols);
            let sq = [m, m];
            let ae2: Vec<(Vec<usize>, f64)> = ae
                .iter()
                .filter(|(c, _)| c[0] < m && c[1] < m)
                .cloned()
                .collect();
            let be2: Vec<(Vec<usize>, f64)> = be
                .iter()
                .filter(|(c, _)| c[0] < m && c[1] < m)
                .cloned()
                .collect();
            let (a2, b2): (Csr<f64>, Csr<f64>) = (build(&sq, &ae2), build(&sq, &be2));
            let (a2d, b2d) = (
                DenseT::from_entries(&sq, &ae2),
                DenseT::from_entries(&sq, &be2),
            );
            let mut p: HashMat<f64> = build(&sq, &nonzero_entries(&sq, seed));
            spgemm_into_hm(&mut p, &a2, &b2).unwrap();
            let mut expected = DenseT::zeros(&sq);
            let mut hits = Vec::new();
            for i in 0..m {
                for j in 0..m {
                    for k in 0..m {
                        if has(&ae2, &[i, k]) && has(&be2, &[k, j]) {
                            expected.add(&[i, j], a2d.get(&[i, k]) * b2d.get(&[k, j]));
                            hits.push(vec![i, j]);
                        }
                    }
                }
            }
            hits.dedup();
            expect(&p, &expected, hits, case);
        });
    }
}

/// The entries a tensor built from `entries` reports: sorted by coordinate.
fn ad_entries(entries: &[(Vec<usize>, f64)]) -> Vec<(Vec<usize>, f64)> {
    let mut sorted = entries.to_vec();
    sorted.sort_by(|x, y| x.0.cmp(&y.0));
    sorted
}

#[test]
fn collisions_and_a_full_table() {
    // Width 8 for up to 4 entries per row; coordinates 1, 9, 17, 25 share home bucket 1.
    let shape = [2, 32];
    let entries: Vec<(Vec<usize>, f64)> = [1, 9, 17, 25]
        .iter()
        .map(|&j| (vec![0, j], j as f64))
        .chain([(vec![1, 7], 2.0)])
        .collect();
    let a: HashMat<f64> = build(&shape, &entries);
    assert_eq!(a.levels().1.width(), 8);
    let x: Dense1<f64> = build(&[32], &(0..32).map(|j| (vec![j], 1.0)).collect::<Vec<_>>());
    let mut y: Dense1<f64> = build(&[2], &[]);
    spmv_hm(&mut y, &a, &x).unwrap();
    assert_eq!(y.vals(), &[52.0, 2.0]);
    let b: Csr<f64> = build(
        &shape,
        &[(vec![0, 25], 2.0), (vec![0, 3], 1.0), (vec![1, 7], 0.5)],
    );
    let mut c: Csr<f64> = build(&shape, &[]);
    mul_hm_csr(&mut c, &a, &b).unwrap();
    assert_eq!(c.entries(), vec![(vec![0, 25], 50.0), (vec![1, 7], 1.0)]);
    add_hm_csr(&mut c, &a, &b).unwrap();
    assert_eq!(
        stored(&c),
        vec![
            vec![0, 1],
            vec![0, 3],
            vec![0, 9],
            vec![0, 17],
            vec![0, 25],
            vec![1, 7]
        ]
    );

    // A full table (raw): every bucket holds a coordinate, so probes wrap around.
    let full = Hashed::<u32>::from_raw(4, 4, vec![3, 1, 2, 0]);
    let full =
        HashVec::<f64>::from_levels(&[4], (full.unwrap(),), vec![3.0, 1.0, 2.0, 0.5]).unwrap();
    let s: SparseVec<f64> = build(&[4], &[(vec![0], 1.0), (vec![3], 1.0)]);
    let mut y: SparseVec<f64> = build(&[4], &[]);
    add_hs(&mut y, &full, &s).unwrap();
    assert_eq!(
        y.entries(),
        vec![
            (vec![0], 1.5),
            (vec![1], 1.0),
            (vec![2], 2.0),
            (vec![3], 4.0)
        ]
    );
    mul_hs(&mut y, &full, &s).unwrap();
    assert_eq!(y.entries(), vec![(vec![0], 0.5), (vec![3], 3.0)]);
}
