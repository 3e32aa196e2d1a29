//! Regression tests: every reproducer of a compiler defect, kept as a kernel checked against a
//! dense oracle on the reproducer's data and on random data (several densities, sizes 0, 1 and
//! small, empty rows), and the stored pattern of sparse outputs checked entry by entry.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// The sparse-vector entries a reproducer or a sweep feeds a kernel.
fn vec_entries(n: usize, density: f64, seed: u64) -> Entries<f64> {
    random_entries(&[n], density, seed)
}

/// Every (density, seed) and a few lengths, including 0 and 1.
fn each_case(mut f: impl FnMut(usize, f64, u64)) {
    for n in [0, 1, 4, 9] {
        sweep(|density, seed| f(n, density, seed));
    }
}

/// Issue 5, item 1: a dense operand inside a parenthesised sum, multiplied by a sparse operand,
/// does not cover the dimension (the lattice point pruned for lacking it was reachable).
mod dense_operand_in_union_times_sparse {
    use super::*;

    sparse_kernel! {
        pub fn into_dense(y: &mut Dense1<f64>, b: &SparseVec<f64>, c: &Dense1<f64>, x: &SparseVec<f64>) {
            y(i) = (b(i) + c(i)) * x(i)
        }
        pub fn commuted(y: &mut Dense1<f64>, b: &SparseVec<f64>, c: &Dense1<f64>, x: &SparseVec<f64>) {
            y(i) = x(i) * (b(i) + c(i))
        }
        pub fn into_scalar(s: &mut f64, b: &SparseVec<f64>, c: &Dense1<f64>, x: &SparseVec<f64>, d: &SparseVec<f64>) {
            s = (b(i) + c(i)) * x(i) + d(i)
        }
        pub fn into_sparse(y: &mut SparseVec<f64>, b: &SparseVec<f64>, c: &Dense1<f64>, x: &SparseVec<f64>, d: &SparseVec<f64>) {
            y(i) = (b(i) + c(i)) * x(i) + d(i)
        }
        pub fn with_sum(o: &mut Dense2<f64>, x: &SparseVec<f64>, h: &Dense1<f64>, e: &SparseVec<f64>, x1: &Csr<f64>) {
            o(k, m) = (x(k) + h(k)) * e(k) + x1(m, i)
        }
    }

    #[test]
    fn reproducer_empty_x_gives_zeros() -> Result<(), Error> {
        let b = SparseVec::<f64>::from_entries(&[4], [([1], 1.0), ([3], 0.7)])?;
        let c = Dense1::from_vec(vec![0.5, 1.5, 1.0, 0.9]);
        let x = SparseVec::<f64>::new(&[4])?;
        let mut y = Dense1::from_vec(vec![9.0; 4]);
        into_dense(&mut y, &b, &c, &x)?;
        assert_eq!(y.as_slice(), &[0.0; 4]);
        let mut y = Dense1::from_vec(vec![9.0; 4]);
        commuted(&mut y, &b, &c, &x)?;
        assert_eq!(y.as_slice(), &[0.0; 4]);
        Ok(())
    }

    #[test]
    fn all_variants_match_oracle() {
        each_case(|n, density, seed| {
            let be = vec_entries(n, density, seed);
            let ce = nonzero_entries::<f64>(&[n], seed);
            let xe = vec_entries(n, other_density(density, seed, 1), seed ^ 1);
            let de = vec_entries(n, other_density(density, seed, 2), seed ^ 2);
            let (bd, cd, xd, dd) = (
                DenseT::from_entries(&[n], &be),
                DenseT::from_entries(&[n], &ce),
                DenseT::from_entries(&[n], &xe),
                DenseT::from_entries(&[n], &de),
            );
            let (b, c, x, d): (SparseVec<f64>, Dense1<f64>, SparseVec<f64>, SparseVec<f64>) = (
                build(&[n], &be),
                build(&[n], &ce),
                build(&[n], &xe),
                build(&[n], &de),
            );
            let case = (n, density, seed);
            let mut prod = DenseT::zeros(&[n]);
            let mut plus_d = DenseT::zeros(&[n]);
            for i in 0..n {
                let p = (bd.get(&[i]) + cd.get(&[i])) * xd.get(&[i]);
                prod.set(&[i], p);
                plus_d.set(&[i], p + dd.get(&[i]));
            }
            let mut y = Dense1::from_vec(vec![9.0; n]);
            into_dense(&mut y, &b, &c, &x).unwrap();
            assert_close(y.as_slice(), &prod, f64::TOL, case);
            commuted(&mut y, &b, &c, &x).unwrap();
            assert_close(y.as_slice(), &prod, f64::TOL, case);
            let mut s = 9.0;
            into_scalar(&mut s, &b, &c, &x, &d).unwrap();
            assert_scalar_close(s, plus_d.data.iter().sum(), f64::TOL, case);
            let mut ys = build::<f64, _, _>(&[n], &vec_entries(n, 0.5, seed ^ 7));
            into_sparse(&mut ys, &b, &c, &x, &d).unwrap();
            revalidate(&ys);
            assert_close(&ys.to_dense(), &plus_d, f64::TOL, case);
            // Stored exactly where x or d stores an entry.
            let expected: Vec<Vec<usize>> = (0..n)
                .filter(|&i| xe.iter().any(|(c, _)| c[0] == i) || de.iter().any(|(c, _)| c[0] == i))
                .map(|i| vec![i])
                .collect();
            assert_eq!(stored(&ys), expected, "{case:?}");
        });
    }

