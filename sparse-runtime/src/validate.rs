//! Validation of a whole coordinate hierarchy: every invariant that generated
//! kernels rely on and that a single level cannot check alone.

use crate::level::Level;
use crate::levels::{check_structure, each_level, Levels};
use crate::mode_order::{to_storage, ModeOrder};
use crate::Error;

/// Checks that `shape` fits the format `(L, O)` and returns the storage-order
/// size of each level.
pub(crate) fn storage_sizes<L: Levels, O: ModeOrder>(shape: &[usize]) -> Result<Vec<usize>, Error> {
    if shape.len() != L::ORDER {
        return Err(Error::OrderMismatch {
            expected: L::ORDER,
            found: shape.len(),
        });
    }
    O::validate(L::ORDER)?;
    check_structure::<L>()?;
    let mut sizes = vec![0; L::ORDER];
    to_storage::<O>(shape, &mut sizes);
    Ok(sizes)
}

/// Checks every invariant kernels rely on, whatever produced the levels
/// (`from_raw`, assembly, or [`Levels::build`]): the shape's length, the mode
/// order and the format's structure; for each level its size against the
/// shape and all of its own invariants against its parent's position count
/// ([`Level::position_count`]); sibling order across the runs of non-unique
/// parents; and the number of values. O(stored positions).
pub(crate) fn check_hierarchy<L: Levels, O: ModeOrder>(
    levels: &L,
    shape: &[usize],
    vals_len: usize,
) -> Result<(), Error> {
    let sizes = storage_sizes::<L, O>(shape)?;
    let props = L::properties();
    let mut count = 1;
    let mut runs = None;
    for (k, level) in each_level(levels).enumerate() {
        if level.size() != sizes[k] {
            return Err(Error::invalid_level(
                k,
                format!(
                    "its size is {} but mode {} of the shape has size {}",
                    level.size(),
                    O::mode(k),
                    sizes[k]
                ),
            ));
        }
        let next = level.position_count(count).map_err(|e| e.at_level(k))?;
        runs = check_siblings(level, count, runs, props[k].unique).map_err(|e| e.at_level(k))?;
        count = next;
    }
    if vals_len != count {
        return Err(Error::LengthMismatch {
            what: "vals",
            expected: count,
            found: vals_len,
        });
    }
    Ok(())
}

/// Checks that siblings (positions whose ancestors have equal coordinates) are
/// strictly increasing (`unique`) or non-decreasing, and returns this level's
/// runs for its child.
///
/// A run is a maximal block of consecutive positions with the same coordinate
/// path; `runs[q]` is the first position of `q`'s run, and `None` means every
/// position is its own run (always true after a unique level). Under such a
/// parent each segment was already checked by [`Level::position_count`], so
/// a unique level is skipped; only runs of a non-unique parent span several
/// parents. Requires a level that passed `position_count(parent_count)`.
fn check_siblings(
    level: &dyn Level,
    parent_count: usize,
    parent_runs: Option<Vec<usize>>,
    unique: bool,
) -> Result<Option<Vec<usize>>, Error> {
    if parent_runs.is_none() && unique {
        return Ok(None);
    }
    let group_of = |p: usize| parent_runs.as_ref().map_or(p, |r| r[p]);
    let mut runs = Vec::new();
    let mut prev: Option<(usize, usize)> = None;
    let mut run_start = 0;
    for p in 0..parent_count {
        let group = group_of(p);
        for q in level.child_range(p).filter(|&q| level.is_stored(q)) {
            let c = level.coord_at(q);
            if let Some((prev_group, prev_c)) = prev {
                if prev_group == group && (c < prev_c || (unique && c == prev_c)) {
                    return Err(sibling_error(q, c, prev_c, unique));
                }
            }
            if prev != Some((group, c)) {
                run_start = q;
            }
            if !unique {
                runs.push(run_start);
            }
            prev = Some((group, c));
        }
    }
    Ok(if unique { None } else { Some(runs) })
}

/// The error for position `q` holding `c` right after a sibling holding `prev`.
fn sibling_error(q: usize, c: usize, prev: usize, unique: bool) -> Error {
    let want = if unique {
        "strictly increasing"
    } else {
        "non-decreasing"
    };
    Error::invalid_level(0, format!(
        "position {q} has coordinate {c} after coordinate {prev} under the same ancestors, but siblings must be {want}"
    ))
}
