//! Construction from coordinates: the entries are checked and listed, then
//! assembled like a conversion from any other format ([`crate::convert`]),
//! repeated coordinates summed.

use crate::convert::EntryList;
use crate::Error;
use crate::Value;

/// Checks every coordinate and lists the entries, coordinates row-major in one
/// flat array, for assembly into any format ([`crate::convert`]).
pub(crate) fn entry_list<V, C>(
    shape: &[usize],
    entries: impl IntoIterator<Item = (C, V)>,
) -> Result<EntryList<V>, Error>
where
    V: Value,
    C: AsRef<[usize]>,
{
    let mut flat = Vec::new();
    let mut vals = Vec::new();
    for (coord, v) in entries {
        let coord = coord.as_ref();
        check_coordinate(coord, shape)?;
        flat.extend_from_slice(coord);
        vals.push(v);
    }
    Ok(EntryList {
        shape: shape.to_vec(),
        flat,
        vals,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

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
