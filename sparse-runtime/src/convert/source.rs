//! The source side of a conversion: every format lists its stored components
//! by walking its own levels.

use super::Target;
use crate::io::Entries;
use crate::levels::{Levels, MAX_ORDER};
use crate::mode_order::ModeOrder;
use crate::{Bcsr, CooAos, Csb, Dia, Error, Index, Tensor, Value};

/// The most entries a batch of [`Source::for_each_batch`] holds: enough to amortize a
/// call, few enough for the batch's columns to stay in L1.
pub(crate) const BATCH: usize = 256;

/// The first `n` coordinates of each column.
#[inline]
fn column_slices(columns: &[[usize; BATCH]; MAX_ORDER], n: usize) -> [&[usize]; MAX_ORDER] {
    std::array::from_fn(|m| &columns[m][..n])
}

mod sealed {
    /// Only this crate's formats (and adapters over them) are sources: the
    /// assembly of a target relies on two passes over a source agreeing.
    pub trait Sealed {}
}

/// A format whose stored components a conversion can read: every tensor type
/// and struct format of this crate, and [`Permuted`] views of them.
///
/// Sealed. Its one method a user calls is [`Source::convert`] (and
/// [`Source::transpose`], [`Source::permuted`]).
pub trait Source<V: Value>: sealed::Sealed + Sized {
    /// The logical shape.
    fn shape(&self) -> &[usize];

    /// The fill value: the value of every component the source does not list (see
    /// [`Tensor::fill`]). A conversion gives its result this fill value. Zero for an
    /// [`Entries`] list.
    fn fill(&self) -> V {
        V::zero()
    }

    /// Every stored component once, as `(logical coordinate, value)` in the
    /// format's storage order (explicit zeros included).
    #[doc(hidden)]
    fn for_each_entry<F: FnMut(&[usize], V)>(&self, f: F);

    /// The components of [`Source::for_each_entry`], in the same order, in batches of at
    /// most [`BATCH`]: `f(columns, values)`, where `columns[m][e]` is the logical
    /// coordinate in mode `m` of the batch's entry `e`, and every column is as long as
    /// `values`. A source whose coordinates already sit in arrays hands them over a batch
    /// at a time, with no call per entry; the others collect theirs from
    /// [`Source::for_each_entry`].
    #[doc(hidden)]
    #[inline]
    fn for_each_batch<F: FnMut(&[&[usize]], &[V])>(&self, mut f: F) {
        let mut columns = [[0usize; BATCH]; MAX_ORDER];
        let mut values = [V::zero(); BATCH];
        let (mut n, mut order) = (0, 0);
        self.for_each_entry(|c, v| {
            if n == BATCH {
                f(&column_slices(&columns, n)[..order], &values);
                n = 0;
            }
            order = c.len();
            for (column, &x) in columns.iter_mut().zip(c) {
                column[n] = x;
            }
            values[n] = v;
            n += 1;
        });
        if n > 0 {
            f(&column_slices(&columns, n)[..order], &values[..n]);
        }
    }

    /// Whether each logical coordinate is listed at most once (true of every
    /// format; not of a list of coordinates to be summed).
    #[doc(hidden)]
    fn unique(&self) -> bool {
        true
    }

    /// At least as many as the components [`Source::for_each_entry`] lists
    /// (a tensor's value count: dense levels store padding), or `None` if
    /// unknown. An assembly chooses its strategy by it, nothing more.
    #[doc(hidden)]
    fn len_bound(&self) -> Option<usize> {
        None
    }

    /// The same components in another format, by one direct routine for this
    /// pair of formats (see the [module documentation](crate::convert)).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Coo::<f64>::from_entries(&[3, 3], [([2, 0], 1.0), ([0, 1], 2.0)])?;
    /// let b: Csc<f64> = a.convert()?;
    /// let c: Ell<f64> = b.convert()?;
    /// assert_eq!(c.entries(), a.entries());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    ///
    /// Errors: those of [`Target::from_source`] for `T`.
    fn convert<T: Target<V>>(&self) -> Result<T, Error> {
        T::from_source(self)
    }

