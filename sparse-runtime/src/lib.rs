//! Runtime of a build-time sparse tensor algebra compiler.
//!
//! Write tensor index notation in [`sparse_kernel!`]; the macro compiles it at
//! build time into plain loops over the level structs of this crate. This
//! crate provides what those loops and their callers need:
//!
//! - level formats ([`Dense`], [`Compressed`], [`Singleton`], [`Hashed`], [`Range`],
//!   [`Offset`]) with `#[inline]`
//!   level functions, their properties configured by markers ([`NonUnique`]:
//!   `Compressed<u32, NonUnique>`, also spelled [`CompressedNonUnique`]);
//! - [`Tensor`], a shape plus a tuple of levels plus values, with construction
//!   from coordinates, validation of raw arrays, and enumeration of entries;
//! - format aliases ([`Csr`], [`Csc`], [`Coo`], [`Dense2`], ...), the remapped
//!   formats [`Dia`] and [`Ell`], and errors.
//!
//! A tensor's format is its level tuple (outermost level first) and its mode
//! order, following Chou, Kjolstad and Amarasinghe, "Format abstraction for
//! sparse tensor algebra compilers" (2018):
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 1.0), ([1, 0], 2.0), ([0, 2], 0.5)])?;
//! assert_eq!(a.levels().1.pos(), &[0, 1, 2]);
//! assert_eq!(a.entries(), vec![(vec![0, 2], 1.5), (vec![1, 0], 2.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

mod aliases;
mod alloc;
mod block;
mod build;
mod dense;
mod error;
mod index;
mod level;
mod levels;
mod mode_order;
mod reorder;
mod structured;
mod tensor;
mod validate;
mod value;
mod walk;

#[cfg(test)]
mod tests;

pub use aliases::{
    Coo, Coo3, Csc, Csf3, Csf4, Csr, Dcsc, Dcsr, Dense1, Dense2, Dense3, HashMat, HashVec,
    SparseVec,
};
pub use error::Error;
pub use index::Index;
pub use level::{
    Compressed, CompressedNonUnique, Dense, Hashed, Level, Markers, NonUnique, Offset, Padded,
    Properties, Range, Singleton, SingletonNonUnique, SingletonPadded,
};
pub use levels::Levels;
pub use mode_order::{Identity, ModeOrder, Modes};
pub use sparse_macros::sparse_kernel;
pub use structured::{Dia, Ell};
#[doc(hidden)]
pub use tensor::Assembly;
pub use tensor::Tensor;
pub use value::Value;

/// Everything a user of `sparse_kernel!` needs in scope.
pub mod prelude {
    pub use crate::{
        sparse_kernel, Compressed, CompressedNonUnique, Coo, Coo3, Csc, Csf3, Csf4, Csr, Dcsc,
        Dcsr, Dense, Dense1, Dense2, Dense3, Dia, Ell, Error, HashMat, HashVec, Hashed, Identity,
        Index, Level, Levels, ModeOrder, Modes, NonUnique, Padded, Singleton, SingletonNonUnique,
        SingletonPadded, SparseVec, Tensor, Value,
    };
}

/// Items generated code names by absolute path. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::block::{append_zero_block, block_len};
    pub use crate::reorder::Reordered;
    pub use crate::{Assembly, Error, Index, Level, Levels, Tensor, Value};
    pub use num_traits;
}
