//! Slotted levels: every parent position owns the same number of slots, each
//! holding a coordinate or padding (ELL's rows of column slots).

use super::{Level, Properties, Sealed};
use crate::alloc;
use crate::index::{fits, Index};
use crate::Error;
use std::ops::Range;

/// A slotted level (ELL's columns): parent position `p` owns the `width`
/// positions `p * width .. (p + 1) * width`, each holding a coordinate in
/// `crd` or the padding `I::MAX` (never a coordinate, since `size` fits `I`).
///
/// Iterated by position, skipping padding ([`Slotted::is_stored`]); no
/// locate, no assembly. Properties: ordered and unique (within a parent's
/// slots the coordinates strictly increase and padding comes last), not
/// compact (padding), neither full nor branchless.
///
/// It is the format paper's ELL column structure, a dense level of `width`
/// slots above a padded [`Singleton`](super::Singleton), seen as one level:
/// the slots of a row form one segment whose coordinates are in order, so a
/// kernel can merge a row of an [`Ell`](crate::Ell) with a row of a
/// [`Csr`](crate::Csr) in column order (the two-level form puts the slot
/// number above the column, and no loop order then visits a row's columns
/// in order). `(Dense, Dense, Singleton<I, Padded>)` remains available as a
/// 3-tensor format.
///
/// # Invariants
///
/// Checked by [`Slotted::from_raw`] (the first two) and by
/// [`Tensor::from_levels`](crate::Tensor::from_levels) (all), under a parent
/// level with `n` positions:
///
/// - `size` fits `I`;
/// - every `crd[q] < size` or `crd[q] == I::MAX` (padding);
/// - `crd.len() == n * width`;
/// - within each parent's slots, the stored coordinates are strictly
///   increasing and every padding slot comes after them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slotted<I = u32> {
    size: usize,
    width: usize,
    crd: Vec<I>,
}

impl<I: Index> Slotted<I> {
    /// Validates and wraps raw arrays: `size` fits `I` and every `crd` entry
    /// is below `size` or padding. The length against the parent's
    /// positions and the order within each parent's slots are checked when
    /// the tensor is assembled. Errors report level 0.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // [1 0 2; 0 3 0] in two slots per row, the last one empty.
    /// let slots = Slotted::<u32>::from_raw(3, 2, vec![0, 2, 1, u32::MAX])?;
    /// let a = Ell::from_levels(&[2, 3], (Dense::new(2), slots), vec![1.0, 2.0, 3.0, 0.0])?;
    /// assert_eq!(a.nnz(), 3); // the empty slot stores nothing
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_raw(size: usize, width: usize, crd: Vec<I>) -> Result<Self, Error> {
        let level = Self { size, width, crd };
        level.check_coordinates()?;
        Ok(level)
    }

    /// Size of the dimension.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The number of slots per parent position.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// The coordinate in each slot (`I::MAX` in an empty one).
    #[inline]
    pub fn crd(&self) -> &[I] {
        &self.crd
    }

    /// Number of positions (slots).
    #[inline]
    pub fn len(&self) -> usize {
        self.crd.len()
    }

