//! Chunks of an output filled in parallel and placed in order, in one pass.
//!
//! An output whose chunks (ranges of rows) each append at most a known number of entries, but
//! an unknown number until they run, is filled by workers that take the chunks in order. A
//! chunk whose predecessors have all ended when it is taken knows where its entries start,
//! and writes them in place. Otherwise it writes into its worker's scratch (sized to the
//! chunk's bound, small enough to stay in cache), waits until its predecessor publishes where
//! it ends, publishes its own end at once, and copies its entries into place. The chunks'
//! ends form a chain, as the partial sums of a single-pass scan with decoupled look-back do
//! (Merrill and Garland 2016): each chunk waits only for the one before it, which was taken
//! before it and is running, so the wait is short and never circular.
//!
//! Against one window per thread slid together afterwards, nothing is moved through memory
//! twice: an entry is written once to the output (from a cache-resident scratch), and the
//! workers place their own chunks, so no serial pass follows.

use crate::Error;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// A chunk's end not yet published.
const UNKNOWN: usize = usize::MAX;
/// The end of a chunk that failed (or a predecessor did): its successors stop.
const FAILED: usize = usize::MAX - 1;

/// The largest total of windows [`fill`] takes: ends at or above it would read as markers.
pub(super) const MAX_TOTAL: usize = FAILED - 1;

/// What a chunk's `fill` gives back: how many entries it wrote to the front of its windows,
/// and what `place` needs to finish it once its entries' start is known.
pub(super) type Filled<R> = Result<(usize, R), Error>;

/// Fills chunks `0..windows.len()` of an output of two arrays, `a` and `b` (each of exactly
/// `windows`' total places): `fill(k, a_window, b_window)` writes chunk `k`'s entries to the
/// front of two windows of `windows[k]` places and returns how many, `len`, and `place(r,
/// start)` then finishes the chunk given where its entries start in the output (offsetting
/// its rows' ends). `workers` workers run (on rayon's pool, feature `parallel`), each taking
/// the next chunk in order. Returns the entries written in all: chunk `k`'s are at
/// `start..start + len`, where `start` is the total of the chunks before it, so the first
/// places of `a` and `b` up to the total hold every chunk's first `len` places. With
/// `streaming`, entries copied from scratch bypass the cache ([`stream`]): for an output
/// larger than the caches, which the copies would only fill with lines to write back.
///
/// The first `Err` of a chunk (by chunk, among those that ran) is returned; a `len` past
/// its window is an `Err`. A panic in `fill` or `place` stops the chunks after it from
/// waiting, and is resumed by rayon.
pub(super) fn fill<A, B, R, F, P>(
    windows: &[usize],
    (a, b): (&mut [MaybeUninit<A>], &mut [MaybeUninit<B>]),
    (workers, streaming): (usize, bool),
    fill: F,
    place: P,
) -> Result<usize, Error>
where
    A: Copy + Send,
    B: Copy + Send,
    F: Fn(usize, &mut [MaybeUninit<A>], &mut [MaybeUninit<B>]) -> Filled<R> + Sync,
    P: Fn(R, usize) + Sync,
{
    let total = windows.iter().try_fold(0usize, |t, &n| t.checked_add(n));
    assert!(
        total.is_some_and(|t| t == a.len() && t == b.len() && t <= MAX_TOTAL),
        "chained windows tile the arrays"
    );
    let run = Run {
        windows,
        a: Spare::new(a),
        b: Spare::new(b),
        chain: Chain::new(windows.len()),
        streaming,
        next: AtomicUsize::new(0),
        error: Mutex::new(None),
        fill,
        place,
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..workers.max(1))
            .into_par_iter()
            .for_each(|_| run.worker());
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = workers;
        run.worker();
    }
    if let Some((_, e)) = run.error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(run.chain.end(windows.len()))
}

/// One call of [`fill`]: the chunks, the output, and what the workers share.
struct Run<'a, A, B, F, P> {
    windows: &'a [usize],
    a: Spare<'a, A>,
    b: Spare<'a, B>,
    chain: Chain,
    /// Whether copies from scratch bypass the cache.
    streaming: bool,
    /// The next chunk to take.
    next: AtomicUsize,
    /// The first failing chunk and its error.
    error: Mutex<Option<(usize, Error)>>,
    fill: F,
    place: P,
}

