//! Kernels of several statements: a body such as
//!
//! ```text
//! q(i) = a(i, j) * p(j);
//! let pq = p(i) * q(i);
//! let alpha = rho / pq;
//! x(i) += alpha * p(i);
//! ```
//!
//! runs its statements in order. Each statement is compiled as a kernel of its own (the whole
//! pipeline, unchanged) over the parameters and temporaries it names, and the generated
//! function calls the statements' functions one after the other. A `let` defines a scalar
//! temporary, which later statements read like a scalar parameter.
//!
//! Every statement's entry checks (shapes, formats) run before the first statement does, so
//! a mismatch changes nothing. Once they pass, a later statement can still fail only where a
//! single kernel can fail after writing (an index overflow of a sparse output), and then the
//! earlier statements' writes stay.

use crate::diagnostic::Diagnostics;
use crate::names::same;
use crate::signature::{Param, ParamKind, Passing};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;

/// Whether a kernel body is a sequence (more than one statement, or a `let`) rather than the
/// single statement the rest of the pipeline compiles.
pub fn is_sequence(item: &syn::ItemFn) -> bool {
    item.block.stmts.len() > 1 || matches!(item.block.stmts.first(), Some(syn::Stmt::Local(_)))
}

/// A scalar temporary: `let name = ...;`.
struct Temporary {
    /// The name, with the user's span.
    name: Ident,
    /// The statement that defines it.
    defined_at: usize,
}

/// One statement, as the single-statement kernel that computes it.
pub struct Step {
    /// The statement as a kernel function named like the whole kernel (so diagnostics and
    /// run-time errors name the user's function), over the names it uses.
    pub item: syn::ItemFn,
    /// The arguments the generated function passes, in the order of the step's parameters.
    args: Vec<TokenStream>,
    /// The name the statement writes.
    output: Ident,
}

/// A sequence kernel's statements as steps, and the temporaries they define.
pub struct Sequence {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The name of each temporary, with the user's span.
    temporaries: Vec<Ident>,
    /// The kernel's value type, the temporaries'.
    value_type: syn::Type,
}

/// The statements of a sequence kernel as steps, or the errors of the sequence.
pub fn read(item: &syn::ItemFn) -> Result<Sequence, syn::Error> {
    let mut diags = Diagnostics::default();
    let params = crate::signature::read_params(&item.sig, &mut diags);
    for attr in item
        .attrs
        .iter()
        .filter(|a| crate::schedule::is_schedule(a))
    {
        diags.error_help(
            attr.span(),
            "a kernel of several statements is scheduled statement by statement",
            "put the `#[schedule(...)]` attribute on the statement it schedules",
        );
    }
    let value_type = params.first().map(|p| p.value_type.clone());
    let statements: Vec<Statement> = item
        .block
        .stmts
        .iter()
        .filter_map(|s| Statement::read(s, &mut diags))
        .collect();
    let temporaries = temporaries(&statements, &params, &mut diags);
    check_uses(&statements, &temporaries, &mut diags);
    if let Some(e) = diags.into_error() {
        return Err(e);
    }
    let Some(value_type) = value_type else {
        return Err(syn::Error::new(
            item.sig.ident.span(),
            "a kernel needs parameters",
        ));
    };
    let scope = Scope {
        params: &params,
        temporaries: &temporaries,
        value_type: &value_type,
    };
    Ok(Sequence {
        steps: statements
            .iter()
            .enumerate()
            .map(|(k, s)| scope.step(item, s, read_later(&statements[k + 1..], &s.output)))
            .collect(),
        temporaries: temporaries.iter().map(|t| t.name.clone()).collect(),
        value_type,
    })
}

/// One statement as written: what it writes, what it reads, and its tokens.
struct Statement {
    /// The name written: the output tensor or scalar, or the temporary a `let` defines.
    output: Ident,
    /// Whether it is a `let`.
    defines: bool,
    /// Every name the right side reads (tensors and scalars, not index variables).
    reads: Vec<Ident>,
    /// The statement as a single-statement body: `lhs op rhs` (a `let` becomes `name = rhs`).
    body: syn::Expr,
    /// Its `#[schedule(...)]` attributes.
    schedule: Vec<syn::Attribute>,
}

