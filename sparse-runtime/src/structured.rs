//! Formats held in a struct around the view kernels read (`view()`), because
//! their levels share data only the struct's constructors keep consistent.
//! [`Dia`] is remapped (Chou et al. 2018, figures 2j and 4; Chou et al. 2020,
//! section 4): a matrix stored as a coordinate hierarchy over more modes than
//! it has, `(d, i, j)` with `d` a diagonal's number; `shape`, `entries`, `nnz`
//! are the logical matrix's. [`CooAos`] is COO whose two levels read one
//! array of coordinate pairs.
//!
//! A kernel indexes it as a matrix, `y(i) = A(i, j) * x(j)`; the macro maps
//! the access onto the view and sums over the hidden mode, which is exact
//! because the view holds each `(i, j)` under one diagonal at most.

use crate::alloc;
use crate::build::entry_list;
use crate::convert::{Source, Target};
use crate::index::fits;
use crate::level::{check_offsets, CompressedAos, Dense, Offset, Range, SingletonAos};
use crate::tensor::DenseFill;
use crate::{Error, Index, Tensor, Value};

/// Checks a matrix shape and returns it.
pub(crate) fn matrix_shape(shape: &[usize]) -> Result<[usize; 2], Error> {
    match shape {
        &[n, m] => Ok([n, m]),
        _ => Err(Error::OrderMismatch {
            expected: 2,
            found: shape.len(),
        }),
    }
}

/// A diagonal (DIA) matrix: the values of each stored diagonal in a dense
/// array of `rows` slots, the diagonal with offset `off` holding `A(i, i + off)`
/// at slot `i` (Chou et al. 2018, figure 2j).
///
/// Its view is the order-3 hierarchy `(d, i, j)` stored as
/// `(Dense, Range, Offset)`: `d` numbers the stored diagonals, [`Range`]
/// gives the rows diagonal `d` crosses and [`Offset`] the column
/// `j = i + offsets[d]`. Values sit at position `d * rows + i`; slots outside
/// the matrix (before or after a diagonal's rows) are zero and never read.
///
/// Good for banded matrices and stencils on regular grids (a 2-D Poisson
/// matrix has 5 diagonals): no column indices are stored, and SpMV streams
/// each diagonal against a contiguous slice of `x`. Bad for matrices whose
/// nonzeros are spread over many sparsely filled diagonals, which DIA stores
/// densely.
///
/// In a kernel, `A(i, j)` iterates diagonal by diagonal, so a statement whose
/// output is appended in row order (a `Csr` output of an element-wise sum) is
/// refused; write such results into a `Dense2` or `HashMat`.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let a = Dia::<f64>::from_entries(&[3, 3], [([0, 0], 2.0), ([1, 1], 2.0), ([0, 1], -1.0)])?;
/// assert_eq!(a.offsets(), &[0, 1]);
/// assert_eq!(a.nnz(), 5); // both diagonals, explicit zeros included
/// assert_eq!(a.entries()[1], (vec![0, 1], -1.0));
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Dia<V> {
    shape: [usize; 2],
    view: Tensor<V, (Dense, Range, Offset)>,
}

