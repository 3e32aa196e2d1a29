//! Sparse array programming (Henry et al. 2021) against a dense reference that applies each
//! function to every component, fill values included: functions with declared properties and
//! per-case bodies, fill values other than zero, reductions by monoids, semirings and masks.
//!
//! The reference sees every operand as a dense array whose unstored components are the
//! operand's fill value; a sparse output is compared the same way, through its own fill.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// Every component of `t`, the unstored ones at its fill value.
fn logical<V: Value, L: Levels, O: ModeOrder>(t: &Tensor<V, L, O>) -> DenseT<V> {
    let mut d = DenseT {
        shape: t.shape().to_vec(),
        data: vec![t.fill(); t.shape().iter().product()],
    };
    for (c, v) in t.entries() {
        d.set(&c, v);
    }
    d
}

/// The reference of an element-wise `f(a, b)`.
fn map2<V: Value>(a: &DenseT<V>, b: &DenseT<V>, f: impl Fn(V, V) -> V) -> DenseT<V> {
    let mut out = DenseT {
        shape: a.shape.clone(),
        data: a.data.clone(),
    };
    for (o, (&x, &y)) in out.data.iter_mut().zip(a.data.iter().zip(&b.data)) {
        *o = f(x, y);
    }
    out
}

/// Random small integers, some zero-valued entries stored explicitly.
fn int_entries(shape: &[usize], density: f64, seed: u64) -> Entries<i64> {
    let mut rng = Rng::new(seed ^ 0x1b7);
    coordinates(shape)
        .into_iter()
        .filter_map(|c| {
            if !rng.chance(density) {
                return None;
            }
            Some((c, rng.below(13) as i64 - 6))
        })
        .collect()
}

/// Random floats in `[-4, 4)`.
fn float_entries(shape: &[usize], density: f64, seed: u64) -> Entries<f64> {
    let mut rng = Rng::new(seed ^ 0xf10a7);
    coordinates(shape)
        .into_iter()
        .filter_map(|c| {
            if !rng.chance(density) {
                return None;
            }
            Some((c, (rng.unit() * 8.0 - 4.0 * 1.0).round() / 2.0))
        })
        .collect()
}

fn build_filled<V: Value, L: Levels, O: ModeOrder>(
    shape: &[usize],
    entries: &[(Vec<usize>, V)],
    fill: V,
) -> Tensor<V, L, O> {
    build::<V, L, O>(shape, entries).with_fill(fill)
}

fn assert_same<V: Value + PartialEq>(
    got: &DenseT<V>,
    want: &DenseT<V>,
    case: impl std::fmt::Debug,
) {
    assert_eq!(got.shape, want.shape, "shape of {case:?}");
    for (n, (g, w)) in got.data.iter().zip(&want.data).enumerate() {
        assert!(
            g == w || (format!("{g:?}") == "NaN" && format!("{w:?}") == "NaN"),
            "component {n} of {case:?}: got {g:?}, want {w:?}\ngot  {:?}\nwant {:?}",
            got.data,
            want.data
        );
    }
}

// ----- gcd with per-case bodies (the paper's Figure 6) -----------------------------------------

fn gcd_ref(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

sparse_kernel! {
    /// Greatest common divisor; `gcd(x, 0) == |x|`, so where one side is not stored the
    /// kernel takes the absolute value of the other instead of running the loop.
    #[function(commutative, associative, identity = 0)]
    #[case(gcd(x, 0) => x.abs())]
    #[case(gcd(0, y) => y.abs())]
    fn gcd(a: i64, b: i64) -> i64 {
        let (mut a, mut b) = (a.abs(), b.abs());
        while b != 0 {
            let t = a % b;
            a = b;
            b = t;
        }
        a
    }

    fn gcd_vec(c: &mut SparseVec<i64>, a: &SparseVec<i64>, b: &SparseVec<i64>) {
        c(i) = gcd(a(i), b(i))
    }

    fn gcd_csr(c: &mut Csr<i64>, a: &Csr<i64>, b: &Coo<i64>) {
        c(i, j) = gcd(a(i, j), b(i, j))
    }

    fn gcd_dense(c: &mut Dense2<i64>, a: &Dcsr<i64>, b: &Csr<i64>) {
        c(i, j) = gcd(a(i, j), b(i, j))
    }

    fn gcd_rows(y: &mut Dense1<i64>, a: &Csr<i64>) {
        y(i) = gcd[j](a(i, j))
    }
}

#[test]
fn gcd_with_cases_matches_reference() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let ae = int_entries(&shape, density, case_seed(seed, &shape, 0));
            let be = int_entries(
                &shape,
                other_density(density, seed, 1),
                case_seed(seed, &shape, 1),
            );
            let want = map2(
                &DenseT::from_entries(&shape, &ae),
                &DenseT::from_entries(&shape, &be),
                gcd_ref,
            );
            let case = (shape, density, seed);
            let mut c: Csr<i64> = build(&shape, &[]);
            gcd_csr(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
            assert_same(&logical(&c), &want, case);
            // Stored: the union of the operands' patterns.
            let union: Pattern = pattern(&ae).union(&pattern(&be)).cloned().collect();
            assert_eq!(
                stored(&c).into_iter().collect::<Pattern>(),
                union,
                "{case:?}"
            );
            revalidate(&c);
            let mut d = Dense2::<i64>::zeros(shape[0], shape[1]);
            gcd_dense(&mut d, &build(&shape, &ae), &build(&shape, &be)).unwrap();
            assert_same(&logical(&d), &want, case);
            // A reduction by gcd: the gcd of each row.
            let mut y = Dense1::<i64>::zeros(shape[0]);
            gcd_rows(&mut y, &build(&shape, &ae)).unwrap();
            let ad = DenseT::from_entries(&shape, &ae);
            for i in 0..shape[0] {
                let g = (0..shape[1]).fold(0, |g, j| gcd_ref(g, ad.get(&[i, j])));
                assert_eq!(y.vals()[i], g, "row {i} of {case:?}");
            }
        });
    }
    for n in VECTOR_LENGTHS {
        let ae = int_entries(&[n], 0.4, n as u64);
        let be = int_entries(&[n], 0.6, n as u64 + 9);
        let mut c: SparseVec<i64> = build(&[n], &[]);
        gcd_vec(&mut c, &build(&[n], &ae), &build(&[n], &be)).unwrap();
        let want = map2(
            &DenseT::from_entries(&[n], &ae),
            &DenseT::from_entries(&[n], &be),
            gcd_ref,
        );
        assert_same(&logical(&c), &want, n);
    }
}

// ----- NumPy ufuncs with fill 1 (the paper's Figure 20) ----------------------------------------

sparse_kernel! {
    fn xor_one(c: &mut Csr<i64>, #[fill(1)] a: &Csr<i64>, #[fill(1)] b: &Coo<i64>) {
        c(i, j) = xor(a(i, j), b(i, j))
    }

    fn shr_one(c: &mut Csr<i64>, #[fill(1)] a: &Csr<i64>, #[fill(1)] b: &Dcsr<i64>) {
        c(i, j) = shr(a(i, j), b(i, j))
    }

    fn ldexp_one(c: &mut Csr<f64>, #[fill(1)] a: &Csr<f64>, #[fill(1)] b: &Csr<f64>) {
        c(i, j) = ldexp(a(i, j), b(i, j))
    }

    fn pow_one(c: &mut Csr<f64>, #[fill(1)] a: &Csr<f64>, #[fill(1)] b: &Coo<f64>) {
        c(i, j) = pow(a(i, j), b(i, j))
    }

    fn pow_one_dense(c: &mut Dense2<f64>, #[fill(1)] a: &Dcsr<f64>, #[fill(1)] b: &Csr<f64>) {
        c(i, j) = pow(a(i, j), b(i, j))
    }
}

