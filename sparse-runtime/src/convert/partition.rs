//! Unsequenced insertion into a large segmented level, through partitions that fit in cache.
//!
//! Inserting each entry at its segment's cursor (Chou et al. 2020, section 6) stores it at a
//! random place. Once the level's arrays are much larger than the cache, each entry then costs
//! a cache line of `crd` and one of the values, each read from memory and written back, for a
//! few bytes of data: the scatter of 8M entries into CSR arrays took 240 ms, most of building
//! the matrix.
//!
//! Partitioned insertion (radix partitioning, as in the hash joins of Manegold, Boncz and
//! Kersten 2000) takes two passes instead. A *partition* is a run of `2^shift` consecutive
//! segments, whose entries together fill a region of the arrays about the size of L2. The
//! first pass stores each entry, in the order the source gives them, at the next place of its
//! partition's region, with the number of its segment inside the partition: each partition's
//! stores go to one place after the other, so they fill whole cache lines. The second pass
//! takes one partition at a time: it copies the region aside and inserts each entry at its
//! segment's cursor, all within the cache, and sorts the segments (if asked) while they are
//! there. Entries keep their order within a segment, as direct insertion keeps it.

use super::segment_sort::SegmentSort;
use super::{Scatter, BATCH};
use crate::{Error, Index, Value};

/// How a level's segments are grouped into partitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Partitions {
    /// Each partition holds `2^shift` segments (the last one fewer).
    shift: u32,
    /// The number of partitions.
    count: usize,
}

/// Below this many bytes of coordinates and values, the arrays stay in cache and entries are
/// inserted directly.
const DIRECT_BYTES: usize = 4 << 20;

/// The bytes an average partition's region holds: with the copy set aside, well inside L2.
const PARTITION_BYTES: usize = 256 << 10;

/// The most partitions the first pass writes at once: one cache line in progress in each of
/// three arrays per partition, held in L2.
const MAX_PARTITIONS: usize = 4096;

/// A segment's number inside its partition is stored in 16 bits.
const MAX_SHIFT: u32 = 16;

impl Partitions {
    /// The partitions for `total` entries of `entry_bytes` each in `segments` segments, or
    /// `None` where direct insertion is as fast: arrays that fit in cache, or segments so many
    /// per entry (hypersparse) that the partitions would be too many to fill at once.
    pub(crate) fn plan(segments: usize, total: usize, entry_bytes: usize) -> Option<Self> {
        if total.saturating_mul(entry_bytes) < DIRECT_BYTES {
            return None;
        }
        // Segments per partition for about PARTITION_BYTES each, rounded down to a power
        // of two.
        let per_partition = PARTITION_BYTES / entry_bytes.max(1);
        let segments_per = (segments.saturating_mul(per_partition) / total).max(1);
        let shift = segments_per.ilog2().min(MAX_SHIFT);
        let count = segments.div_ceil(1 << shift);
        (count <= MAX_PARTITIONS).then_some(Partitions { shift, count })
    }

    /// Partition `b`'s segments, `b << shift` up to the next partition's first or `segments`.
    fn segments(&self, b: usize, segments: usize) -> std::ops::Range<usize> {
        (b << self.shift)..((b + 1) << self.shift).min(segments)
    }

