//! Block compressed sparse row (BCSR): a matrix stored as dense `R x C`
//! blocks, the 4th-order view `(i / R, j / C, i % R, j % C)` of Chou et al.
//! 2018 (figure 4) and 2020 (section 4: `(i, j) -> (i/R, j/C, i, j)`).

use crate::build::entry_list;
use crate::convert::{Remapped, Source, Target};
use crate::index::Index;
use crate::level::{Compressed, Dense, InBlock};
use crate::structured::{dense_of, logical_entries, matrix_shape};
use crate::{Error, Tensor, Value};

/// The view a [`Bcsr`] stores: block rows (`Dense`), the block columns of
/// each (`Compressed`), then the rows and the columns of a block
/// ([`InBlock`]), over the modes `(I, J, i, j)`.
pub type BlockView<V, I, const R: usize, const C: usize> =
    Tensor<V, (Dense, Compressed<I>, InBlock<R>, InBlock<C>)>;

/// The hierarchy of blocks with in-block coordinates `(I, J, r, c)`, from
/// which the view is built.
type LocalBlocks<V, I> = Tensor<V, (Dense, Compressed<I>, Dense, Dense)>;

/// A block compressed sparse row (BCSR) matrix of dense `R x C` blocks.
///
/// Its view is the order-4 hierarchy `(I, J, i, j)` stored as
/// `(Dense, Compressed, InBlock, InBlock)` (the paper's remapping
/// `(i, j) -> (i/R, j/C, i, j)`), component `(i, j)` sitting in block
/// `(i / R, j / C)` at `(i % R, j % C)`: block rows, the block columns of
/// each row in increasing order, then each block's `R * C` values row-major.
/// Blocks cut by the matrix edge (when `R` does not divide the rows or `C`
/// the columns) keep their full size in `vals`; their components outside the
/// matrix are zero, belong to no entry, and no kernel visits them.
///
/// In a kernel, `A(i, j)` of a `Bcsr` is the sum over the view's hidden block
/// coordinates, visited block by block: SpMV `y(i) = A(i, j) * x(j)` is one
/// loop over the blocks with dense loops inside each.
///
/// Good for matrices made of small dense blocks (finite elements with
/// several unknowns per node: 3 x 3 blocks for 3-D elasticity): one column
/// index per block instead of per nonzero, and dense inner loops of known
/// length. Bad for scattered nonzeros, which each cost a whole block.
///
/// The block size is part of the type; both must be at least 1.
///
/// ```
/// use sparse_runtime::Bcsr;
///
/// let a = Bcsr::<f64, 2, 2>::from_entries(&[3, 4], [([0, 0], 1.0), ([1, 1], 2.0), ([2, 3], 3.0)])?;
/// assert_eq!(a.block_count(), 2);
/// assert_eq!(a.col_idx(), &[0, 1]);
/// // Block (1, 1) is cut by the last row: its second row lies outside the matrix.
/// assert_eq!(a.block_vals(1), &[0.0, 3.0, 0.0, 0.0]);
/// assert_eq!(a.to_dense()[2 * 4 + 3], 3.0);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Bcsr<V, const R: usize, const C: usize, I: Index = u32> {
    shape: [usize; 2],
    view: BlockView<V, I, R, C>,
}

impl<V: Value, const R: usize, const C: usize, I: Index> Bcsr<V, R, C, I> {
    /// Builds the matrix from `([i, j], value)` entries in any order;
    /// duplicates are summed. Every block holding an entry is stored whole.
    ///
    /// Errors: `shape` or a coordinate is not of length 2 (`OrderMismatch`),
    /// a coordinate is outside `shape` (`CoordinateOutOfBounds`), a block
    /// size is 0 or the blocks cannot be allocated (`NotRepresentable`), the
    /// block column count does not fit `I` (`IndexOverflow`).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Bcsr::<f64, 2, 2>::from_entries(&[4, 4], [([0, 0], 1.0), ([3, 2], 2.0)])?;
    /// assert_eq!((a.block_count(), a.row_ptr(), a.col_idx()), (2, &[0, 1, 2][..], &[0, 1][..]));
    /// assert_eq!(a.block_vals(1), &[0.0, 0.0, 2.0, 0.0]); // (3, 2) is (1, 0) in block (1, 1)
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_entries<C2: AsRef<[usize]>>(
        shape: &[usize],
        entries: impl IntoIterator<Item = (C2, V)>,
    ) -> Result<Self, Error> {
        let shape = matrix_shape(shape)?;
        Self::from_source(&entry_list(&shape, entries)?)
    }

