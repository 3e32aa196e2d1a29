//! Outputs with a dense block below their appending levels (BCSR-style: `(Dense, Compressed,
//! Dense)`, a COO run with dense blocks): a zero block is appended with the first value
//! computed in it, so blocks exist exactly where some component is present, against a dense
//! oracle.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

// The macro reads formats from the types written in the signature, so these aliases are for
// the test's own code only.
type Blocks = Tensor<f64, (Dense, Compressed, Dense)>;
type CooBlocks = Tensor<f64, (CompressedNonUnique, Singleton, Dense)>;
type Blocks4 = Tensor<f64, (Dense, Compressed, Dense, Dense)>;

sparse_kernel! {
    pub fn add_blocks(c: &mut Tensor<f64, (Dense, Compressed, Dense)>, a: &Csf3<f64>, b: &Tensor<f64, (Dense, Compressed, Dense)>) {
        c(i, j, k) = a(i, j, k) + b(i, j, k)
    }
    pub fn mul_into_blocks(c: &mut Tensor<f64, (Dense, Compressed, Dense)>, a: &Csf3<f64>, b: &Csf3<f64>) {
        c(i, j, k) = a(i, j, k) * b(i, j, k)
    }
    pub fn scale_coo_blocks(c: &mut Tensor<f64, (CompressedNonUnique, Singleton, Dense)>, a: &Csf3<f64>, s: f64) {
        c(i, j, k) = s * a(i, j, k)
    }
    pub fn huge_blocks(c: &mut Tensor<f64, (Dense, Compressed, Dense, Dense)>, a: &Csr<f64>, x: &SparseVec<f64, u64>, y: &SparseVec<f64, u64>) {
        c(i, j, k, l) = a(i, j) * x(k) * y(l)
    }
    pub fn outer_blocks(c: &mut Tensor<f64, (Dense, Compressed, Dense, Dense)>, a: &Csr<f64>, x: &Dense1<f64>, y: &SparseVec<f64>) {
        c(i, j, k, l) = a(i, j) * x(k) * y(l)
    }
}

/// The (i, j) pairs under which `entries` store something in mode 2 (or more).
fn tuples(entries: &[(Vec<usize>, f64)]) -> Vec<Vec<usize>> {
    let mut t: Vec<Vec<usize>> = entries.iter().map(|(c, _)| c[..2].to_vec()).collect();
    t.sort();
    t.dedup();
    t
}

/// The (i, j) pairs of a block tensor's stored blocks.
fn stored_tuples<L: Levels, O: ModeOrder>(t: &Tensor<f64, L, O>) -> Vec<Vec<usize>> {
    let mut s: Vec<Vec<usize>> = stored(t).into_iter().map(|c| c[..2].to_vec()).collect();
    s.dedup();
    s
}

#[test]
fn block_outputs_match_oracle() {
    for shape in TENSOR3_SHAPES {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
            let be = random_entries(
                &shape,
                other_density(density, seed, 1),
                case_seed(seed, &shape, 1),
            );
            let a: Csf3<f64> = build(&shape, &ae);
            let bb: Blocks = build(&shape, &be);
            let bc: Csf3<f64> = build(&shape, &be);
            let (ad, bd) = (
                DenseT::from_entries(&shape, &ae),
                DenseT::from_entries(&shape, &be),
            );

            let mut c: Blocks = build(&shape, &nonzero_entries(&shape, seed));
            add_blocks(&mut c, &a, &bb).unwrap();
            let mut sum = DenseT::zeros(&shape);
            for p in coordinates(&shape) {
                sum.set(&p, ad.get(&p) + bd.get(&p));
            }
            assert_close(&c.to_dense(), &sum, f64::TOL, case);
            let mut both = [tuples(&ae), tuples(&be)].concat();
            both.sort();
            both.dedup();
            assert_eq!(stored_tuples(&c), both, "{case:?}");
            revalidate(&c);

            mul_into_blocks(&mut c, &a, &bc).unwrap();
            let mut product = DenseT::zeros(&shape);
            let mut hit = Vec::new();
            for (p, v) in &ae {
                if be.iter().any(|(q, _)| q == p) {
                    product.set(p, v * bd.get(p));
                    hit.push(p[..2].to_vec());
                }
            }
            hit.sort();
            hit.dedup();
            assert_close(&c.to_dense(), &product, f64::TOL, case);
            // A block exists exactly where some component of it is computed.
            assert_eq!(stored_tuples(&c), hit, "{case:?}");
            revalidate(&c);

            let mut cc: CooBlocks = build(&shape, &nonzero_entries(&shape, seed));
            scale_coo_blocks(&mut cc, &a, -2.0).unwrap();
            let mut scaled = DenseT::zeros(&shape);
            for (p, v) in &ae {
                scaled.set(p, -2.0 * v);
            }
            assert_close(&cc.to_dense(), &scaled, f64::TOL, case);
            assert_eq!(stored_tuples(&cc), tuples(&ae), "{case:?}");
            revalidate(&cc);
        });
    }
}

#[test]
fn two_level_blocks_match_oracle() {
    let shape = [4, 5, 3, 2];
    sweep(|density, seed| {
        let case = (density, seed);
        let ae = random_entries(&shape[..2], density, case_seed(seed, &shape, 0));
        let xe = random_entries(&shape[2..3], 1.0, case_seed(seed, &shape, 1));
        let ye = random_entries(
            &shape[3..],
            other_density(density, seed, 2),
            case_seed(seed, &shape, 2),
        );
        let a: Csr<f64> = build(&shape[..2], &ae);
        let x: Dense1<f64> = build(&shape[2..3], &xe);
        let y: SparseVec<f64> = build(&shape[3..], &ye);
        let (ad, xd, yd) = (
            DenseT::from_entries(&shape[..2], &ae),
            DenseT::from_entries(&shape[2..3], &xe),
            DenseT::from_entries(&shape[3..], &ye),
        );
        let mut c: Blocks4 = build(&shape, &[]);
        outer_blocks(&mut c, &a, &x, &y).unwrap();
        let mut expected = DenseT::zeros(&shape);
        for p in coordinates(&shape) {
            expected.set(&p, ad.get(&p[..2]) * xd.get(&p[2..3]) * yd.get(&p[3..]));
        }
        assert_close(&c.to_dense(), &expected, f64::TOL, case);
        let blocks = if ye.is_empty() {
            Vec::new()
        } else {
            tuples(&ae)
        };
        assert_eq!(stored_tuples(&c), blocks, "{case:?}");
        revalidate(&c);
    });
}

#[test]
fn a_block_too_large_to_represent_is_an_error() {
    // An empty output of this shape is valid (it has no blocks), but one block would hold
    // 2^66 values: the kernel must say so, never index past its values.
    let n = 1usize << 33;
    let shape = [1, 1, n, n];
    let mut c = Blocks4::new(&shape).unwrap();
    let a: Csr<f64> = build(&[1, 1], &[(vec![0, 0], 2.0)]);
    let x = SparseVec::<f64, u64>::from_entries(&[n], [([5usize], 1.0)]).unwrap();
    let y = SparseVec::<f64, u64>::from_entries(&[n], [([7usize], 1.0)]).unwrap();
    let err = huge_blocks(&mut c, &a, &x, &y).unwrap_err();
    assert!(err.to_string().contains("usize::MAX"), "{err}");
    // The output is left valid and empty.
    assert_eq!(c.nnz(), 0);
    revalidate(&c);
}
