//! Matrix generators shared by the benchmarks.
//!
//! Generators return plain CSR arrays so that every contender (generated
//! kernels, hand-written loops, sprs, nalgebra-sparse) is built from exactly the
//! same data.

use sparse_runtime::{
    Bcsr, Compressed, CompressedNonUnique, Coo, Coo3, Csb, Csc, Csf3, Csr, Dense, Index, Singleton,
    SingletonNonUnique,
};

/// A CSR matrix as its three raw arrays, with index type `I`.
#[derive(Clone, Debug, Default, PartialEq)]
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

/// The 3-D Poisson matrix: the 7-point Laplacian stencil on an `n x n x n`
/// grid with Dirichlet boundaries, `n^3` rows and `7n^3 - 6n^2` entries.
///
/// Row `(z * n + r) * n + c` is grid point `(z, r, c)`: 6 on the diagonal and
/// -1 for each of its up to six neighbours, columns in increasing order.
///
/// # Panics
/// If the number of rows or entries does not fit `I`.
pub fn poisson_3d<I: Index>(n: usize) -> CsrArrays<I> {
    let rows = n * n * n;
    let idx = |x: usize| I::try_from_usize(x).expect("index does not fit");
    let mut m = CsrArrays {
        rows,
        cols: rows,
        row_ptr: Vec::with_capacity(rows + 1),
        col_idx: Vec::with_capacity(7 * rows),
        vals: Vec::with_capacity(7 * rows),
    };
    m.row_ptr.push(idx(0));
    let plane = n * n;
    for z in 0..n {
        for r in 0..n {
            for c in 0..n {
                let k = (z * n + r) * n + c;
                let neighbours = [
                    (z > 0, k.wrapping_sub(plane)),
                    (r > 0, k.wrapping_sub(n)),
                    (c > 0, k.wrapping_sub(1)),
                    (true, k),
                    (c + 1 < n, k + 1),
                    (r + 1 < n, k + n),
                    (z + 1 < n, k + plane),
                ];
                for (present, col) in neighbours {
                    if present {
                        m.col_idx.push(idx(col));
                        m.vals.push(if col == k { 6.0 } else { -1.0 });
                    }
                }
                m.row_ptr.push(idx(m.col_idx.len()));
            }
        }
    }
    m
}

/// The entries of `m` as triplets `(rows, cols, vals)` in a pseudo-random
/// order fixed by `seed` (a Fisher-Yates shuffle driven by a seeded xorshift):
/// the input of construction from unsorted triplets.
pub fn shuffled_triplets(m: &CsrArrays<u32>, seed: u64) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
    let mut order: Vec<usize> = (0..m.nnz()).collect();
    let mut next = seeded_xorshift(seed);
    for k in (1..order.len()).rev() {
        order.swap(k, (next() % (k as u64 + 1)) as usize);
    }
    let mut rows = vec![0u32; m.nnz()];
    for (r, w) in m.row_ptr.windows(2).enumerate() {
        rows[w[0] as usize..w[1] as usize].fill(r as u32);
    }
    (
        order.iter().map(|&p| rows[p]).collect(),
        order.iter().map(|&p| m.col_idx[p]).collect(),
        order.iter().map(|&p| m.vals[p]).collect(),
    )
}

/// An order-3 sparse tensor as a coordinate list: `coords` strictly
/// increasing lexicographically (sorted, no duplicates), `vals[e]` the value
/// of `coords[e]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Coords3 {
    /// The size of each mode.
    pub dims: [usize; 3],
    /// The coordinates of the stored entries, sorted and distinct.
    pub coords: Vec<[u32; 3]>,
    /// The value of each stored entry.
    pub vals: Vec<f64>,
}

impl Coords3 {
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// The tensor as a runtime `Csf3` (three compressed levels), built
    /// straight from the sorted list.
    ///
    /// # Panics
    /// If the list is not sorted and distinct or a coordinate is out of range.
    pub fn to_csf3(&self) -> Csf3<f64, u32> {
        let idx = |x: usize| u32::try_from(x).expect("index does not fit u32");
        let (mut pos0, mut crd0) = (vec![0u32], Vec::new());
        let (mut pos1, mut crd1) = (vec![0u32], Vec::new());
        let (mut pos2, mut crd2) = (vec![0u32], Vec::with_capacity(self.nnz()));
        for (e, &[i, j, k]) in self.coords.iter().enumerate() {
            let prev = e.checked_sub(1).map(|p| self.coords[p]);
            let new_i = prev.is_none_or(|p| p[0] != i);
            if new_i {
                if !crd0.is_empty() {
                    pos1.push(idx(crd1.len()));
                }
                crd0.push(i);
            }
            if new_i || prev.is_some_and(|p| p[1] != j) {
                if !crd1.is_empty() {
                    pos2.push(idx(crd2.len()));
                }
                crd1.push(j);
            }
            crd2.push(k);
        }
        pos0.push(idx(crd0.len()));
        if !crd0.is_empty() {
            pos1.push(idx(crd1.len()));
            pos2.push(idx(crd2.len()));
        }
        let [d0, d1, d2] = self.dims;
        let levels = (
            Compressed::from_raw(d0, pos0, crd0).expect("valid level 0"),
            Compressed::from_raw(d1, pos1, crd1).expect("valid level 1"),
            Compressed::from_raw(d2, pos2, crd2).expect("valid level 2"),
        );
        Csf3::from_levels(&self.dims, levels, self.vals.clone()).expect("a valid CSF tensor")
    }