    #[test]
    fn sum_survives_an_empty_factor() {
        for (n, m, l) in [(3, 4, 5), (1, 1, 1), (0, 2, 3), (4, 0, 2), (5, 3, 0)] {
            sweep(|density, seed| {
                let xe = vec_entries(n, density, seed);
                let he = nonzero_entries::<f64>(&[n], seed);
                let ee = vec_entries(n, other_density(density, seed, 3), seed ^ 3);
                let x1e = random_entries(&[m, l], density, seed ^ 4);
                let (xd, hd, ed, x1d) = (
                    DenseT::from_entries(&[n], &xe),
                    DenseT::from_entries(&[n], &he),
                    DenseT::from_entries(&[n], &ee),
                    DenseT::from_entries(&[m, l], &x1e),
                );
                let mut expected = DenseT::zeros(&[n, m]);
                for k in 0..n {
                    for mm in 0..m {
                        let row: f64 = (0..l).map(|i| x1d.get(&[mm, i])).sum();
                        let v = (xd.get(&[k]) + hd.get(&[k])) * ed.get(&[k]) + row;
                        expected.set(&[k, mm], v);
                    }
                }
                let mut o = Dense2::from_vec(n, m, vec![9.0; n * m]).unwrap();
                with_sum(
                    &mut o,
                    &build(&[n], &xe),
                    &build(&[n], &he),
                    &build(&[n], &ee),
                    &build(&[m, l], &x1e),
                )
                .unwrap();
                assert_close(o.as_slice(), &expected, f64::TOL, (n, m, l, density, seed));
            });
        }
    }
}

/// Issue 5, item 3: generated names collide with user names.
mod hygiene {
    use super::*;

    sparse_kernel! {
        pub fn twice_and_a1(y: &mut Dense1<f64>, a: &SparseVec<f64>, a1: &SparseVec<f64>) {
            y(i) = a(i) * a(i) + a1(i)
        }
        pub fn twice_and_a1_sparse(y: &mut SparseVec<f64>, a: &SparseVec<f64>, a1: &Dense1<f64>) {
            y(i) = a(i) * a(i) + a1(i)
        }
        pub fn b_b1_b(out: &mut f64, b: &SparseVec<f64>, b1: &SparseVec<f64>) {
            out = b(i) * b1(i) * b(i)
        }
        pub fn index_named_like_a_position(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
            y(p_a1) = a(p_a1, j) * x(j)
        }
        pub fn index_named_like_a_dimension(y: &mut Dense1<f64>, a: &Dense2<f64>, x: &Dense1<f64>) {
            y(dim_i) = a(dim_i, i) * x(i)
        }
        pub fn index_named_like_a_temporary(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
            y(t0) = a(t0, j) * x(j)
        }
        pub fn raw_identifiers(r#y: &mut Dense1<f64>, x: &Dense1<f64>) {
            y(r#i) = x(r#i)
        }
        pub fn raw_and_plain_are_one_name(y: &mut SparseVec<f64>, r#x: &SparseVec<f64>) {
            r#y(i) = x(r#i) * 2.0
        }
    }

    #[test]
    fn reproducers_match_oracle() {
        each_case(|n, density, seed| {
            let case = (n, density, seed);
            let ae = vec_entries(n, density, seed);
            let a1e = vec_entries(n, other_density(density, seed, 1), seed ^ 1);
            let (ad, a1d) = (
                DenseT::from_entries(&[n], &ae),
                DenseT::from_entries(&[n], &a1e),
            );
            let mut expected = DenseT::zeros(&[n]);
            for i in 0..n {
                let a = ad.get(&[i]);
                expected.set(&[i], a * a + a1d.get(&[i]));
            }
            let (a, a1): (SparseVec<f64>, SparseVec<f64>) = (build(&[n], &ae), build(&[n], &a1e));
            let mut y = Dense1::from_vec(vec![9.0; n]);
            twice_and_a1(&mut y, &a, &a1).unwrap();
            assert_close(y.as_slice(), &expected, f64::TOL, case);
            let mut ys = SparseVec::<f64>::new(&[n]).unwrap();
            twice_and_a1_sparse(&mut ys, &a, &build(&[n], &a1e)).unwrap();
            assert_close(&ys.to_dense(), &expected, f64::TOL, case);
            let mut out = 9.0;
            b_b1_b(&mut out, &a, &a1).unwrap();
            let dot: f64 = (0..n)
                .map(|i| ad.get(&[i]) * a1d.get(&[i]) * ad.get(&[i]))
                .sum();
            assert_scalar_close(out, dot, f64::TOL, case);
            let mut yr = Dense1::from_vec(vec![9.0; n]);
            raw_identifiers(&mut yr, &build(&[n], &ae)).unwrap();
            assert_close(yr.as_slice(), &ad, f64::TOL, case);
            raw_and_plain_are_one_name(&mut ys, &a).unwrap();
            let doubled: Vec<f64> = ad.data.iter().map(|v| 2.0 * v).collect();
            assert_eq!(ys.to_dense(), doubled, "{case:?}");
        });
    }

    #[test]
    fn index_variables_named_like_locals() {
        for shape in [[0, 3], [1, 1], [7, 9], [100, 2]] {
            sweep(|density, seed| {
                let case = (shape, density, seed);
                let ae = random_entries(&shape, density, seed);
                let xe = random_entries(&[shape[1]], other_density(density, seed, 1), seed ^ 1);
                let expected = matvec(
                    &DenseT::from_entries(&shape, &ae),
                    &DenseT::from_entries(&[shape[1]], &xe),
                );
                let x: Dense1<f64> = build(&[shape[1]], &xe);
                let mut y = Dense1::from_vec(vec![9.0; shape[0]]);
                index_named_like_a_position(&mut y, &build(&shape, &ae), &x).unwrap();
                assert_close(y.as_slice(), &expected, f64::TOL, case);
                index_named_like_a_dimension(&mut y, &build(&shape, &ae), &x).unwrap();
                assert_close(y.as_slice(), &expected, f64::TOL, case);
                index_named_like_a_temporary(&mut y, &build(&shape, &ae), &x).unwrap();
                assert_close(y.as_slice(), &expected, f64::TOL, case);
            });
        }
    }
}

/// Issue 5, item 4: COO runs above a compressed level are an assemblable output.
mod coo_run_above_compressed {
    use super::*;