impl Statement {
    fn read(stmt: &syn::Stmt, diags: &mut Diagnostics) -> Option<Statement> {
        match stmt {
            syn::Stmt::Local(local) => Statement::read_let(local, diags),
            syn::Stmt::Expr(expr, _) => Statement::read_assignment(expr, diags),
            other => {
                diags.error_help(
                    other.span(),
                    "expected an index notation statement or a `let`",
                    "write statements such as `y(i) = a(i, j) * x(j);` or `let s = x(i) * x(i);`",
                );
                None
            }
        }
    }

    fn read_let(local: &syn::Local, diags: &mut Diagnostics) -> Option<Statement> {
        let schedule = schedule_attrs(&local.attrs, diags);
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&t.ty)),
            other => (other, None),
        };
        if let Some(ty) = ty {
            diags.error_help(
                ty.span(),
                "a temporary has the kernel's value type",
                "remove the type annotation",
            );
        }
        let name = match pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                if let Some(m) = p.mutability {
                    diags.error_help(
                        m.span(),
                        "a temporary is defined once and never assigned: it needs no `mut`",
                        "remove `mut`",
                    );
                }
                p.ident.clone()
            }
            syn::Pat::TupleStruct(t) => {
                diags.error_help(
                    t.span(),
                    "a temporary is a scalar; tensor temporaries are not supported",
                    "declare the tensor as a `&mut` parameter of the kernel and assign it",
                );
                return None;
            }
            other => {
                diags.error_help(
                    other.span(),
                    "a temporary is a plain name",
                    "write `let name = ...;`",
                );
                return None;
            }
        };
        let Some(init) = &local.init else {
            diags.error_help(
                local.span(),
                format!("the temporary `{name}` has no value"),
                format!("write `let {name} = ...;`"),
            );
            return None;
        };
        if let Some((else_token, _)) = &init.diverge {
            diags.error(else_token.span(), "a temporary has no `else` branch");
        }
        let rhs = &init.expr;
        let lhs = &name;
        Some(Statement {
            reads: names_read(rhs),
            output: name.clone(),
            defines: true,
            body: syn::parse_quote!(#lhs = #rhs),
            schedule,
        })
    }

    fn read_assignment(expr: &syn::Expr, diags: &mut Diagnostics) -> Option<Statement> {
        let mut body = expr.clone();
        // syn attaches a statement's outer attributes to its leftmost expression.
        let attrs = match &mut body {
            syn::Expr::Assign(a) => take_attrs(&mut a.left),
            syn::Expr::Binary(b) => take_attrs(&mut b.left),
            _ => Vec::new(),
        };
        let schedule = schedule_attrs(&attrs, diags);
        let (lhs, rhs) = match &body {
            syn::Expr::Assign(a) => (&*a.left, Some(&*a.right)),
            syn::Expr::Binary(b) => (&*b.left, Some(&*b.right)),
            // Not an assignment: the statement's own check words the error.
            other => (other, None),
        };
        let output = match lhs {
            syn::Expr::Call(call) => path_ident(&call.func),
            other => path_ident(other),
        };
        Some(Statement {
            output: output.unwrap_or_else(|| Ident::new("_", lhs.span())),
            defines: false,
            reads: rhs.map(names_read).unwrap_or_default(),
            body: body.clone(),
            schedule,
        })
    }
}

/// Removes and returns the attributes of a statement's left side.
fn take_attrs(lhs: &mut syn::Expr) -> Vec<syn::Attribute> {
    match lhs {
        syn::Expr::Call(c) => std::mem::take(&mut c.attrs),
        syn::Expr::Path(p) => std::mem::take(&mut p.attrs),
        _ => Vec::new(),
    }
}

/// A statement's attributes: only `#[schedule(...)]`, without a compute-only variant (which
/// would be a function of its own, out of the caller's reach inside the kernel).
fn schedule_attrs(attrs: &[syn::Attribute], diags: &mut Diagnostics) -> Vec<syn::Attribute> {
    let mut kept = Vec::new();
    for attr in attrs {
        if !crate::schedule::is_schedule(attr) {
            diags.error_help(
                attr.span(),
                "a statement takes no attribute but `#[schedule(...)]`",
                "remove the attribute",
            );
            continue;
        }
        let schedule =
            crate::schedule::read(std::slice::from_ref(attr), &mut Diagnostics::default());
        if schedule.compute.is_some() {
            diags.error_help(
                attr.span(),
                "a compute-only variant is made for a kernel of one statement",
                "move the statement into a kernel of its own to give it a `compute` variant",
            );
            continue;
        }
        kept.push(attr.clone());
    }
    kept
}