    /// The tensor as a runtime `Coo3` (one coordinate array per mode).
    ///
    /// # Panics
    /// If the list is not sorted and distinct or a coordinate is out of range.
    pub fn to_coo3(&self) -> Coo3<f64, u32> {
        let column = |m: usize| self.coords.iter().map(|c| c[m]).collect::<Vec<u32>>();
        let nnz = u32::try_from(self.nnz()).expect("nnz fits u32");
        let [d0, d1, d2] = self.dims;
        let levels = (
            CompressedNonUnique::from_raw(d0, vec![0, nnz], column(0)).expect("valid level 0"),
            SingletonNonUnique::from_raw(d1, column(1)).expect("valid level 1"),
            Singleton::from_raw(d2, column(2)).expect("valid level 2"),
        );
        Coo3::from_levels(&self.dims, levels, self.vals.clone()).expect("a valid COO tensor")
    }
}

/// `nnz` distinct entries of a `dims` tensor, each coordinate drawn by
/// `draw(next, mode)` from a seeded xorshift `next`, values uniform in
/// `(0, 1]`: draws until `nnz` distinct coordinates are held (a repeated
/// coordinate keeps its smallest value), then sorted.
fn distinct_tensor3(
    dims: [usize; 3],
    nnz: usize,
    seed: u64,
    mut draw: impl FnMut(&mut dyn FnMut() -> u64, usize) -> u32,
) -> Coords3 {
    assert!(
        dims.iter().all(|&d| d > 0 && u32::try_from(d).is_ok()),
        "every mode has 1 to u32::MAX coordinates"
    );
    assert!(
        nnz as u128 <= dims.iter().map(|&d| d as u128).product::<u128>(),
        "more entries than coordinates"
    );
    let mut next = seeded_xorshift(seed);
    let mut entries: Vec<([u32; 3], f64)> = Vec::with_capacity(nnz);
    while entries.len() < nnz {
        for _ in entries.len()..nnz {
            let c = [draw(&mut next, 0), draw(&mut next, 1), draw(&mut next, 2)];
            entries.push((c, unit_open_closed(next())));
        }
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        entries.dedup_by_key(|e| e.0);
    }
    Coords3 {
        dims,
        coords: entries.iter().map(|e| e.0).collect(),
        vals: entries.iter().map(|e| e.1).collect(),
    }
}

/// A uniformly random order-3 tensor: exactly `nnz` distinct coordinates, each
/// mode's coordinate uniform in `0..dims[m]`, values uniform in `(0, 1]`,
/// sorted lexicographically. Deterministic in `seed`.
///
/// # Panics
/// If a mode is empty or above `u32::MAX`, or `nnz` exceeds the coordinates.
pub fn uniform_tensor3(dims: [usize; 3], nnz: usize, seed: u64) -> Coords3 {
    distinct_tensor3(dims, nnz, seed, |next, m| (next() % dims[m] as u64) as u32)
}

/// A power-law order-3 tensor: exactly `nnz` distinct coordinates, each mode's
/// coordinate drawn independently R-MAT style, bit by bit from the top of
/// `ceil(log2(dims[m]))` bits, each bit 1 with probability `0.24` (so
/// coordinate `x` has probability about `0.76^(bits - w) 0.24^w` with `w` the
/// number of 1 bits of `x`: low coordinates are heavy, as the hubs of an R-MAT
/// graph), redrawn when it is not below `dims[m]`. Values uniform in `(0, 1]`,
/// sorted lexicographically. Deterministic in `seed`.
///
/// # Panics
/// If a mode is empty or above `u32::MAX`, or `nnz` exceeds the coordinates.
pub fn power_law_tensor3(dims: [usize; 3], nnz: usize, seed: u64) -> Coords3 {
    const ONE: f64 = 0.24;
    distinct_tensor3(dims, nnz, seed, |next, m| {
        let bits = usize::BITS - (dims[m] - 1).leading_zeros();
        loop {
            let mut x = 0usize;
            for bit in (0..bits).rev() {
                if unit_closed_open(next()) < ONE {
                    x |= 1 << bit;
                }
            }
            if x < dims[m] {
                return x as u32;
            }
        }
    })
}

