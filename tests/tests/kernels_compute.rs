//! The assemble/compute split (taco, section 7): `#[schedule(compute(name))]` adds a variant
//! that writes only the values into an output its kernel assembled. After the operands' values
//! change (their patterns kept), the variant gives what the kernel gives; an output the kernel
//! did not assemble for these operands' patterns is an `Err`, and the output is left as it was.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_runtime::Error;
use sparse_tests::*;

sparse_kernel! {
    #[schedule(compute(spgemm_values))]
    pub fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(compute(add_values))]
    pub fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    #[schedule(workspace(i, hash), compute(transpose_values))]
    pub fn transpose(c: &mut Dcsr<f64>, a: &Csr<f64>) {
        c(i, j) = a(j, i)
    }
    #[schedule(compute(spgemm_unsorted_values))]
    pub fn spgemm_unsorted(c: &mut Tensor<f64, (Dense, Compressed<u32, Unordered>)>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn other_product(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(compute(sddmm_values))]
    pub fn sddmm(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(j, k)
    }
    // Dense operands as a view and a slice, which have no pattern number (found by the
    // tester's compute-only pairs: the variant did not compile).
    #[schedule(compute(scaled_values))]
    pub fn scaled(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2View<'_, f64>, x: &[f64]) {
        a(i, j) = b(i, j) * c(i, j) * x(j)
    }
}

/// New values for every stored entry of `t`, its pattern kept.
fn revalue<L: Levels, O: ModeOrder>(t: &mut Tensor<f64, L, O>, seed: u64) {
    let mut rng = Rng::new(seed);
    for v in t.vals_mut() {
        *v = rng.unit() - 0.5;
    }
}

#[test]
fn compute_only_variants_match_their_kernels_after_values_change() {
    for [m, n] in [[0, 0], [1, 1], [3, 5], [8, 8], [12, 7]] {
        sweep(|density, seed| {
            let case = ([m, n], density, seed);
            let mut a: Csr<f64> = build(&[m, n], &operand_entries([m, n], density, seed, 0));
            let mut b: Csr<f64> = build(&[n, m], &operand_entries([n, m], density, seed, 1));
            let mut a2: Csr<f64> = build(&[m, n], &operand_entries([m, n], density, seed, 2));
            let (mut c, mut s, mut t, mut u) = (
                Csr::<f64>::new(&[m, m]).unwrap(),
                Csr::<f64>::new(&[m, n]).unwrap(),
                Dcsr::<f64>::new(&[n, m]).unwrap(),
                Tensor::<f64, (Dense, Compressed<u32, Unordered>)>::new(&[m, m]).unwrap(),
            );
            spgemm(&mut c, &a, &b).unwrap();
            add(&mut s, &a, &a2).unwrap();
            transpose(&mut t, &a).unwrap();
            spgemm_unsorted(&mut u, &a, &b).unwrap();
            for round in 0..2 {
                revalue(&mut a, seed + round);
                revalue(&mut b, seed + round + 10);
                revalue(&mut a2, seed + round + 20);
                let pattern = stored(&c);
                spgemm_values(&mut c, &a, &b).unwrap();
                let mut want = Csr::<f64>::new(&[m, m]).unwrap();
                spgemm(&mut want, &a, &b).unwrap();
                assert_eq!(c, want, "{case:?}");
                assert_eq!(stored(&c), pattern, "{case:?}");

                add_values(&mut s, &a, &a2).unwrap();
                let mut want = Csr::<f64>::new(&[m, n]).unwrap();
                add(&mut want, &a, &a2).unwrap();
                assert_eq!(s, want, "{case:?}");

                transpose_values(&mut t, &a).unwrap();
                let mut want = Dcsr::<f64>::new(&[n, m]).unwrap();
                transpose(&mut want, &a).unwrap();
                assert_eq!(t, want, "{case:?}");

                spgemm_unsorted_values(&mut u, &a, &b).unwrap();
                assert_eq!(u.to_dense(), c.to_dense(), "{case:?}");
                revalidate(&u);
            }
        });
    }
}

