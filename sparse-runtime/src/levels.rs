//! Level tuples: a tensor format is a tuple of levels, outermost first.

use crate::convert::{BelowDense, InStorageOrder, Source};
use crate::iter::Cursor;
use crate::level::{Level, Properties, Sealed};
use crate::mode_order::ModeOrder;
use crate::{Error, Value};
use std::fmt::Debug;

/// A tuple `(A,)` .. `(A, B, C, D, E, F)` of [`Level`]s: a tensor's storage format.
///
/// Sealed. Its methods give the runtime generic access to each level, so that
/// construction, validation and enumeration are written once for every format.
pub trait Levels: Debug + Send + Sync + Sized + 'static + Sealed {
    /// Number of levels, which is the tensor's number of modes.
    const ORDER: usize;

    /// The properties of each level, outermost first.
    fn properties() -> Vec<Properties>;

    /// Level `k` (0 = outermost), or `None` if `k >= ORDER`.
    fn level(&self, k: usize) -> Option<&dyn Level>;

    /// Builds every level top-down from sorted, duplicate-free entries: level `k`
    /// has size `sizes[k]` and entry `e` has coordinate `columns[k][e]` there;
    /// `positions` (one per entry, all 0 on input) ends as each entry's
    /// position in the last level. Returns the levels and the last level's
    /// position count. Requires `sizes` and `columns` of length `ORDER`.
    ///
    /// Like [`Level::build`], not a validating constructor: the result reaches
    /// a tensor only through the checks of
    /// [`Tensor::from_levels`](crate::Tensor::from_levels).
    #[doc(hidden)]
    fn build(
        sizes: &[usize],
        columns: &[Vec<usize>],
        positions: &mut [usize],
    ) -> Result<(Self, usize), Error>;

    /// Calls `visit(path, pos)` for every stored position of the last level,
    /// in storage order, `path` holding the storage coordinates from the root
    /// (its first `ORDER` slots). The levels' own functions are called
    /// directly, so the walk compiles to one loop per level, as a kernel's
    /// would. Requires validated levels.
    #[doc(hidden)]
    fn walk<F: FnMut(&[usize; MAX_ORDER], usize)>(&self, visit: F);

    /// One step of a lazy walk ([`crate::Iter`]) at level `k`: the next stored position
    /// of `cursor`'s range there, with its coordinate recorded (`None` when the range is
    /// done, or `k >= ORDER`). Each level's own functions are called directly.
    #[doc(hidden)]
    fn advance(&self, k: usize, cursor: &mut Cursor) -> Option<usize>;

    /// Opens the range of level `k`'s children of the position recorded at level
    /// `k - 1` (the root's for `k = 0`).
    #[doc(hidden)]
    fn descend(&self, k: usize, cursor: &mut Cursor);

    /// Counted assembly (Chou et al. 2020, section 6) of a format whose
    /// levels above the last are all full (dense) and whose last level
    /// declares it ([`Level::assemble_counted`]), from entries with storage
    /// coordinates below `sizes`; `None` for any other format. The result is
    /// validated by the caller like [`Levels::build`]'s.
    #[doc(hidden)]
    fn assemble_counted<V: Value, S: Source<V>, O: ModeOrder>(
        sizes: &[usize],
        entries: &InStorageOrder<'_, S, O>,
    ) -> Option<Result<(Self, Vec<V>), Error>>;
}

/// The most levels a format has (the largest tuple [`Levels`] is implemented for).
pub(crate) const MAX_ORDER: usize = 6;

/// The loops of [`Levels::walk`]: one per level, each over the children of
/// the position the loop around it binds, skipping positions that store no
/// coordinate.
macro_rules! walk_levels {
    ($levels:ident, $path:ident, $visit:ident, $parent:expr; $k:tt) => {
        for q in $levels.$k.child_range_under($parent, &$path[..$k]) {
            if $levels.$k.is_stored(q) {
                $path[$k] = $levels.$k.coord_under(q, $parent, &$path[..$k]);
                $visit(&$path, q);
            }
        }
    };
    ($levels:ident, $path:ident, $visit:ident, $parent:expr; $k:tt $($rest:tt)+) => {
        for q in $levels.$k.child_range_under($parent, &$path[..$k]) {
            if $levels.$k.is_stored(q) {
                $path[$k] = $levels.$k.coord_under(q, $parent, &$path[..$k]);
                walk_levels!($levels, $path, $visit, q; $($rest)+);
            }
        }
    };
}

