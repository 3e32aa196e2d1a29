//! Appending an output's entries into room reserved up front from a bound the kernel
//! computed from its operands (a sum of two matrices stores at most `nnz(A) + nnz(B)`
//! entries; SciPy sizes its arrays the same way).
//!
//! A kernel that appends with `Vec::push` checks the capacity on every entry, and since
//! the vector sits behind a reference that the stores through its buffer might alias (as
//! far as LLVM can tell), it reloads the vector's length and capacity from memory after
//! every store: sparse add ran 1.3-1.5x the time of the same loop writing by index. A
//! [`Room`] takes the vector out of the output for the loop, so that its buffer, length and
//! count of written entries are local values kept in registers, and checks each write
//! against the room reserved (one comparison, never a reallocation). Should the bound ever
//! be exceeded, the entries beyond it are dropped and the kernel returns an error, never a
//! wrong result.

use crate::level::{Compressed, Markers};
use crate::{Error, Index};

/// A vector taken out of its owner, with room for more elements written at its end.
pub(crate) struct Room<T> {
    /// Not touched while the room is out (its buffer stays where `start` points).
    vec: Vec<T>,
    /// The vector's length when it was taken: the room starts there.
    base: usize,
    /// The room's first slot, `vec`'s element `base`, and the room's size (spare capacity):
    /// computed once, so that a loop writing into two rooms holds two values for each
    /// besides its count (with the vector's pointer, length and capacity, LLVM kept them on
    /// the stack and recomputed them on every write of a sparse add).
    start: *mut T,
    size: usize,
    /// The elements written into the room, in order from its start, and any that found it
    /// full (counted, dropped): more than the room holds means the bound was exceeded. No
    /// separate flag, so a loop writing into two rooms keeps one register fewer per room.
    written: usize,
    /// Whether the vector was given back.
    restored: bool,
    /// Whether, when it was given back, more elements had been counted than written.
    over: bool,
}

impl<T> Room<T> {
    /// Takes `home` (leaving it empty) with room for `entries` more elements, or `Err` if
    /// that cannot be allocated.
    #[inline]
    pub(crate) fn take(home: &mut Vec<T>, entries: usize, what: &str) -> Result<Self, Error> {
        crate::alloc::reserve(home, entries, what)?;
        let mut vec = std::mem::take(home);
        let base = vec.len();
        Ok(Room {
            base,
            start: vec.spare_capacity_mut().as_mut_ptr().cast(),
            size: vec.capacity() - base,
            vec,
            written: 0,
            restored: false,
            over: false,
        })
    }

    /// Writes `x` after the elements written so far, or, if the room is full, only counts
    /// it.
    #[inline]
    pub(crate) fn write(&mut self, x: T) {
        if self.written < self.size {
            // SAFETY: `start` is element `base` of `vec`'s buffer, which stays allocated and
            // in place while the room is out (the vector is only moved, never touched), and
            // `base + written < base + size == capacity`: a spare slot.
            unsafe { self.start.add(self.written).write(x) };
        }
        self.written += 1;
    }

    /// The elements written into the room: all those counted, up to its size.
    #[inline]
    fn stored(&self) -> usize {
        self.written.min(self.size)
    }

    /// The vector's length with the elements counted (written unless the room overflowed).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.base + self.written
    }

    /// Puts the vector, holding the elements written, back into `home` (the first time;
    /// nothing after that).
    #[inline]
    pub(crate) fn give_back(&mut self, home: &mut Vec<T>) {
        if let Some(vec) = self.restore() {
            *home = vec;
        }
    }

    /// The vector, holding the elements written, the first time it is asked for; `None`
    /// after that.
    #[inline]
    fn restore(&mut self) -> Option<Vec<T>> {
        if std::mem::replace(&mut self.restored, true) {
            return None;
        }
        let stored = self.stored();
        self.over = stored < self.written;
        // The buffer leaves with the vector: later writes are only counted.
        self.size = 0;
        let mut vec = std::mem::take(&mut self.vec);
        // SAFETY: the vector's length stayed `base` while the room was out, and `write`
        // initialized its spare slots `0..stored` (slot `k` is element `base + k`): the
        // `k`-th write found slot `k` inside the capacity exactly when `k` is below the
        // room's size, and `stored` is the count of writes capped by that size.
        unsafe { vec.set_len(self.base + stored) };
        Some(vec)
    }

    /// `Err` if a write was dropped because the room was full (known once given back).
    #[inline]
    pub(crate) fn check(&self, what: &'static str) -> Result<(), Error> {
        match self.over {
            false => Ok(()),
            true => Err(overflowed(what)),
        }
    }
}

