//! The `sparse_kernel!` procedural macro: a thin shell over `sparse-core`, which does all the
//! work. Depend on `sparse-runtime`, which re-exports the macro, rather than on this crate.
use proc_macro::TokenStream;

/// Compiles tensor index notation into a Rust function at build time.
///
/// The block holds one or more `fn` items. Each parameter's type names a tensor format
/// (`&Csr<f64>`, `&mut Dense1<f64>`, `&Tensor<f64, (Dense, Compressed), Modes<1, 0>>`, ...) or
/// is a plain scalar (`alpha: f64`); the body is one statement of index notation,
/// `y(i) = a(i, j) * x(j)` or `y(i) += ...`. The generated function keeps the signature and
/// returns `Result<(), sparse_runtime::Error>`, which is an error when index variables bind
/// dimensions of different sizes.
///
/// Errors in the notation (unknown tensors, wrong arity, a loop order no format admits, ...)
/// are compile errors at the offending tokens. See the `sparse-runtime` crate documentation and
/// README for the language and the formats.
#[proc_macro]
pub fn sparse_kernel(input: TokenStream) -> TokenStream {
    sparse_core::expand(input.into()).into()
}
