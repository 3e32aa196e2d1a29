//! Matrix generators shared by the benchmarks.
//!
//! Generators return plain CSR arrays so that every contender (generated
//! kernels, hand-written loops, sprs, nalgebra-sparse) is built from exactly the
//! same data.

use sparse_runtime::{Bcsr, Compressed, Csb, Csc, Csr, Dense, Index};

/// A CSR matrix as its three raw arrays, with index type `I`.
#[derive(Clone, Debug, PartialEq)]
pub struct CsrArrays<I> {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// `rows + 1` segment bounds: row `r` holds positions `row_ptr[r]..row_ptr[r + 1]`.
    pub row_ptr: Vec<I>,
    /// Column of each stored entry, strictly increasing within a row.
    pub col_idx: Vec<I>,
    /// Value of each stored entry.
    pub vals: Vec<f64>,
}

impl<I: Index> CsrArrays<I> {
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// The matrix as a runtime `Csr` (a copy of the arrays).
    ///
    /// # Panics
    /// If the arrays are not a valid CSR matrix.
    pub fn to_csr(&self) -> Csr<f64, I> {
        Csr::from_csr_arrays(
            self.rows,
            self.cols,
            self.row_ptr.clone(),
            self.col_idx.clone(),
            self.vals.clone(),
        )
        .expect("valid CSR arrays")
    }

    /// The CSR arrays of the transpose (equivalently, the CSC arrays of this
    /// matrix): a counting sort by column, so each column's rows come out in
    /// increasing order.
    ///
    /// # Panics
    /// If a position does not fit `I`.
    pub fn transpose(&self) -> CsrArrays<I> {
        let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
        let mut starts = vec![0usize; self.cols + 1];
        for &j in &self.col_idx {
            starts[j.to_usize() + 1] += 1;
        }
        for j in 0..self.cols {
            starts[j + 1] += starts[j];
        }
        let mut next = starts.clone();
        let mut row_idx = vec![idx(0); self.nnz()];
        let mut vals = vec![0.0; self.nnz()];
        for (i, w) in self.row_ptr.windows(2).enumerate() {
            for p in w[0].to_usize()..w[1].to_usize() {
                let q = &mut next[self.col_idx[p].to_usize()];
                row_idx[*q] = idx(i);
                vals[*q] = self.vals[p];
                *q += 1;
            }
        }
        CsrArrays {
            rows: self.cols,
            cols: self.rows,
            row_ptr: starts.into_iter().map(idx).collect(),
            col_idx: row_idx,
            vals,
        }
    }

    /// The matrix as a runtime `Csc`, built from the arrays of its transpose.
    ///
    /// # Panics
    /// If the arrays are not a valid CSR matrix.
    pub fn to_csc(&self) -> Csc<f64, I> {
        let t = self.transpose();
        let rows_of_columns =
            Compressed::from_raw(self.rows, t.row_ptr, t.col_idx).expect("valid CSC arrays");
        Csc::from_levels(
            &[self.rows, self.cols],
            (Dense::new(self.cols), rows_of_columns),
            t.vals,
        )
        .expect("valid CSC arrays")
    }