    type CooRows = Tensor<f64, (CompressedNonUnique, Singleton, Compressed)>;

    sparse_kernel! {
        pub fn add(c: &mut Tensor<f64, (CompressedNonUnique, Singleton, Compressed)>, a: &Csf3<f64>, b: &Coo3<f64>) {
            c(i, j, k) = a(i, j, k) + b(i, j, k)
        }
        pub fn mul(c: &mut Tensor<f64, (CompressedNonUnique, Singleton, Compressed)>, a: &Csf3<f64>, b: &Coo3<f64>) {
            c(i, j, k) = a(i, j, k) * b(i, j, k)
        }
    }

    #[test]
    fn matches_oracle() {
        for shape in TENSOR3_SHAPES {
            sweep(|density, seed| {
                let case = (shape, density, seed);
                let ae = random_entries(&shape, density, seed);
                let be = random_entries(&shape, other_density(density, seed, 1), seed ^ 1);
                let (ad, bd) = (
                    DenseT::from_entries(&shape, &ae),
                    DenseT::from_entries(&shape, &be),
                );
                let (a, b): (Csf3<f64>, Coo3<f64>) = (build(&shape, &ae), build(&shape, &be));
                let mut c: CooRows = build(&shape, &random_entries(&shape, 0.5, seed ^ 9));
                add(&mut c, &a, &b).unwrap();
                revalidate(&c);
                let mut expected = DenseT::zeros(&shape);
                for (i, (x, y)) in ad.data.iter().zip(&bd.data).enumerate() {
                    expected.data[i] = x + y;
                }
                assert_close(&c.to_dense(), &expected, f64::TOL, case);
                let union: std::collections::BTreeSet<Vec<usize>> =
                    ae.iter().chain(&be).map(|(c, _)| c.clone()).collect();
                assert_eq!(
                    stored(&c),
                    union.into_iter().collect::<Vec<_>>(),
                    "{case:?}"
                );
                mul(&mut c, &a, &b).unwrap();
                revalidate(&c);
                for (i, (x, y)) in ad.data.iter().zip(&bd.data).enumerate() {
                    expected.data[i] = x * y;
                }
                assert_close(&c.to_dense(), &expected, f64::TOL, case);
                let both: Vec<Vec<usize>> = stored(&a)
                    .into_iter()
                    .filter(|c| be.iter().any(|(d, _)| d == c))
                    .collect();
                assert_eq!(stored(&c), both, "{case:?}");
            });
        }
    }
}

/// Issue 5, item 9: a sparse output stores an entry only where some term contributed.
mod no_explicit_zeros {
    use super::*;

    sparse_kernel! {
        pub fn spgemm_inner(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csc<f64>) {
            c(i, k) = a(i, j) * b(j, k)
        }
        pub fn spmv_sparse(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &SparseVec<f64>) {
            y(i) = a(i, j) * x(j)
        }
    }

    #[test]
    fn spgemm_stores_the_product_pattern() {
        for shape in MATRIX_SHAPES {
            sweep(|density, seed| {
                let case = (shape, density, seed);
                let [m, n] = shape;
                let ae = random_entries(&shape, density, seed);
                let be = random_entries(&[n, m], other_density(density, seed, 1), seed ^ 1);
                let (ad, bd) = (
                    DenseT::from_entries(&shape, &ae),
                    DenseT::from_entries(&[n, m], &be),
                );
                let mut c = Csr::<f64>::new(&[m, m]).unwrap();
                spgemm_inner(&mut c, &build(&shape, &ae), &build(&[n, m], &be)).unwrap();
                revalidate(&c);
                let mut expected = DenseT::zeros(&[m, m]);
                let mut pattern = Vec::new();
                for i in 0..m {
                    for k in 0..m {
                        let hit = (0..n).any(|j| {
                            ae.iter().any(|(c, _)| c == &[i, j])
                                && be.iter().any(|(c, _)| c == &[j, k])
                        });
                        if hit {
                            pattern.push(vec![i, k]);
                        }
                        let s: f64 = (0..n).map(|j| ad.get(&[i, j]) * bd.get(&[j, k])).sum();
                        expected.set(&[i, k], s);
                    }
                }
                assert_close(&c.to_dense(), &expected, f64::TOL, case);
                assert_eq!(stored(&c), pattern, "{case:?}");
            });
        }
    }