impl<V: Value> Dia<V> {
    /// Builds a DIA matrix from `([i, j], value)` entries in any order;
    /// duplicates are summed. Every diagonal holding an entry is stored, in
    /// full.
    ///
    /// Errors: `shape` or a coordinate is not of length 2 (`OrderMismatch`),
    /// a coordinate is outside `shape` (`CoordinateOutOfBounds`), a dimension
    /// exceeds `isize::MAX` or the diagonals cannot be allocated
    /// (`NotRepresentable`).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Dia::<f64>::from_entries(&[3, 3], [([1, 0], 4.0), ([0, 0], 1.0)])?;
    /// assert_eq!(a.offsets(), &[-1, 0]);
    /// // Three slots per diagonal; slot 0 of offset -1 lies outside the matrix.
    /// assert_eq!(a.vals(), &[0.0, 4.0, 0.0, 1.0, 0.0, 0.0]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_entries<C: AsRef<[usize]>>(
        shape: &[usize],
        entries: impl IntoIterator<Item = (C, V)>,
    ) -> Result<Self, Error> {
        let shape = matrix_shape(shape)?;
        Self::from_source(&entry_list(&shape, entries)?)
    }

    /// A `rows x cols` DIA matrix from its arrays: `offsets` strictly
    /// increasing, each the offset `j - i` of a diagonal that crosses the
    /// matrix (`-rows < off < cols`), and `vals` holding `rows` slots per
    /// diagonal, `vals[d * rows + i] = A(i, i + offsets[d])`. Slots outside
    /// the matrix must be zero (they would otherwise be lost).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // [2 -1; 0 2]: the main diagonal and offset 1 (whose slot in row 1 lies outside).
    /// let a = Dia::<f64>::from_diagonals(2, 2, vec![0, 1], vec![2.0, 2.0, -1.0, 0.0])?;
    /// assert_eq!(a.to_dense(), vec![2.0, -1.0, 0.0, 2.0]);
    /// assert!(Dia::<f64>::from_diagonals(2, 2, vec![0, 1], vec![2.0, 2.0, -1.0, 7.0]).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_diagonals(
        rows: usize,
        cols: usize,
        offsets: Vec<isize>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        signed_dims([rows, cols])?;
        check_offsets(rows, cols, &offsets).map_err(|e| e.at_level(1))?;
        let len = positions(offsets.len(), rows)?;
        if vals.len() != len {
            return Err(Error::LengthMismatch {
                what: "vals",
                expected: len,
                found: vals.len(),
            });
        }
        for (d, &off) in offsets.iter().enumerate() {
            let inside = crate::level::diagonal_rows(rows, cols, off);
            let slots = d * rows..(d + 1) * rows;
            if let Some(p) = slots
                .filter(|&p| !inside.contains(&(p - d * rows)))
                .find(|&p| vals[p] != V::zero())
            {
                return Err(Error::NotRepresentable {
                    detail: format!(
                        "vals[{p}] = {:?} is slot {} of the diagonal with offset {off}, which lies outside the {rows} x {cols} matrix; such slots must be zero",
                        vals[p],
                        p - d * rows
                    ),
                });
            }
        }
        let k = offsets.len();
        let levels = (
            Dense::new(k),
            Range::new(rows, cols, offsets.clone()),
            Offset::new(rows, cols, offsets),
        );
        let view = Tensor::from_levels(&[k, rows, cols], levels, vals)?;
        Ok(Dia {
            shape: [rows, cols],
            view,
        })
    }

    /// An all-zero matrix (no stored diagonal).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Dia::<f64>::new(&[4, 4])?;
    /// assert_eq!((a.offsets().len(), a.nnz()), (0, 0));
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn new(shape: &[usize]) -> Result<Self, Error> {
        Self::from_entries(shape, std::iter::empty::<([usize; 2], V)>())
    }

    /// The logical shape `[rows, cols]`.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The offset `j - i` of each stored diagonal, increasing.
    pub fn offsets(&self) -> &[isize] {
        self.view.levels().1.offsets()
    }

    /// The slots of every stored diagonal: `vals()[d * rows + i]` is
    /// `A(i, i + offsets()[d])` (zero where that is outside the matrix).
    pub fn vals(&self) -> &[V] {
        self.view.vals()
    }

    /// The slots, mutably (the stored diagonals stay fixed). Writing a
    /// nonzero into a slot outside the matrix has no effect on the matrix.
    pub fn vals_mut(&mut self) -> &mut [V] {
        self.view.vals_mut()
    }

    /// The number of stored components: every slot of a stored diagonal that
    /// lies inside the matrix, explicit zeros included.
    pub fn nnz(&self) -> usize {
        self.view.nnz()
    }

    /// Every stored entry as `([i, j], value)`, explicit zeros included,
    /// sorted by coordinate.
    pub fn entries(&self) -> Vec<(Vec<usize>, V)> {
        logical_entries(self.view.entries(), |c| vec![c[1], c[2]])
    }

    /// The matrix as a row-major dense array (for tests and oracles), the fill value
    /// where nothing is stored.
    pub fn to_dense(&self) -> Vec<V> {
        dense_of(self.shape, self.fill(), self.entries())
    }

    /// The stored view `(d, i, j)`, the tensor kernels read (it holds the fill value).
    pub fn view(&self) -> &Tensor<V, (Dense, Range, Offset)> {
        &self.view
    }

    /// The fill value: the value of every component not stored (on no stored diagonal);
    /// zero unless set. See [`Tensor::fill`].
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Dia::<f64>::from_entries(&[2, 2], [([0, 0], 1.0)])?.with_fill(-1.0);
    /// assert_eq!((a.fill(), a.view().fill()), (-1.0, -1.0));
    /// assert_eq!(a.to_dense(), vec![1.0, -1.0, -1.0, 0.0]); // (1, 1) is stored: an explicit 0
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn fill(&self) -> V {
        self.view.fill()
    }

    /// The same matrix with fill value `fill` (its stored diagonals unchanged).
    pub fn with_fill(mut self, fill: V) -> Self {
        self.view.set_fill(fill);
        self
    }

    /// Sets the fill value (the stored diagonals are unchanged).
    pub fn set_fill(&mut self, fill: V) {
        self.view.set_fill(fill);
    }
}