fn truth(x: i64) -> bool {
    x != 0
}

fn shr_ref(a: i64, n: i64) -> i64 {
    if (0..64).contains(&n) {
        a >> n
    } else if a < 0 {
        -1
    } else {
        0
    }
}

#[test]
fn ufuncs_with_fill_one_match_reference() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = int_entries(&shape, density, case_seed(seed, &shape, 2));
            let be = int_entries(
                &shape,
                other_density(density, seed, 3),
                case_seed(seed, &shape, 3),
            );
            let a: Csr<i64> = build_filled(&shape, &ae, 1);
            let (ad, bd) = (
                logical(&a),
                logical(&build_filled::<i64, (Dense, Compressed), Identity>(
                    &shape, &be, 1,
                )),
            );
            let mut c: Csr<i64> = build(&shape, &[]);
            xor_one(&mut c, &a, &build_filled(&shape, &be, 1)).unwrap();
            assert_same(
                &logical(&c),
                &map2(&ad, &bd, |x, y| i64::from(truth(x) ^ truth(y))),
                case,
            );
            assert_eq!(c.fill(), 0, "xor(1, 1) is the output's fill");
            // Shifts by small amounts only (the data is -6..=6, so some are negative).
            shr_one(&mut c, &a, &build_filled(&shape, &be, 1)).unwrap();
            assert_same(&logical(&c), &map2(&ad, &bd, shr_ref), case);

            let fe = float_entries(&shape, density, case_seed(seed, &shape, 4));
            let ge = float_entries(
                &shape,
                other_density(density, seed, 5),
                case_seed(seed, &shape, 5),
            );
            let f: Csr<f64> = build_filled(&shape, &fe, 1.0);
            let (fd, gd) = (
                logical(&f),
                logical(&build_filled::<f64, (Dense, Compressed), Identity>(
                    &shape, &ge, 1.0,
                )),
            );
            let mut c: Csr<f64> = build(&shape, &[]);
            ldexp_one(&mut c, &f, &build_filled(&shape, &ge, 1.0)).unwrap();
            let ldexp_ref = |x: f64, e: f64| if x == 0.0 { x } else { x * e.exp2() };
            assert_same(&logical(&c), &map2(&fd, &gd, ldexp_ref), case);
            assert_eq!(c.fill(), 2.0);
            pow_one(&mut c, &f, &build_filled(&shape, &ge, 1.0)).unwrap();
            assert_same(&logical(&c), &map2(&fd, &gd, f64::powf), case);
            // `pow(1, y) == 1`: the fill 1 annihilates, so only `a`'s pattern is stored.
            assert!(pattern(&c.entries()).is_subset(&pattern(&fe)), "{case:?}");
            assert_eq!(c.fill(), 1.0);
            let mut d = Dense2::<f64>::zeros(shape[0], shape[1]);
            pow_one_dense(
                &mut d,
                &build_filled(&shape, &fe, 1.0),
                &build_filled(&shape, &ge, 1.0),
            )
            .unwrap();
            assert_same(&logical(&d), &map2(&fd, &gd, f64::powf), case);
        });
    }
}

// ----- min and max over infinity-filled matrices ------------------------------------------------

sparse_kernel! {
    fn row_min(y: &mut Dense1<f64>, #[fill(inf)] a: &Csr<f64>) {
        y(i) = min[j](a(i, j))
    }

    fn row_max(y: &mut SparseVec<f64>, #[fill(-inf)] a: &Dcsr<f64>) {
        y(i) = max[j](a(i, j))
    }

    fn col_min(y: &mut Dense1<f64>, #[fill(inf)] a: &Csc<f64>) {
        y(j) = min[i](a(i, j))
    }

    fn all_min(s: &mut f64, #[fill(inf)] a: &Coo<f64>) {
        s = min[i](min[j](a(i, j)))
    }

    fn pairwise_min(c: &mut Csr<f64>, #[fill(inf)] a: &Csr<f64>, #[fill(inf)] b: &Coo<f64>) {
        c(i, j) = min(a(i, j), b(i, j))
    }

    fn pairwise_max_dense(c: &mut Dense2<f64>, #[fill(-inf)] a: &Csr<f64>, b: &Dense2<f64>) {
        c(i, j) = max(a(i, j), b(i, j))
    }

    /// The fill 0 is not min's identity: every coordinate takes part.
    fn row_min_zero_filled(y: &mut Dense1<f64>, a: &Csr<f64>) {
        y(i) = min[j](a(i, j))
    }
}

fn fmin(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

fn fmax(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

#[test]
fn min_max_over_infinity_filled_matrices() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = float_entries(&shape, density, case_seed(seed, &shape, 6));
            let be = float_entries(
                &shape,
                other_density(density, seed, 7),
                case_seed(seed, &shape, 7),
            );
            let (m, n) = (shape[0], shape[1]);
            let inf_a: Csr<f64> = build_filled(&shape, &ae, f64::INFINITY);
            let ad = logical(&inf_a);
            let mut y = Dense1::<f64>::zeros(m);
            row_min(&mut y, &inf_a).unwrap();
            for i in 0..m {
                let want = (0..n).fold(f64::INFINITY, |s, j| fmin(s, ad.get(&[i, j])));
                assert_eq!(y.vals()[i], want, "row {i} of {case:?}");
            }
            let neg: Dcsr<f64> = build_filled(&shape, &ae, f64::NEG_INFINITY);
            let nd = logical(&neg);
            let mut ys: SparseVec<f64> = build(&[m], &[]);
            row_max(&mut ys, &neg).unwrap();
            let ysd = logical(&ys);
            for i in 0..m {
                let want = (0..n).fold(f64::NEG_INFINITY, |s, j| fmax(s, nd.get(&[i, j])));
                assert_eq!(ysd.get(&[i]), want, "row {i} of {case:?}");
            }
            assert_eq!(ys.fill(), f64::NEG_INFINITY);
            let mut yc = Dense1::<f64>::zeros(n);
            col_min(&mut yc, &build_filled(&shape, &ae, f64::INFINITY)).unwrap();
            for j in 0..n {
                let want = (0..m).fold(f64::INFINITY, |s, i| fmin(s, ad.get(&[i, j])));
                assert_eq!(yc.vals()[j], want, "column {j} of {case:?}");
            }
            let mut s = 0.0;
            all_min(&mut s, &build_filled(&shape, &ae, f64::INFINITY)).unwrap();
            assert_eq!(
                s,
                ad.data.iter().copied().fold(f64::INFINITY, fmin),
                "{case:?}"
            );
            let b: Coo<f64> = build_filled(&shape, &be, f64::INFINITY);
            let mut c: Csr<f64> = build(&shape, &[]);
            pairwise_min(&mut c, &inf_a, &b).unwrap();
            assert_same(&logical(&c), &map2(&ad, &logical(&b), fmin), case);
            assert_eq!(c.fill(), f64::INFINITY);
            let bd: Dense2<f64> = build(&shape, &be);
            let mut cd = Dense2::<f64>::zeros(shape[0], shape[1]);
            let neg_csr: Csr<f64> = build_filled(&shape, &ae, f64::NEG_INFINITY);
            pairwise_max_dense(&mut cd, &neg_csr, &bd).unwrap();
            assert_same(
                &logical(&cd),
                &map2(&logical(&neg_csr), &logical(&bd), fmax),
                case,
            );
            let zero_a: Csr<f64> = build(&shape, &ae);
            let zd = logical(&zero_a);
            row_min_zero_filled(&mut y, &zero_a).unwrap();
            for i in 0..m {
                let want = (0..n).fold(f64::INFINITY, |s, j| fmin(s, zd.get(&[i, j])));
                assert_eq!(y.vals()[i], want, "row {i} of {case:?} (zero fill)");
            }
        });
    }
}