    #[test]
    fn spmv_into_sparse_stores_rows_that_meet_x() {
        for shape in MATRIX_SHAPES {
            sweep(|density, seed| {
                let case = (shape, density, seed);
                let [m, n] = shape;
                let ae = random_entries(&shape, density, seed);
                let xe = vec_entries(n, other_density(density, seed, 1), seed ^ 1);
                let mut y = SparseVec::<f64>::new(&[m]).unwrap();
                spmv_sparse(&mut y, &build(&shape, &ae), &build(&[n], &xe)).unwrap();
                revalidate(&y);
                let expected = matvec(
                    &DenseT::from_entries(&shape, &ae),
                    &DenseT::from_entries(&[n], &xe),
                );
                assert_close(&y.to_dense(), &expected, f64::TOL, case);
                let pattern: Vec<Vec<usize>> = (0..m)
                    .filter(|&i| {
                        ae.iter()
                            .any(|(c, _)| c[0] == i && xe.iter().any(|(d, _)| d[0] == c[1]))
                    })
                    .map(|i| vec![i])
                    .collect();
                assert_eq!(stored(&y), pattern, "{case:?}");
            });
        }
    }
}

/// Issue 5, item 10: kernels refused although a loop order exists.
mod valid_kernels_accepted {
    use super::*;

    sparse_kernel! {
        pub fn both_sides_of_a_sum(s: &mut f64, x: &Dense1<f64>, a: &Csr<f64>) {
            s = x(i) + a(k, i)
        }
        pub fn nested_sums_split(y: &mut Dense1<f64>, a: &Csr<f64>, b: &Dense2<f64>, c: &Csc<f64>) {
            y(i) = a(i, k) + b(i, m) * c(k, m)
        }
        pub fn negated_root_sum(y: &mut Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
            y(i) = -(a(i, j) * x(j))
        }
        pub fn output_in_any_order(y: &mut Dense2<f64>, f: &Csf3<f64>, v: &Dense1<f64>) {
            y(i, j) = f(j, k, i) + v(i)
        }
    }

    #[test]
    fn values_match_oracle() {
        for [m, n] in [[0, 0], [1, 1], [3, 4], [6, 5]] {
            sweep(|density, seed| {
                let case = (m, n, density, seed);
                let xe = vec_entries(n, density, seed);
                let ae = random_entries(&[m, n], other_density(density, seed, 1), seed ^ 1);
                let (xd, ad) = (
                    DenseT::from_entries(&[n], &xe),
                    DenseT::from_entries(&[m, n], &ae),
                );
                // s = Σ_i (x(i) + Σ_k a(k, i))
                let mut s = 9.0;
                both_sides_of_a_sum(&mut s, &build(&[n], &xe), &build(&[m, n], &ae)).unwrap();
                let want: f64 = xd.data.iter().sum::<f64>() + ad.data.iter().sum::<f64>();
                assert_scalar_close(s, want, f64::TOL, case);
                // y(i) = -Σ_j a(i, j) x(j), with `a` stored by columns.
                let mut y = Dense1::from_vec(vec![9.0; m]);
                negated_root_sum(&mut y, &build(&[m, n], &ae), &build(&[n], &xe)).unwrap();
                let mut expected = matvec(&ad, &xd);
                expected.data.iter_mut().for_each(|v| *v = -*v);
                assert_close(y.as_slice(), &expected, f64::TOL, case);
                // y(i) = Σ_k (a(i,k) + Σ_m b(i,m) c(k,m)), a: m x n, b: m x n, c: n x n
                let be = random_entries(&[m, n], density, seed ^ 2);
                let ce = random_entries(&[n, n], other_density(density, seed, 3), seed ^ 3);
                let (bd, cd) = (
                    DenseT::from_entries(&[m, n], &be),
                    DenseT::from_entries(&[n, n], &ce),
                );
                let mut y = Dense1::from_vec(vec![9.0; m]);
                nested_sums_split(
                    &mut y,
                    &build(&[m, n], &ae),
                    &build(&[m, n], &be),
                    &build(&[n, n], &ce),
                )
                .unwrap();
                let mut expected = DenseT::zeros(&[m]);
                for i in 0..m {
                    let mut t = 0.0;
                    for k in 0..n {
                        t += ad.get(&[i, k]);
                        for mm in 0..n {
                            t += bd.get(&[i, mm]) * cd.get(&[k, mm]);
                        }
                    }
                    expected.set(&[i], t);
                }
                assert_close(y.as_slice(), &expected, f64::TOL, case);
                // y(i, j) = Σ_k f(j, k, i) + v(i)
                let fe = random_entries(&[n, 3, m], density, seed ^ 4);
                let ve = vec_entries(m, other_density(density, seed, 5), seed ^ 5);
                let (fd, vd) = (
                    DenseT::from_entries(&[n, 3, m], &fe),
                    DenseT::from_entries(&[m], &ve),
                );
                let mut y = Dense2::from_vec(m, n, vec![9.0; m * n]).unwrap();
                output_in_any_order(&mut y, &build(&[n, 3, m], &fe), &build(&[m], &ve)).unwrap();
                let mut expected = DenseT::zeros(&[m, n]);
                for i in 0..m {
                    for j in 0..n {
                        let f: f64 = (0..3).map(|k| fd.get(&[j, k, i])).sum();
                        expected.set(&[i, j], f + vd.get(&[i]));
                    }
                }
                assert_close(y.as_slice(), &expected, f64::TOL, case);
            });
        }
    }
}

/// Issue 5, item 8: a panic during output assembly leaves the output valid (the empty tensor of
/// its shape), never a half-built one that later kernels would trust.
mod output_valid_after_a_panic {
    use super::*;

