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

/// A xorshift64 generator seeded from any `seed` (0 included): the seed is
/// mixed by the SplitMix64 finaliser first, so nearby seeds give unrelated
/// streams, and a zero state (a fixed point of xorshift) is avoided.
fn seeded_xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    xorshift(if z == 0 { 0x2545_f491_4f6c_dd1d } else { z })
}

/// A uniform value in `[0, 1)` from the top 53 bits of `bits`.
fn unit_closed_open(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// A uniform value in `(0, 1]` from the top 53 bits of `bits` (never zero).
fn unit_open_closed(bits: u64) -> f64 {
    ((bits >> 11) + 1) as f64 / (1u64 << 53) as f64
}

/// An R-MAT graph (Chakrabarti, Zhan and Faloutsos 2004) as a square adjacency
/// matrix with the Graph500 parameters: `2^scale` vertices and
/// `edge_factor * 2^scale` edges drawn independently, each by `scale` choices
/// of a quadrant of the remaining square (top-left with probability
/// `a = 0.57`, top-right `b = 0.19`, bottom-left `c = 0.19`, bottom-right
/// `d = 0.05`), so the degrees are heavily skewed.
///
/// Edge `(r, c)` is entry `A(r, c)` with a value uniform in `(0, 1]`;
/// duplicate edges are merged into one entry (their values summed, so no
/// entry is zero), so `nnz` is somewhat below `edge_factor * 2^scale`.
/// Self-loops are kept. Vertices are not relabelled (Graph500 permutes them):
/// the high-degree vertices are the low-numbered ones. Columns are strictly
/// increasing within each row. Deterministic: a seeded xorshift, so the same
/// `(scale, edge_factor, seed)` always builds the same matrix.
///
/// # Panics
/// If `2^scale` overflows `usize` or the number of rows or entries does not
/// fit `I`.
pub fn rmat<I: Index>(scale: u32, edge_factor: usize, seed: u64) -> CsrArrays<I> {
    const A: f64 = 0.57;
    const B: f64 = 0.19;
    const C: f64 = 0.19;
    assert!(scale < usize::BITS, "2^scale vertices overflow usize");
    let n = 1usize << scale;
    let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
    let mut next = seeded_xorshift(seed);
    let mut edges: Vec<(usize, usize, f64)> = (0..edge_factor * n)
        .map(|_| {
            let (mut r, mut c) = (0, 0);
            for bit in (0..scale).rev() {
                let u = unit_closed_open(next());
                if u >= A + B + C {
                    r |= 1 << bit;
                    c |= 1 << bit;
                } else if u >= A + B {
                    r |= 1 << bit;
                } else if u >= A {
                    c |= 1 << bit;
                }
            }
            (r, c, unit_open_closed(next()))
        })
        .collect();
    edges.sort_unstable_by_key(|&(r, c, _)| (r, c));
    let mut m = CsrArrays {
        rows: n,
        cols: n,
        row_ptr: Vec::with_capacity(n + 1),
        col_idx: Vec::with_capacity(edges.len()),
        vals: Vec::with_capacity(edges.len()),
    };
    m.row_ptr.push(idx(0));
    let mut last = None;
    for (r, c, v) in edges {
        if last == Some((r, c)) {
            *m.vals.last_mut().expect("a previous entry") += v;
            continue;
        }
        while m.row_ptr.len() <= r {
            m.row_ptr.push(idx(m.col_idx.len()));
        }
        m.col_idx.push(idx(c));
        m.vals.push(v);
        last = Some((r, c));
    }
    while m.row_ptr.len() <= n {
        m.row_ptr.push(idx(m.col_idx.len()));
    }
    m
}

/// A `rows x cols` matrix with exactly `per_row` entries in every row, at
/// distinct uniformly random columns, values uniform in `(0, 1]` (so no entry
/// is zero), columns strictly increasing within each row. Deterministic in
/// `seed` (a seeded xorshift), and different seeds give unrelated matrices:
/// two calls with different seeds give the two operands of `A B` or `A + B`.
/// ([`random_per_row`] is square, has one fixed seed and integer values.)
///
/// # Panics
/// If `per_row > cols` or the number of rows or entries does not fit `I`.
pub fn random_uniform<I: Index>(
    rows: usize,
    cols: usize,
    per_row: usize,
    seed: u64,
) -> CsrArrays<I> {
    assert!(per_row <= cols, "more entries per row than columns");
    let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
    let mut next = seeded_xorshift(seed);
    let mut m = CsrArrays {
        rows,
        cols,
        row_ptr: Vec::with_capacity(rows + 1),
        col_idx: Vec::with_capacity(rows * per_row),
        vals: Vec::with_capacity(rows * per_row),
    };
    m.row_ptr.push(idx(0));
    let mut row = Vec::with_capacity(per_row);
    for _ in 0..rows {
        row.clear();
        while row.len() < per_row {
            let j = (next() % cols as u64) as usize;
            if !row.contains(&j) {
                row.push(j);
            }
        }
        row.sort_unstable();
        for &j in &row {
            m.col_idx.push(idx(j));
            m.vals.push(unit_open_closed(next()));
        }
        m.row_ptr.push(idx(m.col_idx.len()));
    }
    m
}

/// Writes `m` into `dir` for tools outside Rust (`benches/scipy_spgemm.py`):
/// `{name}.rowptr.u32`, `{name}.colidx.u32` and `{name}.vals.f64` hold the
/// three arrays as raw little-endian numbers, `{name}.shape` the line
/// `rows cols nnz`.
///
/// # Errors
/// If a file cannot be written.
pub fn dump_csr(m: &CsrArrays<u32>, dir: &std::path::Path, name: &str) -> std::io::Result<()> {
    fn bytes<T: Copy, const N: usize>(v: &[T], le: impl Fn(T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(|&x| le(x)).collect()
    }
    let path = |ext: &str| dir.join(format!("{name}.{ext}"));
    std::fs::write(path("rowptr.u32"), bytes(&m.row_ptr, u32::to_le_bytes))?;
    std::fs::write(path("colidx.u32"), bytes(&m.col_idx, u32::to_le_bytes))?;
    std::fs::write(path("vals.f64"), bytes(&m.vals, f64::to_le_bytes))?;
    std::fs::write(
        path("shape"),
        format!("{} {} {}\n", m.rows, m.cols, m.nnz()),
    )
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

    /// Rows strictly increasing below `cols`, `row_ptr` consistent, no zero values.
    fn assert_valid(m: &CsrArrays<u32>) {
        assert_eq!(m.row_ptr.len(), m.rows + 1);
        assert_eq!((m.row_ptr[0], m.row_ptr[m.rows] as usize), (0, m.nnz()));
        assert_eq!(m.col_idx.len(), m.nnz());
        for w in m.row_ptr.windows(2) {
            let cols = &m.col_idx[w[0] as usize..w[1] as usize];
            assert!(cols.windows(2).all(|c| c[0] < c[1]));
            assert!(cols.iter().all(|&c| (c as usize) < m.cols));
        }
        assert!(m.vals.iter().all(|&v| v > 0.0));
    }

    #[test]
    fn rmat_is_valid_skewed_and_deterministic() {
        let a = rmat::<u32>(10, 16, 1);
        assert_valid(&a);
        assert_eq!((a.rows, a.cols), (1024, 1024));
        // Duplicates merged: fewer entries than edges, but the values still sum to about
        // half the edge count (each edge's value has mean 1/2).
        assert!(a.nnz() < 16 * 1024 && a.nnz() > 8 * 1024, "{}", a.nnz());
        let total: f64 = a.vals.iter().sum();
        assert!((total / (8.0 * 1024.0) - 1.0).abs() < 0.05, "{total}");
        assert!(a.vals.iter().all(|&v| v <= 16.0 * 1024.0));
        // Row 0 (quadrant a or b at every level: probability 0.76^10 per edge, about 1,050
        // edges, 341 distinct columns with seed 1) is far above the mean degree (under 16);
        // the last row (0.24^10) almost always empty.
        let degree = |r: usize| (a.row_ptr[r + 1] - a.row_ptr[r]) as usize;
        assert!(degree(0) > 200, "{}", degree(0));
        assert!(degree(1023) <= 1);
        assert_eq!(rmat::<u32>(10, 16, 1), a);
        assert_ne!(rmat::<u32>(10, 16, 2), a);
    }

    #[test]
    fn random_uniform_is_rectangular_seeded_and_valid() {
        let a = random_uniform::<u32>(30, 50, 8, 1);
        assert_valid(&a);
        assert_eq!((a.rows, a.cols, a.nnz()), (30, 50, 240));
        assert!(a.row_ptr.windows(2).all(|w| w[1] - w[0] == 8));
        assert!(a.vals.iter().all(|&v| v <= 1.0));
        assert_eq!(random_uniform::<u32>(30, 50, 8, 1), a);
        let b = random_uniform::<u32>(30, 50, 8, 2);
        assert_ne!(a.col_idx, b.col_idx);
        assert_valid(&random_uniform::<u32>(4, 3, 3, 0));
    }

    #[test]
    fn dump_csr_writes_the_raw_arrays() {
        let a = poisson_2d::<u32>(2);
        let dir = std::env::temp_dir().join(format!("sparse-benches-dump-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dump_csr(&a, &dir, "p").unwrap();
        let read = |ext: &str| std::fs::read(dir.join(format!("p.{ext}"))).unwrap();
        assert_eq!(read("shape"), b"4 4 12\n");
        assert_eq!(read("rowptr.u32")[4..8], 3u32.to_le_bytes());
        assert_eq!(read("vals.f64")[..8], 4.0f64.to_le_bytes());
        assert_eq!(read("colidx.u32").len(), 4 * 12);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
