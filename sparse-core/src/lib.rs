//! The sparse tensor algebra compiler behind `sparse_kernel!`, as an ordinary library.
//!
//! ```text
//! tokens --parse/check--> Kernel (index notation with explicit sums)
//!        --iteration graph--> loop order
//!        --merge lattices + lowering--> IR (loops, merges, cases, assembly calls)
//!        --emission--> Rust tokens calling the runtime's level functions
//! ```

pub mod adds;
pub mod algebra;
pub mod bounded;
pub mod check;
pub mod conversion;
pub mod diagnostic;
pub mod emit;
pub mod explain;
pub mod format;
pub mod ir;
pub mod iteration_graph;
pub mod lane_sums;
pub mod lanes;
pub mod lattice;
pub mod level;
pub mod limits;
pub mod lower;
pub mod names;
pub mod notation;
pub mod parallel;
pub mod precompute;
pub mod reduction;
pub mod register_block;
pub mod schedule;
pub mod sequence;
pub mod signature;
pub mod split;
pub mod strip_mine;
pub mod workspace;

use diagnostic::Diagnostics;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};

/// One function of a `sparse_kernel!` invocation, its body not yet parsed.
struct RawKernel {
    attrs: Vec<syn::Attribute>,
    vis: syn::Visibility,
    sig: syn::Signature,
    body: proc_macro2::Group,
}

/// The functions of one `sparse_kernel!` invocation.
struct KernelItems(Vec<RawKernel>);

impl Parse for KernelItems {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut items = Vec::new();
        while !input.is_empty() {
            let attrs = input.call(syn::Attribute::parse_outer)?;
            let vis = input.parse()?;
            let sig = input.parse()?;
            let body: proc_macro2::Group = input.parse()?;
            if body.delimiter() != proc_macro2::Delimiter::Brace {
                return Err(syn::Error::new(
                    body.span(),
                    "expected a function body `{ ... }`",
                ));
            }
            items.push(RawKernel {
                attrs,
                vis,
                sig,
                body,
            });
        }
        Ok(KernelItems(items))
    }
}

impl RawKernel {
    /// The function with an empty body (for a stub).
    fn signature_only(&self) -> syn::ItemFn {
        syn::ItemFn {
            attrs: self.attrs.clone(),
            vis: self.vis.clone(),
            sig: self.sig.clone(),
            block: Box::new(syn::Block {
                brace_token: syn::token::Brace(self.body.delim_span()),
                stmts: Vec::new(),
            }),
        }
    }

    /// The function with its body parsed, if the body is within
    /// [`limits::MAX_BODY_TOKENS`] and parses; else the stub's item and the error.
    fn parse(self) -> Result<syn::ItemFn, Box<(syn::ItemFn, syn::Error)>> {
        let mut item = self.signature_only();
        let tokens = limits::count_tokens(&self.body.stream());
        if tokens > limits::MAX_BODY_TOKENS {
            return Err(Box::new((item, limits::body_too_large(&self.body, tokens))));
        }
        let parse_body = |content: ParseStream| {
            let inner = content.call(syn::Attribute::parse_inner)?;
            let stmts = content.call(syn::Block::parse_within)?;
            Ok((inner, stmts))
        };
        match syn::parse::Parser::parse2(parse_body, self.body.stream()) {
            Ok((inner, stmts)) => {
                item.attrs.extend(inner);
                item.block.stmts = stmts;
                Ok(item)
            }
            Err(e) => Err(Box::new((item, e))),
        }
    }
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
        // Only the error, without parsing the bodies: compiling (or even stubbing) thousands
        // of functions could take longer than a macro should.
        let error = syn::Error::new(
            items[limits::MAX_KERNELS].sig.ident.span(),
            format!(
                "one `sparse_kernel!` holds at most {} functions, this one {}\nhelp: split them into several `sparse_kernel!` blocks",
                limits::MAX_KERNELS,
                items.len()
            ),
        );
        return error.to_compile_error();
    }
    // Functions declared for index notation first: every kernel of the block can call them.
    let (declarations, kernels): (Vec<RawKernel>, Vec<RawKernel>) = items
        .into_iter()
        .partition(|item| algebra::is_declaration(&item.attrs));
    let mut out = TokenStream::new();
    let mut functions = Vec::new();
    for item in declarations {
        match item.parse() {
            Ok(item) => {
                let mut diags = Diagnostics::default();
                let (function, tokens) = algebra::declare(&item, &mut diags);
                out.extend(tokens);
                match diags.into_error() {
                    Some(e) => out.extend(e.to_compile_error()),
                    None => functions.extend(function),
                }
            }
            Err(failed) => {
                out.extend(failed.1.to_compile_error());
            }
        }
    }
    for item in kernels {
        out.extend(match item.parse() {
            Ok(item) => compile_fn(&item, &functions),
            Err(failed) => stub(&failed.0, failed.1),
        });
    }
    out
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
    /// The workspace the output is appended through, if any.
    pub workspace: Option<workspace::Workspace>,
    /// The compute-only variant a `compute(name)` schedule asks for.
    pub compute: Option<ComputeOnly>,
}

