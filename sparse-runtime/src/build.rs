//! Construction from coordinates (Chou et al. 2020, sections 3-5): entries are
//! mapped to storage order, sorted, their duplicates summed, and the coordinate
//! hierarchy is then built one level at a time, outermost first.

use crate::alloc;
use crate::levels::Levels;
use crate::mode_order::{to_storage, ModeOrder};
use crate::Error;
use crate::Value;

/// Entries in storage order, sorted lexicographically, without duplicates.
struct Sorted<V> {
    /// `columns[k][e]`: entry `e`'s coordinate at level `k`.
    columns: Vec<Vec<usize>>,
    /// `vals[e]`: entry `e`'s value (the sum of its duplicates).
    vals: Vec<V>,
}

/// Builds the levels and values of a tensor with storage sizes `sizes`
/// (validated for `(L, O)`) from logical-coordinate entries.
pub(crate) fn build<V, L, O, C>(
    shape: &[usize],
    sizes: &[usize],
    entries: impl IntoIterator<Item = (C, V)>,
) -> Result<(L, Vec<V>), Error>
where
    V: Value,
    L: Levels,
    O: ModeOrder,
    C: AsRef<[usize]>,
{
    let (flat, vals) = collect::<V, O, C>(shape, entries)?;
    let sorted = sort_and_sum(shape.len(), &flat, vals);
    let mut positions = vec![0; sorted.vals.len()];
    let (levels, count) = L::build(sizes, &sorted.columns, &mut positions)?;
    // Positions created by dense levels (or singleton padding) hold no entry: zero.
    let mut vals = alloc::filled(count, V::zero(), "vals")?;
    for (&p, v) in positions.iter().zip(sorted.vals) {
        vals[p] = v;
    }
    Ok((levels, vals))
}

/// Checks every coordinate and stores it in storage order, row-major in one
/// flat vector (one row of `shape.len()` coordinates per entry).
fn collect<V, O, C>(
    shape: &[usize],
    entries: impl IntoIterator<Item = (C, V)>,
) -> Result<(Vec<usize>, Vec<V>), Error>
where
    O: ModeOrder,
    C: AsRef<[usize]>,
{
    let order = shape.len();
    let mut flat = Vec::new();
    let mut vals = Vec::new();
    for (coord, v) in entries {
        let coord = coord.as_ref();
        check_coordinate(coord, shape)?;
        let start = flat.len();
        flat.resize(start + order, 0);
        to_storage::<O>(coord, &mut flat[start..]);
        vals.push(v);
    }
    Ok((flat, vals))
}

/// A coordinate has one component per mode, each below the mode's size.
fn check_coordinate(coord: &[usize], shape: &[usize]) -> Result<(), Error> {
    if coord.len() != shape.len() {
        return Err(Error::OrderMismatch {
            expected: shape.len(),
            found: coord.len(),
        });
    }
    if coord.iter().zip(shape).any(|(&c, &n)| c >= n) {
        return Err(Error::CoordinateOutOfBounds {
            coordinate: coord.to_vec(),
            shape: shape.to_vec(),
        });
    }
    Ok(())
}

/// Sorts the rows of `flat` and sums the values of equal rows.
fn sort_and_sum<V: Value>(order: usize, flat: &[usize], vals: Vec<V>) -> Sorted<V> {
    let row = |e: usize| &flat[e * order..(e + 1) * order];
    let mut perm: Vec<usize> = (0..vals.len()).collect();
    // Stable, so duplicates are summed in input order (matters for floats).
    perm.sort_by(|&a, &b| row(a).cmp(row(b)));
    let mut sorted = Sorted {
        columns: vec![Vec::new(); order],
        vals: Vec::new(),
    };
    let mut last: Option<usize> = None;
    for e in perm {
        match (last, sorted.vals.last_mut()) {
            (Some(l), Some(sum)) if row(l) == row(e) => *sum = *sum + vals[e],
            _ => {
                for (column, &c) in sorted.columns.iter_mut().zip(row(e)) {
                    column.push(c);
                }
                sorted.vals.push(vals[e]);
                last = Some(e);
            }
        }
    }
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_and_sum_merges_duplicates_in_order() {
        let flat = [1, 0, 0, 2, 1, 0, 0, 1];
        let sorted = sort_and_sum(2, &flat, vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(sorted.columns, vec![vec![0, 0, 1], vec![1, 2, 0]]);
        assert_eq!(sorted.vals, vec![4.0, 2.0, 4.0]);
    }

    #[test]
    fn coordinates_are_checked() {
        assert_eq!(check_coordinate(&[1, 2], &[2, 3]), Ok(()));
        assert_eq!(
            check_coordinate(&[1], &[2, 3]),
            Err(Error::OrderMismatch {
                expected: 2,
                found: 1
            })
        );
        assert_eq!(
            check_coordinate(&[2, 0], &[2, 3]),
            Err(Error::CoordinateOutOfBounds {
                coordinate: vec![2, 0],
                shape: vec![2, 3]
            })
        );
    }
}