impl<V: Value> std::fmt::Debug for Dia<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dia")
            .field("shape", &self.shape)
            .field("view", &self.view)
            .finish()
    }
}

/// `rows` slots per diagonal, checked.
fn positions(diagonals: usize, rows: usize) -> Result<usize, Error> {
    diagonals
        .checked_mul(rows)
        .ok_or_else(|| Error::NotRepresentable {
            detail: format!("{diagonals} diagonals of {rows} rows have more than usize::MAX slots"),
        })
}

/// Both dimensions as offsets can reach them: each at most `isize::MAX`.
fn signed_dims(shape: [usize; 2]) -> Result<(), Error> {
    match shape.iter().find(|&&n| isize::try_from(n).is_err()) {
        Some(n) => Err(Error::NotRepresentable {
            detail: format!("a DIA dimension of {n} exceeds isize::MAX, the range of its offsets"),
        }),
        None => Ok(()),
    }
}

/// The view's entries mapped to logical coordinates and sorted.
pub(crate) fn logical_entries<V>(
    view: Vec<(Vec<usize>, V)>,
    logical: impl Fn(&[usize]) -> Vec<usize>,
) -> Vec<(Vec<usize>, V)> {
    let mut out: Vec<(Vec<usize>, V)> = view.into_iter().map(|(c, v)| (logical(&c), v)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A row-major dense array of `shape` holding `entries` (summed), `fill` elsewhere.
///
/// # Panics
/// If the array cannot be allocated.
pub(crate) fn dense_of<V: Value>(
    shape: [usize; 2],
    fill: V,
    entries: Vec<(Vec<usize>, V)>,
) -> Vec<V> {
    let len = shape[0].checked_mul(shape[1]);
    let mut dense = len
        .ok_or_else(|| "more than usize::MAX components".to_string())
        .and_then(|n| DenseFill::new(n, fill).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| panic!("to_dense of shape {shape:?}: {e}"));
    for (c, v) in entries {
        dense.put(c[0] * shape[1] + c[1], v);
    }
    dense.finish()
}

/// A coordinate (COO) matrix in array-of-structs layout: one array of
/// `(row, column)` pairs, sorted, with its values alongside (TensorFlow's
/// `SparseTensor` indices; Chou et al. 2018, section 5.1).
///
/// Its view is `(CompressedAos, SingletonAos)`: COO's two levels, the rows
/// and columns, reading the even and odd entries of one shared pair array.
/// Rows are non-decreasing, columns strictly increasing within a row.
///
/// Good for data that arrives as coordinate pairs and is used once or twice
/// (SpMV straight from the pairs, no conversion), and where a row and its
/// column are wanted together (one cache line for both). Bad for repeated
/// row access, which `Csr` gives without a scan.
///
/// In a kernel it is a `Coo`: `y(i) = A(i, j) * x(j)` is one loop over the
/// pairs; unions and intersections with other matrices merge its rows in
/// order. It is an input format.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let a = CooAos::<f64>::from_entries(&[3, 4], [([2, 1], 1.0), ([0, 3], 2.0), ([0, 1], 3.0)])?;
/// assert_eq!(a.pairs(), &[0, 1, 0, 3, 2, 1]);
/// assert_eq!(a.nnz(), 3);
/// assert_eq!(a.entries()[1], (vec![0, 3], 2.0));
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct CooAos<V, I = u32> {
    view: Tensor<V, (CompressedAos<I>, SingletonAos<I>)>,
}

impl<V: Value, I: Index> CooAos<V, I> {
    /// Builds the matrix from `([i, j], value)` entries in any order;
    /// duplicates are summed.
    ///
    /// Errors: as [`Tensor::from_entries`] for a `Coo`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = CooAos::<f64>::from_entries(&[2, 2], [([1, 1], 1.0), ([0, 1], 2.0), ([1, 1], 1.0)])?;
    /// assert_eq!((a.pairs(), a.vals()), (&[0, 1, 1, 1][..], &[2.0, 2.0][..]));
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_entries<C: AsRef<[usize]>>(
        shape: &[usize],
        entries: impl IntoIterator<Item = (C, V)>,
    ) -> Result<Self, Error> {
        let shape = matrix_shape(shape)?;
        Self::from_source(&entry_list(&shape, entries)?)
    }

    /// The matrix of a COO tensor, its pairs interleaved (its fill value kept).
    fn from_coo(soa: crate::Coo<V, I>) -> Result<Self, Error> {
        let shape = soa.shape().to_vec();
        let (rows, cols) = soa.levels();
        let mut pairs = alloc::with_capacity(2 * cols.len(), "the coordinate pairs")?;
        for (&i, &j) in rows.crd().iter().zip(cols.crd()) {
            pairs.extend([i, j]);
        }
        let a = Self::from_aos_arrays(shape[0], shape[1], pairs, soa.vals().to_vec())?;
        Ok(a.with_fill(soa.fill()))
    }

    /// A `rows x cols` matrix from its pair array `[i0, j0, i1, j1, ..]`
    /// (sorted by row, columns strictly increasing within a row, every
    /// coordinate inside the matrix) and one value per pair.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = CooAos::<f64>::from_aos_arrays(2, 3, vec![0, 2, 1, 0], vec![1.0, 2.0])?;
    /// assert_eq!(a.entries(), vec![(vec![0, 2], 1.0), (vec![1, 0], 2.0)]);
    /// // Pairs must be sorted by row.
    /// assert!(CooAos::<f64>::from_aos_arrays(2, 3, vec![1, 0, 0, 2], vec![1.0, 2.0]).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_aos_arrays(
        rows: usize,
        cols: usize,
        pairs: Vec<I>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        let count = fits::<I>(pairs.len() / 2)?;
        let pairs: std::sync::Arc<[I]> = pairs.into();
        let levels = (
            CompressedAos::new(rows, vec![I::default(), count], pairs.clone()),
            SingletonAos::new(cols, pairs),
        );
        let view = Tensor::from_levels(&[rows, cols], levels, vals)?;
        Ok(CooAos { view })
    }

    /// An all-zero matrix.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = CooAos::<f64>::new(&[3, 3])?;
    /// assert!(a.pairs().is_empty());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn new(shape: &[usize]) -> Result<Self, Error> {
        Self::from_entries(shape, std::iter::empty::<([usize; 2], V)>())
    }

    /// The shape `[rows, cols]`.
    pub fn shape(&self) -> &[usize] {
        self.view.shape()
    }

    /// The pair array `[i0, j0, i1, j1, ..]`.
    pub fn pairs(&self) -> &[I] {
        self.view.levels().0.pairs()
    }

    /// The value of each pair.
    pub fn vals(&self) -> &[V] {
        self.view.vals()
    }

    /// The number of stored entries (explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.view.nnz()
    }

    /// Every stored entry as `([i, j], value)`, sorted by coordinate.
    pub fn entries(&self) -> Vec<(Vec<usize>, V)> {
        self.view.entries()
    }

    /// The matrix as a row-major dense array (for tests and oracles), the fill value
    /// where nothing is stored.
    pub fn to_dense(&self) -> Vec<V> {
        self.view.to_dense()
    }

    /// The stored view, the tensor kernels read (it holds the fill value).
    pub fn view(&self) -> &Tensor<V, (CompressedAos<I>, SingletonAos<I>)> {
        &self.view
    }

    /// The fill value: the value of every component not stored; zero unless set. See
    /// [`Tensor::fill`].
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let mut a = CooAos::<i32>::from_entries(&[1, 2], [([0, 1], 3)])?;
    /// a.set_fill(7);
    /// assert_eq!((a.fill(), a.to_dense()), (7, vec![7, 3]));
    /// let b: Coo<i32> = a.convert()?; // conversions keep the fill value
    /// assert_eq!(b.fill(), 7);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn fill(&self) -> V {
        self.view.fill()
    }

    /// The same matrix with fill value `fill` (its stored entries unchanged).
    pub fn with_fill(mut self, fill: V) -> Self {
        self.view.set_fill(fill);
        self
    }

    /// Sets the fill value (the stored entries are unchanged).
    pub fn set_fill(&mut self, fill: V) {
        self.view.set_fill(fill);
    }
}

