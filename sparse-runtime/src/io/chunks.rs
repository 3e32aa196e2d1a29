//! A file's body split into line-aligned chunks and parsed on every core.
//!
//! Reading a 10-million-entry file is dominated by three costs: scanning its bytes, the
//! page faults of fresh memory (the file's own copy, then the entry arrays), and parsing
//! numbers. So a large file is never copied whole: each thread reads one chunk at a time
//! into a buffer it reuses (`pread`), and the chunks are parsed in parallel straight
//! into their places in the final arrays.
//!
//! Two passes over the bytes:
//!
//! 1. **Split.** The body is cut into nominal chunks of [`CHUNK`] bytes; for each, the
//!    number of newlines and the position of its last one are counted (a vectorized byte
//!    count). A line belongs to the chunk that holds its newline, so chunk `c` parses the
//!    bytes from just after the last newline before it to its own last newline, and
//!    knows the number of its first line exactly (the body's first line plus the
//!    newlines of the chunks before it). Its newline count bounds the entries it can
//!    produce, which places its slots in the output before anything is parsed.
//! 2. **Parse.** Every chunk is parsed into its slots, in parallel.
//!
//! The caller compacts the slots (blank and comment lines, and the diagonal of a
//! symmetric file, leave some unused), so the entries come out in file order: the
//! result is the same as a parse from start to end, which remains the path for small
//! inputs and the one that words an error.

use super::parse::Lines;
use super::{io_error, Entries, Slots};
use crate::{Error, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The nominal chunk size: big enough that a chunk's thread spends its time parsing,
/// small enough that two threads share the work evenly and the buffer stays in cache.
pub(crate) const CHUNK: usize = 1 << 21;

/// Bodies shorter than this many chunks are parsed in one piece.
pub(crate) const MIN_CHUNKS: usize = 4;

/// Where a body's bytes come from.
#[derive(Clone, Copy)]
pub(crate) enum Bytes<'a> {
    /// Already in memory (a reader's contents).
    Memory(&'a [u8]),
    /// A file, read by position into a buffer per thread.
    #[cfg_attr(not(any(unix, windows)), allow(dead_code))]
    File(&'a std::fs::File),
}

impl<'a> Bytes<'a> {
    /// The bytes `start..end`, borrowed from memory or read into `buf`.
    pub(crate) fn read<'b>(
        self,
        start: usize,
        end: usize,
        buf: &'b mut Vec<u8>,
    ) -> std::io::Result<&'b [u8]>
    where
        'a: 'b,
    {
        match self {
            Bytes::Memory(bytes) => Ok(&bytes[start..end]),
            Bytes::File(file) => {
                // Grown, never cleared: zeroing a buffer about to be overwritten would
                // cost a pass over it.
                if buf.len() < end - start {
                    buf.resize(end - start, 0);
                }
                let buf = &mut buf[..end - start];
                read_at(file, buf, start as u64)?;
                Ok(buf)
            }
        }
    }
}

/// Fills `buf` from `file` at `offset`, without moving the file's cursor (so that
/// threads can share it).
#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Fills `buf` from `file` at `offset` (`seek_read` moves the cursor, which no reader
/// here relies on).
#[cfg(windows)]
fn read_at(file: &std::fs::File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Elsewhere there is no positional read: callers pass files as [`Bytes::Memory`].
#[cfg(not(any(unix, windows)))]
fn read_at(_: &std::fs::File, _: &mut [u8], _: u64) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Whether positional reads exist on this platform.
pub(crate) const POSITIONAL: bool = cfg!(any(unix, windows));

/// A line-aligned piece of a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// Its first byte (a line's first byte).
    pub(crate) start: usize,
    /// One past its last byte (just past a newline, or the end of the body).
    pub(crate) end: usize,
    /// The number of its first line in the file (1-based).
    pub(crate) first_line: usize,
    /// How many lines it holds, at most.
    pub(crate) lines: usize,
}

/// The number of newlines in `bytes`, counted in blocks that the compiler vectorizes.
fn count_newlines(bytes: &[u8]) -> usize {
    let mut blocks = bytes.chunks_exact(64);
    let mut n = 0;
    for block in &mut blocks {
        // At most 64 per block, so a u8 per lane cannot overflow.
        n += block.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>() as usize;
    }
    n + blocks.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// The threads to parse with: the machine's parallelism, at most one per chunk.
pub(crate) fn threads(chunks: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(chunks)
        .max(1)
}

/// Splits the body `start..end` of `bytes`, whose first line is line `first_line`,
/// into line-aligned chunks of about `size` bytes (pass 1); chunks without a line are
/// left out.
pub(crate) fn split(
    bytes: Bytes<'_>,
    (start, end, first_line): (usize, usize, usize),
    size: usize,
) -> std::io::Result<Vec<Chunk>> {
    let nominal = (end - start).div_ceil(size);
    let bounds = |c: usize| (start + c * size, (start + (c + 1) * size).min(end));
    // Per nominal chunk: its newline count and the position of its last newline.
    let counts = parallel_map(nominal, threads(nominal), |c, buf| {
        let (a, b) = bounds(c);
        let text = bytes.read(a, b, buf)?;
        let last = text.iter().rposition(|&x| x == b'\n').map(|p| a + p);
        Ok::<_, std::io::Error>((count_newlines(text), last))
    })?;
    let mut chunks = Vec::with_capacity(nominal);
    let (mut line, mut from) = (first_line, start);
    for (c, &(newlines, last)) in counts.iter().enumerate() {
        let to = match last {
            _ if c + 1 == nominal => end,
            Some(p) => p + 1,
            None => continue,
        };
        if to > from {
            // The final chunk may end in a line without a newline.
            let lines = newlines + usize::from(c + 1 == nominal);
            chunks.push(Chunk {
                start: from,
                end: to,
                first_line: line,
                lines,
            });
        }
        line += newlines;
        from = to;
    }
    Ok(chunks)
}

/// `f(k, buf)` for every `k` in `0..n` on `threads` threads, each with a buffer of its
/// own; the results in order of `k`, or the error of the first `k` that failed (the
/// others stop early).
pub(crate) fn parallel_map<R: Send, E: Send>(
    n: usize,
    threads: usize,
    f: impl Fn(usize, &mut Vec<u8>) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<(usize, Result<R, E>)>> = Mutex::new(Vec::with_capacity(n));
    let work = || {
        let mut buf = Vec::new();
        // Checked before taking a `k`, so that every `k` taken runs: all those below a
        // failed one have run, and the first error is the first in order.
        while !failed.load(Ordering::Relaxed) {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= n {
                return;
            }
            let r = f(k, &mut buf);
            failed.fetch_or(r.is_err(), Ordering::Relaxed);
            // A poisoned lock means another worker panicked; its panic resurfaces
            // when the scope joins, so this result may as well be stored.
            results
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((k, r));
        }
    };
    if threads <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(work);
            }
            work();
        });
    }
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_unstable_by_key(|(k, _)| *k);
    // After a failure some `k` were never run; the first error is reported.
    let mut out = Vec::with_capacity(n);
    for (_, r) in results {
        out.push(r?);
    }
    Ok(out)
}