/// The temporaries the statements define, reporting a name defined twice (temporaries do not
/// shadow: a later statement could not tell which it reads) or assigned after its `let`.
fn temporaries(
    statements: &[Statement],
    params: &[Param],
    diags: &mut Diagnostics,
) -> Vec<Temporary> {
    let mut out: Vec<Temporary> = Vec::new();
    for (at, s) in statements.iter().enumerate() {
        let earlier = out.iter().find(|t| same(&t.name, &s.output));
        if s.defines {
            if params.iter().any(|p| same(&p.name, &s.output)) {
                diags.error_help(
                    s.output.span(),
                    format!("`{}` is a parameter of the kernel", s.output),
                    "give the temporary another name",
                );
            } else if earlier.is_some() {
                diags.error_help(
                    s.output.span(),
                    format!("the temporary `{}` is already defined", s.output),
                    "temporaries do not shadow: give this one another name",
                );
            } else {
                out.push(Temporary {
                    name: s.output.clone(),
                    defined_at: at,
                });
            }
        } else if earlier.is_some() {
            diags.error_help(
                s.output.span(),
                format!("`{}` is a temporary, defined once by its `let`", s.output),
                "define a new temporary with `let`, or make it a `&mut` parameter",
            );
        }
    }
    out
}

/// Reports a temporary read by a statement before (or by) the one that defines it.
fn check_uses(statements: &[Statement], temporaries: &[Temporary], diags: &mut Diagnostics) {
    for (at, s) in statements.iter().enumerate() {
        for name in &s.reads {
            if let Some(t) = temporaries.iter().find(|t| same(&t.name, name)) {
                if t.defined_at >= at {
                    diags.error_help(
                        name.span(),
                        format!("the temporary `{name}` is used before it is defined"),
                        "statements run in order: define it by an earlier `let`",
                    );
                }
            }
        }
    }
}

/// Every tensor and scalar name an expression reads: accessed tensors (`a` in `a(i, j)`) and
/// bare names, not index variables.
fn names_read(e: &syn::Expr) -> Vec<Ident> {
    let mut out = Vec::new();
    collect_names(e, &mut out);
    out
}

fn collect_names(e: &syn::Expr, out: &mut Vec<Ident>) {
    match e {
        syn::Expr::Path(_) => out.extend(path_ident(e)),
        syn::Expr::Call(call) => out.extend(path_ident(&call.func)),
        syn::Expr::Binary(b) => {
            collect_names(&b.left, out);
            collect_names(&b.right, out);
        }
        syn::Expr::Unary(u) => collect_names(&u.expr, out),
        syn::Expr::Paren(p) => collect_names(&p.expr, out),
        syn::Expr::Group(g) => collect_names(&g.expr, out),
        // Anything else is refused by the statement's own check.
        _ => {}
    }
}

fn path_ident(e: &syn::Expr) -> Option<Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        syn::Expr::Group(g) => path_ident(&g.expr),
        _ => None,
    }
}

/// What the statements of one kernel can name.
struct Scope<'a> {
    params: &'a [Param],
    temporaries: &'a [Temporary],
    value_type: &'a syn::Type,
}