impl<V: Value, I: Index> std::fmt::Debug for CooAos<V, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CooAos").field("view", &self.view).finish()
    }
}

/// DIA's conversion specification (Chou et al. 2020, section 4): the
/// remapping `(i, j) -> (j - i, i, j)`; the attribute query
/// `select [] -> id(j - i)`, which diagonals hold an entry, answered by
/// marking each entry's offset in an array over the `rows + cols - 1`
/// possible ones; then each entry is inserted at slot `d * rows + i` of its
/// diagonal's number `d`. No sort: the offsets come out in order. The slots
/// of a stored diagonal the source does not list hold the source's fill value.
impl<V: Value> Target<V> for Dia<V> {
    fn from_source<S: Source<V>>(source: &S) -> Result<Self, Error> {
        let [rows, cols] = matrix_shape(source.shape())?;
        // Offsets `j - i` are computed in `isize`.
        signed_dims([rows, cols])?;
        // Diagonal `j - i` is slot `j + rows - 1 - i` (both dimensions fit isize).
        let slot = |c: &[usize]| c[1] + rows - 1 - c[0];
        const ABSENT: usize = usize::MAX;
        let span = (rows + cols).saturating_sub(1);
        let mut number = alloc::filled(span, ABSENT, "the diagonal numbers")?;
        source.for_each_entry(|c, _| number[slot(c)] = 0);
        let mut offsets = Vec::new();
        for (k, n) in number.iter_mut().enumerate() {
            if *n != ABSENT {
                *n = offsets.len();
                offsets.push(k as isize - (rows as isize - 1));
            }
        }
        let len = positions(offsets.len(), rows)?;
        let mut vals = alloc::filled(len, V::zero(), "the diagonals")?;
        source.for_each_entry(|c, v| {
            let p = number[slot(c)] * rows + c[0];
            vals[p] = vals[p] + v;
        });
        let fill = source.fill();
        if fill != V::zero() {
            // The slots of a stored diagonal inside the matrix that the source does not
            // list hold its fill value (those outside stay zero).
            let mut listed = alloc::filled(len, false, "the listed slots")?;
            source.for_each_entry(|c, _| listed[number[slot(c)] * rows + c[0]] = true);
            for (d, &off) in offsets.iter().enumerate() {
                for i in crate::level::diagonal_rows(rows, cols, off) {
                    if !listed[d * rows + i] {
                        vals[d * rows + i] = fill;
                    }
                }
            }
        }
        Ok(Self::from_diagonals(rows, cols, offsets, vals)?.with_fill(fill))
    }
}

/// COO with interleaved pairs is assembled as COO, then interleaved.
impl<V: Value, I: Index> Target<V> for CooAos<V, I> {
    fn from_source<S: Source<V>>(source: &S) -> Result<Self, Error> {
        Self::from_coo(crate::Coo::<V, I>::from_source(source)?)
    }
}