/// A file large enough to be read in chunks ([`MIN_CHUNKS`] of them): open, with its
/// length and its first lines (the whole lines of its first [`CHUNK`] bytes), where a
/// reader finds its header. `None` if the file is smaller, or positional reads do not
/// exist here: the caller reads it whole.
pub(crate) fn open_large(
    path: &std::path::Path,
    name: &str,
) -> Result<Option<(std::fs::File, usize, Vec<u8>)>, Error> {
    if !POSITIONAL {
        return Ok(None);
    }
    let io = |e: std::io::Error| io_error(name, &e);
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    match usize::try_from(len) {
        Ok(len) if len >= MIN_CHUNKS * CHUNK => {
            let mut head = Vec::new();
            Bytes::File(&file).read(0, CHUNK, &mut head).map_err(io)?;
            // Whole lines only, so that a header line is never read cut short.
            let whole = head.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            head.truncate(whole);
            Ok(Some((file, len, head)))
        }
        _ => Ok(None),
    }
}

/// What [`parse`] gives: the entries, and what each chunk's parse found.
pub(crate) type Parsed<V, R> = (Entries<V>, Vec<R>);

/// Parses the body `body` (first byte, end, first line) of `bytes` in chunks of about
/// `size` bytes, on every core: `parse` reads a chunk's lines into its slots (room for
/// `per_line` entries of `shape.len()` coordinates per line) and says what it found.
/// The entries, in file order, with each chunk's finding; `None` if `parse` failed on
/// any chunk (the caller then reads in order, to word the error); an I/O error as
/// itself.
pub(crate) fn parse<V: Value, R: Send>(
    bytes: Bytes<'_>,
    body: (usize, usize, usize),
    shape: &[usize],
    per_line: usize,
    size: usize,
    name: &str,
    parse: impl Fn(&mut Lines<'_>, &mut Slots<'_, V>) -> Result<R, Error> + Sync,
) -> Result<Option<Parsed<V, R>>, Error> {
    let io = |e: std::io::Error| io_error(name, &e);
    let chunks = split(bytes, body, size).map_err(io)?;
    let order = shape.len();
    // Chunk `k`'s slots start at `offsets[k]`; the bounds are at most two per byte, so
    // their sum cannot overflow.
    let mut offsets = Vec::with_capacity(chunks.len() + 1);
    offsets.push(0usize);
    for c in &chunks {
        offsets.push(offsets[offsets.len() - 1] + c.lines * per_line);
    }
    let total = offsets[chunks.len()];
    // Comment lines count toward the bound, so with a large order (a shape given) the
    // product can exceed a 32-bit usize: then the file is read in order.
    // The same where the bound (comment lines included) cannot be allocated: the read in
    // order grows its lists as entries come.
    let room = total.checked_mul(order).and_then(|len| {
        let coords = crate::alloc::filled(len, 0usize, "the coordinates").ok()?;
        Some((
            coords,
            crate::alloc::filled(total, V::zero(), "the values").ok()?,
        ))
    });
    let Some((mut coords, mut vals)) = room else {
        return Ok(None);
    };
    let mut slots = Vec::with_capacity(chunks.len());
    let (mut rest_c, mut rest_v) = (&mut coords[..], &mut vals[..]);
    for k in 0..chunks.len() {
        let n = offsets[k + 1] - offsets[k];
        let (c, cs) = std::mem::take(&mut rest_c).split_at_mut(n * order);
        let (v, vs) = std::mem::take(&mut rest_v).split_at_mut(n);
        slots.push(Mutex::new(Slots::new(c, v)));
        (rest_c, rest_v) = (cs, vs);
    }
    let parsed = parallel_map(chunks.len(), threads(chunks.len()), |k, buf| {
        let c = chunks[k];
        let text = bytes.read(c.start, c.end, buf).map_err(|e| Some(io(e)))?;
        let mut lines = Lines::new(name, text, c.first_line);
        let mut slots = slots[k].lock().map_err(|_| None)?;
        let found = parse(&mut lines, &mut slots).map_err(|_| None)?;
        Ok((found, slots.len()))
    });
    drop(slots);
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(Some(error)) => return Err(error),
        Err(None) => return Ok(None),
    };
    // Close the gaps left by blank and comment lines and by lines of fewer entries.
    let mut at = 0;
    let mut found = Vec::with_capacity(parsed.len());
    for (k, (r, put)) in parsed.into_iter().enumerate() {
        let from = offsets[k];
        if from != at {
            coords.copy_within(order * from..order * (from + put), order * at);
            vals.copy_within(from..from + put, at);
        }
        at += put;
        found.push(r);
    }
    coords.truncate(order * at);
    vals.truncate(at);
    let entries = Entries {
        shape: shape.to_vec(),
        coords,
        vals,
    };
    Ok(Some((entries, found)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `text` by the chunks' account: (first line, text) per line.
    fn lines_of(text: &[u8], chunks: &[Chunk]) -> Vec<(usize, Vec<u8>)> {
        let mut out = Vec::new();
        for c in chunks {
            let body = &text[c.start..c.end];
            let mut n = 0;
            for (k, line) in body.split_inclusive(|&b| b == b'\n').enumerate() {
                out.push((c.first_line + k, line.to_vec()));
                n += 1;
            }
            assert!(n <= c.lines, "{c:?} holds {n} lines");
        }
        out
    }

    #[test]
    fn chunks_cover_the_body_line_by_line() {
        // Lines longer than a chunk, an empty line, and no final newline.
        let mut text = b"head\n".to_vec();
        let mut want = Vec::new();
        for k in 0..40_000usize {
            let len = match k {
                1 | 4 => CHUNK + 5,
                2 | 3 => CHUNK / 3,
                _ => [3, 17, 0, 40][k % 4],
            };
            let mut line = vec![b'x'; len];
            line.push(b'\n');
            want.push((k + 2, line.clone()));
            text.extend(line);
        }
        text.extend(b"tail");
        want.push((40_002, b"tail".to_vec()));
        let chunks = split(Bytes::Memory(&text), (5, text.len(), 2), CHUNK).unwrap();
        assert!(chunks.len() > 2);
        assert_eq!(lines_of(&text, &chunks), want);
        for w in chunks.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
    }

    #[test]
    fn an_empty_body_has_no_chunk() {
        assert!(split(Bytes::Memory(b"x\n"), (2, 2, 2), CHUNK)
            .unwrap()
            .is_empty());
        let one = split(Bytes::Memory(b"x\ny"), (2, 3, 2), CHUNK).unwrap();
        assert_eq!(
            one,
            vec![Chunk {
                start: 2,
                end: 3,
                first_line: 2,
                lines: 1
            }]
        );
    }

    #[test]
    fn newlines_are_counted_in_every_block() {
        let text: Vec<u8> = (0..1000)
            .map(|k| if k % 7 == 0 { b'\n' } else { b'a' })
            .collect();
        assert_eq!(
            count_newlines(&text),
            (0..1000).filter(|k| k % 7 == 0).count()
        );
        assert_eq!(count_newlines(&[b'\n'; 64]), 64);
    }

    #[test]
    fn parallel_map_keeps_order_and_reports_the_first_error() {
        let squares = parallel_map(100, 2, |k, _| Ok::<_, ()>(k * k)).unwrap();
        assert_eq!(squares, (0..100).map(|k| k * k).collect::<Vec<_>>());
        let err = parallel_map(100, 1, |k, _| if k >= 10 { Err(k) } else { Ok(k) });
        assert_eq!(err, Err(10));
    }
}
