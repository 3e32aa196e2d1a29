//! A counting global allocator: bytes live and peak per thread (so one input's peak can be
//! measured on the thread that runs it) and bytes live in the whole process, with a cap past
//! which allocation fails (the process then aborts with "memory allocation of N bytes failed",
//! which the parent records as a memory failure) so that a runaway input cannot take the
//! machine down.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The allocator; installed as the global allocator of every binary that links this crate.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

thread_local! {
    // Signed: memory freed on another thread than the one that allocated it.
    static THREAD_LIVE: Cell<isize> = const { Cell::new(0) };
    static THREAD_PEAK: Cell<isize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    let _ = THREAD_LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = THREAD_PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
    });
}

/// Reserves `size` bytes against the cap; false if that would exceed it.
fn reserve(size: usize) -> bool {
    let before = LIVE.fetch_add(size, Ordering::Relaxed);
    if before.saturating_add(size) > CAP.load(Ordering::Relaxed) {
        LIVE.fetch_sub(size, Ordering::Relaxed);
        return false;
    }
    true
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// bookkeeping around it only touches atomics and allocation-free thread-locals.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded from the caller, who upholds `GlobalAlloc::alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        } else {
            track(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: as in `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        } else {
            track(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every path above forwards).
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        track(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !reserve(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: as in `dealloc`; `new_size` is the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            if new_size > old {
                LIVE.fetch_sub(new_size - old, Ordering::Relaxed);
            }
            return p;
        }
        if new_size < old {
            LIVE.fetch_sub(old - new_size, Ordering::Relaxed);
        }
        track(new_size as isize - old as isize);
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Makes allocations fail once the process would hold more than `bytes`.
pub fn set_cap(bytes: usize) {
    CAP.store(bytes, Ordering::Relaxed);
}

/// Bytes live in the process.
pub fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Starts a measurement on this thread: the peak restarts from the current level.
pub fn start() -> isize {
    let now = THREAD_LIVE.with(Cell::get);
    THREAD_PEAK.with(|p| p.set(now));
    now
}

/// Bytes this thread held at its peak since [`start`] returned `base`, beyond `base`.
pub fn peak_since(base: isize) -> usize {
    (THREAD_PEAK.with(Cell::get) - base).max(0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_counts_this_threads_allocations() {
        let base = start();
        let v: Vec<u8> = Vec::with_capacity(3 << 20);
        drop(v);
        let w: Vec<u8> = Vec::with_capacity(1 << 20);
        assert!(peak_since(base) >= 3 << 20);
        assert!(peak_since(base) < 4 << 20);
        drop(w);
    }
}