    /// Inserts `entries` into `crd` and `vals`, each at its segment's `cursor`
    /// (`cursor[p] = pos[p]` on entry, `pos[p + 1]` after), and sorts the segments of `pos`
    /// stably by coordinate with `sorter` if given. `false` if the two passes over
    /// `entries` disagreed with each other or with `pos` (what was stored is then not to
    /// be used).
    pub(crate) fn insert<I: Index, V: Value, S: Scatter<V>>(
        &self,
        entries: &S,
        pos: &[I],
        cursor: &mut [I],
        crd: &mut [I],
        vals: &mut [V],
        mut sorter: Option<&mut SegmentSort<I, V>>,
    ) -> Result<bool, Error> {
        let segments = cursor.len();
        // Each partition's region of the arrays: its segments' positions.
        let regions: Vec<std::ops::Range<usize>> = (0..self.count)
            .map(|b| {
                let range = self.segments(b, segments);
                pos[range.start].to_usize()..pos[range.end].to_usize()
            })
            .collect();
        let mut inner: Vec<u16> = crate::alloc::filled(crd.len(), 0, "the segment numbers")?;
        let mut inside = self.partition(entries, &regions, crd, vals, &mut inner);
        let largest = regions.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut aside_crd: Vec<I> = crate::alloc::with_capacity(largest, "a partition")?;
        let mut aside_vals: Vec<V> = crate::alloc::with_capacity(largest, "a partition")?;
        for (b, range) in regions.iter().enumerate() {
            let range = range.clone();
            aside_crd.clear();
            aside_crd.extend_from_slice(&crd[range.clone()]);
            aside_vals.clear();
            aside_vals.extend_from_slice(&vals[range.clone()]);
            let cursors = &mut cursor[self.segments(b, segments)];
            let moved = aside_crd.iter().zip(&aside_vals).zip(&inner[range]);
            for ((&c, &v), &k) in moved {
                inside &= insert_at(cursors, usize::from(k), c, v, crd, vals);
            }
            if let Some(sorter) = sorter.as_deref_mut() {
                let first = b << self.shift;
                for p in self.segments(b, segments) {
                    let segment = pos[p].to_usize()..pos[p + 1].to_usize();
                    // Checked after both passes; until then, a disagreement only
                    // leaves a segment unsorted.
                    if cursors[p - first] == pos[p + 1] {
                        sorter.sort(crd, vals, segment)?;
                    }
                }
            }
        }
        Ok(inside)
    }

    /// The first pass: each entry at the next place of its partition's region in
    /// `regions`, its segment's number inside the partition in `inner`. Returns whether
    /// every region was filled exactly.
    fn partition<I: Index, V: Value, S: Scatter<V>>(
        &self,
        entries: &S,
        regions: &[std::ops::Range<usize>],
        crd: &mut [I],
        vals: &mut [V],
        inner: &mut [u16],
    ) -> bool {
        let mut next: Vec<usize> = regions.iter().map(|r| r.start).collect();
        let mask = (1usize << self.shift) - 1;
        let mut inside = true;
        entries.batches(|parents, coords, values| {
            // The places first, then the stores (as in the direct scatter: the stores'
            // addresses are all known before the first of them waits on memory).
            let mut at = [usize::MAX; BATCH];
            for (q, &p) in at.iter_mut().zip(parents) {
                let b = p >> self.shift;
                if let (Some(n), Some(r)) = (next.get_mut(b), regions.get(b)) {
                    if *n < r.end {
                        *q = *n;
                        *n += 1;
                    }
                }
            }
            let batch = at.iter().zip(parents).zip(coords).zip(values);
            for (((&q, &p), &c), &v) in batch {
                match (crd.get_mut(q), vals.get_mut(q), inner.get_mut(q)) {
                    (Some(slot), Some(val), Some(k)) => {
                        *slot = I::from_usize_unchecked(c);
                        *val = v;
                        // Below 2^16: the shift is at most 16.
                        *k = (p & mask) as u16;
                    }
                    _ => inside = false,
                }
            }
            inside &= parents.len() <= BATCH;
        });
        inside && next.iter().zip(regions).all(|(&n, r)| n == r.end)
    }
}

