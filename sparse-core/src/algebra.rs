//! Sparse array programming (Henry et al. 2021): fill values, functions with algebraic
//! properties, and the iteration algebra derived from them.
//!
//! Every tensor has a fill value, the value of each component it does not store. A function
//! applied to tensors is then defined everywhere, and the compiler needs to know where it can
//! differ from its own fill value (its *region*, section 5): only there do the loops go. The
//! region is a formula over the arguments' presence: the union of all arguments by default
//! (right for any function: where every argument is absent, the result is the function of
//! the fill values, which is the result's fill by definition), narrowed to an intersection
//! by an argument whose fill value annihilates the function (`0` in `x * y`, `-inf` in
//! `min`), or given explicitly by the user (`iterate(a & !b)`).
//!
//! Fill values are compile-time constants (`0`, `1.5`, `-inf`): the compiler compares them
//! with the identities and annihilators functions declare, and emits them as values.

use crate::diagnostic::Diagnostics;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;

/// Index of a function in [`crate::notation::Kernel::functions`].
pub type FuncId = usize;

/// A constant of the value type: a fill value, an identity or an annihilator.
#[derive(Clone, Debug)]
pub enum Constant {
    /// A number as written (its sign apart), with its value for comparisons.
    Number {
        /// The literal without its sign.
        lit: syn::Lit,
        /// Whether it is negated.
        negative: bool,
        /// Its value, to compare constants by value (`0` is `0.0`).
        value: f64,
    },
    /// `inf` or `-inf`: the value type's infinity (`f64::INFINITY`; `i64::MAX` for integers).
    Infinity {
        /// `-inf`.
        negative: bool,
    },
}

impl Constant {
    /// Zero, the fill value of a tensor that declares none.
    pub fn zero() -> Constant {
        Constant::Number {
            lit: syn::Lit::Int(syn::LitInt::new("0", Span::call_site())),
            negative: false,
            value: 0.0,
        }
    }

    /// One (the identity of `*`).
    pub fn one() -> Constant {
        Constant::Number {
            lit: syn::Lit::Int(syn::LitInt::new("1", Span::call_site())),
            negative: false,
            value: 1.0,
        }
    }

    /// Whether the constant is zero.
    pub fn is_zero(&self) -> bool {
        matches!(self, Constant::Number { value, .. } if *value == 0.0)
    }

    /// The negation of a number, which is exact (`None` for an infinity: `-i64::MIN`
    /// overflows).
    pub fn negated(&self) -> Option<Constant> {
        match self {
            Constant::Number {
                lit,
                negative,
                value,
            } => Some(Constant::Number {
                lit: lit.clone(),
                negative: !negative,
                value: -value,
            }),
            Constant::Infinity { .. } => None,
        }
    }

    /// Equality by value (`0 == 0.0 == -0`, `inf == inf`).
    pub fn same(&self, other: &Constant) -> bool {
        match (self, other) {
            (Constant::Number { value: a, .. }, Constant::Number { value: b, .. }) => a == b,
            (Constant::Infinity { negative: a }, Constant::Infinity { negative: b }) => a == b,
            _ => false,
        }
    }

    /// Reads `0`, `2.5`, `-1`, `inf`, `-inf`.
    pub fn parse(e: &syn::Expr) -> Result<Constant, syn::Error> {
        let (negative, inner) = match e {
            syn::Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Neg(_),
                expr,
                ..
            }) => (true, &**expr),
            other => (false, other),
        };
        let bad = || {
            syn::Error::new(
                e.span(),
                "expected a constant: a number such as `0`, `1.5` or `-2`, or `inf` or `-inf`",
            )
        };
        match inner {
            syn::Expr::Lit(syn::ExprLit { lit, .. }) => {
                let value = match lit {
                    syn::Lit::Int(i) => i.base10_parse::<f64>().map_err(|_| bad())?,
                    syn::Lit::Float(f) => f.base10_parse::<f64>().map_err(|_| bad())?,
                    _ => return Err(bad()),
                };
                if !value.is_finite() {
                    return Err(bad());
                }
                Ok(Constant::Number {
                    lit: lit.clone(),
                    negative,
                    value: if negative { -value } else { value },
                })
            }
            syn::Expr::Path(p) if p.path.is_ident("inf") => Ok(Constant::Infinity { negative }),
            syn::Expr::Group(g) => Constant::parse(&g.expr),
            syn::Expr::Paren(p) => Constant::parse(&p.expr),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Constant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Constant::Number { lit, negative, .. } => {
                let sign = if *negative { "-" } else { "" };
                write!(f, "{sign}{}", lit.to_token_stream())
            }
            Constant::Infinity { negative: true } => f.write_str("-inf"),
            Constant::Infinity { negative: false } => f.write_str("inf"),
        }
    }
}

