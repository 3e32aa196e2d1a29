//! The kernel AST the generator builds, and its rendering as `sparse_kernel!` source.

use crate::format::Format;
use crate::functions::{FillAttr, Func, Reducer};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The value type shared by every tensor and scalar of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValTy {
    /// `f64`
    F64,
    /// `f32`
    F32,
    /// `i64`
    I64,
}

impl ValTy {
    /// The Rust type name.
    pub fn name(self) -> &'static str {
        match self {
            ValTy::F64 => "f64",
            ValTy::F32 => "f32",
            ValTy::I64 => "i64",
        }
    }

    /// A float type.
    pub fn is_float(self) -> bool {
        self != ValTy::I64
    }

    /// Relative tolerance of value comparisons (0: exact).
    pub fn tolerance(self) -> f64 {
        match self {
            ValTy::F64 => 1e-9,
            ValTy::F32 => 1e-3,
            ValTy::I64 => 0.0,
        }
    }
}

/// What a parameter is.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// `t: &Fmt<V>`
    Input(Format),
    /// `y: &mut Fmt<V>`
    Output(Format),
    /// `alpha: V`
    ScalarIn,
    /// `out: &mut V`
    ScalarOut,
    /// `lo: usize`: a bound of a window ([`Window`]).
    Index,
}

/// A window bound: an integer literal or a `usize` parameter ([`ParamKind::Index`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// A literal.
    Lit(usize),
    /// The parameter of that number.
    Param(usize),
}

/// A window of one mode of an input access: `a(i[lo..hi], j)`, `a(i[lo..], j)`,
/// `a(i[..hi], j)`, `a(i[(lo..hi).step_by(s)], j)`. The variable ranges over the window's
/// length, `ceil((hi - lo) / step)` (`hi` the mode's size when open), and reads component
/// `lo + step * i` of the mode. The parameter is accessed exactly once.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// The windowed tensor parameter.
    pub param: usize,
    /// Its logical mode.
    pub mode: usize,
    /// The first component (`None`: written `..hi`, 0).
    pub lo: Option<Bound>,
    /// The end (`None`: open, the mode's size).
    pub hi: Option<Bound>,
    /// The stride (1: no `step_by`).
    pub step: usize,
}

/// One parameter of the kernel signature.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The name as written (possibly a raw identifier `r#y`).
    pub name: String,
    /// What it is.
    pub kind: ParamKind,
    /// Its `#[fill(c)]` attribute (sparse tensors only; none: fill value 0).
    pub fill: Option<FillAttr>,
}

impl Param {
    /// A parameter without a fill attribute.
    pub fn new(name: impl Into<String>, kind: ParamKind) -> Param {
        Param {
            name: name.into(),
            kind,
            fill: None,
        }
    }

    /// The tensor format of a tensor parameter.
    pub fn format(&self) -> Option<&Format> {
        match &self.kind {
            ParamKind::Input(f) | ParamKind::Output(f) => Some(f),
            _ => None,
        }
    }
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
        }
    }

    fn precedence(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mul | Op::Div => 2,
        }
    }
}

/// A right-hand side expression as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// `t(v0, v1, ..)`: parameter index, variable per logical mode.
    Access {
        /// The tensor parameter.
        param: usize,
        /// The index variable of each logical mode.
        vars: Vec<usize>,
    },
    /// A scalar parameter.
    Scalar {
        /// The scalar parameter.
        param: usize,
    },
    /// A numeric literal.
    Lit {
        /// As written.
        text: String,
        /// Its value.
        value: f64,
    },
    /// Unary minus.
    Neg(Box<Expr>),
    /// A binary operation.
    Bin(Op, Box<Expr>, Box<Expr>),
    /// Redundant parentheses (precedence parentheses are added when rendering).
    Paren(Box<Expr>),
    /// A call `f(a, b)` of a prelude or declared function.
    Call {
        /// The function.
        func: Func,
        /// Its arguments.
        args: Vec<Expr>,
    },
    /// A reduction `min[j](e)`: the fold of the reducer's function over every coordinate of
    /// `var`. The variable is used nowhere else.
    Reduce {
        /// What it folds by.
        by: Reducer,
        /// The reduced index variable.
        var: usize,
        /// The folded expression.
        body: Box<Expr>,
    },
}

