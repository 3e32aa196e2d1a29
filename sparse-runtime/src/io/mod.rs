//! Reading and writing tensors as files: [Matrix Market] (`.mtx`) and [FROSTT] `.tns`.
//!
//! A reader parses the whole file into [`Entries`] (the shape, one flat array of
//! coordinates and the values), then builds the tensor you ask for from them through
//! [`FromEntries`], which every format implements: any [`Tensor<V, L, O>`](Tensor)
//! (`Csr`, `Csc`, `Coo`, `Dcsr`, `Csf3`, `Dense2`, `HashMat`, `Ell`, ...) and the struct
//! formats [`Dia`], [`Bcsr`], [`Csb`] and [`CooAos`]. Duplicate entries are summed, as by
//! `from_entries`. A writer takes anything that lists its entries ([`ToEntries`]).
//!
//! ```
//! use sparse_runtime::prelude::*;
//! use sparse_runtime::io;
//!
//! let text = "%%MatrixMarket matrix coordinate real symmetric\n\
//!             % the lower triangle of a 3 x 3 matrix\n\
//!             3 3 3\n\
//!             1 1 2.0\n\
//!             2 1 -1.0\n\
//!             3 3 4.5\n";
//! let a: Csr<f64> = io::read_matrix_market_from(text.as_bytes(), "a.mtx")?;
//! assert_eq!(
//!     a.entries(),
//!     vec![(vec![0, 0], 2.0), (vec![0, 1], -1.0), (vec![1, 0], -1.0), (vec![2, 2], 4.5)]
//! );
//!
//! let mut file = Vec::new();
//! io::write_matrix_market_to(&mut file, &a)?;
//! let back: Coo<f64> = io::read_matrix_market_from(&file[..], "written")?;
//! assert_eq!(back.entries(), a.entries());
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! **Fill values**: both formats list the components that are not zero, every other
//! component being zero, so a tensor read from a file has fill value zero
//! ([`Tensor::fill`]), and writing a tensor whose fill value is not zero is refused
//! (`NotRepresentable`) rather than written as a different tensor.
//!
//! Every malformed input is an [`Error::Parse`] naming the file, the line and what was
//! expected (`a.mtx:12: expected 3 fields (row, column, value), found 2`), and nothing
//! is built; a failure of the operating system is an [`Error::Io`]. Reading never
//! panics on any input.
//!
//! **Values** are parsed by the value type itself (`V::from_str_radix(text, 10)`, which
//! for `f32`/`f64` is Rust's correctly rounded `str::parse` and for integers an exact
//! parse): a value the type cannot hold (`1.5` or `3.0` into `i32`, `-1` into `u32`,
//! `300` into `u8`) is an error naming its line. Values are written with `{:?}`, Rust's
//! shortest representation that reads back to the same bits, so a written file reads
//! back bit-identical. Matrix Market `complex` files are read into and written from
//! tensors of [`Complex<f64>`](crate::num_complex::Complex) or `Complex<f32>` values (two
//! fields per value, each part parsed and written as its float type's); in a `.tns` file
//! such a value is one field `re+imi` (`1.5+-2.0i`), the form `Complex` itself parses.
//!
//! **Performance**: a large file (8 MiB or more) of entries (a `coordinate` Matrix Market
//! file, a `.tns` file) is parsed on every core: its body is split into line-aligned
//! chunks of about 2 MiB, each thread reads one chunk at a time into a buffer it reuses
//! and parses it straight into the chunk's place in the entry list, so the file is
//! never held in memory whole and the entries come out in file order. A file with a
//! defect is then read again in order, so that its error is the same as for a small
//! file. Each line is scanned once: indices are accumulated digit by digit as they are
//! scanned, values parsed from borrowed `&str` slices; nothing is allocated per line.
//!
//! [Matrix Market]: https://math.nist.gov/MatrixMarket/formats.html
//! [FROSTT]: http://frostt.io/tensors/file-formats.html

mod chunks;
mod matrix_market;
mod parse;
mod tns;

pub use matrix_market::{
    read_matrix_market, read_matrix_market_from, write_matrix_market, write_matrix_market_to,
    write_matrix_market_with, Layout,
};
pub use tns::{
    read_tns, read_tns_from, read_tns_with_shape, read_tns_with_shape_from, write_tns, write_tns_to,
};

