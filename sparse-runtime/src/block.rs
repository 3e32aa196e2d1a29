//! Dense blocks of an appended output (BCSR-style levels below the last appending level):
//! checked sizes and growth, so that generated kernels index a block without bounds checks.

use crate::{Error, Value};

/// The number of values in one block of the given dimensions, or `Err` if it overflows.
#[doc(hidden)]
pub fn block_len(dims: &[usize]) -> Result<usize, Error> {
    dims.iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| Error::NotRepresentable {
            detail: format!("a dense block of dimensions {dims:?} has more than usize::MAX values"),
        })
}

/// Appends `block_len` zeros to `vals` (the values of a newly appended block), or returns
/// `Err` if the length overflows or the memory cannot be allocated.
#[doc(hidden)]
#[inline]
pub fn append_zero_block<V: Value>(vals: &mut Vec<V>, block_len: usize) -> Result<(), Error> {
    append_fill_block(vals, block_len, V::zero())
}

/// Appends `block_len` copies of `fill` to `vals` (a newly appended block of an output
/// whose fill value is `fill`: its components not computed hold the fill value), or
/// returns `Err` if the length overflows or the memory cannot be allocated.
#[doc(hidden)]
#[inline]
pub fn append_fill_block<V: Value>(
    vals: &mut Vec<V>,
    block_len: usize,
    fill: V,
) -> Result<(), Error> {
    let len = vals
        .len()
        .checked_add(block_len)
        .ok_or_else(|| Error::NotRepresentable {
            detail: "the values of a blocked output outgrow usize::MAX".into(),
        })?;
    if vals.capacity() < len {
        vals.try_reserve(len - vals.len())
            .map_err(|_| Error::NotRepresentable {
                detail: format!("cannot allocate {len} values for a blocked output"),
            })?;
    }
    vals.resize(len, fill);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_checked() {
        assert_eq!(block_len(&[3, 4]), Ok(12));
        assert_eq!(block_len(&[]), Ok(1));
        assert!(block_len(&[usize::MAX, 2]).is_err());
        let mut vals = vec![1.0; 2];
        append_zero_block(&mut vals, 3).unwrap();
        assert_eq!(vals, [1.0, 1.0, 0.0, 0.0, 0.0]);
        assert!(append_zero_block(&mut vals, usize::MAX).is_err());
        assert!(append_zero_block(&mut vals, usize::MAX / 16).is_err());
        assert_eq!(vals.len(), 5);
        append_fill_block(&mut vals, 2, f64::INFINITY).unwrap();
        assert_eq!(vals[5..], [f64::INFINITY; 2]);
        assert!(append_fill_block(&mut vals, usize::MAX, 1.0).is_err());
    }
}