/// The error of a room that was too small. (Every method of a room and of its writers is
/// inlined and takes no reference to them out of line, so that LLVM keeps their fields in
/// registers: one call with the writer's address, and they all went back to the stack.)
#[cold]
#[inline(never)]
fn overflowed(what: &str) -> Error {
    Error::NotRepresentable {
        detail: format!(
            "internal error in a generated kernel (please report it): it appended more {what} \
             than the bound it had computed room for"
        ),
    }
}

/// An output's values being appended into room reserved up front ([`bounded_values`]): the
/// interface of `Vec<V>` that generated kernels append with.
#[doc(hidden)]
pub struct BoundedValues<'a, V> {
    home: &'a mut Vec<V>,
    room: Room<V>,
}

/// Takes `vals` for appending at most `entries` more values: see the [module](self)
/// documentation. `Err` if that room cannot be allocated.
#[doc(hidden)]
#[inline]
pub fn bounded_values<V>(vals: &mut Vec<V>, entries: usize) -> Result<BoundedValues<'_, V>, Error> {
    let room = Room::take(vals, entries, "appended values")?;
    Ok(BoundedValues { home: vals, room })
}

impl<V> BoundedValues<'_, V> {
    /// Appends `v`.
    #[inline]
    pub fn push(&mut self, v: V) {
        self.room.write(v);
    }

    /// Appends every value of `values`.
    #[inline]
    pub fn extend(&mut self, values: impl IntoIterator<Item = V>) {
        values.into_iter().for_each(|v| self.room.write(v));
    }

    /// The number of values, those appended included.
    #[inline]
    pub fn len(&self) -> usize {
        self.room.len()
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gives the values back to the output; `Err` if the kernel appended more than the
    /// room it had reserved (an internal error).
    #[inline]
    pub fn finish(&mut self) -> Result<(), Error> {
        self.room.give_back(self.home);
        self.room.check("values")
    }
}

impl<V> Drop for BoundedValues<'_, V> {
    /// On an early return, the values go back as they are (the output's assembly guard then
    /// resets the output).
    #[inline]
    fn drop(&mut self) {
        self.room.give_back(self.home);
    }
}

/// A [`Compressed`] level being appended into room reserved up front
/// ([`Compressed::append_bounded`]): the append functions of the level, with its coordinates
/// written into the room. The segment ends (`pos`) are taken out too and recorded in the
/// writer's own fields: through the level, every row's bookkeeping loaded and stored its
/// state in memory that the coordinate stores might alias (as far as LLVM can tell), about
/// 5% of a sparse add.
#[doc(hidden)]
pub struct BoundedAppend<'a, I: Index, P: Markers> {
    level: &'a mut Compressed<I, P>,
    room: Room<I>,
    edges: Taken<I>,
}

/// The level's segment ends while a [`BoundedAppend`] records them.
struct Taken<I> {
    pos: Vec<I>,
    /// The last recorded `(parent_pos, end)`.
    last: Option<(usize, usize)>,
    /// Whether the level's append assembly was started (else every record takes the slow
    /// path, which reports it).
    active: bool,
    /// Whether `pos` and `last` are the writer's, to give back.
    out: bool,
}

impl<'a, I: Index, P: Markers> BoundedAppend<'a, I, P> {
    #[inline]
    pub(crate) fn new(level: &'a mut Compressed<I, P>, room: Room<I>) -> Self {
        let (pos, last, active) = level.take_edges();
        let edges = Taken {
            pos,
            last,
            active,
            out: true,
        };
        BoundedAppend { level, room, edges }
    }

    /// Number of positions, those appended included.
    #[inline]
    pub fn len(&self) -> usize {
        self.room.len()
    }