    sparse_kernel! {
        pub fn quotient(y: &mut Csr<i64>, a: &Csr<i64>, d: &Dense2<i64>) {
            y(i, j) = a(i, j) / d(i, j)
        }
    }

    #[test]
    fn integer_division_by_zero_midway() -> Result<(), Error> {
        let a = Csr::<i64>::from_entries(&[3, 3], [([0, 0], 6), ([1, 1], 4), ([2, 2], 9)])?;
        let mut d = Dense2::from_vec(3, 3, vec![1; 9])?;
        d.as_mut_slice()[4] = 0; // d(1, 1): the second entry divides by zero
        let mut y = Csr::<i64>::from_entries(&[3, 3], [([2, 0], 5)])?;
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| quotient(&mut y, &a, &d)));
        assert!(caught.is_err(), "integer division by zero panics");
        let again = Csr::<i64>::from_levels(y.shape(), y.levels().clone(), y.vals().to_vec());
        assert!(
            again.is_ok(),
            "output is invalid after the panic: {again:?}"
        );
        assert_eq!(y.nnz(), y.entries().len());
        assert_eq!(y.entries(), vec![]);
        // The output is usable again.
        d.as_mut_slice()[4] = 2;
        quotient(&mut y, &a, &d)?;
        assert_eq!(
            y.entries(),
            vec![(vec![0, 0], 6), (vec![1, 1], 2), (vec![2, 2], 9)]
        );
        Ok(())
    }
}

/// A tensor used twice with permuted indices binds one mode to two variables: the shape check
/// must compare them (found by the differential tester: an out-of-bounds read on a 2 x 3 `d`).
mod one_mode_two_variables {
    use super::*;

    sparse_kernel! {
        pub fn trace_of_square(s: &mut f64, d: &Dense2<f64>) {
            s = -(d(j, l) * d(l, j))
        }
    }

    #[test]
    fn non_square_is_an_error_square_is_right() -> Result<(), Error> {
        let mut s = 0.0;
        let wide = Dense2::from_vec(2, 3, vec![1.0; 6])?;
        assert!(trace_of_square(&mut s, &wide).is_err());
        let square = Dense2::from_vec(2, 2, vec![1.0, 2.0, 3.0, 4.0])?;
        trace_of_square(&mut s, &square)?;
        assert_eq!(s, -(1.0 + 2.0 * 3.0 + 3.0 * 2.0 + 16.0));
        Ok(())
    }
}

/// Issue 8, differential tester (kernels 3004026, 3006920, 3008199, 3009153, 3010344): a
/// workspace's slice in a lattice case whose expression is a negated sum, `-(Σ_j y(l,j,k))`
/// (in `d(n) - Σ_j y(l,j,k)`, the case where `d` is absent), had no order as one statement (the sum must complete
/// inside the output's loops) and was not split because it is one additive term; its
/// normalized form `Σ_j -y(l,j,k)`, with the sum at the root, has one. The same held for a
/// dense output: `y(i) = -(a(i,j) * x(j))` with `a` in CSC.
mod negated_sum_is_one_term {
    use super::*;

    sparse_kernel! {
        pub fn slice(c: &mut Tensor<f64, (Dense, Compressed, Compressed)>, d: &HashVec<f64>, y: &Coo3<f64>) {
            c(n, l, k) = d(n) - y(l, j, k)
        }
        pub fn negated_spmv(y: &mut Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
            y(i) = -(a(i, j) * x(j))
        }
    }

    #[test]
    fn matches_oracle() {
        each_case(|n, density, seed| {
            let (m, q) = (n, n + 1);
            let de = vec_entries(m, density, seed);
            let ye = random_entries(&[m, q, 3], density, seed + 1);
            let d: HashVec<f64> = build(&[m], &de);
            let y: Coo3<f64> = build(&[m, q, 3], &ye);
            let dd = DenseT::from_entries(&[m], &de);
            let yd = DenseT::from_entries(&[m, q, 3], &ye);
            // c(n, l, k) = d(n) - Σ_j y(l, j, k).
            let mut want = DenseT::zeros(&[m, m, 3]);
            let mut space = Pattern::new();
            for c in coordinates(&[m, m, 3]) {
                let sum: f64 = (0..q).map(|j| yd.get(&[c[1], j, c[2]])).sum();
                want.set(&c, dd.get(&[c[0]]) - sum);
                let d_stored = de.iter().any(|(e, _)| e[0] == c[0]);
                let y_stored = ye.iter().any(|(e, _)| e[0] == c[1] && e[2] == c[2]);
                if d_stored || y_stored {
                    space.insert(c);
                }
            }
            let mut c: Tensor<f64, (Dense, Compressed, Compressed)> = build(&[m, m, 3], &[]);
            slice(&mut c, &d, &y).unwrap();
            check_sparse_output(&c, &want, &space, (n, density, seed));

            let ae = random_entries(&[n, n], density, seed + 2);
            let a: Csc<f64> = build(&[n, n], &ae);
            let (x, xd) = dense_vec(n, seed);
            let mut out: Dense1<f64> = build(&[n], &nonzero_entries(&[n], seed));
            negated_spmv(&mut out, &a, &x).unwrap();
            let ax = matvec(&DenseT::from_entries(&[n, n], &ae), &xd);
            let want = elementwise(&ax, &ax, |v, _| -v);
            assert_close(out.vals(), &want, f64::TOL, (n, density, seed));
        });
    }
}

