//! The tensor: a logical shape, a tuple of levels, values, and a mode order.

use crate::alloc;
use crate::build::entry_list;
use crate::levels::Levels;
use crate::mode_order::{to_logical, Identity, ModeOrder};
use crate::validate::{check_hierarchy, storage_sizes};
use crate::walk::for_each_stored;
use crate::{Error, Value};
use std::marker::PhantomData;

/// A tensor stored as a coordinate hierarchy: level `k` of `L` holds logical
/// mode `O::mode(k)`, and `vals[p]` is the value at position `p` of the last level.
///
/// Every constructor validates every invariant that kernels rely on (those
/// listed on each level type, plus the shape, mode order, format structure
/// and value count); see [`Tensor::from_levels`].
///
/// Every tensor has a *fill value* ([`Tensor::fill`], zero unless set): the value of every
/// component it does not store (Henry et al. 2021, section 4.1). A distance matrix stores
/// the edges of a graph and is filled with infinity; a tensor built by this crate has fill
/// value zero until [`Tensor::with_fill`] or [`Tensor::set_fill`] gives it another.
///
/// Equality (`==`) compares shape, levels, values and fill value: two tensors storing the
/// same entries in the same positions, with the same fill value, are equal, explicit zeros
/// included (storage equality: [`Tensor::same_values`] compares values, a missing entry
/// counting as the fill value).
#[derive(Clone)]
pub struct Tensor<V, L, O = Identity> {
    shape: Vec<usize>,
    levels: L,
    vals: Vec<V>,
    /// The value of every component that is not stored.
    fill: V,
    order: PhantomData<O>,
    /// Which structure this is: a number no other structure built in this process has,
    /// kept by clones and by [`Tensor::vals_mut`] (which cannot change the structure), new
    /// whenever levels are built or re-assembled.
    pattern: u64,
    /// The kernel that assembled this structure and its operands' patterns then: what a
    /// compute-only kernel checks before writing values into it.
    assembled_by: Option<(u64, Box<[u64]>)>,
}

impl<V: PartialEq, L: PartialEq, O> PartialEq for Tensor<V, L, O> {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape
            && self.levels == other.levels
            && self.vals == other.vals
            && self.fill == other.fill
    }
}

/// The fields, as `#[derive(Debug)]` would write them; the fill value only when it is not
/// zero (so a tensor of fill value zero prints as it did before fill values existed).
impl<V: Value, L: std::fmt::Debug, O> std::fmt::Debug for Tensor<V, L, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("Tensor");
        s.field("shape", &self.shape)
            .field("levels", &self.levels)
            .field("vals", &self.vals);
        if self.fill != V::zero() {
            s.field("fill", &self.fill);
        }
        s.field("order", &self.order)
            .field("pattern", &self.pattern)
            .field("assembled_by", &self.assembled_by)
            .finish()
    }
}

impl<V: Copy, L, O> Tensor<V, L, O> {
    /// The fill value: the value of every component this tensor does not store (zero
    /// unless set by [`Tensor::with_fill`] or [`Tensor::set_fill`]).
    ///
    /// A kernel compiled for a fill value (`#[fill(..)]`) checks its operands' fill values
    /// on entry and returns [`Error::FillMismatch`] if one differs. A conversion gives its
    /// result the source's fill value (and writes it into the components a dense target
    /// stores but the source does not); [`Tensor::to_dense`] writes it into every
    /// component not stored.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // The distances between the points of a graph with two edges: no edge is infinitely far.
    /// let d = Csr::<f64>::from_entries(&[3, 3], [([0, 1], 2.0), ([1, 2], 5.0)])?
    ///     .with_fill(f64::INFINITY);
    /// assert_eq!(d.fill(), f64::INFINITY);
    /// assert_eq!(d.nnz(), 2); // the fill value is not stored
    /// assert_eq!(d.to_dense()[2], f64::INFINITY); // component (0, 2) is not stored
    /// assert_eq!(Csr::<f64>::new(&[3, 3])?.fill(), 0.0); // zero unless set
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn fill(&self) -> V {
        self.fill
    }

    /// The same tensor with fill value `fill`: every component it does not store now has
    /// value `fill`. The stored entries (explicit zeros included) are unchanged; so is the
    /// structure ([`Tensor::vals`], [`Tensor::levels`], [`Tensor::iter`]).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<i32>::from_entries(&[1, 3], [([0, 1], 7)])?;
    /// let b = a.clone().with_fill(-1);
    /// assert_eq!(b.entries(), a.entries()); // the same stored entries
    /// assert_eq!(b.to_dense(), vec![-1, 7, -1]);
    /// assert_ne!(a, b); // `==` compares fill values too
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn with_fill(mut self, fill: V) -> Self {
        self.fill = fill;
        self
    }

