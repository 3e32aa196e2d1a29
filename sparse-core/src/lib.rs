//! The sparse tensor algebra compiler behind `sparse_kernel!`.
use proc_macro2::TokenStream;

/// Compiles the body of a `sparse_kernel!` invocation into Rust items.
pub fn expand(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