impl<A, B, R, F, P> Run<'_, A, B, F, P>
where
    A: Copy + Send,
    B: Copy + Send,
    F: Fn(usize, &mut [MaybeUninit<A>], &mut [MaybeUninit<B>]) -> Filled<R> + Sync,
    P: Fn(R, usize) + Sync,
{
    /// Takes chunks in order until none is left or one failed, with scratch of its own.
    fn worker(&self) {
        let mut scratch = (Vec::new(), Vec::new());
        while !self.chain.failed() {
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            if k >= self.windows.len() {
                break;
            }
            let link = Link {
                chain: &self.chain,
                k,
            };
            if let Err(e) = self.chunk(k, link, &mut scratch) {
                let mut first = self.error.lock().unwrap_or_else(|p| p.into_inner());
                if first.as_ref().is_none_or(|&(j, _)| k < j) {
                    *first = Some((k, e));
                }
            }
        }
    }

    /// Fills chunk `k` in place if its start is known, else into `scratch` and then copies
    /// it; publishes its end through `link` (dropped unpublished, it marks the chunk failed).
    fn chunk(
        &self,
        k: usize,
        link: Link<'_>,
        scratch: &mut (Vec<MaybeUninit<A>>, Vec<MaybeUninit<B>>),
    ) -> Result<(), Error> {
        let n = self.windows[k];
        if let Some(start) = self.chain.start(k) {
            // SAFETY: every chunk before `k` has published its end, so its entries end at
            // `start` and it writes only below; the chunks after `k` write only at or past
            // `k`'s end (within `start..start + n`), once `k` publishes it, after this
            // window's last use. `start + n` is within the places: the chunks before `k`
            // wrote at most their windows.
            let (a, b) = unsafe {
                (
                    self.a.range(start..start + n),
                    self.b.range(start..start + n),
                )
            };
            let (len, r) = (self.fill)(k, a, b)?;
            check(len, n)?;
            link.publish(start + len);
            (self.place)(r, start);
            return Ok(());
        }
        grow(&mut scratch.0, n)?;
        grow(&mut scratch.1, n)?;
        let (len, r) = (self.fill)(k, &mut scratch.0[..n], &mut scratch.1[..n])?;
        check(len, n)?;
        let Some(start) = self.chain.wait(k) else {
            // A predecessor failed; its error is the one returned.
            return Ok(());
        };
        link.publish(start + len);
        // SAFETY: `start..start + len` is chunk `k`'s alone: the chunks before it end at
        // `start`, and those after start at or past `start + len` (the end just published);
        // within the first `n` places past `start`, as every chunk's entries are at most
        // its window.
        let (a, b) = unsafe {
            (
                self.a.range(start..start + len),
                self.b.range(start..start + len),
            )
        };
        match self.streaming {
            true => {
                stream(a, &scratch.0[..len]);
                stream(b, &scratch.1[..len]);
            }
            false => {
                a.copy_from_slice(&scratch.0[..len]);
                b.copy_from_slice(&scratch.1[..len]);
            }
        }
        (self.place)(r, start);
        Ok(())
    }
}

/// `Err` if a chunk reports more entries than its window holds.
fn check(len: usize, window: usize) -> Result<(), Error> {
    match len <= window {
        true => Ok(()),
        false => Err(Error::invalid_level(
            0,
            "parallel assembly: a chunk wrote past its window (internal error: please report it)"
                .into(),
        )),
    }
}

/// Makes `v` at least `n` long (its places uninitialized).
fn grow<T>(v: &mut Vec<MaybeUninit<T>>, n: usize) -> Result<(), Error> {
    if v.len() < n {
        crate::alloc::reserve(v, n - v.len(), "a chunk's scratch")?;
        v.resize_with(n, MaybeUninit::uninit);
    }
    Ok(())
}

/// The chunks' ends, published in order: chunk `k`'s entries start at chunk `k - 1`'s end.
struct Chain {
    ends: Vec<AtomicUsize>,
    failed: AtomicBool,
}

