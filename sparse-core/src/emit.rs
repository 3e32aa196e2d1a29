//! Rust emission: the IR becomes a plain monomorphic function that checks shapes on entry, binds
//! the level structs it uses, and runs the loop nest calling `#[inline]` level functions.
//!
//! Soundness rests on rustc's type check: the expanded signature names every tensor by the
//! canonical runtime type the compiler assumed (absolute paths), and the body asserts that the
//! type the user wrote is that type, so an alias, re-export or look-alike type is a compile
//! error rather than a wrong layout. Every local is an identifier from [`Names`] with a
//! mixed-site span, out of reach of user identifiers.

use crate::format::Borrow;
use crate::ir::{visit_locals, Assign, Bound, Expr, Fold, Local, Op, Split, Stmt, ValueConst};
use crate::names::Names;
use crate::notation::Kernel;
use crate::signature::{is_float, is_primitive, is_unsigned};
use proc_macro2::{Delimiter, Group, Ident, Literal, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::HashSet;
use syn::spanned::Spanned;

/// What a generated function is to the assemble/compute split (taco, section 7).
#[derive(Clone, Copy, Debug)]
pub enum Role<'a> {
    /// A kernel without a compute-only variant.
    Plain,
    /// A kernel whose compute-only variant exists: it records, when it finishes assembling
    /// its output, its id and its operands' patterns.
    Assembler {
        /// The kernel's id (a hash of its canonical text).
        id: u64,
    },
    /// The compute-only variant `name` of kernel `assembler` (id `id`): it checks that the
    /// output was assembled by it for the operands' current patterns, then writes only values.
    ComputeOnly {
        /// The assembling kernel's id.
        id: u64,
        /// The variant's name.
        name: &'a Ident,
    },
    /// The entry checks of one statement of a sequence kernel (`crate::sequence`), run for
    /// every statement before the first one runs; the fill values of the tensors written by
    /// earlier statements are checked when the statement itself runs.
    ChecksOnly {
        /// The names earlier statements write.
        written_before: &'a [Ident],
    },
}

/// The whole generated function.
pub fn kernel_fn(item: &syn::ItemFn, kernel: &Kernel, body: &[Stmt], names: &Names) -> TokenStream {
    kernel_fn_as(item, kernel, body, names, Role::Plain)
}

/// [`kernel_fn`] in a role of the assemble/compute split.
pub fn kernel_fn_as(
    item: &syn::ItemFn,
    kernel: &Kernel,
    body: &[Stmt],
    names: &Names,
    role: Role<'_>,
) -> TokenStream {
    let attrs = &item.attrs;
    let vis = &item.vis;
    let mut sig = canonical_signature(&item.sig, kernel);
    if let Role::ComputeOnly { name, .. } = role {
        sig.ident = name.clone();
    }
    let mut used = HashSet::new();
    visit_locals(body, &mut |l| {
        used.insert(l);
    });
    let e = Emitter {
        kernel,
        names,
        used: &used,
        role,
    };
    let assertions = type_assertions(kernel);
    let cases = case_fns(kernel);
    let assertions = quote!(#assertions #(#cases)*);
    let views = remapped_views(kernel);
    // Run-time errors name the function the user called.
    let called = match role {
        Role::ComputeOnly { name, .. } => name,
        _ => &kernel.name,
    };
    let mut checks = shape_checks(kernel, called);
    checks.extend(e.fill_checks());
    if let Role::ChecksOnly { .. } = role {
        return quote! {
            #[allow(unused_variables, clippy::all)]
            #sig {
                #assertions
                #views
                #checks
                ::core::result::Result::Ok(())
            }
        };
    }
    checks.extend(e.assembled_check());
    checks.extend(conversions(kernel));
    let dims = e.dim_bindings();
    let bindings = e.tensor_bindings();
    let stmts = e.disjoint_slices(e.block(body));
    let mut finish = e.finish_assembly();
    finish.extend(e.output_fill());
    // SAFETY (of the block below): every position passed to an `_unchecked` level function or
    // slice access comes from a level's own `pos_bounds` (or, for a level of constant-width
    // segments, from `width()` where its `is_uncut()` held, which makes every segment that
    // long), from `locate` over coordinates below the level size, or from a parent position
    // of a validated tensor, and is read only where
    // its operand is present; the shape checks above make every dimension bound by one index
    // variable equal, so coordinates read from one tensor index the others in range (through
    // a window, `check_window` made `lo <= hi <= size` and `step >= 1`, and the variable's
    // size is `window_len`, so `lo + step * i < hi` for every `i` below it, and a segment
    // narrowed by `seek` stays within the level's own bounds; a register block's coordinates
    // `block_start + lane` are below the dimension, as `block_start + width <= dim` for the
    // block's width and `lane < width`, and `locate(p, block_start) + lane` of a contiguous
    // level is `locate(p, block_start + lane)`); the
    // assertions above make rustc prove each tensor has the format the code was generated
    // for; a workspace's keys are its coordinates linearized over the dimensions its size is
    // the product of, so each is below that size (`add_unchecked`), and its entries are read
    // (`key_unchecked`, `value_unchecked`) only at cursors below the count `sort`/`len`
    // returned (a compute-only variant reads its dense workspace at coordinates of the
    // output's validated pattern, below the level size, which the shape checks make the
    // workspace's size, and writes values only at positions of that pattern's own
    // `pos_bounds`); a sparse output is appended through its assembly guard only in coordinate
    // order and finalized before `finish`, which keeps its invariants, and any early return
    // (`?`) or unwinding drops the guard, which leaves it the valid empty tensor of its shape.
    // Inside a parallel loop over a dense output's rows (`parallel_rows`, which splits the
    // values into exactly `dim` rows of equal length `len` or returns `Err`, and hands a task
    // rows `row_lo..row_hi` as the slice from `row_base = row_lo * len`), a position located
    // under a row's coordinate `i` lies in `[i * len, (i + 1) * len)` (dense levels' positions
    // are row-major, `crate::parallel`), so `p - row_base` indexes the task's slice in range.
    // In a parallel loop over the positions of an ordered level whose coordinates are the
    // output's rows (`parallel_positions`), a task starts at a run of equal coordinates and
    // its rows run from the coordinate of its first position to that of the next task's
    // first (the first task from 0, the last to `dim`); a validated ordered level's
    // coordinates never decrease along its segment, so every position of the task has its
    // coordinate `i` in the task's rows. The runtime reads a coordinate
    // (`pos_access_unchecked`) only at positions in the root segment `p..end` that
    // `pos_bounds` gave (`parallel_positions`' contract). A fold in chunks runs its loop's
    // body for iterations `chunk_lo..chunk_hi`, consecutive chunks of the loop's own range
    // `lo..hi` (`parallel_fold_chunks`, which `parallel_fold` splits too), so every iteration
    // it runs is one the serial loop runs, with the same bindings.
    let body = quote! {
        unsafe {
            #bindings
            #stmts
            #finish
        }
    };
    let body = match kernel.old_output {
        None => quote! {
            #body
            ::core::result::Result::Ok(())
        },
        Some(old) => update(kernel, old, body),
    };
    let conversion_docs = conversion_docs(kernel);
    quote! {
        #(#attrs)*
        #conversion_docs
        #[allow(unused_unsafe, clippy::all)]
        #vis #sig {
            #assertions
            #views
            #checks
            #dims
            #body
        }
    }
}