/// The compute-only variant of a kernel (the assemble/compute split, taco section 7).
pub struct ComputeOnly {
    /// Its function name.
    pub name: proc_macro2::Ident,
    /// Its lowered body: the kernel's loops, storing each value at the next position.
    pub body: Vec<ir::Stmt>,
    /// The identifier of every local of the body.
    pub names: names::Names,
    /// The kernel's id, recorded by the kernel in the outputs it assembles and checked by
    /// the variant.
    pub id: u64,
}

/// A kernel's id: a hash (FNV-1a) of its text, schedule included, which determines the
/// pattern it assembles from its operands' patterns and the order its values are stored in
/// (the type assertions make the formats named in the text the ones the code assumes; the
/// schedule decides the loop order, which orders the entries of an unordered output level).
fn kernel_id(item: &syn::ItemFn) -> u64 {
    let text = quote!(#item).to_string();
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Runs the pipeline on one function, collecting diagnostics.
pub fn compile(item: &syn::ItemFn) -> Result<Compiled, syn::Error> {
    compile_with(item, &[])
}

/// [`compile`] for a kernel of a block that declares `functions` (`#[function(..)]`).
pub fn compile_with(
    item: &syn::ItemFn,
    functions: &[algebra::Function],
) -> Result<Compiled, syn::Error> {
    let id = kernel_id(item);
    let (item, schedule_attrs) = schedule::split(item);
    let item = &item;
    let mut diags = Diagnostics::default();
    let result = (|| {
        let schedule = schedule::read(&schedule_attrs, &mut diags);
        let mut kernel = check::check(item, functions, &mut diags)?;
        if let Some((order, _)) = &schedule.order {
            kernel.forced_order = schedule::resolve_order(&kernel, order, &mut diags)?;
        }
        let (parts, workspace, converted) = nests(&kernel, &schedule, &mut diags)?;
        if let Some(converted) = converted {
            kernel = converted;
        }
        let lower_all = |values_only: bool, diags: &mut Diagnostics| {
            let mut body = Vec::new();
            for part in &parts {
                match lower::lower(&part.kernel, &part.order, workspace.as_ref(), values_only) {
                    Ok(stmts) => body.extend(stmts),
                    Err(internal) => {
                        diags.error(
                            item.sig.ident.span(),
                            format!(
                                "internal error in sparse_kernel! (please report it): {internal}"
                            ),
                        );
                        return None;
                    }
                }
            }
            Some(body)
        };
        let mut body = register_block::blocks(&kernel, lower_all(false, &mut diags)?);
        let precompute = |body| match schedule.term_by_term {
            Some(_) => body,
            None => precompute::precomputed(&kernel, body),
        };
        body = precompute(body);
        // Strips, then (unless every sum must add in the order written) partial sums in
        // their lanes, then positions from the lanes' start.
        let strips = |body| {
            let body = strip_mine::strips(body);
            match schedule.term_by_term {
                Some(_) => body,
                None => lane_sums::partial_sums(&kernel, body),
            }
        };
        if schedule.serial.is_none() {
            body = parallel::rows(&kernel, body);
            body = parallel::appended(&kernel, body);
            body = reduction::folds(&kernel, body);
        }
        body = bounded::appends(&kernel, body);
        body = lanes::positions(&kernel, strips(body));
        let compute = match &schedule.compute {
            Some(name) if schedule::check_compute(&kernel, name, &mut diags) => {
                let mut values = precompute(lower_all(true, &mut diags)?);
                if schedule.serial.is_none() {
                    values = parallel::segments(&kernel, values);
                }
                let values = lanes::positions(&kernel, strips(values));
                let names = names::Names::new(&kernel, emit::locals(&kernel, &values));
                Some(ComputeOnly {
                    name: name.clone(),
                    body: values,
                    names,
                    id,
                })
            }
            _ => None,
        };
        let orders = match &workspace {
            Some(w) => split::parts_after(&w.inner, &w.outer, &mut Diagnostics::default())
                .map(|nests| nests.into_iter().map(|p| p.order).collect())
                .unwrap_or_default(),
            None => parts.into_iter().map(|p| p.order).collect(),
        };
        if diags.has_errors() {
            return None;
        }
        let names = names::Names::new(&kernel, emit::locals(&kernel, &body));
        Some(Compiled {
            kernel,
            orders,
            body,
            names,
            workspace,
            compute,
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

/// Loop nests, the workspace their sparse output is appended through (if any), and the
/// kernel with converted operands (if any).
type Nests = (
    Vec<split::Part>,
    Option<workspace::Workspace>,
    Option<notation::Kernel>,
);

/// The loop nests of a checked kernel, and its workspace if its sparse output is appended
/// through one: the one the schedule asks for, else one only when no loop order (nor split)
/// appends the output directly. Reports why when there is none.
fn nests(
    kernel: &notation::Kernel,
    schedule: &schedule::Schedule,
    diags: &mut Diagnostics,
) -> Option<Nests> {
    let found = nests_unexplained(kernel, schedule, diags);
    let mut unforced = kernel.clone();
    unforced.forced_order.clear();
    let order_is_why = || nests_unexplained(&unforced, schedule, &mut Diagnostics::default());
    if let (None, Some((order, span))) = (&found, &schedule.order) {
        // Only when the schedule's order is what leaves no nest.
        order_is_why()?;
        let names: Vec<String> = order.iter().map(|v| format!("`{v}`")).collect();
        diags.error_help(
            *span,
            format!(
                "no loop nest of `{}` can run its loops in the order {}",
                kernel.name,
                names.join(", ")
            ),
            "follow the storage order of the operands the other errors name, or remove the `order` directive",
        );
    }
    found
}

/// The order of preference: loops that traverse every operand in storage order (split into
/// nests if need be); a workspace below loops over the output's outer levels (Gustavson's
/// rows); converting an operand into another mode order; the whole output in a workspace.
/// The last two are implicit conversions, which `convert(never)` forbids, and neither is
/// tried for a kernel with a compute-only variant, whose operand patterns must be the
/// parameters' own.
fn nests_unexplained(
    kernel: &notation::Kernel,
    schedule: &schedule::Schedule,
    diags: &mut Diagnostics,
) -> Option<Nests> {
    let through = |w: workspace::Workspace| {
        let outer = split::Part {
            kernel: kernel.clone(),
            order: w.outer.clone(),
        };
        (vec![outer], Some(w), None)
    };
    if let Some(directive) = &schedule.workspace {
        let level = schedule::workspace_level(kernel, directive, diags)?;
        let Some(w) = workspace::plan(kernel, Some(level), directive.kind) else {
            diags.error_help(
                directive.span,
                format!(
                    "no loop order computes the output's levels from `{}` down in a workspace below loops over the levels above it",
                    directive.var
                ),
                "put the workspace at a higher output level, or remove the directive to let the compiler choose",
            );
            workspace::explain(kernel, level, diags);
            return None;
        };
        return Some(through(w));
    }
    let mut direct = Diagnostics::default();
    if let Some(parts) = split::parts(kernel, &mut direct) {
        return Some((parts, None, None));
    }
    let planned = workspace::plan(kernel, None, None);
    let (row_wise, whole): (Option<_>, Option<_>) = match planned {
        Some(w) if w.outer.is_empty() => (None, Some(w)),
        w => (w, None),
    };
    if let Some(w) = row_wise {
        return Some(through(w));
    }
    let implicit = schedule.no_conversion.is_none() && schedule.compute.is_none();
    if implicit {
        if let Some((converted, parts)) = conversion::plan(kernel) {
            return Some((parts, None, Some(converted)));
        }
        if let Some(w) = whole {
            return Some(through(w));
        }
    } else if let Some(w) = whole.filter(|_| schedule.no_conversion.is_none()) {
        return Some(through(w));
    }
    let e = direct.into_error()?;
    match (schedule.no_conversion, conversion::plan(kernel)) {
        (Some(span), Some((converted, _))) => {
            diags.push(conversion::forbidden(e, span, kernel, &converted))
        }
        _ => diags.push(e),
    }
    None
}

/// Compiles every statement of a kernel of several statements (`sequence`), reporting the
/// errors of all of them together.
pub fn compile_sequence(
    item: &syn::ItemFn,
    functions: &[algebra::Function],
) -> Result<(sequence::Sequence, Vec<Compiled>), syn::Error> {
    let sequence = sequence::read(item)?;
    let mut compiled = Vec::new();
    let mut errors = Diagnostics::default();
    // Every step checks the kernel's signature: its errors are reported once.
    let mut seen = std::collections::HashSet::new();
    for step in &sequence.steps {
        match compile_with(&step.item, functions) {
            Ok(c) => compiled.push(c),
            Err(e) => e
                .into_iter()
                .filter(|e| seen.insert((e.to_string(), format!("{:?}", e.span()))))
                .for_each(|e| errors.push(e)),
        }
    }
    match errors.into_error() {
        Some(e) => Err(e),
        None => Ok((sequence, compiled)),
    }
}

fn compile_fn(item: &syn::ItemFn, functions: &[algebra::Function]) -> TokenStream {
    let (plain, _) = schedule::split(item);
    if sequence::is_sequence(item) {
        return match compile_sequence(item, functions) {
            Ok((sequence, compiled)) => sequence::emit(&plain, &sequence, &compiled),
            Err(e) => stub(&plain, e),
        };
    }
    match compile_with(item, functions) {
        Ok(c) => match &c.compute {
            None => emit::kernel_fn(&plain, &c.kernel, &c.body, &c.names),
            Some(v) => {
                let role = emit::Role::Assembler { id: v.id };
                let mut out = emit::kernel_fn_as(&plain, &c.kernel, &c.body, &c.names, role);
                let role = emit::Role::ComputeOnly {
                    id: v.id,
                    name: &v.name,
                };
                out.extend(emit::kernel_fn_as(
                    &plain, &c.kernel, &v.body, &v.names, role,
                ));
                out
            }
        },
        Err(e) => {
            // The compute-only variant too, so that its callers see no cascade either.
            let (_, attrs) = schedule::split(item);
            let variant = schedule::read(&attrs, &mut Diagnostics::default()).compute;
            let mut out = stub(&plain, e);
            if let Some(name) = variant {
                let mut renamed = plain.clone();
                renamed.sig.ident = name;
                out.extend(stub_without_error(&renamed));
            }
            out
        }
    }
}

/// On error: the errors plus the function's signature with a stub body, so callers see one
/// error at the kernel rather than a cascade at every call site.
fn stub(item: &syn::ItemFn, error: syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    let stub = stub_without_error(item);
    quote! {
        #errors
        #stub
    }
}

/// The function's signature with a body that is never run (its kernel did not compile).
fn stub_without_error(item: &syn::ItemFn) -> TokenStream {
    // Only what a plain function may carry, so the stub adds no error of its own.
    let attrs = item
        .attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Outer) && !schedule::is_schedule(a));
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
