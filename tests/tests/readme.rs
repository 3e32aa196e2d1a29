//! The kernels shown in README.md compile warning-free under `#![deny(warnings)]` and compute
//! what the README says.
#![deny(warnings)]

use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn gemv(y: &mut Dense1<f64>, alpha: f64, a: &Csr<f64>, x: &Dense1<f64>, beta: f64, z: &SparseVec<f64>) {
        y(i) = alpha * a(i, j) * x(j) + beta * z(i)
    }
    pub fn spmm(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
        c(i, j) = a(i, k) * b(k, j)
    }
    pub fn sddmm(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, j) * c(i, k) * d(k, j)
    }
    pub fn ttv(a: &mut Csr<f64>, b: &Csf3<f64>, c: &Dense1<f64>) {
        a(i, j) = b(i, j, k) * c(k)
    }
    #[schedule(parallel(never))]
    pub fn spmm_serial(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
        c(i, j) = a(i, k) * b(k, j)
    }
    pub fn frobenius(s: &mut f64, a: &Csr<f64>, b: &Csr<f64>) {
        s = a(i, j) * b(i, j)
    }
    pub fn mttkrp(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    pub fn residual(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        r(i) = b(i) - a(i, j) * x(j)
    }
    pub fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, k) * b(k, j)
    }
    pub fn spgemm_into_hash_rows(c: &mut HashMat<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, k) * b(k, j)
    }
    #[schedule(workspace(k, hash))]
    pub fn spgemm_hash(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn add_product(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) += a(i, j) * b(j, k)
    }
    #[schedule(compute(spgemm_values))]
    pub fn spgemm_split(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    pub fn spmv_dia(y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_bcsr(y: &mut Dense1<f64>, a: &Bcsr<f64, 2, 2>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

/// README's "Parallel loops": the parallel SpMM, split at every row, and the serial one give
/// the same bits, and the dense product's values.
#[test]
fn parallel_and_serial_spmm_agree() -> Result<(), Error> {
    let (n, m, r) = (50, 40, 6);
    let entries: Vec<([usize; 2], f64)> = (0..n)
        .flat_map(|i| {
            (0..m)
                .filter(move |k| (i * 7 + k * 3) % 5 == 0)
                .map(move |k| ([i, k], 0.1 * (i + k) as f64 - 1.3))
        })
        .collect();
    let a = Csr::<f64>::from_entries(&[n, m], entries.iter().copied())?;
    let b_vals: Vec<f64> = (0..m * r)
        .map(|x| ((x * 37) % 11) as f64 / 7.0 - 0.6)
        .collect();
    let b = Dense2::from_vec(m, r, b_vals.clone())?;
    let mut parallel = Dense2::<f64>::new(&[n, r])?;
    let mut serial = Dense2::<f64>::new(&[n, r])?;
    sparse_runtime::parallel::with_min_rows(1, || spmm(&mut parallel, &a, &b))?;
    spmm_serial(&mut serial, &a, &b)?;
    let bits = |t: &Dense2<f64>| t.as_slice().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&parallel), bits(&serial));
    let mut want = vec![0.0; n * r];
    for ([i, k], v) in &entries {
        for j in 0..r {
            want[i * r + j] += v * b_vals[k * r + j];
        }
    }
    assert_eq!(serial.as_slice(), &want[..]);
    Ok(())
}

/// README's "Parallel loops": the scalar fold gives the same bits on one, two and three
/// threads, and the sum of the elementwise products (integers, so exact in any order).
#[test]
fn a_scalar_fold_does_not_depend_on_the_threads() -> Result<(), Error> {
    let (n, m) = (20_000, 7);
    let at = |i: usize, k: usize, s: usize| ((i * 5 + k * s) % 9) as f64 - 4.0;
    let entries = |s: usize| -> Vec<([usize; 2], f64)> {
        (0..n)
            .flat_map(move |i| (0..m).map(move |k| ([i, k], at(i, k, s))))
            .filter(|(_, v)| *v != 0.0)
            .collect()
    };
    let a = Csr::<f64>::from_entries(&[n, m], entries(3))?;
    let b = Csr::<f64>::from_entries(&[n, m], entries(4))?;
    let mut sums = Vec::new();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut s = f64::NAN;
        pool.install(|| frobenius(&mut s, &a, &b))?;
        sums.push(s.to_bits());
    }
    let want: f64 = (0..n)
        .flat_map(|i| (0..m).map(move |k| at(i, k, 3) * at(i, k, 4)))
        .sum();
    assert!(
        sums.iter().all(|&s| s == want.to_bits()),
        "{sums:?} against {want}"
    );
    Ok(())
}

