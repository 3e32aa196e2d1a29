//! The `sparse_kernel!` procedural macro: a thin shell over `sparse-core`.
use proc_macro::TokenStream;

/// Compiles tensor index notation into Rust loops; see the `sparse-runtime` crate docs.
#[proc_macro]
pub fn sparse_kernel(input: TokenStream) -> TokenStream {
    sparse_core::expand(input.into()).into()
}