    /// Sets the fill value in place: every component this tensor does not store now has
    /// value `fill`. The stored entries (explicit zeros included) are unchanged.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let mut a = SparseVec::<f64>::from_entries(&[3], [([1], 0.5)])?;
    /// a.set_fill(1.0);
    /// assert_eq!((a.fill(), a.vals()), (1.0, &[0.5][..]));
    /// assert_eq!(a.to_dense(), vec![1.0, 0.5, 1.0]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn set_fill(&mut self, fill: V) {
        self.fill = fill;
    }
}

/// A pattern number no structure built before has.
fn fresh_pattern() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl<V: Value, L: Levels, O: ModeOrder> Tensor<V, L, O> {
    /// An all-zero tensor: sparse levels are empty, dense-only tensors are
    /// zero-filled; the fill value is zero.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::new(&[3, 4])?;
    /// assert_eq!((a.shape(), a.nnz()), (&[3, 4][..], 0));
    /// assert_eq!(a.levels().1.pos(), &[0, 0, 0, 0]); // an empty segment per row
    /// let d = Dense2::<f64>::new(&[2, 2])?; // dense levels store every component
    /// assert_eq!(d.as_slice(), &[0.0; 4]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn new(shape: &[usize]) -> Result<Self, Error> {
        Self::from_entries(shape, std::iter::empty::<([usize; 0], V)>())
    }

    /// Builds a tensor from `(logical coordinate, value)` entries in any order;
    /// duplicates are summed.
    ///
    /// Levels are built top-down from the sorted entries (Chou et al. 2020): a
    /// dense level gives each parent position `size` children; a compressed
    /// level one position per distinct (parent position, coordinate); a
    /// non-unique compressed level one per distinct (parent position,
    /// coordinate tuple), the tuple being its coordinate and those of the
    /// singleton levels right below it down to the first unique one; and a
    /// singleton level reuses its
    /// parent's positions. Positions holding no entry (under dense levels)
    /// store zero; a singleton level under a dense level stores coordinate 0
    /// for such positions (ELL padding). The result is then validated like
    /// [`Tensor::from_levels`].
    ///
    /// Errors: `shape.len()` differs from the number of levels or a coordinate
    /// has the wrong length (`OrderMismatch`), a coordinate is outside `shape`
    /// (`CoordinateOutOfBounds`), a size or position count does not fit a
    /// level's index type (`IndexOverflow`), the entries cannot be held by the
    /// format (`NotRepresentable`: e.g. two entries a singleton level would
    /// have to store under one parent position, or a size-0 singleton level
    /// under a dense one), or the format itself is invalid.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // Any order, repeats summed; a coordinate is an array, a slice or a Vec.
    /// let a = Coo::<f64>::from_entries(&[2, 3], [([1, 2], 1.0), ([0, 1], 2.0), ([1, 2], 3.0)])?;
    /// assert_eq!(a.entries(), vec![(vec![0, 1], 2.0), (vec![1, 2], 4.0)]);
    /// let t = Csf3::<i32>::from_entries(&[2, 2, 2], vec![(vec![1, 0, 1], 5)])?;
    /// assert_eq!(t.nnz(), 1);
    /// assert!(Csr::<f64>::from_entries(&[2, 3], [([2, 0], 1.0)]).is_err()); // no row 2
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_entries<C: AsRef<[usize]>>(
        shape: &[usize],
        entries: impl IntoIterator<Item = (C, V)>,
    ) -> Result<Self, Error> {
        storage_sizes::<L, O>(shape)?;
        let list = entry_list(shape, entries)?;
        <Self as crate::convert::Target<V>>::from_source(&list)
    }

    /// The tensor of shape `shape` whose entries are given as arrays: entry `k` has
    /// coordinate `(coords[0][k], coords[1][k], ..)` (one array per mode, logical order)
    /// and value `vals[k]`; any order, repeats summed in array order, as
    /// [`Tensor::from_entries`] (SciPy's `coo_matrix((v, (i, j)), shape)`, then the
    /// conversion). The arrays are read in place, so this builds no list of entries of
    /// its own: the way to build a large tensor from arrays you already hold.
    ///
    /// Errors: as [`Tensor::from_entries`], and `OrderMismatch` unless there is one
    /// coordinate array per mode, `LengthMismatch` unless each is as long as `vals`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let (rows, cols, vals) = ([1u32, 0, 1], [2u32, 1, 2], [1.0, 2.0, 3.0]);
    /// let a = Csr::<f64>::from_coordinate_arrays(&[2, 3], &[&rows, &cols], &vals)?;
    /// assert_eq!(a.entries(), vec![(vec![0, 1], 2.0), (vec![1, 2], 4.0)]);
    /// assert!(Csr::<f64>::from_coordinate_arrays(&[2, 2], &[&rows, &cols], &vals).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_coordinate_arrays<I: crate::Index>(
        shape: &[usize],
        coords: &[&[I]],
        vals: &[V],
    ) -> Result<Self, Error> {
        storage_sizes::<L, O>(shape)?;
        let arrays = crate::convert::CoordinateArrays::new(shape, coords, vals)?;
        <Self as crate::convert::Target<V>>::from_source(&arrays)
    }

    /// Wraps levels, validating every invariant kernels rely on, whatever
    /// produced the levels: the shape has one mode per level; the mode order
    /// is a permutation; the format's structure (a branchless level has a
    /// parent, a non-unique level a branchless child, the last level is
    /// unique); each level's size equals its mode's size; every invariant
    /// listed on each level's type against its parent's position count; sibling
    /// order across the runs of non-unique parents; and `vals.len()` equals the
    /// last level's position count. Costs O(stored positions).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // The 2 x 3 CSR matrix [0 1 0; 2 0 3] from its level arrays.
    /// let columns = Compressed::<u32>::from_raw(3, vec![0, 1, 3], vec![1, 0, 2])?;
    /// let a = Csr::from_levels(&[2, 3], (Dense::new(2), columns), vec![1.0, 2.0, 3.0])?;
    /// assert_eq!(a.to_dense(), vec![0.0, 1.0, 0.0, 2.0, 0.0, 3.0]);
    ///
    /// // `pos` has segments for 2 rows, the shape says 3: refused.
    /// let columns = Compressed::<u32>::from_raw(3, vec![0, 1, 3], vec![1, 0, 2])?;
    /// assert!(Csr::from_levels(&[3, 3], (Dense::new(3), columns), vec![1.0, 2.0, 3.0]).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_levels(shape: &[usize], levels: L, vals: Vec<V>) -> Result<Self, Error> {
        check_hierarchy::<L, O>(&levels, shape, vals.len())?;
        Ok(Self::from_parts(shape, levels, vals))
    }

    /// Assembles a tensor from parts that are known to be valid (dense-only
    /// tensors whose value count was checked), of fill value zero; everything else goes
    /// through [`Tensor::from_levels`].
    pub(crate) fn from_parts(shape: &[usize], levels: L, vals: Vec<V>) -> Self {
        debug_assert_eq!(check_hierarchy::<L, O>(&levels, shape, vals.len()), Ok(()));
        Tensor {
            shape: shape.to_vec(),
            levels,
            vals,
            fill: V::zero(),
            order: PhantomData,
            pattern: fresh_pattern(),
            assembled_by: None,
        }
    }

    /// The number of this tensor's structure (the interface of generated kernels): equal for
    /// two tensors only if one is a clone of the other, or the same tensor with other values.
    #[doc(hidden)]
    pub fn pattern_id(&self) -> u64 {
        self.pattern
    }

    /// `Ok` if kernel `kernel_id` assembled this structure from operands with the patterns
    /// `operands` (the check of a compute-only kernel, `kernel` and `assembler` naming it and
    /// its assembling kernel in the error).
    #[doc(hidden)]
    pub fn check_assembled(
        &self,
        kernel_id: u64,
        operands: &[u64],
        kernel: &'static str,
        assembler: &'static str,
    ) -> Result<(), Error> {
        match &self.assembled_by {
            Some((id, ops)) if *id == kernel_id && **ops == *operands => Ok(()),
            _ => Err(Error::NotAssembled { kernel, assembler }),
        }
    }

    /// The levels and values, giving up the tensor.
    pub(crate) fn into_parts(self) -> (L, Vec<V>) {
        (self.levels, self.vals)
    }

    /// The logical shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of modes.
    pub fn order(&self) -> usize {
        self.shape.len()
    }

    /// The number of stored components (every component, for dense tensors;
    /// explicit zeros included; a hashed level's empty buckets are not stored).
    /// O(1) for compact formats, O(positions) otherwise.
    pub fn nnz(&self) -> usize {
        if L::properties().iter().all(|p| p.compact) {
            return self.vals.len();
        }
        let mut count = 0;
        for_each_stored(&self.levels, |_, _| count += 1);
        count
    }

    /// Every stored entry (explicit zeros included) as `(logical coordinate,
    /// value)`, sorted lexicographically by coordinate.
    ///
    /// # Panics
    /// If the list cannot be allocated.
    pub fn entries(&self) -> Vec<(Vec<usize>, V)> {
        let mut out = alloc::with_capacity(self.vals.len(), "the entry list")
            .unwrap_or_else(|e| panic!("Tensor::entries: {e}"));
        for_each_stored(&self.levels, |path, p| {
            let mut logical = vec![0; path.len()];
            to_logical::<O>(path, &mut logical);
            out.push((logical, self.vals[p]));
        });
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The levels, outermost first.
    pub fn levels(&self) -> &L {
        &self.levels
    }

    /// The stored values, by position in the last level.
    pub fn vals(&self) -> &[V] {
        &self.vals
    }

    /// The stored values, mutably (the sparsity structure stays fixed).
    pub fn vals_mut(&mut self) -> &mut [V] {
        &mut self.vals
    }

    /// The levels and, mutably, the values (a compute-only kernel reads the pattern while
    /// it writes the values).
    #[doc(hidden)]
    pub fn levels_and_vals_mut(&mut self) -> (&L, &mut [V]) {
        (&self.levels, &mut self.vals)
    }

    /// The tensor as a row-major dense array over the logical shape (for tests
    /// and oracles): each stored component's value, the fill value
    /// ([`Tensor::fill`]) everywhere else.
    ///
    /// # Panics
    /// If the product of the shape overflows `usize` or the array cannot be
    /// allocated (the message names the shape).
    pub fn to_dense(&self) -> Vec<V> {
        let len = self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        let Some(len) = len else {
            panic!(
                "Tensor::to_dense: a dense array of shape {:?} has more than usize::MAX components",
                self.shape
            );
        };
        let mut dense = DenseFill::new(len, self.fill)
            .unwrap_or_else(|e| panic!("Tensor::to_dense of shape {:?}: {e}", self.shape));
        let mut logical = vec![0; self.shape.len()];
        for_each_stored(&self.levels, |path, p| {
            to_logical::<O>(path, &mut logical);
            let at = logical
                .iter()
                .zip(&self.shape)
                .fold(0, |at, (&c, &n)| at * n + c);
            dense.put(at, self.vals[p]);
        });
        dense.finish()
    }

    /// Starts re-assembling the tensor in place (the interface of generated
    /// kernels): the returned guard lends the levels and values through
    /// [`Assembly::parts`] until [`Assembly::finish`].
    ///
    /// If the guard is dropped without `finish` (an early `return`, `?`, or
    /// a panic unwinding through it), the tensor becomes the all-zero tensor
    /// of its shape, as [`Tensor::new`] builds it (keeping its fill value: a
    /// sparse tensor is then empty, every component its fill value), so it is
    /// valid after every return path.
    ///
    /// # Safety
    /// When the caller calls [`Assembly::finish`], the levels and values it
    /// changed through [`Assembly::parts`] must satisfy every invariant that
    /// [`Tensor::from_levels`] checks, for the tensor's unchanged shape:
    /// kernels index without bounds checks on the strength of those
    /// invariants. Release builds do not re-check them (debug builds do, and
    /// panic naming the broken one). The caller must not leak the guard
    /// (`mem::forget`) while the parts are invalid, since then neither
    /// `finish` nor the reset on drop runs.
    ///
    /// # The safe way
    ///
    /// Only generated kernels call this. Other code builds tensors with the validating
    /// constructors, which check exactly what this contract asks the caller to keep
    /// ([`Tensor::from_levels`], [`Tensor::from_entries`], conversion), and changes values
    /// in place with [`Tensor::vals_mut`], which cannot touch the pattern:
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let mut a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 1.0)])?;
    /// // Instead of re-assembling `a` in place, build the new structure, checked, and move it in.
    /// let columns = Compressed::<u32>::from_raw(2, vec![0, 1, 2], vec![1, 0])?;
    /// a = Csr::from_levels(&[2, 2], (Dense::new(2), columns), vec![1.0, 5.0])?;
    /// a.vals_mut()[1] = 6.0; // new values, the same (valid) pattern
    /// assert_eq!(a.entries(), vec![(vec![0, 1], 1.0), (vec![1, 0], 6.0)]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    #[doc(hidden)]
    pub unsafe fn assemble(&mut self) -> Assembly<'_, V, L, O> {
        Assembly {
            tensor: self,
            finished: false,
        }
    }
}