/// Conversion sweep, kernel 9006092 (and 8 more like it): `f` is read against its storage order
/// and converted; the first temporary kept its levels, `(Compressed, Compressed, Dense)` in
/// another mode order, whose last dense level stored zeros below every `(j, k)` the original
/// did not, so `a` got entries nothing contributes to. A temporary now stores exactly the
/// operand's components (compressed levels where its own would pad).
mod conversion_keeps_the_iteration_space {
    use super::*;

    type F = Tensor<f64, (Compressed<usize>, Compressed<u64>, Dense), Modes<2, 0, 1>>;

    sparse_kernel! {
        pub fn ttv(a: &mut Csr<f64, u64>, f: &Tensor<f64, (Compressed<usize>, Compressed<u64>, Dense), Modes<2, 0, 1>>, y: &HashVec<f64>) {
            a(j, k) = f(j, k, n) * y(n)
        }
    }

    #[test]
    fn matches_oracle() {
        // Sparse enough that some `j` has stored `n`s none of which `y` has (the failing
        // case: 5 x 5 x 6, density 0.1, 2 entries in `y`).
        for (p, q, r) in [(5, 5, 6), (9, 3, 12), (0, 2, 3), (1, 1, 1)] {
            for density in [0.05, 0.1, 0.2, 1.0] {
                for seed in 0..8 {
                    check(p, q, r, density, seed);
                }
            }
        }
    }

    fn check(p: usize, q: usize, r: usize, density: f64, seed: u64) {
        let fe = random_entries(&[p, q, r], density, seed);
        let ye = vec_entries(r, 0.4, seed + 100);
        let f: F = build(&[p, q, r], &fe);
        let y: HashVec<f64> = build(&[r], &ye);
        // f's stored components, explicit zeros of its dense level included.
        let stored: Vec<(Vec<usize>, f64)> = f.entries();
        let yd = DenseT::from_entries(&[r], &ye);
        let mut want = DenseT::zeros(&[p, q]);
        let mut space = Pattern::new();
        for (c, v) in &stored {
            if ye.iter().any(|(e, _)| e[0] == c[2]) {
                want.add(&[c[0], c[1]], v * yd.get(&[c[2]]));
                space.insert(vec![c[0], c[1]]);
            }
        }
        let mut a: Csr<f64, u64> = build(&[p, q], &[]);
        ttv(&mut a, &f, &y).unwrap();
        check_sparse_output(&a, &want, &space, (p, q, r, density, seed));
    }
}

/// Issue 11's sequence sweep: an output read on its own right side with index variables of
/// its own (`a(l, k)`, `z(m, l)`). Its old contents are bound only after the entry checks, yet
/// the checks skipped its accesses (a variable bound only there went unchecked: `z(i, m) =
/// c(i, l) * z(m, l)` with `c` 3x4 and `z` 3x3 read `z` out of bounds) and the dimension
/// bindings read its shape before it existed (`a_old` unbound: the kernel did not compile).
/// The old contents have the output's shape: their accesses are checked and bound as the
/// output's.
mod output_read_with_variables_of_its_own {
    use super::*;

    sparse_kernel! {
        pub fn left_multiply(a: &mut Csr<f64>, u: &Dense2<f64>) {
            a(j, k) = a(l, k) * u(j, l)
        }
        pub fn times_own_transpose(z: &mut Csr<f64>, c: &Dense2<f64>) {
            z(i, m) = c(i, l) * z(m, l)
        }
        pub fn times_own_transpose_dense(z: &mut Dense2<f64>, c: &Dense2<f64>) {
            z(i, m) = c(i, l) * z(m, l)
        }
    }

    fn transpose(a: &DenseT<f64>) -> DenseT<f64> {
        let mut t = DenseT::zeros(&[a.dim(1), a.dim(0)]);
        for c in coordinates(&a.shape) {
            t.set(&[c[1], c[0]], a.get(&c));
        }
        t
    }

    #[test]
    fn the_old_contents_are_checked_and_read_as_the_output() {
        each_case(|n, density, seed| {
            let case = (n, density, seed);
            let ae = random_entries::<f64>(&[n, n], density, seed);
            let ad = DenseT::from_entries(&[n, n], &ae);
            let ue = nonzero_entries::<f64>(&[n, n], seed + 1);
            let ud = DenseT::from_entries(&[n, n], &ue);
            let u: Dense2<f64> = build(&[n, n], &ue);
            let mut a: Csr<f64> = build(&[n, n], &ae);
            left_multiply(&mut a, &u).unwrap();
            assert_close(&a.to_dense(), &matmul(&ud, &ad), 1e-12, (&case, "u a"));
            revalidate(&a);

            let want = matmul(&ud, &transpose(&ad));
            let mut z: Csr<f64> = build(&[n, n], &ae);
            times_own_transpose(&mut z, &u).unwrap();
            assert_close(&z.to_dense(), &want, 1e-12, (&case, "c zt"));
            let mut zd: Dense2<f64> = build(&[n, n], &ae);
            times_own_transpose_dense(&mut zd, &u).unwrap();
            assert_close(zd.vals(), &want, 1e-12, (&case, "c zt, dense"));
        });
    }

