//! Windows of an operand's modes (Henry et al. 2021, section 7.3): a kernel that reads
//! `a(i[lo..hi], j)` reads coordinate `lo + step * i` of `a`'s first mode, without a copy.
//! Generated kernels check each window against the mode on entry ([`check_window`]), bind the
//! index variable's size to the window's length ([`window_len`]), and narrow a segment of an
//! ordered level to the window by binary search ([`seek`]).

use crate::{Error, Level};

/// The number of coordinates `lo, lo + step, ..` below `hi`; requires `lo <= hi` and
/// `step >= 1` ([`check_window`]).
#[inline]
pub fn window_len(lo: usize, hi: usize, step: usize) -> usize {
    (hi - lo).div_ceil(step)
}

/// Checks window `lo..hi` with stride `step` of mode `mode` (of size `size`) of operand
/// `tensor` of kernel `kernel`: `lo <= hi <= size` and `step >= 1`.
pub fn check_window(
    kernel: &'static str,
    tensor: &'static str,
    mode: usize,
    size: usize,
    (lo, hi, step): (usize, usize, usize),
) -> Result<(), Error> {
    let detail = if step == 0 {
        format!("the window of mode {mode} of `{tensor}` has step 0")
    } else if lo > hi {
        format!("the window {lo}..{hi} of mode {mode} of `{tensor}` ends before it starts")
    } else if hi > size {
        format!("the window {lo}..{hi} of mode {mode} of `{tensor}` reaches past its size {size}")
    } else {
        return Ok(());
    };
    Err(Error::dimension_mismatch(kernel, detail))
}

/// The first position of `lo..hi` whose coordinate is at least `coord` (`hi` if none), for a
/// level whose coordinates increase over `lo..hi` (an ordered, compact level's segment, or a
/// run's positions). Reads coordinates through the level's checked accessor: a binary
/// search's `O(log n)` reads cost nothing next to the segment it narrows.
#[inline]
pub fn seek<L: Level>(level: &L, mut lo: usize, mut hi: usize, coord: usize) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if level.coord_at(mid) < coord {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    #[test]
    fn windows_are_checked_and_measured() {
        assert_eq!(window_len(2, 9, 3), 3);
        assert_eq!(window_len(4, 4, 1), 0);
        assert!(check_window("k", "a", 0, 9, (2, 9, 3)).is_ok());
        for bad in [(3, 2, 1), (0, 10, 1), (0, 1, 0)] {
            assert!(check_window("k", "a", 0, 9, bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn seek_finds_the_first_coordinate_at_least() {
        let v = SparseVec::<f64>::from_entries(
            &[20],
            [([2], 1.0), ([5], 1.0), ([6], 1.0), ([11], 1.0)].map(|(c, v)| (c, v)),
        )
        .unwrap();
        let (level,) = v.levels();
        let (lo, hi) = (0, 4);
        let found: Vec<usize> = [0, 2, 3, 6, 7, 11, 12]
            .iter()
            .map(|&c| seek(level, lo, hi, c))
            .collect();
        assert_eq!(found, vec![0, 0, 1, 2, 3, 3, 4]);
        assert_eq!(seek(level, 2, 2, 0), 2);
    }
}
