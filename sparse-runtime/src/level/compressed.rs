//! Compressed levels: the children of parent position `p` are the positions
//! `pos[p]..pos[p+1]`, whose coordinates are stored in `crd`.

use super::{runs, Level, Properties, Sealed};
use crate::alloc;
use crate::index::{fits, Index};
use crate::Error;
use std::ops::Range;

/// Defines a compressed level struct; the two variants differ only in whether
/// siblings must be strictly increasing (unique) or just non-decreasing.
macro_rules! compressed_level {
    ($(#[$doc:meta])* $name:ident, unique = $unique:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name<I = u32> {
            size: usize,
            pos: Vec<I>,
            crd: Vec<I>,
        }

        impl<I: Index> $name<I> {
            /// Validates and wraps raw arrays: `pos[0] == 0`, `pos` non-decreasing,
            /// its last entry `== crd.len()`, every `crd < size`, `size` and
            /// `crd.len()` fit `I`, and siblings ordered as the level type requires.
            /// The parent position count `pos.len() - 1` is checked when the
            /// tensor is assembled. Errors report level 0.
            #[inline]
            pub fn from_raw(size: usize, pos: Vec<I>, crd: Vec<I>) -> Result<Self, Error> {
                validate_raw(size, &pos, &crd, $unique)?;
                Ok(Self { size, pos, crd })
            }

            /// An empty level (no coordinates) under `parent_count` parent positions.
            fn empty(size: usize, parent_count: usize) -> Result<Self, Error> {
                fits::<I>(size)?;
                let pos = alloc::filled(parent_count.saturating_add(1), I::default(), "pos")?;
                Ok(Self { size, pos, crd: Vec::new() })
            }

            /// Size of the dimension.
            #[inline]
            pub fn size(&self) -> usize {
                self.size
            }

            /// The segment bounds array (one entry per parent position, plus one).
            #[inline]
            pub fn pos(&self) -> &[I] {
                &self.pos
            }

            /// The coordinate of each position.
            #[inline]
            pub fn crd(&self) -> &[I] {
                &self.crd
            }

            /// Number of positions (`crd.len()`).
            #[inline]
            pub fn len(&self) -> usize {
                self.crd.len()
            }

            /// Whether the level holds no positions.
            #[inline]
            pub fn is_empty(&self) -> bool {
                self.crd.is_empty()
            }

            /// Children positions `(begin, end)` of `parent_pos`; panics if
            /// `parent_pos + 1 >= pos.len()`.
            #[inline]
            pub fn pos_bounds(&self, parent_pos: usize) -> (usize, usize) {
                (self.pos[parent_pos].to_usize(), self.pos[parent_pos + 1].to_usize())
            }

            /// [`Self::pos_bounds`] without bounds checks.
            ///
            /// # Safety
            /// `parent_pos + 1 < self.pos().len()`.
            #[inline]
            pub unsafe fn pos_bounds_unchecked(&self, parent_pos: usize) -> (usize, usize) {
                debug_assert!(parent_pos + 1 < self.pos.len());
                // SAFETY: the caller guarantees parent_pos + 1 < pos.len().
                unsafe {
                    (
                        self.pos.get_unchecked(parent_pos).to_usize(),
                        self.pos.get_unchecked(parent_pos + 1).to_usize(),
                    )
                }
            }

            /// Coordinate at position `p`; panics if `p >= len()`.
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

            /// Starts assembly: drops all coordinates (keeping capacity) and sets
            /// `pos` to `parent_size_hint + 1` zeros.
            #[inline]
            pub fn append_init(&mut self, parent_size_hint: usize) {
                self.crd.clear();
                self.pos.clear();
                self.pos.resize(parent_size_hint + 1, I::default());
            }

            /// Appends coordinate `i` (which must be below `size`) at position `len()`.
            #[inline]
            pub fn append_coord(&mut self, i: usize) {
                debug_assert!(i < self.size, "coordinate {i} >= size {}", self.size);
                self.crd.push(I::from_usize_unchecked(i));
            }

            /// Records that `parent_pos` owns positions `begin..end`. Parents must be
            /// visited in increasing order; parents never visited own nothing.
            #[inline]
            pub fn append_edges(&mut self, parent_pos: usize, begin: usize, end: usize) {
                // Segments are contiguous, so `end` alone determines the segment;
                // `begin` is part of the level-function interface only.
                debug_assert!(begin <= end && end <= self.crd.len());
                if parent_pos + 2 > self.pos.len() {
                    self.pos.resize(parent_pos + 2, I::default());
                }
                // An `end` that does not fit `I` is caught by `append_finalize`,
                // which checks `len()`; the stored placeholder never escapes.
                self.pos[parent_pos + 1] = I::try_from_usize(end).unwrap_or_default();
            }

            /// Ends assembly under `parent_size` parent positions: sizes `pos`,
            /// and fills the segments of parents that were never visited (empty).
            /// `Err(IndexOverflow)` if `len()` does not fit `I`; `Err(InvalidLevel)`
            /// if the recorded edges do not cover every appended coordinate.
            #[inline]
            pub fn append_finalize(&mut self, parent_size: usize) -> Result<(), Error> {
                let len = fits::<I>(self.crd.len())?;
                self.pos.resize(parent_size.saturating_add(1), I::default());
                // Elided parents still hold 0: carry the previous segment end forward.
                let mut end = I::default();
                for p in self.pos.iter_mut() {
                    end = end.max(*p);
                    *p = end;
                }
                if end != len {
                    return Err(Error::invalid_level(0, format!(
                        "append_edges recorded {} positions but {} coordinates were appended",
                        end.to_usize(),
                        self.crd.len()
                    )));
                }
                Ok(())
            }
        }

        impl<I> Sealed for $name<I> {}

        impl<I: Index> Level for $name<I> {
            fn properties() -> Properties {
                Properties {
                    name: stringify!($name),
                    full: false,
                    ordered: true,
                    unique: $unique,
                    branchless: false,
                }
            }

            fn size(&self) -> usize {
                self.size
            }

            fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
                if self.pos.len() != parent_count.saturating_add(1) {
                    return Err(Error::invalid_level(0, format!(
                        "pos has {} entries but the parent level has {parent_count} positions, so it needs {}",
                        self.pos.len(),
                        parent_count.saturating_add(1)
                    )));
                }
                Ok(self.crd.len())
            }

            fn child_range(&self, parent_pos: usize) -> Range<usize> {
                let (begin, end) = self.pos_bounds(parent_pos);
                begin..end
            }

            fn coord_at(&self, pos: usize) -> usize {
                self.pos_access(pos)
            }

            fn build(
                size: usize,
                parent_count: usize,
                crds: &[usize],
                positions: &mut [usize],
            ) -> Result<(Self, usize), Error> {
                let mut level = Self::empty(size, parent_count)?;
                level.crd = alloc::with_capacity(crds.len(), "crd")?;
                let mut begin = 0;
                let mut prev: Option<(usize, usize)> = None;
                for (p, &i) in positions.iter_mut().zip(crds) {
                    if prev.map(|(q, _)| q) != Some(*p) {
                        begin = level.len();
                    }
                    // A unique level merges an entry into its predecessor's
                    // position when both have the same parent and coordinate.
                    if !($unique && prev == Some((*p, i))) {
                        level.append_coord(i);
                    }
                    level.append_edges(*p, begin, level.len());
                    prev = Some((*p, i));
                    *p = level.len() - 1;
                }
                level.append_finalize(parent_count)?;
                let count = level.len();
                Ok((level, count))
            }
        }
    };
}