#[test]
fn a_fill_value_that_differs_is_an_error() {
    let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1].as_slice(), 1.0)]).unwrap();
    let mut y = Dense1::<f64>::zeros(2);
    let e = row_min(&mut y, &a).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("fill value") && text.contains('a'), "{text}");
    // Nothing was written.
    assert_eq!(y.vals(), &[0.0, 0.0]);
}

// ----- graphs: one BFS step (boolean semiring, complemented mask), SSSP (min-plus) ------------

sparse_kernel! {
    /// The next frontier of a breadth-first search: vertices with an edge from the frontier
    /// (`any` over `and`: the boolean semiring) that are not visited yet (`!visited`).
    fn bfs_step(next: &mut SparseVec<u8>, graph: &Csr<u8>, frontier: &SparseVec<u8>, visited: &SparseVec<u8>) {
        next(i) = and(any[j](and(graph(i, j), frontier(j))), not(visited(i)))
    }

    /// The same mask as a function with an explicit iteration algebra: `x` where `m` is
    /// not stored, nothing where it is.
    #[function(iterate(x & !m))]
    fn unless(x: u8, m: u8) -> u8 {
        if m != 0 { 0 } else { x }
    }

    fn bfs_step_unless(next: &mut SparseVec<u8>, graph: &Csr<u8>, frontier: &SparseVec<u8>, visited: &SparseVec<u8>) {
        next(i) = unless(any[j](and(graph(i, j), frontier(j))), visited(i))
    }

    /// Addition in the tropical semiring: infinity (no path) annihilates it.
    #[function(commutative, associative, identity = 0, annihilator = inf)]
    fn plus(a: f64, b: f64) -> f64 {
        a + b
    }

    /// One Bellman-Ford relaxation over the transposed graph: `d'(i) = min(d(i), min_j
    /// w(i, j) + d(j))`, only the stored edges visited.
    fn relax(out: &mut Dense1<f64>, #[fill(inf)] w: &Csr<f64>, d: &Dense1<f64>) {
        out(i) = min(d(i), min[j](plus(w(i, j), d(j))))
    }

    fn relax_sparse(out: &mut SparseVec<f64>, #[fill(inf)] w: &Dcsr<f64>, #[fill(inf)] d: &SparseVec<f64>) {
        out(i) = min(d(i), min[j](plus(w(i, j), d(j))))
    }
}

fn bool_entries(shape: &[usize], density: f64, seed: u64) -> Entries<u8> {
    let mut rng = Rng::new(seed ^ 0xb00);
    coordinates(shape)
        .into_iter()
        .filter_map(|c| {
            if !rng.chance(density) {
                return None;
            }
            Some((c, u8::from(rng.chance(0.8))))
        })
        .collect()
}

#[test]
fn bfs_step_with_complemented_mask() {
    for n in [0usize, 1, 2, 7, 30, 64] {
        for seed in SEEDS {
            for density in DENSITIES {
                let case = (n, seed, density);
                let ge = bool_entries(&[n, n], density, seed);
                let fe = bool_entries(&[n], 0.3, seed + 1);
                let ve = bool_entries(&[n], 0.5, seed + 2);
                let (g, f, v) = (
                    build::<u8, _, _>(&[n, n], &ge),
                    build::<u8, _, _>(&[n], &fe),
                    build::<u8, _, _>(&[n], &ve),
                );
                let (gd, fd, vd) = (logical(&g), logical(&f), logical(&v));
                let want: Vec<u8> = (0..n)
                    .map(|i| {
                        let reached = (0..n).any(|j| gd.get(&[i, j]) != 0 && fd.get(&[j]) != 0);
                        u8::from(reached && vd.get(&[i]) == 0)
                    })
                    .collect();
                let mut next: SparseVec<u8> = build(&[n], &[]);
                bfs_step(&mut next, &g, &f, &v).unwrap();
                assert_eq!(logical(&next).data, want, "{case:?}");
                revalidate(&next);
                // `iterate(x & !m)` is a promise about stored coordinates: the mask is
                // structural, an explicitly stored 0 in `visited` masks too.
                let visited = pattern(&ve);
                let structural: Vec<u8> = (0..n)
                    .map(|i| {
                        let reached = (0..n).any(|j| gd.get(&[i, j]) != 0 && fd.get(&[j]) != 0);
                        u8::from(reached && !visited.contains(&vec![i]))
                    })
                    .collect();
                bfs_step_unless(&mut next, &g, &f, &v).unwrap();
                assert_eq!(logical(&next).data, structural, "unless, {case:?}");
                // The explicit algebra stores nothing where `visited` is stored.
                for (c, _) in next.entries() {
                    assert!(!pattern(&ve).contains(&c), "{case:?}: {c:?} stored");
                }
            }
        }
    }
}

#[test]
fn sssp_relaxation_with_min_plus() {
    for n in [0usize, 1, 2, 7, 30, 64] {
        for seed in SEEDS {
            for density in DENSITIES {
                let case = (n, seed, density);
                let mut rng = Rng::new(seed ^ n as u64);
                let we: Entries<f64> = coordinates(&[n, n])
                    .into_iter()
                    .filter_map(|c| {
                        if !rng.chance(density) {
                            return None;
                        }
                        Some((c, (1 + rng.below(9)) as f64))
                    })
                    .collect();
                let de: Entries<f64> = (0..n)
                    .filter_map(|i| {
                        if !rng.chance(0.4) {
                            return None;
                        }
                        Some((vec![i], rng.below(20) as f64))
                    })
                    .collect();
                let w: Csr<f64> = build_filled(&[n, n], &we, f64::INFINITY);
                let ds: SparseVec<f64> = build_filled(&[n], &de, f64::INFINITY);
                let (wd, dd) = (logical(&w), logical(&ds));
                let want: Vec<f64> = (0..n)
                    .map(|i| {
                        (0..n).fold(dd.get(&[i]), |m, j| fmin(m, wd.get(&[i, j]) + dd.get(&[j])))
                    })
                    .collect();
                let d = Dense1::from_vec(dd.data.clone());
                let mut out = Dense1::<f64>::zeros(n);
                relax(&mut out, &w, &d).unwrap();
                assert_eq!(out.vals(), &want[..], "{case:?}");
                let mut sparse: SparseVec<f64> = build(&[n], &[]);
                relax_sparse(&mut sparse, &build_filled(&[n, n], &we, f64::INFINITY), &ds).unwrap();
                assert_eq!(logical(&sparse).data, want, "sparse, {case:?}");
                assert_eq!(sparse.fill(), f64::INFINITY);
            }
        }
    }
}

// ----- fused expressions -------------------------------------------------------------------------

sparse_kernel! {
    fn and_xor(d: &mut Csr<i64>, a: &Csr<i64>, b: &Coo<i64>, c: &Dcsr<i64>) {
        d(i, j) = and(xor(a(i, j), b(i, j)), c(i, j))
    }

    fn and_xor_dense(d: &mut Dense2<i64>, a: &Csr<i64>, b: &Csr<i64>, c: &Csr<i64>) {
        d(i, j) = and(xor(a(i, j), b(i, j)), c(i, j))
    }
}

