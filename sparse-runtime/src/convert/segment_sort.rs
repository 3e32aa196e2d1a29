//! Sorting a segmented level's segments by coordinate, and summing repeated coordinates:
//! the last step of unsequenced insertion (Chou et al. 2020, section 6) when the source's
//! order left a segment unsorted, or listed a coordinate more than once.
//!
//! Segments are short in the common case (a row of a sparse matrix holds a few to a few
//! dozen entries), and their coordinates are in no order a branch predicts: an insertion
//! sort mispredicts about once per entry. A segment of up to 16 entries is sorted instead by
//! a sorting network (Batcher's odd-even merge sort) over words that pack each coordinate
//! with its place in the segment: branch-free, stable (the place breaks ties), and the
//! values follow their places afterwards. Longer segments are sorted by insertion up to 32
//! entries, beyond that through a scratch array of pairs.

use crate::{Error, Index, Value};

/// Sorts segments of one level, reusing its scratch memory from segment to segment.
pub(crate) struct SegmentSort<I, V> {
    /// Whether every coordinate leaves [`PLACE_BITS`] bits free in a `u64`, for the
    /// networks' packed words.
    packs: bool,
    scratch: Vec<(I, V)>,
}

/// The low bits of a network's word hold an entry's place in its segment (below 16).
const PLACE_BITS: u32 = 4;

/// Segments up to this long are sorted in place by insertion (when no network applies);
/// longer ones through a scratch array of pairs (O(n log n)). Copying short rows out and
/// back cost as much as sorting them.
const SHORT_SEGMENT: usize = 32;

impl<I: Index, V: Value> SegmentSort<I, V> {
    /// For a level of `size` coordinates.
    pub(crate) fn new(size: usize) -> Self {
        SegmentSort {
            packs: (size as u64) <= u64::MAX >> PLACE_BITS,
            scratch: Vec::new(),
        }
    }

    /// Sorts `crd[range]` by coordinate, moving `vals[range]` with it; stable, so repeated
    /// coordinates keep their order (and are summed in insertion order).
    pub(crate) fn sort(
        &mut self,
        crd: &mut [I],
        vals: &mut [V],
        range: std::ops::Range<usize>,
    ) -> Result<(), Error> {
        let (crd, vals) = (&mut crd[range.clone()], &mut vals[range]);
        match crd.len() {
            0 | 1 => {}
            2..=4 if self.packs => by_network::<_, _, 4>(crd, vals, &NETWORK_4),
            5..=8 if self.packs => by_network::<_, _, 8>(crd, vals, &NETWORK_8),
            9..=16 if self.packs => by_network::<_, _, 16>(crd, vals, &NETWORK_16),
            n if n <= SHORT_SEGMENT => insertion_sort(crd, vals),
            _ => self.by_scratch(crd, vals)?,
        }
        Ok(())
    }

    /// A stable sort of a long segment through the scratch array.
    fn by_scratch(&mut self, crd: &mut [I], vals: &mut [V]) -> Result<(), Error> {
        self.scratch.clear();
        self.scratch
            .try_reserve(crd.len())
            .map_err(|_| Error::NotRepresentable {
                detail: "cannot allocate a segment to sort".into(),
            })?;
        self.scratch
            .extend(crd.iter().copied().zip(vals.iter().copied()));
        self.scratch.sort_by_key(|&(c, _)| c);
        for ((c, v), &(sc, sv)) in crd.iter_mut().zip(vals.iter_mut()).zip(&self.scratch) {
            *c = sc;
            *v = sv;
        }
        Ok(())
    }
}

/// Sorts a segment of at most `W` entries by the network `pairs` (`W <= 16`, coordinates
/// below `2^60`).
#[inline]
fn by_network<I: Index, V: Value, const W: usize>(
    crd: &mut [I],
    vals: &mut [V],
    pairs: &[(u8, u8)],
) {
    // Padding sorts after every entry.
    let mut words = [u64::MAX; W];
    let mut moved = [V::zero(); W];
    for (place, ((w, m), (&c, &v))) in words
        .iter_mut()
        .zip(moved.iter_mut())
        .zip(crd.iter().zip(vals.iter()))
        .enumerate()
    {
        *w = ((c.to_usize() as u64) << PLACE_BITS) | place as u64;
        *m = v;
    }
    for &(i, j) in pairs {
        let (a, b) = (words[usize::from(i)], words[usize::from(j)]);
        words[usize::from(i)] = a.min(b);
        words[usize::from(j)] = a.max(b);
    }
    for ((c, v), &w) in crd.iter_mut().zip(vals.iter_mut()).zip(&words) {
        // The coordinate was an `I` shifted left; the place is below `W`.
        *c = I::from_usize_unchecked((w >> PLACE_BITS) as usize);
        *v = moved[(w & ((1 << PLACE_BITS) - 1)) as usize % W];
    }
}

/// The comparators of Batcher's odd-even merge sort of `N` inputs (`N` a power of two),
/// in order; `L` is their number.
const fn odd_even_merge_sort<const N: usize, const L: usize>() -> [(u8, u8); L] {
    let mut pairs = [(0u8, 0u8); L];
    let mut count = 0;
    let mut p = 1;
    while p < N {
        let mut k = p;
        while k >= 1 {
            let mut j = k % p;
            while j + k < N {
                let mut i = 0;
                while i < k && i + j + k < N {
                    if (i + j) / (2 * p) == (i + j + k) / (2 * p) {
                        pairs[count] = ((i + j) as u8, (i + j + k) as u8);
                        count += 1;
                    }
                    i += 1;
                }
                j += 2 * k;
            }
            k /= 2;
        }
        p *= 2;
    }
    assert!(count == L, "the network's length");
    pairs
}