/// Implements [`Levels`] for one tuple arity.
macro_rules! impl_levels {
    ($order:expr; $($T:ident $k:tt),+) => {
        impl<$($T: Level),+> Sealed for ($($T,)+) {}

        impl<$($T: Level),+> Levels for ($($T,)+) {
            const ORDER: usize = $order;

            fn properties() -> Vec<Properties> {
                vec![$($T::properties()),+]
            }

            fn level(&self, k: usize) -> Option<&dyn Level> {
                match k {
                    $($k => Some(&self.$k),)+
                    _ => None,
                }
            }

            fn build(
                sizes: &[usize],
                columns: &[Vec<usize>],
                positions: &mut [usize],
            ) -> Result<(Self, usize), Error> {
                // The root is one position; each level is built under the previous.
                let props = Self::properties();
                let mut count = 1;
                let mut order = EntryOrder::new(columns);
                let levels = ($({
                    let same = same_key(&props, $k, order.columns());
                    let (level, next) =
                        $T::build(sizes[$k], count, &order.columns()[$k], &same, positions)
                            .map_err(|e| e.at_level($k))?;
                    order.by_position(positions, $k + 1)?;
                    count = next;
                    level
                },)+);
                order.restore(positions);
                Ok((levels, count))
            }

            fn assemble_counted<Val: Value, Src: Source<Val>, Ord: ModeOrder>(
                sizes: &[usize],
                entries: &InStorageOrder<'_, Src, Ord>,
            ) -> Option<Result<(Self, Vec<Val>), Error>> {
                let props = Self::properties();
                // A full, ordered, unique, compact level stores every coordinate
                // of every parent: its positions are `parent * size + i`.
                let dense = |p: &Properties| p.full && p.ordered && p.unique && p.compact && !p.branchless;
                if !props[..$order - 1].iter().all(dense) {
                    return None;
                }
                let mut count = 1;
                let mut vals = None;
                let levels = ($({
                    let level: Result<$T, Error> = if $k + 1 < $order {
                        $T::build(sizes[$k], count, &[], &[], &mut []).map(|(level, next)| {
                            count = next;
                            level
                        })
                    } else {
                        let below = BelowDense { entries, sizes: &sizes[..$k] };
                        $T::assemble_counted(sizes[$k], count, &below)?.map(|(level, v)| {
                            vals = Some(v);
                            level
                        })
                    };
                    match level {
                        Ok(level) => level,
                        Err(e) => return Some(Err(e.at_level($k))),
                    }
                },)+);
                vals.map(|vals| Ok((levels, vals)))
            }

            #[inline]
            fn walk<Visit: FnMut(&[usize; MAX_ORDER], usize)>(&self, mut visit: Visit) {
                let mut path = [0usize; MAX_ORDER];
                walk_levels!(self, path, visit, 0; $($k)+);
            }

            #[inline]
            fn advance(&self, k: usize, cursor: &mut Cursor) -> Option<usize> {
                match k {
                    $($k => cursor.advance(&self.$k, $k),)+
                    _ => None,
                }
            }

            #[inline]
            fn descend(&self, k: usize, cursor: &mut Cursor) {
                match k {
                    $($k => cursor.descend(&self.$k, $k),)+
                    _ => {}
                }
            }
        }
    };
}

impl_levels!(1; A 0);
impl_levels!(2; A 0, B 1);
impl_levels!(3; A 0, B 1, C 2);
impl_levels!(4; A 0, B 1, C 2, D 3);
impl_levels!(5; A 0, B 1, C 2, D 3, E 4);
impl_levels!(6; A 0, B 1, C 2, D 3, E 4, F 5);

/// For level `k`: whether each entry agrees with the previous one on the
/// level's key (see [`Level::build`]). A unique level's key is its own
/// coordinate. A non-unique level and the branchless levels right below it,
/// down to the first unique one, store one coordinate tuple (Chou et al. 2020:
/// a non-unique level's position is per distinct parent position and tuple),
/// so its key spans them: entries sharing the tuple share one position, and
/// deeper levels hang below it. (The format rules guarantee that chain: a
/// non-unique level is followed by a branchless one, and the last is unique.)
fn same_key(props: &[Properties], k: usize, columns: &[Vec<usize>]) -> Vec<bool> {
    let mut chain = 0;
    if !props[k].unique {
        for p in &props[k + 1..] {
            if !p.branchless {
                break;
            }
            chain += 1;
            if p.unique {
                break;
            }
        }
    }
    let key = &columns[k..=k + chain];
    let entries = columns[k].len();
    (0..entries)
        .map(|e| e > 0 && key.iter().all(|column| column[e] == column[e - 1]))
        .collect()
}

/// The order in which entries are handed to the levels while a tensor is built.
///
/// Entries arrive sorted by storage coordinate, which is the order of their
/// positions in every ordered level. An unordered level (a hash table) places
/// them in bucket order instead; since each level below is built from its
/// parents' positions in increasing order, the entries are then stably
/// re-sorted by their new positions (entries of one parent keep their
/// coordinate order), and put back into the caller's order at the end.
struct EntryOrder<'a> {
    /// The columns in the current order: borrowed until the first re-sort.
    columns: std::borrow::Cow<'a, [Vec<usize>]>,
    /// `perm[e]`: the caller's index of the entry now at `e`, once re-sorted.
    perm: Option<Vec<usize>>,
}