#[test]
fn fused_and_of_xor_visits_only_c() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = int_entries(&shape, density, case_seed(seed, &shape, 8));
            let be = int_entries(
                &shape,
                other_density(density, seed, 9),
                case_seed(seed, &shape, 9),
            );
            let ce = int_entries(
                &shape,
                other_density(density, seed, 10),
                case_seed(seed, &shape, 10),
            );
            let (ad, bd, cd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
                DenseT::from_entries(&shape, &ce),
            );
            let x = map2(&ad, &bd, |x, y| i64::from(truth(x) ^ truth(y)));
            let want = map2(&x, &cd, |x, y| i64::from(truth(x) && truth(y)));
            let mut d: Csr<i64> = build(&shape, &[]);
            and_xor(
                &mut d,
                &build(&shape, &ae),
                &build(&shape, &be),
                &build(&shape, &ce),
            )
            .unwrap();
            assert_same(&logical(&d), &want, case);
            // Stored only where c is and a or b is.
            let ab: Pattern = pattern(&ae).union(&pattern(&be)).cloned().collect();
            let space: Pattern = pattern(&ce).intersection(&ab).cloned().collect();
            assert_eq!(
                stored(&d).into_iter().collect::<Pattern>(),
                space,
                "{case:?}"
            );
            let mut dd = Dense2::<i64>::zeros(shape[0], shape[1]);
            and_xor_dense(
                &mut dd,
                &build(&shape, &ae),
                &build(&shape, &be),
                &build(&shape, &ce),
            )
            .unwrap();
            assert_same(&logical(&dd), &want, case);
        });
    }
}

// ----- fill values through operators ------------------------------------------------------------

sparse_kernel! {
    fn add_filled(c: &mut Csr<f64>, #[fill(2)] a: &Csr<f64>, #[fill(-0.5)] b: &Coo<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }

    fn mul_filled(c: &mut Dense2<f64>, #[fill(2)] a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) * b(i, j)
    }

    fn divide_by_filled(c: &mut Csr<f64>, a: &Csr<f64>, #[fill(4)] b: &Csr<f64>) {
        c(i, j) = a(i, j) / b(i, j)
    }

    fn add_into_filled(#[fill(1)] c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) += a(i, j)
    }

    fn add_into_dense(c: &mut Dense2<f64>, #[fill(3)] a: &Csr<f64>) {
        c(i, j) += a(i, j)
    }

    fn spmv_filled(y: &mut Dense1<f64>, #[fill(1)] a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

#[test]
fn operators_over_fill_values() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = float_entries(&shape, density, case_seed(seed, &shape, 11));
            let be = float_entries(
                &shape,
                other_density(density, seed, 12),
                case_seed(seed, &shape, 12),
            )
            .into_iter()
            .filter(|(_, v)| *v != 0.0)
            .collect::<Entries<f64>>();
            let a2: Csr<f64> = build_filled(&shape, &ae, 2.0);
            let bm: Coo<f64> = build_filled(&shape, &be, -0.5);
            let mut c: Csr<f64> = build(&shape, &[]);
            add_filled(&mut c, &a2, &bm).unwrap();
            assert_same(
                &logical(&c),
                &map2(&logical(&a2), &logical(&bm), |x, y| x + y),
                case,
            );
            assert_eq!(c.fill(), 1.5);
            let b0: Csr<f64> = build(&shape, &be);
            let mut d = Dense2::<f64>::zeros(shape[0], shape[1]);
            mul_filled(&mut d, &a2, &b0).unwrap();
            assert_same(
                &logical(&d),
                &map2(&logical(&a2), &logical(&b0), |x, y| x * y),
                case,
            );
            let b4: Csr<f64> = build_filled(&shape, &be, 4.0);
            let a0: Csr<f64> = build(&shape, &ae);
            divide_by_filled(&mut c, &a0, &b4).unwrap();
            assert_same(
                &logical(&c),
                &map2(&logical(&a0), &logical(&b4), |x, y| x / y),
                case,
            );
            let mut acc: Csr<f64> = build_filled(&shape, &be, 1.0);
            let before = logical(&acc);
            add_into_filled(&mut acc, &a0).unwrap();
            assert_same(
                &logical(&acc),
                &map2(&before, &logical(&a0), |x, y| x + y),
                case,
            );
            let mut dense: Dense2<f64> = build(&shape, &be);
            let before = logical(&dense);
            let a3: Csr<f64> = build_filled(&shape, &ae, 3.0);
            add_into_dense(&mut dense, &a3).unwrap();
            assert_same(
                &logical(&dense),
                &map2(&before, &logical(&a3), |x, y| x + y),
                case,
            );
            let (x, xd) = dense_vec(shape[1], seed);
            let mut y = Dense1::<f64>::zeros(shape[0]);
            let a1: Csr<f64> = build_filled(&shape, &ae, 1.0);
            spmv_filled(&mut y, &a1, &x).unwrap();
            let ad = logical(&a1);
            for i in 0..shape[0] {
                let want: f64 = (0..shape[1]).map(|j| ad.get(&[i, j]) * xd.get(&[j])).sum();
                assert!(
                    close(y.vals()[i], want, 1e-12),
                    "row {i} of {case:?}: {} vs {want}",
                    y.vals()[i]
                );
            }
        });
    }
}

// ----- several statements ---------------------------------------------------------------------

sparse_kernel! {
    /// The smallest stored distance, then every distance's excess over it, as one kernel.
    fn excess(out: &mut Csr<f64>, best: &mut f64, #[fill(inf)] d: &Csr<f64>) {
        let m = min[i](min[j](d(i, j)));
        best = m;
        out(i, j) = d(i, j) - m;
    }
}

#[test]
fn functions_and_fills_in_a_sequence() {
    let inf = f64::INFINITY;
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let de = float_entries(&shape, density, case_seed(seed, &shape, 13));
            let d: Csr<f64> = build_filled(&shape, &de, inf);
            let dd = logical(&d);
            let m = dd.data.iter().copied().fold(inf, fmin);
            let mut out: Csr<f64> = build(&shape, &[]);
            let mut best = 0.0;
            excess(&mut out, &mut best, &d).unwrap();
            assert_eq!(best, m, "{shape:?} {density} {seed}");
            let mut want = dd.clone();
            for v in &mut want.data {
                *v -= m;
            }
            assert_same(&logical(&out), &want, (shape, density, seed));
        });
    }
}

// ----- reproducers from the differential tester --------------------------------------------------

sparse_kernel! {
    /// CI kernel 62: a structural mask on a hash level is located, so whether it holds the
    /// coordinate is a run-time flag; the omitter point must not skip every coordinate.
    #[function(iterate(x & !m))]
    fn unless_f(x: f64, m: f64) -> f64 {
        if m != 0.0 { 0.0 } else { x }
    }

    fn hash_masked(u: &mut HashVec<f64>, v: &SparseVec<f64>, m: &HashVec<f64>) {
        u(j) = unless_f(v(j), m(j))
    }

    /// CI kernel 52: a term with fill 2 is not zero outside its loops, so the statement is
    /// not split into a nest per term (CSC's product would want its own).
    fn residual_filled(r: &mut Dense1<f64>, #[fill(2)] b: &SparseVec<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
        r(i) = b(i) - a(i, j) * x(j)
    }

    /// CI kernel 296: `xor` has no identity (`xor(0, -1)` is 1, not -1): the output's fill is 1.
    fn xor_filled(c: &mut SparseVec<i64>, a: &SparseVec<i64>, #[fill(-1)] b: &SparseVec<i64>) {
        c(i) = xor(a(i), b(i))
    }
}

