//! Workspace accumulators (Kjolstad et al., "Tensor algebra compilation with
//! workspaces", CGO 2019; Gustavson's row-wise SpGEMM): scratch structures in
//! which a kernel scatters one row (or fibre) of a sparse output before it
//! appends the row, in coordinate order, to the output's levels.
//!
//! A kernel computing row `i` of `C = A * B` adds `A[i, k] * B[k, j]` into an
//! accumulator at key `j` for every `k`, so one output coordinate is hit many
//! times in no particular order. Appending to a compressed level needs each
//! coordinate once and in increasing order, so the kernel calls `sort()`,
//! reads the entries back with `key(t)` / `value(t)`, and calls `clear()`
//! before the next row. Both accumulators are allocated once per kernel call
//! and reused for every row, so the per-row cost is proportional to the
//! number of keys the row touches, not to the row's dimension.
//!
//! - [`DenseAccumulator`] keeps a value and a mark per possible key (the dense
//!   workspace of the paper): the cheapest `add`, at `O(size)` memory.
//! - [`HashAccumulator`] keeps only the touched keys in an open-addressing
//!   table: for dimensions too large, or rows too sparse, to pay for a dense
//!   array.
//!
//! Keys are linearized output coordinates, always below the `size` given to
//! `new`.

use crate::alloc::{filled, with_capacity};
use crate::{Error, Value};

/// When more than `size / SCAN_DIVISOR` keys are touched, [`DenseAccumulator::sort`]
/// rebuilds the touched list by scanning the marks in key order instead of
/// sorting it.
///
/// Sorting `len` keys costs about `len * log2(len)` comparisons scattered over
/// the list; the scan reads `size` marks sequentially, eight at a time, and
/// skips all-zero words, so sparse stretches cost little. Measured on random
/// keys (x86-64, release; sort / scan, microseconds):
///
/// | size | len = size/8 | size/16 | size/32 | size/64 |
/// |---|---|---|---|---|
/// | 4,096 | 2.1 / 1.0 | 0.9 / 0.6 | 0.4 / 0.4 | 0.2 / 0.3 |
/// | 65,536 | 46 / 15 | 22 / 10 | 9.6 / 6.5 | 4.4 / 4.3 |
/// | 1,048,576 | 1232 / 507 | 552 / 304 | 227 / 153 | 101 / 80 |
///
/// The scan wins from about `size / 32` upwards at every size measured (more
/// so for clustered keys, whose zero words it skips), and it is a tie below
/// that, so 32 is the divisor. The choice only affects speed: both paths give
/// the same list.
const SCAN_DIVISOR: usize = 32;

/// When more than `size / FILL_DIVISOR` keys are touched,
/// [`DenseAccumulator::clear`] resets all marks with one `fill` (a `memset`)
/// instead of one scattered store per touched key.
///
/// `memset` writes tens of bytes per cycle, a scattered store about one mark
/// per cycle at best, so the fill wins once the row touches more than about
/// one key in 64 (measured: equal at `size / 64` for 64K and 1M keys). The
/// clear stays `O(len)`, since the fill runs only when `size < 64 * len`.
const FILL_DIVISOR: usize = 64;

/// A dense workspace: a value and a touched mark for every key below `size`,
/// and the list of touched keys.
///
/// The kernel's inner loop is [`add_unchecked`](Self::add_unchecked): one mark
/// test, then either a `+=` or (first touch) a store of the value and a push
/// of the key. Values are never zeroed: the first touch of a key after
/// [`clear`](Self::clear) overwrites whatever the previous row left there, so
/// clearing costs only the touched marks.
///
/// The touched list is a full-length buffer of `size` keys with a separate
/// length rather than a `Vec` whose spare capacity is relied on: a
/// `#[derive(Clone)]` copy of a `Vec` does not keep its capacity, but it does
/// keep its length, so the unchecked push stays in bounds in clones too.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct DenseAccumulator<V> {
    /// The accumulated value of every touched key; stale for untouched keys.
    vals: Vec<V>,
    /// `1` if the key was touched since the last `clear`, else `0`. Bytes
    /// rather than `bool`s so that `sort` can test eight marks with one load.
    marks: Vec<u8>,
    /// `touched[..len]` are the touched keys: in first-touch order after
    /// adds, in increasing order after `sort`. Its length is `size`, so that
    /// every key can be pushed without a capacity check.
    touched: Vec<usize>,
    /// The number of touched keys; at most `size`, since a key is pushed
    /// only when its mark goes from 0 to 1.
    len: usize,
    /// What [`zero_unchecked`](Self::zero_unchecked) writes: a zero that leaves every value
    /// added to it unchanged, bit for bit ([`identity_zero`]).
    start: V,
}

/// The zero of `V` that leaves every value added to it unchanged, bit for bit: `-0.0` for the
/// IEEE floats (`+0.0 + -0.0` is `+0.0`, while `-0.0 + x` is `x` for every `x`), the zero of
/// integers; read from the text `-0` so that it needs only [`num_traits::Num`], and `zero()`
/// for a type that does not parse it. A key that starts from it holds the same sum as a key
/// set by its first addend, as [`DenseAccumulator::add_unchecked`] does.
fn identity_zero<V: Value>() -> V {
    V::from_str_radix("-0", 10).unwrap_or_else(|_| V::zero())
}