/// The matrix as a runtime `Coo` (a row array expanded from `row_ptr`).
///
/// # Panics
/// If the arrays are not a valid CSR matrix.
pub fn csr_to_coo(m: &CsrArrays<u32>) -> Coo<f64, u32> {
    let mut rows = Vec::with_capacity(m.nnz());
    for (r, w) in m.row_ptr.windows(2).enumerate() {
        rows.extend(std::iter::repeat_n(r as u32, (w[1] - w[0]) as usize));
    }
    let nnz = u32::try_from(m.nnz()).expect("nnz fits u32");
    let levels = (
        CompressedNonUnique::from_raw(m.rows, vec![0, nnz], rows).expect("valid rows"),
        Singleton::from_raw(m.cols, m.col_idx.clone()).expect("valid columns"),
    );
    Coo::from_levels(&[m.rows, m.cols], levels, m.vals.clone()).expect("a valid COO matrix")
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
    fn poisson_3d_stencil() {
        let a = poisson_3d::<u32>(3);
        assert_eq!((a.rows, a.cols, a.nnz()), (27, 27, 7 * 27 - 6 * 9));
        // Corner (0, 0, 0): itself and three neighbours; the centre (1, 1, 1): all six.
        assert_eq!(&a.col_idx[..4], &[0, 1, 3, 9]);
        assert_eq!(&a.vals[..4], &[6.0, -1.0, -1.0, -1.0]);
        let centre = a.row_ptr[13] as usize..a.row_ptr[14] as usize;
        assert_eq!(&a.col_idx[centre], &[4, 10, 12, 13, 14, 16, 22]);
        // Symmetric (the transpose is itself).
        assert_eq!(a.transpose(), a);
        assert_eq!(poisson_3d::<u32>(1).col_idx, vec![0]);
    }

    #[test]
    fn shuffled_triplets_hold_the_same_entries() {
        let a = poisson_2d::<u32>(5);
        let (r, c, v) = shuffled_triplets(&a, 3);
        assert_eq!((r.len(), c.len(), v.len()), (a.nnz(), a.nnz(), a.nnz()));
        let mut sorted: Vec<(u32, u32, u64)> =
            (0..a.nnz()).map(|e| (r[e], c[e], v[e].to_bits())).collect();
        assert_ne!(r.windows(2).filter(|w| w[0] <= w[1]).count(), a.nnz() - 1);
        sorted.sort_unstable();
        let want = csr_to_coo(&a).entries();
        assert!(sorted
            .iter()
            .zip(&want)
            .all(|(s, (w, v))| (s.0 as usize, s.1 as usize, s.2) == (w[0], w[1], v.to_bits())));
        assert_eq!(shuffled_triplets(&a, 3), (r, c, v));
    }

    /// Sorted, distinct, in range, values in `(0, 1]`, and the same tensor as CSF and COO.
    fn assert_valid_tensor(t: &Coords3) {
        assert_eq!(t.coords.len(), t.vals.len());
        assert!(t.coords.windows(2).all(|w| w[0] < w[1]));
        assert!(t
            .coords
            .iter()
            .all(|c| (0..3).all(|m| (c[m] as usize) < t.dims[m])));
        assert!(t.vals.iter().all(|&v| v > 0.0 && v <= 1.0));
        let want: Vec<(Vec<usize>, f64)> = t
            .coords
            .iter()
            .zip(&t.vals)
            .map(|(c, &v)| (c.iter().map(|&x| x as usize).collect(), v))
            .collect();
        assert_eq!(t.to_csf3().entries(), want);
        assert_eq!(t.to_coo3().entries(), want);
    }

    #[test]
    fn uniform_tensor3_is_sorted_distinct_and_deterministic() {
        let t = uniform_tensor3([20, 30, 40], 3000, 1);
        assert_eq!((t.dims, t.nnz()), ([20, 30, 40], 3000));
        assert_valid_tensor(&t);
        assert_eq!(uniform_tensor3([20, 30, 40], 3000, 1), t);
        assert_ne!(uniform_tensor3([20, 30, 40], 3000, 2).coords, t.coords);
        // Every coordinate of a full tensor, and of an empty one.
        assert_eq!(uniform_tensor3([2, 3, 2], 12, 5).nnz(), 12);
        let empty = uniform_tensor3([2, 3, 2], 0, 5);
        assert_valid_tensor(&empty);
        assert_eq!(empty.to_csf3().levels().0.pos(), &[0, 0]);
    }

    #[test]
    fn power_law_tensor3_is_skewed_sorted_and_deterministic() {
        let t = power_law_tensor3([100, 200, 300], 5000, 7);
        assert_eq!(t.nnz(), 5000);
        assert_valid_tensor(&t);
        assert_eq!(power_law_tensor3([100, 200, 300], 5000, 7), t);
        // Coordinate 0 of mode 0 (all 7 bits 0: 0.76^7, about 15% of draws) is far above
        // the mean share (1%), and the top half of the mode is rare.
        let share = |pred: &dyn Fn(&[u32; 3]) -> bool| {
            t.coords.iter().filter(|c| pred(c)).count() as f64 / t.nnz() as f64
        };
        assert!(share(&|c| c[0] == 0) > 0.08, "{}", share(&|c| c[0] == 0));
        assert!(share(&|c| c[0] >= 64) < 0.3);
        assert!(share(&|c| c[2] == 0) > 0.03);
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