    /// Whether the level holds no positions.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.crd.is_empty()
    }

    /// The slots `(begin, end)` of `parent_pos`. They are positions of the
    /// level when `parent_pos` is a position of the parent level (the
    /// tensor's validation checked `crd.len() == n * width`).
    #[inline]
    pub fn pos_bounds(&self, parent_pos: usize) -> (usize, usize) {
        let begin = parent_pos * self.width;
        (begin, begin + self.width)
    }

    /// [`Self::pos_bounds`], under the name the generated code uses for
    /// every level. It reads no memory; the name marks that its result is
    /// valid only for a parent position of a validated hierarchy.
    ///
    /// # Safety
    /// `parent_pos` is a position of the parent level of a validated tensor
    /// (so the products below do not overflow: they are at most `len()`).
    #[inline]
    pub unsafe fn pos_bounds_unchecked(&self, parent_pos: usize) -> (usize, usize) {
        debug_assert!((parent_pos + 1) * self.width <= self.crd.len() || self.width == 0);
        self.pos_bounds(parent_pos)
    }

    /// Coordinate at position `p` (`I::MAX` as a `usize` in an empty slot);
    /// panics if `p >= len()`.
    #[inline]
    pub fn pos_access(&self, p: usize) -> usize {
        self.crd[p].to_usize()
    }

    /// [`Self::pos_access`] without bounds checks.
    ///
    /// # Safety
    /// `p < self.len()`.
    #[inline]
    pub unsafe fn pos_access_unchecked(&self, p: usize) -> usize {
        debug_assert!(p < self.crd.len());
        // SAFETY: the caller guarantees p < crd.len().
        unsafe { self.crd.get_unchecked(p).to_usize() }
    }

    /// Whether slot `p` holds a coordinate; panics if `p >= len()`.
    #[inline]
    pub fn is_stored(&self, p: usize) -> bool {
        !is_padding(self.crd[p])
    }

    /// [`Self::is_stored`] without bounds checks.
    ///
    /// # Safety
    /// `p < self.len()`.
    #[inline]
    pub unsafe fn is_stored_unchecked(&self, p: usize) -> bool {
        debug_assert!(p < self.crd.len());
        // SAFETY: the caller guarantees p < crd.len().
        !is_padding(unsafe { *self.crd.get_unchecked(p) })
    }

    /// `size` fits `I`; every slot is below `size` or padding.
    fn check_coordinates(&self) -> Result<(), Error> {
        let size_i = fits::<I>(self.size)?;
        match self.crd.iter().position(|&c| c >= size_i && !is_padding(c)) {
            None => Ok(()),
            Some(q) => Err(Error::invalid_level(
                0,
                format!(
                    "crd[{q}] = {} is not below the level size {}",
                    self.crd[q].to_usize(),
                    self.size
                ),
            )),
        }
    }

    /// Within each parent's slots: coordinates strictly increasing, padding last.
    fn check_slots(&self) -> Result<(), Error> {
        for (parent, slots) in self.crd.chunks(self.width.max(1)).enumerate() {
            let stored = slots.iter().take_while(|&&c| !is_padding(c)).count();
            if let Some(s) = (stored..slots.len()).find(|&s| !is_padding(slots[s])) {
                return Err(Error::invalid_level(
                    0,
                    format!("slot {s} of parent position {parent} holds coordinate {} after an empty slot: within a parent's slots, coordinates are strictly increasing and empty slots last", slots[s].to_usize()),
                ));
            }
            if let Some(s) = (1..stored).find(|&s| slots[s - 1] >= slots[s]) {
                return Err(Error::invalid_level(
                    0,
                    format!(
                        "slots {} and {s} of parent position {parent} hold coordinates {} and {}: within a parent's slots, coordinates must be strictly increasing",
                        s - 1,
                        slots[s - 1].to_usize(),
                        slots[s].to_usize()
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<I> Sealed for Slotted<I> {}

impl<I: Index> Level for Slotted<I> {
    fn properties() -> Properties {
        Properties {
            name: "Slotted",
            markers: "",
            full: false,
            ordered: true,
            unique: true,
            branchless: false,
            compact: false,
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        self.check_coordinates()?;
        let expected = parent_count.checked_mul(self.width);
        if expected != Some(self.crd.len()) {
            return Err(Error::invalid_level(
                0,
                format!(
                    "crd has {} slots but the parent level's {parent_count} positions of {} slots each need {}",
                    self.crd.len(),
                    self.width,
                    expected.map_or("more than usize::MAX".to_string(), |n| n.to_string())
                ),
            ));
        }
        self.check_slots()?;
        Ok(self.crd.len())
    }

    #[inline]
    fn child_range(&self, parent_pos: usize) -> Range<usize> {
        let (begin, end) = self.pos_bounds(parent_pos);
        begin..end
    }

    #[inline]
    fn coord_at(&self, pos: usize) -> usize {
        self.pos_access(pos)
    }

    #[inline]
    fn is_stored(&self, pos: usize) -> bool {
        Slotted::is_stored(self, pos)
    }

    /// The width is the largest number of distinct keys below one parent
    /// position; each parent's keys fill its first slots in order.
    fn build(
        size: usize,
        parent_count: usize,
        crds: &[usize],
        same_key: &[bool],
        positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        fits::<I>(size)?;
        // Slot of each entry below its parent (entries sharing a key share it).
        let mut slots = alloc::filled(positions.len(), 0usize, "the slot numbers")?;
        let mut width = 0;
        for e in 0..positions.len() {
            slots[e] = match e {
                0 => 0,
                _ if positions[e] != positions[e - 1] => 0,
                _ if same_key[e] => slots[e - 1],
                _ => slots[e - 1] + 1,
            };
            width = width.max(slots[e] + 1);
        }
        let len = slot_count(parent_count, width)?;
        let pad = I::from_usize_unchecked(I::max_usize());
        let mut crd = alloc::filled(len, pad, "crd")?;
        for e in 0..positions.len() {
            let p = positions[e] * width + slots[e];
            let slot = crd.get_mut(p).ok_or_else(|| {
                Error::invalid_level(
                    0,
                    format!(
                        "entry position {} is not below the parent's {parent_count} positions",
                        positions[e]
                    ),
                )
            })?;
            *slot = I::from_usize_unchecked(crds[e]);
            positions[e] = p;
        }
        Ok((Self { size, width, crd }, len))
    }

    /// ELL's attribute query is `select [parent] -> max(count(i))`, the
    /// width; each entry then takes its parent's next slot, and a row the
    /// entries left unsorted is sorted in place. Entries that may repeat a
    /// coordinate are built from sorted entries instead (the width counts
    /// distinct coordinates).
    fn assemble_counted<V: crate::Value, S: crate::convert::Scatter<V>>(
        size: usize,
        parent_count: usize,
        entries: &S,
    ) -> Option<Result<(Self, Vec<V>), Error>> {
        if !entries.unique() {
            return None;
        }
        Some(Self::insert_slots(size, parent_count, entries))
    }
}

impl<I: Index> Slotted<I> {
    /// [`Level::assemble_counted`] for unique entries.
    fn insert_slots<V: crate::Value, S: crate::convert::Scatter<V>>(
        size: usize,
        parent_count: usize,
        entries: &S,
    ) -> Result<(Self, Vec<V>), Error> {
        fits::<I>(size)?;
        let mut filled = alloc::filled(parent_count, 0usize, "the slot counts")?;
        let mut stray = false;
        entries.each(|p, _, _| match filled.get_mut(p) {
            Some(n) => *n += 1,
            None => stray = true,
        });
        let width = filled.iter().copied().max().unwrap_or(0);
        let len = slot_count(parent_count, width)?;
        let pad = I::from_usize_unchecked(I::max_usize());
        let mut crd = alloc::filled(len, pad, "crd")?;
        let mut vals = alloc::filled(len, V::zero(), "vals")?;
        filled.iter_mut().for_each(|n| *n = 0);
        entries.each(|p, i, v| {
            let Some(n) = filled.get_mut(p) else {
                stray = true;
                return;
            };
            let q = p * width + *n;
            match (*n < width, crd.get_mut(q), vals.get_mut(q)) {
                (true, Some(slot), Some(val)) => {
                    // `i < size`, which fits `I`.
                    *slot = I::from_usize_unchecked(i);
                    *val = v;
                    *n += 1;
                }
                _ => stray = true,
            }
        });
        if stray {
            return Err(Error::NotRepresentable {
                detail: "the source listed different entries on two passes".into(),
            });
        }
        for (p, &n) in filled.iter().enumerate() {
            let row = p * width..p * width + n;
            if !crd[row.clone()].windows(2).all(|w| w[0] < w[1]) {
                let mut pairs: Vec<(I, V)> = crd[row.clone()]
                    .iter()
                    .copied()
                    .zip(vals[row.clone()].iter().copied())
                    .collect();
                pairs.sort_by_key(|&(c, _)| c);
                for (q, (c, v)) in row.zip(pairs) {
                    crd[q] = c;
                    vals[q] = v;
                }
            }
        }
        Ok((Self { size, width, crd }, vals))
    }
}

/// The slots of `parent_count` parents of `width` slots each, if that fits `usize`.
fn slot_count(parent_count: usize, width: usize) -> Result<usize, Error> {
    parent_count
        .checked_mul(width)
        .ok_or_else(|| Error::NotRepresentable {
            detail: format!(
                "{parent_count} parent positions of {width} slots each are more than usize::MAX slots"
            ),
        })
}

/// Whether `c` is padding (`I::MAX`; never a coordinate, since a level's size
/// fits `I`).
#[inline]
fn is_padding<I: Index>(c: I) -> bool {
    c.to_usize() == I::max_usize()
}