impl<V: Value> DenseAccumulator<V> {
    /// An accumulator for keys `0..size`, with nothing touched.
    ///
    /// Allocates its three arrays of `size` elements here, once, so that no
    /// add ever allocates. `Err` ([`Error::NotRepresentable`]) if they cannot
    /// be allocated: the size comes from a tensor dimension, and a huge one
    /// must not abort the process.
    pub fn new(size: usize) -> Result<Self, Error> {
        Ok(DenseAccumulator {
            vals: filled(size, V::zero(), "the values of a dense accumulator")?,
            marks: filled(size, 0u8, "the marks of a dense accumulator")?,
            touched: filled(size, 0usize, "the touched keys of a dense accumulator")?,
            len: 0,
            start: identity_zero(),
        })
    }

    /// The number of possible keys (keys are `0..size`).
    #[inline]
    pub fn size(&self) -> usize {
        self.vals.len()
    }

    /// Adds `v` to the value at `key` (sets it if `key` is untouched).
    ///
    /// The checked form of [`add_unchecked`](Self::add_unchecked), for callers
    /// that cannot prove the bound. Panics if `key >= size()`.
    #[inline]
    pub fn add(&mut self, key: usize, v: V) {
        assert!(
            key < self.size(),
            "key {key} is out of bounds for a dense accumulator of size {}",
            self.size()
        );
        // SAFETY: key < size was just checked.
        unsafe { self.add_unchecked(key, v) }
    }

    /// Adds `v` to the value at `key`; the first touch since `clear` sets the
    /// value and records the key.
    ///
    /// The inner loop of row-wise SpGEMM, so no bounds checks: generated code
    /// calls it with keys it has already checked against the output's shape.
    ///
    /// # Safety
    ///
    /// `key < self.size()`.
    #[inline]
    pub unsafe fn add_unchecked(&mut self, key: usize, v: V) {
        debug_assert!(key < self.size());
        // SAFETY: the caller guarantees key < size, and
        // size == vals.len() == marks.len() (all three are allocated with
        // `size` elements in `new` and never resized).
        let mark = unsafe { self.marks.get_unchecked_mut(key) };
        let val = unsafe { self.vals.get_unchecked_mut(key) };
        if *mark != 0 {
            *val = *val + v;
        } else {
            *mark = 1;
            *val = v;
            // SAFETY: len < size == touched.len(): a key is pushed only when
            // its mark goes from 0 to 1, marks go back to 0 only in `clear`
            // (which resets len to 0), so between clears each of the `size`
            // keys is pushed at most once, and this key was not yet.
            unsafe { *self.touched.get_unchecked_mut(self.len) = key };
            self.len += 1;
        }
    }

    /// Sets the value at `key` to zero, without touching its mark: the first
    /// step of a compute-only kernel, which then adds with
    /// [`accumulate_unchecked`](Self::accumulate_unchecked) and reads back with
    /// [`get_unchecked`](Self::get_unchecked) the keys of a known pattern,
    /// needing neither marks nor a touched list. The zero is `-0.0` for floats
    /// ([`identity_zero`]), so the sums are those of
    /// [`add_unchecked`](Self::add_unchecked), signs of zeros included.
    ///
    /// # Safety
    ///
    /// `key < self.size()`.
    #[inline]
    pub unsafe fn zero_unchecked(&mut self, key: usize) {
        debug_assert!(key < self.size());
        // SAFETY: the caller guarantees key < size == vals.len().
        unsafe { *self.vals.get_unchecked_mut(key) = self.start };
    }

    /// Adds `v` to the value at `key` (no mark, no touched list; see
    /// [`zero_unchecked`](Self::zero_unchecked)).
    ///
    /// # Safety
    ///
    /// `key < self.size()`.
    #[inline]
    pub unsafe fn accumulate_unchecked(&mut self, key: usize, v: V) {
        debug_assert!(key < self.size());
        // SAFETY: the caller guarantees key < size == vals.len().
        let val = unsafe { self.vals.get_unchecked_mut(key) };
        *val = *val + v;
    }

    /// The value at `key`.
    ///
    /// # Safety
    ///
    /// `key < self.size()`.
    #[inline]
    pub unsafe fn get_unchecked(&self, key: usize) -> V {
        debug_assert!(key < self.size());
        // SAFETY: the caller guarantees key < size == vals.len().
        unsafe { *self.vals.get_unchecked(key) }
    }

    /// Puts the touched keys in increasing order and returns how many there
    /// are.
    ///
    /// Rows that touch few keys sort the list (`O(len log len)`); rows that
    /// touch more than `size / 32` rebuild it from the marks in key order
    /// (`O(size)`, which is then `O(len)`); see the measurements on the
    /// threshold in the source. Adds after `sort` append new keys out of
    /// order again; calling `sort` again puts them in place.
    pub fn sort(&mut self) -> usize {
        if self.len > self.size() / SCAN_DIVISOR {
            self.rebuild_by_scan();
        } else {
            self.touched[..self.len].sort_unstable();
        }
        self.len
    }