    /// Whether the level holds no positions.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// See [`Compressed::append_coord`].
    #[inline]
    pub fn append_coord(&mut self, i: usize) {
        debug_assert!(i < self.level.size(), "coordinate {i} >= size");
        self.room.write(I::from_usize_unchecked(i));
    }

    /// See [`Compressed::append_coords`].
    #[inline]
    pub fn append_coords(&mut self, coords: impl ExactSizeIterator<Item = usize>) {
        coords.for_each(|i| self.append_coord(i));
    }

    /// See [`Compressed::append_edges`]: a segment that keeps the rules, in a parent that
    /// `append_init` made room for, is recorded here; any other goes to the level, which
    /// grows `pos` or records the misuse for `append_finalize` to report.
    #[inline]
    pub fn append_edges(&mut self, parent_pos: usize, begin: usize, end: usize) {
        let len = self.len();
        let e = &mut self.edges;
        let prev_end = e.last.map_or(0, |(_, end)| end);
        let ordered = e.last.is_none_or(|(p, _)| parent_pos > p);
        let fits = e.active && ordered && begin == prev_end && begin <= end && end <= len;
        let slot = parent_pos.checked_add(1).and_then(|k| e.pos.get_mut(k));
        if let (true, Some(slot)) = (fits, slot) {
            // An `end` that does not fit `I` is caught by `append_finalize`, as the level's.
            *slot = I::try_from_usize(end).unwrap_or_default();
            e.last = Some((parent_pos, end));
            return;
        }
        let pos = std::mem::take(&mut e.pos);
        (e.pos, e.last) = record_slowly(self.level, pos, e.last, (parent_pos, begin, end, len));
    }

    /// Gives the coordinates and segments back to the level and ends its assembly (see
    /// [`Compressed::append_finalize`]); `Err` also if the kernel appended more than the
    /// room it had reserved (an internal error).
    #[inline]
    pub fn append_finalize(&mut self, parent_size: usize) -> Result<(), Error> {
        self.give_back();
        self.room.check("coordinates")?;
        self.level.append_finalize(parent_size)
    }

    /// Gives the coordinates and segments back to the level, once.
    #[inline]
    fn give_back(&mut self) {
        self.room.give_back(self.level.crd_mut());
        if std::mem::replace(&mut self.edges.out, false) {
            let pos = std::mem::take(&mut self.edges.pos);
            self.level.restore_edges(pos, self.edges.last);
        }
    }
}

/// A [`Compressed`] level and the output's values appended together into room reserved up
/// front ([`Compressed::append_bounded_entries`]), where every coordinate appended to the
/// level comes with its value: one count serves both, and one room size (the smaller), as
/// in a hand-written loop that writes `crd[n]` and `vals[n]`.
#[doc(hidden)]
pub struct BoundedEntries<'a, I: Index, P: Markers, V> {
    /// The level's writer; its room's count is the entries'.
    level: BoundedAppend<'a, I, P>,
    home: &'a mut Vec<V>,
    vals: Room<V>,
}

impl<'a, I: Index, P: Markers, V> BoundedEntries<'a, I, P, V> {
    #[inline]
    pub(crate) fn new(
        mut level: BoundedAppend<'a, I, P>,
        home: &'a mut Vec<V>,
        mut vals: Room<V>,
    ) -> Self {
        // Both rooms take the smaller size: entries past it are counted, not written, in
        // both, and each gives back only the slots below it (`Room::stored`).
        let size = level.room.size.min(vals.size);
        (level.room.size, vals.size) = (size, size);
        BoundedEntries { level, home, vals }
    }

    /// Number of positions, those appended included.
    #[inline]
    pub fn len(&self) -> usize {
        self.level.len()
    }

    /// Whether the level holds no positions.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends coordinate `i` (below the level's size; debug builds assert it) and its value.
    #[inline]
    pub fn append_entry(&mut self, i: usize, v: V) {
        debug_assert!(i < self.level.level.size(), "coordinate {i} >= size");
        let crd = &mut self.level.room;
        let k = crd.written;
        if k < crd.size {
            // SAFETY: `k < crd.size == vals.size` (`new`), so slot `k` is spare capacity of
            // both rooms, whose buffers stay in place while they are out (see `Room::write`);
            // both rooms' slots `0..min(count, size)` are written, in order, as `give_back`
            // then tells the values' room.
            unsafe {
                crd.start.add(k).write(I::from_usize_unchecked(i));
                self.vals.start.add(k).write(v);
            }
        }
        crd.written = k + 1;
    }