compressed_level!(
    /// A compressed level whose siblings are strictly increasing (CSR's columns).
    ///
    /// Ordered, unique; iterated by position; assembled by append.
    Compressed,
    unique = true
);

compressed_level!(
    /// A compressed level whose siblings are non-decreasing and may repeat (COO's
    /// first level). Its child level must be a singleton level.
    ///
    /// Ordered, not unique; iterated by position; assembled by append.
    CompressedNonUnique,
    unique = false
);

impl<I: Index> CompressedNonUnique<I> {
    /// End of the run of equal coordinates starting at `p`: the smallest `q` in
    /// `(p, end]` with `q == end` or `crd[q] != crd[p]`. Panics unless
    /// `p < end <= len()`.
    #[inline]
    pub fn run_end(&self, p: usize, end: usize) -> usize {
        runs::run_end(&self.crd, p, end)
    }

    /// [`Self::run_end`] without bounds checks.
    ///
    /// # Safety
    /// `p < end <= self.len()`.
    #[inline]
    pub unsafe fn run_end_unchecked(&self, p: usize, end: usize) -> usize {
        // SAFETY: the caller upholds run_end_unchecked's contract, which is ours.
        unsafe { runs::run_end_unchecked(&self.crd, p, end) }
    }
}

/// Checks every invariant of raw compressed arrays except the parent count.
fn validate_raw<I: Index>(size: usize, pos: &[I], crd: &[I], strict: bool) -> Result<(), Error> {
    let size_i = fits::<I>(size)?;
    let len_i = fits::<I>(crd.len())?;
    check_pos(pos, len_i)?;
    check_crd_bounds(crd, size_i)?;
    check_segments(pos, crd, strict)
}

