//! Wide expressions: loops that merge more than three iterators use the compact merge (one
//! loop over the union, run-time presence per operand) instead of a merge lattice. Checked
//! against a dense oracle: values, and the exact stored pattern of sparse outputs.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;
use std::collections::BTreeSet;

sparse_kernel! {
    pub fn add6(y: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>, c: &SparseVec<f64>, d: &SparseVec<f64>, e: &SparseVec<f64>, f: &SparseVec<f64>) {
        y(i) = a(i) + b(i) - c(i) + d(i) + e(i) - f(i)
    }
    pub fn add6_dense(y: &mut Dense1<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>, c: &SparseVec<f64>, d: &SparseVec<f64>, e: &SparseVec<f64>, f: &SparseVec<f64>) {
        y(i) = a(i) + b(i) - c(i) + d(i) + e(i) - f(i)
    }
    pub fn products(y: &mut Dcsr<f64>, a: &Dcsr<f64>, b: &Csr<f64>, c: &Dcsr<f64>, d: &Coo<f64>, e: &Dcsr<f64>) {
        y(i, j) = a(i, j) * b(i, j) + c(i, j) + d(i, j) * e(i, j)
    }
    pub fn with_inner_sum(y: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>, c: &SparseVec<f64>, m: &Dcsr<f64>, x: &SparseVec<f64>) {
        y(i) = a(i) + b(i) * 2.0 + c(i) + m(i, j) * x(j)
    }
    pub fn coo4(y: &mut Coo<f64>, a: &Coo<f64>, b: &Coo<f64>, c: &Csr<f64>, d: &Coo<f64>) {
        y(i, j) = a(i, j) + b(i, j) + c(i, j) + d(i, j)
    }
    pub fn coo3_with_dense(y: &mut Dense3<f64>, a: &Coo3<f64>, b: &Csf3<f64>, c: &Coo3<f64>, d: &Dense3<f64>) {
        y(i, j, k) = a(i, j, k) + b(i, j, k) + c(i, j, k) * d(i, j, k) + 1.5
    }
}

fn pattern(entries: &[&Entries<f64>]) -> Vec<Vec<usize>> {
    let set: BTreeSet<Vec<usize>> = entries
        .iter()
        .flat_map(|e| e.iter().map(|(c, _)| c.clone()))
        .collect();
    set.into_iter().collect()
}

/// Entries of `count` operands of one case, of mixed densities.
fn operands(shape: &[usize], count: u64, density: f64, seed: u64) -> Vec<Entries<f64>> {
    (0..count)
        .map(|k| {
            random_entries(
                shape,
                other_density(density, seed, k),
                case_seed(seed, shape, k),
            )
        })
        .collect()
}

#[test]
fn six_way_union() {
    for n in VECTOR_LENGTHS {
        sweep(|density, seed| {
            let case = (n, density, seed);
            let es = operands(&[n], 6, density, seed);
            let ds: Vec<DenseT<f64>> = es.iter().map(|e| DenseT::from_entries(&[n], e)).collect();
            let vs: Vec<SparseVec<f64>> = es.iter().map(|e| build(&[n], e)).collect();
            let mut expected = DenseT::zeros(&[n]);
            for i in 0..n {
                let g = |k: usize| ds[k].get(&[i]);
                expected.set(&[i], g(0) + g(1) - g(2) + g(3) + g(4) - g(5));
            }
            let mut y: SparseVec<f64> = build(&[n], &random_entries(&[n], 0.5, seed ^ 5));
            add6(&mut y, &vs[0], &vs[1], &vs[2], &vs[3], &vs[4], &vs[5]).unwrap();
            revalidate(&y);
            assert_close(&y.to_dense(), &expected, f64::TOL, case);
            let refs: Vec<&Entries<f64>> = es.iter().collect();
            assert_eq!(stored(&y), pattern(&refs), "{case:?}");
            let mut yd = Dense1::from_vec(vec![9.0; n]);
            add6_dense(&mut yd, &vs[0], &vs[1], &vs[2], &vs[3], &vs[4], &vs[5]).unwrap();
            assert_close(yd.as_slice(), &expected, f64::TOL, case);
        });
    }
}

