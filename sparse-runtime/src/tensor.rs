//! The tensor: a logical shape, a tuple of levels, values, and a mode order.

use crate::build::build;
use crate::levels::Levels;
use crate::mode_order::{to_logical, Identity, ModeOrder};
use crate::validate::{check_hierarchy, storage_sizes};
use crate::walk::for_each_stored;
use crate::{Error, Value};
use std::marker::PhantomData;

/// A tensor stored as a coordinate hierarchy: level `k` of `L` holds logical
/// mode `O::mode(k)`, and `vals[p]` is the value at position `p` of the last level.
///
/// Every constructor validates every invariant that kernels rely on.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor<V, L, O = Identity> {
    shape: Vec<usize>,
    levels: L,
    vals: Vec<V>,
    order: PhantomData<O>,
}

impl<V: Value, L: Levels, O: ModeOrder> Tensor<V, L, O> {
    /// An all-zero tensor: sparse levels are empty, dense-only tensors are
    /// zero-filled.
    pub fn new(shape: &[usize]) -> Result<Self, Error> {
        Self::from_entries(shape, std::iter::empty::<([usize; 0], V)>())
    }

    /// Builds a tensor from `(logical coordinate, value)` entries in any order;
    /// duplicates are summed.
    ///
    /// Levels are built top-down from the sorted entries: a dense level gives
    /// each parent position `size` children, a compressed level one position
    /// per distinct (parent, coordinate), a non-unique compressed level one per
    /// entry, and a singleton level reuses its parent's positions. Positions
    /// holding no entry (under dense levels) store zero; a singleton level
    /// under a dense level stores coordinate 0 for such positions (ELL padding).
    ///
    /// Errors: `shape.len()` differs from the number of levels or a coordinate
    /// has the wrong length (`OrderMismatch`), a coordinate is outside `shape`
    /// (`CoordinateOutOfBounds`), a size or position count does not fit a
    /// level's index type (`IndexOverflow`), the entries cannot be held by the
    /// format (`NotRepresentable`), or the format itself is invalid.
    pub fn from_entries<C: AsRef<[usize]>>(
        shape: &[usize],
        entries: impl IntoIterator<Item = (C, V)>,
    ) -> Result<Self, Error> {
        let sizes = storage_sizes::<L, O>(shape)?;
        let (levels, vals) = build::<V, L, O, C>(shape, &sizes, entries)?;
        Ok(Self::from_parts(shape, levels, vals))
    }

    /// Wraps levels built from raw arrays, validating everything: level sizes
    /// against `shape`, each level's position count against its parent, sibling
    /// order across non-unique parents, the format's structure, and
    /// `vals.len()` against the last level's position count.
    pub fn from_levels(shape: &[usize], levels: L, vals: Vec<V>) -> Result<Self, Error> {
        check_hierarchy::<L, O>(&levels, shape, vals.len())?;
        Ok(Self::from_parts(shape, levels, vals))
    }

    /// Assembles a tensor from parts that are already known to be valid.
    pub(crate) fn from_parts(shape: &[usize], levels: L, vals: Vec<V>) -> Self {
        Tensor {
            shape: shape.to_vec(),
            levels,
            vals,
            order: PhantomData,
        }
    }

    /// The logical shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of modes.
    pub fn order(&self) -> usize {
        self.shape.len()
    }

    /// The number of stored values (every component, for dense tensors).
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// Every stored entry (explicit zeros included) as `(logical coordinate,
    /// value)`, sorted lexicographically by coordinate.
    pub fn entries(&self) -> Vec<(Vec<usize>, V)> {
        let mut out = Vec::with_capacity(self.vals.len());
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

    /// The tensor as a row-major dense array over the logical shape (for tests
    /// and oracles).
    ///
    /// # Panics
    /// If the product of the shape overflows `usize` or cannot be allocated.
    pub fn to_dense(&self) -> Vec<V> {
        let len = self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        let mut dense = vec![V::zero(); len.expect("the dense size overflows usize")];
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

    /// Mutable access to the levels and values, for kernels that re-assemble a
    /// sparse output in place.
    ///
    /// # Safety
    /// Before the tensor is used again (read, passed to a kernel, or dropped
    /// after being read), the caller must leave the levels and values
    /// satisfying every invariant [`Tensor::from_levels`] checks, for the
    /// tensor's unchanged shape: kernels index without bounds checks on the
    /// strength of those invariants.
    #[doc(hidden)]
    pub unsafe fn assembly_parts(&mut self) -> (&mut L, &mut Vec<V>) {
        (&mut self.levels, &mut self.vals)
    }

    /// In debug builds, panics naming the broken invariant if the tensor is
    /// invalid (for use after [`Tensor::assembly_parts`]); a no-op in release
    /// builds.
    #[doc(hidden)]
    pub fn debug_validate(&self) {
        #[cfg(debug_assertions)]
        if let Err(e) = check_hierarchy::<L, O>(&self.levels, &self.shape, self.vals.len()) {
            panic!("invalid tensor after assembly: {e}");
        }
    }
}