/// A sequence kernel's function (`crate::sequence`): the user's signature with canonical
/// tensor types, each tensor's type asserted, around `body`, which calls the statements.
pub fn sequence_fn(item: &syn::ItemFn, body: TokenStream) -> TokenStream {
    let params =
        crate::signature::read_params(&item.sig, &mut crate::diagnostic::Diagnostics::default());
    let tensors: Vec<(&Ident, TokenStream, &syn::Type)> = params
        .iter()
        .filter_map(|p| match &p.kind {
            crate::signature::ParamKind::Tensor(f) => {
                Some((&p.name, f.canonical_type(&p.value_type), &p.inner))
            }
            crate::signature::ParamKind::Scalar => None,
        })
        .collect();
    let sig = canonical_signature_by(&item.sig, |name| {
        tensors
            .iter()
            .find(|(n, _, _)| crate::names::same(n, name))
            .map(|(_, canonical, _)| canonical.clone())
    });
    let assertions: TokenStream = tensors
        .iter()
        .map(|(_, canonical, written)| type_assertion(canonical, written))
        .collect();
    let attrs = &item.attrs;
    let vis = &item.vis;
    quote! {
        #(#attrs)*
        #[allow(clippy::all)]
        #vis #sig {
            #assertions
            #body
            ::core::result::Result::Ok(())
        }
    }
}

/// An output whose old contents are read (`+=` into an appended sparse output, or the output
/// on the right side): they move into an update guard, whose parts rebind the output and name
/// the old contents for the body (the output is left the zero tensor of its shape, which
/// assembly starts from). The guard puts them back unless the body finishes, so neither an
/// error nor a panic loses anything.
fn update(kernel: &Kernel, old: usize, body: TokenStream) -> TokenStream {
    let old = &kernel.tensors[old].name;
    let Some(out) = kernel.output_access() else {
        return body;
    };
    let out = &kernel.tensors[kernel.accesses[out].tensor].name;
    let result = Ident::new("result", Span::mixed_site());
    let guard = Ident::new("update", Span::mixed_site());
    quote! {
        let mut #guard = ::sparse_runtime::__private::Update::take(#out)?;
        let #result = (|| -> ::core::result::Result<(), ::sparse_runtime::Error> {
            let (#out, #old) = #guard.parts();
            #body
            ::core::result::Result::Ok(())
        })();
        if #result.is_ok() {
            #guard.keep();
        }
        #result
    }
}

/// The label of reduction `n`'s loops (mixed-site: no user label can name it).
fn reduce_label(n: usize) -> syn::Lifetime {
    syn::Lifetime::new(&format!("'reduce_{n}"), Span::mixed_site())
}

/// A per-case body's function, nested in the kernel's (mixed-site name): its own item, so
/// the user's body is never inside the kernel's `unsafe` block nor sees the kernel's locals.
fn case_name(f: usize, n: usize) -> Ident {
    Ident::new(&format!("case_{f}_{n}"), Span::mixed_site())
}

