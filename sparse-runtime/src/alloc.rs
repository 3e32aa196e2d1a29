//! Fallible allocation of the arrays a shape implies, backed by huge pages where the
//! operating system offers them.
//!
//! A shape is user input, and a huge dense dimension would make `vec![..]`
//! abort the process; building a tensor reports it as an error instead.
//!
//! A large array written for the first time costs one page fault per 4 KiB page: a fresh
//! 512 MB vector filled at 1.1-1.8 GB/s on the development machine, at 3.5-4.7 GB/s once
//! advised to use transparent huge pages (Linux's `madvise` mode, where they are used only
//! where asked for). Most of SciPy's lead on allocation-heavy kernels came from its arrays
//! getting huge pages. So every array of at least [`HUGE`] bytes allocated here is advised
//! before it is first written ([`advise_huge_pages`]); elsewhere, or on other systems, the
//! advice is a no-op.

use crate::Error;

/// The size from which an array asks for huge pages (two 2 MiB pages: an allocation rounded
/// inward to whole huge pages holds at least one).
pub(crate) const HUGE: usize = 4 << 20;

/// A vector of `len` copies of `value`, or `Err` if it cannot be allocated.
///
/// Below [`HUGE`] bytes, a zero of a primitive type comes from zeroed memory (`vec![0; n]`
/// allocates it zeroed), not written until used. From [`HUGE`] on, the vector is advised
/// first and then written: written zeroed memory came back from the kernel in 4 KiB pages,
/// and (measured) advising it after `vec!` had allocated it made first writes slower, not
/// faster.
pub(crate) fn filled<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>, Error> {
    if len.saturating_mul(std::mem::size_of::<T>()) < HUGE {
        // The probe fails cleanly where `vec!` would abort.
        drop(with_capacity::<T>(len, what)?);
        return Ok(vec![value; len]);
    }
    let mut v = with_capacity(len, what)?;
    v.resize(len, value);
    Ok(v)
}

/// An empty vector with room for `len` elements, or `Err` if it cannot be allocated.
pub(crate) fn with_capacity<T>(len: usize, what: &str) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    reserve(&mut v, len, what)?;
    Ok(v)
}

/// Makes room in `v` for `additional` more elements (exactly: a bound computed from the
/// inputs, not a guess to grow from), or `Err` if it cannot be allocated.
pub(crate) fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<(), Error> {
    let before = v.capacity();
    v.try_reserve_exact(additional)
        .map_err(|_| Error::NotRepresentable {
            detail: format!("cannot allocate {additional} elements for {what}"),
        })?;
    if v.capacity() != before {
        advise_huge_pages(v);
    }
    Ok(())
}

/// Makes room in an appended output's values for `entries` more: a bound the kernel computed
/// from its inputs (see `append_reserve` of the levels). Only a hint: if the memory cannot be
/// had, appending grows the values.
#[doc(hidden)]
#[inline]
pub fn reserve_values<V>(vals: &mut Vec<V>, entries: usize) {
    let _ = reserve(vals, entries, "appended values");
}

/// Asks the kernel to back `v`'s allocation with transparent huge pages if it holds at least
/// [`HUGE`] bytes; pages already touched keep their backing until the kernel merges them.
#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(v: &mut Vec<T>) {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < HUGE {
        return;
    }
    // SAFETY: `sysconf` reads a constant of the system and has no preconditions.
    let page = match usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }) {
        Ok(page) if page.is_power_of_two() => page,
        _ => return,
    };
    let start = v.as_mut_ptr() as usize;
    // The whole pages inside the allocation: the advice never reaches a neighbour's memory.
    let lo = start.next_multiple_of(page);
    let hi = (start + bytes) & !(page - 1);
    if hi > lo {
        // SAFETY: `lo..hi` lies inside the allocation `v` owns (`bytes` is its capacity in
        // bytes), on page boundaries. `MADV_HUGEPAGE` changes neither the contents nor the
        // protection of those pages, only how the kernel backs them. Its failure (a kernel
        // without transparent huge pages) leaves them as they were, so the result is ignored.
        unsafe {
            libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
        }
    }
}

/// Huge pages are asked for on Linux only.
#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_: &mut Vec<T>) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_allocations_succeed() {
        assert_eq!(filled(3, 7u8, "x").unwrap(), vec![7, 7, 7]);
        assert!(with_capacity::<u8>(5, "x").unwrap().capacity() >= 5);
    }

    #[test]
    fn huge_allocations_hold_their_values() {
        // Advised (on Linux) before being written: the values are the ones asked for.
        let n = HUGE / 8 + 1000;
        let v = filled(n, 3u64, "x").unwrap();
        assert_eq!(v.len(), n);
        assert!(v.iter().all(|&x| x == 3));
        let mut w = with_capacity::<u32>(n, "x").unwrap();
        w.extend(0..n as u32);
        reserve(&mut w, n, "x").unwrap();
        w.extend(0..n as u32);
        assert!(w[..n].iter().copied().eq(0..n as u32) && w[n..].iter().copied().eq(0..n as u32));
    }

    #[test]
    fn impossible_allocations_are_errors() {
        let e = filled(usize::MAX, 0u64, "vals").unwrap_err();
        assert!(e.to_string().contains("vals"));
        assert!(with_capacity::<u64>(usize::MAX / 2, "crd").is_err());
    }
}