/// Where a function's result may differ from its fill value, as a formula over which of its
/// arguments are present (not at their fill value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Region {
    /// Argument `n` is present.
    Arg(usize),
    /// Both.
    And(Box<Region>, Box<Region>),
    /// Either.
    Or(Box<Region>, Box<Region>),
    /// The complement.
    Not(Box<Region>),
}

impl Region {
    /// Whether the formula holds for some presence of the arguments marked `maybe` (present
    /// or not), the others as in `present`.
    pub fn may_hold(&self, present: &[bool], maybe: &[bool]) -> bool {
        let open: Vec<usize> = (0..present.len()).filter(|&n| maybe[n]).collect();
        (0..1usize << open.len()).any(|choice| {
            let mut at = present.to_vec();
            for (bit, &n) in open.iter().enumerate() {
                at[n] = choice & (1 << bit) != 0;
            }
            self.holds(&at)
        })
    }

    /// The formula's value for the arguments' presence.
    pub fn holds(&self, present: &[bool]) -> bool {
        match self {
            Region::Arg(n) => present.get(*n).copied().unwrap_or(false),
            Region::And(a, b) => a.holds(present) && b.holds(present),
            Region::Or(a, b) => a.holds(present) || b.holds(present),
            Region::Not(a) => !a.holds(present),
        }
    }

    /// The union of the listed arguments (`None` for none).
    pub fn any(args: &[usize]) -> Option<Region> {
        args.iter()
            .map(|&n| Region::Arg(n))
            .reduce(|a, b| Region::Or(Box::new(a), Box::new(b)))
    }

    /// The intersection of the listed arguments (`None` for none).
    pub fn all(args: &[usize]) -> Option<Region> {
        args.iter()
            .map(|&n| Region::Arg(n))
            .reduce(|a, b| Region::And(Box::new(a), Box::new(b)))
    }

    /// Maps the formula to another boolean algebra (run-time presence flags).
    pub fn fold<T>(
        &self,
        arg: &mut impl FnMut(usize) -> T,
        and: &impl Fn(T, T) -> T,
        or: &impl Fn(T, T) -> T,
        not: &impl Fn(T) -> T,
    ) -> T {
        match self {
            Region::Arg(n) => arg(*n),
            Region::And(a, b) => {
                let a = a.fold(arg, and, or, not);
                and(a, b.fold(arg, and, or, not))
            }
            Region::Or(a, b) => {
                let a = a.fold(arg, and, or, not);
                or(a, b.fold(arg, and, or, not))
            }
            Region::Not(a) => not(a.fold(arg, and, or, not)),
        }
    }

    /// The formula as written, without outer parentheses.
    pub fn render_top(&self, params: &[Ident]) -> String {
        let text = self.render(params);
        match self {
            Region::And(..) | Region::Or(..) => text[1..text.len() - 1].to_string(),
            _ => text,
        }
    }

    fn render(&self, params: &[Ident]) -> String {
        match self {
            Region::Arg(n) => params.get(*n).map_or("?".into(), |p| p.to_string()),
            Region::And(a, b) => format!("({} & {})", a.render(params), b.render(params)),
            Region::Or(a, b) => format!("({} | {})", a.render(params), b.render(params)),
            Region::Not(a) => format!("!{}", a.render(params)),
        }
    }
}

/// What a call emits: a prelude function of the runtime or a function the user declared in
/// the same `sparse_kernel!` block.
#[derive(Clone, Debug)]
pub enum Callee {
    /// `::sparse_runtime::functions::name`.
    Prelude(&'static str),
    /// The user's function, by the name it was declared with (the user's span).
    User(Ident),
    /// An operator of the notation (`prod[j]` folds by `*`).
    Operator(BinOp),
}

/// An argument pattern of a per-case body.
#[derive(Clone, Debug)]
pub enum CaseArg {
    /// Binds the argument's value to a name the body reads.
    Bind(Ident),
    /// Matches an argument absent with this fill value.
    Const(Constant),
}

/// A per-case body (`#[case(gcd(x, 0) => x.abs())]`): used instead of the function where the
/// arguments written as constants are absent with those fill values.
#[derive(Clone, Debug)]
pub struct Case {
    /// One pattern per parameter.
    pub args: Vec<CaseArg>,
    /// The body, over the bound names.
    pub body: syn::Expr,
}

/// A function index notation can call: its algebraic properties (promises the user makes
/// for a declared function; facts for the prelude) and optional per-case bodies.
#[derive(Clone, Debug)]
pub struct Function {
    /// The name calls use.
    pub name: Ident,
    /// What the generated code calls.
    pub callee: Callee,
    /// Parameter names (for diagnostics and per-argument properties).
    pub params: Vec<Ident>,
    /// `f(a, b) == f(b, a)`.
    pub commutative: bool,
    /// `f(f(a, b), c) == f(a, f(b, c))`.
    pub associative: bool,
    /// `f(a, a) == a`.
    pub idempotent: bool,
    /// Per parameter: a value `e` with `f(.., e, ..) == ` the other argument.
    pub identity: Vec<Option<Constant>>,
    /// Per parameter: a value `z` with `f(.., z, ..) == z` whatever the others are.
    pub annihilator: Vec<Option<Constant>>,
    /// An explicit region, replacing the one derived from the properties.
    pub iterate: Option<Region>,
    /// A value that leaves every *result* of the function unchanged (`or(t, 0) == t` for
    /// the `0` and `1` that `or` returns, though `or(2, 0)` is `1`): where a fold by it
    /// starts, and which a reduction may skip. Not an identity: constants are never folded
    /// by it.
    pub unit: Option<Constant>,
    /// Per-case bodies, tried in order.
    pub cases: Vec<Case>,
}

impl Function {
    fn plain(name: &str, callee: Callee, arity: usize) -> Function {
        let params = ["a", "b", "c", "d"]
            .iter()
            .take(arity)
            .map(|p| Ident::new(p, Span::call_site()))
            .collect();
        Function::without_properties(Ident::new(name, Span::call_site()), callee, params)
    }

