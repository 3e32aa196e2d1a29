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
/// Equality (`==`) compares shape, levels and values: two tensors storing the same
/// entries in the same positions are equal, explicit zeros included (storage equality:
/// [`Tensor::same_values`] compares values, a missing entry counting as zero).
#[derive(Clone, Debug)]
pub struct Tensor<V, L, O = Identity> {
    shape: Vec<usize>,
    levels: L,
    vals: Vec<V>,
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
        self.shape == other.shape && self.levels == other.levels && self.vals == other.vals
    }
}

/// A pattern number no structure built before has.
fn fresh_pattern() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl<V: Value, L: Levels, O: ModeOrder> Tensor<V, L, O> {
    /// An all-zero tensor: sparse levels are empty, dense-only tensors are
    /// zero-filled.
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
    /// tensors whose value count was checked); everything else goes through
    /// [`Tensor::from_levels`].
    pub(crate) fn from_parts(shape: &[usize], levels: L, vals: Vec<V>) -> Self {
        debug_assert_eq!(check_hierarchy::<L, O>(&levels, shape, vals.len()), Ok(()));
        Tensor {
            shape: shape.to_vec(),
            levels,
            vals,
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
    /// and oracles).
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
        let mut dense = alloc::filled(len, V::zero(), "the dense array")
            .unwrap_or_else(|e| panic!("Tensor::to_dense of shape {:?}: {e}", self.shape));
        let mut logical = vec![0; self.shape.len()];
        for_each_stored(&self.levels, |path, p| {
            to_logical::<O>(path, &mut logical);
            let at = logical
                .iter()
                .zip(&self.shape)
                .fold(0, |at, (&c, &n)| at * n + c);
            dense[at] = dense[at] + self.vals[p];
        });
        dense
    }

    /// Starts re-assembling the tensor in place (the interface of generated
    /// kernels): the returned guard lends the levels and values through
    /// [`Assembly::parts`] until [`Assembly::finish`].
    ///
    /// If the guard is dropped without `finish` (an early `return`, `?`, or
    /// a panic unwinding through it), the tensor becomes the all-zero tensor
    /// of its shape, as [`Tensor::new`] builds it, so it is valid after every
    /// return path.
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
/// tensor to the all-zero tensor of its shape.
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
            Ok(Ok(empty)) => *self.tensor = empty,
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