impl Expr {
    /// `l op r`
    pub fn bin(op: Op, l: Expr, r: Expr) -> Expr {
        Expr::Bin(op, Box::new(l), Box::new(r))
    }

    /// `-e`
    pub fn negate(e: Expr) -> Expr {
        Expr::Neg(Box::new(e))
    }

    /// `(e)`
    pub fn paren(e: Expr) -> Expr {
        Expr::Paren(Box::new(e))
    }

    /// `f(args)`
    pub fn call(func: Func, args: Vec<Expr>) -> Expr {
        Expr::Call { func, args }
    }

    /// `by[var](body)`
    pub fn reduce(by: Reducer, var: usize, body: Expr) -> Expr {
        Expr::Reduce {
            by,
            var,
            body: Box::new(body),
        }
    }

    /// The same expression with every leaf (access, scalar, literal) replaced by `f(leaf)`.
    pub fn map_leaves(self, f: &impl Fn(Expr) -> Expr) -> Expr {
        match self {
            Expr::Neg(x) => Expr::negate(x.map_leaves(f)),
            Expr::Paren(x) => Expr::paren(x.map_leaves(f)),
            Expr::Bin(op, l, r) => Expr::bin(op, l.map_leaves(f), r.map_leaves(f)),
            Expr::Call { func, args } => Expr::Call {
                func,
                args: args.into_iter().map(|a| a.map_leaves(f)).collect(),
            },
            Expr::Reduce { by, var, body } => Expr::reduce(by, var, body.map_leaves(f)),
            leaf => f(leaf),
        }
    }

    /// The direct subexpressions, left to right.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Neg(e) | Expr::Paren(e) => vec![e],
            Expr::Bin(_, l, r) => vec![l, r],
            Expr::Call { args, .. } => args.iter().collect(),
            Expr::Reduce { body, .. } => vec![body],
            Expr::Access { .. } | Expr::Scalar { .. } | Expr::Lit { .. } => Vec::new(),
        }
    }

    /// The variables of explicit reductions (`min[j](..)`) in this expression.
    pub fn reduced_vars(&self) -> BTreeSet<usize> {
        let mut s = BTreeSet::new();
        self.visit(&mut |e| {
            if let Expr::Reduce { var, .. } = e {
                s.insert(*var);
            }
        });
        s
    }

    /// Index variables used by accesses outside explicit reductions over them: the ones an
    /// output may use, or that are summed by the Einstein rule.
    pub fn free_vars(&self) -> BTreeSet<usize> {
        let reduced = self.reduced_vars();
        self.vars()
            .into_iter()
            .filter(|v| !reduced.contains(v))
            .collect()
    }

    /// Whether the expression calls a function or reduces explicitly.
    pub fn uses_functions(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= matches!(e, Expr::Call { .. } | Expr::Reduce { .. }));
        found
    }

    /// Index variables used by the accesses of this expression.
    pub fn vars(&self) -> BTreeSet<usize> {
        let mut s = BTreeSet::new();
        self.visit(&mut |e| {
            if let Expr::Access { vars, .. } = e {
                s.extend(vars.iter().copied());
            }
        });
        s
    }

    /// Calls `f` on every node, pre-order.
    pub fn visit(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.visit(f);
        }
    }

    /// Nesting depth (parentheses not counted).
    pub fn depth(&self) -> usize {
        match self {
            Expr::Neg(e) => 1 + e.depth(),
            Expr::Paren(e) => e.depth(),
            Expr::Bin(_, l, r) => 1 + l.depth().max(r.depth()),
            Expr::Call { args, .. } => 1 + args.iter().map(Expr::depth).max().unwrap_or(0),
            Expr::Reduce { body, .. } => 1 + body.depth(),
            _ => 0,
        }
    }
}