    /// A function of these parameters that declares nothing.
    fn without_properties(name: Ident, callee: Callee, params: Vec<Ident>) -> Function {
        let arity = params.len();
        Function {
            name,
            callee,
            params,
            commutative: false,
            associative: false,
            idempotent: false,
            identity: vec![None; arity],
            annihilator: vec![None; arity],
            iterate: None,
            unit: None,
            cases: Vec::new(),
        }
    }

    /// The number of arguments.
    pub fn arity(&self) -> usize {
        self.params.len()
    }

    /// What a reduction by the function starts from: its unit (an identity on its own
    /// results, the boolean functions' 0 or 1), else the identity shared by every parameter.
    pub fn fold_start(&self) -> Option<&Constant> {
        if let Some(unit) = &self.unit {
            return Some(unit);
        }
        let first = self.identity.first()?.as_ref()?;
        self.identity
            .iter()
            .all(|i| i.as_ref().is_some_and(|i| i.same(first)))
            .then_some(first)
    }

    /// Whether a reduction may fold by it: associative and commutative (the loops visit the
    /// reduced coordinates in storage order, which is not the order written), with an
    /// identity to start from.
    pub fn is_monoid(&self) -> bool {
        self.arity() == 2 && self.associative && self.commutative && self.fold_start().is_some()
    }

    /// A one-line description of the algebra, for docs and `explain`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (flag, word) in [
            (self.commutative, "commutative"),
            (self.associative, "associative"),
            (self.idempotent, "idempotent"),
        ] {
            if flag {
                parts.push(word.to_string());
            }
        }
        for (what, values) in [
            ("identity", &self.identity),
            ("annihilator", &self.annihilator),
        ] {
            for (p, v) in self.params.iter().zip(values) {
                if let Some(v) = v {
                    parts.push(format!("{what}({p}) = {v}"));
                }
            }
        }
        if let Some(r) = &self.iterate {
            parts.push(format!("iterate({})", r.render_top(&self.params)));
        }
        parts.join(", ")
    }
}

// ----- the prelude -----------------------------------------------------------------------------

fn number(v: i32) -> Constant {
    Constant::Number {
        lit: syn::Lit::Int(syn::LitInt::new(
            &v.unsigned_abs().to_string(),
            Span::call_site(),
        )),
        negative: v < 0,
        value: f64::from(v),
    }
}

fn inf(negative: bool) -> Constant {
    Constant::Infinity { negative }
}

/// The functions every kernel can call by name, with their properties. These properties hold
/// exactly for every value (`sparse_runtime::functions` documents each function); the
/// identities of the boolean functions hold on their results, `0` and `1`, which is all a
/// reduction by them folds.
pub fn prelude(name: &str) -> Option<Function> {
    let binary = |commutative: bool| {
        let mut f = Function::plain(name, Callee::Prelude(prelude_name(name)?), 2);
        f.commutative = commutative;
        f.associative = commutative;
        Some(f)
    };
    let unary = || {
        Some(Function::plain(
            name,
            Callee::Prelude(prelude_name(name)?),
            1,
        ))
    };
    let both = |c: Constant| vec![Some(c.clone()), Some(c)];
    let f = match name {
        "min" | "max" => {
            let mut f = binary(true)?;
            let low = name == "min";
            f.idempotent = true;
            f.identity = both(inf(!low));
            f.annihilator = both(inf(low));
            f
        }
        // The boolean functions return 0 or 1: `and(x, 1)` is not `x` for `x = 2`, so 1 is
        // only their unit (an identity on their results).
        "and" => {
            let mut f = binary(true)?;
            f.unit = Some(number(1));
            f.annihilator = both(number(0));
            f
        }
        "or" => {
            let mut f = binary(true)?;
            f.unit = Some(number(0));
            f.annihilator = both(number(1));
            f
        }
        "xor" => {
            let mut f = binary(true)?;
            f.unit = Some(number(0));
            f
        }
        "not" | "exp" => unary()?,
        "abs" | "sqrt" => {
            let mut f = unary()?;
            f.annihilator = vec![Some(number(0))];
            f
        }
        "pow" => {
            let mut f = binary(false)?;
            f.annihilator = vec![Some(number(1)), None];
            f.identity = vec![None, Some(number(1))];
            f
        }
        "ldexp" | "shl" | "shr" => {
            let mut f = binary(false)?;
            f.annihilator = vec![Some(number(0)), None];
            f.identity = vec![None, Some(number(0))];
            f
        }
        "eq" | "ne" => binary(true)?,
        "lt" | "le" | "gt" | "ge" => binary(false)?,
        _ => return None,
    };
    Some(f)
}