impl Scope<'_> {
    /// The single-statement kernel of statement `s`: the kernel's parameters (the one it
    /// writes as declared, the others shared or by value), then the temporaries it names
    /// (the one it defines as `&mut`).
    ///
    /// A tensor a later statement reads carries its declared fill value (zero without one)
    /// as an assertion on the statement that writes it: the compiler then proves that the
    /// fill it leaves is the one the readers were compiled for.
    fn step(&self, item: &syn::ItemFn, s: &Statement, read_later: bool) -> Step {
        let named = |n: &Ident| same(n, &s.output) || s.reads.iter().any(|r| same(r, n));
        let mut inputs: Vec<syn::FnArg> = Vec::new();
        let mut args = Vec::new();
        // Every parameter, so that the statement's check knows (and names, in its help) all
        // the kernel's tensors; the generated code binds only the ones it uses.
        for p in self.params {
            let written = same(&p.name, &s.output);
            let (mut input, arg) = param_use(p, written);
            let assert_zero = written
                && read_later
                && matches!(p.kind, ParamKind::Tensor(ref f) if !f.is_all_dense());
            if let syn::FnArg::Typed(pt) = &mut input {
                match &p.fill_attr {
                    Some(attr) => pt.attrs.push(attr.clone()),
                    None if assert_zero => {
                        let span = p.name.span();
                        pt.attrs.push(syn::parse_quote_spanned!(span=> #[fill(0)]));
                    }
                    None => {}
                }
            }
            inputs.push(input);
            args.push(arg);
        }
        let v = self.value_type;
        for t in self.temporaries.iter().filter(|t| named(&t.name)) {
            let name = &t.name;
            if same(name, &s.output) {
                inputs.push(syn::parse_quote!(#name: &mut #v));
                args.push(quote!(&mut #name));
            } else {
                inputs.push(syn::parse_quote!(#name: #v));
                args.push(quote!(#name));
            }
        }
        let mut sig = item.sig.clone();
        sig.inputs = inputs.into_iter().collect();
        let body = &s.body;
        let mut attrs = s.schedule.clone();
        attrs.push(syn::parse_quote!(#[allow(unused_variables)]));
        Step {
            item: syn::ItemFn {
                attrs,
                vis: syn::Visibility::Inherited,
                sig,
                block: Box::new(syn::parse_quote!({ #body })),
            },
            args,
            output: s.output.clone(),
        }
    }
}

/// Whether one of `later` reads `name` (on its right side, or by `+=`/`-=` into it).
fn read_later(later: &[Statement], name: &Ident) -> bool {
    later.iter().any(|s| {
        s.reads.iter().any(|r| same(r, name))
            || same(&s.output, name)
                && matches!(&s.body, syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::AddAssign(_) | syn::BinOp::SubAssign(_)))
    })
}

/// A parameter as the statement's kernel declares it, and the argument passed for it: the
/// output as declared, another `&mut` tensor shared, another scalar output by value, the rest
/// as declared.
fn param_use(p: &Param, written: bool) -> (syn::FnArg, TokenStream) {
    let name = &p.name;
    let inner = &p.inner;
    let ty = &p.ty;
    match (&p.kind, p.passing, written) {
        (_, Passing::Mutable, true) => (syn::parse_quote!(#name: #ty), quote!(&mut *#name)),
        (ParamKind::Tensor(_), Passing::Shared | Passing::Mutable, false) => {
            (syn::parse_quote!(#name: &#inner), quote!(&*#name))
        }
        (ParamKind::Scalar, Passing::Mutable, false) => {
            (syn::parse_quote!(#name: #inner), quote!(*#name))
        }
        // As declared; the statement's check reports the ones declared wrongly.
        _ => (syn::parse_quote!(#name: #ty), quote!(#name)),
    }
}

/// The generated function of a sequence kernel: the steps' entry checks, then the steps, each
/// a function of its own inside the kernel's body. Items are not hygienic (a function named in
/// the kernel's body would shadow a user's parameter of that name), so each function is an
/// item of a block of its own, bound to a local with a mixed-site name, which no user
/// identifier can name or be shadowed by.
pub fn emit(item: &syn::ItemFn, sequence: &Sequence, compiled: &[crate::Compiled]) -> TokenStream {
    let mut items = TokenStream::new();
    let mut checks = TokenStream::new();
    let mut calls = TokenStream::new();
    let inner = Ident::new("statement", Span::mixed_site());
    for (k, (step, c)) in sequence.steps.iter().zip(compiled).enumerate() {
        let (mut plain, _) = crate::schedule::split(&step.item);
        plain.sig.ident = inner.clone();
        let mut bind = |local: &str, role| {
            let local = Ident::new(local, Span::mixed_site());
            let f = crate::emit::kernel_fn_as(&plain, &c.kernel, &c.body, &c.names, role);
            items.extend(quote!(let #local = { #f #inner };));
            local
        };
        let args = &step.args;
        let run = bind(&format!("statement_{k}"), crate::emit::Role::Plain);
        calls.extend(quote!(#run(#(#args),*)?;));
        if crate::emit::has_entry_checks(&c.kernel) {
            // A tensor an earlier statement writes gets its fill there (asserted at compile
            // time to be the one declared): its current one is not checked beforehand.
            let skip: Vec<Ident> = sequence.steps[..k]
                .iter()
                .map(|s| s.output.clone())
                .collect();
            let role = crate::emit::Role::ChecksOnly {
                written_before: &skip,
            };
            let check = bind(&format!("check_{k}"), role);
            checks.extend(quote!(#check(#(#args),*)?;));
        }
    }
    let v = &sequence.value_type;
    let zero = quote!(<#v as ::sparse_runtime::__private::num_traits::Zero>::zero());
    let temporaries = &sequence.temporaries;
    crate::emit::sequence_fn(
        item,
        quote! {
            #items
            #(let mut #temporaries: #v = #zero;)*
            #checks
            #calls
        },
    )
}
