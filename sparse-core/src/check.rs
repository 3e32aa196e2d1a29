//! Checking a kernel: names resolve, arities match formats, the output is the one `&mut`
//! tensor, operators are supported. The result is a [`Kernel`] with explicit sums.

use crate::algebra::{self, Constant, Function};
use crate::diagnostic::Diagnostics;
use crate::format::{Assembly, Format, LevelFormat};
use crate::names::same;
use crate::notation::{
    Access, AssignOp, BinOp, Bound, Expr, IndexVar, Kernel, Literal, Output, ScalarParam,
    TensorParam, VarId, Window,
};
use crate::signature::{is_float, is_primitive, Param, ParamKind, Passing};
use proc_macro2::{Ident, Span};
use quote::ToTokens;
use syn::spanned::Spanned;

/// Checks one kernel function; `None` when a diagnostic was recorded. `declared` are the
/// functions of its `sparse_kernel!` block (`#[function(..)]`), which calls can name.
pub fn check(item: &syn::ItemFn, declared: &[Function], diags: &mut Diagnostics) -> Option<Kernel> {
    check_signature_shape(&item.sig, diags);
    check_attributes(item, diags);
    if item.sig.inputs.len() > crate::limits::MAX_PARAMS {
        return None;
    }
    let params = crate::signature::read_params(&item.sig, diags);
    let statement = statement(&item.block, diags);
    let output_name = statement.and_then(|(lhs, ..)| match lhs {
        syn::Expr::Call(call) => path_ident(&call.func),
        other => path_ident(other),
    });
    for param in &params {
        check_param(
            param,
            output_name.as_ref().is_some_and(|n| same(n, &param.name)),
            diags,
        );
    }
    let (lhs, op, rhs) = statement?;
    let mut builder = Builder::new(&params, declared);
    builder.unreadable = param_names(&item.sig)
        .filter(|n| params.iter().all(|p| !same(&p.name, n)))
        .collect();
    let output = builder.output(lhs, diags);
    let rhs = builder.expr(rhs, diags);
    let (output, rhs) = (output?, rhs?);
    builder.check_output_use(&output, diags);
    builder.check_value_types(diags);
    let value_type = builder.value_type();
    builder.check_negations(&value_type, diags);
    let (op, rhs) = match op {
        Compound::Assign => (AssignOp::Assign, rhs),
        Compound::Add => (AssignOp::AddAssign, rhs),
        Compound::Sub(span) => {
            subtract_check(span, &value_type, diags);
            (AssignOp::AddAssign, Expr::Neg(Box::new(rhs)))
        }
    };
    check_literals(&rhs, &value_type, diags);
    if diags.has_errors() {
        return None;
    }
    let rhs = builder.place_sums(rhs, &output, diags)?;
    builder.check_divisors(&rhs, diags);
    if diags.has_errors() {
        return None;
    }
    let output_fill = match &output {
        Output::Tensor(a) => {
            let t = builder.accesses[*a].tensor;
            builder.tensor_params[t]
                .fill_attr
                .clone()
                .map(|attr| (attr, builder.tensors[t].fill.clone()))
        }
        Output::Scalar(_) => None,
    };
    let kernel = Kernel {
        name: item.sig.ident.clone(),
        tensors: builder.tensors,
        scalars: builder.scalars,
        vars: builder.vars,
        accesses: builder.accesses,
        output,
        op,
        rhs,
        value_type,
        old_output: None,
        forced_order: Vec::new(),
        conversions: Vec::new(),
        functions: builder.functions,
    };
    let kernel = read_old_output(kernel);
    check_regions(&kernel, &kernel.rhs, diags);
    if let Some((attr, declared)) = output_fill {
        check_output_fill(&kernel, &attr, &declared, diags);
    }
    (!diags.has_errors()).then_some(kernel)
}

/// A call whose declared region can never hold (`iterate(x & !m)` with a dense `m`, which
/// stores every component) computes nothing anywhere: certainly not what was meant.
fn check_regions(kernel: &Kernel, e: &Expr, diags: &mut Diagnostics) {
    for c in e.children() {
        check_regions(kernel, c, diags);
    }
    let Expr::Call(f, args) = e else { return };
    let function = &kernel.functions[*f];
    let Some(region) = &function.iterate else {
        return;
    };
    let everywhere: Vec<bool> = args.iter().map(|a| stored_everywhere(kernel, a)).collect();
    let free: Vec<usize> = (0..args.len()).filter(|&n| !everywhere[n]).collect();
    let holds_somewhere = (0..1usize << free.len()).any(|bits| {
        let mut present = everywhere.clone();
        for (k, &n) in free.iter().enumerate() {
            present[n] = bits >> k & 1 == 1;
        }
        region.holds(&present)
    });
    if holds_somewhere {
        return;
    }
    let dense: Vec<String> = (0..args.len())
        .filter(|&n| everywhere[n])
        .map(|n| format!("`{}`", function.params[n]))
        .collect();
    let mut ids = Vec::new();
    e.accesses(&mut ids);
    let tokens: proc_macro2::TokenStream = ids
        .iter()
        .map(|&a| kernel.accesses[a].tokens.clone())
        .collect();
    diags.error_spanned(
        tokens,
        format!(
            "`{}` computes nothing here: its region `{}` never holds, since {} {} stored everywhere (a dense operand or a constant)",
            function.name,
            region.render_top(&function.params),
            dense.join(" and "),
            if dense.len() == 1 { "is" } else { "are" }
        ),
        "pass a sparse operand (a mask of the stored coordinates), or a function whose value depends on the values, e.g. `and(x, not(m))`",
    );
}

/// Whether an expression is present at every coordinate: a dense operand, a constant, or a
/// node whose region holds over such arguments alone.
fn stored_everywhere(kernel: &Kernel, e: &Expr) -> bool {
    match e {
        Expr::Access(a) => kernel.format_of(*a).is_all_dense(),
        Expr::Scalar(_) | Expr::Literal(_) => true,
        Expr::Const(_) => false,
        Expr::Neg(x) => stored_everywhere(kernel, x),
        Expr::Sum(..) | Expr::Reduce(..) => algebra::fill_of(kernel, e).is_none(),
        Expr::Binary(..) | Expr::Call(..) => {
            let present: Vec<bool> = e
                .children()
                .iter()
                .map(|c| stored_everywhere(kernel, c))
                .collect();
            algebra::region_of(kernel, e).is_some_and(|r| r.holds(&present))
        }
    }
}