const NETWORK_4: [(u8, u8); 5] = odd_even_merge_sort::<4, 5>();
const NETWORK_8: [(u8, u8); 19] = odd_even_merge_sort::<8, 19>();
const NETWORK_16: [(u8, u8); 63] = odd_even_merge_sort::<16, 63>();

/// Sorts `crd` by coordinate, moving `vals` with it; stable.
fn insertion_sort<I: Index, V: Value>(crd: &mut [I], vals: &mut [V]) {
    for q in 1..crd.len().min(vals.len()) {
        let (c, v) = (crd[q], vals[q]);
        let mut at = q;
        while at > 0 && crd[at - 1] > c {
            crd[at] = crd[at - 1];
            vals[at] = vals[at - 1];
            at -= 1;
        }
        crd[at] = c;
        vals[at] = v;
    }
}

/// Sorts each segment `pos[p]..pos[p + 1]` of `crd` (moving the values with their
/// coordinates) that is not strictly increasing, summing repeated coordinates in the order
/// they were inserted, and closes the gaps that summing leaves. `size` is the level's.
pub(crate) fn sort_segments<I: Index, V: Value>(
    size: usize,
    pos: &mut [I],
    crd: &mut Vec<I>,
    vals: &mut Vec<V>,
) -> Result<(), Error> {
    let mut sorter = SegmentSort::new(size);
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
            sorter.sort(crd, vals, begin..end)?;
            write = sum_repeats(crd, vals, begin..end, write);
        }
        begin = end;
        pos[p + 1] = I::from_usize_unchecked(write);
    }
    crd.truncate(write);
    vals.truncate(write);
    Ok(())
}

/// Moves the sorted segment `range` of `crd` and `vals` to start at `write <= range.start`,
/// summing repeated coordinates in their order; returns the end of what it wrote. Writing
/// stays at or behind reading, so no entry is overwritten before it is read.
fn sum_repeats<I: Index, V: Value>(
    crd: &mut [I],
    vals: &mut [V],
    range: std::ops::Range<usize>,
    mut write: usize,
) -> usize {
    let mut last: Option<I> = None;
    for q in range {
        let (c, v) = (crd[q], vals[q]);
        if last == Some(c) {
            vals[write - 1] = vals[write - 1] + v;
        } else {
            crd[write] = c;
            vals[write] = v;
            write += 1;
            last = Some(c);
        }
    }
    write
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorted and summed segments, repeats summed in insertion order: `1e16 - 1e16 + 1`
    /// is 1 in that order and 0 in others. Segments of every length from 0 to 40 (each
    /// network, insertion and the scratch array) give the same sums.
    #[test]
    fn repeats_are_summed_in_insertion_order() {
        for filler in 0..=36 {
            let mut crd: Vec<u32> = vec![3, 1, 3, 3];
            let mut vals = vec![1e16, 2.0, -1e16, 1.0];
            // Distinct coordinates after the repeats, descending, to lengthen the segment.
            crd.extend((0..filler as u32).map(|c| 100 - c));
            vals.extend((0..filler).map(|c| c as f64));
            let mut pos: Vec<u32> = vec![0, 0, crd.len() as u32];
            sort_segments(101, &mut pos, &mut crd, &mut vals).unwrap();
            assert_eq!(pos, [0, 0, 2 + filler as u32], "filler {filler}");
            assert_eq!((crd[0], vals[0]), (1, 2.0));
            assert_eq!((crd[1], vals[1]), (3, 1.0), "filler {filler}");
            assert!(crd.windows(2).all(|w| w[0] < w[1]));
        }
    }

    /// Every network sorts every sequence of zeros and ones of its width (the 0-1
    /// principle: then it sorts every sequence).
    #[test]
    fn the_networks_sort() {
        fn check<const W: usize>(pairs: &[(u8, u8)]) {
            for bits in 0u32..1 << W {
                let mut a = [0u64; W];
                for (k, x) in a.iter_mut().enumerate() {
                    *x = u64::from(bits >> k & 1);
                }
                for &(i, j) in pairs {
                    let (x, y) = (a[usize::from(i)], a[usize::from(j)]);
                    a[usize::from(i)] = x.min(y);
                    a[usize::from(j)] = x.max(y);
                }
                assert!(a.windows(2).all(|w| w[0] <= w[1]), "width {W}, {bits:b}");
            }
        }
        check::<4>(&NETWORK_4);
        check::<8>(&NETWORK_8);
        check::<16>(&NETWORK_16);
    }

    /// Short segments of repeated and distinct coordinates, sorted by every path, keep
    /// the values with their coordinates and equal coordinates in their order.
    #[test]
    fn every_path_is_stable() {
        let mut state = 7u64;
        for len in 0..40 {
            for size in [3usize, 1 << 20, usize::MAX] {
                let crd: Vec<usize> = (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                        (state >> 33) as usize % 5 + size.saturating_sub(5)
                    })
                    .collect();
                let vals: Vec<f64> = (0..len).map(|k| k as f64).collect();
                let mut want: Vec<(usize, f64)> = crd.iter().copied().zip(vals.clone()).collect();
                want.sort_by_key(|&(c, _)| c);
                let (mut c, mut v) = (crd.clone(), vals.clone());
                SegmentSort::new(size).sort(&mut c, &mut v, 0..len).unwrap();
                let got: Vec<(usize, f64)> = c.into_iter().zip(v).collect();
                assert_eq!(got, want, "len {len}, size {size}");
            }
        }
    }
}
