//! The compute half of the assemble/compute split (taco, section 7): a kernel's compute-only
//! variant visits the points of the iteration space in the order its assembling kernel
//! appended them, so the `n`-th computed value belongs at position `n` of the output. These
//! checked stores keep that true even if the order assumption were ever broken: a value past
//! the pattern, or a pattern left partly unwritten, is an `Err`, never a write out of bounds
//! or a stale value.

use crate::{Error, Value};

/// Writes `v` at position `at` of `vals` and returns the next position, or `Err` if the
/// pattern has no position `at`.
#[doc(hidden)]
#[inline]
pub fn store_next<V: Value>(vals: &mut [V], at: usize, v: V) -> Result<usize, Error> {
    match vals.get_mut(at) {
        Some(slot) => {
            *slot = v;
            Ok(at + 1)
        }
        None => Err(mismatch(vals.len(), at + 1)),
    }
}

/// `Ok` if the compute-only kernel wrote every one of the pattern's `len` values.
#[doc(hidden)]
pub fn check_all_stored(len: usize, stored: usize) -> Result<(), Error> {
    if len == stored {
        Ok(())
    } else {
        Err(mismatch(len, stored))
    }
}

fn mismatch(len: usize, stored: usize) -> Error {
    Error::NotRepresentable {
        detail: format!(
            "a compute-only kernel produced {stored} values for an output pattern of {len} (an internal error of sparse_kernel!: please report it)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_stay_inside_the_pattern() {
        let mut vals = [0.0; 2];
        let at = store_next(&mut vals, 0, 1.0).unwrap();
        let at = store_next(&mut vals, at, 2.0).unwrap();
        assert_eq!((at, vals), (2, [1.0, 2.0]));
        assert!(store_next(&mut vals, at, 3.0).is_err());
        assert_eq!(check_all_stored(2, at), Ok(()));
        assert!(check_all_stored(3, at).is_err());
    }
}
