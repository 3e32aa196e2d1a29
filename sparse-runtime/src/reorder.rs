//! Iterator reordering (Chou et al. 2018, section 4.3): an ordered copy of one
//! segment of an unordered level, so that generated kernels can merge it with
//! ordered levels or append an output in coordinate order.

use crate::level::Level;
use crate::Error;

/// A scratch array holding `(coordinate, position)` for every stored position
/// of one segment of a level, sorted by coordinate. A kernel binds one per
/// reordered level before its loops and refills it for each segment, so its
/// allocation is reused.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct Reordered {
    entries: Vec<(usize, usize)>,
}

impl Reordered {
    /// An empty scratch array (allocates nothing until filled).
    #[inline]
    pub fn new() -> Reordered {
        Reordered::default()
    }

    /// Replaces the contents with the stored positions of `level` below
    /// `parent_pos` and their coordinates, sorted by coordinate, and returns
    /// how many there are. `Err` if the scratch array cannot grow. Panics if
    /// `parent_pos` is not a parent position of the validated `level`.
    pub fn fill<L: Level>(&mut self, level: &L, parent_pos: usize) -> Result<usize, Error> {
        let range = level.child_range(parent_pos);
        self.entries.clear();
        self.entries
            .try_reserve(range.len())
            .map_err(|_| Error::NotRepresentable {
                detail: format!(
                    "cannot allocate {} entries for a reordered segment",
                    range.len()
                ),
            })?;
        for q in range.filter(|&q| level.is_stored(q)) {
            self.entries.push((level.coord_at(q), q));
        }
        // Unique levels give distinct coordinates, so an unstable sort is deterministic.
        self.entries.sort_unstable();
        Ok(self.entries.len())
    }

    /// The coordinate of entry `it`; panics if `it` is not below the count `fill` returned.
    #[inline]
    pub fn coord(&self, it: usize) -> usize {
        self.entries[it].0
    }

    /// The level position of entry `it`; panics if `it` is not below the count `fill`
    /// returned.
    #[inline]
    pub fn pos(&self, it: usize) -> usize {
        self.entries[it].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hashed;

    #[test]
    fn fill_sorts_the_stored_buckets_of_one_segment() {
        const E: u32 = u32::MAX;
        // Two segments of width 4: {5, 1} (5 probed past 1) and {3}.
        let h = Hashed::<u32>::from_raw(8, 4, vec![E, 1, 5, E, E, E, E, 3]).unwrap();
        let mut r = Reordered::new();
        assert_eq!(r.fill(&h, 0), Ok(2));
        assert_eq!((r.coord(0), r.pos(0)), (1, 1));
        assert_eq!((r.coord(1), r.pos(1)), (5, 2));
        assert_eq!(r.fill(&h, 1), Ok(1));
        assert_eq!((r.coord(0), r.pos(0)), (3, 7));
    }
}
