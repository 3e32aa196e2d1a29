//! Fallible allocation of the arrays a shape implies.
//!
//! A shape is user input, and a huge dense dimension would make `vec![..]`
//! abort the process; building a tensor reports it as an error instead.

use crate::Error;

/// A vector of `len` copies of `value`, or `Err` if it cannot be allocated.
///
/// A zero of a primitive type comes from zeroed pages (`vec![0; n]` allocates them
/// zeroed), not written until used: an array an assembly then scatters into is written
/// once, not twice.
pub(crate) fn filled<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>, Error> {
    // The probe fails cleanly where `vec!` would abort.
    drop(with_capacity::<T>(len, what)?);
    Ok(vec![value; len])
}

/// An empty vector with room for `len` elements, or `Err` if it cannot be allocated.
pub(crate) fn with_capacity<T>(len: usize, what: &str) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::NotRepresentable {
            detail: format!("cannot allocate {len} elements for {what}"),
        })?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_allocations_succeed() {
        assert_eq!(filled(3, 7u8, "x").unwrap(), vec![7, 7, 7]);
        assert!(with_capacity::<u8>(5, "x").unwrap().capacity() >= 5);
    }

    #[test]
    fn impossible_allocations_are_errors() {
        let e = filled(usize::MAX, 0u64, "vals").unwrap_err();
        assert!(e.to_string().contains("vals"));
        assert!(with_capacity::<u64>(usize::MAX / 2, "crd").is_err());
    }
}