impl Chain {
    fn new(chunks: usize) -> Self {
        Self {
            ends: (0..chunks).map(|_| AtomicUsize::new(UNKNOWN)).collect(),
            failed: AtomicBool::new(false),
        }
    }

    /// Whether a chunk failed.
    fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// Where chunk `k`'s entries start, if its predecessor has published its end.
    fn start(&self, k: usize) -> Option<usize> {
        match k.checked_sub(1) {
            None => Some(0),
            Some(j) => match self.ends[j].load(Ordering::Acquire) {
                UNKNOWN | FAILED => None,
                end => Some(end),
            },
        }
    }

    /// Where chunk `k`'s entries start, once its predecessor publishes its end; `None` if it
    /// failed. The predecessor was taken before `k` by a running worker that waits only on
    /// its own predecessor, so the wait ends.
    fn wait(&self, k: usize) -> Option<usize> {
        let Some(j) = k.checked_sub(1) else {
            return Some(0);
        };
        let mut spins = 0u32;
        loop {
            match self.ends[j].load(Ordering::Acquire) {
                FAILED => return None,
                UNKNOWN if spins < 256 => {
                    spins += 1;
                    std::hint::spin_loop();
                }
                UNKNOWN => std::thread::yield_now(),
                end => return Some(end),
            }
        }
    }

    /// The end of the last of the first `chunks` chunks, all published (0 for none).
    fn end(&self, chunks: usize) -> usize {
        chunks
            .checked_sub(1)
            .map_or(0, |j| self.ends[j].load(Ordering::Acquire))
    }
}

/// A chunk's place in the chain: publishes its end, or on drop unpublished (an `Err` or a
/// panic), marks the chunk failed so that its successors stop waiting.
struct Link<'a> {
    chain: &'a Chain,
    k: usize,
}

impl Link<'_> {
    /// Publishes that chunk `k`'s entries end at `end`: every write it made to the output
    /// before this happens before its successor reads `end`.
    fn publish(self, end: usize) {
        debug_assert!(end <= MAX_TOTAL);
        self.chain.ends[self.k].store(end, Ordering::Release);
        std::mem::forget(self);
    }
}

impl Drop for Link<'_> {
    fn drop(&mut self) {
        self.chain.failed.store(true, Ordering::Relaxed);
        self.chain.ends[self.k].store(FAILED, Ordering::Release);
    }
}

/// Uninitialized places that workers write in disjoint ranges, chosen as they run.
struct Spare<'a, T> {
    ptr: *mut MaybeUninit<T>,
    len: usize,
    _places: PhantomData<&'a mut [MaybeUninit<T>]>,
}

// SAFETY: a `Spare` hands out places only through `range`, whose callers keep the ranges
// of different threads disjoint; sending or sharing it sends `T`s between threads.
unsafe impl<T: Send> Sync for Spare<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for Spare<'_, T> {}

impl<'a, T> Spare<'a, T> {
    fn new(places: &'a mut [MaybeUninit<T>]) -> Self {
        Self {
            ptr: places.as_mut_ptr(),
            len: places.len(),
            _places: PhantomData,
        }
    }

    /// The places `r`; panics if they are not within the places.
    ///
    /// # Safety
    ///
    /// While the returned slice is used, no other slice `range` returned that overlaps it
    /// is used.
    #[allow(clippy::mut_from_ref)]
    unsafe fn range(&self, r: Range<usize>) -> &mut [MaybeUninit<T>] {
        assert!(
            r.start <= r.end && r.end <= self.len,
            "a range of the spare places"
        );
        // SAFETY: `r` is within the `len` places at `ptr`, borrowed mutably for `'a`; the
        // caller keeps slices in use disjoint.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.end - r.start) }
    }
}

