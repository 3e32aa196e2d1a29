//! Matrix generators shared by the benchmarks.
//!
//! Generators return plain CSR arrays so that every contender (generated
//! kernels, hand-written loops, sprs, nalgebra-sparse) is built from exactly the
//! same data.

use sparse_runtime::Index;

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