    /// The matrix as a runtime `Csb` of `block x block` blocks, built straight
    /// from its arrays (a counting sort by block: walking the rows in order
    /// leaves each block's entries row-major, as `Csb` keeps them).
    ///
    /// # Panics
    /// If `block` is 0 or the arrays are not a valid CSR matrix.
    pub fn to_csb(&self, block: usize) -> Csb<f64, I> {
        assert!(block > 0, "a CSB block size must be at least 1");
        let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
        let mb = self.cols.div_ceil(block);
        let blocks = self.rows.div_ceil(block) * mb;
        let block_of = |i: usize, j: usize| i / block * mb + j / block;
        let mut starts = vec![0usize; blocks + 1];
        for (i, w) in self.row_ptr.windows(2).enumerate() {
            for &j in &self.col_idx[w[0].to_usize()..w[1].to_usize()] {
                starts[block_of(i, j.to_usize()) + 1] += 1;
            }
        }
        for b in 0..blocks {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut row_idx = vec![idx(0); self.nnz()];
        let mut col_idx = vec![idx(0); self.nnz()];
        let mut vals = vec![0.0; self.nnz()];
        for (i, w) in self.row_ptr.windows(2).enumerate() {
            for p in w[0].to_usize()..w[1].to_usize() {
                let q = &mut next[block_of(i, self.col_idx[p].to_usize())];
                row_idx[*q] = idx(i);
                col_idx[*q] = self.col_idx[p];
                vals[*q] = self.vals[p];
                *q += 1;
            }
        }
        Csb::from_csb_arrays(
            self.rows,
            self.cols,
            block,
            starts.into_iter().map(idx).collect(),
            row_idx,
            col_idx,
            vals,
        )
        .expect("valid CSB arrays")
    }

    /// The same matrix with another index type.
    ///
    /// # Panics
    /// If a position or column does not fit `J`.
    pub fn with_index<J: Index>(&self) -> CsrArrays<J> {
        let convert = |v: &[I]| -> Vec<J> {
            v.iter()
                .map(|&x| J::try_from_usize(x.to_usize()).expect("index does not fit"))
                .collect()
        };
        CsrArrays {
            rows: self.rows,
            cols: self.cols,
            row_ptr: convert(&self.row_ptr),
            col_idx: convert(&self.col_idx),
            vals: self.vals.clone(),
        }
    }
}

/// A block sparse row matrix of dense `R x C` blocks as its three raw arrays,
/// with index type `I` (the arrays of [`Bcsr::from_bsr_arrays`]).
#[derive(Clone, Debug, PartialEq)]
pub struct BsrArrays<const R: usize, const C: usize, I> {
    /// Number of rows of the matrix.
    pub rows: usize,
    /// Number of columns of the matrix.
    pub cols: usize,
    /// `ceil(rows / R) + 1` segment bounds: block row `b` holds blocks
    /// `row_ptr[b]..row_ptr[b + 1]`.
    pub row_ptr: Vec<I>,
    /// Block column of each stored block, strictly increasing within a block row.
    pub col_idx: Vec<I>,
    /// `R * C` values per stored block, row-major within the block.
    pub vals: Vec<f64>,
}

impl<const R: usize, const C: usize, I: Index> BsrArrays<R, C, I> {
    /// Number of stored blocks.
    pub fn block_count(&self) -> usize {
        self.col_idx.len()
    }

    /// The matrix as a runtime `Bcsr` (a copy of the arrays).
    ///
    /// # Panics
    /// If the arrays are not a valid BSR matrix.
    pub fn to_bcsr(&self) -> Bcsr<f64, R, C, I> {
        Bcsr::from_bsr_arrays(
            self.rows,
            self.cols,
            self.row_ptr.clone(),
            self.col_idx.clone(),
            self.vals.clone(),
        )
        .expect("valid BSR arrays")
    }