/// The output's fill value is derived (its value where no operand is stored); a declared one
/// must be it. A sparse output gets the derived value on return.
fn check_output_fill(
    kernel: &Kernel,
    attr: &syn::Attribute,
    declared: &Constant,
    diags: &mut Diagnostics,
) {
    match algebra::fill_of(kernel, &kernel.rhs) {
        Some(Expr::Const(c)) if c.same(declared) => {}
        Some(Expr::Const(c)) => diags.error_spanned(
            attr,
            format!("the output's fill value is {c}, not {declared}: that is the statement's value where no operand is stored"),
            format!("declare `#[fill({c})]`, or none: the kernel gives the output its fill value"),
        ),
        Some(_) => diags.error_spanned(
            attr,
            format!("the output's fill value is computed when the kernel runs, so it cannot be declared {declared}"),
            "remove the `#[fill(..)]`: the kernel gives the output its fill value",
        ),
        // Stored everywhere (a covering reduction is, over an empty dimension too): the
        // output gets fill 0, which no component shows.
        None if declared.is_zero() => {}
        None => diags.error_spanned(
            attr,
            format!("the statement has a value at every coordinate (a constant or a reduction over implicit values), so the output has no fill value to declare {declared}"),
            "remove the `#[fill(..)]`",
        ),
    }
}

/// An output whose old contents are read becomes two tensors: the output, assembled or
/// written from scratch, and `c_old`, a tensor of the output's format that the generated code
/// moves the old contents into first (and back if the call fails). That is the case when the
/// right side reads the output (`y(i) = a(i, j) * y(j)`: every read is of `c_old`, so no
/// component is read after it was overwritten), and for `+=` into an appended sparse output
/// (`c += e` is `c = c_old + e`, stored on the union of the old pattern and `e`'s iteration
/// space). `+=` into an output written in place that is not read needs no copy: it adds in
/// place. `c_old`'s name has a mixed-site span, out of reach of user code.
fn read_old_output(mut kernel: Kernel) -> Kernel {
    let Some(out) = kernel.output_access() else {
        return kernel;
    };
    let out_tensor = kernel.accesses[out].tensor;
    let reads: Vec<usize> = (0..kernel.accesses.len())
        .filter(|&a| a != out && kernel.accesses[a].tensor == out_tensor)
        .collect();
    let adds = kernel.op == AssignOp::AddAssign;
    // `+=` in place adds only where the right side has a point; where its fill value is not
    // zero, every other component changes too, so it is `c = c_old + e` as well.
    let zero_fill =
        matches!(algebra::fill_of(&kernel, &kernel.rhs), Some(Expr::Const(c)) if c.is_zero());
    let zero_fill = zero_fill && kernel.tensors[out_tensor].fill.is_zero();
    if reads.is_empty() && (!adds || (kernel.output_in_place() && zero_fill)) {
        return kernel;
    }
    let old_id = kernel.tensors.len();
    for &a in &reads {
        kernel.accesses[a].tensor = old_id;
    }
    let output = &kernel.tensors[out_tensor];
    let old = TensorParam {
        name: proc_macro2::Ident::new(
            &format!("{}_old", crate::names::plain(&output.name)),
            proc_macro2::Span::mixed_site(),
        ),
        format: output.format.clone(),
        written_type: output.written_type.clone(),
        fill: output.fill.clone(),
    };
    let access = Access {
        tensor: old_id,
        vars: kernel.accesses[out].vars.clone(),
        tokens: kernel.accesses[out].tokens.clone(),
        windows: kernel.accesses[out].windows.clone(),
    };
    kernel.old_output = Some(old_id);
    kernel.tensors.push(old);
    if adds {
        kernel.accesses.push(access);
        let old_access = Expr::Access(kernel.accesses.len() - 1);
        let rhs = std::mem::replace(&mut kernel.rhs, old_access.clone());
        kernel.rhs = Expr::binary(BinOp::Add, old_access, rhs);
        kernel.op = AssignOp::Assign;
    }
    kernel
}

fn check_signature_shape(sig: &syn::Signature, diags: &mut Diagnostics) {
    if !sig.generics.params.is_empty() {
        diags.error_help(
            sig.generics.span(),
            "kernels cannot be generic",
            "name concrete formats and value types in the signature",
        );
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        diags.error_help(
            ty.span(),
            "a kernel declares no return type",
            "remove it: the generated function returns `Result<(), sparse_runtime::Error>`",
        );
    }
    if let Some(token) = &sig.asyncness {
        diags.error(token.span, "kernels cannot be `async`");
    }
    let qualifier = |what: &str| format!("kernels cannot be `{what}`");
    let help = "remove it: a kernel is a plain safe function";
    if let Some(token) = &sig.constness {
        diags.error_help(token.span, qualifier("const"), help);
    }
    if let Some(token) = &sig.unsafety {
        diags.error_help(token.span, qualifier("unsafe"), help);
    }
    if let Some(abi) = &sig.abi {
        diags.error_help(abi.span(), "kernels cannot declare an ABI", help);
    }
    if let Some(variadic) = &sig.variadic {
        diags.error_help(variadic.span(), "kernels cannot be variadic", help);
    }
    if sig.inputs.len() > crate::limits::MAX_PARAMS {
        diags.error_help(
            sig.inputs.span(),
            format!(
                "a kernel takes at most {} parameters, this one {}",
                crate::limits::MAX_PARAMS,
                sig.inputs.len()
            ),
            "split the computation into several kernels",
        );
    }
    if let Some(clause) = &sig.generics.where_clause {
        diags.error_help(
            clause.span(),
            "kernels cannot have a `where` clause",
            "name concrete formats and value types in the signature",
        );
    }
}

/// Attributes pass through to the generated function, so they must be outer attributes.
fn check_attributes(item: &syn::ItemFn, diags: &mut Diagnostics) {
    for attr in &item.attrs {
        if let syn::AttrStyle::Inner(_) = attr.style {
            diags.error_help(
                attr.span(),
                "inner attributes are not supported in a kernel body",
                "put the attribute on the function as an outer attribute: `#[...]`",
            );
        }
    }
}