use crate::convert::{Source, Target};
use crate::levels::Levels;
use crate::mode_order::ModeOrder;
use crate::{Bcsr, CooAos, Csb, Dia, Error, Index, Tensor, Value};
use std::io::Read;
use std::path::Path;

/// A list of entries of a tensor of known shape, in a neutral form: what the readers
/// produce and the writers consume.
///
/// Coordinates are 0-based and logical, stored in one flat array (`order` of them per
/// entry), so a list of millions of entries is three allocations. Entries may be in any
/// order and may repeat (building a tensor sums repeats).
///
/// ```
/// use sparse_runtime::prelude::*;
/// use sparse_runtime::io::Entries;
///
/// let mut e = Entries::new(&[2, 3]);
/// e.push(&[1, 2], 5.0)?;
/// e.push(&[0, 0], 1.0)?;
/// assert!(e.push(&[2, 0], 1.0).is_err()); // outside the shape
/// assert_eq!(e.len(), 2);
/// assert_eq!(e.coord(0), &[1, 2]);
/// let a: Csc<f64> = e.into_tensor()?;
/// assert_eq!(a.entries(), vec![(vec![0, 0], 1.0), (vec![1, 2], 5.0)]);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Entries<V> {
    shape: Vec<usize>,
    coords: Vec<usize>,
    vals: Vec<V>,
}

impl<V: Value> Entries<V> {
    /// No entries, for a tensor of shape `shape`.
    ///
    /// ```
    /// use sparse_runtime::io::Entries;
    ///
    /// let e = Entries::<i32>::new(&[4]);
    /// assert!(e.is_empty() && e.order() == 1);
    /// ```
    pub fn new(shape: &[usize]) -> Self {
        Entries {
            shape: shape.to_vec(),
            coords: Vec::new(),
            vals: Vec::new(),
        }
    }

    /// No entries, with room reserved for up to `capacity` of them (fewer if that much
    /// memory cannot be reserved: the lists then grow as entries are pushed).
    ///
    /// ```
    /// use sparse_runtime::io::Entries;
    ///
    /// let mut e = Entries::<f64>::with_capacity(&[3, 3], 2);
    /// e.push(&[0, 0], 1.0)?;
    /// assert_eq!((e.len(), e.shape()), (1, &[3, 3][..]));
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn with_capacity(shape: &[usize], capacity: usize) -> Self {
        let mut e = Self::new(shape);
        e.reserve(capacity);
        e
    }

    /// Reserves room for `additional` more entries if the memory can be had; never
    /// fails (pushing grows the lists anyway).
    fn reserve(&mut self, additional: usize) {
        let coords = additional.saturating_mul(self.shape.len());
        let what = "an entry list";
        if crate::alloc::reserve(&mut self.coords, coords, what).is_ok()
            && crate::alloc::reserve(&mut self.vals, additional, what).is_err()
        {
            self.coords.shrink_to_fit();
        }
    }

    /// Appends an entry (0-based logical coordinate).
    ///
    /// Errors: `coord` has not one component per mode (`OrderMismatch`) or lies outside
    /// the shape (`CoordinateOutOfBounds`).
    pub fn push(&mut self, coord: &[usize], value: V) -> Result<(), Error> {
        if coord.len() != self.shape.len() {
            return Err(Error::OrderMismatch {
                expected: self.shape.len(),
                found: coord.len(),
            });
        }
        if coord.iter().zip(&self.shape).any(|(&c, &n)| c >= n) {
            return Err(Error::CoordinateOutOfBounds {
                coordinate: coord.to_vec(),
                shape: self.shape.clone(),
            });
        }
        self.push_unchecked(coord, value);
        Ok(())
    }

    /// Appends an entry the caller has checked.
    #[inline]
    pub(crate) fn push_unchecked(&mut self, coord: &[usize], value: V) {
        debug_assert!(coord.len() == self.shape.len());
        self.coords.extend_from_slice(coord);
        self.vals.push(value);
    }

    /// The tensor's logical shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of modes.
    pub fn order(&self) -> usize {
        self.shape.len()
    }

    /// The number of entries (repeats counted).
    pub fn len(&self) -> usize {
        self.vals.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }

    /// The coordinate of entry `e`.
    ///
    /// # Panics
    /// If `e >= self.len()`.
    pub fn coord(&self, e: usize) -> &[usize] {
        let order = self.order();
        &self.coords[e * order..(e + 1) * order]
    }

    /// Every coordinate, `order` components per entry, entry after entry.
    pub fn coords(&self) -> &[usize] {
        &self.coords
    }

