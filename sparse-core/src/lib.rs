//! The sparse tensor algebra compiler behind `sparse_kernel!`, as an ordinary library.
//!
//! ```text
//! tokens --parse/check--> Kernel (index notation with explicit sums)
//!        --iteration graph--> loop order
//!        --merge lattices + lowering--> IR (loops, merges, cases, assembly calls)
//!        --emission--> Rust tokens calling the runtime's level functions
//! ```

pub mod check;
pub mod diagnostic;
pub mod emit;
pub mod format;
pub mod ir;
pub mod iteration_graph;
pub mod lattice;
pub mod limits;
pub mod lower;
pub mod names;
pub mod notation;
pub mod signature;
pub mod split;

use diagnostic::Diagnostics;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};

/// One item of a `sparse_kernel!` invocation: a function, or one whose body was too large to
/// be parsed safely (its signature, for the stub, and the error).
type KernelItem = Result<syn::ItemFn, (syn::ItemFn, syn::Error)>;

/// The items of one `sparse_kernel!` invocation.
struct KernelItems(Vec<KernelItem>);

impl Parse for KernelItems {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(parse_kernel_fn(input)?);
        }
        Ok(KernelItems(items))
    }
}

/// A function item whose body is parsed only if it is within [`limits::MAX_BODY_TOKENS`].
fn parse_kernel_fn(input: ParseStream) -> syn::Result<KernelItem> {
    let mut attrs = input.call(syn::Attribute::parse_outer)?;
    let vis: syn::Visibility = input.parse()?;
    let sig: syn::Signature = input.parse()?;
    let body: proc_macro2::Group = input.parse()?;
    if body.delimiter() != proc_macro2::Delimiter::Brace {
        return Err(syn::Error::new(
            body.span(),
            "expected a function body `{ ... }`",
        ));
    }
    let mut block = Box::new(syn::Block {
        brace_token: syn::token::Brace(body.delim_span()),
        stmts: Vec::new(),
    });
    let tokens = limits::count_tokens(&body.stream());
    if tokens > limits::MAX_BODY_TOKENS {
        let item = syn::ItemFn {
            attrs,
            vis,
            sig,
            block,
        };
        return Ok(Err((item, limits::body_too_large(&body, tokens))));
    }
    let parse_body = |content: ParseStream| {
        let inner = content.call(syn::Attribute::parse_inner)?;
        let stmts = content.call(syn::Block::parse_within)?;
        Ok((inner, stmts))
    };
    let (inner, stmts) = syn::parse::Parser::parse2(parse_body, body.stream())?;
    attrs.extend(inner);
    block.stmts = stmts;
    Ok(Ok(syn::ItemFn {
        attrs,
        vis,
        sig,
        block,
    }))
}

/// Compiles the body of a `sparse_kernel!` invocation into Rust items. Never panics: user
/// errors and internal failures become `compile_error!`s.
pub fn expand(input: TokenStream) -> TokenStream {
    if let Err(e) = limits::check_nesting(&input) {
        return e.to_compile_error();
    }
    let items = match syn::parse2::<KernelItems>(input) {
        Ok(items) => items.0,
        Err(e) => return e.to_compile_error(),
    };
    if items.len() > limits::MAX_KERNELS {
        // Only stubs: compiling them all could take longer than a macro should.
        let signature = |item: &KernelItem| match item {
            Ok(f) | Err((f, _)) => f.sig.ident.span(),
        };
        let error = syn::Error::new(
            signature(&items[limits::MAX_KERNELS]),
            format!(
                "one `sparse_kernel!` holds at most {} functions, this one {}\nhelp: split them into several `sparse_kernel!` blocks",
                limits::MAX_KERNELS,
                items.len()
            ),
        );
        let mut out = error.to_compile_error();
        for item in &items {
            let (Ok(f) | Err((f, _))) = item;
            out.extend(stub_only(f));
        }
        return out;
    }
    items
        .into_iter()
        .map(|item| match item {
            Ok(item) => compile_fn(&item),
            Err((item, error)) => stub(&item, error),
        })
        .collect()
}

/// Everything the compiler knows about one kernel, for tests and tools.
pub struct Compiled {
    /// The checked kernel.
    pub kernel: notation::Kernel,
    /// The loop order of each loop nest (more than one when the statement was split).
    pub orders: Vec<Vec<notation::VarId>>,
    /// The lowered body.
    pub body: Vec<ir::Stmt>,
    /// The identifier of every local of the body.
    pub names: names::Names,
}

/// Runs the pipeline on one function, collecting diagnostics.
pub fn compile(item: &syn::ItemFn) -> Result<Compiled, syn::Error> {
    let mut diags = Diagnostics::default();
    let result = (|| {
        let kernel = check::check(item, &mut diags)?;
        let parts = split::parts(&kernel, &mut diags)?;
        let mut body = Vec::new();
        for part in &parts {
            match lower::lower(&part.kernel, &part.order) {
                Ok(stmts) => body.extend(stmts),
                Err(internal) => {
                    diags.error(
                        item.sig.ident.span(),
                        format!("internal error in sparse_kernel! (please report it): {internal}"),
                    );
                    return None;
                }
            }
        }
        let orders = parts.into_iter().map(|p| p.order).collect();
        let names = names::Names::new(&kernel, emit::locals(&kernel, &body));
        Some(Compiled {
            kernel,
            orders,
            body,
            names,
        })
    })();
    match (result, diags.into_error()) {
        (Some(c), None) => Ok(c),
        (_, Some(e)) => Err(e),
        (None, None) => Err(syn::Error::new(
            item.sig.ident.span(),
            "internal error in sparse_kernel!: a check failed without a diagnostic",
        )),
    }
}

fn compile_fn(item: &syn::ItemFn) -> TokenStream {
    match compile(item) {
        Ok(c) => emit::kernel_fn(item, &c.kernel, &c.body, &c.names),
        Err(e) => stub(item, e),
    }
}

/// On error: the errors plus the function's signature with a stub body, so callers see one
/// error at the kernel rather than a cascade at every call site.
fn stub(item: &syn::ItemFn, error: syn::Error) -> TokenStream {
    let mut out = error.to_compile_error();
    out.extend(stub_only(item));
    out
}

/// The function's signature with an unreachable body.
fn stub_only(item: &syn::ItemFn) -> TokenStream {
    // Only what a plain function may carry, so the stub adds no error of its own.
    let attrs = item
        .attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Outer));
    let vis = &item.vis;
    let mut sig = emit::signature(&item.sig);
    sig.constness = None;
    sig.asyncness = None;
    sig.unsafety = None;
    sig.abi = None;
    sig.variadic = None;
    quote! {
        #(#attrs)*
        #[allow(unused_variables)]
        #vis #sig {
            ::core::unreachable!("sparse_kernel! reported a compile error for this kernel")
        }
    }
}