/// Format rules the code generator relies on: a non-unique level's children are singletons,
/// a singleton has a parent, and the last level is unique.
fn check_param(param: &Param, is_output: bool, diags: &mut Diagnostics) {
    match (&param.kind, &param.fill_attr) {
        (ParamKind::Scalar, Some(attr)) => diags.error_spanned(
            attr,
            format!("`{}` is a scalar: it has no fill value", param.name),
            "`#[fill(..)]` declares the value of the components a sparse tensor does not store",
        ),
        (ParamKind::Tensor(format), Some(attr))
            if format.remap.is_some_and(|r| !r.hidden.is_empty()) && !param.fill.is_zero() =>
        {
            diags.error_spanned(
                attr,
                format!(
                    "`{}` is a {}: its components are read through hidden coordinates, which need fill value 0",
                    param.name, format.written
                ),
                "convert it to a format of levels first (`.convert()`, e.g. into `Csr`), or keep fill 0",
            )
        }
        (ParamKind::Tensor(format), Some(attr)) if format.is_all_dense() => diags.error_spanned(
            attr,
            format!(
                "`{}` is dense ({}): it stores every component, so it has no fill value",
                param.name, format.written
            ),
            "remove the `#[fill(..)]`, or pass a sparse format",
        ),
        _ => {}
    }
    let ParamKind::Tensor(format) = &param.kind else {
        if param.passing == Passing::Shared {
            diags.error_help(
                param.type_span,
                "scalar inputs are passed by value",
                format!(
                    "write `{}: {}`",
                    param.name,
                    param.value_type.to_token_stream()
                ),
            );
        }
        return;
    };
    if param.passing == Passing::Value && is_output {
        diags.error_spanned(
            &param.ty,
            format!("the output `{}` must be a `&mut` parameter", param.name),
            format!("declare it as `{}: &mut {}`", param.name, format.written),
        );
    } else if param.passing == Passing::Value {
        diags.error_spanned(
            &param.ty,
            format!("tensor `{}` must be passed by reference", param.name),
            format!("write `{}: &{}`", param.name, format.written),
        );
    }
    let levels = &format.levels;
    let (Some(first), Some(last)) = (levels.first(), levels.last()) else {
        return;
    };
    if first.is_branchless() {
        diags.error(
            param.type_span,
            format!(
                "a `{}` level cannot be the first level: it needs a parent level",
                first.type_name()
            ),
        );
    }
    if !last.is_unique() {
        diags.error_help(
            param.type_span,
            "the last level of a tensor must be unique",
            "use `Singleton` or `Compressed` as the last level",
        );
    }
    for pair in levels.windows(2) {
        if !pair[0].is_unique() && !pair[1].is_branchless() {
            diags.error_help(
                param.type_span,
                format!(
                    "a `{}` level must be followed by a `Singleton` level",
                    pair[0].type_name()
                ),
                "store coordinates as in `Coo`: (CompressedNonUnique, Singleton)",
            );
        }
    }
}

/// How a statement combines its right side with the output, as written.
#[derive(Clone, Copy)]
enum Compound {
    /// `=`
    Assign,
    /// `+=`
    Add,
    /// `-=` (at this span): `+=` of the negated right side.
    Sub(Span),
}

/// `y -= e` is `y += -e`, which the wrapping of unsigned arithmetic would make `y + (0 - e)`:
/// that overflows (a panic in debug builds) whenever `e` is positive, even where `y - e`
/// does not, so unsigned outputs subtract explicitly.
fn subtract_check(span: Span, value_type: &syn::Type, diags: &mut Diagnostics) {
    if crate::signature::is_unsigned(value_type) {
        diags.error_help(
            span,
            "`-=` needs a signed value type",
            "for unsigned values write the subtraction out: `y(i) = y(i) - ...`",
        );
    }
}

/// The single statement `lhs = rhs`, `lhs += rhs` or `lhs -= rhs`.
fn statement<'a>(
    block: &'a syn::Block,
    diags: &mut Diagnostics,
) -> Option<(&'a syn::Expr, Compound, &'a syn::Expr)> {
    let help = "write a statement such as `y(i) = a(i, j) * x(j)`";
    // Several statements are a sequence (`crate::sequence`), compiled one by one.
    let [syn::Stmt::Expr(expr, _)] = block.stmts.as_slice() else {
        diags.error_help(
            block.span(),
            "expected an index notation statement in the kernel body",
            help,
        );
        return None;
    };
    if let Some(attr) = statement_attrs(expr).first() {
        diags.error_help(
            attr.span(),
            "a kernel of one statement takes its attributes on the function",
            "put the attribute on the function: `#[schedule(...)] fn ...`",
        );
    }
    match expr {
        syn::Expr::Assign(a) => Some((&a.left, Compound::Assign, &a.right)),
        syn::Expr::Binary(b) => match b.op {
            syn::BinOp::AddAssign(_) => Some((&b.left, Compound::Add, &b.right)),
            syn::BinOp::SubAssign(t) => Some((&b.left, Compound::Sub(t.span()), &b.right)),
            _ if is_compound_assign(&b.op) => {
                diags.error_help(
                    b.op.span(),
                    "only `=`, `+=` and `-=` assign in index notation",
                    help,
                );
                None
            }
            _ => {
                diags.error_help(expr.span(), "expected an assignment", help);
                None
            }
        },
        other => {
            diags.error_help(other.span(), "expected an assignment", help);
            None
        }
    }
}

/// The outer attributes of a statement, which syn attaches to its leftmost expression.
fn statement_attrs(expr: &syn::Expr) -> &[syn::Attribute] {
    let lhs = match expr {
        syn::Expr::Assign(a) => &*a.left,
        syn::Expr::Binary(b) => &*b.left,
        other => other,
    };
    match lhs {
        syn::Expr::Call(c) => &c.attrs,
        syn::Expr::Path(p) => &p.attrs,
        _ => &[],
    }
}

fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Float literals need a float value type. Over a value type that is not a primitive number,
/// a literal is converted at run time by `FromPrimitive` (`sparse_runtime::Value`'s
/// "Literals"): it must be unsuffixed, and an integer must fit `u128`.
fn check_literals(expr: &Expr, value_type: &syn::Type, diags: &mut Diagnostics) {
    match expr {
        Expr::Literal(Literal {
            lit: lit @ syn::Lit::Float(_),
        }) if !is_float(value_type) && is_primitive(value_type) => diags.error_help(
            lit.span(),
            format!(
                "float literal in a kernel over `{}`",
                value_type.to_token_stream()
            ),
            "write an integer literal",
        ),
        Expr::Literal(Literal { lit }) if !is_primitive(value_type) => {
            let (suffix, fits) = match lit {
                syn::Lit::Int(i) => (i.suffix(), i.base10_parse::<u128>().is_ok()),
                syn::Lit::Float(f) => (
                    f.suffix(),
                    f.base10_parse::<f64>().is_ok_and(f64::is_finite),
                ),
                _ => ("", true),
            };
            let ty = value_type.to_token_stream();
            if !suffix.is_empty() {
                diags.error_help(
                    lit.span(),
                    format!("suffixed literal in a kernel over `{ty}`"),
                    format!(
                        "drop the suffix `{suffix}`: a literal is converted to `{ty}` by \
                         `num_traits::FromPrimitive` from its value"
                    ),
                );
            } else if !fits {
                diags.error_help(
                    lit.span(),
                    format!("literal too large to convert to `{ty}`"),
                    "a literal is converted from a `u128` or an `f64`; \
                     pass a larger constant as a scalar parameter",
                );
            }
        }
        other => other
            .children()
            .into_iter()
            .for_each(|c| check_literals(c, value_type, diags)),
    }
}

/// Resolves names against the signature and records accesses and index variables.
struct Builder<'p> {
    params: &'p [Param],
    tensors: Vec<TensorParam>,
    tensor_params: Vec<&'p Param>,
    scalars: Vec<ScalarParam>,
    vars: Vec<IndexVar>,
    accesses: Vec<Access>,
    /// Parameters whose type was already reported as unreadable: no second error for them.
    unreadable: Vec<Ident>,
    /// Where the statement negates (unary `-`), checked against the value type.
    negations: Vec<Span>,
    /// The functions of the kernel's `sparse_kernel!` block.
    declared: &'p [Function],
    /// The functions the statement uses.
    functions: Vec<Function>,
    /// Variables of explicit reductions (`min[j](..)`): never summed implicitly.
    reduced: Vec<VarId>,
    /// `usize` parameters used as window bounds (exempt from the value type).
    bound_params: Vec<Ident>,
}