/// Stores `(c, v)` at segment `k`'s cursor in `cursors` and advances it; `false` if `k` or
/// the place lies outside the arrays.
#[inline]
fn insert_at<I: Index, V: Value>(
    cursors: &mut [I],
    k: usize,
    c: I,
    v: V,
    crd: &mut [I],
    vals: &mut [V],
) -> bool {
    let Some(next) = cursors.get_mut(k) else {
        return false;
    };
    let q = next.to_usize();
    // At most `crd.len()` when the passes agree (which fits `I`); anything else fails the
    // check after both passes.
    *next = I::from_usize_unchecked(q.wrapping_add(1));
    match (crd.get_mut(q), vals.get_mut(q)) {
        (Some(slot), Some(val)) => {
            *slot = c;
            *val = v;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Entries `(parent, coordinate, value)` in a list; from the `flip`-th pass on, the
    /// first entry moves `shift` parents on (a source whose passes disagree).
    struct List {
        entries: Vec<(usize, usize, f64)>,
        passes: Cell<usize>,
        flip: usize,
        shift: usize,
    }

    impl Scatter<f64> for List {
        fn unique(&self) -> bool {
            false
        }

        fn batches<F: FnMut(&[usize], &[usize], &[f64])>(&self, mut f: F) {
            let pass = self.passes.replace(self.passes.get() + 1);
            for chunk in self.entries.chunks(BATCH) {
                let mut parents: Vec<usize> = chunk.iter().map(|e| e.0).collect();
                if pass >= self.flip && chunk.as_ptr() == self.entries.as_ptr() {
                    parents[0] = (parents[0] + self.shift) % 37;
                }
                let coords: Vec<usize> = chunk.iter().map(|e| e.1).collect();
                let values: Vec<f64> = chunk.iter().map(|e| e.2).collect();
                f(&parents, &coords, &values);
            }
        }
    }

    /// `pos` of the list's segments and the cursors at their starts.
    fn counted(list: &List, segments: usize) -> (Vec<u32>, Vec<u32>) {
        let mut pos = vec![0u32; segments + 1];
        for e in &list.entries {
            pos[e.0 + 1] += 1;
        }
        for p in 0..segments {
            pos[p + 1] += pos[p];
        }
        (pos.clone(), pos[..segments].to_vec())
    }

    /// Partitions of 4 segments (the last of 1) insert 1000 entries in 37 segments, some
    /// empty, with repeated coordinates: each segment holds its entries stably sorted by
    /// coordinate (repeats in list order), as a stable sort of the list gives them.
    #[test]
    fn partitions_insert_and_sort_stably() {
        let mut state = 3u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let entries: Vec<(usize, usize, f64)> = (0..1000)
            .map(|k| {
                let p = next(37) as usize;
                let p = if p % 5 == 2 { 0 } else { p }; // some segments stay empty
                (p, next(20) as usize, k as f64)
            })
            .collect();
        let list = List {
            entries,
            passes: Cell::new(0),
            flip: usize::MAX,
            shift: 0,
        };
        let (pos, mut cursor) = counted(&list, 37);
        let plan = Partitions {
            shift: 2,
            count: 10,
        };
        let (mut crd, mut vals) = (vec![0u32; 1000], vec![0.0; 1000]);
        let mut sorter = SegmentSort::new(20);
        let ok = plan.insert(
            &list,
            &pos,
            &mut cursor,
            &mut crd,
            &mut vals,
            Some(&mut sorter),
        );
        assert!(ok.unwrap());
        assert_eq!(cursor[..], pos[1..]);
        let mut want = list.entries.clone();
        want.sort_by_key(|e| (e.0, e.1));
        let got: Vec<(u32, f64)> = crd.into_iter().zip(vals).collect();
        let want: Vec<(u32, f64)> = want.iter().map(|e| (e.1 as u32, e.2)).collect();
        assert_eq!(got, want);
    }

    /// A pass that moves an entry to another segment of its partition, or to another
    /// partition, than the counts said is reported, and writes nothing outside the arrays.
    #[test]
    fn disagreeing_passes_are_reported() {
        for shift in [1, 20] {
            let entries = (0..600).map(|k| (k % 37, k % 11, 1.0)).collect();
            let list = List {
                entries,
                passes: Cell::new(0),
                flip: 0,
                shift,
            };
            let (pos, mut cursor) = counted(&list, 37);
            let plan = Partitions { shift: 3, count: 5 };
            let (mut crd, mut vals) = (vec![0u32; 600], vec![0.0; 600]);
            let ok = plan.insert(&list, &pos, &mut cursor, &mut crd, &mut vals, None);
            // What `insert_segments` checks.
            assert!(!ok.unwrap() || cursor[..] != pos[1..], "moved by {shift}");
        }
    }

    #[test]
    fn plans_partitions_of_about_the_cache_only_for_large_levels() {
        // 8M entries of 12 bytes in 1M segments: 2^11 segments (~16K entries) each.
        let p = Partitions::plan(1 << 20, 8 << 20, 12).unwrap();
        assert_eq!(
            p,
            Partitions {
                shift: 11,
                count: 512
            }
        );
        // Small arrays stay direct.
        assert_eq!(Partitions::plan(1000, 1000, 12), None);
        // Few long segments: one segment per partition.
        assert_eq!(Partitions::plan(10, 1 << 22, 12).map(|p| p.shift), Some(0));
        // Hypersparse: the partitions would be too many.
        assert_eq!(Partitions::plan(usize::MAX / 2, 1 << 22, 12), None);
        assert!(Partitions::plan(1 << 40, 1 << 22, 12).is_none());
    }
}