#[test]
fn tester_reproducers() {
    for n in VECTOR_LENGTHS {
        sweep(|density, seed| {
            let case = (n, density, seed);
            let ve = float_entries(&[n], density, case_seed(seed, &[n], 20));
            let me = float_entries(
                &[n],
                other_density(density, seed, 21),
                case_seed(seed, &[n], 21),
            );
            let (v, m): (SparseVec<f64>, HashVec<f64>) = (build(&[n], &ve), build(&[n], &me));
            let mut u: HashVec<f64> = build(&[n], &[]);
            hash_masked(&mut u, &v, &m).unwrap();
            let masked = pattern(&me);
            let vd = logical(&v);
            let want: Vec<f64> = (0..n)
                .map(|i| {
                    if masked.contains(&vec![i]) {
                        0.0
                    } else {
                        vd.get(&[i])
                    }
                })
                .collect();
            assert_eq!(logical(&u).data, want, "hash mask {case:?}");

            let b: SparseVec<f64> = build_filled(&[n], &ve, 2.0);
            let ae = float_entries(&[n, n], density, case_seed(seed, &[n, n], 22));
            let (x, xd) = dense_vec(n, seed);
            let mut r = Dense1::zeros(n);
            residual_filled(&mut r, &b, &build(&[n, n], &ae), &x).unwrap();
            let (bd, ad) = (logical(&b), DenseT::from_entries(&[n, n], &ae));
            let want = matvec(&ad, &xd);
            for i in 0..n {
                let w = bd.get(&[i]) - want.get(&[i]);
                assert!(close(r.vals()[i], w, 1e-12), "residual {case:?} row {i}");
            }

            let ie = int_entries(&[n], density, case_seed(seed, &[n], 23));
            let je = int_entries(
                &[n],
                other_density(density, seed, 24),
                case_seed(seed, &[n], 24),
            );
            let (ia, jb): (SparseVec<i64>, SparseVec<i64>) =
                (build(&[n], &ie), build_filled(&[n], &je, -1));
            let mut c: SparseVec<i64> = build(&[n], &[]);
            xor_filled(&mut c, &ia, &jb).unwrap();
            assert_eq!(c.fill(), 1, "{case:?}");
            let want = map2(&logical(&ia), &logical(&jb), |x, y| {
                i64::from(truth(x) ^ truth(y))
            });
            assert_same(&logical(&c), &want, case);
        });
    }
}

sparse_kernel! {
    /// CI kernel 74: `+=` into a sparse output over a structural mask: the omitted points'
    /// operands are still merged, so every point's drivers are its top point's.
    #[function(iterate(x & !m))]
    fn unless_g(x: f64, m: f64) -> f64 {
        if m != 0.0 { 0.0 } else { x }
    }

    fn masked_into(a: &mut Csr<f64>, t: &Csf3<f64>, r: &SparseVec<f64>, d: &SparseVec<f64>) {
        a(j, i) += unless_g(t(j, i, n) * r(n), d(j))
    }
}

#[test]
fn masked_add_into_a_sparse_output() {
    for seed in SEEDS {
        for density in DENSITIES {
            let shape = [5, 4, 6];
            let te = float_entries(&shape, density, seed);
            let re = float_entries(&[6], 0.5, seed + 1);
            let de = float_entries(&[5], 0.4, seed + 2);
            let ae = float_entries(&[5, 4], 0.3, seed + 3);
            let mut a: Csr<f64> = build(&[5, 4], &ae);
            let before = logical(&a);
            masked_into(
                &mut a,
                &build(&shape, &te),
                &build(&[6], &re),
                &build(&[5], &de),
            )
            .unwrap();
            let (td, rd) = (
                DenseT::from_entries(&shape, &te),
                DenseT::from_entries(&[6], &re),
            );
            let masked = pattern(&de);
            let mut want = before.clone();
            for j in 0..5 {
                if masked.contains(&vec![j]) {
                    continue;
                }
                for i in 0..4 {
                    let s: f64 = (0..6).map(|n| td.get(&[j, i, n]) * rd.get(&[n])).sum();
                    want.add(&[j, i], s);
                }
            }
            let got = logical(&a);
            for (g, w) in got.data.iter().zip(&want.data) {
                assert!(
                    close(*g, *w, 1e-12),
                    "{seed} {density}: {:?} vs {:?}",
                    got.data,
                    want.data
                );
            }
        }
    }
}

sparse_kernel! {
    /// CI kernel 289: `gt(-1, 0)` is folded to 0, so the sum over `r` is present only where
    /// a term is stored, and the output's fill value is `not(0) = 1`.
    fn not_any_greater(y: &mut Csr<f64>, #[fill(-1)] x: &Csf3<f64>, u: &SparseVec<f64>) {
        y(i, j) = not(gt(x(j, i, r), u(r)))
    }

    /// Sweep kernel 40021737: a sum whose body's fill value is not 0 covers its dimension,
    /// over an empty one too (where it is 0): every component is stored.
    fn plus_covering_sum(d: &mut Csr<f64>, #[fill(-1)] a: &SparseVec<f64>, w: &Csr<f64>) {
        d(j, n) = a(n) + sum[k](exp(w(j, k)))
    }

    /// A minimum over a zero-filled row covers it: `inf` over an empty one, stored.
    fn sparse_row_min(y: &mut SparseVec<f64>, a: &Csr<f64>) {
        y(i) = min[j](a(i, j))
    }
}

#[test]
fn covering_reductions_over_empty_dimensions() {
    for (m, n, r) in [
        (3, 4, 2),
        (3, 4, 0),
        (0, 2, 3),
        (2, 0, 1),
        (1, 1, 1),
        (4, 3, 5),
    ] {
        sweep(|density, seed| {
            let case = (m, n, r, density, seed);
            let xe = float_entries(&[n, m, r], density, case_seed(seed, &[n, m, r], 30));
            let ue = float_entries(&[r], density, case_seed(seed, &[r], 31));
            let (x, u): (Csf3<f64>, SparseVec<f64>) =
                (build_filled(&[n, m, r], &xe, -1.0), build(&[r], &ue));
            let mut y: Csr<f64> = build(&[m, n], &[]);
            not_any_greater(&mut y, &x, &u).unwrap();
            assert_eq!(y.fill(), 1.0, "{case:?}");
            let (xd, ud) = (logical(&x), logical(&u));
            let stored_x = pattern(&xe);
            let stored_u = pattern(&ue);
            for i in 0..m {
                for j in 0..n {
                    let s: f64 = (0..r)
                        .map(|k| f64::from(u8::from(xd.get(&[j, i, k]) > ud.get(&[k]))))
                        .sum();
                    let want = f64::from(u8::from(s == 0.0));
                    assert_eq!(logical(&y).get(&[i, j]), want, "{case:?} at {i},{j}");
                    let any = (0..r)
                        .any(|k| stored_x.contains(&vec![j, i, k]) || stored_u.contains(&vec![k]));
                    let stored = y.entries().iter().any(|(c, _)| *c == [i, j]);
                    assert_eq!(stored, any, "{case:?}: stored pattern at {i},{j}");
                }
            }

            let ae = float_entries(&[n], density, case_seed(seed, &[n], 32));
            let we = float_entries(&[m, r], density, case_seed(seed, &[m, r], 33));
            let (a, w): (SparseVec<f64>, Csr<f64>) =
                (build_filled(&[n], &ae, -1.0), build(&[m, r], &we));
            let mut d: Csr<f64> = build(&[m, n], &[]);
            plus_covering_sum(&mut d, &a, &w).unwrap();
            assert_eq!(d.entries().len(), m * n, "{case:?}: every component stored");
            let (ad, wd) = (logical(&a), logical(&w));
            for j in 0..m {
                let s: f64 = (0..r).map(|k| wd.get(&[j, k]).exp()).sum();
                for k in 0..n {
                    let want = ad.get(&[k]) + s;
                    assert!(close(logical(&d).get(&[j, k]), want, 1e-12), "{case:?}");
                }
            }

            let mut y: SparseVec<f64> = build(&[m], &[]);
            sparse_row_min(&mut y, &w).unwrap();
            assert_eq!(y.entries().len(), m, "{case:?}: every row stored");
            for i in 0..m {
                let want = (0..r).map(|k| wd.get(&[i, k])).fold(f64::INFINITY, fmin);
                assert_eq!(logical(&y).get(&[i]), want, "{case:?} row {i}");
            }
        });
    }
}