    /// See [`Compressed::append_edges`].
    #[inline]
    pub fn append_edges(&mut self, parent_pos: usize, begin: usize, end: usize) {
        self.level.append_edges(parent_pos, begin, end);
    }

    /// Gives the values, coordinates and segments back and ends the level's assembly (see
    /// [`Compressed::append_finalize`]); `Err` also if the kernel appended more than the
    /// room it had reserved (an internal error).
    #[inline]
    pub fn append_finalize(&mut self, parent_size: usize) -> Result<(), Error> {
        self.give_back();
        self.vals.check("values")?;
        self.level.append_finalize(parent_size)
    }

    /// Gives the values back, as many as the entries counted (once).
    #[inline]
    fn give_back(&mut self) {
        // The values were written with the coordinates, under their count.
        self.vals.written = self.level.room.written;
        self.vals.give_back(self.home);
    }
}

impl<I: Index, P: Markers, V> Drop for BoundedEntries<'_, I, P, V> {
    /// On an early return, the values go back as they are (the level's writer gives back
    /// its own; the output's assembly guard then resets the output).
    fn drop(&mut self) {
        self.give_back();
    }
}

/// A segment the writer does not record itself, recorded by the level (see
/// [`BoundedAppend::append_edges`]): out of line, taking the writer's fields by value so
/// that the writer itself never has its address taken and stays in registers.
#[cold]
#[inline(never)]
fn record_slowly<I: Index, P: Markers>(
    level: &mut Compressed<I, P>,
    pos: Vec<I>,
    last: Option<(usize, usize)>,
    (parent_pos, begin, end, len): (usize, usize, usize, usize),
) -> (Vec<I>, Option<(usize, usize)>) {
    level.restore_edges(pos, last);
    level.record_edges(parent_pos, begin, end, len);
    let (pos, last, _) = level.take_edges();
    (pos, last)
}

