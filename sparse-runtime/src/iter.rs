//! A lazy iterator over a tensor's stored entries: [`Tensor::iter`].
//!
//! The coordinate hierarchy is walked depth first, one step at a time
//! ([`Levels::advance`], [`Levels::descend`]: each level's own `child_range_under`,
//! `is_stored` and `coord_under`, called directly as [`Levels::walk`] calls them),
//! with its state in fixed-size arrays: nothing is allocated, per entry or at all.

use crate::level::Level;
use crate::levels::{Levels, MAX_ORDER};
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

/// The state of a lazy depth-first walk of a coordinate hierarchy: at each level, the
/// positions left to visit and the position and storage coordinate last chosen.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct Cursor {
    ranges: [Range<usize>; MAX_ORDER],
    positions: [usize; MAX_ORDER],
    path: [usize; MAX_ORDER],
}

impl Cursor {
    /// [`Levels::advance`] for `level`, the hierarchy's level `k`.
    #[inline(always)]
    pub(crate) fn advance<Lv: Level>(&mut self, level: &Lv, k: usize) -> Option<usize> {
        loop {
            let q = self.ranges.get_mut(k)?.next()?;
            if level.is_stored(q) {
                let parent = if k == 0 { 0 } else { self.positions[k - 1] };
                self.path[k] = level.coord_under(q, parent, &self.path[..k]);
                self.positions[k] = q;
                return Some(q);
            }
        }
    }

    /// [`Levels::descend`] for `level`, the hierarchy's level `k`.
    #[inline(always)]
    pub(crate) fn descend<Lv: Level>(&mut self, level: &Lv, k: usize) {
        let parent = if k == 0 { 0 } else { self.positions[k - 1] };
        self.ranges[k] = level.child_range_under(parent, &self.path[..k]);
    }
}

/// The iterator of [`Tensor::iter`]: every stored entry (explicit zeros included) as
/// `(coordinate, value)`, in storage order.
pub struct Iter<'a, V, L, O> {
    levels: &'a L,
    vals: &'a [V],
    cursor: Cursor,
    /// The level whose range is being visited; `None` once the walk is done.
    depth: Option<usize>,
    mode_order: std::marker::PhantomData<O>,
}

impl<'a, V: Value, L: Levels, O: ModeOrder> Iter<'a, V, L, O> {
    /// The entries of `levels` (validated: child ranges in bounds) with values `vals`.
    pub(crate) fn new(levels: &'a L, vals: &'a [V]) -> Self {
        let mut cursor = Cursor::default();
        levels.descend(0, &mut cursor);
        Iter {
            levels,
            vals,
            cursor,
            depth: Some(0),
            mode_order: std::marker::PhantomData,
        }
    }

    /// The logical coordinate of the current path.
    #[inline]
    fn coord(&self) -> Coord {
        let mut components = [0; MAX_ORDER];
        for (k, &c) in self.cursor.path[..L::ORDER].iter().enumerate() {
            components[O::mode(k)] = c;
        }
        Coord {
            components,
            order: L::ORDER,
        }
    }
}

impl<V: Value, L: Levels, O: ModeOrder> Iterator for Iter<'_, V, L, O> {
    type Item = (Coord, V);

    #[inline]
    fn next(&mut self) -> Option<(Coord, V)> {
        let last = L::ORDER - 1;
        loop {
            let k = self.depth?;
            match self.levels.advance(k, &mut self.cursor) {
                // Validated levels give last-level positions below the value count;
                // `get` keeps even a broken invariant from panicking.
                Some(q) if k == last => return Some((self.coord(), *self.vals.get(q)?)),
                Some(_) => {
                    self.levels.descend(k + 1, &mut self.cursor);
                    self.depth = Some(k + 1);
                }
                // This level's children are done: back to the level above.
                None => self.depth = k.checked_sub(1),
            }
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
    pub fn iter(&self) -> Iter<'_, V, L, O> {
        Iter::new(self.levels(), self.vals())
    }
}

impl<'a, V: Value, L: Levels, O: ModeOrder> IntoIterator for &'a Tensor<V, L, O> {
    type Item = (Coord, V);
    type IntoIter = Iter<'a, V, L, O>;

    fn into_iter(self) -> Iter<'a, V, L, O> {
        self.iter()
    }
}