#[test]
fn dia_spmv_on_the_1d_laplacian() -> Result<(), Error> {
    let entries = [
        ([0, 0], 2.0),
        ([1, 1], 2.0),
        ([2, 2], 2.0),
        ([0, 1], -1.0),
        ([1, 2], -1.0),
        ([1, 0], -1.0),
        ([2, 1], -1.0),
    ];
    let a = Dia::<f64>::from_entries(&[3, 3], entries)?;
    assert_eq!(a.offsets(), &[-1, 0, 1]);
    let mut y = Dense1::zeros(3);
    spmv_dia(&mut y, &a, &Dense1::from_vec(vec![1.0, 2.0, 3.0]))?;
    assert_eq!(y.as_slice(), &[0.0, 0.0, 4.0]);
    Ok(())
}

#[test]
fn bcsr_spmv_with_a_cut_block() -> Result<(), Error> {
    // A 3 x 3 matrix in 2 x 2 blocks: block (0, 0) whole, block (1, 1) cut to the one
    // component (2, 2) by both edges.
    let entries = [([0, 0], 1.0), ([0, 1], 2.0), ([1, 0], 3.0), ([2, 2], 4.0)];
    let a = Bcsr::<f64, 2, 2>::from_entries(&[3, 3], entries)?;
    assert_eq!((a.block_count(), a.col_idx()), (2, &[0, 1][..]));
    let mut y = Dense1::zeros(3);
    spmv_bcsr(&mut y, &a, &Dense1::from_vec(vec![1.0, 1.0, 1.0]))?;
    assert_eq!(y.as_slice(), &[3.0, 3.0, 4.0]);
    Ok(())
}

#[test]
fn spgemm_through_workspaces() -> Result<(), Error> {
    // [1 2; 0 3] * [4 0; 5 6] = [14 12; 15 18]; row 1 of `a` only reaches row 1 of `b`.
    let a = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 1.0), ([0, 1], 2.0), ([1, 1], 3.0)])?;
    let b = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 4.0), ([1, 0], 5.0), ([1, 1], 6.0)])?;
    let expected = vec![
        (vec![0, 0], 14.0),
        (vec![0, 1], 12.0),
        (vec![1, 0], 15.0),
        (vec![1, 1], 18.0),
    ];
    let mut h = HashMat::<f64>::new(&[2, 2])?;
    spgemm_into_hash_rows(&mut h, &a, &b)?;
    assert_eq!(h.entries(), expected);
    let mut c = Csr::<f64>::new(&[2, 2])?;
    spgemm(&mut c, &a, &b)?;
    assert_eq!(c.entries(), expected);
    spgemm_hash(&mut c, &a, &b)?;
    assert_eq!(c.entries(), expected);
    // c += a b: every entry doubles.
    add_product(&mut c, &a, &b)?;
    let doubled: Vec<_> = expected.iter().map(|(k, v)| (k.clone(), 2.0 * v)).collect();
    assert_eq!(c.entries(), doubled);
    Ok(())
}

#[test]
fn assemble_once_compute_many_times() -> Result<(), Error> {
    let mut a = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 1.0), ([0, 1], 2.0), ([1, 1], 3.0)])?;
    let b = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 4.0), ([1, 0], 5.0), ([1, 1], 6.0)])?;
    let mut c = Csr::<f64>::new(&[2, 2])?;
    spgemm_split(&mut c, &a, &b)?;
    for _ in 0..3 {
        for v in a.vals_mut() {
            *v *= 2.0;
        }
        spgemm_values(&mut c, &a, &b)?;
    }
    // a was scaled by 8: every entry of a b is 8 times [14 12; 15 18].
    let want = vec![
        (vec![0, 0], 112.0),
        (vec![0, 1], 96.0),
        (vec![1, 0], 120.0),
        (vec![1, 1], 144.0),
    ];
    assert_eq!(c.entries(), want);
    // An output the kernel did not assemble is refused.
    let mut fresh = Csr::<f64>::new(&[2, 2])?;
    assert!(matches!(
        spgemm_values(&mut fresh, &a, &b),
        Err(Error::NotAssembled { .. })
    ));
    Ok(())
}

