//! Mode orders: which logical mode each storage level holds.
//!
//! CSR and CSC share their levels `(Dense, Compressed)`; they differ only in
//! that CSC stores columns first. A mode order is a zero-sized type parameter
//! so that the permutation is known at compile time in generated kernels.

use crate::Error;
use std::fmt::Debug;

mod sealed {
    /// Only [`Identity`](super::Identity) and [`Modes`](super::Modes) are mode
    /// orders: generated kernels hard-code the permutation they name, so the
    /// runtime's view of it must be exactly theirs.
    pub trait Sealed {}
}

/// Maps storage levels to logical modes: storage level `k` holds mode `mode(k)`.
///
/// Sealed: implemented by [`Identity`] and [`Modes`] only. Validation checks
/// level sizes against the shape through `mode`, and generated kernels index
/// the levels of a tensor on the strength of that check with the permutation
/// its type names, so a user order that answered differently (or differently
/// on each call) could make them read out of bounds. A user type cannot
/// implement it:
///
/// ```compile_fail
/// use sparse_runtime::ModeOrder;
///
/// #[derive(Default, Clone, Copy, Debug)]
/// struct Flip;
///
/// impl ModeOrder for Flip {
///     fn mode(k: usize) -> usize { 1 - k }
/// }
/// ```
///
/// (The same type meets every other bound of the trait; only the seal is missing.)
///
/// ```
/// #[derive(Default, Clone, Copy, Debug)]
/// struct Flip;
/// fn other_bounds<T: Default + Copy + std::fmt::Debug + 'static>() {}
/// other_bounds::<Flip>();
/// ```
pub trait ModeOrder: sealed::Sealed + Default + Copy + Debug + 'static {
    /// The logical mode stored at storage level `k`.
    fn mode(k: usize) -> usize;

    /// Checks that this order is valid for a tensor with `order` modes.
    ///
    /// The default accepts any permutation of `0..order` in the first `order`
    /// levels.
    fn validate(order: usize) -> Result<(), Error> {
        check_permutation::<Self>(order)
    }
}

/// The identity order: storage level `k` holds logical mode `k` (row-major).
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity;

impl sealed::Sealed for Identity {}

impl ModeOrder for Identity {
    #[inline]
    fn mode(k: usize) -> usize {
        k
    }
}

/// An explicit order for up to six modes: storage level `k` holds mode `Mk`.
///
/// Unused trailing slots must keep their default `usize::MAX`; e.g. CSC is
/// `Modes<1, 0>`.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modes<
    const M0: usize,
    const M1: usize = { usize::MAX },
    const M2: usize = { usize::MAX },
    const M3: usize = { usize::MAX },
    const M4: usize = { usize::MAX },
    const M5: usize = { usize::MAX },
>;

impl<
        const M0: usize,
        const M1: usize,
        const M2: usize,
        const M3: usize,
        const M4: usize,
        const M5: usize,
    > sealed::Sealed for Modes<M0, M1, M2, M3, M4, M5>
{
}

/// Number of slots a [`Modes`] order has.
const MODES_SLOTS: usize = 6;

impl<
        const M0: usize,
        const M1: usize,
        const M2: usize,
        const M3: usize,
        const M4: usize,
        const M5: usize,
    > ModeOrder for Modes<M0, M1, M2, M3, M4, M5>
{
    #[inline]
    fn mode(k: usize) -> usize {
        match k {
            0 => M0,
            1 => M1,
            2 => M2,
            3 => M3,
            4 => M4,
            5 => M5,
            _ => usize::MAX,
        }
    }

    fn validate(order: usize) -> Result<(), Error> {
        check_permutation::<Self>(order)?;
        // A filled slot beyond the tensor's order means the type names a
        // different tensor than the one being built: reject, don't ignore.
        match (order..MODES_SLOTS).find(|&k| Self::mode(k) != usize::MAX) {
            None => Ok(()),
            Some(k) => Err(Error::InvalidModeOrder {
                order,
                detail: format!(
                    "slot {k} names mode {} but only {order} slots may be set",
                    Self::mode(k)
                ),
            }),
        }
    }
}

/// Checks that `O::mode(0..order)` is a permutation of `0..order`.
fn check_permutation<O: ModeOrder>(order: usize) -> Result<(), Error> {
    let mut seen = vec![false; order];
    for k in 0..order {
        let m = O::mode(k);
        let fresh = seen.get_mut(m).map(|s| !std::mem::replace(s, true));
        if fresh != Some(true) {
            let modes: Vec<usize> = (0..order).map(O::mode).collect();
            return Err(Error::InvalidModeOrder {
                order,
                detail: format!("modes {modes:?} are not a permutation of 0..{order}"),
            });
        }
    }
    Ok(())
}

/// Maps a logical coordinate or shape to storage order: `out[k] = logical[mode(k)]`.
///
/// Callers have validated `O` for `logical.len()` modes.
pub(crate) fn to_storage<O: ModeOrder>(logical: &[usize], out: &mut [usize]) {
    for (k, slot) in out.iter_mut().enumerate() {
        *slot = logical[O::mode(k)];
    }
}

/// Maps a storage-order coordinate back to logical order: `out[mode(k)] = storage[k]`.
pub(crate) fn to_logical<O: ModeOrder>(storage: &[usize], out: &mut [usize]) {
    for (k, &c) in storage.iter().enumerate() {
        out[O::mode(k)] = c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_is_valid_for_any_order() {
        assert_eq!(Identity::mode(3), 3);
        for order in 0..8 {
            assert_eq!(Identity::validate(order), Ok(()));
        }
    }

    #[test]
    fn modes_permutations_are_accepted() {
        assert_eq!(Modes::<1, 0>::validate(2), Ok(()));
        assert_eq!(Modes::<2, 0, 1>::validate(3), Ok(()));
        assert_eq!(Modes::<0>::validate(1), Ok(()));
    }

    #[test]
    fn modes_non_permutations_are_rejected() {
        let dup = Modes::<0, 0>::validate(2).unwrap_err();
        assert!(matches!(dup, Error::InvalidModeOrder { order: 2, .. }));
        let out_of_range = Modes::<0, 2>::validate(2).unwrap_err();
        assert!(out_of_range.to_string().contains("[0, 2]"));
        let too_few = Modes::<0>::validate(2).unwrap_err();
        assert!(matches!(too_few, Error::InvalidModeOrder { .. }));
        let too_many = Modes::<1, 0, 2>::validate(2).unwrap_err();
        assert!(too_many.to_string().contains("slot 2"));
    }

    #[test]
    fn storage_and_logical_round_trip() {
        let logical = [4, 5, 6];
        let mut storage = [0; 3];
        to_storage::<Modes<2, 0, 1>>(&logical, &mut storage);
        assert_eq!(storage, [6, 4, 5]);
        let mut back = [0; 3];
        to_logical::<Modes<2, 0, 1>>(&storage, &mut back);
        assert_eq!(back, logical);
    }
}
