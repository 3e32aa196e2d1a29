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
//!   format [`Dia`], the struct-held formats [`CooAos`], [`Bcsr`] and [`Csb`],
//!   and errors.
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
//!
//! # Level kinds
//!
//! Capabilities and properties of each level (Chou et al. 2018, Table 1); the
//! compiler reasons only about these. *Position* iteration walks stored
//! positions, *value* iteration every coordinate.
//!
//! | level | iteration | locate | assembly | full | ordered | unique | branchless | compact |
//! |---|---|---|---|---|---|---|---|---|
//! | [`Dense`] | value | yes | insert | yes | yes | yes | | yes |
//! | [`Compressed<I>`](Compressed) | position | | append | | yes | yes | | yes |
//! | [`Compressed<I, NonUnique>`](CompressedNonUnique) | position (runs) | | append | | yes | | | yes |
//! | [`Compressed<I, Unordered>`](Unordered) | position (reordered to merge) | | append | | | yes | | yes |
//! | [`Singleton<I>`](Singleton) | position | | append | | yes | yes | yes | yes |
//! | [`Singleton<I, NonUnique>`](SingletonNonUnique) | position (runs) | | append | | yes | | yes | yes |
//! | [`Singleton<I, Padded>`](SingletonPadded) | position (skips empty) | | | | yes | yes | yes | |
//! | [`Slotted<I>`](Slotted) | position (skips empty) | | | | yes | yes | | |
//! | [`Hashed<I>`](Hashed) | position (skips empty) | yes (found?) | insert (last level) | | | yes | | |
//! | [`Range`] (inside [`Dia`]) | position | | | | yes | yes | | yes |
//! | [`CompressedAos<I>`](CompressedAos) (inside [`CooAos`]) | position (runs) | | | | yes | | | yes |
//! | [`SingletonAos<I>`](SingletonAos) (inside [`CooAos`]) | position | | | | yes | yes | yes | yes |
//! | [`Offset`] (inside [`Dia`]) | position | | | | yes | yes | yes | yes |
//! | [`InBlock<B>`](InBlock) (inside [`Bcsr`]) | position (clipped at the edge) | | | | yes | yes | | yes |
//!
//! # Formats
//!
//! | alias | levels | mode order | good for |
//! |---|---|---|---|
//! | [`Dense1`], [`Dense2`], [`Dense3`] | `(Dense, ..)` | identity | dense data |
//! | [`SparseVec`] | `(Compressed,)` | identity | sparse vectors |
//! | [`Csr`] | `(Dense, Compressed)` | identity | general sparse matrices, row access |
//! | [`Csc`] | `(Dense, Compressed)` | `Modes<1, 0>` | column access |
//! | [`Dcsr`], [`Dcsc`] | `(Compressed, Compressed)` | identity, `Modes<1, 0>` | hypersparse matrices (most rows empty) |
//! | [`Coo`] | `(Compressed<I, NonUnique>, Singleton)` | identity | unsorted triples, one pass |
//! | [`Csf3`], [`Csf4`] | `(Compressed, ..)` | identity | sparse 3- and 4-tensors |
//! | [`Coo3`] | `(Compressed<I, NonUnique>, Singleton<I, NonUnique>, Singleton)` | identity | 3-tensor triples |
//! | [`HashVec`], [`HashMat`] | `(Hashed,)`, `(Dense, Hashed)` | identity | random-access construction and updates |
//! | [`Dia`] | `(Dense, Range, Offset)` over `(d, i, j)` | remapped | banded matrices, grid stencils |
//! | [`Ell`] | `(Dense, Slotted)` | identity | about as many entries in every row |
//! | [`CooAos`] | `(CompressedAos, SingletonAos)` over one pair array | identity | coordinate pairs used as they arrive |
//! | [`Bcsr`] | `(Dense, Compressed, InBlock, InBlock)` over `(i / R, j / C, i, j)` | remapped | matrices of small dense blocks (finite elements) |
//! | [`Csb`] | `(Dense, Dense, CompressedNonUnique, Singleton)` over `(i / beta, j / beta, i, j)` | remapped | `A x` and `Aᵀ x` from one copy, local and parallel-friendly blocks |
//!
//! Any other composition is written out as [`Tensor<V, (levels..), Modes<..>>`](Tensor).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

mod aliases;
mod alloc;
mod block;
mod blocked;
mod build;
mod compute;
pub mod convert;
mod csb;
mod dense;
mod error;
mod everyday;
pub mod guide;
mod index;
pub mod interop;
pub mod io;
mod iter;
mod level;
mod levels;
mod mode_order;
mod reorder;
mod slice;
mod structured;
mod tensor;
mod validate;
mod value;
mod view;
mod walk;
mod workspace;

#[cfg(test)]
mod tests;

pub use aliases::{
    Coo, Coo3, Csc, Csf3, Csf4, Csr, Dcsc, Dcsr, Dense1, Dense2, Dense3, Ell, HashMat, HashVec,
    SparseVec,
};
pub use blocked::{Bcsr, BlockView};
pub use csb::{Csb, CsbView};
pub use error::Error;
pub use index::Index;
pub use iter::{Coord, Iter};
pub use level::{
    Compressed, CompressedAos, CompressedNonUnique, Dense, Hashed, InBlock, Level, Markers,
    NonUnique, Offset, Padded, Properties, Range, Singleton, SingletonAos, SingletonNonUnique,
    SingletonPadded, Slotted, Unordered,
};
pub use levels::Levels;
pub use mode_order::{Identity, ModeOrder, Modes};
pub use sparse_macros::sparse_kernel;
pub use structured::{CooAos, Dia};
#[doc(hidden)]
pub use tensor::Assembly;
pub use tensor::Tensor;
pub use value::Value;
pub use view::{Dense2View, Dense2ViewMut, Dense3View, Dense3ViewMut};

/// Everything a user of `sparse_kernel!` needs in scope.
pub mod prelude {
    pub use crate::convert::{Source, Target};
    pub use crate::{
        sparse_kernel, Bcsr, Compressed, CompressedNonUnique, Coo, Coo3, CooAos, Csb, Csc, Csf3,
        Csf4, Csr, Dcsc, Dcsr, Dense, Dense1, Dense2, Dense2View, Dense2ViewMut, Dense3,
        Dense3View, Dense3ViewMut, Dia, Ell, Error, HashMat, HashVec, Hashed, Identity, Index,
        Level, Levels, ModeOrder, Modes, NonUnique, Padded, Singleton, SingletonNonUnique,
        SingletonPadded, Slotted, SparseVec, Tensor, Unordered, Value,
    };
}

/// Items generated code names by absolute path. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::block::{append_zero_block, block_len};
    pub use crate::compute::{check_all_stored, store_next};
    pub use crate::reorder::Reordered;
    pub use crate::slice::{restore, take_for_update, DenseSlice, DenseSliceMut};
    pub use crate::workspace::{workspace_size, DenseAccumulator, HashAccumulator};
    pub use crate::{Assembly, Error, Index, Level, Levels, Tensor, Value};
    pub use num_traits;
}