#[test]
fn gemv_and_residual() -> Result<(), Error> {
    let a = Csr::<f64>::from_entries(&[2, 3], [([0, 0], 1.0), ([0, 2], 2.0), ([1, 1], 3.0)])?;
    let x = Dense1::from_vec(vec![1.0, 1.0, 1.0]);
    let z = SparseVec::<f64>::from_entries(&[2], [([1], 10.0)])?;
    let mut y = Dense1::zeros(2);
    gemv(&mut y, 2.0, &a, &x, 0.5, &z)?;
    assert_eq!(y.as_slice(), &[6.0, 11.0]);
    let b = Dense1::from_vec(vec![3.0, 3.0]);
    residual(&mut y, &b, &a, &x)?;
    assert_eq!(y.as_slice(), &[0.0, 0.0]);
    Ok(())
}

#[test]
fn spmm_sddmm_ttv_mttkrp() -> Result<(), Error> {
    let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 0], 1.0)])?;
    let b = Dense2::from_vec(2, 2, vec![1.0, 2.0, 3.0, 4.0])?;
    let mut c = Dense2::zeros(2, 2);
    spmm(&mut c, &a, &b)?;
    assert_eq!(c.as_slice(), &[6.0, 8.0, 1.0, 2.0]);

    let mut s = Csr::<f64>::new(&[2, 2])?;
    sddmm(&mut s, &a, &b, &b)?;
    // s(0,1) = 2 * (row 0 of b . column 1 of b) = 2 * (1*2 + 2*4); s(1,0) = 1 * (3*1 + 4*3)
    assert_eq!(s.entries(), vec![(vec![0, 1], 20.0), (vec![1, 0], 15.0)]);

    let t = Csf3::<f64>::from_entries(
        &[2, 2, 2],
        [([0, 1, 0], 1.0), ([0, 1, 1], 2.0), ([1, 0, 1], 3.0)],
    )?;
    let v = Dense1::from_vec(vec![10.0, 1.0]);
    let mut m = Csr::<f64>::new(&[2, 2])?;
    ttv(&mut m, &t, &v)?;
    assert_eq!(m.entries(), vec![(vec![0, 1], 12.0), (vec![1, 0], 3.0)]);

    let mut k = Dense2::zeros(2, 2);
    mttkrp(&mut k, &t, &b, &b)?;
    // k(i,j) = sum_{k,l} t(i,k,l) b(k,j) b(l,j)
    assert_eq!(
        k.as_slice(),
        &[
            1.0 * 3.0 * 1.0 + 2.0 * 3.0 * 3.0,
            1.0 * 4.0 * 2.0 + 2.0 * 4.0 * 4.0,
            3.0 * 1.0 * 3.0,
            3.0 * 2.0 * 4.0
        ]
    );
    Ok(())
}

#[test]
fn conversions_as_in_readme() -> Result<(), Error> {
    let a = Coo::<f64>::from_entries(&[3, 4], [([2, 1], 1.0), ([0, 3], 2.0), ([0, 1], 3.0)])?;
    let b: Csr<f64> = a.convert()?;
    let c: Csc<f64> = b.convert()?;
    let t: Csr<f64> = b.transpose()?;
    let d: Dia<f64> = b.convert()?;
    let p: Coo<f64> = b.permuted(&[1, 0])?.convert()?;
    assert_eq!(b.entries(), a.entries());
    assert_eq!(c.entries(), a.entries());
    assert_eq!(t.entries(), p.entries());
    assert_eq!(t.entries()[0], (vec![1, 0], 3.0));
    assert_eq!(d.offsets(), &[-1, 1, 3]);
    assert_eq!(d.to_dense(), a.to_dense());
    Ok(())
}