impl<I: Index, P: Markers> Drop for BoundedAppend<'_, I, P> {
    /// On an early return, the coordinates and segments go back as they are (the output's
    /// assembly guard then resets the output).
    fn drop(&mut self) {
        self.give_back();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_written_into_the_room_go_back() {
        let mut vals = vec![1.0, 2.0];
        let mut w = bounded_values(&mut vals, 3).unwrap();
        w.push(3.0);
        w.extend([4.0, 5.0]);
        assert_eq!(w.len(), 5);
        w.finish().unwrap();
        drop(w);
        assert_eq!(vals, [1.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn writes_past_the_room_are_an_error_not_a_stray_store() {
        let mut vals: Vec<u64> = Vec::new();
        let mut w = bounded_values(&mut vals, 2).unwrap();
        let room = w.room.vec.capacity();
        (0..room as u64 + 3).for_each(|v| w.push(v));
        // The writes past the room are counted, not stored.
        assert_eq!(w.len(), room + 3);
        let e = w.finish().unwrap_err();
        assert!(e.to_string().contains("internal error"), "{e}");
        drop(w);
        assert!(vals.iter().copied().eq(0..room as u64));
    }

    #[test]
    fn segments_recorded_by_the_writer_go_back_to_the_level() {
        let mut level = Compressed::<u32>::from_raw(10, vec![0], vec![]).unwrap();
        level.append_init(2);
        let mut w = level.append_bounded(4).unwrap();
        w.append_coord(3);
        w.append_coord(5);
        w.append_edges(0, 0, 2);
        w.append_coord(1);
        // Past the parents `append_init` made room for: the level grows its segments.
        w.append_edges(3, 2, 3);
        w.append_finalize(4).unwrap();
        drop(w);
        assert_eq!(
            (level.pos(), level.crd()),
            (&[0, 2, 2, 2, 3][..], &[3, 5, 1][..])
        );
    }

    #[test]
    fn misused_segments_are_reported_by_the_level() {
        let misuses: [fn(&mut BoundedAppend<'_, u32, ()>); 3] = [
            // A segment that overlaps the previous one (parents out of order are asserted
            // in debug builds, as by the level).
            |w| {
                w.append_coord(1);
                w.append_edges(0, 0, 1);
                w.append_coord(2);
                w.append_edges(1, 0, 2);
            },
            // A gap between segments.
            |w| {
                w.append_coord(1);
                w.append_coord(2);
                w.append_edges(0, 1, 2);
            },
            // A segment past the coordinates appended.
            |w| {
                w.append_coord(1);
                w.append_edges(0, 0, 2);
            },
        ];
        for (n, misuse) in misuses.into_iter().enumerate() {
            let mut level = Compressed::<u32>::from_raw(10, vec![0], vec![]).unwrap();
            level.append_init(3);
            let mut w = level.append_bounded(4).unwrap();
            misuse(&mut w);
            assert!(w.append_finalize(3).is_err(), "misuse {n}");
        }
        // Without `append_init`, the writer records nothing itself.
        let mut level = Compressed::<u32>::from_raw(10, vec![0], vec![]).unwrap();
        let mut w = level.append_bounded(1).unwrap();
        w.append_coord(1);
        w.append_edges(0, 0, 1);
        assert!(w.append_finalize(1).is_err());
    }

    #[test]
    fn an_early_drop_gives_back_the_segments_recorded() {
        let mut level = Compressed::<u32>::from_raw(10, vec![0], vec![]).unwrap();
        level.append_init(2);
        {
            let mut w = level.append_bounded(2).unwrap();
            w.append_coord(4);
            w.append_edges(0, 0, 1);
        }
        level.append_finalize(2).unwrap();
        assert_eq!((level.pos(), level.crd()), (&[0, 1, 1][..], &[4][..]));
    }

    #[test]
    fn entries_are_appended_under_one_count() {
        let mut level = Compressed::<u32>::from_raw(10, vec![0], vec![]).unwrap();
        let mut vals = vec![];
        level.append_init(2);
        let mut w = level.append_bounded_entries(&mut vals, 3).unwrap();
        w.append_entry(2, 0.5);
        w.append_entry(7, 1.5);
        w.append_edges(0, 0, 2);
        w.append_entry(1, 2.5);
        assert_eq!(w.len(), 3);
        w.append_edges(1, 2, 3);
        w.append_finalize(2).unwrap();
        drop(w);
        assert_eq!((level.pos(), level.crd()), (&[0, 2, 3][..], &[2, 7, 1][..]));
        assert_eq!(vals, [0.5, 1.5, 2.5]);
    }

    #[test]
    fn entries_past_the_smaller_room_are_an_error_in_both() {
        let mut level = Compressed::<u32>::from_raw(10, vec![0], vec![]).unwrap();
        let mut vals: Vec<u8> = Vec::with_capacity(1000);
        level.append_init(1);
        let mut w = level.append_bounded_entries(&mut vals, 1).unwrap();
        let room = w.level.room.size;
        assert!(room < 1000, "the level's room limits both");
        (0..room + 2).for_each(|k| w.append_entry(k % 10, k as u8));
        w.append_edges(0, 0, room + 2);
        let e = w.append_finalize(1).unwrap_err();
        assert!(e.to_string().contains("internal error"), "{e}");
        drop(w);
        // What fit the room went back, the same count of each.
        assert_eq!(vals.len(), room);
        assert_eq!(level.crd().len(), room);
    }

    #[test]
    fn an_early_drop_gives_back_the_entries_written() {
        let mut level = Compressed::<u32>::from_raw(10, vec![0], vec![]).unwrap();
        let mut vals = vec![];
        level.append_init(1);
        {
            let mut w = level.append_bounded_entries(&mut vals, 2).unwrap();
            w.append_entry(4, 9.0);
        }
        assert_eq!(vals, [9.0]);
        level.append_edges(0, 0, 1);
        level.append_finalize(1).unwrap();
        assert_eq!((level.pos(), level.crd()), (&[0, 1][..], &[4][..]));
    }

    #[test]
    fn an_early_drop_gives_back_what_was_written() {
        let mut vals = vec![7u8];
        {
            let mut w = bounded_values(&mut vals, 4).unwrap();
            w.push(8);
        }
        assert_eq!(vals, [7, 8]);
    }
}