sparse_kernel! {
    /// Sweep kernel 1000202: the root sum over `k` is opened outside `i` (a `Dcsc` is stored
    /// by columns) and covers its dimension: every `i` of a stored column adds the fill too.
    fn column_sums_filled(f: &mut HashVec<i64>, #[fill(1)] z: &Dcsc<i64>) {
        f(i) = sum[k](z(i, k))
    }

    #[function(iterate(x & !m))]
    fn unless_at(x: f64, m: f64) -> f64 {
        if m != 0.0 { 0.0 } else { x }
    }

    /// Sweep kernel 1000052: the mask is decided by the inner loop, so the outer loop may
    /// not take the mask's absence for its presence (it computed nothing at all).
    fn masked_columns(a: &mut Dense2<f64>, #[fill(-1.0)] g: &Coo<f64>, b: &Dense2<f64>, f: &HashVec<f64>) {
        a(i, l) = unless_at(g(i, l) + b(i, l), f(l))
    }
}

#[test]
fn opened_covering_sums_and_masks_decided_below() {
    for (m, n) in [(3, 4), (1, 1), (4, 2), (5, 5)] {
        sweep(|density, seed| {
            let case = (m, n, density, seed);
            let ze = int_entries(&[m, n], density, case_seed(seed, &[m, n], 40));
            let z: Dcsc<i64> = build_filled(&[m, n], &ze, 1);
            let mut f: HashVec<i64> = build(&[m], &[]);
            column_sums_filled(&mut f, &z).unwrap();
            let zd = logical(&z);
            for i in 0..m {
                let want: i64 = (0..n).map(|k| zd.get(&[i, k])).sum();
                assert_eq!(logical(&f).get(&[i]), want, "{case:?} row {i}");
            }

            let ge = float_entries(&[m, n], density, case_seed(seed, &[m, n], 41));
            let fe = float_entries(&[n], density, case_seed(seed, &[n], 42));
            let be = float_entries(&[m, n], 0.7, case_seed(seed, &[m, n], 43));
            let (bv, bd): (Dense2<f64>, _) =
                (build(&[m, n], &be), DenseT::from_entries(&[m, n], &be));
            let g: Coo<f64> = build_filled(&[m, n], &ge, -1.0);
            let mask: HashVec<f64> = build(&[n], &fe);
            let mut a: Dense2<f64> = build(&[m, n], &[]);
            masked_columns(&mut a, &g, &bv, &mask).unwrap();
            let (gd, masked) = (logical(&g), pattern(&fe));
            for i in 0..m {
                for l in 0..n {
                    let want = if masked.contains(&vec![l]) {
                        -1.0 // unless(-1 + b, m) outside its region: its fill, unless(-1 + 0, 0)
                    } else {
                        gd.get(&[i, l]) + bd.get(&[i, l])
                    };
                    let got = logical(&a).get(&[i, l]);
                    assert!(
                        close(got, want, 1e-12),
                        "{case:?} at {i},{l}: {got} vs {want}"
                    );
                }
            }
        });
    }
}

sparse_kernel! {
    #[function(iterate(x & !m))]
    fn unless_i(x: i64, m: i64) -> i64 {
        if m != 0 { 0 } else { x }
    }

    /// Sweep kernel 1000563: a hash mask decided at `i` is a run-time `found`; the loop over
    /// `j` below it may not take the mask for present (it looped `while false`).
    fn hash_masked_rows(f: &mut HashMat<i64>, a: &Dense2<i64>, z: &HashVec<i64>) {
        f(i, j) = unless_i(a(i, j), z(i))
    }

    /// Sweep kernel 1003823: `unless` at an omitter point inside a union with a located hash
    /// mask: whether it is omitted is known at run time only.
    fn add_unmasked(z: &mut Dense2<f64>, b: &Dense2<f64>, w: &HashVec<f64>) {
        z(j, l) += unless_h(b(j, l), w(l))
    }

    #[function(iterate(x & !m))]
    fn unless_h(x: f64, m: f64) -> f64 {
        if m != 0.0 { 0.0 } else { x }
    }

    /// Sweep kernel 1003486: a quotient by a dense divisor is present everywhere; its fill
    /// `(0 - 1) / 0` is never computed (an integer division by zero panicked).
    fn int_quotient(f: &mut SparseVec<i64>, d: &SparseVec<i64>, w: &Dense1<i64>, a: &Dense1<i64>) {
        f(j) = (w(j) - abs(not(d(j)))) / a(j)
    }
}

#[test]
fn masks_found_at_run_time_and_dense_divisors() {
    for (m, n) in [(3, 4), (1, 1), (4, 2), (5, 5), (0, 3)] {
        sweep(|density, seed| {
            let case = (m, n, density, seed);
            let ae = int_entries(&[m, n], 0.7, case_seed(seed, &[m, n], 50));
            let ze = int_entries(&[m], density, case_seed(seed, &[m], 51));
            let a: Dense2<i64> = build(&[m, n], &ae);
            let z: HashVec<i64> = build(&[m], &ze);
            let mut f: HashMat<i64> = build(&[m, n], &[]);
            hash_masked_rows(&mut f, &a, &z).unwrap();
            let (ad, masked) = (logical(&a), pattern(&ze));
            let stored: Vec<Vec<usize>> = f.entries().into_iter().map(|e| e.0).collect();
            for i in 0..m {
                for j in 0..n {
                    let unmasked = !masked.contains(&vec![i]);
                    assert_eq!(
                        stored.contains(&vec![i, j]),
                        unmasked,
                        "{case:?} at {i},{j}"
                    );
                    let want = if unmasked { ad.get(&[i, j]) } else { 0 };
                    assert_eq!(logical(&f).get(&[i, j]), want, "{case:?} at {i},{j}");
                }
            }

            let be = float_entries(&[m, n], 0.7, case_seed(seed, &[m, n], 52));
            let we = float_entries(&[n], density, case_seed(seed, &[n], 53));
            let ze = float_entries(&[m, n], 0.5, case_seed(seed, &[m, n], 54));
            let b: Dense2<f64> = build(&[m, n], &be);
            let w: HashVec<f64> = build(&[n], &we);
            let mut zz: Dense2<f64> = build(&[m, n], &ze);
            add_unmasked(&mut zz, &b, &w).unwrap();
            let (bd, zd, masked) = (
                logical(&b),
                DenseT::from_entries(&[m, n], &ze),
                pattern(&we),
            );
            for j in 0..m {
                for l in 0..n {
                    let add = if masked.contains(&vec![l]) {
                        0.0
                    } else {
                        bd.get(&[j, l])
                    };
                    let want = zd.get(&[j, l]) + add;
                    assert!(close(logical(&zz).get(&[j, l]), want, 1e-12), "{case:?}");
                }
            }

            let de = int_entries(&[n], density, case_seed(seed, &[n], 55));
            let we = int_entries(&[n], 1.0, case_seed(seed, &[n], 56));
            let ae: Entries<i64> = (0..n).map(|k| (vec![k], (k as i64 % 3) + 1)).collect();
            let (d, wv, av): (SparseVec<i64>, Dense1<i64>, Dense1<i64>) =
                (build(&[n], &de), build(&[n], &we), build(&[n], &ae));
            let mut q: SparseVec<i64> = build(&[n], &[]);
            int_quotient(&mut q, &d, &wv, &av).unwrap();
            let (dd, wd) = (logical(&d), logical(&wv));
            for (k, (_, divisor)) in ae.iter().enumerate() {
                let not_d = i64::from(dd.get(&[k]) == 0);
                let want = (wd.get(&[k]) - not_d.abs()) / divisor;
                assert_eq!(logical(&q).get(&[k]), want, "{case:?} at {k}");
            }
        });
    }
}

