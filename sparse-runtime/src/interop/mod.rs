//! Conversions to and from other Rust sparse and dense array crates, each behind a cargo
//! feature of the crate's name (none is enabled by default):
//!
//! | feature | module (present with the feature) | conversions |
//! |---|---|---|
//! | `sprs` | `interop::sprs` | `sprs::CsMatI` (CSR or CSC storage) ⟷ [`Csr`](crate::Csr), [`Csc`](crate::Csc); borrowed `CsMatViewI` of a `Csr`/`Csc` |
//! | `nalgebra-sparse` | `interop::nalgebra_sparse` | `CsrMatrix` ⟷ `Csr`, `CscMatrix` ⟷ `Csc`, `CooMatrix` ⟷ any format |
//! | `ndarray` | `interop::ndarray` | `Array1`/`Array2`/`Array3` (and views) ⟷ [`Dense1`](crate::Dense1), [`Dense2`](crate::Dense2), [`Dense3`](crate::Dense3); borrowed `ArrayView`s of them |
//!
//! ```toml
//! [dependencies]
//! sparse-runtime = { version = "0.1", features = ["sprs", "ndarray"] }
//! ```
//!
//! Conversions are `From`/`TryFrom` impls. Converting an owned value moves its arrays
//! whenever the two layouts agree (same index type, row-major contiguous data): no copy,
//! the allocations are reused. Converting a borrowed value (`&m`, a view) copies. What
//! comes in is validated by this crate's own constructors, whatever the other crate
//! checked ([`Csr::from_csr_arrays`](crate::Csr::from_csr_arrays),
//! [`Tensor::from_levels`](crate::Tensor::from_levels)), so no conversion builds an invalid
//! tensor; a conversion whose input may not fit (a dimension or index too large for the
//! target's index type, a negative index) returns `Result<_, Error>`.
//!
//! **Fill values.** sprs and nalgebra-sparse matrices have fill value zero (a component
//! they do not store is zero), so what comes from them has fill value zero, and a tensor
//! whose fill value ([`Tensor::fill`](crate::Tensor::fill)) is not zero is refused
//! (`NotRepresentable`) by every fallible conversion into them. The infallible
//! `From<Csr>` for nalgebra-sparse's `CsrMatrix` (and `From<Csc>` for `CscMatrix`)
//! cannot refuse: it moves the stored entries and **drops the fill value**; check
//! `a.fill()` first, or go through [`to_coo_matrix`](nalgebra_sparse::to_coo_matrix),
//! which refuses. ndarray's arrays and this crate's dense formats store every component,
//! so their fill value changes no component: a `Dense1`/`Dense2`/`Dense3` of any fill
//! value becomes an array of its components, and an array becomes a dense tensor of fill
//! value zero.

#[cfg(feature = "nalgebra-sparse")]
pub mod nalgebra_sparse;
#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "sprs")]
pub mod sprs;

#[cfg(any(feature = "sprs", feature = "nalgebra-sparse"))]
pub(crate) use index_arrays::{index_vec_in, index_vec_out};

/// `Ok` if `fill` is zero, the only fill value of `other`'s matrices, else
/// `NotRepresentable` naming both.
#[cfg(any(feature = "sprs", feature = "nalgebra-sparse"))]
pub(crate) fn zero_fill<V: crate::Value>(fill: V, other: &str) -> Result<(), crate::Error> {
    if fill == V::zero() {
        return Ok(());
    }
    Err(crate::Error::NotRepresentable {
        detail: format!(
            "the tensor's fill value is {fill:?}, but a {other} matrix has fill value zero \
             (a component it does not store is zero); convert the tensor to a dense format \
             to keep its values, or set its fill value to zero (`set_fill`) if zero is meant"
        ),
    })
}

/// Index arrays between this crate's index types and another crate's.
#[cfg(any(feature = "sprs", feature = "nalgebra-sparse"))]
mod index_arrays {
    use crate::{Error, Index};
    use std::any::Any;
    use std::fmt::Debug;

    /// `v` itself as a `Vec<B>` when `A` and `B` are the same type (moved: the allocation
    /// is reused), else `Err(v)`.
    fn reuse<A: 'static, B: 'static>(v: Vec<A>) -> Result<Vec<B>, Vec<A>> {
        let mut slot = Some(v);
        let same = (&mut slot as &mut dyn Any)
            .downcast_mut::<Option<Vec<B>>>()
            .and_then(Option::take);
        match (same, slot) {
            (Some(b), _) => Ok(b),
            (None, Some(a)) => Err(a),
            // The downcast took the vector only if it succeeded.
            (None, None) => unreachable!("a vector taken by a failed downcast"),
        }
    }

    /// Another crate's index array as `Vec<I>`: moved if its type is `I`, else converted
    /// entry by entry (`IndexOverflow` for an entry above `I`'s range, `NotRepresentable`
    /// for one that is no `usize`, such as a negative one). `what` names the array.
    pub(crate) fn index_vec_in<A, I>(
        v: Vec<A>,
        what: &str,
        to_usize: impl Fn(A) -> Option<usize>,
    ) -> Result<Vec<I>, Error>
    where
        A: Copy + Debug + 'static,
        I: Index,
    {
        let v = match reuse::<A, I>(v) {
            Ok(same) => return Ok(same),
            Err(v) => v,
        };
        v.into_iter()
            .map(|a| {
                let x = to_usize(a).ok_or_else(|| Error::NotRepresentable {
                    detail: format!("{what} holds {a:?}, which is not an index"),
                })?;
                I::try_from_usize(x).ok_or(Error::IndexOverflow {
                    index_type: I::NAME,
                    value: x,
                })
            })
            .collect()
    }

    /// An index array of this crate as another crate's `Vec<B>`: moved if `B` is `I`, else
    /// converted entry by entry (`IndexOverflow` naming `B` for an entry `B` cannot hold).
    pub(crate) fn index_vec_out<I, B>(
        v: Vec<I>,
        from_usize: impl Fn(usize) -> Option<B>,
    ) -> Result<Vec<B>, Error>
    where
        I: Index,
        B: 'static,
    {
        let v = match reuse::<I, B>(v) {
            Ok(same) => return Ok(same),
            Err(v) => v,
        };
        v.into_iter()
            .map(|i| {
                let x = i.to_usize();
                from_usize(x).ok_or(Error::IndexOverflow {
                    index_type: std::any::type_name::<B>(),
                    value: x,
                })
            })
            .collect()
    }
}
