//! The target side of a conversion for a [`Tensor`] of any level composition:
//! counted assembly where the levels declare it, else level by level from
//! entries in storage order.

use super::partition::Partitions;
use super::segment_sort::{sort_segments, SegmentSort};
use super::source::Source;
use super::{radix, Scatter, Target, BATCH};
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
        let fill = source.fill();
        let mut built = Self::from_levels(&shape, levels, vals)?.with_fill(fill);
        if fill != V::zero() {
            fill_unlisted(&mut built, &entries)?;
        }
        Ok(built)
    }
}

/// Writes `t`'s fill value into every component `t` stores but `entries` does not list
/// (assembly left it zero): every component of a dense format, the rest of a block of
/// dense levels below a sparse one. Nothing to do when a source listing each coordinate
/// once lists as many as `t` stores, since each listed coordinate is stored.
fn fill_unlisted<V: Value, L: Levels, S: Source<V>, O: ModeOrder>(
    t: &mut Tensor<V, L, O>,
    entries: &InStorageOrder<'_, S, O>,
) -> Result<(), Error> {
    let stored = t.nnz();
    if entries.unique() {
        let mut listed = 0usize;
        entries.each(|_, _| listed += 1);
        if listed == stored {
            return Ok(());
        }
    }
    // The listed storage coordinates, sorted; each stored position is looked up there.
    let capacity = entries.len_bound().unwrap_or(0);
    let mut listed: Vec<[usize; MAX_ORDER]> =
        crate::alloc::with_capacity(capacity, "the listed coordinates")?;
    entries.each(|s, _| {
        let mut key = [0; MAX_ORDER];
        key[..s.len()].copy_from_slice(s);
        listed.push(key);
    });
    listed.sort_unstable();
    let fill = t.fill();
    let (levels, vals) = t.levels_and_vals_mut();
    levels.walk(|path, q| {
        if listed.binary_search(path).is_err() {
            vals[q] = fill;
        }
    });
    Ok(())
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

    /// See [`Source::len_bound`].
    pub(crate) fn len_bound<V: Value>(&self) -> Option<usize>
    where
        S: Source<V>,
    {
        self.source.len_bound()
    }

    /// Calls `f(columns, values)` for batches of the source's entries
    /// ([`Source::for_each_batch`]), the columns in storage order.
    #[inline]
    pub(crate) fn batches<V: Value, F: FnMut(&[&[usize]], &[V])>(&self, mut f: F)
    where
        S: Source<V>,
    {
        self.source.for_each_batch(|logical, values| {
            let order = logical.len();
            let mut storage: [&[usize]; MAX_ORDER] = [&[]; MAX_ORDER];
            for (k, s) in storage[..order].iter_mut().enumerate() {
                *s = logical[O::mode(k)];
            }
            f(&storage[..order], values);
        });
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

    /// Below one dense level (CSR), the parents are the first column itself; otherwise
    /// they are computed for the batch.
    #[inline]
    fn batches<F: FnMut(&[usize], &[usize], &[V])>(&self, mut f: F) {
        let above = self.sizes.len();
        let mut parents = [0usize; BATCH];
        self.entries.batches(|s, values| {
            // A source's batches hold at most `BATCH` entries; longer ones are split.
            for start in (0..values.len()).step_by(BATCH) {
                let range = start..values.len().min(start + BATCH);
                let values = &values[range.clone()];
                if above == 1 {
                    f(&s[0][range.clone()], &s[1][range], values);
                    continue;
                }
                // With no level above, every parent is 0, as `parents` was made.
                let parents = &mut parents[..values.len()];
                if above > 1 {
                    for (e, parent) in range.clone().zip(parents.iter_mut()) {
                        *parent = s[..above]
                            .iter()
                            .zip(self.sizes)
                            .fold(0, |p, (column, &size)| p * size + column[e]);
                    }
                }
                f(parents, &s[above][range], values);
            }
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
///
/// Both passes are memory-bound: each entry is one random access into the
/// counts (a read-modify-write of its segment's cursor) and, on the second,
/// two random writes. So the cursors are kept in `I` (half the cache
/// footprint of `usize` for `u32`), and the entries reach the scattering
/// loops in batches ([`Scatter::batches`]): each tight loop over a batch holds
/// its arrays as disjoint slices in registers, so the processor overlaps the
/// cache misses of consecutive entries. (Scattered from inside the walk, the
/// same loop reloaded the source's array pointers from memory after each
/// store and ran 1.5-2x slower, CSR to CSC of 8M entries.) A source whose
/// coordinates sit in arrays hands them over a batch at a time
/// ([`Source::for_each_batch`]), so neither pass calls anything per entry.
pub(crate) fn insert_segments<I: Index, V: Value, S: Scatter<V>>(
    size: usize,
    parent_count: usize,
    ordered: bool,
    entries: &S,
) -> Result<Segments<I, V>, Error> {
    crate::index::fits::<I>(size)?;
    // `pos[p + 1]` counts the entries of segment `p`; a count that reaches
    // `I::MAX` is an overflow of the whole level (its length is at least that).
    let mut pos = crate::alloc::filled(parent_count.saturating_add(1), I::default(), "pos")?;
    let mut stray = false;
    let mut overflow = false;
    entries.batches(|parents, _, _| {
        let counts = &mut pos[1..];
        for &p in parents {
            match counts.get_mut(p) {
                Some(n) if n.to_usize() < I::max_usize() => {
                    *n = I::from_usize_unchecked(n.to_usize() + 1);
                }
                Some(_) => overflow = true,
                None => stray = true,
            }
        }
    });
    if overflow {
        return Err(Error::overflow::<I>(I::max_usize().saturating_add(1)));
    }
    let mut total = 0usize;
    for n in pos.iter_mut() {
        total += n.to_usize();
        *n = crate::index::fits::<I>(total)?;
    }
    // Each segment's next free position, starting at its beginning.
    let mut cursor: Vec<I> = crate::alloc::with_capacity(parent_count, "the segment cursors")?;
    cursor.extend_from_slice(&pos[..parent_count]);
    let mut crd = crate::alloc::filled(total, I::default(), "crd")?;
    let mut vals = crate::alloc::filled(total, V::zero(), "vals")?;
    let sort = ordered || !entries.unique();
    let entry_bytes = std::mem::size_of::<I>() + std::mem::size_of::<V>();
    // Whether every segment still needs sorting (and summing) after insertion.
    let mut unsorted = sort;
    match Partitions::plan(parent_count, total, entry_bytes) {
        Some(partitions) => {
            let mut sorter = sort.then(|| SegmentSort::new(size));
            let sorter = sorter.as_mut();
            stray |= !partitions.insert(entries, &pos, &mut cursor, &mut crd, &mut vals, sorter)?;
            // Sorted inside the partitions; only repeats are left to sum.
            unsorted = !entries.unique();
        }
        None => entries.batches(|parents, coords, values| {
            stray |= !scatter(parents, coords, values, &mut cursor, &mut crd, &mut vals);
        }),
    }
    // Each segment ends where the next begins, or the two passes disagreed.
    if stray || cursor[..] != pos[1..] {
        return Err(Error::NotRepresentable {
            detail: "the source listed different entries on two passes".into(),
        });
    }
    // A sorted segment is only checked; repeats are summed.
    if unsorted {
        sort_segments(size, &mut pos, &mut crd, &mut vals)?;
    }
    Ok((pos, crd, vals))
}

/// Inserts entry `k` (`parents[k]`, `coords[k]`, `values[k]`) at its
/// segment's cursor and advances the cursor; `false` if an entry's parent or
/// position lies outside the arrays (the passes disagreed). Each `coords[k]`
/// is below the level's size, which fits `I`.
///
/// In two loops: the positions of the whole batch first (the cursors' cache
/// misses overlap, each store's address known as soon as its parent is
/// read), then the stores at those positions. In one loop, each store's
/// address waited on a cursor's cache miss, and the processor held the
/// next entry's loads behind it: the misses were taken one at a time.
#[inline]
fn scatter<I: Index, V: Value>(
    parents: &[usize],
    coords: &[usize],
    values: &[V],
    cursor: &mut [I],
    crd: &mut [I],
    vals: &mut [V],
) -> bool {
    let mut inside = true;
    let mut at = [0usize; BATCH];
    for (q, &p) in at.iter_mut().zip(parents) {
        *q = match cursor.get_mut(p) {
            Some(next) => {
                let q = next.to_usize();
                // At most one past `crd.len()` when it is used (which fits
                // `I`); anything else fails the check below and the one
                // after both passes.
                *next = I::from_usize_unchecked(q.wrapping_add(1));
                q
            }
            None => {
                inside = false;
                usize::MAX
            }
        };
    }
    for ((&q, &c), &v) in at.iter().zip(coords).zip(values) {
        match (crd.get_mut(q), vals.get_mut(q)) {
            (Some(slot), Some(val)) => {
                *slot = I::from_usize_unchecked(c);
                *val = v;
            }
            _ => inside = false,
        }
    }
    inside && parents.len() <= BATCH
}