    /// A view of this tensor with its modes permuted: mode `k` of the view is
    /// mode `modes[k]` of `self`, so `a.permuted(&[1, 0])` is the transpose.
    /// Nothing is copied; convert the view to store it.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csf3::<f64>::from_entries(&[2, 3, 4], [([1, 2, 3], 5.0)])?;
    /// let b: Csf3<f64> = a.permuted(&[2, 0, 1])?.convert()?;
    /// assert_eq!(b.shape(), &[4, 2, 3]);
    /// assert_eq!(b.entries(), vec![(vec![3, 1, 2], 5.0)]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    ///
    /// Errors: `modes` is not a permutation of `0..order` (`InvalidModeOrder`).
    fn permuted(&self, modes: &[usize]) -> Result<Permuted<'_, Self>, Error> {
        Permuted::new(self, modes)
    }

    /// The transpose of a matrix, stored as `T`: `t(i, j) = a(j, i)`. With
    /// `T` the same format as `a` this is a transposition by counting
    /// (`Csr` to `Csr`); `a.convert::<Csc<_>>()` keeps the matrix and changes
    /// its storage order instead.
    ///
    /// Errors: `a` is not a matrix (`OrderMismatch`), or those of
    /// [`Source::convert`].
    fn transpose<T: Target<V>>(&self) -> Result<T, Error> {
        if self.shape().len() != 2 {
            return Err(Error::OrderMismatch {
                expected: 2,
                found: self.shape().len(),
            });
        }
        let shape = [self.shape()[1], self.shape()[0]];
        T::from_source(&Transposed {
            source: self,
            shape,
        })
    }
}

impl<V, L, O> sealed::Sealed for Tensor<V, L, O> {}

impl<V: Value, L: Levels, O: ModeOrder> Source<V> for Tensor<V, L, O> {
    fn shape(&self) -> &[usize] {
        Tensor::shape(self)
    }

    fn fill(&self) -> V {
        Tensor::fill(self)
    }

    fn len_bound(&self) -> Option<usize> {
        Some(self.vals().len())
    }

    #[inline]
    fn for_each_entry<F: FnMut(&[usize], V)>(&self, mut f: F) {
        let vals = self.vals();
        let mut logical = [0usize; MAX_ORDER];
        self.levels().walk(|path, q| {
            for (k, &c) in path[..L::ORDER].iter().enumerate() {
                logical[O::mode(k)] = c;
            }
            f(&logical[..L::ORDER], vals[q]);
        });
    }
}

/// A struct format is a source through its view, whose last two modes are the
/// matrix's: the view's hidden modes (a diagonal's number, a block's row and
/// column) are dropped.
macro_rules! source_through_view {
    ($name:ident<$($param:tt),*> where $($bounds:tt)*) => {
        impl<$($bounds)*> sealed::Sealed for $name<$($param),*> {}

        impl<$($bounds)*> Source<V> for $name<$($param),*> {
            fn shape(&self) -> &[usize] {
                $name::shape(self)
            }

            fn fill(&self) -> V {
                $name::fill(self)
            }

            fn len_bound(&self) -> Option<usize> {
                self.view().len_bound()
            }

            #[inline]
            fn for_each_entry<F: FnMut(&[usize], V)>(&self, mut f: F) {
                self.view().for_each_entry(|c, v| f(&c[c.len() - 2..], v));
            }
        }
    };
}

source_through_view!(Dia<V> where V: Value);
source_through_view!(CooAos<V, I> where V: Value, I: Index);
source_through_view!(Csb<V, I> where V: Value, I: Index);

impl<V, const R: usize, const C: usize, I: Index> sealed::Sealed for Bcsr<V, R, C, I> {}