    /// A `rows x cols` matrix from its BSR arrays: `row_ptr` (one entry per
    /// block row plus one) and `col_idx` list the blocks of each block row
    /// (block columns strictly increasing), `vals` holds `R * C` values per
    /// block, row-major within the block. Components of edge blocks outside
    /// the matrix must be zero (they would otherwise be lost).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // [1 2 0 0; 3 4 0 0; 0 0 0 0; 0 0 0 5] in 2 x 2 blocks: block (0, 0) and block (1, 1).
    /// let vals = vec![1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 5.0];
    /// let a = Bcsr::<f64, 2, 2>::from_bsr_arrays(4, 4, vec![0, 1, 2], vec![0, 1], vals)?;
    /// assert_eq!(a.to_dense()[15], 5.0);
    /// assert_eq!(a.nnz(), 8); // both blocks whole, explicit zeros included
    /// assert_eq!(a.entries()[7], (vec![3, 3], 5.0));
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_bsr_arrays(
        rows: usize,
        cols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        let shape = [rows, cols];
        let blocks = block_shape::<R, C>(shape)?;
        let columns =
            Compressed::from_raw(blocks[1], row_ptr, col_idx).map_err(|e| e.at_level(1))?;
        let a = Self::from_block_levels(shape, columns, vals)?;
        a.check_edges()?;
        Ok(a)
    }

    /// The matrix whose blocks are listed by `columns` (the view's compressed
    /// level), validated as a view.
    fn from_block_levels(
        shape: [usize; 2],
        columns: Compressed<I>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        let blocks = block_shape::<R, C>(shape)?;
        let levels = (
            Dense::new(blocks[0]),
            columns,
            InBlock::new(shape[0]),
            InBlock::new(shape[1]),
        );
        let view =
            BlockView::from_levels(&[blocks[0], blocks[1], shape[0], shape[1]], levels, vals)?;
        Ok(Bcsr { shape, view })
    }

    /// An all-zero matrix (no stored block).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Bcsr::<f64, 3, 3>::new(&[9, 9])?;
    /// assert_eq!((a.block_count(), a.row_ptr()), (0, &[0, 0, 0, 0][..]));
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn new(shape: &[usize]) -> Result<Self, Error> {
        Self::from_entries(shape, std::iter::empty::<([usize; 2], V)>())
    }

    /// The logical shape `[rows, cols]`.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of stored blocks.
    pub fn block_count(&self) -> usize {
        self.view.levels().1.len()
    }

    /// The block row pointers (`block rows + 1` entries).
    pub fn row_ptr(&self) -> &[I] {
        self.view.levels().1.pos()
    }

    /// The block column of each stored block.
    pub fn col_idx(&self) -> &[I] {
        self.view.levels().1.crd()
    }

    /// All stored values, block after block, each block row-major.
    pub fn vals(&self) -> &[V] {
        self.view.vals()
    }

    /// The `R * C` values of stored block `b`, row-major; panics if
    /// `b >= block_count()`.
    pub fn block_vals(&self, b: usize) -> &[V] {
        &self.view.vals()[b * R * C..(b + 1) * R * C]
    }

    /// The number of stored components inside the matrix (explicit zeros of
    /// the blocks included).
    pub fn nnz(&self) -> usize {
        let [n, m] = self.shape;
        let inside = |b: usize, size: usize, len: usize| len.min(size - b * len);
        self.blocks()
            .map(|(bi, _, bj)| inside(bi, n, R) * inside(bj, m, C))
            .sum()
    }

    /// Every stored block as `(block row, block number, block column)`, in storage order.
    fn blocks(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        let columns = self.col_idx();
        self.row_ptr()
            .windows(2)
            .enumerate()
            .flat_map(move |(bi, w)| {
                (w[0].to_usize()..w[1].to_usize()).map(move |b| (bi, b, columns[b].to_usize()))
            })
    }

    /// Every stored component inside the matrix as `([i, j], value)`, explicit
    /// zeros of the blocks included, sorted by coordinate.
    pub fn entries(&self) -> Vec<(Vec<usize>, V)> {
        logical_entries(self.view.entries(), |c| vec![c[2], c[3]])
    }

    /// The matrix as a row-major dense array (for tests and oracles).
    ///
    /// # Panics
    /// If the array cannot be allocated.
    pub fn to_dense(&self) -> Vec<V> {
        dense_of(self.shape, self.fill(), self.entries())
    }