impl<'p> Builder<'p> {
    /// Unsigned values have no negation (Rust's `-x` does not compile for them either): a
    /// negated value would overflow whenever it is not zero.
    fn check_negations(&self, value_type: &syn::Type, diags: &mut Diagnostics) {
        if !crate::signature::is_unsigned(value_type) {
            return;
        }
        for &span in &self.negations {
            diags.error_help(
                span,
                format!(
                    "unsigned values cannot be negated: `{}` has no negative values",
                    value_type.to_token_stream()
                ),
                "subtract instead (`a(i) - b(i)`), or use a signed value type",
            );
        }
    }

    fn new(params: &'p [Param], declared: &'p [Function]) -> Self {
        let mut b = Builder {
            params,
            tensors: Vec::new(),
            tensor_params: Vec::new(),
            scalars: Vec::new(),
            vars: Vec::new(),
            accesses: Vec::new(),
            unreadable: Vec::new(),
            negations: Vec::new(),
            declared,
            functions: Vec::new(),
            reduced: Vec::new(),
            bound_params: Vec::new(),
        };
        for p in params {
            match &p.kind {
                ParamKind::Tensor(format) => {
                    b.tensors.push(TensorParam {
                        name: p.name.clone(),
                        format: format.clone(),
                        written_type: p.inner.clone(),
                        fill: p.fill.clone(),
                    });
                    b.tensor_params.push(p);
                }
                ParamKind::Scalar if p.passing == Passing::Value => b.scalars.push(ScalarParam {
                    name: p.name.clone(),
                }),
                ParamKind::Scalar => {}
            }
        }
        b
    }