impl<V: Value, const R: usize, const C: usize, I: Index> Source<V> for Bcsr<V, R, C, I> {
    fn shape(&self) -> &[usize] {
        Bcsr::shape(self)
    }

    fn fill(&self) -> V {
        Bcsr::fill(self)
    }

    fn len_bound(&self) -> Option<usize> {
        self.view().len_bound()
    }

    #[inline]
    fn for_each_entry<F: FnMut(&[usize], V)>(&self, mut f: F) {
        self.view().for_each_entry(|c, v| f(&c[2..], v));
    }
}

/// A matrix source seen transposed ([`Source::transpose`]): the swap of its two coordinates
/// is a constant the conversion inlines, where [`Permuted`] reads its permutation.
struct Transposed<'a, S> {
    source: &'a S,
    shape: [usize; 2],
}

impl<S> sealed::Sealed for Transposed<'_, S> {}

impl<V: Value, S: Source<V>> Source<V> for Transposed<'_, S> {
    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn fill(&self) -> V {
        self.source.fill()
    }

    fn unique(&self) -> bool {
        self.source.unique()
    }

    fn len_bound(&self) -> Option<usize> {
        self.source.len_bound()
    }

    #[inline]
    fn for_each_entry<F: FnMut(&[usize], V)>(&self, mut f: F) {
        self.source.for_each_entry(|c, v| f(&[c[1], c[0]], v));
    }

    #[inline]
    fn for_each_batch<F: FnMut(&[&[usize]], &[V])>(&self, mut f: F) {
        self.source
            .for_each_batch(|c, values| f(&[c[1], c[0]], values));
    }
}

/// A source with its modes permuted ([`Source::permuted`]): mode `k` of the
/// view is mode `modes[k]` of the source.
#[derive(Debug)]
pub struct Permuted<'a, S> {
    source: &'a S,
    modes: Vec<usize>,
    shape: Vec<usize>,
}

impl<'a, S> Permuted<'a, S> {
    fn new<V: Value>(source: &'a S, modes: &[usize]) -> Result<Self, Error>
    where
        S: Source<V>,
    {
        let order = source.shape().len();
        let mut seen = vec![false; order];
        let permutation = modes.len() == order
            && modes
                .iter()
                .all(|&m| m < order && !std::mem::replace(&mut seen[m], true));
        if !permutation {
            return Err(Error::InvalidModeOrder {
                order,
                detail: format!("modes {modes:?} are not a permutation of 0..{order}"),
            });
        }
        let shape = modes.iter().map(|&m| source.shape()[m]).collect();
        Ok(Permuted {
            source,
            modes: modes.to_vec(),
            shape,
        })
    }
}

impl<S> sealed::Sealed for Permuted<'_, S> {}

impl<V: Value, S: Source<V>> Source<V> for Permuted<'_, S> {
    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn fill(&self) -> V {
        self.source.fill()
    }

    fn unique(&self) -> bool {
        self.source.unique()
    }

    fn len_bound(&self) -> Option<usize> {
        self.source.len_bound()
    }

    #[inline]
    fn for_each_entry<F: FnMut(&[usize], V)>(&self, mut f: F) {
        let order = self.modes.len();
        let mut out = [0usize; MAX_ORDER];
        self.source.for_each_entry(|c, v| {
            for (o, &m) in out[..order].iter_mut().zip(&self.modes) {
                *o = c[m];
            }
            f(&out[..order], v);
        });
    }

    #[inline]
    fn for_each_batch<F: FnMut(&[&[usize]], &[V])>(&self, mut f: F) {
        let order = self.modes.len();
        self.source.for_each_batch(|c, values| {
            let mut out: [&[usize]; MAX_ORDER] = [&[]; MAX_ORDER];
            for (o, &m) in out[..order].iter_mut().zip(&self.modes) {
                *o = c[m];
            }
            f(&out[..order], values);
        });
    }
}