    /// The values, one per entry.
    pub fn vals(&self) -> &[V] {
        &self.vals
    }

    /// The entries as `(coordinate, value)`, in list order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&[usize], V)> + '_ {
        (0..self.len()).map(move |e| (self.coord(e), self.vals[e]))
    }

    /// Sorts the entries by coordinate, lexicographically (stable: repeats keep their
    /// order).
    pub fn sort(&mut self) {
        let order = self.order();
        let sorted = (1..self.len()).all(|e| self.coord(e - 1) <= self.coord(e));
        if sorted || order == 0 {
            return;
        }
        let mut perm: Vec<usize> = (0..self.len()).collect();
        perm.sort_by(|&a, &b| self.coord(a).cmp(self.coord(b)));
        let coords = perm
            .iter()
            .flat_map(|&e| self.coord(e).iter().copied())
            .collect();
        let vals = perm.iter().map(|&e| self.vals[e]).collect();
        self.coords = coords;
        self.vals = vals;
    }

    /// Builds a tensor of any format from the entries (repeats summed): the one place
    /// where the readers construct their result.
    ///
    /// Errors: those of the format's `from_entries` (a shape or coordinate count the
    /// format cannot hold, `IndexOverflow`, `OrderMismatch`, `NotRepresentable`).
    pub fn into_tensor<T: FromEntries<Value = V>>(self) -> Result<T, Error> {
        T::from_entry_list(self)
    }
}

/// A format that can be built from an [`Entries`] list: every [`Tensor`] and the struct
/// formats [`Dia`], [`Bcsr`], [`Csb`] (with its default block size) and [`CooAos`].
///
/// The readers build their result through it ([`Entries::into_tensor`]); implement it
/// to read files into a type of your own.
pub trait FromEntries: Sized {
    /// The value type.
    type Value: Value;

    /// The number of modes every tensor of this type has, if fixed (a reader uses it
    /// when the file does not say, as for an empty `.tns` file).
    const ORDER: Option<usize>;

    /// Builds the tensor from `entries` (coordinates in any order, repeats summed).
    fn from_entry_list(entries: Entries<Self::Value>) -> Result<Self, Error>;
}

/// A tensor (or list) that can list its entries, for the writers: every [`Tensor`], the
/// struct formats [`Dia`], [`Bcsr`], [`Csb`], [`CooAos`], and [`Entries`] itself.
pub trait ToEntries {
    /// The value type.
    type Value: Value;

    /// Every stored entry (explicit zeros included), sorted by coordinate.
    fn to_entry_list(&self) -> Entries<Self::Value>;

    /// Whether every component is stored (a dense format), which the Matrix Market
    /// writer then writes in the `array` layout. `false` unless overridden.
    fn is_dense(&self) -> bool {
        false
    }

    /// The value of every component not listed (see [`Tensor::fill`]). The writers refuse
    /// a fill value other than zero, which the files cannot say. Zero unless overridden.
    fn fill(&self) -> Self::Value {
        num_traits::Zero::zero()
    }
}

/// `Ok` if a tensor of fill value `fill` can be written as a `format` file (which says
/// that every component it does not list is zero), else `NotRepresentable`.
pub(crate) fn check_zero_fill<V: Value>(fill: V, format: &str) -> Result<(), Error> {
    if fill == V::zero() {
        return Ok(());
    }
    Err(Error::NotRepresentable {
        detail: format!(
            "the tensor's fill value is {fill:?}, but a {format} file lists components that \
             are not zero and means zero by every other one; convert the tensor to a dense \
             format and set its fill value to zero (`.with_fill(..)`) to write every \
             component, or set its fill value to zero if zero is meant"
        ),
    })
}

impl<V: Value> FromEntries for Entries<V> {
    type Value = V;
    const ORDER: Option<usize> = None;

    fn from_entry_list(entries: Entries<V>) -> Result<Self, Error> {
        Ok(entries)
    }
}

impl<V: Value> ToEntries for Entries<V> {
    type Value = V;

    fn to_entry_list(&self) -> Entries<V> {
        let mut e = self.clone();
        e.sort();
        e
    }
}

impl<V: Value, L: Levels, O: ModeOrder> FromEntries for Tensor<V, L, O> {
    type Value = V;
    const ORDER: Option<usize> = Some(L::ORDER);

    fn from_entry_list(entries: Entries<V>) -> Result<Self, Error> {
        Self::from_source(&entries)
    }
}