    fn param(&self, name: &Ident) -> Option<&'p Param> {
        self.params.iter().find(|p| same(&p.name, name))
    }

    fn var(&mut self, name: &Ident) -> VarId {
        if let Some(v) = self
            .vars
            .iter()
            .position(|v| !v.hidden && same(&v.name, name))
        {
            return v;
        }
        self.vars.push(IndexVar {
            name: name.clone(),
            hidden: false,
        });
        self.vars.len() - 1
    }

    /// A fresh hidden index variable for one access of a remapped format: its name has a
    /// mixed-site span and is never looked up, so no user identifier reaches it.
    fn hidden_var(&mut self, name: &str) -> VarId {
        self.vars.push(IndexVar {
            name: Ident::new(name, Span::mixed_site()),
            hidden: true,
        });
        self.vars.len() - 1
    }

    /// The left side: a `&mut` tensor access or a `&mut` scalar.
    fn output(&mut self, lhs: &syn::Expr, diags: &mut Diagnostics) -> Option<Output> {
        let (name, args) = match lhs {
            syn::Expr::Call(call) => (path_ident(&call.func), Some(&call.args)),
            syn::Expr::Path(_) => (path_ident(lhs), None),
            _ => (None, None),
        };
        let Some(name) = name else {
            diags.error_help(
                lhs.span(),
                "the left side must be the output tensor with its indices, or a scalar output",
                "write `y(i) = ...` or `out = ...`",
            );
            return None;
        };
        let Some(param) = self.param(&name) else {
            self.unknown_name(&name, diags);
            return None;
        };
        if param.passing == Passing::Shared {
            input_written(param, &name, diags);
        }
        if param.passing != Passing::Mutable {
            return None;
        }
        match (&param.kind, args) {
            (ParamKind::Scalar, None) => Some(Output::Scalar(param.name.clone())),
            (ParamKind::Scalar, Some(_)) => {
                diags.error_help(
                    lhs.span(),
                    format!("scalar output `{name}` takes no indices"),
                    format!("write `{name} = ...`"),
                );
                None
            }
            (ParamKind::Tensor(format), _) => {
                check_output_format(format, param, diags);
                let empty = syn::punctuated::Punctuated::new();
                let access = self.access(&name, args.unwrap_or(&empty), lhs, diags)?;
                Some(Output::Tensor(access))
            }
        }
    }

    fn unknown_name(&self, name: &Ident, diags: &mut Diagnostics) {
        if self.unreadable.iter().any(|u| same(u, name)) {
            return;
        }
        let tensors: Vec<String> = self
            .tensor_params
            .iter()
            .map(|p| format!("`{}`", p.name))
            .collect();
        diags.error_help(
            name.span(),
            format!("unknown tensor `{name}`"),
            if tensors.is_empty() {
                "declare it as a parameter, e.g. `a: &Csr<f64>`".to_string()
            } else {
                format!(
                    "the kernel's tensors are {}; declare `{name}` as a parameter to use it",
                    tensors.join(", ")
                )
            },
        );
    }

    /// `name(i, j, ...)`; records index variables.
    fn access(
        &mut self,
        name: &Ident,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        written: &syn::Expr,
        diags: &mut Diagnostics,
    ) -> Option<usize> {
        let Some(param) = self.param(name) else {
            self.unknown_name(name, diags);
            return None;
        };
        let ParamKind::Tensor(format) = &param.kind else {
            diags.error_spanned(
                written,
                format!("`{name}` is a scalar and takes no indices"),
                format!("write `{name}`"),
            );
            return None;
        };
        if args.len() != format.logical_order() {
            diags.error_spanned(
                written,
                format!(
                    "`{name}` is a {} of order {} but is indexed with {} index variable{}",
                    format.written,
                    format.logical_order(),
                    args.len(),
                    if args.len() == 1 { "" } else { "s" }
                ),
                format!(
                    "write `{name}({})`",
                    ["i", "j", "k", "l", "m", "n"]
                        .iter()
                        .cycle()
                        .take(format.logical_order())
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            return None;
        }
        let mut vars = Vec::new();
        let mut windows = Vec::new();
        for (mode, arg) in args.iter().enumerate() {
            let (arg, window) = match arg {
                syn::Expr::Index(index) => {
                    let window = self.window(index, param, format, mode, diags)?;
                    (&*index.expr, Some(window))
                }
                other => (other, None),
            };
            windows.push(window);
            let Some(ident) = path_ident(arg) else {
                diags.error_help(
                    arg.span(),
                    "an index must be an index variable",
                    "write a name such as `i`",
                );
                return None;
            };
            if ["self", "Self", "super", "crate"].contains(&ident.to_string().as_str()) {
                diags.error_help(
                    ident.span(),
                    format!("`{ident}` is a keyword, not an index variable"),
                    "name index variables with identifiers such as `i`",
                );
                return None;
            }
            if self.param(&ident).is_some() {
                diags.error_help(
                    ident.span(),
                    format!("`{ident}` is a parameter, not an index variable"),
                    "rename the index variable",
                );
                return None;
            }
            let v = self.var(&ident);
            if vars.contains(&v) {
                diags.error_help(
                    ident.span(),
                    format!("index variable `{ident}` appears twice in one access"),
                    "diagonal accesses are not supported; use distinct index variables",
                );
                return None;
            }
            vars.push(v);
        }
        for hidden in format.remap.map_or(&[][..], |r| r.hidden) {
            vars.push(self.hidden_var(hidden));
            windows.push(None);
        }
        let tensor = self.tensors.iter().position(|t| same(&t.name, name))?;
        self.accesses.push(Access {
            tensor,
            vars,
            tokens: written.to_token_stream(),
            windows,
        });
        Some(self.accesses.len() - 1)
    }

    fn expr(&mut self, e: &syn::Expr, diags: &mut Diagnostics) -> Option<Expr> {
        match e {
            syn::Expr::Paren(p) => self.expr(&p.expr, diags),
            syn::Expr::Group(g) => self.expr(&g.expr, diags),
            syn::Expr::Call(call) => {
                if let syn::Expr::Index(index) = &*call.func {
                    return self.reduction(index, call, diags);
                }
                let Some(name) = path_ident(&call.func) else {
                    diags.error(call.func.span(), "expected a tensor name");
                    return None;
                };
                if self.param(&name).is_none() {
                    if let Some(f) = self.function(&name) {
                        return self.call(f, call, diags);
                    }
                    // Arguments that are not index variables: a call of an unknown function.
                    if call.args.iter().any(|a| path_ident(a).is_none()) {
                        diags.error_help(
                            name.span(),
                            format!("unknown function `{name}`"),
                            format!(
                                "index notation calls the prelude's functions ({}) and functions declared with `#[function(..)]` in the same `sparse_kernel!` block",
                                algebra::PRELUDE.join(", ")
                            ),
                        );
                        return None;
                    }
                }
                self.access(&name, &call.args, e, diags).map(Expr::Access)
            }
            syn::Expr::Path(_) => self.name_expr(e, diags),
            syn::Expr::Lit(lit) => match &lit.lit {
                syn::Lit::Int(_) | syn::Lit::Float(_) => Some(Expr::Literal(Literal {
                    lit: lit.lit.clone(),
                })),
                other => {
                    diags.error(other.span(), "only numeric literals are supported");
                    None
                }
            },
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(token) => {
                    self.negations.push(token.span);
                    Some(Expr::Neg(Box::new(self.expr(&u.expr, diags)?)))
                }
                _ => {
                    unsupported_operator(u.op.span(), diags);
                    None
                }
            },
            syn::Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => Some(BinOp::Add),
                    syn::BinOp::Sub(_) => Some(BinOp::Sub),
                    syn::BinOp::Mul(_) => Some(BinOp::Mul),
                    syn::BinOp::Div(_) => Some(BinOp::Div),
                    _ => {
                        unsupported_operator(b.op.span(), diags);
                        None
                    }
                };
                // Operands are checked even under an unsupported operator, so that every
                // diagnostic of the statement is reported at once.
                let l = self.expr(&b.left, diags);
                let r = self.expr(&b.right, diags);
                Some(Expr::binary(op?, l?, r?))
            }
            other => {
                diags.error_help(
                    other.span(),
                    "unsupported expression in index notation",
                    "use tensor accesses `a(i, j)`, scalar parameters, numeric literals, `+ - * /`, unary `-` and parentheses",
                );
                None
            }
        }
    }

    /// A window `i[lo..hi]`, `i[lo..]`, `i[..hi]` or `i[(lo..hi).step_by(s)]` of mode `mode`
    /// of `param`: bounds are literals or `usize` parameters. The level storing the mode must
    /// be reachable through it: `Dense` (located at the projected coordinate) or an ordered,
    /// compact level (its segment narrowed by binary search, a stride stepped over), not a
    /// level of a struct-held format, and not the output's.
    fn window(
        &mut self,
        index: &syn::ExprIndex,
        param: &Param,
        format: &Format,
        mode: usize,
        diags: &mut Diagnostics,
    ) -> Option<Window> {
        let help = "write a window as `i[lo..hi]`, `i[lo..]`, `i[..hi]` or `i[(lo..hi).step_by(s)]`, bounds being integer literals or `usize` parameters";
        let (range, step) = match &*index.index {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (ungroup(&m.receiver), Some(&m.args[0]))
            }
            other => (ungroup(other), None),
        };
        let syn::Expr::Range(range) = range else {
            diags.error_help(index.index.span(), "expected a window", help);
            return None;
        };
        if matches!(range.limits, syn::RangeLimits::Closed(_)) {
            diags.error_help(
                range.span(),
                "a window is a half-open range",
                "write `lo..hi` (`lo..=hi` is `lo..hi + 1`)",
            );
            return None;
        }
        let lo = match &range.start {
            Some(e) => self.bound(e, diags)?,
            None => Bound::Const(0),
        };
        let hi = match &range.end {
            Some(e) => Some(self.bound(e, diags)?),
            None => None,
        };
        let step = match step {
            Some(e) => self.bound(e, diags)?,
            None => Bound::Const(1),
        };
        let tokens = index.to_token_stream();
        let window = Window {
            lo,
            hi,
            step,
            tokens,
        };
        if let (Bound::Const(lo), Some(Bound::Const(hi))) = (&window.lo, &window.hi) {
            if lo > hi {
                diags.error_spanned(
                    index,
                    format!("the window {lo}..{hi} ends before it starts"),
                    help,
                );
                return None;
            }
        }
        if matches!(window.step, Bound::Const(0)) {
            diags.error_spanned(index, "a window's step must be at least 1", help);
            return None;
        }
        if param.passing == Passing::Mutable {
            diags.error_spanned(
                index,
                format!("a window of the output `{}`", param.name),
                "write the whole output; windows are for operands",
            );
            return None;
        }
        if format.remap.is_some() {
            diags.error_spanned(
                index,
                format!("`{}` is a {}: its modes are not stored in levels of their own, so a window cannot reach them", param.name, format.written),
                "convert it first (`.convert()`) to a format of levels, e.g. `Csr`",
            );
            return None;
        }
        let level = format.mode_order.iter().position(|&m| m == mode)?;
        let l = &format.levels[level];
        let reachable = l.has_locate() && l.is_full()
            || l.is_ordered() && l.is_compact() && (l.is_unique() || !window.strided());
        if !reachable {
            diags.error_spanned(
                index,
                format!(
                    "a window cannot reach mode {mode} of `{}`: it is stored in a `{}` level, {}",
                    param.name,
                    l.type_name(),
                    if !l.is_ordered() {
                        "whose coordinates are not in order"
                    } else if !l.is_compact() {
                        "which has positions without a coordinate"
                    } else {
                        "whose runs of equal coordinates a stride cannot step over"
                    }
                ),
                "window a mode stored in a `Dense`, `Compressed` or `Singleton` level (convert the operand first), or drop the window",
            );
            return None;
        }
        Some(window)
    }

    /// A window bound: an integer literal or a `usize` parameter.
    fn bound(&mut self, e: &syn::Expr, diags: &mut Diagnostics) -> Option<Bound> {
        match ungroup(e) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) if i.suffix().is_empty() || i.suffix() == "usize" => match i.base10_parse::<usize>()
            {
                Ok(n) => Some(Bound::Const(n)),
                Err(_) => {
                    diags.error(i.span(), "a window bound must fit `usize`");
                    None
                }
            },
            other => {
                let name = path_ident(other);
                let param = name.as_ref().and_then(|n| self.param(n));
                match (name, param) {
                    (Some(name), Some(p))
                        if matches!(p.kind, ParamKind::Scalar)
                            && p.passing == Passing::Value
                            && p.value_type.to_token_stream().to_string() == "usize" =>
                    {
                        self.bound_params.push(name.clone());
                        Some(Bound::Param(name))
                    }
                    _ => {
                        diags.error_help(
                            other.span(),
                            "a window bound is an integer literal or a `usize` parameter",
                            "declare the bound as a parameter, e.g. `lo: usize`",
                        );
                        None
                    }
                }
            }
        }
    }

    /// A function calls can name: one declared in the kernel's block, else the prelude's.
    fn function(&self, name: &Ident) -> Option<Function> {
        self.declared
            .iter()
            .find(|f| same(&f.name, name))
            .cloned()
            .or_else(|| algebra::prelude(&crate::names::plain(name)))
    }

    /// The id of `f` among the statement's functions.
    fn function_id(&mut self, f: Function) -> algebra::FuncId {
        let existing = self
            .functions
            .iter()
            .position(|g| same(&g.name, &f.name) && g.arity() == f.arity());
        existing.unwrap_or_else(|| {
            self.functions.push(f);
            self.functions.len() - 1
        })
    }

    /// `f(e1, e2, ..)`.
    fn call(&mut self, f: Function, call: &syn::ExprCall, diags: &mut Diagnostics) -> Option<Expr> {
        let args: Vec<Option<Expr>> = call.args.iter().map(|a| self.expr(a, diags)).collect();
        if args.len() != f.arity() {
            diags.error_spanned(
                call,
                format!(
                    "`{}` takes {} argument{}, not {}",
                    f.name,
                    f.arity(),
                    if f.arity() == 1 { "" } else { "s" },
                    args.len()
                ),
                format!("write `{}({})`", f.name, crate::names::join(&f.params)),
            );
            return None;
        }
        let args: Vec<Expr> = args.into_iter().collect::<Option<_>>()?;
        Some(Expr::Call(self.function_id(f), args))
    }

    /// `name[v](body)`: a reduction of `body` over `v` by `sum`, `prod`, `min`, `max`, `any`,
    /// `all` or a declared function that is a monoid.
    fn reduction(
        &mut self,
        index: &syn::ExprIndex,
        call: &syn::ExprCall,
        diags: &mut Diagnostics,
    ) -> Option<Expr> {
        let help = "write a reduction as `min[j](e)`: a function, one index variable in brackets, one expression";
        let (Some(name), Some(var_name)) = (path_ident(&index.expr), path_ident(&index.index))
        else {
            diags.error_help(index.span(), "expected a reduction `f[j](e)`", help);
            return None;
        };
        if call.args.len() != 1 {
            diags.error_help(call.span(), "a reduction takes one expression", help);
            return None;
        }
        let plain = crate::names::plain(&name);
        let monoid = match plain.as_str() {
            "sum" => None,
            "prod" => Some(algebra::operator(BinOp::Mul)),
            _ => {
                let f = self
                    .declared
                    .iter()
                    .find(|f| same(&f.name, &name))
                    .cloned()
                    .or_else(|| {
                        // Named as written (`any`), though it folds by `or`.
                        let mut f = algebra::reduction_name(&plain).and_then(algebra::prelude)?;
                        f.name = name.clone();
                        Some(f)
                    });
                let Some(f) = f else {
                    diags.error_help(
                        name.span(),
                        format!("unknown reduction `{name}`"),
                        "reduce by `sum`, `prod`, `min`, `max`, `any`, `all`, or a function declared with `#[function(commutative, associative, identity = ..)]` in this `sparse_kernel!` block",
                    );
                    return None;
                };
                if !f.is_monoid() {
                    diags.error_help(
                        name.span(),
                        format!("`{name}` cannot reduce: a reduction needs a commutative, associative function of two arguments with an identity"),
                        format!("declare `#[function(commutative, associative, identity = ..)]` on `{name}` if it has those properties"),
                    );
                    return None;
                }
                Some(f)
            }
        };
        if self.param(&var_name).is_some() {
            diags.error_help(
                var_name.span(),
                format!("`{var_name}` is a parameter, not an index variable"),
                "reduce over an index variable the expression uses",
            );
            return None;
        }
        let v = self.var(&var_name);
        if self.reduced.contains(&v) {
            diags.error(var_name.span(), format!("`{var_name}` is already reduced"));
            return None;
        }
        self.reduced.push(v);
        let body = self.expr(&call.args[0], diags)?;
        if !body.uses_var(v, &self.accesses) {
            diags.error_help(
                var_name.span(),
                format!("the reduction over `{var_name}` does not use `{var_name}`"),
                format!("index a tensor of its expression with `{var_name}`"),
            );
            return None;
        }
        Some(match monoid {
            None => Expr::Sum(vec![v], Box::new(body)),
            Some(f) => Expr::Reduce(self.function_id(f), vec![v], Box::new(body)),
        })
    }

    /// A bare name on the right: a scalar parameter.
    fn name_expr(&mut self, e: &syn::Expr, diags: &mut Diagnostics) -> Option<Expr> {
        let name = path_ident(e)?;
        let Some(param) = self.param(&name) else {
            diags.error_help(
                name.span(),
                format!("unknown name `{name}`"),
                "declare it as a scalar parameter, e.g. `alpha: f64`",
            );
            return None;
        };
        match &param.kind {
            ParamKind::Tensor(format) => {
                diags.error_help(
                    name.span(),
                    format!(
                        "`{name}` is a {} of order {} but is indexed with 0 index variables",
                        format.written,
                        format.logical_order()
                    ),
                    format!("write `{name}(i, ...)` with one index variable per mode"),
                );
                None
            }
            ParamKind::Scalar if param.passing == Passing::Value => {
                let id = self.scalars.iter().position(|s| same(&s.name, &name))?;
                Some(Expr::Scalar(id))
            }
            ParamKind::Scalar => {
                diags.error_help(
                    name.span(),
                    format!("`{name}` is the scalar output and cannot be read"),
                    "use `+=` to accumulate into it",
                );
                None
            }
        }
    }

    /// No parameter but the output is `&mut` (reads of the output are of its old contents:
    /// `read_old_output`).
    fn check_output_use(&self, output: &Output, diags: &mut Diagnostics) {
        let out_tensor = match output {
            Output::Tensor(a) => Some(self.accesses[*a].tensor),
            Output::Scalar(_) => None,
        };
        for p in self.params {
            let is_output = match output {
                Output::Tensor(_) => {
                    out_tensor.is_some_and(|t| same(&self.tensors[t].name, &p.name))
                }
                Output::Scalar(name) => same(name, &p.name),
            };
            if p.passing == Passing::Mutable && !is_output {
                diags.error_spanned(
                    &p.ty,
                    format!("`{}` is `&mut` but the statement does not write it", p.name),
                    "a kernel has one output; pass inputs by `&`",
                );
            }
        }
    }

    /// Every tensor, the scalar output and every scalar input share one value type.
    fn check_value_types(&self, diags: &mut Diagnostics) {
        let Some(first) = self.value_params().next() else {
            return;
        };
        let expected = first.value_type.to_token_stream().to_string();
        let bounds_only = |p: &Param| self.bound_params.iter().any(|b| same(b, &p.name));
        for p in self
            .params
            .iter()
            .filter(|p| !std::ptr::eq(*p, first) && !bounds_only(p))
        {
            let found = p.value_type.to_token_stream().to_string();
            if found == expected {
                continue;
            }
            let (what, help) = match (&p.kind, p.passing) {
                (ParamKind::Scalar, Passing::Value) => (
                    format!("scalar `{}` is `{found}`", p.name),
                    format!(
                        "a scalar parameter has the kernel's value type: write `{}: {expected}`",
                        p.name
                    ),
                ),
                _ => (
                    format!("`{}` holds `{found}`", p.name),
                    "every tensor of a kernel has the same value type".to_string(),
                ),
            };
            diags.error_spanned(
                &p.ty,
                format!("{what} but `{}` holds `{expected}`", first.name),
                help,
            );
        }
    }

    fn value_params(&self) -> impl Iterator<Item = &'p Param> + '_ {
        self.params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Tensor(_)) || p.passing == Passing::Mutable)
    }

    fn value_type(&self) -> syn::Type {
        self.value_params()
            .next()
            .map(|p| p.value_type.clone())
            .unwrap_or_else(|| syn::parse_quote!(f64))
    }

    /// Makes reductions explicit (Einstein convention): a variable that is not an output
    /// variable is summed over the smallest subexpression containing all its uses, looking
    /// through additions only, so `b(i) - A(i,j)*x(j)` sums the product alone while a product
    /// keeps all of its sums at its root (`B(i,k,l)*C(k,j)*D(l,j)` is one sum over `k, l`, which
    /// lets the loops follow `B`'s storage order).
    fn place_sums(&self, rhs: Expr, output: &Output, diags: &mut Diagnostics) -> Option<Expr> {
        let out_vars: Vec<VarId> = match output {
            Output::Tensor(a) => self.accesses[*a].vars.clone(),
            Output::Scalar(_) => Vec::new(),
        };
        for &v in &out_vars {
            if !rhs.uses_var(v, &self.accesses) {
                let name = &self.vars[v].name;
                diags.error_help(
                    name.span(),
                    format!("output index variable `{name}` does not appear on the right side"),
                    format!("every output index must be used by some tensor on the right, e.g. `b({name})`"),
                );
            }
        }
        if diags.has_errors() {
            return None;
        }
        for &v in &self.reduced {
            let name = &self.vars[v].name;
            if out_vars.contains(&v) {
                diags.error_help(
                    name.span(),
                    format!("`{name}` is an output index variable and cannot be reduced"),
                    "reduce over a variable the output does not have",
                );
            } else if uses_outside_reduction(&rhs, v, &self.accesses) {
                diags.error_help(
                    name.span(),
                    format!("`{name}` is used outside its reduction"),
                    "a reduced variable belongs to its reduction: use another name outside it",
                );
            }
        }
        if diags.has_errors() {
            return None;
        }
        let reductions: Vec<VarId> = (0..self.vars.len())
            .filter(|v| !out_vars.contains(v) && !self.reduced.contains(v))
            .collect();
        Some(self.sum_over(rhs, &reductions))
    }

    fn sum_over(&self, e: Expr, vars: &[VarId]) -> Expr {
        let used: Vec<VarId> = vars
            .iter()
            .copied()
            .filter(|&v| e.uses_var(v, &self.accesses))
            .collect();
        if used.is_empty() {
            return e;
        }
        match e {
            // A function is not linear: a variable that several arguments use is summed
            // around the call, one that a single argument uses inside that argument.
            Expr::Call(f, args) => {
                let (here, down): (Vec<VarId>, Vec<VarId>) = used.into_iter().partition(|&v| {
                    args.iter()
                        .filter(|a| a.uses_var(v, &self.accesses))
                        .count()
                        > 1
                });
                let args = args.into_iter().map(|a| self.sum_over(a, &down)).collect();
                wrap_sum(here, Expr::Call(f, args))
            }
            // Every use is inside an explicit reduction: the sum goes into its body.
            Expr::Reduce(f, rv, body) => Expr::Reduce(f, rv, Box::new(self.sum_over(*body, &used))),
            Expr::Sum(rv, body) => Expr::Sum(rv, Box::new(self.sum_over(*body, &used))),
            // -Σ e = Σ -e: the sum stays at the root of its term, where a dense output may
            // run its loops outside the output's own (and `split` distributes it).
            Expr::Neg(inner) => match self.sum_over(*inner, &used) {
                Expr::Sum(vars, body) => Expr::Sum(vars, Box::new(Expr::Neg(body))),
                other => Expr::Neg(Box::new(other)),
            },
            Expr::Binary(op @ (BinOp::Add | BinOp::Sub), l, r) => {
                let here: Vec<VarId> = used
                    .iter()
                    .copied()
                    .filter(|&v| l.uses_var(v, &self.accesses) && r.uses_var(v, &self.accesses))
                    .collect();
                let down: Vec<VarId> = used.iter().copied().filter(|v| !here.contains(v)).collect();
                let inner = Expr::binary(op, self.sum_over(*l, &down), self.sum_over(*r, &down));
                wrap_sum(here, inner)
            }
            // A hidden coordinate belongs to one access of a remapped format (`A(i,j)` is
            // `Σ_k A'(i,j,k)`), so its sum moves out through the factors of a product
            // (distributivity) but never across an addition inside one of them.
            product_or_leaf => {
                let (here, down): (Vec<VarId>, Vec<VarId>) = used.into_iter().partition(|&v| {
                    !self.vars[v].hidden || product_or_leaf.factor_uses(v, &self.accesses)
                });
                let inner = match product_or_leaf {
                    Expr::Binary(op, l, r) if !down.is_empty() => {
                        Expr::binary(op, self.sum_over(*l, &down), self.sum_over(*r, &down))
                    }
                    other => other,
                };
                wrap_sum(here, inner)
            }
        }
    }

    /// Division by implicit zeros is not defined, so a divisor must be dense in every level,
    /// or have a fill value that is not zero.
    fn check_divisors(&self, e: &Expr, diags: &mut Diagnostics) {
        if let Expr::Binary(BinOp::Div, _, r) = e {
            let mut ids = Vec::new();
            r.accesses(&mut ids);
            for a in ids {
                let t = &self.tensors[self.accesses[a].tensor];
                if !t.format.is_all_dense() && t.fill.is_zero() {
                    diags.error_spanned(
                        &self.accesses[a].tokens,
                        format!(
                            "divisor `{}` is sparse ({}) with fill value 0: dividing by its implicit zeros is undefined",
                            t.name, t.format.written
                        ),
                        format!(
                            "divide by a dense tensor (every level `Dense`), e.g. `Dense1<f64>`, or declare a fill value that is not zero, e.g. `#[fill(1)] {}: &{}`",
                            t.name, t.format.written
                        ),
                    );
                }
            }
        }
        for c in e.children() {
            self.check_divisors(c, diags);
        }
    }
}