/// A list of coordinates (what `from_entries` and the file readers build from): checked,
/// possibly repeated (repeats are summed, in list order).
impl<V> sealed::Sealed for Entries<V> {}

impl<V: Value> Source<V> for Entries<V> {
    fn shape(&self) -> &[usize] {
        Entries::shape(self)
    }

    fn unique(&self) -> bool {
        false
    }

    fn len_bound(&self) -> Option<usize> {
        Some(self.vals().len())
    }

    #[inline]
    fn for_each_entry<F: FnMut(&[usize], V)>(&self, mut f: F) {
        let order = self.order();
        if order == 0 {
            // No coordinates: one empty coordinate per value.
            self.vals().iter().for_each(|&v| f(&[], v));
            return;
        }
        for (c, &v) in self.coords().chunks_exact(order).zip(self.vals()) {
            f(c, v);
        }
    }

    /// The list's coordinates, entry by entry, dealt into one column per mode.
    #[inline]
    fn for_each_batch<F: FnMut(&[&[usize]], &[V])>(&self, mut f: F) {
        let order = self.order();
        let mut columns = [[0usize; BATCH]; MAX_ORDER];
        for (start, values) in (0..).step_by(BATCH).zip(self.vals().chunks(BATCH)) {
            if order > 0 {
                // `order` coordinates per value (kept so by `push`).
                let batch = &self.coords()[start * order..(start + values.len()) * order];
                for (e, c) in batch.chunks_exact(order).enumerate() {
                    for (column, &x) in columns.iter_mut().zip(c) {
                        column[e] = x;
                    }
                }
            }
            f(&column_slices(&columns, values.len())[..order], values);
        }
    }
}

/// Entries given as one array of coordinates per mode and one of values, entry `k` at
/// `(coords[0][k], coords[1][k], ..)` (the arrays of [`Tensor::from_coordinate_arrays`]):
/// checked once against the shape, then read in place, without a list of its own.
pub(crate) struct CoordinateArrays<'a, I, V> {
    shape: &'a [usize],
    coords: &'a [&'a [I]],
    vals: &'a [V],
}

impl<'a, I: Index, V: Value> CoordinateArrays<'a, I, V> {
    /// The arrays, if there is one per mode (at most [`MAX_ORDER`]), each as long as
    /// `vals`, and every coordinate is inside `shape`.
    pub(crate) fn new(
        shape: &'a [usize],
        coords: &'a [&'a [I]],
        vals: &'a [V],
    ) -> Result<Self, Error> {
        if coords.len() != shape.len() || shape.len() > MAX_ORDER {
            return Err(Error::OrderMismatch {
                expected: shape.len(),
                found: coords.len(),
            });
        }
        for mode in coords {
            if mode.len() != vals.len() {
                return Err(Error::LengthMismatch {
                    what: "a coordinate array",
                    expected: vals.len(),
                    found: mode.len(),
                });
            }
        }
        for (mode, &size) in coords.iter().zip(shape) {
            if let Some(k) = mode.iter().position(|c| c.to_usize() >= size) {
                let coordinate = coords.iter().map(|mode| mode[k].to_usize()).collect();
                return Err(Error::CoordinateOutOfBounds {
                    coordinate,
                    shape: shape.to_vec(),
                });
            }
        }
        Ok(CoordinateArrays {
            shape,
            coords,
            vals,
        })
    }
}

impl<I, V> sealed::Sealed for CoordinateArrays<'_, I, V> {}