    /// Rewrites `touched[..len]` as the marked keys in increasing order.
    ///
    /// Branchless within a word of eight marks: every key is written at the
    /// next free place and the place advances only if the key is marked, so
    /// the writes need no unpredictable branch. Words with no mark are
    /// skipped with one test. Each write lands at `n <= key < size`, inside
    /// the full-length buffer.
    fn rebuild_by_scan(&mut self) {
        let mut n = 0;
        let mut base = 0;
        let mut words = self.marks.chunks_exact(8);
        for word in &mut words {
            let bytes: [u8; 8] = word.try_into().expect("chunks_exact(8) gives 8 bytes");
            if u64::from_ne_bytes(bytes) != 0 {
                for (i, &mark) in word.iter().enumerate() {
                    self.touched[n] = base + i;
                    n += usize::from(mark);
                }
            }
            base += 8;
        }
        for (i, &mark) in words.remainder().iter().enumerate() {
            self.touched[n] = base + i;
            n += usize::from(mark);
        }
        debug_assert_eq!(n, self.len);
    }

    /// The number of touched keys.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key was touched since the last `clear` (an empty output
    /// row, which appends nothing).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `t`-th touched key: in increasing key order after
    /// [`sort`](Self::sort), in first-touch order before it. Panics if
    /// `t >= len()`.
    #[inline]
    pub fn key(&self, t: usize) -> usize {
        self.touched[..self.len][t]
    }

    /// The accumulated value of the `t`-th touched key (see
    /// [`key`](Self::key)). Panics if `t >= len()`.
    #[inline]
    pub fn value(&self, t: usize) -> V {
        self.vals[self.key(t)]
    }

    /// [`key`](Self::key) without the bounds check, for the append loop of
    /// generated code, which runs `t` over `0..len()`.
    ///
    /// # Safety
    ///
    /// `t < self.len()`.
    #[inline]
    pub unsafe fn key_unchecked(&self, t: usize) -> usize {
        debug_assert!(t < self.len);
        // SAFETY: the caller guarantees t < len, and len <= size == touched.len().
        unsafe { *self.touched.get_unchecked(t) }
    }

    /// [`value`](Self::value) without the bounds checks.
    ///
    /// # Safety
    ///
    /// `t < self.len()`.
    #[inline]
    pub unsafe fn value_unchecked(&self, t: usize) -> V {
        // SAFETY: the caller guarantees t < len.
        let key = unsafe { self.key_unchecked(t) };
        // SAFETY: touched[..len] holds only keys that were added, hence
        // below size == vals.len() (`sort` rewrites the list with keys
        // below size too).
        unsafe { *self.vals.get_unchecked(key) }
    }

    /// The touched keys, in the order [`key`](Self::key) gives them.
    #[inline]
    pub fn keys(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.touched[..self.len].iter().copied()
    }

    /// Their values, in the same order.
    #[inline]
    pub fn values(&self) -> impl ExactSizeIterator<Item = V> + '_ {
        self.touched[..self.len].iter().map(|&key| {
            // SAFETY: touched[..len] holds only keys that were added, hence below
            // size == vals.len() (`sort` rewrites the list with keys below size too).
            unsafe { *self.vals.get_unchecked(key) }
        })
    }

    /// Forgets every touched key, so the accumulator can take the next row.
    ///
    /// Resets only the marks of the touched keys (or all marks with one
    /// `memset` when more than `size / 64` are touched; still `O(len)`); the
    /// values need no reset because the first touch of a key sets it.
    #[inline]
    pub fn clear(&mut self) {
        if self.len > self.size() / FILL_DIVISOR {
            self.marks.fill(0);
        } else {
            for &key in &self.touched[..self.len] {
                self.marks[key] = 0;
            }
        }
        self.len = 0;
    }
}

/// The marker of an empty slot of a [`HashAccumulator`] table. It cannot be
/// a key: keys are below `size`, which is at most `usize::MAX`.
const EMPTY: usize = usize::MAX;

/// The number of slots a [`HashAccumulator`] starts with: a row of up to 8
/// keys never grows the table, and 16 slots cost 128 bytes of keys.
const INITIAL_SLOTS: usize = 16;

/// 2^64 divided by the golden ratio, odd: multiplying by it scatters
/// consecutive keys (the common case: neighbouring output columns) over the
/// high bits, which [`home`] takes as the slot (Knuth's multiplicative
/// hashing). Computed in `u64` on every target, so 32-bit targets get the same
/// scattering.
const FIBONACCI: u64 = 0x9E37_79B9_7F4A_7C15;

/// The first slot probed for `key` in a table of `2^(64 - shift)` slots.
#[inline]
fn home(key: usize, shift: u32) -> usize {
    // The result is below 2^(64 - shift), the table size, so it fits usize.
    ((key as u64).wrapping_mul(FIBONACCI) >> shift) as usize
}

/// A table of `slots` empty slots and their values, or `Err` if it cannot be
/// allocated.
fn table<V: Value>(slots: usize) -> Result<(Vec<usize>, Vec<V>), Error> {
    Ok((
        filled(slots, EMPTY, "the slots of a hash accumulator")?,
        filled(slots, V::zero(), "the values of a hash accumulator")?,
    ))
}