    /// The stored view `(I, J, i, j)`, the tensor kernels read (it holds the fill value).
    pub fn view(&self) -> &BlockView<V, I, R, C> {
        &self.view
    }

    /// The fill value: the value of every component in no stored block; zero unless set.
    /// See [`Tensor::fill`]. A conversion into a `Bcsr` stores the source's fill value in
    /// the components of a stored block that the source does not store.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 4], [([0, 0], 1.0)])?.with_fill(9.0);
    /// let b: Bcsr<f64, 2, 2> = a.convert()?;
    /// assert_eq!((b.fill(), b.block_vals(0)), (9.0, &[1.0, 9.0, 9.0, 9.0][..]));
    /// assert_eq!(b.to_dense(), a.to_dense());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn fill(&self) -> V {
        self.view.fill()
    }

    /// The same matrix with fill value `fill` (its stored blocks unchanged).
    pub fn with_fill(mut self, fill: V) -> Self {
        self.view.set_fill(fill);
        self
    }

    /// Sets the fill value (the stored blocks are unchanged).
    pub fn set_fill(&mut self, fill: V) {
        self.view.set_fill(fill);
    }

    /// Components of edge blocks outside the matrix are zero.
    fn check_edges(&self) -> Result<(), Error> {
        let [n, m] = self.shape;
        for (bi, b, bj) in self.blocks() {
            for (k, &v) in self.block_vals(b).iter().enumerate() {
                let (r, c) = (k / C, k % C);
                let (i, j) = (bi * R + r, bj * C + c);
                if (i >= n || j >= m) && v != V::zero() {
                    return Err(Error::NotRepresentable {
                        detail: format!(
                            "component ({r}, {c}) of block ({bi}, {bj}) is {v:?} but lies outside the {n} x {m} matrix (at ({i}, {j})); such components must be zero"
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

impl<V: Value, const R: usize, const C: usize, I: Index> std::fmt::Debug for Bcsr<V, R, C, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bcsr")
            .field("shape", &self.shape)
            .field("view", &self.view)
            .finish()
    }
}

/// The view's shape `[ceil(n / R), ceil(m / C), R, C]`.
fn block_shape<const R: usize, const C: usize>(shape: [usize; 2]) -> Result<[usize; 4], Error> {
    if R == 0 || C == 0 {
        return Err(Error::NotRepresentable {
            detail: format!(
                "a BCSR block of {R} x {C} has no components; both sizes must be at least 1"
            ),
        });
    }
    Ok([shape[0].div_ceil(R), shape[1].div_ceil(C), R, C])
}

/// BCSR's conversion specification (Chou et al. 2020, section 4): the
/// remapping `(i, j) -> (i / R, j / C, i % R, j % C)` onto the hierarchy of
/// blocks `(Dense, Compressed, Dense, Dense)`, assembled as any such
/// composition (a block is stored whole once one of its entries is, the
/// components the source does not list holding its fill value, except
/// those outside the matrix, which are zero).
impl<V: Value, const R: usize, const C: usize, I: Index> Target<V> for Bcsr<V, R, C, I> {
    fn from_source<S: Source<V>>(source: &S) -> Result<Self, Error> {
        let shape = matrix_shape(source.shape())?;
        let blocks = block_shape::<R, C>(shape)?;
        let split = Remapped::new(source, blocks.to_vec(), |c, out| {
            out.copy_from_slice(&[c[0] / R, c[1] / C, c[0] % R, c[1] % C]);
        });
        let local = LocalBlocks::<V, I>::from_source(&split)?;
        let ((_, columns, _, _), mut vals) = local.into_parts();
        let fill = source.fill();
        if fill != V::zero() {
            // The components of edge blocks outside the matrix, which the assembly gave the
            // fill value as components the source does not list, are zero.
            for bi in 0..blocks[0] {
                let segment = columns.pos()[bi].to_usize()..columns.pos()[bi + 1].to_usize();
                for b in segment {
                    let bj = columns.crd()[b].to_usize();
                    if (bi + 1) * R <= shape[0] && (bj + 1) * C <= shape[1] {
                        continue;
                    }
                    for (k, v) in vals[b * R * C..(b + 1) * R * C].iter_mut().enumerate() {
                        if bi * R + k / C >= shape[0] || bj * C + k % C >= shape[1] {
                            *v = V::zero();
                        }
                    }
                }
            }
        }
        Ok(Self::from_block_levels(shape, columns, vals)?.with_fill(fill))
    }
}