/// The names of the prelude, as the runtime spells them.
pub const PRELUDE: &[&str] = &[
    "min", "max", "abs", "sqrt", "exp", "pow", "ldexp", "shl", "shr", "eq", "ne", "lt", "le", "gt",
    "ge", "and", "or", "xor", "not",
];

fn prelude_name(name: &str) -> Option<&'static str> {
    PRELUDE.iter().copied().find(|p| *p == name)
}

/// Reductions by name (`min[j](e)`): the prelude's monoids, `sum` and `prod` apart (they
/// are `+` and `*`).
pub fn reduction_name(name: &str) -> Option<&'static str> {
    match name {
        "min" | "max" => prelude_name(name),
        "any" => Some("or"),
        "all" => Some("and"),
        _ => None,
    }
}

// ----- declared functions ------------------------------------------------------------------

/// Whether an item of a `sparse_kernel!` block is a function declaration for index notation
/// (`#[function(..)] fn gcd(a: i64, b: i64) -> i64 { .. }`) rather than a kernel.
pub fn is_declaration(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("function"))
}

/// Reads a declared function: its properties from `#[function(..)]` and its cases from
/// `#[case(..)]`, checked for contradictions. Returns the function and the item to emit (the
/// user's function without those attributes).
pub fn declare(item: &syn::ItemFn, diags: &mut Diagnostics) -> (Option<Function>, TokenStream) {
    let mut emitted = item.clone();
    emitted
        .attrs
        .retain(|a| !a.path().is_ident("function") && !a.path().is_ident("case"));
    let tokens = quote!(#emitted);
    // Kernels call it inside their `unsafe` block: an `unsafe fn` would be called there
    // without the user ever writing `unsafe`.
    if let Some(u) = item.sig.unsafety {
        diags.error_help(
            u.span(),
            "a function for index notation cannot be `unsafe`",
            "make it a safe function (it may contain `unsafe` blocks of its own)",
        );
        return (None, tokens);
    }
    if let Some(a) = item.sig.asyncness {
        diags.error(a.span(), "a function for index notation cannot be `async`");
        return (None, tokens);
    }
    let mut params = Vec::new();
    for input in &item.sig.inputs {
        match input {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(p) => params.push(p.ident.clone()),
                other => {
                    diags.error(
                        other.span(),
                        "a function for index notation takes plain names",
                    );
                    return (None, tokens);
                }
            },
            syn::FnArg::Receiver(r) => {
                diags.error(r.span(), "a function for index notation takes no `self`");
                return (None, tokens);
            }
        }
    }
    if params.is_empty() {
        diags.error(
            item.sig.ident.span(),
            "a function for index notation takes at least one argument",
        );
        return (None, tokens);
    }
    let name = item.sig.ident.clone();
    let mut f = Function::without_properties(name.clone(), Callee::User(name), params);
    for attr in &item.attrs {
        if attr.path().is_ident("function") {
            read_properties(attr, &mut f, diags);
        } else if attr.path().is_ident("case") {
            if let Some(case) = read_case(attr, &f, diags) {
                f.cases.push(case);
            }
        }
    }
    check_properties(&f, diags);
    (Some(f), tokens)
}

fn read_properties(attr: &syn::Attribute, f: &mut Function, diags: &mut Diagnostics) {
    let list = match &attr.meta {
        syn::Meta::Path(_) => return,
        syn::Meta::List(l) => l,
        syn::Meta::NameValue(nv) => {
            diags.error(
                nv.span(),
                "write `#[function(commutative, identity = 0, ..)]`",
            );
            return;
        }
    };
    let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
    let items = match syn::parse::Parser::parse2(parser, list.tokens.clone()) {
        Ok(items) => items,
        Err(e) => {
            diags.push(e);
            return;
        }
    };
    for item in &items {
        read_property(item, f, diags);
    }
}

const PROPERTY_HELP: &str = "properties are `commutative`, `associative`, `idempotent`, \
`identity = c`, `annihilator = c` (or `identity(x) = c` for parameter `x` alone) and \
`iterate(<formula over the parameters with & | !>)`";