fn case_fns(kernel: &Kernel) -> Vec<TokenStream> {
    let v = &kernel.value_type;
    let mut out = Vec::new();
    for (f, function) in kernel.functions.iter().enumerate() {
        for (n, case) in function.cases.iter().enumerate() {
            let params = case.args.iter().filter_map(|a| match a {
                crate::algebra::CaseArg::Bind(name) => Some(quote!(#name: #v)),
                crate::algebra::CaseArg::Const(_) => None,
            });
            let body = &case.body;
            let name = case_name(f, n);
            out.push(quote! {
                #[allow(dead_code)]
                #[inline]
                fn #name(#(#params),*) -> #v { #body }
            });
        }
    }
    out
}

/// Every local a kernel's code binds or reads (the body's, and the bindings emission adds),
/// for naming them.
pub fn locals(kernel: &Kernel, body: &[Stmt]) -> Vec<Local> {
    let mut out: Vec<Local> = (0..kernel.tensors.len()).map(Local::Assembly).collect();
    visit_locals(body, &mut |l| out.push(l));
    out
}

/// The user's signature, returning `Result<(), Error>`.
pub fn signature(sig: &syn::Signature) -> syn::Signature {
    let mut sig = sig.clone();
    // `#[fill(..)]` is the compiler's, not rustc's.
    for arg in sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(pt) = arg {
            pt.attrs.clear();
        }
    }
    sig.output = syn::parse_quote!(-> ::core::result::Result<(), ::sparse_runtime::Error>);
    sig
}

/// The signature with every tensor parameter's type replaced by its canonical runtime type.
fn canonical_signature(sig: &syn::Signature, kernel: &Kernel) -> syn::Signature {
    canonical_signature_by(sig, |name| {
        let t = kernel
            .tensors
            .iter()
            .position(|t| crate::names::same(&t.name, name))?;
        Some(kernel.param_format(t).canonical_type(&kernel.value_type))
    })
}

/// The signature with the type of every parameter `canonical` knows replaced by the canonical
/// runtime type it gives, behind the written reference.
fn canonical_signature_by(
    sig: &syn::Signature,
    canonical: impl Fn(&Ident) -> Option<TokenStream>,
) -> syn::Signature {
    let mut sig = signature(sig);
    for arg in sig.inputs.iter_mut() {
        let syn::FnArg::Typed(pt) = arg else {
            continue;
        };
        let syn::Pat::Ident(pat) = &*pt.pat else {
            continue;
        };
        let Some(canonical) = canonical(&pat.ident) else {
            continue;
        };
        let mutability = match ungroup(&pt.ty) {
            syn::Type::Reference(r) => r.mutability,
            _ => None,
        };
        *pt.ty = syn::parse_quote!(&#mutability #canonical);
    }
    sig
}

fn ungroup(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Group(g) => ungroup(&g.elem),
        syn::Type::Paren(p) => ungroup(&p.elem),
        other => other,
    }
}

/// `PhantomData<written> : PhantomData<canonical>` for every tensor: rustc rejects the kernel
/// (at the type the user wrote) unless the written type is the canonical one.
fn type_assertions(kernel: &Kernel) -> TokenStream {
    kernel
        .tensors
        .iter()
        .enumerate()
        // The old contents of an output have its type; a parameter the statement does not
        // access (one a statement of a sequence does not use) is not touched by its code.
        .filter(|&(id, _)| Some(id) != kernel.old_output && accessed(kernel, id))
        .map(|(id, t)| {
            let canonical = kernel.param_format(id).canonical_type(&kernel.value_type);
            type_assertion(&canonical, &t.written_type)
        })
        .collect()
}

fn accessed(kernel: &Kernel, tensor: usize) -> bool {
    kernel.accesses.iter().any(|a| a.tensor == tensor)
}

/// Whether a kernel checks anything on entry besides its parameters' types: a sequence
/// kernel runs the checks of each of its statements that does before any statement.
pub fn has_entry_checks(kernel: &Kernel) -> bool {
    !shape_checks(kernel, &kernel.name).is_empty() || !fill_checked(kernel).is_empty()
}

/// The tensors whose fill value a kernel checks on entry: every sparse one it reads (not an
/// output it overwrites, nor the old contents it moves out of the output, checked as the
/// output).
fn fill_checked(k: &Kernel) -> Vec<usize> {
    let overwritten = k
        .output_access()
        .map(|a| k.accesses[a].tensor)
        .filter(|_| k.old_output.is_none() && k.op == crate::notation::AssignOp::Assign);
    (0..k.tensors.len())
        .filter(|&t| k.accesses.iter().any(|a| a.tensor == t))
        .filter(|&t| Some(t) != k.old_output && Some(t) != overwritten)
        .filter(|&t| !k.param_format(t).is_all_dense())
        .collect()
}

/// `PhantomData<written> : PhantomData<canonical>`, spanned at the written type, where rustc
/// reports a mismatch.
fn type_assertion(canonical: &TokenStream, written: &syn::Type) -> TokenStream {
    let value = quote_spanned!(written.span()=> ::core::marker::PhantomData::<#written>);
    quote! {
        let _: ::core::marker::PhantomData<#canonical> = #value;
    }
}

/// `let a = a.view();` for every remapped tensor: from here on the kernel reads the stored view
/// (`Dia`'s `(Dense, Range, Offset)` tensor), whose shape lists the levels' sizes in storage
/// order ([`Format::shape_index`](crate::format::Format::shape_index)).
///
/// A slice parameter is rebound to a vector view of it (`Dense1View`, or for the output
/// `&mut Dense1ViewMut`), which answers the calls the kernel makes on a `Dense1`.
fn remapped_views(kernel: &Kernel) -> TokenStream {
    let output = kernel.output_access().map(|a| kernel.accesses[a].tensor);
    kernel
        .tensors
        .iter()
        .enumerate()
        .filter(|&(t, _)| Some(t) != kernel.old_output)
        .map(|(t, tensor)| {
            let name = &tensor.name;
            match (tensor.format.remap, tensor.format.borrow) {
                (Some(_), _) => quote! { let #name = #name.view(); },
                (None, Borrow::Slice) if Some(t) == output => quote! {
                    let #name = &mut ::sparse_runtime::Dense1ViewMut::from_slice(#name);
                },
                (None, Borrow::Slice) => quote! {
                    let #name = ::sparse_runtime::Dense1View::from_slice(#name);
                },
                (None, Borrow::Owned | Borrow::View(_)) => TokenStream::new(),
            }
        })
        .collect()
}

/// `let c = &Temporary::from_source(c)?;` for every converted operand (`crate::conversion`):
/// from here on the kernel reads the temporary, which stores the same components in the
/// mode order its loops traverse.
fn conversions(kernel: &Kernel) -> TokenStream {
    kernel
        .conversions
        .iter()
        .map(|c| {
            let name = &kernel.tensors[c.tensor].name;
            let temporary = kernel.tensors[c.tensor]
                .format
                .canonical_type(&kernel.value_type);
            let value = &kernel.value_type;
            quote! {
                let #name = &<#temporary as ::sparse_runtime::convert::Target<#value>>::from_source(#name)?;
            }
        })
        .collect()
}

/// A rustdoc paragraph saying which operands the kernel converts on each call, and why.
fn conversion_docs(kernel: &Kernel) -> TokenStream {
    if kernel.conversions.is_empty() {
        return TokenStream::new();
    }
    let list: Vec<String> = kernel
        .conversions
        .iter()
        .map(|c| {
            let t = &kernel.tensors[c.tensor];
            format!(
                "`{}` ({}) into a `{}`",
                crate::names::plain(&t.name),
                c.from.written,
                crate::conversion::spelled(&t.format)
            )
        })
        .collect();
    let text = format!(
        "\n\nConverts {} on every call (`sparse_runtime::convert`, linear in its size): no loop \
         order traverses every operand in its storage order. Convert once before calling to \
         save it; `#[schedule(convert(never))]` makes this a compile error instead.",
        list.join(" and ")
    );
    quote!(#[doc = #text])
}

/// Every index variable binds dimensions of equal size: checked once per (tensor, mode) pair.
fn shape_checks(kernel: &Kernel, fn_name: &Ident) -> TokenStream {
    let fn_text = fn_name.to_string();
    let mut checks = TokenStream::new();
    // Every window within its mode.
    for access in &kernel.accesses {
        let t = shape_of(kernel, access.tensor);
        let tensor = &kernel.tensors[t];
        for (mode, window) in access.windows.iter().enumerate() {
            let Some(w) = window else { continue };
            let name = &tensor.name;
            let text = crate::names::plain(name);
            let i = tensor.format.shape_index(mode);
            let (lo, hi, step) = window_bounds(w, quote!(#name.shape()[#i]));
            checks.extend(quote! {
                ::sparse_runtime::__private::check_window(
                    #fn_text, #text, #mode, #name.shape()[#i], (#lo, #hi, #step),
                )?;
            });
        }
    }
    let mut per_var: Vec<Vec<(usize, usize, Option<&crate::notation::Window>)>> =
        vec![Vec::new(); kernel.vars.len()];
    let mut seen = HashSet::new();
    for access in &kernel.accesses {
        let t = shape_of(kernel, access.tensor);
        for (mode, &v) in access.vars.iter().enumerate() {
            let window = access.windows.get(mode).and_then(Option::as_ref);
            let key = window.map(|w| w.tokens.to_string());
            // Per variable: one tensor mode may be bound to two variables (`d(j, l) * d(l, j)`).
            if seen.insert((v, t, mode, key)) {
                per_var[v].push((t, mode, window));
            }
        }
    }
    for (var, uses) in kernel.vars.iter().zip(&per_var) {
        let Some((&(t0, m0, w0), rest)) = uses.split_first() else {
            continue;
        };
        let first = &kernel.tensors[t0].name;
        let size0 = extent(kernel, t0, m0, w0);
        for &(t, m, w) in rest {
            let other = &kernel.tensors[t].name;
            let place = |name: &Ident, m: usize, w: Option<&crate::notation::Window>| match w {
                None => format!("`{}` (mode {m})", crate::names::plain(name)),
                Some(w) => format!(
                    "`{}` (mode {m}, window `{}`)",
                    crate::names::plain(name),
                    w.tokens.to_string().replace(' ', "")
                ),
            };
            let message = format!(
                "index variable `{var}` has size {{}} in {} but size {{}} in {}",
                place(first, m0, w0),
                place(other, m, w),
                var = crate::names::plain(&var.name),
            );
            let size = extent(kernel, t, m, w);
            checks.extend(quote! {
                if #size != #size0 {
                    return ::core::result::Result::Err(::sparse_runtime::Error::dimension_mismatch(
                        #fn_text,
                        ::std::format!(#message, #size0, #size),
                    ));
                }
            });
        }
    }
    checks
}

/// A window's bounds as expressions, `hi` defaulting to `size`.
fn window_bounds(
    w: &crate::notation::Window,
    size: TokenStream,
) -> (TokenStream, TokenStream, TokenStream) {
    let bound = |b: &crate::notation::Bound| match b {
        crate::notation::Bound::Const(n) => {
            let n = Literal::usize_suffixed(*n);
            quote!(#n)
        }
        crate::notation::Bound::Param(p) => quote!(#p),
    };
    let hi = w.hi.as_ref().map_or(size, bound);
    (bound(&w.lo), hi, bound(&w.step))
}

/// The size an index variable gets from mode `mode` of tensor `t`: the mode's, or its
/// window's length.
fn extent(
    kernel: &Kernel,
    t: usize,
    mode: usize,
    window: Option<&crate::notation::Window>,
) -> TokenStream {
    let tensor = &kernel.tensors[t];
    let name = &tensor.name;
    let i = tensor.format.shape_index(mode);
    match window {
        None => quote!(#name.shape()[#i]),
        Some(w) => {
            let (lo, hi, step) = window_bounds(w, quote!(#name.shape()[#i]));
            quote!(::sparse_runtime::__private::window_len(#lo, #hi, #step))
        }
    }
}

/// The parameter whose shape tensor `t` has on entry: the output for its old contents (which
/// have the output's shape, and are bound only after the entry checks: an access of them binds
/// its index variables to the output's dimensions, which are checked and read like any other).
fn shape_of(kernel: &Kernel, t: usize) -> usize {
    match kernel.output_access() {
        Some(out) if Some(t) == kernel.old_output => kernel.accesses[out].tensor,
        _ => t,
    }
}

struct Emitter<'k> {
    kernel: &'k Kernel,
    names: &'k Names,
    used: &'k HashSet<Local>,
    role: Role<'k>,
}

impl Emitter<'_> {
    /// The name under which level `level` (a `Local::Level` of an input) declares
    /// `pos_access`: a split's `row_of` reads the root's coordinates through it.
    fn pos_access(&self, level: Local) -> syn::Ident {
        let declared = match level {
            Local::Level(t, k) => self
                .kernel
                .tensors
                .get(t)
                .and_then(|t| t.format.levels.get(k))
                .and_then(|l| l.function(crate::level::LevelFn::PosAccess))
                .map(|f| f.name),
            _ => None,
        };
        // A split's root always declares it (`parallel` matched its loop by that name); were
        // it missing, the call would name no method and fail to compile, as lowering's does.
        let name = declared.unwrap_or("missing_level_function");
        Ident::new(name, Span::call_site())
    }

    fn local(&self, l: Local) -> Ident {
        Ident::new(self.names.get(l), Span::mixed_site())
    }

    /// Ends the assembly of a sparse output: it keeps what the body appended.
    fn finish_assembly(&self) -> TokenStream {
        let kernel = self.kernel;
        let Some(t) = self.assembled_tensor() else {
            return TokenStream::new();
        };
        let guard = self.local(Local::Assembly(t));
        match self.role {
            Role::Assembler { id } => {
                let operands = self.operand_patterns();
                quote! { #guard.finish_assembled(#id, &[#(#operands),*]); }
            }
            _ if kernel.output_access().is_some() => quote! { #guard.finish(); },
            _ => TokenStream::new(),
        }
    }

    /// The output re-assembled through a guard: a sparse output, except in a compute-only
    /// variant (which writes the values of the pattern in place).
    fn assembled_tensor(&self) -> Option<usize> {
        let kernel = self.kernel;
        let a = kernel.output_access()?;
        let sparse = !kernel.format_of(a).is_all_dense();
        let computes_only = matches!(self.role, Role::ComputeOnly { .. });
        (sparse && !computes_only).then(|| kernel.accesses[a].tensor)
    }

    /// `a.pattern_id()` for every sparse tensor operand (the output and its old contents
    /// excepted). A dense operand's pattern is its shape, which the entry checks compare: any
    /// dense tensor (or view, or slice, which have no pattern number) of that shape will do.
    fn operand_patterns(&self) -> Vec<TokenStream> {
        let kernel = self.kernel;
        let output = kernel.output_access().map(|a| kernel.accesses[a].tensor);
        (0..kernel.tensors.len())
            .filter(|&t| Some(t) != output && Some(t) != kernel.old_output)
            .filter(|&t| !kernel.tensors[t].format.is_all_dense())
            .map(|t| {
                let name = &kernel.tensors[t].name;
                quote! { #name.pattern_id() }
            })
            .collect()
    }

    /// In a compute-only variant: `Err` unless the output's pattern was assembled by its
    /// kernel for the operands' patterns.
    fn assembled_check(&self) -> TokenStream {
        let kernel = self.kernel;
        let (Role::ComputeOnly { id, name }, Some(a)) = (self.role, kernel.output_access()) else {
            return TokenStream::new();
        };
        let out = &kernel.tensors[kernel.accesses[a].tensor].name;
        let operands = self.operand_patterns();
        let (name, assembler) = (name.to_string(), kernel.name.to_string());
        quote! {
            #out.check_assembled(#id, &[#(#operands),*], #name, #assembler)?;
        }
    }

    /// `let dim_i = a.shape()[0];` for every dimension the body reads.
    fn dim_bindings(&self) -> TokenStream {
        let kernel = self.kernel;
        let mut out = TokenStream::new();
        for v in 0..kernel.vars.len() {
            if !self.used.contains(&Local::Dim(v)) {
                continue;
            }
            let Some((access, mode)) = kernel
                .accesses
                .iter()
                .find_map(|a| a.vars.iter().position(|&u| u == v).map(|m| (a, m)))
            else {
                continue;
            };
            let t = shape_of(kernel, access.tensor);
            let size = extent(
                kernel,
                t,
                mode,
                access.windows.get(mode).and_then(Option::as_ref),
            );
            let local = self.local(Local::Dim(v));
            out.extend(quote! { let #local = #size; });
        }
        out
    }

    /// Binds the level structs and value arrays the body uses; a sparse output's through
    /// its assembly guard, the only mutable access to its storage, a dense output's
    /// values through `vals_mut` (its structure never changes).
    fn tensor_bindings(&self) -> TokenStream {
        let kernel = self.kernel;
        let mut out = TokenStream::new();
        let output_tensor = kernel.output_access().map(|a| kernel.accesses[a].tensor);
        for (t, tensor) in kernel.tensors.iter().enumerate() {
            let name = &tensor.name;
            let levels: Vec<TokenStream> = (0..tensor.format.order())
                .map(|k| match self.used.contains(&Local::Level(t, k)) {
                    true => self.local(Local::Level(t, k)).into_token_stream(),
                    false => quote!(_),
                })
                .collect();
            let uses_levels =
                (0..tensor.format.order()).any(|k| self.used.contains(&Local::Level(t, k)));
            let vals = self.local(Local::Vals(t));
            let uses_vals = self.used.contains(&Local::Vals(t));
            if Some(t) == self.assembled_tensor() {
                let guard = self.local(Local::Assembly(t));
                out.extend(quote! {
                    let mut #guard = #name.assemble();
                    let ((#(#levels,)*), #vals) = #guard.parts();
                });
                continue;
            }
            let is_output = Some(t) == output_tensor;
            if uses_levels && is_output && !tensor.format.is_all_dense() {
                // A compute-only variant reads the pattern while writing the values.
                let vals = match uses_vals {
                    true => vals.into_token_stream(),
                    false => quote!(_),
                };
                out.extend(quote! { let ((#(#levels,)*), #vals) = #name.levels_and_vals_mut(); });
                continue;
            }
            if uses_levels && is_output {
                // A dense output's levels are `Dense` (plain sizes, `Copy`): copied, so that
                // its values can be borrowed mutably below.
                out.extend(quote! { let (#(#levels,)*) = *#name.levels(); });
            } else if uses_levels {
                out.extend(quote! { let (#(#levels,)*) = #name.levels(); });
            }
            match (uses_vals, is_output) {
                (true, true) => out.extend(quote! { let #vals = #name.vals_mut(); }),
                (true, false) => out.extend(quote! { let #vals = #name.vals(); }),
                (false, _) => {}
            }
        }
        out
    }

    /// The loop nest as an immediately called closure that takes the value arrays of the
    /// inputs and of a dense output as slice arguments: rustc marks such arguments `noalias`
    /// (a `&mut [V]` is disjoint from every other argument), which reaches LLVM as scopes on the
    /// loads and stores once the closure is inlined, so it can keep output elements in registers
    /// across loops and needs no overlap checks. Reached through `&mut Tensor` instead, the
    /// arrays are pointers loaded from the tensors, which LLVM must assume may overlap. A
    /// sparse output's arrays grow during assembly and stay captured.
    fn disjoint_slices(&self, stmts: TokenStream) -> TokenStream {
        let (params, args) = self.slice_params();
        if params.is_empty() {
            return stmts;
        }
        quote! {
            (|#(#params),*| -> ::core::result::Result<(), ::sparse_runtime::Error> {
                #stmts
                ::core::result::Result::Ok(())
            })(#(#args),*)?;
        }
    }

    /// The parameters (`a_vals: &[V]`, the dense output's `&mut [V]`, then the inputs' level
    /// structs, `a_l1: &Compressed<u32>`) and arguments of [`Emitter::disjoint_slices`]'
    /// closure. A level passed as a (`noalias`, read-only) reference lets LLVM load its
    /// arrays' addresses once: reached from outside, they were reloaded after every store
    /// of an appended output (sparse add 1.1x slower).
    fn slice_params(&self) -> (Vec<TokenStream>, Vec<Ident>) {
        let kernel = self.kernel;
        let v = &kernel.value_type;
        let assembled = self.assembled_tensor();
        let output = kernel.output_access().map(|a| kernel.accesses[a].tensor);
        let values = (0..kernel.tensors.len())
            .filter(|&t| Some(t) != assembled && self.used.contains(&Local::Vals(t)))
            .map(|t| {
                let vals = self.local(Local::Vals(t));
                let ty = match Some(t) == output {
                    true => quote!(&mut [#v]),
                    false => quote!(&[#v]),
                };
                (quote!(#vals: #ty), vals)
            });
        // Only a tensor type's own levels: a struct format's are reached through its view.
        let levels = (0..kernel.tensors.len())
            .filter(|&t| Some(t) != output && Some(t) != assembled)
            .filter(|&t| {
                let format = &kernel.tensors[t].format;
                format.remap.is_none() && format.borrow == crate::format::Borrow::Owned
            })
            .flat_map(|t| {
                let format = &kernel.tensors[t].format;
                (0..format.order())
                    .filter(move |&k| self.used.contains(&Local::Level(t, k)))
                    .map(move |k| {
                        let level = self.local(Local::Level(t, k));
                        let ty = format.levels[k].canonical_type();
                        (quote!(#level: &#ty), level)
                    })
            });
        values.chain(levels).unzip()
    }

    fn block(&self, stmts: &[Stmt]) -> TokenStream {
        stmts.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: &Stmt) -> TokenStream {
        match s {
            Stmt::Let(name, mutable, value) => {
                let name = self.local(*name);
                let value = self.expr(value, 0);
                let m = mutable.then(|| quote!(mut));
                quote! { let #m #name = #value; }
            }
            Stmt::LetPair(a, b, mutable, value) => {
                let a = self.pattern(a);
                let b = self.pattern(b);
                let m = mutable.then(|| quote!(mut));
                let value = self.expr(value, 0);
                quote! { let (#m #a, #b) = #value; }
            }
            Stmt::Assign(target, op, value) => {
                let target = self.lvalue(target);
                match op {
                    Assign::Set => {
                        let value = self.expr(value, 0);
                        quote! { #target = #value; }
                    }
                    // `Value` asks for `Add`, not `AddAssign`: over a value type that is not a
                    // primitive number, an accumulation is spelled out.
                    Assign::Add if !is_primitive(&self.kernel.value_type) => {
                        let value = self.expr(value, prec(Op::Add) + 1);
                        quote! { #target = #target + #value; }
                    }
                    Assign::Add => {
                        let value = self.expr(value, 0);
                        quote! { #target += #value; }
                    }
                }
            }
            Stmt::For(v, lo, hi, body) => {
                let v = self.local(*v);
                let (lo, hi) = (self.expr(lo, 0), self.expr(hi, 0));
                let body = self.block(body);
                quote! { for #v in #lo..#hi { #body } }
            }
            Stmt::While(cond, body) => {
                let cond = self.expr(cond, 0);
                let body = self.block(body);
                quote! { while #cond { #body } }
            }
            Stmt::If(cond, then, otherwise) => {
                let cond = self.expr(cond, 0);
                let then = self.block(then);
                if otherwise.is_empty() {
                    quote! { if #cond { #then } }
                } else if let [nested @ Stmt::If(..)] = otherwise.as_slice() {
                    let nested = self.stmt(nested);
                    quote! { if #cond { #then } else #nested }
                } else {
                    let otherwise = self.block(otherwise);
                    quote! { if #cond { #then } else { #otherwise } }
                }
            }
            Stmt::Expr(e) => {
                let e = self.expr(e, 0);
                quote! { #e; }
            }
            Stmt::Block(n, body) => {
                let label = reduce_label(*n);
                let body = self.block(body);
                quote! { #label: { #body } }
            }
            Stmt::Exit(n) => {
                let label = reduce_label(*n);
                quote! { break #label; }
            }
            Stmt::Rows(t, split, body) => self.parallel_rows(*t, split, body),
            Stmt::Fold(fold, body) => self.parallel_fold(fold, body),
        }
    }

    /// A fold in chunks (`crate::reduction`). Where the runtime splits it
    /// (`parallel_fold_splits`: several chunks and threads), a call of `parallel_fold` with
    /// the temporary's value as the start of every chunk, a closure combining two chunks'
    /// values by the loop's own update, and the chunk as a `move` closure whose parameter
    /// shadows the temporary with the chunk's own (as in [`Emitter::parallel_rows`], its body
    /// takes the value arrays as slice arguments again). Otherwise the same chunks
    /// (`parallel_fold_chunks`) are folded in order here, in the kernel's own loop: run
    /// through the closure on one thread, a merge of two CSR rows reloaded both levels'
    /// coordinate arrays per row (spilled), up to 1.3x the serial loop's time.
    fn parallel_fold(&self, fold: &Fold, body: &[Stmt]) -> TokenStream {
        let v = &self.kernel.value_type;
        let acc = self.local(fold.acc);
        let [partial, start, total] =
            [Local::Partial, Local::FoldStart, Local::FoldTotal].map(|l| self.local(l));
        let [lo, hi] = [Local::ChunkLo, Local::ChunkHi].map(|l| self.local(l));
        let [first, end, combine] = fold.exprs().map(|e| self.expr(e, 0));
        let combine = quote!(|#acc: #v, #partial: #v| -> #v { #combine });
        let here = self.block(body);
        let task = self.disjoint_slices(here.clone());
        let some = quote!(::core::option::Option::Some);
        quote! {
            if ::sparse_runtime::__private::parallel_fold_splits(#first, #end) {
                #acc = ::sparse_runtime::__private::parallel_fold(
                    #acc,
                    (#first, #end),
                    #combine,
                    move |#lo: usize, #hi: usize, mut #acc: #v|
                        -> ::core::result::Result<#v, ::sparse_runtime::Error>
                    {
                        #task
                        ::core::result::Result::Ok(#acc)
                    },
                )?;
            } else {
                let #start = #acc;
                let mut #total: ::core::option::Option<#v> = ::core::option::Option::None;
                for (#lo, #hi) in ::sparse_runtime::__private::parallel_fold_chunks(#first, #end) {
                    #acc = #start;
                    #here
                    // The chunks so far, then this one (`partial` binds the former).
                    #total = #some(match #total {
                        #some(#partial) => (#combine)(#partial, #acc),
                        ::core::option::Option::None => #acc,
                    });
                }
                #acc = #total.unwrap_or(#start);
            }
        }
    }

    /// A parallel loop: a call of the runtime's split for `split`, with the task as a `move`
    /// closure. The closure's last parameter shadows the output's values (and, assembling, its
    /// last level) with the task's own (`crate::parallel`); a task over the rows of a dense
    /// output indexes them from `row_base`. The task captures the inputs' value arrays, so its
    /// body takes them (and its rows) as slice arguments again, as the serial nest does
    /// (`disjoint_slices`): captured, they lost `noalias`, and LLVM reloaded every input value
    /// and level size after each store into the output (CSR SpMM: twice the time).
    fn parallel_rows(
        &self,
        t: crate::notation::TensorId,
        split: &Split,
        body: &[Stmt],
    ) -> TokenStream {
        let vals = self.local(Local::Vals(t));
        let [lo, hi, base] = [Local::RowLo, Local::RowHi, Local::RowBase].map(|l| self.local(l));
        let [pos_lo, pos_hi] = [Local::PosLo, Local::PosHi].map(|l| self.local(l));
        let body = self.disjoint_slices(self.block(body));
        let task = |params: TokenStream| {
            quote! {
                move |#params| -> ::core::result::Result<(), ::sparse_runtime::Error> {
                    #body
                    ::core::result::Result::Ok(())
                }
            }
        };
        let e = |x: &Expr| self.expr(x, 0);
        match split {
            Split::Rows { rows, work } => {
                let (rows, work) = (e(rows), e(work));
                let task = task(quote!(#lo, #hi, #base, #vals));
                quote! { ::sparse_runtime::__private::parallel_rows(#vals, #rows, #work, #task)?; }
            }
            // Tasks of consecutive positions of an ordered level, each starting at a run of
            // equal coordinates and owning the rows from its first position's coordinate to
            // the next task's.
            Split::Positions {
                rows,
                level,
                lo: first,
                hi: end,
                work,
            } => {
                let access = self.pos_access(*level);
                let (rows, first, end, level) = (e(rows), e(first), e(end), self.local(*level));
                let work = e(work);
                let task = task(quote!(_, _, #base, #pos_lo, #pos_hi, #vals));
                quote! {
                    ::sparse_runtime::__private::parallel_positions(
                        #vals,
                        #rows,
                        (#first, #end),
                        #work,
                        |#pos_lo: usize| #level.#access(#pos_lo),
                        #task,
                    )?;
                }
            }
            // Tasks of consecutive rows of a compute-only sparse output, each storing into the
            // values of its rows. SAFETY of the `pos` read: the runtime calls it only with rows
            // in `1..rows`, the parents of `level` under a dense first level of `rows`
            // coordinates.
            Split::Segments { rows, level } => {
                let (rows, level) = (e(rows), self.local(*level));
                let task = task(quote!(#lo, #hi, _, #vals));
                quote! {
                    ::sparse_runtime::__private::parallel_segments(
                        #vals,
                        #rows,
                        |#lo: usize| #level.pos_bounds_unchecked(#lo).0,
                        #task,
                    )?;
                }
            }
            // Two phases over tasks of consecutive rows of a sparse output being assembled: the
            // same loop counts each row's entries (the closures' level and values stand in,
            // keeping nothing), then, the output sized by a prefix sum of the counts, writes
            // them into each task's window of it.
            // A dense accumulator of the rows is each task's own, a parameter too (a key counter
            // in the first phase).
            // One phase where the loop bounds the entries of each range of rows: each chunk of
            // rows writes into a window as long as its bound, and the runtime places the
            // chunks in order (counting first only where the windows' total does not fit the
            // index type, so both phases' closures are passed). The bound is an expression
            // of the rows' range (a sum's operands' entries in them), or a closure counting a
            // row's adds into its accumulator (`crate::adds`). SAFETY of the closure's
            // unchecked level reads, as of the tasks': the runtime calls it only with rows
            // below `rows`, the loop's own range.
            Split::Counted {
                rows,
                level,
                work,
                workspace,
                bound,
            } => {
                let (rows, work, level) = (e(rows), e(work), self.local(*level));
                let (mut entry, mut params, mut sizes) = (
                    quote!(parallel_append_counted),
                    quote!(#lo, #hi, #level, #vals),
                    quote!(#rows, #work),
                );
                if let Some(size) = workspace {
                    let (size, ws) = (e(size), self.local(Local::Workspace));
                    entry = quote!(parallel_append_counted_accumulated);
                    params = quote!(#lo, #hi, #level, #vals, #ws);
                    sizes = quote!((#rows, #work, #size));
                }
                let bound = match (workspace, bound) {
                    (None, Some(Bound::Rows(b))) => {
                        entry = quote!(parallel_append_bounded);
                        sizes = quote!((#rows, #work));
                        let b = e(b);
                        quote!(|#lo: usize, #hi: usize| -> usize { #b },)
                    }
                    (Some(_), Some(Bound::Adds(row, adds))) => {
                        entry = quote!(parallel_append_bounded_accumulated);
                        let (row, sum, adds) =
                            (self.local(*row), self.local(Local::Adds), self.block(adds));
                        quote!(|#row: usize| -> usize { #adds #sum },)
                    }
                    // No bound, or none of the loop's kind: the two phases.
                    _ => quote!(),
                };
                let (count, fill) = (task(params.clone()), task(params));
                quote! {
                    ::sparse_runtime::__private::#entry(
                        #level, #vals, #sizes, #bound #count, #fill
                    )?;
                }
            }
            // Chunks of positions where the loop bounds each position's entries: each writes
            // into a window as long as its positions' bounds, and the runtime places the
            // chunks in order (counting first only where the windows' total does not fit the
            // index type). SAFETY of the bound closure's unchecked level reads, as of the
            // tasks': the runtime calls it only with positions in `first..end`, the loop's.
            Split::Appended {
                rows,
                level,
                root: (root, first, end),
                bound: Some(Bound::Appends(p, appends)),
                ..
            } => {
                let (rows, level) = (e(rows), self.local(*level));
                let access = self.pos_access(*root);
                let (first, end, root) = (e(first), e(end), self.local(*root));
                let (p, sum, appends) = (
                    self.local(*p),
                    self.local(Local::Appends),
                    self.block(appends),
                );
                let task = task(quote!(#lo, #hi, #pos_lo, #pos_hi, #level, #vals));
                quote! {
                    ::sparse_runtime::__private::parallel_append_positions_bounded(
                        #level,
                        #vals,
                        #rows,
                        (#first, #end),
                        |#pos_lo: usize| #root.#access(#pos_lo),
                        |#p: usize| -> usize { #appends #sum },
                        #task,
                    )?;
                }
            }
            // Chunks of a root's runs, each filling a window of one entry per position.
            Split::Appended {
                rows,
                level,
                root: (root, first, end),
                bound: Some(Bound::Positions),
                ..
            } => {
                let (rows, level) = (e(rows), self.local(*level));
                let access = self.pos_access(*root);
                let (first, end, root) = (e(first), e(end), self.local(*root));
                let task = task(quote!(#lo, #hi, #pos_lo, #pos_hi, #level, #vals));
                quote! {
                    ::sparse_runtime::__private::parallel_append_runs_bounded(
                        #level,
                        #vals,
                        #rows,
                        (#first, #end),
                        |#pos_lo: usize| #root.#access(#pos_lo),
                        #task,
                    )?;
                }
            }
            // Tasks of consecutive positions of a root level (split as `Split::Positions`
            // splits them) assembling a sparse output, each into a level and values of its own
            // (the closure's, shadowing the output's), concatenated by the runtime in row
            // order.
            Split::Appended {
                rows,
                level,
                root: (root, first, end),
                work,
                ..
            } => {
                let (rows, work, level) = (e(rows), e(work), self.local(*level));
                let access = self.pos_access(*root);
                let (first, end, root) = (e(first), e(end), self.local(*root));
                let task = task(quote!(#lo, #hi, #pos_lo, #pos_hi, #level, #vals));
                quote! {
                    ::sparse_runtime::__private::parallel_append_positions(
                        #level,
                        #vals,
                        #rows,
                        (#first, #end),
                        #work,
                        |#pos_lo: usize| #root.#access(#pos_lo),
                        #task,
                    )?;
                }
            }
        }
    }

    fn lvalue(&self, e: &Expr) -> TokenStream {
        match e {
            Expr::Lane(base, i) => {
                let base = self.expr(base, PREC_ATOM);
                let i = self.expr(i, 0);
                quote! { #base[#i] }
            }
            Expr::Index(base, i) => {
                let base = self.expr(base, PREC_ATOM);
                let i = self.expr(i, 0);
                quote! { *#base.get_unchecked_mut(#i) }
            }
            other => self.expr(other, 0),
        }
    }

    /// Emits `e`, parenthesized when its precedence is below `min`.
    fn expr(&self, e: &Expr, min: u8) -> TokenStream {
        let mut out = Vec::new();
        self.write(e, min, &mut out);
        out.into_iter().collect()
    }

    /// Appends `e` to `out` token by token: interpolating the tokens of subexpressions into
    /// their parents would copy a chain of `n` operations `n` times.
    fn write(&self, e: &Expr, min: u8, out: &mut Vec<TokenTree>) {
        if self.precedence(e) < min {
            let mut inner = Vec::new();
            self.write_bare(e, &mut inner);
            out.push(group(Delimiter::Parenthesis, inner));
        } else {
            self.write_bare(e, out);
        }
    }

    /// The precedence `e` is emitted at. A select is parenthesized wherever it is an operand,
    /// so that it never starts a statement; an unsigned negation is a subtraction.
    fn precedence(&self, e: &Expr) -> u8 {
        match e {
            Expr::Binary(op, ..) => prec(*op),
            Expr::Neg(_) if self.negates_by_subtraction() => prec(Op::Sub),
            Expr::Neg(_) | Expr::Not(_) | Expr::Index(..) | Expr::Deref(_) => PREC_UNARY,
            Expr::Select(..) => 0,
            _ => PREC_ATOM,
        }
    }

    /// `a, b, ...` (for an argument list or a slice).
    fn comma_list(&self, items: &[Expr]) -> Vec<TokenTree> {
        let mut inner = Vec::new();
        for (n, a) in items.iter().enumerate() {
            if n > 0 {
                inner.extend(quote!(,));
            }
            self.write(a, 0, &mut inner);
        }
        inner
    }

    fn write_bare(&self, e: &Expr, out: &mut Vec<TokenTree>) {
        let push = |out: &mut Vec<TokenTree>, ts: TokenStream| out.extend(ts);
        match e {
            Expr::Var(v) => out.push(TokenTree::Ident(self.local(*v))),
            Expr::Bool(b) => push(out, quote!(#b)),
            Expr::Param(p) => out.push(TokenTree::Ident(p.clone())),
            Expr::Usize(n) => out.push(TokenTree::Literal(Literal::usize_unsuffixed(*n))),
            Expr::Value(ValueConst::Zero) => {
                let v = &self.kernel.value_type;
                push(
                    out,
                    quote! { <#v as ::sparse_runtime::__private::num_traits::Zero>::zero() },
                );
            }
            Expr::Value(ValueConst::Literal(lit)) => push(out, self.literal(lit)),
            Expr::Value(ValueConst::Infinity(negative)) => {
                let v = &self.kernel.value_type;
                let method = if *negative {
                    quote!(neg_infinity)
                } else {
                    quote!(infinity)
                };
                push(
                    out,
                    quote! { <#v as ::sparse_runtime::functions::Infinity>::#method() },
                );
            }
            Expr::Apply(callee, args) => self.write_apply(*callee, args, out),
            Expr::NewScratch => push(out, quote!(::sparse_runtime::__private::Reordered::new())),
            Expr::NewWorkspace(kind, size) => {
                let v = &self.kernel.value_type;
                let size = self.expr(size, 0);
                let accumulator = match kind {
                    crate::workspace::Kind::Dense => quote!(DenseAccumulator),
                    crate::workspace::Kind::Hash => quote!(HashAccumulator),
                };
                push(
                    out,
                    quote!(::sparse_runtime::__private::#accumulator::<#v>::new(#size)),
                );
            }
            Expr::Runtime(name, args) => {
                let name = Ident::new(name, Span::call_site());
                push(out, quote!(::sparse_runtime::__private::#name));
                out.push(group(Delimiter::Parenthesis, self.comma_list(args)));
            }
            Expr::Slice(items) => {
                push(out, quote!(&));
                out.push(group(Delimiter::Bracket, self.comma_list(items)));
            }
            Expr::Repeat(v, n) => {
                let mut inner = Vec::new();
                self.write(v, 0, &mut inner);
                push(&mut inner, quote!(;));
                inner.push(TokenTree::Literal(Literal::usize_unsuffixed(*n)));
                out.push(group(Delimiter::Bracket, inner));
            }
            Expr::Lane(base, i) => {
                self.write(base, PREC_ATOM, out);
                let mut inner = Vec::new();
                self.write(i, 0, &mut inner);
                out.push(group(Delimiter::Bracket, inner));
            }
            Expr::Pair(a, b) => {
                let mut inner = Vec::new();
                self.write(a, 0, &mut inner);
                push(&mut inner, quote!(,));
                self.write(b, 0, &mut inner);
                out.push(group(Delimiter::Parenthesis, inner));
            }
            Expr::Binary(Op::And, a, b) if computed_flag(a) && computed_flag(b) => {
                // Both flags are already computed, so `&` evaluates nothing more than `&&`. A
                // short-circuit `&&` is a branch on the first flag, into which LLVM sank an
                // intersection's branch-free advances (`p += m as usize`, with `m` that flag):
                // a three-way branch per step that random rows mispredict (an inner product of
                // two random matrices, 1.2x the hand-written merge's time).
                self.write(a, PREC_UNARY, out);
                push(out, quote!(&));
                self.write(b, PREC_UNARY, out);
            }
            Expr::Binary(op, a, b) => {
                let p = prec(*op);
                self.write(a, p, out);
                push(out, op_tokens(*op));
                self.write(b, p + 1, out);
            }
            Expr::Neg(a) if self.negates_by_subtraction() => {
                // Unsigned types have no `Neg`; `0 - a` keeps Rust's overflow semantics. Nor
                // does `Value` ask for `Neg` (`num_traits::Num` has `Sub`), so other types that
                // are not primitive numbers negate the same way.
                self.write(&Expr::Value(ValueConst::Zero), PREC_ATOM, out);
                push(out, quote!(-));
                self.write(a, prec(Op::Sub) + 1, out);
            }
            Expr::Neg(a) => {
                push(out, quote!(-));
                self.write(a, PREC_UNARY, out);
            }
            Expr::Not(a) => {
                push(out, quote!(!));
                self.write(a, PREC_UNARY, out);
            }
            Expr::Call(recv, method, args) => {
                self.write(recv, PREC_ATOM, out);
                let method = Ident::new(method, Span::call_site());
                push(out, quote!(.#method));
                out.push(group(Delimiter::Parenthesis, self.comma_list(args)));
            }
            Expr::Index(base, i) => {
                push(out, quote!(*));
                self.write(base, PREC_ATOM, out);
                push(out, quote!(.get_unchecked));
                let mut inner = Vec::new();
                self.write(i, 0, &mut inner);
                out.push(group(Delimiter::Parenthesis, inner));
            }
            Expr::Min(a, b) => {
                push(out, quote!(::core::cmp::min));
                let mut inner = Vec::new();
                self.write(a, 0, &mut inner);
                push(&mut inner, quote!(,));
                self.write(b, 0, &mut inner);
                out.push(group(Delimiter::Parenthesis, inner));
            }
            Expr::Deref(a) => {
                push(out, quote!(*));
                self.write(a, PREC_UNARY, out);
            }
            Expr::Select(c, a, b) => {
                push(out, quote!(if));
                self.write(c, 0, out);
                for (n, branch) in [a, b].into_iter().enumerate() {
                    if n > 0 {
                        push(out, quote!(else));
                    }
                    let mut inner = Vec::new();
                    self.write(branch, 0, &mut inner);
                    out.push(group(Delimiter::Brace, inner));
                }
            }
            Expr::Try(a) => {
                self.write(a, PREC_ATOM, out);
                push(out, quote!(?));
            }
        }
    }

    fn pattern(&self, local: &Option<Local>) -> TokenStream {
        match local {
            Some(l) => self.local(*l).into_token_stream(),
            None => quote!(_),
        }
    }

    /// A literal typed as the kernel's value type (`2` in an `f64` kernel is `2f64`), or
    /// converted to it by `FromPrimitive` if it is not a primitive number
    /// ([`converted_literal`](Self::converted_literal)).
    fn literal(&self, lit: &syn::Lit) -> TokenStream {
        if !is_primitive(&self.kernel.value_type) {
            return self.converted_literal(lit);
        }
        let ty = self.kernel.value_type.to_token_stream().to_string();
        let (digits, suffix) = match lit {
            syn::Lit::Int(i) => (i.base10_digits().to_string(), i.suffix().to_string()),
            syn::Lit::Float(f) => (f.base10_digits().to_string(), f.suffix().to_string()),
            other => return other.into_token_stream(),
        };
        if !suffix.is_empty() {
            return lit.into_token_stream();
        }
        let text = if is_float(&self.kernel.value_type) && !digits.contains(['.', 'e', 'E']) {
            format!("{digits}.0_{ty}")
        } else {
            format!("{digits}_{ty}")
        };
        match text.parse::<Literal>() {
            Ok(mut l) => {
                l.set_span(lit.span());
                l.into_token_stream()
            }
            Err(_) => lit.into_token_stream(),
        }
    }
}

impl Emitter<'_> {
    /// Every sparse operand's fill value against the one the kernel was compiled for (a
    /// dense operand stores every component: its fill is never read).
    fn fill_checks(&self) -> TokenStream {
        let k = self.kernel;
        let skipped: &[Ident] = match self.role {
            Role::ChecksOnly { written_before } => written_before,
            _ => &[],
        };
        let mut out = TokenStream::new();
        for t in fill_checked(k) {
            let tensor = &k.tensors[t];
            if skipped.iter().any(|s| crate::names::same(s, &tensor.name)) {
                continue;
            }
            let name = &tensor.name;
            let text = crate::names::plain(name);
            let fill = self.expr(&crate::lower::constant(&tensor.fill), 0);
            let v = &k.value_type;
            let declared = Ident::new("declared", Span::mixed_site());
            out.extend(quote! {
                {
                    let #declared: #v = #fill;
                    if #name.fill() != #declared {
                        return ::core::result::Result::Err(
                            ::sparse_runtime::__private::fill_mismatch(#text, #declared, #name.fill()),
                        );
                    }
                }
            });
        }
        out
    }

    /// The output's fill value, derived from the statement (`crate::algebra::fill_of`; zero
    /// where the statement has a value everywhere), given to an output tensor on return.
    fn output_fill(&self) -> TokenStream {
        let k = self.kernel;
        let Some(a) = k.output_access() else {
            return TokenStream::new();
        };
        let t = k.accesses[a].tensor;
        let format = &k.tensors[t].format;
        if format.borrow != Borrow::Owned || format.is_all_dense() {
            return TokenStream::new();
        }
        let fill = crate::algebra::fill_of(k, &k.rhs)
            .and_then(|f| crate::lower::constant_expr(k, &f))
            .unwrap_or(Expr::Value(ValueConst::Zero));
        let fill = self.expr(&fill, 0);
        let name = &k.tensors[t].name;
        quote! { #name.set_fill(#fill); }
    }

    /// A function of the kernel applied: the runtime's prelude function by absolute path,
    /// the user's declared function by the name it was declared with (resolved where the
    /// user wrote it), an operator as itself, or a per-case body as a closure called at once
    /// over the arguments it binds (its parameters and body are the user's tokens).
    fn write_apply(&self, callee: crate::ir::Callee, args: &[Expr], out: &mut Vec<TokenTree>) {
        use crate::algebra::Callee as Target;
        let (f, case) = match callee {
            crate::ir::Callee::Function(f) => (f, None),
            crate::ir::Callee::Case(f, n) => (f, Some(n)),
        };
        let Some(function) = self.kernel.functions.get(f) else {
            return;
        };
        if let Some(n) = case {
            out.push(TokenTree::Ident(case_name(f, n)));
            out.push(group(Delimiter::Parenthesis, self.comma_list(args)));
            return;
        }
        match (&function.callee, args) {
            (Target::Operator(op), [l, r]) => {
                let op = Op::from(*op);
                let binary = Expr::Binary(op, Box::new(l.clone()), Box::new(r.clone()));
                self.write(&binary, PREC_ATOM, out);
                return;
            }
            (Target::Operator(_), _) => return,
            (Target::Prelude(name), _) => {
                let name = Ident::new(name, Span::call_site());
                out.extend(quote!(::sparse_runtime::functions::#name));
            }
            (Target::User(name), _) => out.push(TokenTree::Ident(name.clone())),
        }
        out.push(group(Delimiter::Parenthesis, self.comma_list(args)));
    }

    /// Whether `-a` is emitted as `0 - a`: over unsigned integers and value types that are
    /// not primitive numbers (`sparse_runtime::Value` asks for `Sub`, not `Neg`).
    fn negates_by_subtraction(&self) -> bool {
        let v = &self.kernel.value_type;
        is_unsigned(v) || !is_primitive(v)
    }

    /// `<V as Literal>::float(2.5f64, "2.5")` (or `::integer(2u128, "2")`): the literal
    /// converted by `num_traits::FromPrimitive` (check has refused suffixes, integers
    /// beyond `u128` and floats beyond `f64`). Spanned at the literal, where rustc reports a value type without
    /// `FromPrimitive`; constant-folded by LLVM for any conversion it can see through.
    fn converted_literal(&self, lit: &syn::Lit) -> TokenStream {
        let v = &self.kernel.value_type;
        let (value, method, text) = match lit {
            syn::Lit::Int(i) => (
                Literal::u128_suffixed(i.base10_parse().unwrap_or(0)),
                quote!(integer),
                i.base10_digits().to_string(),
            ),
            syn::Lit::Float(f) => (
                match f.base10_parse::<f64>() {
                    Ok(x) if x.is_finite() => Literal::f64_suffixed(x),
                    // Refused by check (`f64_suffixed` would panic on infinity).
                    _ => return lit.into_token_stream(),
                },
                quote!(float),
                f.base10_digits().to_string(),
            ),
            other => return other.into_token_stream(),
        };
        // Located at the literal (resolved where written), so that rustc's error for a type
        // without `FromPrimitive` points at the literal rather than at the signature.
        let v = located_at(v.to_token_stream(), lit.span());
        quote_spanned! {lit.span()=>
            <#v as ::sparse_runtime::__private::Literal>::#method(#value, #text)
        }
    }
}

/// `tokens` reported at `at`, each keeping its own name resolution.
fn located_at(tokens: TokenStream, at: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut inner = Group::new(g.delimiter(), located_at(g.stream(), at));
                inner.set_span(g.span().located_at(at));
                t = TokenTree::Group(inner);
            } else {
                t.set_span(t.span().located_at(at));
            }
            t
        })
        .collect()
}

fn group(delimiter: Delimiter, tokens: Vec<TokenTree>) -> TokenTree {
    TokenTree::Group(Group::new(delimiter, tokens.into_iter().collect()))
}

/// Whether `e` is a boolean local or its negation: evaluating it reads one local.
fn computed_flag(e: &Expr) -> bool {
    match e {
        Expr::Var(_) | Expr::Bool(_) => true,
        Expr::Not(a) => matches!(**a, Expr::Var(_)),
        _ => false,
    }
}

const PREC_ATOM: u8 = 10;
const PREC_UNARY: u8 = 9;

fn prec(op: Op) -> u8 {
    match op {
        Op::Mul | Op::Div | Op::Rem => 6,
        Op::Add | Op::Sub => 5,
        Op::Lt | Op::Le | Op::Eq | Op::Gt => 3,
        Op::And => 2,
        Op::Or => 1,
    }
}

fn op_tokens(op: Op) -> TokenStream {
    match op {
        Op::Add => quote!(+),
        Op::Sub => quote!(-),
        Op::Mul => quote!(*),
        Op::Div => quote!(/),
        Op::Rem => quote!(%),
        Op::Lt => quote!(<),
        Op::Le => quote!(<=),
        Op::Eq => quote!(==),
        Op::Gt => quote!(>),
        Op::And => quote!(&&),
        Op::Or => quote!(||),
    }
}
