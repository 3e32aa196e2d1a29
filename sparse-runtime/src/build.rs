//! Construction from coordinates: the entries are checked and listed, then
//! assembled like a conversion from any other format ([`crate::convert`]),
//! repeated coordinates summed.

use crate::io::Entries;
use crate::Error;
use crate::Value;

/// Checks every coordinate (one component per mode, each below the mode's
/// size) and lists the entries, for assembly into any format.
pub(crate) fn entry_list<V, C>(
    shape: &[usize],
    entries: impl IntoIterator<Item = (C, V)>,
) -> Result<Entries<V>, Error>
where
    V: Value,
    C: AsRef<[usize]>,
{
    let entries = entries.into_iter();
    // Room for the entries the iterator promises (a promise only: the list grows past it).
    let mut list = Entries::with_capacity(shape, entries.size_hint().0);
    for (coord, v) in entries {
        list.push(coord.as_ref(), v)?;
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_checked() {
        assert!(entry_list(&[2, 3], [([1, 2], 1.0)]).is_ok());
        assert_eq!(
            entry_list(&[2, 3], [(vec![1], 1.0)]).unwrap_err(),
            Error::OrderMismatch {
                expected: 2,
                found: 1
            }
        );
        assert_eq!(
            entry_list(&[2, 3], [([2, 0], 1.0)]).unwrap_err(),
            Error::CoordinateOutOfBounds {
                coordinate: vec![2, 0],
                shape: vec![2, 3]
            }
        );
    }
}