/// A tensor being re-assembled in place by a generated kernel; see
/// [`Tensor::assemble`]. Dropping it without [`Assembly::finish`] resets the
/// tensor to the all-zero tensor of its shape (its fill value kept).
#[doc(hidden)]
#[must_use = "dropping the guard without `finish` resets the tensor to zero"]
pub struct Assembly<'a, V: Value, L: Levels, O: ModeOrder> {
    tensor: &'a mut Tensor<V, L, O>,
    finished: bool,
}

impl<V: Value, L: Levels, O: ModeOrder> Assembly<'_, V, L, O> {
    /// The levels and values being assembled (the shape stays fixed).
    pub fn parts(&mut self) -> (&mut L, &mut Vec<V>) {
        (&mut self.tensor.levels, &mut self.tensor.vals)
    }

    /// Marks assembly complete: the tensor keeps what was assembled.
    ///
    /// Debug builds re-validate the tensor first and panic naming the broken
    /// invariant; the tensor is then reset to zero like any unfinished
    /// assembly. Release builds trust the contract of [`Tensor::assemble`].
    pub fn finish(mut self) {
        self.complete(None);
    }

    /// [`Assembly::finish`], recording that kernel `kernel_id` assembled the structure from
    /// operands with the patterns `operands`, so that its compute-only variant may later
    /// write values into it.
    pub fn finish_assembled(mut self, kernel_id: u64, operands: &[u64]) {
        self.complete(Some((kernel_id, operands.into())));
    }

    fn complete(&mut self, assembled_by: Option<(u64, Box<[u64]>)>) {
        #[cfg(debug_assertions)]
        {
            let t = &*self.tensor;
            if let Err(e) = check_hierarchy::<L, O>(&t.levels, &t.shape, t.vals.len()) {
                panic!("invalid tensor after assembly: {e}");
            }
        }
        self.tensor.pattern = fresh_pattern();
        self.tensor.assembled_by = assembled_by;
        self.finished = true;
    }
}