sparse_kernel! {
    /// Sweep kernel 3000005: a covering sum summed in a workspace's nests; over an empty `l`
    /// it is 0 and present at every `j`, though its loops run zero times.
    #[schedule(workspace(j))]
    fn covering_in_workspace(y: &mut SparseVec<f64>, #[fill(1.0)] b: &Coo<f64>, u: &Dense1<f64>) {
        y(j) = b(j, l) + u(l)
    }
}

#[test]
fn covering_root_sums_over_empty_dimensions() {
    for (m, n) in [(3, 0), (0, 0), (4, 2), (2, 5)] {
        sweep(|density, seed| {
            let case = (m, n, density, seed);
            let ze = int_entries(&[m, n], density, case_seed(seed, &[m, n], 60));
            let z: Dcsc<i64> = build_filled(&[m, n], &ze, 1);
            let mut f: HashVec<i64> = build(&[m], &[]);
            column_sums_filled(&mut f, &z).unwrap();
            assert_eq!(f.entries().len(), m, "{case:?}: every row stored");
            let zd = logical(&z);
            for i in 0..m {
                let want: i64 = (0..n).map(|k| zd.get(&[i, k])).sum();
                assert_eq!(logical(&f).get(&[i]), want, "{case:?} row {i}");
            }

            let be = float_entries(&[m, n], density, case_seed(seed, &[m, n], 61));
            let (uv, ud) = dense_vec(n, seed);
            let b: Coo<f64> = build_filled(&[m, n], &be, 1.0);
            let mut y: SparseVec<f64> = build(&[m], &[]);
            covering_in_workspace(&mut y, &b, &uv).unwrap();
            assert_eq!(y.entries().len(), m, "{case:?}: every row stored");
            let bd = logical(&b);
            for j in 0..m {
                let want: f64 = (0..n).map(|l| bd.get(&[j, l]) + ud.get(&[l])).sum();
                assert!(
                    close(logical(&y).get(&[j]), want, 1e-12),
                    "{case:?} row {j}"
                );
            }
        });
    }
}

sparse_kernel! {
    /// Sweep kernel 3010551: `+=` into a `Csr` splits off the old contents; the covering sum
    /// accumulates in a workspace below loops over `n` and `k`, and over an empty `k` adds 0
    /// (present) at every coordinate.
    fn split_covering(b: &mut Tensor<f64, (Compressed, Compressed)>, s: f64, #[fill(1.0)] g: &Ell<f64>, a: &Tensor<f64, (Dense, Compressed, Hashed)>, z: &Dense2<f64>, d: &Dcsr<f64>) {
        b(j, i) += s * max(g(j, n), a(j, n, k) * z(n, i) * d(k, i))
    }
}

#[test]
fn split_covering_sum_over_an_empty_dimension() {
    for (jn, in_, nn, kn) in [(3, 4, 2, 0), (2, 3, 0, 2), (3, 2, 2, 3)] {
        sweep(|density, seed| {
            let case = (jn, in_, nn, kn, density, seed);
            let ge = float_entries(&[jn, nn], density, case_seed(seed, &[jn, nn], 70));
            let ae = float_entries(&[jn, nn, kn], density, case_seed(seed, &[jn, nn, kn], 71));
            let ze = float_entries(&[nn, in_], 0.8, case_seed(seed, &[nn, in_], 72));
            let de = float_entries(&[kn, in_], density, case_seed(seed, &[kn, in_], 73));
            let be = float_entries(&[jn, in_], 0.3, case_seed(seed, &[jn, in_], 74));
            let g: Ell<f64> = build_filled(&[jn, nn], &ge, 1.0);
            let a: Tensor<f64, (Dense, Compressed, Hashed)> = build(&[jn, nn, kn], &ae);
            let (zt, d): (Dense2<f64>, Dcsr<f64>) =
                (build(&[nn, in_], &ze), build(&[kn, in_], &de));
            let mut b: Tensor<f64, (Compressed, Compressed)> = build(&[jn, in_], &be);
            let before = logical(&b);
            split_covering(&mut b, 0.5, &g, &a, &zt, &d).unwrap();
            let (gd, ad, zd, dd) = (logical(&g), logical(&a), logical(&zt), logical(&d));
            let got = logical(&b);
            for j in 0..jn {
                for i in 0..in_ {
                    let mut sum = 0.0;
                    for n in 0..nn {
                        for k in 0..kn {
                            let p = ad.get(&[j, n, k]) * zd.get(&[n, i]) * dd.get(&[k, i]);
                            sum += 0.5 * fmax(gd.get(&[j, n]), p);
                        }
                    }
                    let want = before.get(&[j, i]) + sum;
                    assert!(close(got.get(&[j, i]), want, 1e-12), "{case:?} at {j},{i}");
                }
            }
            if nn == 0 || kn == 0 {
                assert_eq!(
                    b.entries().len(),
                    jn * in_,
                    "{case:?}: every coordinate stored"
                );
            }
        });
    }
}

sparse_kernel! {
    /// The assemble/compute split of a covering sum in a workspace: over an empty `l`, the
    /// compute variant stores the 0 of every coordinate the assembling call stored.
    #[schedule(workspace(j), compute(covering_values))]
    fn covering_assembled(y: &mut SparseVec<f64>, #[fill(1.0)] b: &Coo<f64>, u: &Dense1<f64>) {
        y(j) = b(j, l) + u(l)
    }
}

#[test]
fn compute_variant_of_a_covering_sum() {
    for (m, n) in [(3, 0), (4, 2)] {
        sweep(|density, seed| {
            let case = (m, n, density, seed);
            let be = float_entries(&[m, n], density, case_seed(seed, &[m, n], 80));
            let (uv, ud) = dense_vec(n, seed);
            let b: Coo<f64> = build_filled(&[m, n], &be, 1.0);
            let mut y: SparseVec<f64> = build(&[m], &[]);
            covering_assembled(&mut y, &b, &uv).unwrap();
            let mut again = y.clone();
            again.vals_mut().iter_mut().for_each(|v| *v = 99.0);
            covering_values(&mut again, &b, &uv).unwrap();
            let bd = logical(&b);
            for (got, name) in [(&y, "assembled"), (&again, "computed")] {
                assert_eq!(got.entries().len(), m, "{case:?} {name}: every row stored");
                for j in 0..m {
                    let want: f64 = (0..n).map(|l| bd.get(&[j, l]) + ud.get(&[l])).sum();
                    assert!(
                        close(logical(got).get(&[j]), want, 1e-12),
                        "{case:?} {name} row {j}"
                    );
                }
            }
        });
    }
}