/// A hash workspace: an open-addressing table of the touched keys and their
/// values, for output rows too sparse, or dimensions too large, for a
/// [`DenseAccumulator`].
///
/// Memory is proportional to the most keys one row touched, not to `size`.
/// The table has a power-of-two number of slots, at most half of them used,
/// probed linearly from a multiplicative (Fibonacci) hash of the key; empty
/// slots hold `usize::MAX`. A list of used slots makes `clear` `O(len)`
/// however large an earlier row grew the table, and keeps the first-touch
/// order that `key` / `value` report before [`sort`](Self::sort).
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct HashAccumulator<V> {
    /// Keys are `0..size`.
    size: usize,
    /// The key in each slot, or [`EMPTY`]. Its length is a power of two, at
    /// least [`INITIAL_SLOTS`], and more than twice the number of used slots
    /// after every insertion.
    keys: Vec<usize>,
    /// The value in each slot; stale for empty slots. Same length as `keys`.
    vals: Vec<V>,
    /// `64 - log2(keys.len())`: shifting the 64-bit hash right by it leaves
    /// a slot number.
    shift: u32,
    /// The used slots, in first-touch order of their keys.
    used: Vec<usize>,
    /// After `sort`: the `(key, value)` of every used slot, by increasing key.
    entries: Vec<(usize, V)>,
    /// Whether `entries` holds exactly the table's entries, sorted (no add
    /// since the last `sort` or `clear`). If not, `key` / `value` read the
    /// table through `used` instead.
    sorted: bool,
}

impl<V: Value> HashAccumulator<V> {
    /// An accumulator for keys `0..size`, with nothing touched.
    ///
    /// Only records `size` and allocates a small table ([`INITIAL_SLOTS`]
    /// slots); the table grows with the rows. `Err`
    /// ([`Error::NotRepresentable`]) only if that small table cannot be
    /// allocated.
    pub fn new(size: usize) -> Result<Self, Error> {
        let (keys, vals) = table(INITIAL_SLOTS)?;
        Ok(HashAccumulator {
            size,
            keys,
            vals,
            shift: 64 - INITIAL_SLOTS.trailing_zeros(),
            used: with_capacity(INITIAL_SLOTS / 2, "the used slots of a hash accumulator")?,
            entries: with_capacity(INITIAL_SLOTS / 2, "the entries of a hash accumulator")?,
            sorted: true,
        })
    }

    /// The number of possible keys (keys are `0..size`).
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Adds `v` to the value at `key` (sets it if `key` is untouched).
    ///
    /// The checked form of [`add_unchecked`](Self::add_unchecked). Panics if
    /// `key >= size()`.
    #[inline]
    pub fn add(&mut self, key: usize, v: V) {
        assert!(
            key < self.size,
            "key {key} is out of bounds for a hash accumulator of size {}",
            self.size
        );
        // SAFETY: key < size was just checked.
        unsafe { self.add_unchecked(key, v) }
    }

    /// Adds `v` to the value at `key`; the first touch since `clear` sets the
    /// value and records the key, growing the table if it would become more
    /// than half full.
    ///
    /// Growth uses fallible allocation and panics, with a message naming the
    /// table size, if it fails: this function returns nothing, so it cannot
    /// report an error, and a panic (which unwinds, leaving the accumulator
    /// as it was) is better than the abort of an infallible `Vec` growth.
    ///
    /// # Safety
    ///
    /// `key < self.size()`. (This implementation only relies on the bound to
    /// tell keys from the empty marker `usize::MAX`, so breaking it gives
    /// wrong sums rather than memory errors; callers must not rely on that.)
    #[inline]
    pub unsafe fn add_unchecked(&mut self, key: usize, v: V) {
        debug_assert!(key < self.size);
        self.sorted = false;
        let mask = self.keys.len() - 1;
        let mut slot = home(key, self.shift);
        loop {
            // SAFETY: slot <= mask < keys.len() == vals.len() (both tables
            // have the same power-of-two length, set in `new` and `grow`).
            let k = unsafe { *self.keys.get_unchecked(slot) };
            if k == key {
                // SAFETY: as above.
                let val = unsafe { self.vals.get_unchecked_mut(slot) };
                *val = *val + v;
                return;
            }
            if k == EMPTY {
                break;
            }
            slot = (slot + 1) & mask;
        }
        self.insert(slot, key, v);
    }