    #[test]
    fn a_mismatch_through_the_old_contents_is_an_error() {
        let ze = random_entries::<f64>(&[3, 3], 0.7, 5);
        let c: Dense2<f64> = build(&[3, 4], &nonzero_entries::<f64>(&[3, 4], 6));
        let mut z: Csr<f64> = build(&[3, 3], &ze);
        let before = z.clone();
        let e = times_own_transpose(&mut z, &c).unwrap_err();
        assert!(e.to_string().contains("`l`"), "{e}");
        assert_eq!(z, before);
        let mut zd: Dense2<f64> = build(&[3, 3], &ze);
        let before = zd.clone();
        assert!(times_own_transpose_dense(&mut zd, &c).is_err());
        assert_eq!(zd, before);
    }
}

/// Difftest 8208019: a row loop that follows a sparse operand along the row by position
/// (`z(k, l)`, under a dense `w(k, l)` and a term without `l`) was run per register block,
/// so the second block, and the columns past the last, started the cursor where the row
/// starts and missed `z`'s entries.
mod row_cursor_in_register_blocks {
    use super::*;

    sparse_kernel! {
        pub fn follows_z(a: &mut Dense2<f64>, b: &Csr<f64>, w: &Dense2<f64>, z: &Csr<f64>, c: &Csr<f64>) {
            a(i, l) += b(i, k) * (w(k, l) * z(k, l) + c(i, k))
        }
        pub fn reproducer(g: &Csf3<f64, u64>, w: &Tensor<f64, (Dense, Dense), Modes<1, 0>>, z: &Tensor<f64, (Compressed, Compressed), Identity>, f: &Csr<f64>, v: &Dense1<f64>, a: &mut Dense2ViewMut<'_, f64>) {
            a(i, l) -= (g(i, m, k) * w(m, l) * z(k, l) + f(m, k)) * v(m);
        }
    }

    #[test]
    fn rows_of_every_width_match_the_oracle() {
        for cols in [0, 1, 7, 8, 9, 16, 17, 25] {
            sweep(|density, seed| {
                let (n, case) = (4, (cols, density, seed));
                let d = |k: u64| other_density(density, seed, k);
                let be = random_entries::<f64>(&[n, n], density, seed);
                let we = nonzero_entries::<f64>(&[n, cols], seed + 1);
                let ze = random_entries::<f64>(&[n, cols], d(2), seed + 2);
                let ce = random_entries::<f64>(&[n, n], d(3), seed + 3);
                let a0 = nonzero_entries::<f64>(&[n, cols], seed + 4);
                let (bd, wd, zd, cd) = (
                    DenseT::from_entries(&[n, n], &be),
                    DenseT::from_entries(&[n, cols], &we),
                    DenseT::from_entries(&[n, cols], &ze),
                    DenseT::from_entries(&[n, n], &ce),
                );
                let mut want = DenseT::from_entries(&[n, cols], &a0);
                for (i, l, k) in
                    (0..n).flat_map(|i| (0..cols).flat_map(move |l| (0..n).map(move |k| (i, l, k))))
                {
                    let t = bd.get(&[i, k]) * (wd.get(&[k, l]) * zd.get(&[k, l]) + cd.get(&[i, k]));
                    want.add(&[i, l], t);
                }
                let mut a: Dense2<f64> = build(&[n, cols], &a0);
                follows_z(
                    &mut a,
                    &build(&[n, n], &be),
                    &build(&[n, cols], &we),
                    &build(&[n, cols], &ze),
                    &build(&[n, n], &ce),
                )
                .unwrap();
                assert_close(a.vals(), &want, 1e-12, case);
            });
        }
    }

    #[test]
    fn the_reproducer_matches_the_oracle() {
        for cols in [1, 8, 9, 17] {
            sweep(|density, seed| {
                let (n, case) = (4, (cols, density, seed));
                let d = |k: u64| other_density(density, seed, k);
                let ge = random_entries::<f64>(&[n, n, n], density, seed);
                let we = random_entries::<f64>(&[n, cols], d(1), seed + 1);
                let ze = random_entries::<f64>(&[n, cols], d(2), seed + 2);
                let fe = random_entries::<f64>(&[n, n], d(3), seed + 3);
                let ve = nonzero_entries::<f64>(&[n], seed + 4);
                let a0 = nonzero_entries::<f64>(&[n, cols], seed + 5);
                let (gd, wd, zd, fd, vd) = (
                    DenseT::from_entries(&[n, n, n], &ge),
                    DenseT::from_entries(&[n, cols], &we),
                    DenseT::from_entries(&[n, cols], &ze),
                    DenseT::from_entries(&[n, n], &fe),
                    DenseT::from_entries(&[n], &ve),
                );
                let mut want = DenseT::from_entries(&[n, cols], &a0);
                for c in coordinates(&[n, cols, n, n]) {
                    let [i, l, m, k] = [c[0], c[1], c[2], c[3]];
                    let t =
                        gd.get(&[i, m, k]) * wd.get(&[m, l]) * zd.get(&[k, l]) + fd.get(&[m, k]);
                    want.add(&[i, l], -(t * vd.get(&[m])));
                }
                let mut data = DenseT::from_entries(&[n, cols], &a0).data;
                let mut a = Dense2ViewMut::new([n, cols], &mut data).unwrap();
                let w: Tensor<f64, (Dense, Dense), Modes<1, 0>> = build(&[n, cols], &we);
                let z: Tensor<f64, (Compressed, Compressed), Identity> = build(&[n, cols], &ze);
                reproducer(
                    &build(&[n, n, n], &ge),
                    &w,
                    &z,
                    &build(&[n, n], &fe),
                    &build(&[n], &ve),
                    &mut a,
                )
                .unwrap();
                assert_close(&data, &want, 1e-12, case);
            });
        }
    }
}

