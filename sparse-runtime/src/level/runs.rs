//! Runs of equal coordinates in a non-unique level.
//!
//! A non-unique level may store a coordinate several times under one parent;
//! kernels deduplicate by scanning to the end of each run (Chou et al. 2018,
//! section 4.3).

use crate::Index;

/// Smallest `q` in `(p, end]` with `q == end` or `crd[q] != crd[p]`.
///
/// Panics if `p >= end` or `end > crd.len()`.
#[inline]
pub(super) fn run_end<I: Index>(crd: &[I], p: usize, end: usize) -> usize {
    let c = crd[p];
    crd[p + 1..end]
        .iter()
        .position(|&x| x != c)
        .map_or(end, |k| p + 1 + k)
}

/// [`run_end`] without bounds checks.
///
/// # Safety
/// `p < end <= crd.len()`.
#[inline]
pub(super) unsafe fn run_end_unchecked<I: Index>(crd: &[I], p: usize, end: usize) -> usize {
    debug_assert!(p < end && end <= crd.len());
    // SAFETY: the caller guarantees p < end <= crd.len(); every index read is in p..end.
    let c = unsafe { *crd.get_unchecked(p) };
    let mut q = p + 1;
    // SAFETY: q < end <= crd.len() is checked by the loop condition before the read.
    while q < end && unsafe { *crd.get_unchecked(q) } == c {
        q += 1;
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_end_of_each_run() {
        let crd: [u32; 6] = [1, 1, 1, 2, 5, 5];
        assert_eq!(run_end(&crd, 0, 6), 3);
        assert_eq!(run_end(&crd, 1, 6), 3);
        assert_eq!(run_end(&crd, 3, 6), 4);
        assert_eq!(run_end(&crd, 4, 6), 6);
        // The scan stops at `end` even inside a run.
        assert_eq!(run_end(&crd, 0, 2), 2);
        for (p, end) in [(0, 6), (3, 6), (4, 6), (0, 2)] {
            // SAFETY: p < end <= crd.len() in every case.
            let q = unsafe { run_end_unchecked(&crd, p, end) };
            assert_eq!(q, run_end(&crd, p, end));
        }
    }
}
