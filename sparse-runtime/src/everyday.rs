//! Everyday operations on any tensor built from its entry iterator: keeping some entries
//! ([`Tensor::retain`], [`Tensor::pruned`]), comparing values rather than storage
//! ([`Tensor::same_values`], a component not stored counting as the fill value), printing ([`std::fmt::Display`]), and borrowing a CSR row or
//! CSC column ([`Tensor::fiber`]).

use crate::convert::{Target, WithFill};
use crate::io::Entries;
use crate::levels::Levels;
use crate::mode_order::ModeOrder;
use crate::{Error, Tensor, Value};

impl<V: Value, L: Levels, O: ModeOrder> Tensor<V, L, O> {
    /// The same tensor storing only the entries for which `keep(coordinate, value)` holds,
    /// in a new structure of the same format and with the same fill value (a dense format
    /// stores every component anyway: what is not kept becomes the fill value).
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
        Self::from_source(&WithFill {
            source: &kept,
            fill: self.fill(),
        })
    }

    /// The same tensor without its explicit fill values: the stored entries equal to its
    /// fill value ([`Tensor::fill`]), such as explicit zeros when the fill value is zero.
    /// The fill value is kept, so the result has the same values ([`Tensor::same_values`]).
    /// Under `==`, `NaN` equals nothing: no entry is dropped for a fill value `NaN`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 0.0), ([1, 0], 3.0)])?;
    /// assert_eq!(a.nnz(), 2);
    /// let b = a.pruned()?;
    /// assert_eq!(b.nnz(), 1);
    /// assert!(a.same_values(&b) && a != b); // equal values, different storage
    ///
    /// // Filled with infinity, an entry of value infinity is an explicit fill value.
    /// let d = a.with_fill(f64::INFINITY);
    /// let e = Csr::<f64>::from_entries(&[2, 2], [([0, 0], f64::INFINITY), ([1, 1], 1.0)])?
    ///     .with_fill(f64::INFINITY)
    ///     .pruned()?;
    /// assert_eq!((e.entries(), e.fill()), (vec![(vec![1, 1], 1.0)], f64::INFINITY));
    /// assert_eq!(d.pruned()?.nnz(), 2); // nothing equals infinity here: both kept
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn pruned(&self) -> Result<Self, Error> {
        let fill = self.fill();
        self.retain(|_, v| v != fill)
    }

    /// Whether `self` and `other` have the same shape and every component the same value
    /// (compared by `==`), a component a tensor does not store counting as its fill value
    /// ([`Tensor::fill`]). So two tensors of different fill values have the same values
    /// only if each stores every component where the other's fill value would show.
    ///
    /// `==` ([`PartialEq`]) compares storage instead: the same shape, levels, stored
    /// values and fill value, so a matrix with an explicit zero differs from the same
    /// matrix without it (see [`Tensor::pruned`]). Under both, `NaN` differs from
    /// everything.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[1, 2], [([0, 0], 1.0)])?.with_fill(5.0);
    /// let b = Csr::<f64>::from_entries(&[1, 2], [([0, 0], 1.0), ([0, 1], 5.0)])?;
    /// assert!(a.same_values(&b)); // (0, 1) is a's fill value 5 and b's stored 5
    /// let c = Csr::<f64>::from_entries(&[1, 2], [([0, 0], 1.0)])?;
    /// assert!(!a.same_values(&c)); // (0, 1) is 5 against c's fill value 0
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn same_values(&self, other: &Self) -> bool {
        if self.shape() != other.shape() {
            return false;
        }
        let (a, b) = (stored(self), stored(other));
        let (fa, fb) = (self.fill(), other.fill());
        let (mut i, mut j) = (0, 0);
        // The coordinates either stores, each once.
        let mut union = 0usize;
        while i < a.len() || j < b.len() {
            let (va, vb) = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    i += 1;
                    j += 1;
                    (x.1, y.1)
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    i += 1;
                    (x.1, fb)
                }
                (Some(x), None) => {
                    i += 1;
                    (x.1, fb)
                }
                (_, Some(y)) => {
                    j += 1;
                    (fa, y.1)
                }
                (None, None) => break,
            };
            if va != vb {
                return false;
            }
            union += 1;
        }
        // Components neither stores are the fill values (none if both store everything).
        let components = self
            .shape()
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d));
        components == Some(union) || fa == fb
    }
}

/// The entries `t` stores, sorted by coordinate, a coordinate stored twice (possible only
/// below a non-unique level) once with the sum of its values.
fn stored<V: Value, L: Levels, O: ModeOrder>(t: &Tensor<V, L, O>) -> Vec<(crate::Coord, V)> {
    let mut out: Vec<(crate::Coord, V)> = t.iter().collect();
    out.sort_by_key(|e| e.0);
    out.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 = kept.1 + later.1;
        }
        same
    });
    out
}

/// The most entries [`Display`](std::fmt::Display) prints before eliding the rest.
const SHOWN: usize = 20;

/// The shape, the fill value unless it is zero, and the stored entries, sorted by
/// coordinate, one per line, at most 20 (the rest counted): `tensor of shape 2 x 3, 2
/// stored entries` then `  (0, 2): 1.5`.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let a = Csr::<f64>::from_entries(&[2, 3], [([1, 0], -2.0), ([0, 2], 1.5)])?;
/// assert_eq!(
///     a.to_string(),
///     "tensor of shape 2 x 3, 2 stored entries\n  (0, 2): 1.5\n  (1, 0): -2.0\n"
/// );
/// let d = a.retain(|c, _| c[0] == 0)?.with_fill(f64::INFINITY);
/// assert_eq!(
///     d.to_string(),
///     "tensor of shape 2 x 3, fill value inf, 1 stored entry\n  (0, 2): 1.5\n"
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
        write!(f, "tensor of shape {}", shape.join(" x "))?;
        if self.fill() != V::zero() {
            write!(f, ", fill value {:?}", self.fill())?;
        }
        writeln!(f, ", {} stored {plural}", entries.len())?;
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
