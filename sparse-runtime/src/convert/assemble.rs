//! The target side of a conversion for a [`Tensor`] of any level composition:
//! counted assembly where the levels declare it, else level by level from
//! entries in storage order.

use super::source::Source;
use super::{radix, Scatter, Target};
use crate::levels::{Levels, MAX_ORDER};
use crate::mode_order::ModeOrder;
use crate::validate::storage_sizes;
use crate::{Error, Index, Tensor, Value};

impl<V: Value, L: Levels, O: ModeOrder> Target<V> for Tensor<V, L, O> {
    fn from_source<S: Source<V>>(source: &S) -> Result<Self, Error> {
        let shape = source.shape().to_vec();
        let sizes = storage_sizes::<L, O>(&shape)?;
        let entries = InStorageOrder::<S, O> {
            source,
            order: std::marker::PhantomData,
        };
        let (levels, vals) = match L::assemble_counted(&sizes, &entries) {
            Some(built) => built?,
            None => radix::build::<V, L, S, O>(&sizes, &entries)?,
        };
        Self::from_levels(&shape, levels, vals)
    }
}

/// A source's entries with their coordinates in a target's storage order
/// (`s[k] = logical[O::mode(k)]`).
#[doc(hidden)]
pub struct InStorageOrder<'a, S, O> {
    source: &'a S,
    order: std::marker::PhantomData<O>,
}

impl<S, O: ModeOrder> InStorageOrder<'_, S, O> {
    /// Whether each coordinate is listed at most once.
    pub(crate) fn unique<V: Value>(&self) -> bool
    where
        S: Source<V>,
    {
        self.source.unique()
    }

    /// Calls `f(storage coordinate, value)` for every entry of the source.
    #[inline]
    pub(crate) fn each<V: Value, F: FnMut(&[usize], V)>(&self, mut f: F)
    where
        S: Source<V>,
    {
        let mut storage = [0usize; MAX_ORDER];
        self.source.for_each_entry(|logical, v| {
            let order = logical.len();
            for (k, s) in storage[..order].iter_mut().enumerate() {
                *s = logical[O::mode(k)];
            }
            f(&storage[..order], v);
        });
    }
}

/// The entries as the last level of a format whose other levels are all full
/// sees them: the parent position is the row-major number of the coordinates
/// above (Chou et al. 2018: a dense level's position is `parent * size + i`).
#[doc(hidden)]
pub struct BelowDense<'a, S, O> {
    pub(crate) entries: &'a InStorageOrder<'a, S, O>,
    /// The sizes of the levels above.
    pub(crate) sizes: &'a [usize],
}

impl<V: Value, S: Source<V>, O: ModeOrder> Scatter<V> for BelowDense<'_, S, O> {
    fn unique(&self) -> bool {
        self.entries.unique()
    }

    #[inline]
    fn each<F: FnMut(usize, usize, V)>(&self, mut f: F) {
        let above = self.sizes.len();
        self.entries.each(|s, v| {
            let mut parent = 0;
            for (&c, &n) in s[..above].iter().zip(self.sizes) {
                parent = parent * n + c;
            }
            f(parent, s[above], v);
        });
    }
}

/// Unsequenced edge insertion of a segmented level (Chou et al. 2020,
/// section 6): the attribute query `select [parent] -> count(coordinate)`
/// gives each segment's length, `pos` is their prefix sum, and each entry is
/// then inserted at the next free position of its segment (`yield_pos`) in
/// the order the source visits it. Segments the source left unsorted (when
/// `ordered` is asked for) or with repeated coordinates are then sorted and
/// summed one by one.
///
/// A segmented level's arrays and values: `pos` (one more than the parent positions), `crd`,
/// and one value per position.
pub(crate) type Segments<I, V> = (Vec<I>, Vec<I>, Vec<V>);

/// Returns `pos` (`parent_count + 1` entries), `crd` and the values.
pub(crate) fn insert_segments<I: Index, V: Value, S: Scatter<V>>(
    size: usize,
    parent_count: usize,
    ordered: bool,
    entries: &S,
) -> Result<Segments<I, V>, Error> {
    crate::index::fits::<I>(size)?;
    let mut cursor = crate::alloc::filled(parent_count, 0usize, "the segment counts")?;
    let mut stray = false;
    entries.each(|p, _, _| match cursor.get_mut(p) {
        Some(n) => *n += 1,
        None => stray = true,
    });
    let mut pos: Vec<I> = crate::alloc::with_capacity(parent_count + 1, "pos")?;
    let mut total = 0usize;
    pos.push(I::default());
    for n in cursor.iter_mut() {
        let begin = total;
        total += std::mem::replace(n, begin);
        pos.push(crate::index::fits::<I>(total)?);
    }
    let mut crd = crate::alloc::filled(total, I::default(), "crd")?;
    let mut vals = crate::alloc::filled(total, V::zero(), "vals")?;
    entries.each(|p, c, v| {
        let Some(next) = cursor.get_mut(p) else {
            stray = true;
            return;
        };
        match (crd.get_mut(*next), vals.get_mut(*next)) {
            (Some(slot), Some(val)) => {
                // `c < size`, which fits `I`.
                *slot = I::from_usize_unchecked(c);
                *val = v;
                *next += 1;
            }
            _ => stray = true,
        }
    });
    // Each segment ends where the next begins, or the two passes disagreed.
    if stray
        || cursor
            .iter()
            .zip(&pos[1..])
            .any(|(&c, &end)| c != end.to_usize())
    {
        return Err(Error::NotRepresentable {
            detail: "the source listed different entries on two passes".into(),
        });
    }
    if ordered || !entries.unique() {
        sort_segments(&mut pos, &mut crd, &mut vals)?;
    }
    Ok((pos, crd, vals))
}

/// Sorts each segment `pos[p]..pos[p + 1]` of `crd` (moving the values with
/// their coordinates) that is not strictly increasing, summing repeated
/// coordinates in the order they were inserted, and closes the gaps that
/// summing leaves.
pub(crate) fn sort_segments<I: Index, V: Value>(
    pos: &mut [I],
    crd: &mut Vec<I>,
    vals: &mut Vec<V>,
) -> Result<(), Error> {
    let mut scratch: Vec<(I, V)> = Vec::new();
    let mut write = 0;
    let mut begin = 0;
    for p in 0..pos.len().saturating_sub(1) {
        let end = pos[p + 1].to_usize();
        let segment = &crd[begin..end];
        if segment.windows(2).all(|w| w[0] < w[1]) {
            if write != begin {
                crd.copy_within(begin..end, write);
                vals.copy_within(begin..end, write);
            }
            write += end - begin;
        } else {
            scratch.clear();
            scratch
                .try_reserve(end - begin)
                .map_err(|_| Error::NotRepresentable {
                    detail: "cannot allocate a segment to sort".into(),
                })?;
            scratch.extend(
                segment
                    .iter()
                    .copied()
                    .zip(vals[begin..end].iter().copied()),
            );
            // Stable, so repeated coordinates are summed in insertion order.
            scratch.sort_by_key(|&(c, _)| c);
            let mut last: Option<I> = None;
            for &(c, v) in &scratch {
                if last == Some(c) {
                    vals[write - 1] = vals[write - 1] + v;
                } else {
                    crd[write] = c;
                    vals[write] = v;
                    write += 1;
                    last = Some(c);
                }
            }
        }
        begin = end;
        pos[p + 1] = I::from_usize_unchecked(write);
    }
    crd.truncate(write);
    vals.truncate(write);
    Ok(())
}