/// Whether `e` uses `v` outside a reduction over `v`.
fn uses_outside_reduction(e: &Expr, v: VarId, accesses: &[Access]) -> bool {
    match e {
        Expr::Reduce(_, vars, _) | Expr::Sum(vars, _) if vars.contains(&v) => false,
        Expr::Access(a) => accesses[*a].vars.contains(&v),
        other => other
            .children()
            .into_iter()
            .any(|c| uses_outside_reduction(c, v, accesses)),
    }
}

/// Looks through parentheses and invisible groups.
fn ungroup(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => ungroup(&p.expr),
        syn::Expr::Group(g) => ungroup(&g.expr),
        other => other,
    }
}

fn wrap_sum(vars: Vec<VarId>, e: Expr) -> Expr {
    if vars.is_empty() {
        e
    } else {
        Expr::Sum(vars, Box::new(e))
    }
}

fn input_written(param: &Param, name: &Ident, diags: &mut Diagnostics) {
    let written = match &param.kind {
        ParamKind::Tensor(f) => f.written.clone(),
        ParamKind::Scalar => param.value_type.to_token_stream().to_string(),
    };
    diags.error_help(
        name.span(),
        format!("cannot write `{name}`: it is an input (`&{written}`)"),
        format!("declare the output as `{name}: &mut {written}`"),
    );
}