sparse_kernel! {
    fn spmv_read(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

#[test]
fn read_convert_compute_as_in_readme() -> Result<(), Error> {
    let file = b"%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n3 3 2\n";
    let coo: Coo<f64> = sparse_runtime::io::read_matrix_market_from(&file[..], "laplace.mtx")?;
    let a: Csr<f64> = coo.convert()?;
    assert_eq!(a.nnz(), 7);
    let x = Dense1::from_vec(vec![1.0; a.shape()[1]]);
    let mut y = Dense1::zeros(a.shape()[0]);
    spmv_read(&mut y, &a, &x)?;
    assert_eq!(y.as_slice(), &[1.0, 0.0, 1.0]);
    Ok(())
}

/// README's "Every tensor type has ..." example: from_coordinate_arrays, iter, row, pruned,
/// same_values, Display.
#[test]
fn everyday_tensor_api() -> Result<(), Error> {
    let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 1.5), ([1, 0], 0.0), ([1, 2], -2.0)])?;
    let (rows, cols, vals) = ([1u32, 0, 1], [2u32, 2, 0], [-2.0, 1.5, 0.0]);
    assert_eq!(
        Csr::from_coordinate_arrays(&[2, 3], &[&rows, &cols], &vals)?,
        a
    );
    let mut sum = 0.0;
    let mut seen = Vec::new();
    for (c, v) in a.iter() {
        sum += v * (c[0] + c[1]) as f64;
        seen.push(c.to_vec());
    }
    assert_eq!(seen, vec![vec![0, 2], vec![1, 0], vec![1, 2]]);
    assert_eq!(sum, 1.5 * 2.0 - 2.0 * 3.0);
    let (cols, vals) = a.row(1).unwrap();
    assert_eq!((cols, vals), (&[0u32, 2][..], &[0.0, -2.0][..]));
    let b = a.pruned()?;
    assert!(b.same_values(&a) && b != a);
    assert_eq!(
        b.to_string(),
        "tensor of shape 2 x 3, 2 stored entries\n  (0, 2): 1.5\n  (1, 2): -2.0\n"
    );
    Ok(())
}

mod sparse_arrays {
    use super::*;

    sparse_kernel! {
        /// Addition of path lengths: infinity (no path) annihilates it.
        #[function(commutative, associative, identity = 0, annihilator = inf)]
        fn plus(a: f64, b: f64) -> f64 {
            a + b
        }

        /// One Bellman-Ford relaxation (tropical min-plus `mxv`): only stored edges are visited.
        pub fn relax(next: &mut Dense1<f64>, #[fill(inf)] w: &Csr<f64>, d: &Dense1<f64>) {
            next(i) = min(d(i), min[j](plus(w(i, j), d(j))))
        }

        /// `x` where `m` stores nothing: a structural complemented mask.
        #[function(iterate(x & !m))]
        fn unless(x: u8, m: u8) -> u8 {
            if m != 0 { 0 } else { x }
        }

        /// One BFS step: unvisited vertices with an edge from the frontier (boolean semiring).
        pub fn bfs_step(next: &mut SparseVec<u8>, g: &Csr<u8>, f: &SparseVec<u8>, seen: &SparseVec<u8>) {
            next(i) = unless(any[j](and(g(i, j), f(j))), seen(i))
        }
    }

    /// README's "Sparse array programming" kernels on a path 0 -> 1 -> 2 -> 3 plus 0 -> 3.
    #[test]
    fn relax_and_bfs_as_in_readme() -> Result<(), Error> {
        let inf = f64::INFINITY;
        // Edges stored by destination row.
        let edges = [([1, 0], 1.0), ([2, 1], 1.0), ([3, 2], 1.0), ([3, 0], 5.0)];
        let w = Csr::from_entries(&[4, 4], edges)?.with_fill(inf);
        let mut d = Dense1::from_vec(vec![0.0, inf, inf, inf]);
        let mut next = Dense1::zeros(4);
        for _ in 0..3 {
            relax(&mut next, &w, &d)?;
            std::mem::swap(&mut d, &mut next);
        }
        assert_eq!(d.as_slice(), &[0.0, 1.0, 2.0, 3.0]);
        let g = Csr::from_entries(&[4, 4], edges.map(|(c, _)| (c, 1u8)))?;
        let f = SparseVec::from_entries(&[4], [([0], 1u8)])?;
        let mut next = f.clone();
        bfs_step(&mut next, &g, &f, &f)?;
        assert_eq!(next.entries(), vec![(vec![1], 1), (vec![3], 1)]);
        let seen = SparseVec::from_entries(&[4], [([0], 1u8), ([1], 1), ([3], 1)])?;
        let frontier = next.clone();
        bfs_step(&mut next, &g, &frontier, &seen)?;
        assert_eq!(next.entries(), vec![(vec![2], 1)]);
        Ok(())
    }
}