/// A generated kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Its seed, which is also its id.
    pub id: u64,
    /// Which generator shape produced it (for statistics).
    pub template: &'static str,
    /// The value type.
    pub vt: ValTy,
    /// Parameters in signature order.
    pub params: Vec<Param>,
    /// The output parameter (tensor or scalar).
    pub out: usize,
    /// The output's index variables, per logical mode (empty for a scalar output).
    pub out_vars: Vec<usize>,
    /// `+=` instead of `=`.
    pub accumulate: bool,
    /// With `accumulate`: `-=` (the old contents plus `-(rhs)`).
    pub subtract: bool,
    /// The right side.
    pub rhs: Expr,
    /// Names of the index variables.
    pub var_names: Vec<String>,
    /// Whether the statement ends with `;`.
    pub semicolon: bool,
    /// A `#[schedule(workspace(..))]` attribute on the function, if any.
    pub schedule: Option<Schedule>,
    /// A kernel of several statements: every statement, in order (empty: the kernel is the
    /// one statement of the fields above). For a sequence, `out`, `out_vars`, `accumulate`,
    /// `subtract` and `rhs` repeat the first statement that writes a parameter, and
    /// `schedule` is `None` (schedules go on statements); [`Kernel::step`] gives each
    /// statement as a kernel of its own.
    pub statements: Vec<Statement>,
    /// The names of the scalar temporaries the statements' `let`s define, in order.
    pub temporaries: Vec<String>,
    /// Drawn as a kernel of sparse array programming (fill values, calls, reductions; from
    /// the generator's feature stream): its data cases include explicit zeros and stale
    /// sparse outputs with a fill value of their own.
    pub feature: bool,
    /// Windows of input accesses (single statements only; from the window stream).
    pub windows: Vec<Window>,
    /// `#[schedule(precompute(never))]` on the function: every product summed term by term
    /// (single statements only; from the precompute stream). It changes no value beyond
    /// rounding, so the reference ignores it.
    pub term_by_term: bool,
}

/// What a statement of a sequence writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A tensor or scalar output parameter.
    Param(usize),
    /// The scalar temporary of that number, defined here by `let`.
    Temporary(usize),
}

/// One statement of a kernel of several statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// What it writes.
    pub target: Target,
    /// The output's index variables (empty for a scalar or a temporary).
    pub out_vars: Vec<usize>,
    /// `+=` (or `-=` with `subtract`) instead of `=`.
    pub accumulate: bool,
    /// `-=`.
    pub subtract: bool,
    /// The right side; `Expr::Scalar { param }` with `param >= params.len()` reads the
    /// temporary `param - params.len()`.
    pub rhs: Expr,
    /// A `#[schedule(workspace(..))]` attribute on the statement.
    pub schedule: Option<Schedule>,
}

/// The accumulator of a workspace (`workspace(v, dense)` / `workspace(v, hash)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Accumulator {
    /// An array over the workspace's coordinates with a list of the touched ones.
    Dense,
    /// A hash table of the touched coordinates.
    Hash,
}

impl Accumulator {
    /// The schedule's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Accumulator::Dense => "dense",
            Accumulator::Hash => "hash",
        }
    }
}

/// `#[schedule(workspace(var[, kind]))]`: compute the output's levels from the one storing
/// `var` down in a workspace.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// The variable as written: usually one of the output's (possibly spelled with or without
    /// `r#`), sometimes another variable of the kernel or a name it does not use.
    pub var: String,
    /// The accumulator, if the directive names one.
    pub kind: Option<Accumulator>,
}

impl Schedule {
    /// The attribute as written.
    pub fn attribute(&self) -> String {
        match self.kind {
            None => format!("#[schedule(workspace({}))]", self.var),
            Some(k) => format!("#[schedule(workspace({}, {}))]", self.var, k.name()),
        }
    }
}

/// Whether two identifiers name the same thing (raw identifiers compared without `r#`).
pub fn same_name(a: &str, b: &str) -> bool {
    a.trim_start_matches("r#") == b.trim_start_matches("r#")
}

