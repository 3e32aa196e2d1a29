//! Assembly of any level composition from entries in storage order (Chou et
//! al. 2020, level by level). The entries are brought into lexicographic
//! storage order, repeats summed, then each level is built by [`Levels::build`]:
//!
//! - for a format of two or more levels whose first level can be counted
//!   into (not far larger than the entries), by the counted assembly of a
//!   segmented level ([`insert_segments`]): one segment per first coordinate,
//!   each holding the rest of the coordinates as one number (row-major below
//!   the first level), sorted and summed per segment. Two passes over the
//!   source and sequential work besides: COO's `(CompressedNonUnique,
//!   Singleton)` is CSR's assembly plus the expansion of its rows.
//! - otherwise by a radix sort, one stable counting sort per level from the
//!   last to the first (a comparison sort only for a level too large to count
//!   into), or not at all when the source already lists them in that order.

use super::assemble::{insert_segments, InStorageOrder};
use super::source::Source;
use super::{Scatter, BATCH};
use crate::alloc;
use crate::levels::Levels;
use crate::mode_order::ModeOrder;
use crate::{Error, Value};

/// Builds the levels and values of a format with storage sizes `sizes` from
/// `entries` (duplicates summed, in the order listed).
pub(crate) fn build<V: Value, L: Levels, S: Source<V>, O: ModeOrder>(
    sizes: &[usize],
    entries: &InStorageOrder<'_, S, O>,
) -> Result<(L, Vec<V>), Error> {
    if let Some(built) = by_first_level::<V, L, S, O>(sizes, entries) {
        return built;
    }
    let mut flat = Vec::new();
    let mut vals = Vec::new();
    entries.each(|s, v| {
        flat.extend_from_slice(s);
        vals.push(v);
    });
    build_flat::<V, L>(sizes, &flat, vals)
}

/// [`build`] by counting on the first level, or `None` if the format has one
/// level, if the first level is much larger than the source's entries (a
/// hypersparse dimension: its counts would cost more than sorting), or if the
/// levels below it have more than `usize::MAX` coordinates together.
fn by_first_level<V: Value, L: Levels, S: Source<V>, O: ModeOrder>(
    sizes: &[usize],
    entries: &InStorageOrder<'_, S, O>,
) -> Option<Result<(L, Vec<V>), Error>> {
    let (&rows, below) = sizes.split_first()?;
    let n = entries.len_bound()?;
    if below.is_empty() || rows > n.saturating_mul(4).saturating_add(1 << 16) {
        return None;
    }
    let inner = below.iter().try_fold(1usize, |a, &k| a.checked_mul(k))?;
    let split = ByFirstLevel { entries, below };
    Some(
        insert_segments::<usize, V, _>(inner, rows, true, &split).and_then(|(pos, crd, vals)| {
            // Sorted, summed: expand the rows and split the rest back into levels.
            let mut columns = Vec::with_capacity(sizes.len());
            let mut first = alloc::with_capacity(crd.len(), "a column of coordinates")?;
            for (i, w) in pos.windows(2).enumerate() {
                first.resize(w[1], i);
            }
            columns.push(first);
            match below {
                [_] => columns.push(crd),
                _ => {
                    let mut rest: Vec<Vec<usize>> = below
                        .iter()
                        .map(|_| alloc::filled(crd.len(), 0, "a column of coordinates"))
                        .collect::<Result<_, _>>()?;
                    for (e, &c) in crd.iter().enumerate() {
                        let mut c = c;
                        for (column, &k) in rest.iter_mut().zip(below).rev() {
                            column[e] = c % k;
                            c /= k;
                        }
                    }
                    columns.append(&mut rest);
                }
            }
            place::<V, L>(sizes, &columns, vals)
        }),
    )
}

/// The entries of a format of two or more levels as one segmented level sees
/// them: the parent is the first coordinate, the coordinate the row-major
/// number of the others (below `below`'s product, which fits `usize`).
struct ByFirstLevel<'a, S, O> {
    entries: &'a InStorageOrder<'a, S, O>,
    below: &'a [usize],
}

impl<V: Value, S: Source<V>, O: ModeOrder> Scatter<V> for ByFirstLevel<'_, S, O> {
    fn unique(&self) -> bool {
        self.entries.unique()
    }

    /// The parents are the first column; the coordinates the second where one level is
    /// below, else computed for the batch.
    #[inline]
    fn batches<F: FnMut(&[usize], &[usize], &[V])>(&self, mut f: F) {
        let mut coords = [0usize; BATCH];
        self.entries.batches(|s, values| {
            // A source's batches hold at most `BATCH` entries; longer ones are split.
            for start in (0..values.len()).step_by(BATCH) {
                let range = start..values.len().min(start + BATCH);
                let values = &values[range.clone()];
                if let [_] = self.below {
                    f(&s[0][range.clone()], &s[1][range], values);
                    continue;
                }
                let coords = &mut coords[..values.len()];
                for (e, c) in range.clone().zip(coords.iter_mut()) {
                    *c = s[1..]
                        .iter()
                        .zip(self.below)
                        .fold(0, |c, (column, &size)| c * size + column[e]);
                }
                f(&s[0][range], coords, values);
            }
        });
    }
}

