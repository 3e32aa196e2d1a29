//! A lazy iterator over a tensor's stored entries: [`Tensor::iter`].
//!
//! The coordinate hierarchy is walked depth first, one level function call at a
//! time (`child_range_under`, `is_stored`, `coord_under`, as [`Levels::walk`]
//! calls them), with its state in fixed-size arrays: nothing is allocated, per
//! entry or at all.

use crate::level::Level;
use crate::levels::{each_level, Levels, MAX_ORDER};
use crate::mode_order::ModeOrder;
use crate::{Tensor, Value};
use std::ops::Range;

/// The coordinate of a stored entry, in logical mode order (`[i, j]` for a matrix
/// whatever its storage order); a slice through `Deref`, `Copy`, compared by value.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let a = Csc::<f64>::from_entries(&[2, 3], [([1, 2], 5.0)])?;
/// let (c, v) = a.iter().next().unwrap();
/// assert_eq!(c, [1, 2]);
/// assert_eq!((c[0], c[1], v), (1, 2, 5.0));
/// assert_eq!(c.len(), 2);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    components: [usize; MAX_ORDER],
    order: usize,
}

impl Coord {
    /// The components, one per mode.
    pub fn as_slice(&self) -> &[usize] {
        &self.components[..self.order]
    }
}

impl std::ops::Deref for Coord {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl std::fmt::Debug for Coord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<const N: usize> PartialEq<[usize; N]> for Coord {
    fn eq(&self, other: &[usize; N]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<[usize]> for Coord {
    fn eq(&self, other: &[usize]) -> bool {
        self.as_slice() == other
    }
}

/// The iterator of [`Tensor::iter`]: every stored entry (explicit zeros included) as
/// `(coordinate, value)`, in storage order.
pub struct Iter<'a, V, O> {
    levels: [Option<&'a dyn Level>; MAX_ORDER],
    order: usize,
    vals: &'a [V],
    /// The positions left to visit at each level below the current path.
    ranges: [Range<usize>; MAX_ORDER],
    /// The position and the storage coordinate chosen at each level above `depth`.
    positions: [usize; MAX_ORDER],
    path: [usize; MAX_ORDER],
    /// The level whose range is being visited.
    depth: usize,
    mode_order: std::marker::PhantomData<O>,
}

impl<'a, V: Value, O: ModeOrder> Iter<'a, V, O> {
    /// The entries of `levels` (validated: child ranges in bounds) with values `vals`.
    pub(crate) fn new<L: Levels>(levels: &'a L, vals: &'a [V]) -> Self {
        let mut all = [None; MAX_ORDER];
        for (slot, level) in all.iter_mut().zip(each_level(levels)) {
            *slot = Some(level);
        }
        let mut ranges: [Range<usize>; MAX_ORDER] = Default::default();
        if let Some(root) = all[0] {
            ranges[0] = root.child_range_under(0, &[]);
        }
        Iter {
            levels: all,
            order: L::ORDER,
            vals,
            ranges,
            positions: [0; MAX_ORDER],
            path: [0; MAX_ORDER],
            depth: 0,
            mode_order: std::marker::PhantomData,
        }
    }

    /// The logical coordinate of the current path.
    fn coord(&self) -> Coord {
        let mut components = [0; MAX_ORDER];
        for (k, &c) in self.path[..self.order].iter().enumerate() {
            components[O::mode(k)] = c;
        }
        Coord {
            components,
            order: self.order,
        }
    }
}

impl<V: Value, O: ModeOrder> Iterator for Iter<'_, V, O> {
    type Item = (Coord, V);

    fn next(&mut self) -> Option<(Coord, V)> {
        loop {
            let k = self.depth;
            let level = self.levels[k]?;
            let Some(q) = self.ranges[k].next() else {
                // This level's children are done: back to the level above.
                if k == 0 {
                    self.levels[0] = None;
                    return None;
                }
                self.depth -= 1;
                continue;
            };
            if !level.is_stored(q) {
                continue;
            }
            let parent = if k == 0 { 0 } else { self.positions[k - 1] };
            self.path[k] = level.coord_under(q, parent, &self.path[..k]);
            self.positions[k] = q;
            if k + 1 == self.order {
                // Validated levels give last-level positions below the value count;
                // `get` keeps even a broken invariant from panicking.
                let v = *self.vals.get(q)?;
                return Some((self.coord(), v));
            }
            let below = self.levels[k + 1]?;
            self.ranges[k + 1] = below.child_range_under(q, &self.path[..=k]);
            self.depth += 1;
        }
    }
}

impl<V: Value, L: Levels, O: ModeOrder> Tensor<V, L, O> {
    /// Every stored entry (explicit zeros included) as `(coordinate, value)`, lazily and
    /// without allocating, in storage order: row by row for `Csr` and `Coo`, column by
    /// column for `Csc`, bucket order for hashed levels. [`Tensor::entries`] lists the same
    /// entries sorted by coordinate, in a `Vec`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 3], [([1, 0], 2.0), ([0, 2], 1.0)])?;
    /// let row_sums = a.iter().fold([0.0; 2], |mut s, (c, v)| {
    ///     s[c[0]] += v;
    ///     s
    /// });
    /// assert_eq!(row_sums, [1.0, 2.0]);
    /// let listed: Vec<(Vec<usize>, f64)> = a.iter().map(|(c, v)| (c.to_vec(), v)).collect();
    /// assert_eq!(listed, a.entries());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn iter(&self) -> Iter<'_, V, O> {
        Iter::new(self.levels(), self.vals())
    }
}

impl<'a, V: Value, L: Levels, O: ModeOrder> IntoIterator for &'a Tensor<V, L, O> {
    type Item = (Coord, V);
    type IntoIter = Iter<'a, V, O>;

    fn into_iter(self) -> Iter<'a, V, O> {
        self.iter()
    }
}