impl Kernel {
    /// The order of the dense operand parameter `p` passes as storage the test owns, for a
    /// deterministic quarter of the `Dense1`, `Dense2` and `Dense3` parameters (by kernel id
    /// and position): order 1 as a slice (`&[V]`, `&mut [V]`), 2 and 3 as a dense view
    /// (`&Dense2View<'_, V>`, `&mut Dense2ViewMut<'_, V>`). `None` for every other parameter.
    pub fn borrowed(&self, p: usize) -> Option<usize> {
        let f = self.params[p].format()?;
        let order = match f.alias_name()? {
            "Dense1" => 1,
            "Dense2" => 2,
            "Dense3" => 3,
            _ => return None,
        };
        // SplitMix64's finalizer over the id and position: well mixed even for small ids.
        let mut mix = self
            .id
            .wrapping_add((p as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        mix = (mix ^ (mix >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        mix = (mix ^ (mix >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        mix ^= mix >> 31;
        (mix >> 62 == 0).then_some(order)
    }

    /// The type of tensor parameter `p` (format `f`) behind its reference, as the signature
    /// writes it.
    pub fn param_type(&self, p: usize, f: &Format) -> String {
        let v = self.vt.name();
        let output = matches!(self.params[p].kind, ParamKind::Output(_));
        match (self.borrowed(p), output) {
            (Some(1), _) => format!("[{v}]"),
            (Some(n), false) => format!("Dense{n}View<'_, {v}>"),
            (Some(n), true) => format!("Dense{n}ViewMut<'_, {v}>"),
            (None, _) => f.rust_type(v),
        }
    }

    /// The generated function's name.
    pub fn fn_name(&self) -> String {
        format!("k{}", self.id)
    }

    /// The output's format, `None` for a scalar output.
    pub fn out_format(&self) -> Option<&Format> {
        self.params[self.out].format()
    }

    /// The output is a scalar or has only dense levels (overwritten / accumulated in place).
    pub fn dense_output(&self) -> bool {
        self.out_format().is_none_or(Format::all_dense)
    }

    /// Whether the output is written in place (scalar, dense, or dense rows of a hash
    /// table): any loop order of its variables, accumulation across root sums, `+=`.
    pub fn in_place_output(&self) -> bool {
        self.out_format().is_none_or(Format::inserts_everywhere)
    }

    /// Number of index variables.
    pub fn n_vars(&self) -> usize {
        self.var_names.len()
    }

    /// Whether the kernel has several statements.
    pub fn is_sequence(&self) -> bool {
        !self.statements.is_empty()
    }

    /// Whether the kernel or one of its statements carries a schedule.
    pub fn has_schedule(&self) -> bool {
        self.schedule.is_some() || self.statements.iter().any(|s| s.schedule.is_some())
    }

    /// Statement `s` of a sequence as a single-statement kernel, as the compiler compiles it:
    /// the kernel's parameters, the one it writes as declared and the other outputs read only
    /// (`&mut` tensors as inputs, scalar outputs as scalar inputs), then every temporary as a
    /// scalar parameter (the one a `let` defines as the scalar output).
    pub fn step(&self, s: usize) -> Kernel {
        let st = &self.statements[s];
        let n = self.params.len();
        let mut params: Vec<Param> = self
            .params
            .iter()
            .enumerate()
            .map(|(p, param)| {
                let kind = match (&param.kind, st.target == Target::Param(p)) {
                    (ParamKind::Output(f), false) => ParamKind::Input(f.clone()),
                    (ParamKind::ScalarOut, false) => ParamKind::ScalarIn,
                    (kind, _) => kind.clone(),
                };
                Param {
                    name: param.name.clone(),
                    kind,
                    fill: param.fill.clone(),
                }
            })
            .collect();
        for (t, name) in self.temporaries.iter().enumerate() {
            params.push(Param::new(
                name.clone(),
                if st.target == Target::Temporary(t) {
                    ParamKind::ScalarOut
                } else {
                    ParamKind::ScalarIn
                },
            ));
        }
        Kernel {
            id: self.id,
            template: self.template,
            vt: self.vt,
            params,
            out: match st.target {
                Target::Param(p) => p,
                Target::Temporary(t) => n + t,
            },
            out_vars: st.out_vars.clone(),
            accumulate: st.accumulate,
            subtract: st.subtract,
            rhs: st.rhs.clone(),
            var_names: self.var_names.clone(),
            semicolon: true,
            schedule: st.schedule.clone(),
            statements: Vec::new(),
            temporaries: Vec::new(),
            feature: self.feature,
            windows: Vec::new(),
            term_by_term: false,
        }
    }

    /// Every statement as a kernel of its own ([`Kernel::step`]); a single-statement kernel
    /// is its own one step.
    pub fn steps(&self) -> Vec<Kernel> {
        if self.is_sequence() {
            (0..self.statements.len()).map(|s| self.step(s)).collect()
        } else {
            vec![self.clone()]
        }
    }

    /// The statement as written (`lhs op rhs`, without `;`), for a single-statement kernel or
    /// a step.
    fn statement_source(&self, defines: bool) -> String {
        let mut lhs = self.params[self.out].name.clone();
        if !self.out_vars.is_empty() {
            let names: Vec<&str> = self
                .out_vars
                .iter()
                .map(|&x| self.var_names[x].as_str())
                .collect();
            let _ = write!(lhs, "({})", names.join(", "));
        }
        let op = match (self.accumulate, self.subtract) {
            (false, _) => "=",
            (true, false) => "+=",
            (true, true) => "-=",
        };
        let rhs = self.render_expr(&self.rhs);
        if defines {
            format!("let {lhs} = {rhs}")
        } else {
            format!("{lhs} {op} {rhs}")
        }
    }

    /// The function item (what goes inside `sparse_kernel! { .. }`).
    pub fn source(&self) -> String {
        let v = self.vt.name();
        let params: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(|(at, p)| {
                let fill = p
                    .fill
                    .as_ref()
                    .map_or(String::new(), |f| format!("#[fill({})] ", f.text));
                let param = match &p.kind {
                    ParamKind::Input(f) => format!("{}: &{}", p.name, self.param_type(at, f)),
                    ParamKind::Output(f) => {
                        format!("{}: &mut {}", p.name, self.param_type(at, f))
                    }
                    ParamKind::ScalarIn => format!("{}: {v}", p.name),
                    ParamKind::ScalarOut => format!("{}: &mut {v}", p.name),
                    ParamKind::Index => format!("{}: usize", p.name),
                };
                fill + &param
            })
            .collect();
        if self.is_sequence() {
            let last = self.statements.len() - 1;
            let body: Vec<String> = self
                .statements
                .iter()
                .enumerate()
                .map(|(s, st)| {
                    let step = self.step(s);
                    let attribute = st
                        .schedule
                        .as_ref()
                        .map_or(String::new(), |a| a.attribute() + "\n    ");
                    let defines = matches!(st.target, Target::Temporary(_));
                    let end = if s < last || self.semicolon || defines {
                        ";"
                    } else {
                        ""
                    };
                    format!("    {attribute}{}{end}", step.statement_source(defines))
                })
                .collect();
            return format!(
                "fn {}({}) {{\n{}\n}}",
                self.fn_name(),
                params.join(", "),
                body.join("\n")
            );
        }
        let mut attribute = self
            .schedule
            .as_ref()
            .map_or(String::new(), |s| s.attribute() + "\n");
        if self.term_by_term {
            attribute += "#[schedule(precompute(never))]\n";
        }
        format!(
            "{attribute}fn {}({}) {{\n    {}{}\n}}",
            self.fn_name(),
            params.join(", "),
            self.statement_source(false),
            if self.semicolon { ";" } else { "" }
        )
    }

    /// The declared functions the kernel calls or reduces by, in declaration order.
    pub fn declared_functions(&self) -> Vec<Func> {
        let mut used = BTreeSet::new();
        let rhss: Vec<&Expr> = if self.is_sequence() {
            self.statements.iter().map(|s| &s.rhs).collect()
        } else {
            vec![&self.rhs]
        };
        for rhs in rhss {
            rhs.visit(&mut |e| match e {
                Expr::Call { func, .. } if func.declared() => {
                    used.insert(*func);
                }
                Expr::Reduce { by, .. } => {
                    if let Some(f) = by.func().filter(|f| f.declared()) {
                        used.insert(f);
                    }
                }
                _ => {}
            });
        }
        used.into_iter().collect()
    }

    /// The declarations of [`Kernel::declared_functions`] (`#[function(..)] fn ..`), as they
    /// go into the kernel's `sparse_kernel!` block before the kernel.
    pub fn declarations(&self) -> Vec<String> {
        self.declared_functions()
            .into_iter()
            .map(|f| f.declaration(self.vt))
            .collect()
    }

    /// The kernel as an assembling function with a compute-only variant, for the harness to
    /// run beside it: `fn {name}_asm` with the kernel's parameters, statement and schedules,
    /// and `#[schedule(compute({name}_values))]`; `None` for a sequence, an output written in
    /// place, or `+=` (which the compute-only split refuses).
    pub fn compute_pair(&self) -> Option<String> {
        if self.is_sequence() || self.in_place_output() || self.accumulate {
            return None;
        }
        let name = self.fn_name();
        let src = self.source();
        let head = format!("fn {name}(");
        let at = src.find(&head)?;
        Some(format!(
            "{}#[schedule(compute({name}_values))]\nfn {name}_asm({}",
            &src[..at],
            &src[at + head.len()..]
        ))
    }

    /// Everything inside the kernel's `sparse_kernel! { .. }`: the declarations, then the
    /// kernel.
    pub fn block(&self) -> String {
        let mut items = self.declarations();
        items.push(self.source());
        items.join("\n\n")
    }

    /// The window of mode `mode` of parameter `param`, if any.
    pub fn window(&self, param: usize, mode: usize) -> Option<&Window> {
        self.windows
            .iter()
            .find(|w| w.param == param && w.mode == mode)
    }

    fn render_window(&self, w: &Window) -> String {
        let bound = |b: &Bound| match b {
            Bound::Lit(n) => n.to_string(),
            Bound::Param(p) => self.params[*p].name.clone(),
        };
        let lo = w.lo.as_ref().map_or(String::new(), bound);
        let hi = w.hi.as_ref().map_or(String::new(), bound);
        if w.step == 1 {
            format!("{lo}..{hi}")
        } else {
            format!("({lo}..{hi}).step_by({})", w.step)
        }
    }

    /// The whole macro invocation.
    pub fn invocation(&self) -> String {
        self.invocation_with(None)
    }

    /// [`Kernel::invocation`], with `extra` (another function of the same block) after the
    /// kernel.
    pub fn invocation_with(&self, extra: Option<&str>) -> String {
        let mut block = self.block();
        if let Some(extra) = extra {
            block = format!("{block}\n\n{extra}");
        }
        let body = block.replace('\n', "\n    ");
        format!("sparse_kernel! {{\n    {body}\n}}")
    }

    /// An expression as Rust source, with the parentheses precedence needs.
    pub fn render_expr(&self, e: &Expr) -> String {
        let mut s = String::new();
        self.render(e, 0, &mut s);
        s
    }

    fn render(&self, e: &Expr, min: u8, s: &mut String) {
        match e {
            Expr::Access { param, vars } => {
                let names: Vec<String> = vars
                    .iter()
                    .enumerate()
                    .map(|(m, &x)| {
                        let name = &self.var_names[x];
                        match self.window(*param, m) {
                            Some(w) => format!("{name}[{}]", self.render_window(w)),
                            None => name.clone(),
                        }
                    })
                    .collect();
                let _ = write!(s, "{}({})", self.params[*param].name, names.join(", "));
            }
            Expr::Scalar { param } => s.push_str(&self.params[*param].name),
            Expr::Lit { text, .. } => s.push_str(text),
            Expr::Neg(x) => {
                let open = min > 3;
                if open {
                    s.push('(');
                }
                s.push('-');
                self.render(x, 4, s);
                if open {
                    s.push(')');
                }
            }
            Expr::Bin(op, l, r) => {
                let p = op.precedence();
                let open = p < min;
                if open {
                    s.push('(');
                }
                self.render(l, p, s);
                let _ = write!(s, " {} ", op.symbol());
                self.render(r, p + 1, s);
                if open {
                    s.push(')');
                }
            }
            Expr::Paren(x) => {
                s.push('(');
                self.render(x, 0, s);
                s.push(')');
            }
            Expr::Call { func, args } => {
                s.push_str(func.name());
                s.push('(');
                for (n, a) in args.iter().enumerate() {
                    if n > 0 {
                        s.push_str(", ");
                    }
                    self.render(a, 0, s);
                }
                s.push(')');
            }
            Expr::Reduce { by, var, body } => {
                let _ = write!(s, "{}[{}](", by.name(), self.var_names[*var]);
                self.render(body, 0, s);
                s.push(')');
            }
        }
    }
}