fn read_property(item: &syn::Expr, f: &mut Function, diags: &mut Diagnostics) {
    match item {
        syn::Expr::Path(p) if p.path.get_ident().is_some() => {
            let word = p.path.get_ident().map(Ident::to_string).unwrap_or_default();
            match word.as_str() {
                "commutative" => f.commutative = true,
                "associative" => f.associative = true,
                "idempotent" => f.idempotent = true,
                _ => diags.error_help(
                    p.span(),
                    format!("unknown property `{word}`"),
                    PROPERTY_HELP,
                ),
            }
        }
        syn::Expr::Assign(a) => {
            let value = match Constant::parse(&a.right) {
                Ok(c) => c,
                Err(e) => return diags.push(e),
            };
            let (word, params) = match &*a.left {
                syn::Expr::Path(p) => (p.path.get_ident().cloned(), None),
                syn::Expr::Call(c) => match &*c.func {
                    syn::Expr::Path(p) => (p.path.get_ident().cloned(), Some(&c.args)),
                    _ => (None, None),
                },
                _ => (None, None),
            };
            let Some(word) = word.filter(|w| w == "identity" || w == "annihilator") else {
                return diags.error_help(a.left.span(), "unknown property", PROPERTY_HELP);
            };
            let positions: Vec<usize> = match params {
                None => (0..f.arity()).collect(),
                Some(args) => {
                    let mut positions = Vec::new();
                    for arg in args {
                        match param_position(arg, f) {
                            Some(n) => positions.push(n),
                            None => diags.error_help(
                                arg.span(),
                                format!(
                                    "`{}` is not a parameter of `{}`",
                                    arg.to_token_stream(),
                                    f.name
                                ),
                                format!("name one of {}", list(&f.params)),
                            ),
                        }
                    }
                    positions
                }
            };
            let slots = if word == "identity" {
                &mut f.identity
            } else {
                &mut f.annihilator
            };
            for n in positions {
                if let Some(old) = &slots[n] {
                    if !old.same(&value) {
                        diags.error(
                            a.span(),
                            format!(
                                "contradictory properties: {word}({}) is both {old} and {value}",
                                f.params[n]
                            ),
                        );
                    }
                }
                slots[n] = Some(value.clone());
            }
        }
        syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("iterate")) =>
        {
            if c.args.len() != 1 {
                return diags.error_help(c.span(), "`iterate` takes one formula", PROPERTY_HELP);
            }
            if let Some(r) = read_region(&c.args[0], f, diags) {
                f.iterate = Some(r);
            }
        }
        other => diags.error_help(other.span(), "unknown property", PROPERTY_HELP),
    }
}

fn param_position(e: &syn::Expr, f: &Function) -> Option<usize> {
    match e {
        syn::Expr::Path(p) => {
            let id = p.path.get_ident()?;
            f.params.iter().position(|q| crate::names::same(q, id))
        }
        _ => None,
    }
}

fn read_region(e: &syn::Expr, f: &Function, diags: &mut Diagnostics) -> Option<Region> {
    match e {
        syn::Expr::Paren(p) => read_region(&p.expr, f, diags),
        syn::Expr::Group(g) => read_region(&g.expr, f, diags),
        syn::Expr::Path(_) => match param_position(e, f) {
            Some(n) => Some(Region::Arg(n)),
            None => {
                diags.error_help(
                    e.span(),
                    format!(
                        "`{}` is not a parameter of `{}`",
                        e.to_token_stream(),
                        f.name
                    ),
                    format!("the formula names parameters: {}", list(&f.params)),
                );
                None
            }
        },
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            Some(Region::Not(Box::new(read_region(&u.expr, f, diags)?)))
        }
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::BitAnd(_) | syn::BinOp::BitOr(_)) => {
            let l = read_region(&b.left, f, diags);
            let r = read_region(&b.right, f, diags);
            let (l, r) = (Box::new(l?), Box::new(r?));
            Some(match b.op {
                syn::BinOp::BitAnd(_) => Region::And(l, r),
                _ => Region::Or(l, r),
            })
        }
        other => {
            diags.error_help(
                other.span(),
                "expected a formula over the parameters",
                "combine parameter names with `&` (both present), `|` (either) and `!` (absent)",
            );
            None
        }
    }
}

