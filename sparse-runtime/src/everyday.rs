//! Everyday operations on any tensor built from its entry iterator: keeping some entries
//! ([`Tensor::retain`], [`Tensor::pruned`]), comparing values rather than storage
//! ([`Tensor::same_values`]), printing ([`std::fmt::Display`]), and borrowing a CSR row or
//! CSC column ([`Tensor::fiber`]).

use crate::convert::Target;
use crate::io::Entries;
use crate::levels::Levels;
use crate::mode_order::ModeOrder;
use crate::{Error, Tensor, Value};

impl<V: Value, L: Levels, O: ModeOrder> Tensor<V, L, O> {
    /// The same tensor storing only the entries for which `keep(coordinate, value)` holds,
    /// in a new structure of the same format (a dense format stores every component
    /// anyway: what is not kept becomes zero).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 4.0), ([1, 0], -1.0), ([1, 1], 2.0)])?;
    /// let lower = a.retain(|c, _| c[0] > c[1])?;
    /// assert_eq!(lower.entries(), vec![(vec![1, 0], -1.0)]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    ///
    /// Errors: none for a tensor built by this crate (the entries come from a valid
    /// tensor of the same shape); an allocation failure is `NotRepresentable`.
    pub fn retain(&self, mut keep: impl FnMut(&[usize], V) -> bool) -> Result<Self, Error> {
        let mut kept = Entries::with_capacity(self.shape(), self.vals().len());
        for (c, v) in self.iter() {
            if keep(&c, v) {
                kept.push_unchecked(&c, v);
            }
        }
        Self::from_source(&kept)
    }

    /// The same tensor without its explicit zeros (stored entries equal to zero).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 0.0), ([1, 0], 3.0)])?;
    /// assert_eq!(a.nnz(), 2);
    /// let b = a.pruned()?;
    /// assert_eq!(b.nnz(), 1);
    /// assert!(a.same_values(&b) && a != b); // equal values, different storage
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn pruned(&self) -> Result<Self, Error> {
        self.retain(|_, v| v != V::zero())
    }

    /// Whether `self` and `other` have the same shape and every component the same value,
    /// a component not stored counting as zero.
    ///
    /// `==` ([`PartialEq`]) compares storage instead: the same shape, levels and stored
    /// values, so a matrix with an explicit zero differs from the same matrix without it
    /// (see [`Tensor::pruned`]). Under both, `NaN` differs from everything.
    pub fn same_values(&self, other: &Self) -> bool {
        self.shape() == other.shape() && nonzeros(self) == nonzeros(other)
    }
}

/// The entries of `t` that are not zero, sorted by coordinate.
fn nonzeros<V: Value, L: Levels, O: ModeOrder>(t: &Tensor<V, L, O>) -> Vec<(crate::Coord, V)> {
    let mut out: Vec<_> = t.iter().filter(|&(_, v)| v != V::zero()).collect();
    out.sort_by_key(|e| e.0);
    out
}

/// The most entries [`Display`](std::fmt::Display) prints before eliding the rest.
const SHOWN: usize = 20;

/// The shape and the stored entries, sorted by coordinate, one per line, at most 20 (the
/// rest counted): `tensor of shape 2 x 3, 2 stored entries` then `  (0, 2): 1.5`.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let a = Csr::<f64>::from_entries(&[2, 3], [([1, 0], -2.0), ([0, 2], 1.5)])?;
/// assert_eq!(
///     a.to_string(),
///     "tensor of shape 2 x 3, 2 stored entries\n  (0, 2): 1.5\n  (1, 0): -2.0\n"
/// );
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
impl<V: Value, L: Levels, O: ModeOrder> std::fmt::Display for Tensor<V, L, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shape: Vec<String> = self.shape().iter().map(|n| n.to_string()).collect();
        let mut entries: Vec<_> = self.iter().collect();
        entries.sort_by_key(|e| e.0);
        let plural = if entries.len() == 1 {
            "entry"
        } else {
            "entries"
        };
        writeln!(
            f,
            "tensor of shape {}, {} stored {plural}",
            shape.join(" x "),
            entries.len()
        )?;
        for (c, v) in entries.iter().take(SHOWN) {
            let c: Vec<String> = c.iter().map(|k| k.to_string()).collect();
            writeln!(f, "  ({}): {v:?}", c.join(", "))?;
        }
        if entries.len() > SHOWN {
            writeln!(f, "  ... and {} more", entries.len() - SHOWN)?;
        }
        Ok(())
    }
}

impl<V: Value, I: crate::Index, P: crate::level::Markers, O: ModeOrder>
    Tensor<V, (crate::Dense, crate::Compressed<I, P>), O>
{
    /// The stored entries of outer slice `k` (row `k` of a `Csr`, column `k` of a `Csc`):
    /// their inner coordinates and values, borrowed, in storage order (sorted unless the
    /// level is `Unordered`); `None` if `k` is outside the outer dimension.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 4], [([1, 3], 2.0), ([1, 0], 1.0)])?;
    /// assert_eq!(a.fiber(1), Some((&[0u32, 3][..], &[1.0, 2.0][..])));
    /// assert_eq!(a.fiber(0), Some((&[][..], &[][..])));
    /// assert_eq!(a.fiber(2), None);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn fiber(&self, k: usize) -> Option<(&[I], &[V])> {
        let inner = &self.levels().1;
        let (begin, end) = (inner.pos().get(k)?, inner.pos().get(k + 1)?);
        let range = begin.to_usize()..end.to_usize();
        Some((inner.crd().get(range.clone())?, self.vals().get(range)?))
    }
}

impl<V: Value, I: crate::Index> crate::Csr<V, I> {
    /// Row `i`: its column indices and values, borrowed, sorted by column; `None` if `i`
    /// is not a row. See [`Tensor::fiber`].
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 5.0), ([0, 1], 4.0)])?;
    /// let (cols, vals) = a.row(0).unwrap();
    /// let dot: f64 = cols.iter().zip(vals).map(|(&j, v)| v * [1.0, 2.0, 3.0][j as usize]).sum();
    /// assert_eq!(dot, 23.0);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn row(&self, i: usize) -> Option<(&[I], &[V])> {
        self.fiber(i)
    }
}

impl<V: Value, I: crate::Index> crate::Csc<V, I> {
    /// Column `j`: its row indices and values, borrowed, sorted by row; `None` if `j` is not
    /// a column. See [`Tensor::fiber`].
    pub fn col(&self, j: usize) -> Option<(&[I], &[V])> {
        self.fiber(j)
    }
}