#[test]
fn products_in_a_wide_sum() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let es = operands(&shape, 5, density, seed);
            let ds: Vec<DenseT<f64>> = es.iter().map(|e| DenseT::from_entries(&shape, e)).collect();
            let mut expected = DenseT::zeros(&shape);
            for i in 0..shape[0] {
                for j in 0..shape[1] {
                    let g = |k: usize| ds[k].get(&[i, j]);
                    expected.set(&[i, j], g(0) * g(1) + g(2) + g(3) * g(4));
                }
            }
            let mut y: Dcsr<f64> = build(&shape, &random_entries(&shape, 0.5, seed ^ 5));
            products(
                &mut y,
                &build(&shape, &es[0]),
                &build(&shape, &es[1]),
                &build(&shape, &es[2]),
                &build(&shape, &es[3]),
                &build(&shape, &es[4]),
            )
            .unwrap();
            revalidate(&y);
            assert_close(&y.to_dense(), &expected, f64::TOL, case);
            let both = |x: &Entries<f64>, y: &Entries<f64>| -> Entries<f64> {
                x.iter()
                    .filter(|(c, _)| y.iter().any(|(d, _)| d == c))
                    .cloned()
                    .collect()
            };
            let (ab, de) = (both(&es[0], &es[1]), both(&es[3], &es[4]));
            assert_eq!(stored(&y), pattern(&[&ab, &es[2], &de]), "{case:?}");
        });
    }
}

#[test]
fn inner_sum_below_a_compact_merge() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let [m, n] = shape;
            let vs = operands(&[m], 3, density, seed);
            let me = random_entries(&shape, density, seed ^ 3);
            let xe = random_entries(&[n], other_density(density, seed, 4), seed ^ 4);
            let ds: Vec<DenseT<f64>> = vs.iter().map(|e| DenseT::from_entries(&[m], e)).collect();
            let mx = matvec(
                &DenseT::from_entries(&shape, &me),
                &DenseT::from_entries(&[n], &xe),
            );
            let mut expected = DenseT::zeros(&[m]);
            for i in 0..m {
                let g = |k: usize| ds[k].get(&[i]);
                expected.set(&[i], g(0) + g(1) * 2.0 + g(2) + mx.get(&[i]));
            }
            let mut y = SparseVec::<f64>::new(&[m]).unwrap();
            with_inner_sum(
                &mut y,
                &build(&[m], &vs[0]),
                &build(&[m], &vs[1]),
                &build(&[m], &vs[2]),
                &build(&shape, &me),
                &build(&[n], &xe),
            )
            .unwrap();
            revalidate(&y);
            assert_close(&y.to_dense(), &expected, f64::TOL, case);
            let meets: Entries<f64> = (0..m)
                .filter(|&i| {
                    me.iter()
                        .any(|(c, _)| c[0] == i && xe.iter().any(|(d, _)| d[0] == c[1]))
                })
                .map(|i| (vec![i], 0.0))
                .collect();
            let refs = [&vs[0], &vs[1], &vs[2], &meets];
            assert_eq!(stored(&y), pattern(&refs), "{case:?}");
        });
    }
}

#[test]
fn coo_runs_in_a_compact_merge() {
    for shape in MATRIX_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let es = operands(&shape, 4, density, seed);
            let mut expected = DenseT::zeros(&shape);
            for e in &es {
                for (c, v) in e {
                    expected.add(c, *v);
                }
            }
            let mut y = Coo::<f64>::new(&shape).unwrap();
            coo4(
                &mut y,
                &build(&shape, &es[0]),
                &build(&shape, &es[1]),
                &build(&shape, &es[2]),
                &build(&shape, &es[3]),
            )
            .unwrap();
            revalidate(&y);
            assert_close(&y.to_dense(), &expected, f64::TOL, case);
            let refs: Vec<&Entries<f64>> = es.iter().collect();
            assert_eq!(stored(&y), pattern(&refs), "{case:?}");
        });
    }
}

#[test]
fn order_three_with_a_constant() {
    for shape in TENSOR3_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let es = operands(&shape, 4, density, seed);
            let ds: Vec<DenseT<f64>> = es.iter().map(|e| DenseT::from_entries(&shape, e)).collect();
            let mut expected = DenseT::zeros(&shape);
            for (at, slot) in expected.data.iter_mut().enumerate() {
                let g = |k: usize| ds[k].data[at];
                *slot = g(0) + g(1) + g(2) * g(3) + 1.5;
            }
            let len = shape.iter().product();
            let mut y = Dense3::from_vec(shape[0], shape[1], shape[2], vec![9.0; len]).unwrap();
            coo3_with_dense(
                &mut y,
                &build(&shape, &es[0]),
                &build(&shape, &es[1]),
                &build(&shape, &es[2]),
                &build(&shape, &es[3]),
            )
            .unwrap();
            assert_close(y.as_slice(), &expected, f64::TOL, case);
        });
    }
}