    /// Stores the absent `key` with value `v` at the empty `slot` its probe
    /// ended on, first growing the table (and probing again) if one more key
    /// would fill more than half of it: linear probing slows down sharply
    /// beyond that.
    #[inline]
    fn insert(&mut self, mut slot: usize, key: usize, v: V) {
        if (self.used.len() + 1) * 2 > self.keys.len() {
            self.grow();
            let mask = self.keys.len() - 1;
            slot = home(key, self.shift);
            while self.keys[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
        }
        self.keys[slot] = key;
        self.vals[slot] = v;
        // Does not allocate: `new` and `grow` reserve room for half the slots
        // (in a clone, whose `Vec`s have no spare capacity, this and `sort`
        // may allocate as any `Vec` growth does).
        self.used.push(slot);
    }

    /// Doubles the table and moves every used slot into it (`O(len)`: only
    /// the used slots are visited). Allocates everything before changing
    /// anything, so a failed allocation panics with the accumulator intact.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let slots = self.keys.len().checked_mul(2).unwrap_or_else(|| {
            panic!(
                "a hash accumulator cannot grow past {} slots",
                self.keys.len()
            )
        });
        let (mut keys, mut vals) = table::<V>(slots).unwrap_or_else(|e| panic!("{e}"));
        let half = slots / 2;
        let reserved = self
            .used
            .try_reserve_exact(half - self.used.len())
            .and_then(|()| self.entries.try_reserve_exact(half - self.entries.len()));
        if reserved.is_err() {
            panic!("cannot allocate {half} used slots for a hash accumulator");
        }
        let shift = self.shift - 1;
        let mask = slots - 1;
        for used in &mut self.used {
            let key = self.keys[*used];
            let mut slot = home(key, shift);
            while keys[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
            keys[slot] = key;
            vals[slot] = self.vals[*used];
            *used = slot;
        }
        self.keys = keys;
        self.vals = vals;
        self.shift = shift;
    }

    /// Gathers the touched keys and their values, in increasing key order,
    /// for [`key`](Self::key) / [`value`](Self::value), and returns how many
    /// there are. `O(len log len)`; a no-op if nothing was added since the
    /// last `sort`.
    pub fn sort(&mut self) -> usize {
        if !self.sorted {
            let (keys, vals) = (&self.keys, &self.vals);
            self.entries.clear();
            self.entries
                .extend(self.used.iter().map(|&slot| (keys[slot], vals[slot])));
            // Keys are distinct, so an unstable sort is deterministic.
            self.entries.sort_unstable_by_key(|&(key, _)| key);
            self.sorted = true;
        }
        self.entries.len()
    }

    /// The number of touched keys.
    #[inline]
    pub fn len(&self) -> usize {
        self.used.len()
    }

    /// Whether no key was touched since the last `clear`.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.used.is_empty()
    }

    /// The `t`-th touched key: in increasing key order after
    /// [`sort`](Self::sort) (until the next add), in first-touch order
    /// before it. Panics if `t >= len()`.
    #[inline]
    pub fn key(&self, t: usize) -> usize {
        if self.sorted {
            self.entries[t].0
        } else {
            self.keys[self.used[t]]
        }
    }

    /// The accumulated value of the `t`-th touched key (see
    /// [`key`](Self::key)). Panics if `t >= len()`.
    #[inline]
    pub fn value(&self, t: usize) -> V {
        if self.sorted {
            self.entries[t].1
        } else {
            self.vals[self.used[t]]
        }
    }

    /// [`key`](Self::key) without the bounds checks.
    ///
    /// # Safety
    ///
    /// `t < self.len()`.
    #[inline]
    pub unsafe fn key_unchecked(&self, t: usize) -> usize {
        debug_assert!(t < self.len());
        if self.sorted {
            // SAFETY: t < len == entries.len() while sorted.
            unsafe { self.entries.get_unchecked(t).0 }
        } else {
            // SAFETY: t < len == used.len(), and used slots are below
            // keys.len() (they are probe results, moved along by `grow`).
            unsafe { *self.keys.get_unchecked(*self.used.get_unchecked(t)) }
        }
    }

    /// [`value`](Self::value) without the bounds checks.
    ///
    /// # Safety
    ///
    /// `t < self.len()`.
    #[inline]
    pub unsafe fn value_unchecked(&self, t: usize) -> V {
        debug_assert!(t < self.len());
        if self.sorted {
            // SAFETY: t < len == entries.len() while sorted.
            unsafe { self.entries.get_unchecked(t).1 }
        } else {
            // SAFETY: t < len == used.len(), and used slots are below
            // vals.len() == keys.len().
            unsafe { *self.vals.get_unchecked(*self.used.get_unchecked(t)) }
        }
    }

    /// The touched keys, in the order [`key`](Self::key) gives them.
    #[inline]
    pub fn keys(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        // SAFETY: t < len().
        (0..self.len()).map(|t| unsafe { self.key_unchecked(t) })
    }

    /// Their values, in the same order.
    #[inline]
    pub fn values(&self) -> impl ExactSizeIterator<Item = V> + '_ {
        // SAFETY: t < len().
        (0..self.len()).map(|t| unsafe { self.value_unchecked(t) })
    }

    /// Forgets every touched key, so the accumulator can take the next row.
    ///
    /// Empties only the used slots (`O(len)`) and keeps the table at its
    /// size, so a later row as large as an earlier one does not grow it
    /// again.
    #[inline]
    pub fn clear(&mut self) {
        for &slot in &self.used {
            self.keys[slot] = EMPTY;
        }
        self.used.clear();
        self.entries.clear();
        self.sorted = true;
    }
}

