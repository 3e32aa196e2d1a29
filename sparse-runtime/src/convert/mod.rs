//! Format conversion (Chou et al. 2020): one direct routine per pair of
//! formats, composed at build time from what each format declares.
//!
//! A conversion reads its *source* with the levels' own iteration functions
//! (one loop per level, as a kernel would: [`Source`]) and assembles its
//! *target* from what the target's levels declare ([`Target`]):
//!
//! - **Coordinate remapping.** A format held in a struct around a view of more
//!   modes declares how a logical coordinate maps into the view, in the
//!   paper's notation: `(i, j) -> (j - i, i, j)` for [`Dia`](crate::Dia),
//!   `(i, j) -> (i / R, j / C, i, j)` for [`Bcsr`](crate::Bcsr) and
//!   [`Csb`](crate::Csb). As a source, its hidden modes are dropped.
//! - **Attribute queries.** What a level's assembly must know before it
//!   allocates: `select [i] -> count(j)` for a compressed level below dense
//!   ones (the number of entries of each segment), `select [i] -> max(count(j))`
//!   for ELL's slots, `select [] -> id(j - i)` (which diagonals are non-empty)
//!   for DIA. They are computed by one pass over the source before anything
//!   is allocated. (The paper's further optimization, answering a count from
//!   the source's `pos` array without reading coordinates, is not done yet.)
//! - **Assembly level functions.** Unsequenced edge insertion: a compressed
//!   level's `pos` is the prefix sum of its counts, and each entry is then
//!   inserted at its segment's next position (the paper's `yield_pos`) in
//!   whatever order the source visits it; no sort where counts suffice. A
//!   segment that the source's order left unsorted (or with duplicates, from
//!   unsorted coordinates) is sorted and summed on its own afterwards. A level
//!   too large for the cache is inserted through partitions of consecutive
//!   segments that fit in it, each sorted while it is there.
//!
//! Targets whose levels have no counted assembly (a compressed level below
//! another sparse level, hash tables, COO's coordinate tuples) are built
//! level by level from entries brought into storage order by a counting sort
//! per level (a radix sort), skipped when the source already visits them in
//! that order.
//!
//! **Fill values.** The target has the source's fill value ([`Source::fill`],
//! [`Tensor::fill`](crate::Tensor::fill)): a component the source does not store keeps
//! its value. A component the target stores but the source does not (every component of
//! a dense format, the rest of a dense block or of a stored diagonal) holds the source's
//! fill value; padding that stores no component (ELL's empty slots, empty hash buckets,
//! the parts of edge blocks and diagonals outside the matrix) stays zero.
//!
//! rustc composes the routine: [`Source`] and [`Target`] are implemented once
//! per level kind and per struct format, and each `(source, target)` pair is
//! monomorphized into straight loops over both formats' arrays, so a
//! conversion costs what a hand-written one does. Any composition of levels
//! (`Tensor<V, (Compressed, Dense), Modes<1, 0>>`) converts to and from every
//! other.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 1.0), ([1, 0], 2.0), ([1, 2], 3.0)])?;
//! let b: Csc<f64> = a.convert()?;
//! assert_eq!(b.entries(), a.entries());
//! let t: Csr<f64> = a.transpose()?;
//! assert_eq!(t.shape(), &[3, 2]);
//! assert_eq!(t.entries()[0], (vec![0, 1], 2.0));
//! let d: Dia<f64> = a.convert()?;
//! assert_eq!(d.offsets(), &[-1, 1, 2]);
//!
//! // A distance matrix: what it does not store is infinitely far.
//! let dist = a.with_fill(f64::INFINITY);
//! let dense: Dense2<f64> = dist.convert()?;
//! assert_eq!(dense.as_slice(), &[f64::INFINITY, f64::INFINITY, 1.0, 2.0, f64::INFINITY, 3.0]);
//! let coo: Coo<f64> = dist.convert()?;
//! assert_eq!((coo.nnz(), coo.fill()), (3, f64::INFINITY));
//! # Ok::<(), sparse_runtime::Error>(())
//! ```

mod assemble;
mod partition;
mod radix;
mod segment_sort;
mod source;

pub(crate) use assemble::insert_segments;
#[doc(hidden)]
pub use assemble::{BelowDense, InStorageOrder};
pub(crate) use source::BATCH;
pub(crate) use source::{CoordinateArrays, Remapped, WithFill};
pub use source::{Permuted, Source};

use crate::Error;
use crate::Value;

/// A format a conversion can build from any [`Source`]: every tensor type
/// and struct format of this crate.
///
/// Use it through [`Source::convert`]: `let b: Csc<f64> = a.convert()?;`.
pub trait Target<V: Value>: Sized {
    /// Builds `Self` holding the components `source` stores (explicit zeros
    /// included; duplicates summed), validated like every constructor, with the
    /// source's fill value ([`Source::fill`]). A component the target stores but the
    /// source does not (every component of a dense format, the rest of a stored block
    /// or diagonal) holds the source's fill value.
    ///
    /// Errors: the source's shape does not fit the format (`OrderMismatch`,
    /// `IndexOverflow`), the format cannot hold the entries
    /// (`NotRepresentable`), or the storage cannot be allocated.
    ///
    /// ```
    /// use sparse_runtime::io::Entries;
    /// use sparse_runtime::prelude::*;
    ///
    /// let mut list = Entries::new(&[2, 2]);
    /// list.push(&[1, 0], 1.0)?;
    /// list.push(&[1, 0], 2.0)?; // repeats are summed
    /// let a = Csr::<f64>::from_source(&list)?;
    /// let b = Dia::<f64>::from_source(&a)?; // what `a.convert::<Dia<f64>>()` calls
    /// assert_eq!(b.entries(), vec![(vec![1, 0], 3.0)]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    fn from_source<S: Source<V>>(source: &S) -> Result<Self, Error>;
}

/// The sink of unsequenced insertion: the entries of a source as the level
/// being assembled sees them, `(parent position, coordinate, value)`, each
/// pass over them visiting the same entries in the same order.
///
/// Implemented only inside this crate; levels trust that two passes agree
/// only as far as memory safety does not depend on it (they check).
#[doc(hidden)]
pub trait Scatter<V> {
    /// Whether each `(parent, coordinate)` occurs at most once.
    fn unique(&self) -> bool;

    /// Calls `f(parents, coordinates, values)` for consecutive batches of at most
    /// [`BATCH`] entries, the three slices of the batch's length, in the order of the
    /// source's entries.
    fn batches<F: FnMut(&[usize], &[usize], &[V])>(&self, f: F);

    /// Calls `f(parent, coordinate, value)` for every entry.
    #[inline]
    fn each<F: FnMut(usize, usize, V)>(&self, mut f: F)
    where
        V: Copy,
    {
        self.batches(|parents, coords, values| {
            for ((&p, &c), &v) in parents.iter().zip(coords).zip(values) {
                f(p, c, v);
            }
        });
    }
}
