//! The `sparse_kernel!` procedural macro: a thin shell over `sparse-core`, which does all the
//! work. Depend on `sparse-runtime`, which re-exports the macro, rather than on this crate.
use proc_macro::TokenStream;

/// The procedural macro behind `sparse_runtime::sparse_kernel!`, defined in the
/// `sparse-macros` crate, a thin shell over the compiler library `sparse-core`. Depend on
/// `sparse-runtime`, which re-exports it with the formats its kernels take; the
/// [documentation there](https://docs.rs/sparse-runtime/latest/sparse_runtime/macro.sparse_kernel.html)
/// is the guide to the language, with runnable examples.
#[proc_macro]
pub fn sparse_kernel(input: TokenStream) -> TokenStream {
    sparse_core::expand(input.into()).into()
}