/// Builds the levels from sorted, summed entries (`columns[k][e]`: entry
/// `e`'s coordinate at level `k`) and places `vals` at the last level's
/// positions.
fn place<V: Value, L: Levels>(
    sizes: &[usize],
    columns: &[Vec<usize>],
    sorted: Vec<V>,
) -> Result<(L, Vec<V>), Error> {
    let mut positions = alloc::filled(sorted.len(), 0usize, "the entry positions")?;
    let (levels, count) = L::build(sizes, columns, &mut positions)?;
    // Each entry at its own position (COO, CSF: no level pads): the values are
    // in place already.
    if count == sorted.len() && positions.iter().enumerate().all(|(e, &p)| p == e) {
        return Ok((levels, sorted));
    }
    // Positions created by dense levels (or singleton padding) hold no entry: zero.
    let mut out = alloc::filled(count, V::zero(), "vals")?;
    for (&p, v) in positions.iter().zip(sorted) {
        out[p] = v;
    }
    Ok((levels, out))
}

/// [`build`] from coordinates already in storage order, `sizes.len()` per
/// entry in `flat`.
pub(crate) fn build_flat<V: Value, L: Levels>(
    sizes: &[usize],
    flat: &[usize],
    vals: Vec<V>,
) -> Result<(L, Vec<V>), Error> {
    let order = sizes.len();
    let n = vals.len();
    let perm = sort_order(sizes, flat, n)?;
    let at = |e: usize| perm.as_ref().map_or(e, |p| p[e]);
    let row = |e: usize| &flat[e * order..(e + 1) * order];
    // Columns in sorted order, equal rows summed.
    let mut columns: Vec<Vec<usize>> = (0..order)
        .map(|_| alloc::with_capacity(n, "a column of coordinates"))
        .collect::<Result<_, _>>()?;
    let mut sorted: Vec<V> = alloc::with_capacity(n, "the sorted values")?;
    let mut last: Option<usize> = None;
    for e in (0..n).map(at) {
        match last {
            Some(l) if row(l) == row(e) => {
                let sum = sorted.len() - 1;
                sorted[sum] = sorted[sum] + vals[e];
            }
            _ => {
                for (column, &c) in columns.iter_mut().zip(row(e)) {
                    column.push(c);
                }
                sorted.push(vals[e]);
                last = Some(e);
            }
        }
    }
    place::<V, L>(sizes, &columns, sorted)
}

/// The permutation that sorts the rows of `flat` lexicographically and
/// stably, or `None` if they are sorted already.
fn sort_order(sizes: &[usize], flat: &[usize], n: usize) -> Result<Option<Vec<usize>>, Error> {
    let order = sizes.len();
    let row = |e: usize| &flat[e * order..(e + 1) * order];
    if (1..n).all(|e| row(e - 1) <= row(e)) {
        return Ok(None);
    }
    let mut perm: Vec<usize> = alloc::with_capacity(n, "the sort permutation")?;
    perm.extend(0..n);
    let mut next = alloc::filled(n, 0usize, "the sort permutation")?;
    for k in (0..order).rev() {
        let key = |e: usize| flat[e * order + k];
        // Counting costs O(n + size): worth it unless the level is much
        // larger than the entries (a hypersparse dimension).
        if sizes[k] <= n.saturating_mul(4).saturating_add(1 << 16) {
            let mut start = alloc::filled(sizes[k] + 1, 0usize, "the counting sort")?;
            for &e in &perm {
                start[key(e) + 1] += 1;
            }
            for c in 1..start.len() {
                start[c] += start[c - 1];
            }
            for &e in &perm {
                let slot = &mut start[key(e)];
                next[*slot] = e;
                *slot += 1;
            }
            std::mem::swap(&mut perm, &mut next);
        } else {
            perm.sort_by_key(|&e| key(e));
        }
    }
    Ok(Some(perm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_rows_stably_by_every_level() {
        let flat = [1, 0, 0, 2, 1, 0, 0, 1, 0, 2];
        let perm = sort_order(&[2, 3], &flat, 5).unwrap().unwrap();
        // Rows: (1,0) (0,2) (1,0) (0,1) (0,2); equal rows keep their order.
        assert_eq!(perm, [3, 1, 4, 0, 2]);
        assert_eq!(sort_order(&[2, 3], &[0, 1, 0, 1, 1, 0], 3).unwrap(), None);
    }

    #[test]
    fn huge_levels_are_sorted_by_comparison() {
        let flat = [5_000_000, 1, 3, 0, 5_000_000, 0];
        let perm = sort_order(&[10_000_000, 2], &flat, 3).unwrap().unwrap();
        assert_eq!(perm, [1, 2, 0]);
    }
}