/// Output formats the assembler supports, derived from each level's assembly capability: a
/// level that inserts (computes positions from coordinates) needs a parent that inserts too, so
/// the inserting levels form a prefix (but full levels may also form a block at the bottom,
/// allocated whenever their parent appends), and one that is not full (a hash table) ends it
/// and the format; a level that appends segments (it has a `pos` array) can
/// sit under any parent; a branchless level appends in lockstep with its parent, one
/// coordinate per parent position, so its parent must append and be non-unique (as in COO).
fn check_output_format(format: &Format, param: &Param, diags: &mut Diagnostics) {
    if let crate::format::Borrow::View(view) = format.borrow {
        if !view.mutable {
            diags.error_spanned(
                &param.ty,
                format!(
                    "a `{}` borrows its values shared: it cannot be written",
                    view.name
                ),
                format!(
                    "write into a `{}Mut<'_, {}>`",
                    view.name,
                    param.value_type.to_token_stream()
                ),
            );
            return;
        }
    }
    if let Some(remap) = format.remap.filter(|r| !r.hidden.is_empty()) {
        diags.error_spanned(
            &param.ty,
            format!(
                "a `{}` cannot be assembled as an output: it stores a remapped view whose hidden coordinates (`{}`) depend on all of its entries, so a kernel cannot assemble it as it computes",
                remap.name,
                remap.hidden.join("`, `")
            ),
            "write the result into a `Csr<f64>`, `HashMat<f64>` or `Dense2<f64>` output",
        );
        return;
    }
    let levels = &format.levels;
    for (k, level) in levels.iter().enumerate() {
        let parent = k.checked_sub(1).map(|j| &levels[j]);
        let parent_appends = parent.is_some_and(|p| p.assembly() == Some(Assembly::Append));
        let reason = match level.assembly() {
            None => Some("cannot be assembled (it has neither insert nor append capability)"),
            // A dense block at the bottom (BCSR's blocks) is allocated, zero, whenever its
            // parent appends a coordinate; anything else inserting below an append is not.
            Some(Assembly::Insert)
                if parent_appends && !levels[k..].iter().all(LevelFormat::is_full) =>
            {
                Some("inserts (its positions are computed from coordinates) below a level that appends, and not as part of a dense block at the bottom")
            }
            // A sparse inserting level places coordinates as they come, and may move them all
            // as it grows (a hash table rehashing): nothing may hang below its positions.
            Some(Assembly::Insert) if !level.is_full() && k + 1 < levels.len() => {
                Some("inserts coordinates at positions that move as it grows, so it must be the last level")
            }
            Some(Assembly::Append) if level.is_branchless() => match parent {
                Some(p) if p.assembly() == Some(Assembly::Append) && !p.is_unique() => None,
                _ => Some("appends in lockstep with its parent, which must be a non-unique level that appends"),
            },
            _ => None,
        };
        if let Some(reason) = reason {
            diags.error_spanned(
                &param.ty,
                format!(
                    "output format `{}` cannot be assembled: its `{}` level (level {k}) {reason}",
                    format.written, level.type_name()
                ),
                "use an output whose `Dense` levels come first, followed by `Compressed` levels or COO runs \
                 (`CompressedNonUnique`, `SingletonNonUnique`..., `Singleton`) and optionally a block of `Dense` levels, or by one last `Hashed` level, \
                 e.g. `Csr<f64>`, `Dcsr<f64>`, `Csf3<f64>`, `Coo<f64>`, `HashMat<f64>` or `Dense2<f64>`",
            );
            return;
        }
    }
}

fn unsupported_operator(span: Span, diags: &mut Diagnostics) {
    diags.error_help(
        span,
        "unsupported operator in index notation",
        "the operators are `+`, `-`, `*`, `/` and unary `-`",
    );
}

fn param_names(sig: &syn::Signature) -> impl Iterator<Item = Ident> + '_ {
    sig.inputs.iter().filter_map(|arg| match arg {
        syn::FnArg::Typed(t) => match &*t.pat {
            syn::Pat::Ident(p) => Some(p.ident.clone()),
            _ => None,
        },
        _ => None,
    })
}

fn path_ident(e: &syn::Expr) -> Option<Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let seg = &p.path.segments[0];
            seg.arguments.is_none().then(|| seg.ident.clone())
        }
        _ => None,
    }
}