impl<I: Index, V: Value> Source<V> for CoordinateArrays<'_, I, V> {
    fn shape(&self) -> &[usize] {
        self.shape
    }

    fn unique(&self) -> bool {
        false
    }

    fn len_bound(&self) -> Option<usize> {
        Some(self.vals.len())
    }

    #[inline]
    fn for_each_entry<F: FnMut(&[usize], V)>(&self, mut f: F) {
        let order = self.coords.len();
        let mut c = [0usize; MAX_ORDER];
        for (k, &v) in self.vals.iter().enumerate() {
            for (c, mode) in c[..order].iter_mut().zip(self.coords) {
                *c = mode[k].to_usize();
            }
            f(&c[..order], v);
        }
    }

    /// Each mode's array, a batch at a time, widened to `usize`.
    #[inline]
    fn for_each_batch<F: FnMut(&[&[usize]], &[V])>(&self, mut f: F) {
        let order = self.coords.len();
        let mut columns = [[0usize; BATCH]; MAX_ORDER];
        for (start, values) in (0..).step_by(BATCH).zip(self.vals.chunks(BATCH)) {
            for (column, mode) in columns.iter_mut().zip(self.coords) {
                // Every array is as long as `vals` (checked by `new`).
                let mode = &mode[start..start + values.len()];
                for (x, c) in column.iter_mut().zip(mode) {
                    *x = c.to_usize();
                }
            }
            f(&column_slices(&columns, values.len())[..order], values);
        }
    }
}

/// A source seen through a coordinate remapping (Chou et al. 2020, section
/// 4): each logical coordinate `c` is listed as `map(c)`, a coordinate of
/// `shape`, which has `N` modes. A struct format declares its remapping this
/// way and assembles the view it stores from it.
///
/// The arity is a constant so that `map` writes a fixed-size array the
/// conversion keeps in registers, as [`Transposed`] does, rather than a slice
/// of a runtime length that each entry's copy checks.
pub(crate) struct Remapped<'a, S, F, const N: usize> {
    source: &'a S,
    /// `N` sizes.
    shape: Vec<usize>,
    map: F,
}

/// The remappings declared so far (`Bcsr`, `Csb`) are of four modes; a
/// remapping of another arity adds its `impl` of [`Remapped::new`].
impl<'a, S, F: Fn(&[usize], &mut [usize; 4])> Remapped<'a, S, F, 4> {
    /// `map(c, out)` writes the remapped coordinate of `c` into `out`, one
    /// component per mode of `shape` (four), each below its size.
    pub(crate) fn new(source: &'a S, shape: Vec<usize>, map: F) -> Self {
        debug_assert_eq!(shape.len(), 4, "a remapping of four modes");
        Remapped { source, shape, map }
    }
}

impl<S, F, const N: usize> sealed::Sealed for Remapped<'_, S, F, N> {}

impl<V: Value, S: Source<V>, F: Fn(&[usize], &mut [usize; N]), const N: usize> Source<V>
    for Remapped<'_, S, F, N>
{
    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn fill(&self) -> V {
        self.source.fill()
    }

    fn unique(&self) -> bool {
        self.source.unique()
    }

    fn len_bound(&self) -> Option<usize> {
        self.source.len_bound()
    }

    #[inline]
    fn for_each_entry<G: FnMut(&[usize], V)>(&self, mut f: G) {
        let mut out = [0usize; N];
        self.source.for_each_entry(|c, v| {
            (self.map)(c, &mut out);
            f(&out, v);
        });
    }
}

/// A source listing the entries of another with fill value `fill` instead of its own: how
/// [`Tensor::retain`] rebuilds a tensor of the same fill value from an [`Entries`] list.
pub(crate) struct WithFill<'a, S, V> {
    pub(crate) source: &'a S,
    pub(crate) fill: V,
}

impl<S, V> sealed::Sealed for WithFill<'_, S, V> {}

impl<V: Value, S: Source<V>> Source<V> for WithFill<'_, S, V> {
    fn shape(&self) -> &[usize] {
        self.source.shape()
    }

    fn fill(&self) -> V {
        self.fill
    }

    fn unique(&self) -> bool {
        self.source.unique()
    }

    fn len_bound(&self) -> Option<usize> {
        self.source.len_bound()
    }

    #[inline]
    fn for_each_entry<F: FnMut(&[usize], V)>(&self, f: F) {
        self.source.for_each_entry(f);
    }
}