fn read_case(attr: &syn::Attribute, f: &Function, diags: &mut Diagnostics) -> Option<Case> {
    let help = format!(
        "write `#[case({}(x, 0) => body)]`: a name binds an argument, a constant matches an absent argument with that fill value",
        f.name
    );
    let parsed = attr.parse_args_with(|input: syn::parse::ParseStream| {
        let pattern: syn::ExprCall = input.parse()?;
        input.parse::<syn::Token![=>]>()?;
        let body: syn::Expr = input.parse()?;
        Ok((pattern, body))
    });
    let (pattern, body) = match parsed {
        Ok(p) => p,
        Err(e) => {
            diags.error_help(e.span(), e.to_string(), help);
            return None;
        }
    };
    if !matches!(&*pattern.func, syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| crate::names::same(i, &f.name)))
    {
        diags.error_help(
            pattern.func.span(),
            format!("a case of `{}` starts with its name", f.name),
            help,
        );
        return None;
    }
    if pattern.args.len() != f.arity() {
        diags.error_help(
            pattern.span(),
            format!(
                "`{}` takes {} arguments, the case gives {}",
                f.name,
                f.arity(),
                pattern.args.len()
            ),
            help,
        );
        return None;
    }
    let mut args = Vec::new();
    for arg in &pattern.args {
        match arg {
            syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| i != "inf") => {
                args.push(CaseArg::Bind(p.path.get_ident()?.clone()))
            }
            other => match Constant::parse(other) {
                Ok(c) => args.push(CaseArg::Const(c)),
                Err(e) => {
                    diags.push(e);
                    return None;
                }
            },
        }
    }
    if args.iter().all(|a| matches!(a, CaseArg::Bind(_))) {
        diags.error_help(
            pattern.span(),
            "a case without a constant argument replaces the whole function",
            "put that body in the function itself",
        );
        return None;
    }
    Some(Case { args, body })
}

/// Properties that cannot all hold: an identity equal to the annihilator of the same
/// parameter (`f(x, c) == x` and `== c` for every `x`), commutativity with different
/// per-parameter values, binary properties of a function that is not binary, a reduction
/// identity that is not an identity.
fn check_properties(f: &Function, diags: &mut Diagnostics) {
    let span = f.name.span();
    for n in 0..f.arity() {
        if let (Some(i), Some(z)) = (&f.identity[n], &f.annihilator[n]) {
            if i.same(z) {
                diags.error_help(
                    span,
                    format!(
                        "contradictory properties of `{}`: {i} is both the identity and the annihilator of `{}`",
                        f.name, f.params[n]
                    ),
                    "an identity leaves the other argument unchanged; an annihilator makes the result itself",
                );
            }
        }
    }
    if f.arity() != 2 && (f.commutative || f.associative || f.idempotent) {
        diags.error_help(
            span,
            format!(
                "contradictory properties of `{}`: commutative, associative and idempotent describe a function of two arguments, it takes {}",
                f.name,
                f.arity()
            ),
            "remove them",
        );
    }
    if f.arity() == 1 && f.identity[0].is_some() {
        diags.error_help(
            span,
            format!("contradictory properties of `{}`: an identity needs another argument to leave unchanged", f.name),
            "a function of one argument has an annihilator (`f(z) == z`), not an identity",
        );
    }
    if f.commutative {
        for (what, values) in [("identity", &f.identity), ("annihilator", &f.annihilator)] {
            let set: Vec<&Constant> = values.iter().flatten().collect();
            let differ = set.windows(2).any(|w| !w[0].same(w[1]));
            let partial = !set.is_empty() && set.len() != values.len();
            if differ || partial {
                diags.error_help(
                    span,
                    format!(
                        "contradictory properties of `{}`: it is commutative but its {what} differs between its parameters",
                        f.name
                    ),
                    format!("write `{what} = c` for both parameters"),
                );
            }
        }
    }
    if let Some(region) = &f.iterate {
        if f.annihilator.iter().any(Option::is_some) {
            diags.error_help(
                span,
                format!("contradictory properties of `{}`: `iterate(..)` replaces the region its annihilators imply", f.name),
                "declare either the annihilators or `iterate(..)`",
            );
        }
        if region.holds(&vec![false; f.arity()]) {
            diags.error_help(
                span,
                format!(
                    "`iterate({})` holds where no argument is stored, so it covers every coordinate",
                    region.render_top(&f.params)
                ),
                "a region must exclude the coordinates where every argument is at its fill value; combine a complement with a present argument (`a & !b`)",
            );
        }
    }
}

fn list(params: &[Ident]) -> String {
    let names: Vec<String> = params.iter().map(|p| format!("`{p}`")).collect();
    names.join(", ")
}

/// Reads `#[fill(c)]` off a parameter's attributes (zero when absent).
pub fn read_fill(attrs: &[syn::Attribute], diags: &mut Diagnostics) -> Constant {
    let mut fill = Constant::zero();
    for attr in attrs.iter().filter(|a| a.path().is_ident("fill")) {
        match attr
            .parse_args::<syn::Expr>()
            .and_then(|e| Constant::parse(&e))
        {
            Ok(c) => fill = c,
            Err(e) => diags.push(e),
        }
    }
    fill
}

// ----- facts about a kernel's expressions ------------------------------------------------------

use crate::notation::{BinOp, Expr, Kernel};