/// A dense operand's pattern is its shape: new dense tensors of that shape (the next factors
/// of an alternating least squares, say), views and slices are accepted, and the variant gives
/// what the kernel gives for them.
#[test]
fn dense_operands_may_be_other_tensors_of_their_shape() {
    let (m, n, r) = (5, 6, 3);
    let b: Csr<f64> = build(&[m, n], &random_entries(&[m, n], 0.5, 4));
    let dense = |rows: usize, seed: u64| {
        let mut rng = Rng::new(seed);
        Dense2::from_vec(rows, r, (0..rows * r).map(|_| rng.unit()).collect()).unwrap()
    };
    let mut a = Csr::<f64>::new(&[m, n]).unwrap();
    sddmm(&mut a, &b, &dense(m, 1), &dense(n, 2)).unwrap();
    let (c2, d2) = (dense(m, 3), dense(n, 4));
    sddmm_values(&mut a, &b, &c2, &d2).unwrap();
    let mut want = Csr::<f64>::new(&[m, n]).unwrap();
    sddmm(&mut want, &b, &c2, &d2).unwrap();
    assert_eq!(a.entries(), want.entries());
    // A view and a slice.
    let (cv, x): (Vec<f64>, Vec<f64>) = ((0..m * n).map(|v| v as f64).collect(), vec![0.5; n]);
    let view = Dense2View::new([m, n], &cv[..]).unwrap();
    let mut s = Csr::<f64>::new(&[m, n]).unwrap();
    scaled(&mut s, &b, &view, &x).unwrap();
    let before = s.entries();
    let cv2: Vec<f64> = cv.iter().map(|v| v + 1.0).collect();
    let view2 = Dense2View::new([m, n], &cv2[..]).unwrap();
    scaled_values(&mut s, &b, &view2, &x).unwrap();
    for ((at, got), (_, was)) in s.entries().into_iter().zip(before) {
        let (i, j) = (at[0], at[1]);
        let bij = b.entries().into_iter().find(|(c, _)| *c == at).unwrap().1;
        assert_eq!(got, bij * cv2[i * n + j] * 0.5);
        assert_eq!(was, bij * cv[i * n + j] * 0.5);
    }
}

#[test]
fn outputs_not_assembled_for_these_operands_are_refused() {
    let e = |k: u64| random_entries(&[4, 4], 0.5, k);
    let (a, b): (Csr<f64>, Csr<f64>) = (build(&[4, 4], &e(1)), build(&[4, 4], &e(2)));
    let not_assembled = |r: Result<(), Error>| {
        assert!(
            matches!(
                r,
                Err(Error::NotAssembled {
                    kernel: "spgemm_values",
                    assembler: "spgemm"
                })
            ),
            "{r:?}"
        );
    };
    // Never assembled, or built by a constructor.
    let mut c = Csr::<f64>::new(&[4, 4]).unwrap();
    not_assembled(spgemm_values(&mut c, &a, &b));
    let mut c: Csr<f64> = build(&[4, 4], &e(3));
    let before = c.clone();
    not_assembled(spgemm_values(&mut c, &a, &b));
    assert_eq!(c, before);
    // Assembled by another kernel, even one computing the same pattern.
    other_product(&mut c, &a, &b).unwrap();
    not_assembled(spgemm_values(&mut c, &a, &b));
    // Assembled for operands whose patterns then changed: `b` rebuilt with the same entries
    // is another structure, and so is the operand order swapped.
    spgemm(&mut c, &a, &b).unwrap();
    let b_again: Csr<f64> = build(&[4, 4], &e(2));
    not_assembled(spgemm_values(&mut c, &a, &b_again));
    not_assembled(spgemm_values(&mut c, &b, &a));
    // A clone is the same structure; values changed through `vals_mut` keep it.
    let (mut a_clone, mut c_clone) = (a.clone(), c.clone());
    revalue(&mut a_clone, 9);
    spgemm_values(&mut c_clone, &a_clone, &b).unwrap();
    spgemm_values(&mut c, &a, &b).unwrap();
    // Re-assembled by the kernel itself: a new structure, recorded again.
    spgemm(&mut c, &a, &b).unwrap();
    spgemm_values(&mut c, &a, &b).unwrap();
}