/// `pos[0] == 0`, non-decreasing, last entry `== crd.len()`.
fn check_pos<I: Index>(pos: &[I], crd_len: I) -> Result<(), Error> {
    let bad = |detail: String| Err(Error::invalid_level(0, detail));
    match (pos.first(), pos.last()) {
        (None, _) | (_, None) => {
            return bad("pos is empty; it needs one entry per parent position plus one".into())
        }
        (Some(&first), _) if first != I::default() => {
            return bad(format!("pos[0] is {} but must be 0", first.to_usize()))
        }
        (_, Some(&last)) if last != crd_len => {
            return bad(format!(
                "the last pos entry is {} but crd has {} entries",
                last.to_usize(),
                crd_len.to_usize()
            ))
        }
        _ => {}
    }
    match pos.windows(2).position(|w| w[0] > w[1]) {
        None => Ok(()),
        Some(k) => bad(format!(
            "pos is not monotone: pos[{k}] = {} > pos[{}] = {}",
            pos[k].to_usize(),
            k + 1,
            pos[k + 1].to_usize()
        )),
    }
}

/// Every coordinate is below the level size.
fn check_crd_bounds<I: Index>(crd: &[I], size: I) -> Result<(), Error> {
    match crd.iter().position(|&c| c >= size) {
        None => Ok(()),
        Some(q) => Err(Error::invalid_level(
            0,
            format!(
                "crd[{q}] = {} is not below the level size {}",
                crd[q].to_usize(),
                size.to_usize()
            ),
        )),
    }
}

/// Siblings are strictly increasing (`strict`) or non-decreasing.
/// Requires `pos` to have passed [`check_pos`].
fn check_segments<I: Index>(pos: &[I], crd: &[I], strict: bool) -> Result<(), Error> {
    for (p, w) in pos.windows(2).enumerate() {
        let (begin, end) = (w[0].to_usize(), w[1].to_usize());
        let seg = &crd[begin..end];
        let broken = seg
            .windows(2)
            .position(|c| if strict { c[0] >= c[1] } else { c[0] > c[1] });
        if let Some(k) = broken {
            let want = if strict {
                "strictly increasing"
            } else {
                "non-decreasing"
            };
            return Err(Error::invalid_level(0, format!(
                "the coordinates of parent position {p} are not {want}: crd[{}] = {} then crd[{}] = {}",
                begin + k,
                seg[k].to_usize(),
                begin + k + 1,
                seg[k + 1].to_usize()
            )));
        }
    }
    Ok(())
}
