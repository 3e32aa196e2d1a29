//! Matrix generators shared by the benchmarks.
//!
//! Generators return plain CSR arrays so that every contender (generated
//! kernels, hand-written loops, sprs, nalgebra-sparse) is built from exactly the
//! same data.

use sparse_runtime::{Csr, Index};

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
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
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