/// The built-in operators as functions: `+` (identity 0), `-` (right identity 0), `*`
/// (identity 1, annihilator 0: the intersection of taco's products) and `/` (left
/// annihilator 0, right identity 1).
pub fn operator(op: BinOp) -> Function {
    let name = match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "div",
    };
    let mut f = Function::plain(name, Callee::Operator(op), 2);
    let (zero, one) = (Some(Constant::zero()), Some(Constant::one()));
    match op {
        BinOp::Add => {
            f.commutative = true;
            f.associative = true;
            f.identity = vec![zero.clone(), zero];
        }
        BinOp::Sub => f.identity = vec![None, zero],
        BinOp::Mul => {
            f.commutative = true;
            f.associative = true;
            f.identity = vec![one.clone(), one];
            f.annihilator = vec![zero.clone(), zero];
        }
        BinOp::Div => {
            f.identity = vec![None, one];
            f.annihilator = vec![zero, None];
        }
    }
    f
}

/// The function a node applies and its arguments: an operator or a call.
pub fn applied<'e>(kernel: &Kernel, e: &'e Expr) -> Option<(Function, Vec<&'e Expr>)> {
    match e {
        Expr::Binary(op, l, r) => Some((operator(*op), vec![l, r])),
        Expr::Call(f, args) => Some((kernel.functions[*f].clone(), args.iter().collect())),
        _ => None,
    }
}

/// The fill value of an expression: its value where none of its operands is stored, as a
/// constant expression (`None` when it has no single such value: it holds a literal or a
/// scalar that is present everywhere, or a reduction whose body's fill is not the
/// reduction's identity, which then covers every coordinate).
pub fn fill_of(kernel: &Kernel, e: &Expr) -> Option<Expr> {
    match e {
        Expr::Access(a) => Some(Expr::Const(
            kernel.tensors[kernel.accesses[*a].tensor].fill.clone(),
        )),
        Expr::Scalar(_) | Expr::Literal(_) => None,
        Expr::Const(c) => Some(Expr::Const(c.clone())),
        // A number's negation is exact; an infinity's is not (`-i64::MIN` overflows).
        Expr::Neg(inner) => fill_of(kernel, inner).map(|f| match f {
            Expr::Const(c) if c.is_zero() => Expr::Const(c),
            Expr::Const(c) => match c.negated() {
                Some(n) => Expr::Const(n),
                None => Expr::Neg(Box::new(Expr::Const(c))),
            },
            f => Expr::Neg(Box::new(f)),
        }),
        Expr::Binary(..) | Expr::Call(..) => {
            let (f, args) = applied(kernel, e)?;
            let fills: Vec<Option<Expr>> = args.iter().map(|a| fill_of(kernel, a)).collect();
            if f.iterate.is_none() {
                if let Some(z) = annihilating(&f, &fills)
                    .first()
                    .and_then(|&n| f.annihilator[n].clone())
                {
                    return Some(Expr::Const(z));
                }
            }
            // A divisor whose fill is 0 is dense (a sparse one is refused), so the quotient
            // is present everywhere: it has no fill, and none is divided by 0.
            if let (Expr::Binary(BinOp::Div, ..), Some(Some(Expr::Const(c)))) = (e, fills.get(1)) {
                if c.is_zero() {
                    return None;
                }
            }
            let fills: Vec<Expr> = fills.into_iter().collect::<Option<_>>()?;
            Some(fold_constants(kernel, e, &f, fills))
        }
        Expr::Sum(_, body) => match fill_of(kernel, body)? {
            Expr::Const(c) if c.is_zero() => Some(Expr::Const(c)),
            _ => None,
        },
        Expr::Reduce(f, _, body) => {
            let identity = kernel.functions[*f].fold_start()?;
            match fill_of(kernel, body)? {
                Expr::Const(c) if c.same(identity) => Some(Expr::Const(c)),
                _ => None,
            }
        }
    }
}

/// A node over its arguments' fill values, folded where the properties decide it: an
/// idempotent function of equal constants, an identity argument, `0 ± 0`, `-0`.
fn fold_constants(kernel: &Kernel, node: &Expr, f: &Function, fills: Vec<Expr>) -> Expr {
    let consts: Vec<Option<&Constant>> = fills
        .iter()
        .map(|e| match e {
            Expr::Const(c) => Some(c),
            _ => None,
        })
        .collect();
    if let Some(c) = fold_prelude(f, &consts) {
        return Expr::Const(c);
    }
    if let [Some(a), Some(b)] = consts[..] {
        if f.idempotent && a.same(b) {
            return Expr::Const(a.clone());
        }
        if f.identity[1].as_ref().is_some_and(|i| i.same(b)) {
            return Expr::Const(a.clone());
        }
        if f.identity[0].as_ref().is_some_and(|i| i.same(a))
            && !matches!(node, Expr::Binary(BinOp::Sub, ..))
        {
            return Expr::Const(b.clone());
        }
        if matches!(node, Expr::Binary(BinOp::Sub, ..)) && a.is_zero() && b.is_zero() {
            return Expr::Const(a.clone());
        }
        // `0 - b` is `-b`, exact for a number (lattice points simplify `0 - x` to `-x`, whose
        // fill must be decided alike).
        if matches!(node, Expr::Binary(BinOp::Sub, ..)) && a.is_zero() {
            if let Some(n) = b.negated() {
                return Expr::Const(n);
            }
        }
    }
    let _ = kernel;
    rebuild(node, fills)
}