impl<V: Value, L: Levels, O: ModeOrder> Drop for Assembly<'_, V, L, O> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        // The shape is the one of a valid tensor (assembly cannot change it),
        // so its all-zero tensor exists; only its allocation can fail, or a
        // user value type's `zero`/`clone` panic. Then no valid state can be
        // built and, as Rust does for a failed allocation, the process aborts
        // rather than leave an invalid tensor (a panic escaping here could be
        // caught and the tensor used).
        let shape = &self.tensor.shape;
        let empty = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Tensor::new(shape)));
        match empty {
            Ok(Ok(empty)) => *self.tensor = empty.with_fill(self.tensor.fill),
            Ok(Err(e)) => {
                eprintln!(
                    "sparse_runtime: cannot reset a tensor after an interrupted assembly: {e}"
                );
                std::process::abort();
            }
            Err(_) => {
                eprintln!("sparse_runtime: a panic while resetting a tensor after an interrupted assembly");
                std::process::abort();
            }
        }
    }
}

/// A dense array being filled from stored components (duplicates summed): [`Tensor::to_dense`]
/// and the struct formats' `to_dense`. Components never put keep the fill value; with fill
/// value zero every component starts at zero and is added to, as before fill values
/// existed, and otherwise the first value put replaces the fill value.
pub(crate) struct DenseFill<V> {
    dense: Vec<V>,
    /// Which components were put, when the fill value is not zero (empty otherwise).
    put: Vec<bool>,
}

impl<V: Value> DenseFill<V> {
    /// `len` components of value `fill`; `Err` if they cannot be allocated.
    pub(crate) fn new(len: usize, fill: V) -> Result<Self, Error> {
        let put = if fill == V::zero() {
            Vec::new()
        } else {
            alloc::filled(len, false, "the stored components")?
        };
        Ok(DenseFill {
            dense: alloc::filled(len, fill, "the dense array")?,
            put,
        })
    }

    /// Component `at` holds `v` (added to what was put there before). `at < len`.
    #[inline]
    pub(crate) fn put(&mut self, at: usize, v: V) {
        match self.put.get_mut(at) {
            Some(seen) if !*seen => {
                *seen = true;
                self.dense[at] = v;
            }
            _ => self.dense[at] = self.dense[at] + v,
        }
    }

    /// The array.
    pub(crate) fn finish(self) -> Vec<V> {
        self.dense
    }
}