/// The size of a workspace over several levels, the product of their dimensions (its keys
/// are their coordinates linearized row-major), or `Err` if it exceeds `usize::MAX`: a
/// kernel's workspace cannot index more components than an address can.
#[doc(hidden)]
pub fn workspace_size(dims: &[usize]) -> Result<usize, Error> {
    dims.iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| Error::NotRepresentable {
            detail: format!(
                "a workspace over dimensions {dims:?} has more than usize::MAX components; put the workspace at a lower output level (`#[schedule(workspace(..))]`)"
            ),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A zeroed key then added to holds what a key set by its first addend holds, bit for
    /// bit: a sum of negative zeros stays `-0.0` (found by the tester's compute-only pairs,
    /// where a compute-only kernel returned `+0.0` for its assembler's `-0.0`).
    #[test]
    fn a_zeroed_key_sums_as_a_set_one() {
        for addends in [
            vec![-0.0],
            vec![0.0],
            vec![-0.0, -0.0],
            vec![-0.0, 0.0],
            vec![1.5, -1.5],
        ] {
            let mut a = DenseAccumulator::<f64>::new(1).unwrap();
            let mut b = DenseAccumulator::<f64>::new(1).unwrap();
            // SAFETY: key 0 < size 1.
            unsafe {
                a.zero_unchecked(0);
                for &v in &addends {
                    a.accumulate_unchecked(0, v);
                    b.add_unchecked(0, v);
                }
                assert_eq!(
                    a.get_unchecked(0).to_bits(),
                    b.get_unchecked(0).to_bits(),
                    "{addends:?}"
                );
            }
        }
        assert_eq!(identity_zero::<u32>(), 0);
        assert_eq!(identity_zero::<i64>(), 0);
        assert_eq!(identity_zero::<f32>().to_bits(), (-0.0f32).to_bits());
    }

    /// Knuth's MMIX linear congruential generator, high bits only: a
    /// reproducible stream without dependencies.
    struct Lcg(u64);

    impl Lcg {
        fn next_u32(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 32
        }

        fn next_u64(&mut self) -> u64 {
            (self.next_u32() << 32) | self.next_u32()
        }

        /// A number in `0..n`; `n` must be positive.
        fn below(&mut self, n: usize) -> usize {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// The accumulator API, so that one driver checks both kinds.
    trait Accumulator<V: Value>: Clone {
        fn make(size: usize) -> Result<Self, Error>;
        fn add(&mut self, key: usize, v: V);
        unsafe fn add_unchecked(&mut self, key: usize, v: V);
        fn sort(&mut self) -> usize;
        fn len(&self) -> usize;
        fn is_empty(&self) -> bool;
        fn key(&self, t: usize) -> usize;
        fn value(&self, t: usize) -> V;
        unsafe fn key_unchecked(&self, t: usize) -> usize;
        unsafe fn value_unchecked(&self, t: usize) -> V;
        fn clear(&mut self);
        /// Checks the private invariants of an accumulator just cleared.
        fn assert_cleared(&self);
    }

    macro_rules! accumulator {
        ($ty:ident, $cleared:expr) => {
            impl<V: Value> Accumulator<V> for $ty<V> {
                fn make(size: usize) -> Result<Self, Error> {
                    $ty::new(size)
                }
                fn add(&mut self, key: usize, v: V) {
                    $ty::add(self, key, v)
                }
                unsafe fn add_unchecked(&mut self, key: usize, v: V) {
                    unsafe { $ty::add_unchecked(self, key, v) }
                }
                fn sort(&mut self) -> usize {
                    $ty::sort(self)
                }
                fn len(&self) -> usize {
                    $ty::len(self)
                }
                fn is_empty(&self) -> bool {
                    $ty::is_empty(self)
                }
                fn key(&self, t: usize) -> usize {
                    $ty::key(self, t)
                }
                fn value(&self, t: usize) -> V {
                    $ty::value(self, t)
                }
                unsafe fn key_unchecked(&self, t: usize) -> usize {
                    unsafe { $ty::key_unchecked(self, t) }
                }
                unsafe fn value_unchecked(&self, t: usize) -> V {
                    unsafe { $ty::value_unchecked(self, t) }
                }
                fn clear(&mut self) {
                    $ty::clear(self)
                }
                fn assert_cleared(&self) {
                    let cleared: fn(&$ty<V>) -> bool = $cleared;
                    assert!(cleared(self), "not cleared: {self:?}");
                }
            }
        };
    }

    accumulator!(DenseAccumulator, |a| a.len == 0
        && a.marks.iter().all(|&m| m == 0));
    accumulator!(HashAccumulator, |a| a.used.is_empty()
        && a.entries.is_empty()
        && a.keys.iter().all(|&k| k == EMPTY));

    /// Every `(key, value)` of `acc`, read with both the checked and the
    /// unchecked getters (which must agree).
    fn read<V: Value, A: Accumulator<V>>(acc: &A) -> Vec<(usize, V)> {
        (0..acc.len())
            .map(|t| {
                // SAFETY: t < len.
                let unchecked = unsafe { (acc.key_unchecked(t), acc.value_unchecked(t)) };
                let checked = (acc.key(t), acc.value(t));
                assert_eq!(checked, unchecked);
                checked
            })
            .collect()
    }

    /// Feeds each row of adds to one accumulator of `size` and checks it
    /// against a `BTreeMap`: first-touch order before `sort`, increasing keys
    /// and exact sums after it, and a clean state after `clear`. Alternates
    /// `add` and `add_unchecked`.
    fn check_rows<V: Value, A: Accumulator<V>>(size: usize, rows: &[Vec<(usize, V)>]) {
        let mut acc = A::make(size).unwrap();
        for row in rows {
            let mut sums = BTreeMap::new();
            let mut first_touch = Vec::new();
            for (n, &(key, v)) in row.iter().enumerate() {
                if n % 2 == 0 {
                    acc.add(key, v);
                } else {
                    // SAFETY: the rows' keys are below size.
                    unsafe { acc.add_unchecked(key, v) };
                }
                let sum = sums.entry(key).or_insert_with(|| {
                    first_touch.push(key);
                    V::zero()
                });
                *sum = *sum + v;
            }
            assert_eq!(acc.len(), sums.len());
            assert_eq!(acc.is_empty(), sums.is_empty());
            let unsorted = read(&acc);
            let keys: Vec<usize> = unsorted.iter().map(|&(k, _)| k).collect();
            assert_eq!(keys, first_touch, "insertion order before sort");
            assert!(unsorted.iter().all(|(k, v)| sums[k] == *v));

            assert_eq!(acc.sort(), sums.len());
            let expected: Vec<(usize, V)> = sums.into_iter().collect();
            assert_eq!(read(&acc), expected);
            assert_eq!(acc.sort(), expected.len(), "sorting twice");
            assert_eq!(read(&acc), expected);

            acc.clear();
            assert!(acc.is_empty() && acc.len() == 0);
            acc.assert_cleared();
            assert_eq!(acc.sort(), 0);
        }
    }

    /// `count` random adds of keys in `lo..lo + span` with small values.
    fn random_row<V: Value>(
        rng: &mut Lcg,
        lo: usize,
        span: usize,
        count: usize,
        value: fn(&mut Lcg) -> V,
    ) -> Vec<(usize, V)> {
        (0..count)
            .map(|_| (lo + rng.below(span), value(rng)))
            .collect()
    }

    fn int(rng: &mut Lcg) -> i64 {
        rng.below(2001) as i64 - 1000
    }

    /// Multiples of 1/8 in -16..16: sums are exact, so equality is exact.
    fn float(rng: &mut Lcg) -> f64 {
        (rng.below(257) as f64 - 128.0) / 8.0
    }

    /// Rows of every shape for keys `0..size`: empty, one key repeated,
    /// sparse, dense, every key (in random order, with repeats), and
    /// clustered.
    fn rows<V: Value>(seed: u64, size: usize, value: fn(&mut Lcg) -> V) -> Vec<Vec<(usize, V)>> {
        let mut rng = Lcg(seed);
        let mut rows = vec![Vec::new()];
        if size == 0 {
            rows.push(Vec::new());
            return rows;
        }
        rows.push(vec![(size - 1, value(&mut rng)); 5]);
        rows.push(random_row(&mut rng, 0, size, 3, value));
        rows.push(Vec::new());
        rows.push(random_row(&mut rng, 0, size, size / 2 + 1, value));
        let mut all: Vec<(usize, V)> = (0..size).map(|k| (k, value(&mut rng))).collect();
        for i in (1..all.len()).rev() {
            all.swap(i, rng.below(i + 1));
        }
        all.extend(random_row(&mut rng, 0, size, size, value));
        rows.push(all);
        let span = size.min(40);
        rows.push(random_row(&mut rng, size - span, span, 100, value));
        rows.push(random_row(&mut rng, 0, size, size * 3, value));
        rows.push(Vec::new());
        rows
    }

    /// Runs [`check_rows`] on both kinds, with `i64` and `f64` values.
    fn check_sizes(sizes: &[usize]) {
        for (n, &size) in sizes.iter().enumerate() {
            let seed = 1 + n as u64;
            check_rows::<i64, DenseAccumulator<i64>>(size, &rows(seed, size, int));
            check_rows::<f64, DenseAccumulator<f64>>(size, &rows(seed, size, float));
            check_rows::<i64, HashAccumulator<i64>>(size, &rows(seed, size, int));
            check_rows::<f64, HashAccumulator<f64>>(size, &rows(seed, size, float));
        }
    }

    #[test]
    fn tiny_sizes() {
        check_sizes(&[0, 1, 2, 7, 8, 9]);
    }

    #[test]
    fn random_rows_against_a_map() {
        // Sizes around and off multiples of 8 (the scan's words) and of the
        // thresholds, so both sort paths and both clear paths run.
        check_sizes(&[31, 64, 100, 1003, 4096]);
    }

    #[test]
    fn dense_sort_takes_both_paths() {
        let size = 1000;
        let mut acc = DenseAccumulator::<i64>::new(size).unwrap();
        for count in [
            1,
            size / SCAN_DIVISOR,
            size / SCAN_DIVISOR + 1,
            size / 2,
            size,
        ] {
            // Distinct keys in descending order: the sort must reverse them.
            let keys: Vec<usize> = (0..count).map(|i| size - 1 - i * (size / count)).collect();
            for &k in &keys {
                acc.add(k, k as i64);
            }
            assert_eq!(acc.sort(), count);
            let mut expected = keys.clone();
            expected.sort_unstable();
            let got: Vec<usize> = (0..count).map(|t| acc.key(t)).collect();
            assert_eq!(got, expected);
            assert!((0..count).all(|t| acc.value(t) == acc.key(t) as i64));
            acc.clear();
            acc.assert_cleared();
        }
    }

    #[test]
    fn values_need_no_reset_between_rows() {
        let mut acc = DenseAccumulator::<f64>::new(4).unwrap();
        acc.add(2, 5.0);
        acc.add(2, 1.0);
        acc.clear();
        acc.add(2, -3.0);
        assert_eq!((acc.sort(), acc.key(0), acc.value(0)), (1, 2, -3.0));
    }

    #[test]
    fn adds_after_sort_are_seen_by_the_next_sort() {
        fn check<A: Accumulator<i64>>() {
            let mut acc = A::make(10).unwrap();
            acc.add(5, 1);
            acc.add(3, 1);
            assert_eq!(acc.sort(), 2);
            acc.add(5, 10);
            acc.add(1, 7);
            assert_eq!(acc.len(), 3);
            assert_eq!(acc.sort(), 3);
            assert_eq!(read(&acc), vec![(1, 7), (3, 1), (5, 11)]);
        }
        check::<DenseAccumulator<i64>>();
        check::<HashAccumulator<i64>>();
    }

    #[test]
    fn clones_are_independent_and_keep_working() {
        fn check<A: Accumulator<i64>>() {
            let mut acc = A::make(64).unwrap();
            for k in 0..20 {
                acc.add(k, 1);
            }
            let mut copy = acc.clone();
            // Every remaining key, so the copy's touched list fills up.
            for k in 0..64 {
                copy.add(k, 2);
            }
            assert_eq!((acc.sort(), copy.sort()), (20, 64));
            assert!((0..20).all(|t| acc.value(t) == 1));
            assert!((0..64).all(|t| copy.value(t) == if t < 20 { 3 } else { 2 }));
        }
        check::<DenseAccumulator<i64>>();
        check::<HashAccumulator<i64>>();
    }

    #[test]
    fn hash_keys_near_usize_max() {
        let size = usize::MAX;
        let mut rng = Lcg(99);
        let rows: Vec<Vec<(usize, i64)>> = (0..4)
            .map(|r| {
                (0..50 * r)
                    .map(|_| (usize::MAX - 1 - rng.below(64), int(&mut rng)))
                    .collect()
            })
            .collect();
        check_rows::<i64, HashAccumulator<i64>>(size, &rows);
        let mut acc = HashAccumulator::<f64>::new(size).unwrap();
        acc.add(usize::MAX - 1, 1.5);
        acc.add(0, 2.0);
        acc.add(usize::MAX - 1, 1.0);
        assert_eq!(acc.sort(), 2);
        assert_eq!(read(&acc), vec![(0, 2.0), (usize::MAX - 1, 2.5)]);
    }

    #[test]
    fn hash_grows_past_many_doublings() {
        // 100,000 distinct keys need 262,144 slots: 14 doublings from 16.
        let size = usize::MAX / 3;
        let spread = |i: usize| i.wrapping_mul(1_000_003) % size;
        let mut rng = Lcg(7);
        let mut row: Vec<(usize, i64)> = (0..100_000).map(|i| (spread(i), int(&mut rng))).collect();
        row.extend((0..50_000).map(|_| (spread(rng.below(100_000)), 1)));
        let small = random_row(&mut rng, 0, size, 10, int);
        check_rows::<i64, HashAccumulator<i64>>(size, &[small.clone(), row, small]);
        let mut acc = HashAccumulator::<f64>::new(size).unwrap();
        for k in 0..100_000 {
            acc.add(k, 0.5);
        }
        assert_eq!(acc.keys.len(), 1 << 18);
        // Consecutive keys (neighbouring columns) hashed well: no long probes.
        let mask = acc.keys.len() - 1;
        let longest = acc
            .used
            .iter()
            .map(|&slot| slot.wrapping_sub(home(acc.keys[slot], acc.shift)) & mask)
            .max();
        assert!(longest < Some(64), "longest probe {longest:?}");
        acc.clear();
        assert_eq!(acc.keys.len(), 1 << 18, "clear keeps the table");
        acc.assert_cleared();
    }

    #[test]
    fn dense_allocation_failure_is_an_error() {
        match DenseAccumulator::<f64>::new(usize::MAX) {
            Err(Error::NotRepresentable { detail }) => assert!(detail.contains("dense")),
            other => panic!("expected NotRepresentable, got {other:?}"),
        }
        // The hash accumulator only records the size.
        assert_eq!(
            HashAccumulator::<f64>::new(usize::MAX).unwrap().size(),
            usize::MAX
        );
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn dense_add_panics_at_size() {
        DenseAccumulator::<f64>::new(5).unwrap().add(5, 1.0);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn dense_add_panics_on_size_zero() {
        DenseAccumulator::<i64>::new(0).unwrap().add(0, 1);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn hash_add_panics_at_size() {
        HashAccumulator::<i64>::new(5).unwrap().add(5, 1);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn hash_add_panics_on_usize_max() {
        HashAccumulator::<i64>::new(usize::MAX)
            .unwrap()
            .add(usize::MAX, 1);
    }

    #[test]
    #[should_panic]
    fn dense_key_panics_past_len() {
        // touched has room for 8 keys, but only one is touched.
        let mut acc = DenseAccumulator::<i64>::new(8).unwrap();
        acc.add(3, 1);
        acc.key(1);
    }

    #[test]
    #[should_panic]
    fn hash_value_panics_past_len() {
        let mut acc = HashAccumulator::<i64>::new(8).unwrap();
        acc.add(3, 1);
        acc.sort();
        acc.value(1);
    }
}