impl<'a> EntryOrder<'a> {
    fn new(columns: &'a [Vec<usize>]) -> Self {
        EntryOrder {
            columns: std::borrow::Cow::Borrowed(columns),
            perm: None,
        }
    }

    fn columns(&self) -> &[Vec<usize>] {
        &self.columns
    }

    /// After a level is built: if `positions` decrease somewhere, re-sorts the
    /// entries by position, permuting `positions` and the columns of levels
    /// `from..`.
    fn by_position(&mut self, positions: &mut [usize], from: usize) -> Result<(), Error> {
        if positions.windows(2).all(|w| w[0] <= w[1]) {
            return Ok(());
        }
        let mut moves: Vec<usize> = crate::alloc::with_capacity(positions.len(), "entry order")?;
        moves.extend(0..positions.len());
        moves.sort_by_key(|&e| positions[e]);
        let permuted = |column: &[usize]| moves.iter().map(|&e| column[e]).collect::<Vec<_>>();
        let sorted = permuted(positions);
        positions.copy_from_slice(&sorted);
        let columns = self.columns.to_mut();
        for column in columns.iter_mut().skip(from) {
            *column = permuted(column);
        }
        self.perm = Some(match self.perm.take() {
            None => moves,
            Some(perm) => moves.iter().map(|&e| perm[e]).collect(),
        });
        Ok(())
    }

    /// Puts `positions` back into the caller's entry order.
    fn restore(self, positions: &mut [usize]) {
        if let Some(perm) = self.perm {
            let current = positions.to_vec();
            for (e, &original) in perm.iter().enumerate() {
                positions[original] = current[e];
            }
        }
    }
}

/// The levels of `levels`, outermost first.
pub(crate) fn each_level<L: Levels>(levels: &L) -> impl Iterator<Item = &dyn Level> {
    (0..L::ORDER).filter_map(move |k| levels.level(k))
}

/// Checks the rules that make a level tuple a format at all (see
/// [`check_format`]).
pub(crate) fn check_structure<L: Levels>() -> Result<(), Error> {
    check_format(&L::properties())
}

/// The rules that make a list of level properties a format: a branchless
/// level needs a parent, a non-unique level's duplicates can only be told
/// apart by a branchless child, and the last level must be unique (one value
/// per coordinate).
pub(crate) fn check_format(props: &[Properties]) -> Result<(), Error> {
    let Some(first) = props.first() else {
        return Err(Error::invalid_level(
            0,
            "a format needs at least one level".into(),
        ));
    };
    if first.branchless {
        return Err(Error::invalid_level(
            0,
            format!("a {first} level cannot be the first level: it needs a parent level"),
        ));
    }
    for (k, pair) in props.windows(2).enumerate() {
        if !pair[0].unique && !pair[1].branchless {
            return Err(Error::invalid_level(
                k,
                format!(
                    "a {} level must be followed by a branchless level (a Singleton), not {}",
                    pair[0], pair[1]
                ),
            ));
        }
    }
    let last = props.len() - 1;
    if !props[last].unique {
        return Err(Error::invalid_level(
            last,
            format!("the last level must be unique, but it is {}", props[last]),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::{Compressed, CompressedNonUnique, Dense, Singleton, SingletonNonUnique};

    #[test]
    fn order_and_level_access() {
        type Bcsr = (Dense, Compressed, Dense, Dense);
        assert_eq!(<Bcsr as Levels>::ORDER, 4);
        let names: Vec<_> = Bcsr::properties().iter().map(|p| p.name).collect();
        assert_eq!(names, ["Dense", "Compressed", "Dense", "Dense"]);
        let levels: Bcsr = (
            Dense::new(2),
            Compressed::from_raw(3, vec![0, 0, 0], vec![]).unwrap(),
            Dense::new(4),
            Dense::new(5),
        );
        let sizes: Vec<usize> = each_level(&levels).map(|l| l.size()).collect();
        assert_eq!(sizes, [2, 3, 4, 5]);
        assert!(levels.level(4).is_none());
    }

    #[test]
    fn structure_rules() {
        assert_eq!(check_structure::<(Dense, Compressed)>(), Ok(()));
        assert_eq!(
            check_structure::<(CompressedNonUnique, SingletonNonUnique, Singleton)>(),
            Ok(())
        );
        let first = check_structure::<(Singleton, Dense)>().unwrap_err();
        assert!(matches!(first, Error::InvalidLevel { level: 0, .. }));
        let child = check_structure::<(CompressedNonUnique, Dense)>().unwrap_err();
        assert!(child.to_string().contains("not Dense"));
        let last = check_structure::<(Dense, CompressedNonUnique)>().unwrap_err();
        assert!(matches!(last, Error::InvalidLevel { level: 1, .. }));
    }
}