/// Difftest 8209750: a statement split into loop nests distributed `(min[m](..) - v(i)) *
/// abs(max[k](..))` over its difference, and over an empty `k` the copied factor is `inf`:
/// `-3 * inf + 1 * inf` is NaN where the statement as written gives `-inf`. A factor that
/// may be infinite is no longer copied into several terms.
mod infinite_factor_is_not_distributed {
    use super::*;

    sparse_kernel! {
        pub fn reproducer(d: &mut Tensor<f64, (Dense, Dense)>, w: &[f64], #[fill(1)] a: &Coo<f64, usize>, #[fill(-1.0)] v: &SparseVec<f64, u64>, x: &Dense3View<'_, f64>, c: &Tensor<f64, (Dense, Compressed<u32, Unordered>, Slotted<u32>)>) {
            d(i, n) += (min[m](w(l) * a(l, m)) - v(i)) * abs(max[k](x(n, l, i) * c(l, i, k)))
        }
    }

    type C = Tensor<f64, (Dense, Compressed<u32, Unordered>, Slotted<u32>)>;

    /// The statement as written, on dense copies (`a` absent: 1, `v` absent: -1).
    #[allow(clippy::too_many_arguments)]
    fn oracle(
        d0: &DenseT<f64>,
        w: &[f64],
        a: &[(Vec<usize>, f64)],
        v: &[(Vec<usize>, f64)],
        x: &DenseT<f64>,
        c: &DenseT<f64>,
        dims: [usize; 5],
    ) -> DenseT<f64> {
        let [ni, nn, nl, nm, nk] = dims;
        let mut ad = DenseT {
            shape: vec![nl, nm],
            data: vec![1.0; nl * nm],
        };
        a.iter().for_each(|(p, x)| ad.set(p, *x));
        let mut vd = DenseT {
            shape: vec![ni],
            data: vec![-1.0; ni],
        };
        v.iter().for_each(|(p, x)| vd.set(p, *x));
        let mut out = d0.clone();
        for (i, n) in (0..ni).flat_map(|i| (0..nn).map(move |n| (i, n))) {
            let mut sum = 0.0;
            for (l, &wl) in w.iter().enumerate().take(nl) {
                let min = (0..nm)
                    .map(|m| wl * ad.get(&[l, m]))
                    .fold(f64::INFINITY, f64::min);
                let max = (0..nk)
                    .map(|k| x.get(&[n, l, i]) * c.get(&[l, i, k]))
                    .fold(f64::NEG_INFINITY, f64::max);
                sum += (min - vd.get(&[i])) * max.abs();
            }
            out.add(&[i, n], sum);
        }
        out
    }

    #[test]
    fn an_empty_max_times_a_negative_difference_is_minus_infinity() -> Result<(), Error> {
        let a = Coo::<f64, usize>::new(&[1, 1])?.with_fill(1.0);
        let v = SparseVec::<f64, u64>::new(&[1])?.with_fill(-1.0);
        let data = [2.0];
        let x = Dense3View::new([1, 1, 1], &data)?;
        let c = C::new(&[1, 1, 0])?;
        let mut d = Tensor::<f64, (Dense, Dense)>::from_entries(&[1, 1], [([0, 0], 5.0)])?;
        // min = -3 * 1, so (-3 - -1) * abs(max over no k) = -2 * inf.
        reproducer(&mut d, &[-3.0], &a, &v, &x, &c)?;
        assert_eq!(d.vals(), &[f64::NEG_INFINITY]);
        Ok(())
    }

    #[test]
    fn random_cases_match_the_statement_as_written() {
        for nk in [0, 1, 3] {
            sweep(|density, seed| {
                let dims @ [ni, nn, nl, nm, _] = [3, 2, 3, 4, nk];
                let case = (nk, density, seed);
                let w: Vec<f64> = wave(nl, seed);
                let ae = random_entries::<f64>(&[nl, nm], density, seed + 1);
                let ve = random_entries::<f64>(&[ni], other_density(density, seed, 2), seed + 2);
                let xd = DenseT::from_entries(
                    &[nn, nl, ni],
                    &nonzero_entries::<f64>(&[nn, nl, ni], seed + 3),
                );
                let ce =
                    random_entries::<f64>(&[nl, ni, nk], other_density(density, seed, 4), seed + 4);
                let d0 = nonzero_entries::<f64>(&[ni, nn], seed + 5);
                let want = oracle(
                    &DenseT::from_entries(&[ni, nn], &d0),
                    &w,
                    &ae,
                    &ve,
                    &xd,
                    &DenseT::from_entries(&[nl, ni, nk], &ce),
                    dims,
                );
                let a: Coo<f64, usize> = build(&[nl, nm], &ae);
                let v: SparseVec<f64, u64> = build(&[ni], &ve);
                let x = Dense3View::new([nn, nl, ni], &xd.data).unwrap();
                let c: C = build(&[nl, ni, nk], &ce);
                let mut d: Tensor<f64, (Dense, Dense)> = build(&[ni, nn], &d0);
                reproducer(&mut d, &w, &a.with_fill(1.0), &v.with_fill(-1.0), &x, &c).unwrap();
                assert_close(d.vals(), &want, 1e-12, case);
            });
        }
    }
}