/// Copies `src` into `dst` (of the same length) with stores that bypass the cache where the
/// target has them (x86-64's `movntdq`): the output is written once and read only after
/// the assembly, so fetching its lines into the cache first (as ordinary stores do) would
/// double the memory traffic of the copy.
fn stream<T: Copy>(dst: &mut [MaybeUninit<T>], src: &[MaybeUninit<T>]) {
    assert_eq!(dst.len(), src.len(), "a copy between slices of one length");
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        let bytes = std::mem::size_of_val(dst);
        let (d, s) = (dst.as_mut_ptr().cast::<u8>(), src.as_ptr().cast::<u8>());
        // The bytes before `d`'s first 16-byte boundary, and the whole blocks after it.
        let head = d.align_offset(16).min(bytes);
        let blocks = (bytes - head) / 16;
        // SAFETY: `d` and `s` point to `bytes` bytes each, of distinct slices (one borrowed
        // mutably, one shared); every access below is within them: `head` bytes, then
        // `blocks` 16-byte blocks (stores to 16-byte aligned addresses, as `movntdq` needs;
        // loads unaligned), then the rest. Copying bytes of `MaybeUninit<T>` for `T: Copy`
        // copies the values. `_mm_sfence` orders the streaming stores before any later
        // store (the caller's synchronization publishes them), and SSE2 is part of x86-64.
        unsafe {
            std::ptr::copy_nonoverlapping(s, d, head);
            for i in 0..blocks {
                let at = head + 16 * i;
                let v = _mm_loadu_si128(s.add(at).cast::<__m128i>());
                _mm_stream_si128(d.add(at).cast::<__m128i>(), v);
            }
            let done = head + 16 * blocks;
            std::ptr::copy_nonoverlapping(s.add(done), d.add(done), bytes - done);
            _mm_sfence();
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Touches each 4 KiB page of fresh `places` once, in `workers` contiguous parts in parallel
/// (feature `parallel`), so that the kernel maps and zeroes them before the chunks are
/// copied in. The chunks' copies alternate between workers over neighbouring places, and
/// left to fault there, the pages' first touches were serialized: a fresh output's two
/// threads took 1.2-1.4x their one thread's time, against 1.5x with the pages faulted first.
pub(super) fn prefault<T: Send>(places: &mut [MaybeUninit<T>], workers: usize) {
    let step = (4096 / std::mem::size_of::<T>().max(1)).max(1);
    let touch = |part: &mut [MaybeUninit<T>]| {
        for slot in part.iter_mut().step_by(step) {
            *slot = MaybeUninit::zeroed();
        }
    };
    let part = places.len().div_ceil(workers.max(1)).max(1);
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        places.par_chunks_mut(part).for_each(touch);
    }
    #[cfg(not(feature = "parallel"))]
    places.chunks_mut(part).for_each(touch);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunk `k` of the test output: `k % 4` entries `(k, i)` and `10k + i` (chunk 1 a full
    /// window of 1, every fourth chunk empty), in windows of `k % 4 + k % 3`.
    fn window(k: usize) -> usize {
        k % 4 + k % 3
    }

    /// Fills `chunks` test chunks on `workers` workers (in a pool of as many threads, with
    /// feature `parallel`), failing chunk `fail` if any; the entries and each chunk's start.
    fn run(chunks: usize, workers: usize, fail: Option<usize>) -> Result<Vec<(u64, f64)>, Error> {
        let windows: Vec<usize> = (0..chunks).map(window).collect();
        let total: usize = windows.iter().sum();
        let mut a = vec![MaybeUninit::<u64>::uninit(); total];
        let mut b = vec![MaybeUninit::<f64>::uninit(); total];
        let starts: Vec<Mutex<Option<usize>>> = (0..chunks).map(|_| Mutex::new(None)).collect();
        let fill_chunk = |k: usize, a: &mut [MaybeUninit<u64>], b: &mut [MaybeUninit<f64>]| {
            if Some(k) == fail {
                return Err(Error::invalid_level(0, format!("chunk {k}")));
            }
            for i in 0..k % 4 {
                a[i].write((k * 100 + i) as u64);
                b[i].write((10 * k + i) as f64);
            }
            Ok((k % 4, k))
        };
        let place = |k: usize, start: usize| *starts[k].lock().unwrap() = Some(start);
        // Both kinds of copy: streamed for an even number of chunks.
        let streaming = chunks % 2 == 0;
        let go = || {
            fill(
                &windows,
                (&mut a, &mut b),
                (workers, streaming),
                fill_chunk,
                place,
            )
        };
        #[cfg(feature = "parallel")]
        let at = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap()
            .install(go)?;
        #[cfg(not(feature = "parallel"))]
        let at = {
            let mut go = go;
            go()?
        };
        let mut start = 0;
        for (k, s) in starts.iter().enumerate() {
            assert_eq!(*s.lock().unwrap(), Some(start), "chunk {k} placed");
            start += k % 4;
        }
        assert_eq!(at, start);
        // SAFETY: `fill` wrote the first `at` places (each chunk's entries, in order).
        Ok((0..at)
            .map(|p| unsafe { (a[p].assume_init(), b[p].assume_init()) })
            .collect())
    }

    #[test]
    fn chunks_are_placed_in_order_on_any_number_of_workers() {
        for chunks in [0, 1, 2, 7, 200] {
            let want: Vec<(u64, f64)> = (0..chunks)
                .flat_map(|k| (0..k % 4).map(move |i| ((k * 100 + i) as u64, (10 * k + i) as f64)))
                .collect();
            for workers in [1, 2, 3, 8] {
                assert_eq!(
                    run(chunks, workers, None).unwrap(),
                    want,
                    "{chunks} {workers}"
                );
            }
        }
    }

    #[test]
    fn a_failing_chunk_fails_the_fill_and_no_worker_waits_forever() {
        for workers in [1, 2, 3] {
            for fail in [0, 1, 5, 199] {
                let r = run(200, workers, Some(fail));
                let Err(Error::InvalidLevel { detail, .. }) = r else {
                    panic!("{workers} {fail}: {r:?}");
                };
                // Every chunk before the first failing one ran: its error is the one
                // returned.
                assert_eq!(detail, format!("chunk {fail}"), "{workers}");
            }
        }
    }

    #[test]
    fn a_chunk_past_its_window_is_an_error() {
        let windows = [2, 2, 2];
        let (mut a, mut b) = (
            [MaybeUninit::<u8>::uninit(); 6],
            [MaybeUninit::<u8>::uninit(); 6],
        );
        let r = fill(
            &windows,
            (&mut a, &mut b),
            (2, false),
            |k, _, _| Ok((if k == 1 { 3 } else { 0 }, ())),
            |_, _| {},
        );
        assert!(r.is_err());
    }

    #[test]
    #[cfg(feature = "parallel")]
    fn a_panicking_chunk_stops_its_successors_waiting() {
        let windows = vec![1; 100];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (mut a, mut b) = (
                vec![MaybeUninit::<u8>::uninit(); 100],
                vec![MaybeUninit::<u8>::uninit(); 100],
            );
            pool.install(|| {
                fill(
                    &windows,
                    (&mut a, &mut b),
                    (2, true),
                    |k, _, _| match k {
                        40 => panic!("chunk 40"),
                        _ => Ok((0, ())),
                    },
                    |_, _| {},
                )
            })
        }));
        assert!(r.is_err());
    }

    #[test]
    fn streaming_copies_every_alignment_and_length() {
        let src: Vec<MaybeUninit<u32>> = (0..300).map(MaybeUninit::new).collect();
        for offset in 0..5 {
            for len in [0, 1, 3, 4, 5, 17, 64, 255] {
                let mut dst = vec![MaybeUninit::new(u32::MAX); 300];
                stream(&mut dst[offset..offset + len], &src[7..7 + len]);
                // SAFETY: every place was initialized (`new`), and the copy wrote values.
                let got: Vec<u32> = dst.iter().map(|x| unsafe { x.assume_init() }).collect();
                for (p, &x) in got.iter().enumerate() {
                    let want = match (offset..offset + len).contains(&p) {
                        true => (p - offset + 7) as u32,
                        false => u32::MAX,
                    };
                    assert_eq!(x, want, "{offset} {len} {p}");
                }
            }
        }
    }

    #[test]
    fn prefaulting_touches_any_slice() {
        for n in [0, 1, 5000, 100_000] {
            let mut v = vec![MaybeUninit::<u64>::uninit(); n];
            for workers in [1, 2, 3] {
                prefault(&mut v, workers);
            }
        }
        prefault(&mut [MaybeUninit::<()>::uninit(); 3], 2);
    }
}
