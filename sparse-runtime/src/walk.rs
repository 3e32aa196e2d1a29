//! Enumeration of the stored components of a coordinate hierarchy.

use crate::level::Level;
use crate::levels::{each_level, Levels};

/// Calls `visit(path, pos)` for every stored position of the last level, in
/// storage order, with `path` the storage-order coordinates from the root.
/// Positions that hold no coordinate (empty hash buckets) and everything below
/// them are skipped.
///
/// Requires validated levels (child ranges in bounds).
pub(crate) fn for_each_stored<L: Levels>(levels: &L, mut visit: impl FnMut(&[usize], usize)) {
    let levels: Vec<&dyn Level> = each_level(levels).collect();
    let mut path = Vec::with_capacity(levels.len());
    walk(&levels, 0, &mut path, &mut visit);
}

/// Depth-first walk below `parent` (a position of the level above `levels[0]`).
fn walk(
    levels: &[&dyn Level],
    parent: usize,
    path: &mut Vec<usize>,
    visit: &mut dyn FnMut(&[usize], usize),
) {
    let Some((level, rest)) = levels.split_first() else {
        return;
    };
    for q in level
        .child_range_under(parent, path)
        .filter(|&q| level.is_stored(q))
    {
        path.push(level.coord_under(q, parent, path));
        if rest.is_empty() {
            visit(path, q);
        } else {
            walk(rest, q, path, visit);
        }
        path.pop();
    }
}
