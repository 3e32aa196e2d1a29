//! Integer types usable in `pos` and `crd` arrays.
//!
//! Levels store positions and coordinates in a narrow integer type `I` to save
//! memory bandwidth, but every level function takes and returns `usize`. This
//! trait is the bridge between the two.

use std::fmt::Debug;

mod sealed {
    /// Only `u32`, `u64` and `usize` are index types: validation compares
    /// coordinates in `I` and kernels then read them through `to_usize`
    /// without bounds checks, so both must be the primitive conversions.
    pub trait Sealed {}
}

/// An unsigned integer type that can hold positions and coordinates of a level.
///
/// Implemented for `u32`, `u64` and `usize` only. Values are converted to
/// `usize` on every access, so the conversions are `#[inline]` and branch-free.
///
/// The trait is sealed: generated kernels index arrays without bounds checks
/// using `to_usize` of validated coordinates, which is sound only because
/// every implementation is a primitive, lossless conversion. A user type
/// cannot implement it:
///
/// ```compile_fail
/// use sparse_runtime::Index;
///
/// #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Debug)]
/// struct Evil(u32);
///
/// impl Index for Evil {
///     const NAME: &'static str = "Evil";
///     fn to_usize(self) -> usize { self.0 as usize * 1_000_000 }
///     fn try_from_usize(x: usize) -> Option<Self> { u32::try_from(x).ok().map(Evil) }
///     fn from_usize_unchecked(x: usize) -> Self { Evil(x as u32) }
///     fn max_usize() -> usize { u32::MAX as usize }
/// }
/// ```
///
/// (The same type meets every other bound of the trait; only the seal is missing.)
///
/// ```
/// #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Debug)]
/// struct Evil(u32);
/// fn other_bounds<T: Copy + Ord + Default + std::fmt::Debug + Send + Sync + 'static>() {}
/// other_bounds::<Evil>();
/// ```
pub trait Index: sealed::Sealed + Copy + Ord + Default + Debug + Send + Sync + 'static {
    /// The type's name, used in error messages (`"u32"`, ...).
    const NAME: &'static str;

    /// Widens (or, for `u64` on 32-bit targets, reinterprets) the value as a `usize`.
    fn to_usize(self) -> usize;

    /// Converts `x` if it fits, `None` otherwise.
    fn try_from_usize(x: usize) -> Option<Self>;

    /// Converts `x` with a plain `as` cast.
    ///
    /// Callers guarantee that `x` fits (it is a coordinate below a size that
    /// was checked to fit); a value that does not fit is truncated, which is a
    /// logic error but never memory-unsafe. Debug builds assert that it fits.
    fn from_usize_unchecked(x: usize) -> Self;

    /// The largest value of this type that is also a `usize`.
    fn max_usize() -> usize;
}

macro_rules! impl_index {
    ($($t:ident),*) => {$(
        impl sealed::Sealed for $t {}

        impl Index for $t {
            const NAME: &'static str = stringify!($t);

            #[inline]
            fn to_usize(self) -> usize {
                self as usize
            }

            #[inline]
            fn try_from_usize(x: usize) -> Option<Self> {
                Self::try_from(x).ok()
            }

            #[inline]
            fn from_usize_unchecked(x: usize) -> Self {
                debug_assert!(x <= Self::max_usize(), "{x} does not fit {}", Self::NAME);
                x as Self
            }

            #[inline]
            fn max_usize() -> usize {
                // Saturates where the type is wider than usize (u64 on 32-bit targets).
                usize::try_from(Self::MAX).unwrap_or(usize::MAX)
            }
        }
    )*};
}

impl_index!(u32, u64, usize);

/// Converts `x` to `I`, or `Err(IndexOverflow)` naming `I` and `x`.
pub(crate) fn fits<I: Index>(x: usize) -> Result<I, crate::Error> {
    I::try_from_usize(x).ok_or_else(|| crate::Error::overflow::<I>(x))
}

#[cfg(test)]
mod tests {
    use super::{fits, Index};
    use crate::Error;

    #[test]
    fn u32_conversions() {
        assert_eq!(u32::NAME, "u32");
        assert_eq!(u32::max_usize(), u32::MAX as usize);
        assert_eq!(u32::try_from_usize(7), Some(7));
        assert_eq!(u32::try_from_usize(u32::MAX as usize), Some(u32::MAX));
        assert_eq!(u32::try_from_usize(u32::MAX as usize + 1), None);
        assert_eq!(u32::from_usize_unchecked(42).to_usize(), 42);
    }

    #[test]
    fn fits_reports_the_type_and_value() {
        assert_eq!(fits::<u32>(5), Ok(5u32));
        assert_eq!(
            fits::<u32>(1 << 32),
            Err(Error::IndexOverflow {
                index_type: "u32",
                value: 1 << 32
            })
        );
    }

    #[test]
    fn u64_and_usize_conversions() {
        assert_eq!(u64::NAME, "u64");
        assert_eq!(usize::NAME, "usize");
        assert_eq!(usize::max_usize(), usize::MAX);
        assert_eq!(u64::try_from_usize(usize::MAX), Some(usize::MAX as u64));
        assert_eq!(usize::try_from_usize(123), Some(123));
        assert_eq!(u64::from_usize_unchecked(9).to_usize(), 9);
    }
}