sparse_kernel! {
    /// Sweep kernel 3012034: where `v` is absent a lattice point computes `all[j](-c(i, j))`
    /// for `all[j](v(i, j) - c(i, j))`; `0 - (-1)` folds as `-(-1)` does, so both decide the
    /// body's fill 1 (all's unit) alike and neither covers `j`.
    fn all_differences(f: &mut HashVec<i64>, v: &Dcsc<i64>, #[fill(-1)] c: &Ell<i64>) {
        f(i) = all[j](v(i, j) - c(i, j))
    }
}

#[test]
fn all_of_differences_with_a_filled_operand() {
    for (m, n) in [(6, 2), (3, 4), (1, 1), (4, 0)] {
        sweep(|density, seed| {
            let case = (m, n, density, seed);
            let ve = int_entries(&[m, n], density, case_seed(seed, &[m, n], 90));
            let ce = int_entries(&[m, n], density, case_seed(seed, &[m, n], 91));
            let (v, c): (Dcsc<i64>, Ell<i64>) =
                (build(&[m, n], &ve), build_filled(&[m, n], &ce, -1));
            let mut f: HashVec<i64> = build(&[m], &[]);
            all_differences(&mut f, &v, &c).unwrap();
            let (vd, cd) = (logical(&v), logical(&c));
            let (sv, sc) = (pattern(&ve), pattern(&ce));
            for i in 0..m {
                let all = (0..n).all(|j| vd.get(&[i, j]) - cd.get(&[i, j]) != 0);
                assert_eq!(logical(&f).get(&[i]), i64::from(all), "{case:?} row {i}");
                let any = (0..n).any(|j| sv.contains(&vec![i, j]) || sc.contains(&vec![i, j]));
                let stored = f.entries().iter().any(|e| e.0 == [i]);
                assert_eq!(stored, any, "{case:?}: row {i} stored where a term is");
            }
        });
    }
}

sparse_kernel! {
    /// Sweep kernel 3017861: a loop driven by a `Coo3` alone visits positions and writes a
    /// dense output with `+=`, which was pre-filled with the right side's fill value 1
    /// (`exp(lt(0, 0)) * 1`): every stored value came out 1 too large.
    fn exp_lt_times(w: &mut Dense3<f64>, x: &Coo3<f64>, d: &Tensor<f64, (Compressed, Compressed, Dense)>, #[fill(1)] a: &Coo3<f64>) {
        w(i, l, j) = exp(lt(x(i, l, j), d(i, l, j))) * a(i, l, j)
    }
}

#[test]
fn a_fused_loop_into_a_dense_output_with_a_fill() {
    let shape = [4, 2, 3];
    sweep(|density, seed| {
        let xe = float_entries(&shape, density, case_seed(seed, &shape, 100));
        let de = float_entries(&shape, density, case_seed(seed, &shape, 101));
        let ae = float_entries(&shape, density, case_seed(seed, &shape, 102));
        let x: Coo3<f64> = build(&shape, &xe);
        let d: Tensor<f64, (Compressed, Compressed, Dense)> = build(&shape, &de);
        let a: Coo3<f64> = build_filled(&shape, &ae, 1.0);
        let mut w: Dense3<f64> = build(&shape, &[]);
        exp_lt_times(&mut w, &x, &d, &a).unwrap();
        let (xd, dd, ad) = (logical(&x), logical(&d), logical(&a));
        for c in coordinates(&shape) {
            let lt = if xd.get(&c) < dd.get(&c) { 1.0f64 } else { 0.0 };
            let want = lt.exp() * ad.get(&c);
            assert!(
                close(logical(&w).get(&c), want, 1e-12),
                "{density} {seed} at {c:?}"
            );
        }
    });
}

sparse_kernel! {
    /// `-inf` is an unsigned type's 0: `lt(-inf, 0)` is not folded to 1 (every value type
    /// must agree for a comparison of constants to fold), so the output's fill is 0.
    fn unsigned_less(c: &mut SparseVec<u32>, #[fill(-inf)] a: &SparseVec<u32>, b: &SparseVec<u32>) {
        c(i) = lt(a(i), b(i))
    }
}

#[test]
fn comparisons_of_unsigned_infinities_are_not_folded() {
    let a: SparseVec<u32> = SparseVec::from_entries(&[4], [([1], 3u32)]).unwrap();
    let b: SparseVec<u32> = SparseVec::from_entries(&[4], [([1], 5u32), ([2], 1)]).unwrap();
    let mut c: SparseVec<u32> =
        SparseVec::from_entries(&[4], Vec::<([usize; 1], u32)>::new()).unwrap();
    unsigned_less(&mut c, &a, &b).unwrap();
    assert_eq!(c.fill(), 0);
    let want = [0, 1, 1, 0];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(logical(&c).get(&[i]), *w, "at {i}");
    }
}

sparse_kernel! {
    /// `x` where `m` is not stored: a structural complemented mask.
    #[function(iterate(x & !m))]
    fn unless_f64(x: f64, m: f64) -> f64 {
        if m != 0.0 { 0.0 } else { x }
    }

    /// Sweep kernel 3212759: at the outer loop `i`, the mask `g(j, i)` of a
    /// `(Compressed, Dense)` `g` has reached its last level (located once `j` is known) but
    /// not its first, so its presence is still open there. It was taken as decided, which made
    /// the outer loop's only point an omitter: the kernel computed nothing.
    fn masked_out_of_order(y: &mut Tensor<f64, (Dense, Dense)>, a: &HashMat<f64, u64>, f: &Csc<f64, u64>, g: &Tensor<f64, (Compressed<u32>, Dense)>) {
        y(j, i) = unless_f64(a(j, i) * f(j, i), g(j, i))
    }
}

#[test]
fn a_mask_whose_last_level_is_reached_first() {
    let shape = [6, 5];
    sweep(|density, seed| {
        let ae = float_entries(&shape, 1.0, case_seed(seed, &shape, 110));
        let fe = float_entries(&shape, 1.0, case_seed(seed, &shape, 111));
        let ge = float_entries(&shape, density, case_seed(seed, &shape, 112));
        let a: HashMat<f64, u64> = build(&shape, &ae);
        let f: Csc<f64, u64> = build(&shape, &fe);
        let g: Tensor<f64, (Compressed<u32>, Dense)> = build(&shape, &ge);
        let mut y: Tensor<f64, (Dense, Dense)> = build(&shape, &[]);
        masked_out_of_order(&mut y, &a, &f, &g).unwrap();
        let (ad, fd) = (logical(&a), logical(&f));
        let g_rows: Vec<usize> = ge.iter().map(|(c, _)| c[0]).collect();
        for c in coordinates(&shape) {
            // `g` stores every column of a row it stores (its second level is dense): the
            // declared region masks them all, the padding's zeros included.
            let masked = g_rows.contains(&c[0]);
            let want = if masked { 0.0 } else { ad.get(&c) * fd.get(&c) };
            assert!(
                close(logical(&y).get(&c), want, 1e-12),
                "{density} {seed} at {c:?}"
            );
        }
    });
}