impl<V: Value, L: Levels, O: ModeOrder> ToEntries for Tensor<V, L, O> {
    type Value = V;

    fn to_entry_list(&self) -> Entries<V> {
        listed(self, self.vals().len())
    }

    fn is_dense(&self) -> bool {
        L::properties().iter().all(|p| p.full)
    }

    fn fill(&self) -> V {
        Tensor::fill(self)
    }
}

/// [`FromEntries`] and [`ToEntries`] for a struct format with `from_entries` and
/// `entries` of its own.
macro_rules! struct_format_entries {
    ($([$($generics:tt)*] $ty:ty),+ $(,)?) => {$(
        impl<$($generics)*> FromEntries for $ty {
            type Value = V;
            const ORDER: Option<usize> = Some(2);

            fn from_entry_list(entries: Entries<V>) -> Result<Self, Error> {
                Self::from_source(&entries)
            }
        }

        impl<$($generics)*> ToEntries for $ty {
            type Value = V;

            fn to_entry_list(&self) -> Entries<V> {
                listed(self, self.nnz())
            }

            fn fill(&self) -> V {
                <$ty>::fill(self)
            }
        }
    )+};
}

struct_format_entries!(
    [V: Value] Dia<V>,
    [V: Value, I: Index] CooAos<V, I>,
    [V: Value, I: Index] Csb<V, I>,
    [V: Value, const R: usize, const C: usize, I: Index] Bcsr<V, R, C, I>,
);

/// The stored entries of `source` (about `hint` of them), sorted by coordinate.
fn listed<V: Value, S: Source<V>>(source: &S, hint: usize) -> Entries<V> {
    let mut out = Entries::with_capacity(source.shape(), hint);
    source.for_each_entry(|c, v| out.push_unchecked(c, v));
    out.sort();
    out
}

/// Where a parser puts the entries it reads: a growing [`Entries`] list, or the fixed
/// [`Slots`] of one chunk of a file parsed in parallel.
pub(crate) trait Sink<V> {
    /// Appends an entry the parser has checked; `false` if there is no room.
    fn put(&mut self, coord: &[usize], value: V) -> bool;
}

impl<V: Value> Sink<V> for Entries<V> {
    #[inline]
    fn put(&mut self, coord: &[usize], value: V) -> bool {
        self.push_unchecked(coord, value);
        true
    }
}

/// The part of an entry list's arrays reserved for one chunk of a file; `len` of them
/// filled.
pub(crate) struct Slots<'a, V> {
    coords: &'a mut [usize],
    vals: &'a mut [V],
    len: usize,
}

impl<'a, V> Slots<'a, V> {
    /// Slots for `vals.len()` entries of `coords.len() / vals.len()` coordinates each.
    pub(crate) fn new(coords: &'a mut [usize], vals: &'a mut [V]) -> Self {
        Slots {
            coords,
            vals,
            len: 0,
        }
    }

    /// The number of entries put.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl<V: Value> Sink<V> for Slots<'_, V> {
    #[inline]
    fn put(&mut self, coord: &[usize], value: V) -> bool {
        let order = coord.len();
        let (Some(slot), Some(dst)) = (
            self.vals.get_mut(self.len),
            self.coords
                .get_mut(self.len * order..(self.len + 1) * order),
        ) else {
            return false;
        };
        *slot = value;
        dst.copy_from_slice(coord);
        self.len += 1;
        true
    }
}

/// The bytes of the file at `path`, or an [`Error::Io`] naming it.
fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| io_error(&path.display().to_string(), &e))
}

/// Everything `reader` yields, or an [`Error::Io`] naming `name`.
fn read_all(mut reader: impl Read, name: &str) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(name, &e))?;
    Ok(bytes)
}

/// [`Error::Io`] for `e` on `file`.
fn io_error(file: &str, e: &std::io::Error) -> Error {
    Error::Io {
        file: file.to_owned(),
        kind: e.kind(),
        message: e.to_string(),
    }
}

/// Creates the file at `path`, lets `write` fill it through a buffer, and flushes it.
fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    let name = path.display().to_string();
    let file = std::fs::File::create(path).map_err(|e| io_error(&name, &e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    write(&mut out)
        .and_then(|()| std::io::Write::flush(&mut out))
        .map_err(|e| io_error(&name, &e))
}

/// The name [`Error::Io`] gives a writer that is not a file.
const WRITER: &str = "<writer>";