/// The prelude's functions of constants that are exact in every value type, folded so that
/// a fill value they decide is a constant (`gt(-1, 0)` is 0, so `sum[j](gt(a, b))` over
/// `-1`- and 0-filled operands visits only stored coordinates): the boolean functions (a
/// constant is true unless it is zero, the result 0 or 1), the comparisons, `min`, `max` and
/// `abs`. Other functions of constants (`exp`, `pow`, declared functions) are left to run
/// time. Comparisons are folded only where they are decided whatever the value type: both
/// numbers exact in `f64`, and not a zero against `-inf` (which is 0 in unsigned types).
fn fold_prelude(f: &Function, consts: &[Option<&Constant>]) -> Option<Constant> {
    let Callee::Prelude(name) = f.callee else {
        return None;
    };
    let consts: Vec<&Constant> = consts.iter().copied().collect::<Option<_>>()?;
    let truth = |c: &Constant| !c.is_zero();
    let bool = |b: bool| if b { Constant::one() } else { Constant::zero() };
    Some(match (name, consts.as_slice()) {
        ("and", [a, b]) => bool(truth(a) && truth(b)),
        ("or", [a, b]) => bool(truth(a) || truth(b)),
        ("xor", [a, b]) => bool(truth(a) != truth(b)),
        ("not", [a]) => bool(!truth(a)),
        ("abs", [Constant::Number { lit, value, .. }]) if exact(*value) => Constant::Number {
            lit: lit.clone(),
            negative: false,
            value: value.abs(),
        },
        (_, [a, b]) => {
            let order = compare(a, b)?;
            match name {
                "eq" => bool(order.is_eq()),
                "ne" => bool(order.is_ne()),
                "lt" => bool(order.is_lt()),
                "le" => bool(order.is_le()),
                "gt" => bool(order.is_gt()),
                "ge" => bool(order.is_ge()),
                "min" => (*if order.is_gt() { b } else { a }).clone(),
                "max" => (*if order.is_lt() { b } else { a }).clone(),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Whether `f64` holds the number exactly as every value type does (an integer literal
/// beyond 2^53 may round).
fn exact(value: f64) -> bool {
    value.abs() < 9_007_199_254_740_992.0
}

/// The order of two constants where every value type agrees on it.
fn compare(a: &Constant, b: &Constant) -> Option<std::cmp::Ordering> {
    use Constant::{Infinity, Number};
    match (a, b) {
        (Number { value: x, .. }, Number { value: y, .. }) if exact(*x) && exact(*y) => {
            x.partial_cmp(y)
        }
        (Infinity { negative: x }, Infinity { negative: y }) => Some(y.cmp(x)),
        (Number { value, .. }, Infinity { negative }) if exact(*value) => {
            // `-inf` is an unsigned type's 0: only a nonzero number is above it everywhere.
            (!*negative || *value != 0.0).then_some(if *negative {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Less
            })
        }
        (Infinity { .. }, Number { .. }) => compare(b, a).map(std::cmp::Ordering::reverse),
        _ => None,
    }
}

/// The same node over other arguments.
pub fn rebuild(node: &Expr, mut args: Vec<Expr>) -> Expr {
    match node {
        Expr::Binary(op, ..) if args.len() == 2 => {
            let r = args.pop().unwrap_or(Expr::Const(Constant::zero()));
            let l = args.pop().unwrap_or(Expr::Const(Constant::zero()));
            Expr::binary(*op, l, r)
        }
        Expr::Call(f, _) => Expr::Call(*f, args),
        other => other.clone(),
    }
}

/// The arguments whose fill value annihilates the function: where one of them is absent,
/// the result is that annihilator.
fn annihilating(f: &Function, fills: &[Option<Expr>]) -> Vec<usize> {
    (0..f.arity())
        .filter(|&n| match (&f.annihilator[n], fills.get(n)) {
            (Some(z), Some(Some(Expr::Const(c)))) => z.same(c),
            _ => false,
        })
        .collect()
}

/// Where a node (an operator or a call) may differ from its fill value, over its arguments'
/// presence (Henry et al. 2021, section 5.2): the declared `iterate(..)` formula; else the
/// intersection of the arguments whose fill value annihilates it; else the union of all.
pub fn region_of(kernel: &Kernel, e: &Expr) -> Option<Region> {
    let (f, args) = applied(kernel, e)?;
    if let Some(r) = &f.iterate {
        return Some(r.clone());
    }
    let fills: Vec<Option<Expr>> = args.iter().map(|a| fill_of(kernel, a)).collect();
    let ann = annihilating(&f, &fills);
    if ann.is_empty() {
        Region::any(&(0..args.len()).collect::<Vec<_>>())
    } else {
        Region::all(&ann)
    }
}