    /// The same matrix as CSR arrays: every component of every stored block
    /// that lies inside the matrix (zeros inside a block included), so the
    /// two hold the same entries.
    ///
    /// # Panics
    /// If a position or column does not fit `I`.
    pub fn to_csr_arrays(&self) -> CsrArrays<I> {
        let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
        let mut m = CsrArrays {
            rows: self.rows,
            cols: self.cols,
            row_ptr: Vec::with_capacity(self.rows + 1),
            col_idx: Vec::with_capacity(self.vals.len()),
            vals: Vec::with_capacity(self.vals.len()),
        };
        m.row_ptr.push(idx(0));
        for i in 0..self.rows {
            let (bi, r) = (i / R, i % R);
            for b in self.row_ptr[bi].to_usize()..self.row_ptr[bi + 1].to_usize() {
                let first = self.col_idx[b].to_usize() * C;
                let row = &self.vals[(b * R + r) * C..(b * R + r + 1) * C];
                for (c, &v) in row.iter().enumerate().take(self.cols - first) {
                    m.col_idx.push(idx(first + c));
                    m.vals.push(v);
                }
            }
            m.row_ptr.push(idx(m.col_idx.len()));
        }
        m
    }
}

/// A finite-element-like matrix with 3 unknowns per node: a `g x g` grid of
/// nodes, each coupled with itself and its up to 8 neighbours (the 9-point
/// stencil), every coupling a dense 3 x 3 block of random nonzero values
/// (magnitudes in `[0.25, 1.25)`, either sign; a fixed-seed xorshift, so every
/// run builds the same matrix). Node `(r, c)` is block row `r * g + c`, its
/// unknowns rows `3 (r * g + c) .. 3 (r * g + c) + 3`: `3 g^2` rows, `(3 g - 2)^2`
/// blocks, `9 (3 g - 2)^2` entries (27 per row away from the boundary).
///
/// # Panics
/// If the number of rows or blocks does not fit `I`.
pub fn fem_2d_blocks<I: Index>(g: usize) -> BsrArrays<3, 3, I> {
    let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
    let nodes = g * g;
    let blocks = (3 * g).saturating_sub(2).pow(2);
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    let mut m = BsrArrays {
        rows: 3 * nodes,
        cols: 3 * nodes,
        row_ptr: Vec::with_capacity(nodes + 1),
        col_idx: Vec::with_capacity(blocks),
        vals: Vec::with_capacity(9 * blocks),
    };
    m.row_ptr.push(idx(0));
    for r in 0..g {
        for c in 0..g {
            for nr in r.saturating_sub(1)..(r + 2).min(g) {
                for nc in c.saturating_sub(1)..(c + 2).min(g) {
                    m.col_idx.push(idx(nr * g + nc));
                    for _ in 0..9 {
                        let bits = next();
                        let magnitude = 0.25 + (bits >> 11) as f64 / (1u64 << 53) as f64;
                        m.vals
                            .push(if bits & 1 == 0 { magnitude } else { -magnitude });
                    }
                }
            }
            m.row_ptr.push(idx(m.col_idx.len()));
        }
    }
    m
}

/// A xorshift64 generator with a fixed nonzero seed.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// The 2-D Poisson matrix: the 5-point Laplacian stencil on an `n x n` grid
/// with Dirichlet boundaries, `n^2` rows and `5n^2 - 4n` entries.
///
/// Row `r * n + c` is grid point `(r, c)`: 4 on the diagonal and -1 for each
/// of its up to four neighbours, columns in increasing order.
///
/// # Panics
/// If the number of rows or entries does not fit `I`.
pub fn poisson_2d<I: Index>(n: usize) -> CsrArrays<I> {
    let rows = n * n;
    let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
    let mut row_ptr = Vec::with_capacity(rows + 1);
    let mut col_idx = Vec::with_capacity(5 * rows);
    let mut vals = Vec::with_capacity(5 * rows);
    row_ptr.push(idx(0));
    for r in 0..n {
        for c in 0..n {
            let k = r * n + c;
            let mut push = |col: usize, v: f64| {
                col_idx.push(idx(col));
                vals.push(v);
            };
            if r > 0 {
                push(k - n, -1.0);
            }
            if c > 0 {
                push(k - 1, -1.0);
            }
            push(k, 4.0);
            if c + 1 < n {
                push(k + 1, -1.0);
            }
            if r + 1 < n {
                push(k + n, -1.0);
            }
            row_ptr.push(idx(col_idx.len()));
        }
    }
    CsrArrays {
        rows,
        cols: rows,
        row_ptr,
        col_idx,
        vals,
    }
}

/// A banded `n x n` matrix with the `2 * half + 1` diagonals `-half..=half`,
/// entries `A(i, j) = 1 + (i + 2 j) % 5` (clipped at the matrix edge).
///
/// # Panics
/// If the number of rows or entries does not fit `I`.
pub fn banded<I: Index>(n: usize, half: usize) -> CsrArrays<I> {
    let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
    let mut m = CsrArrays {
        rows: n,
        cols: n,
        row_ptr: vec![idx(0)],
        col_idx: Vec::with_capacity(n * (2 * half + 1)),
        vals: Vec::with_capacity(n * (2 * half + 1)),
    };
    for i in 0..n {
        for j in i.saturating_sub(half)..(i + half + 1).min(n) {
            m.col_idx.push(idx(j));
            m.vals.push(1.0 + ((i + 2 * j) % 5) as f64);
        }
        m.row_ptr.push(idx(m.col_idx.len()));
    }
    m
}

/// An `n x n` matrix with exactly `k` entries per row at distinct uniformly
/// random columns (a fixed-seed xorshift, so every run builds the same
/// matrix), entries `1 + (i + j) % 7`.
///
/// # Panics
/// If `k > n` or the number of rows or entries does not fit `I`.
pub fn random_per_row<I: Index>(n: usize, k: usize) -> CsrArrays<I> {
    assert!(k <= n, "more entries per row than columns");
    let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let mut m = CsrArrays {
        rows: n,
        cols: n,
        row_ptr: vec![idx(0)],
        col_idx: Vec::with_capacity(n * k),
        vals: Vec::with_capacity(n * k),
    };
    let mut row = Vec::with_capacity(k);
    for i in 0..n {
        row.clear();
        while row.len() < k {
            let j = (next() % n as u64) as usize;
            if !row.contains(&j) {
                row.push(j);
            }
        }
        row.sort_unstable();
        for &j in &row {
            m.col_idx.push(idx(j));
            m.vals.push(1.0 + ((i + j) % 7) as f64);
        }
        m.row_ptr.push(idx(m.col_idx.len()));
    }
    m
}

/// A deterministic, non-trivial dense vector of length `n` (no RNG needed).
pub fn test_vector(n: usize) -> Vec<f64> {
    (0..n)
        .map(|j| ((j * 7919) % 1000) as f64 / 1000.0 - 0.5)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banded_rows_are_clipped_at_the_edges() {
        let a = banded::<u32>(5, 1);
        assert_eq!(a.row_ptr, vec![0, 2, 5, 8, 11, 13]);
        assert_eq!(&a.col_idx[..5], &[0, 1, 0, 1, 2]);
    }

    #[test]
    fn random_per_row_has_k_distinct_sorted_columns() {
        let a = random_per_row::<u32>(50, 8);
        assert_eq!(a.nnz(), 400);
        for r in a.row_ptr.windows(2) {
            let cols = &a.col_idx[r[0] as usize..r[1] as usize];
            assert_eq!(cols.len(), 8);
            assert!(cols.windows(2).all(|w| w[0] < w[1]) && cols[7] < 50);
        }
    }

    #[test]
    fn fem_blocks_and_csr_hold_the_same_matrix() {
        let g = 4;
        let b = fem_2d_blocks::<u32>(g);
        assert_eq!((b.rows, b.block_count()), (48, 100));
        assert_eq!(&b.col_idx[..4], &[0, 1, 4, 5]);
        assert!(b.vals.iter().all(|v| (0.25..1.25).contains(&v.abs())));
        let csr = b.to_csr_arrays();
        assert_eq!(csr.nnz(), 900);
        assert_eq!(&csr.row_ptr[..3], &[0, 12, 24]);
        let bcsr = b.to_bcsr();
        assert_eq!(bcsr.entries(), csr.to_csr().entries());
        // A 5 x 4 matrix of 3 x 3 blocks: block (1, 1) is cut by both edges.
        let edge = BsrArrays::<3, 3, u32> {
            rows: 5,
            cols: 4,
            row_ptr: vec![0, 1, 2],
            col_idx: vec![0, 1],
            vals: (0..18)
                .map(|k| {
                    if k <= 9 || k == 12 {
                        1.0 + k as f64
                    } else {
                        0.0
                    }
                })
                .collect(),
        };
        assert_eq!(
            edge.to_bcsr().entries(),
            edge.to_csr_arrays().to_csr().entries()
        );
    }

    #[test]
    fn csc_and_csb_hold_the_same_matrix() {
        let a = fem_2d_blocks::<u32>(3).to_csr_arrays();
        let a = CsrArrays {
            rows: a.rows,
            cols: a.cols - 2,
            row_ptr: vec![],
            col_idx: vec![],
            vals: vec![],
        }
        .with_entries_of(&a);
        let want = a.to_csr().entries();
        assert_eq!(a.to_csc().entries(), want);
        assert_eq!(a.transpose().transpose(), a);
        for block in [1, 2, 4, 64] {
            let csb = a.to_csb(block);
            let direct =
                Csb::<f64>::from_entries_with_block(&[a.rows, a.cols], block, want.clone())
                    .unwrap();
            assert_eq!(csb, direct, "block {block}");
        }
    }

    impl CsrArrays<u32> {
        /// The entries of `a` inside this (narrower) shape.
        fn with_entries_of(mut self, a: &CsrArrays<u32>) -> Self {
            self.row_ptr.push(0);
            for w in a.row_ptr.windows(2) {
                for p in w[0] as usize..w[1] as usize {
                    if (a.col_idx[p] as usize) < self.cols {
                        self.col_idx.push(a.col_idx[p]);
                        self.vals.push(a.vals[p]);
                    }
                }
                self.row_ptr.push(self.col_idx.len() as u32);
            }
            self
        }
    }

    #[test]
    fn poisson_3x3() {
        let a = poisson_2d::<u32>(3);
        assert_eq!(a.rows, 9);
        assert_eq!(a.nnz(), 5 * 9 - 4 * 3);
        assert_eq!(&a.row_ptr[..3], &[0, 3, 7]);
        assert_eq!(&a.col_idx[..7], &[0, 1, 3, 0, 1, 2, 4]);
        assert_eq!(&a.vals[..3], &[4.0, -1.0, -1.0]);
        assert_eq!(a.with_index::<usize>().with_index::<u32>(), a);
    }
}
