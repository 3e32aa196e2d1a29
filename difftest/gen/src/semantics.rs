//! The language definition, independently of the compiler: where Einstein sums are placed,
//! and which documented limitation (if any) a kernel hits.

use crate::format::{Format, Kind};
use crate::functions::{Fill, Func, Reducer};
use crate::kernel::{same_name, Accumulator, Expr, Kernel, Op, ParamKind, Schedule};
use std::collections::BTreeSet;
use std::fmt;

/// The right side with its sums placed.
#[derive(Clone, Debug, PartialEq)]
pub enum Placed {
    /// A tensor access.
    Access {
        /// The tensor parameter.
        param: usize,
        /// Variable per logical mode.
        vars: Vec<usize>,
    },
    /// A scalar parameter.
    Scalar {
        /// The scalar parameter.
        param: usize,
    },
    /// A literal's value.
    Lit(f64),
    /// Unary minus.
    Neg(Box<Placed>),
    /// Binary operation.
    Bin(Op, Box<Placed>, Box<Placed>),
    /// `Σ_vars body` (an implicit sum, or an explicit `sum[j](..)`).
    Sum(Vec<usize>, Box<Placed>),
    /// A call of a function.
    Call(Func, Vec<Placed>),
    /// A reduction by a function other than `+` (`min[j](..)`).
    Reduce(Reducer, usize, Box<Placed>),
}

impl Placed {
    /// Variables of accesses and sums in this subtree.
    pub fn vars(&self) -> BTreeSet<usize> {
        let mut s = BTreeSet::new();
        self.collect_vars(&mut s);
        s
    }

    fn collect_vars(&self, s: &mut BTreeSet<usize>) {
        match self {
            Placed::Access { vars, .. } => s.extend(vars.iter().copied()),
            Placed::Sum(vs, b) => {
                s.extend(vs.iter().copied());
                b.collect_vars(s);
            }
            Placed::Neg(b) => b.collect_vars(s),
            Placed::Bin(_, l, r) => {
                l.collect_vars(s);
                r.collect_vars(s);
            }
            Placed::Call(_, args) => args.iter().for_each(|a| a.collect_vars(s)),
            Placed::Reduce(_, v, b) => {
                s.insert(*v);
                b.collect_vars(s);
            }
            Placed::Scalar { .. } | Placed::Lit(_) => {}
        }
    }

    /// Renders with explicit sums, e.g. `Σ{j}(a(i,j) * x(j))`, using `k`'s names.
    pub fn show(&self, k: &Kernel) -> String {
        match self {
            Placed::Access { param, vars } => {
                let v: Vec<&str> = vars.iter().map(|&x| k.var_names[x].as_str()).collect();
                format!("{}({})", k.params[*param].name, v.join(","))
            }
            Placed::Scalar { param } => k.params[*param].name.clone(),
            Placed::Lit(x) => format!("{x}"),
            Placed::Neg(b) => format!("-({})", b.show(k)),
            Placed::Bin(op, l, r) => {
                let o = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                };
                format!("({} {o} {})", l.show(k), r.show(k))
            }
            Placed::Sum(vs, b) => {
                let v: Vec<&str> = vs.iter().map(|&x| k.var_names[x].as_str()).collect();
                format!("Σ{{{}}}{}", v.join(","), b.show(k))
            }
            Placed::Call(f, args) => {
                let a: Vec<String> = args.iter().map(|a| a.show(k)).collect();
                format!("{}({})", f.name(), a.join(", "))
            }
            Placed::Reduce(by, v, b) => {
                format!("{}[{}]({})", by.name(), k.var_names[*v], b.show(k))
            }
        }
    }
}

/// Places the sum of every reduction variable: walking down from the root, at the first node
/// that is not `+`, `-` or unary minus, or that is a `+`/`-` whose both operands use it.
pub fn place(k: &Kernel) -> Placed {
    place_with_hidden(k, &BTreeSet::new())
}

/// [`place`] for a kernel with the hidden storage variables of its remapped operands
/// ([`with_hidden_vars`]). A hidden variable stands for a sum inside one access (`A(i,j)` of a
/// `Dia` is `Σ_d A'(d,i,j)`, of a `Bcsr` or `Csb` `Σ_{I,J} A'(I,J,i,j)`): it moves out
/// through products and quotients (their factors and dividends) but never across an addition,
/// so it is placed at the root of the largest product that has its access among its factors
/// (all hidden variables of one access at the same place).
fn place_with_hidden(k: &Kernel, hidden: &BTreeSet<usize>) -> Placed {
    let out: BTreeSet<usize> = k.out_vars.iter().copied().collect();
    // Variables of explicit reductions are theirs, never summed by the Einstein rule.
    let reduction: BTreeSet<usize> = k.rhs.free_vars().difference(&out).copied().collect();
    if k.subtract {
        // `y -= e` is `y += -(e)`.
        return place_in(&Expr::negate(k.rhs.clone()), reduction, hidden);
    }
    place_in(&k.rhs, reduction, hidden)
}

fn place_in(e: &Expr, pending: BTreeSet<usize>, hidden: &BTreeSet<usize>) -> Placed {
    match e {
        Expr::Paren(x) => place_in(x, pending, hidden),
        Expr::Neg(x) => Placed::Neg(Box::new(place_in(x, pending, hidden))),
        Expr::Bin(op @ (Op::Add | Op::Sub), l, r) => {
            let (ul, ur) = (l.vars(), r.vars());
            let here: BTreeSet<usize> = pending
                .iter()
                .copied()
                .filter(|v| ul.contains(v) && ur.contains(v))
                .collect();
            let left = pending
                .iter()
                .copied()
                .filter(|v| ul.contains(v) && !here.contains(v))
                .collect();
            let right = pending
                .iter()
                .copied()
                .filter(|v| ur.contains(v) && !here.contains(v))
                .collect();
            let node = Placed::Bin(
                *op,
                Box::new(place_in(l, left, hidden)),
                Box::new(place_in(r, right, hidden)),
            );
            wrap(here, node)
        }
        Expr::Bin(op, l, r) => {
            let factors = factor_vars(e);
            let (here, down): (BTreeSet<usize>, BTreeSet<usize>) = pending
                .into_iter()
                .partition(|v| !hidden.contains(v) || factors.contains(v));
            let (ul, ur) = (l.vars(), r.vars());
            let left = down.iter().copied().filter(|v| ul.contains(v)).collect();
            let right = down.iter().copied().filter(|v| ur.contains(v)).collect();
            let node = Placed::Bin(
                *op,
                Box::new(place_in(l, left, hidden)),
                Box::new(place_in(r, right, hidden)),
            );
            wrap(here, node)
        }
        // A function is not linear: a variable that several arguments use is summed around
        // the call, one that a single argument uses inside that argument.
        Expr::Call { func, args } => {
            let uses: Vec<BTreeSet<usize>> = args.iter().map(Expr::vars).collect();
            let here: BTreeSet<usize> = pending
                .iter()
                .copied()
                .filter(|v| uses.iter().filter(|u| u.contains(v)).count() > 1)
                .collect();
            let args = args
                .iter()
                .zip(&uses)
                .map(|(a, u)| {
                    let down = pending
                        .iter()
                        .copied()
                        .filter(|v| !here.contains(v) && u.contains(v))
                        .collect();
                    place_in(a, down, hidden)
                })
                .collect();
            wrap(here, Placed::Call(*func, args))
        }
        // Every use of a pending variable is inside an explicit sum: it is summed inside,
        // over the smallest subexpression of the body that holds its uses (sums commute, so
        // only a call inside tells this from summing around the explicit sum:
        // `sum[j](skew(2, z(j, i, k)))` is `Σ_j skew(2, Σ_k z(j, i, k))`).
        Expr::Reduce {
            by: Reducer::Sum,
            var,
            body,
        } => Placed::Sum(vec![*var], Box::new(place_in(body, pending, hidden))),
        // A reduction's body is its one argument: every pending variable it uses is summed
        // inside.
        Expr::Reduce { by, var, body } => {
            Placed::Reduce(*by, *var, Box::new(place_in(body, pending, hidden)))
        }
        _ => wrap(pending, plain(e)),
    }
}

/// The variables of the accesses among `e`'s factors: reached through products, dividends,
/// parentheses, negations and explicit sums, not through additions, divisors, calls or other
/// reductions.
fn factor_vars(e: &Expr) -> BTreeSet<usize> {
    match e {
        Expr::Access { vars, .. } => vars.iter().copied().collect(),
        Expr::Paren(x) | Expr::Neg(x) => factor_vars(x),
        Expr::Reduce {
            by: Reducer::Sum,
            body,
            ..
        } => factor_vars(body),
        Expr::Bin(Op::Mul, l, r) => factor_vars(l).union(&factor_vars(r)).copied().collect(),
        Expr::Bin(Op::Div, l, _) => factor_vars(l),
        _ => BTreeSet::new(),
    }
}

fn wrap(vars: BTreeSet<usize>, body: Placed) -> Placed {
    if vars.is_empty() {
        body
    } else {
        Placed::Sum(vars.into_iter().collect(), Box::new(body))
    }
}

/// A leaf (or an expression without sums, calls or reductions).
fn plain(e: &Expr) -> Placed {
    match e {
        Expr::Access { param, vars } => Placed::Access {
            param: *param,
            vars: vars.clone(),
        },
        Expr::Scalar { param } => Placed::Scalar { param: *param },
        Expr::Lit { value, .. } => Placed::Lit(*value),
        Expr::Neg(x) => Placed::Neg(Box::new(plain(x))),
        Expr::Paren(x) => plain(x),
        Expr::Bin(op, l, r) => Placed::Bin(*op, Box::new(plain(l)), Box::new(plain(r))),
        Expr::Call { .. } | Expr::Reduce { .. } => place_in(e, BTreeSet::new(), &BTreeSet::new()),
    }
}

/// A documented limitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Limitation {
    /// A non-dense tensor in a divisor.
    SparseDivisor,
    /// A sparse output format that cannot be assembled.
    OutputFormat,
    /// No loop order exists (for a kernel with a workspace schedule: none below loops over
    /// the output levels above the scheduled one).
    Order,
    /// A workspace schedule on a kernel whose output is a scalar.
    ScheduleScalar,
    /// A workspace schedule on an output written in place (dense, or `Dense`\* then `Hashed`).
    ScheduleInPlace,
    /// A workspace schedule naming a variable that does not index the output.
    ScheduleVar,
    /// A nonzero fill value on a format read through hidden coordinates (`Dia`, `Bcsr`,
    /// `Csb`): each hidden coordinate would add the fill value.
    HiddenFill,
    /// A call of a function with a declared `iterate(..)` region that never holds, since the
    /// arguments it needs absent are stored everywhere (a dense operand, a constant).
    EmptyRegion,
}

impl Limitation {
    /// All limitations, in summary order.
    pub const ALL: [Limitation; 8] = [
        Limitation::Order,
        Limitation::OutputFormat,
        Limitation::SparseDivisor,
        Limitation::ScheduleScalar,
        Limitation::ScheduleInPlace,
        Limitation::ScheduleVar,
        Limitation::HiddenFill,
        Limitation::EmptyRegion,
    ];

    /// The phrase the compiler's message must contain.
    pub fn phrase(self) -> &'static str {
        match self {
            Limitation::SparseDivisor => "divisor",
            Limitation::OutputFormat => "cannot be assembled",
            Limitation::Order => "no loop order",
            Limitation::ScheduleScalar => "this kernel's output is a scalar",
            Limitation::ScheduleInPlace => "needs no workspace",
            Limitation::ScheduleVar => "is not an index variable of the output",
            Limitation::HiddenFill => "read through hidden coordinates, which need fill value 0",
            Limitation::EmptyRegion => "computes nothing here",
        }
    }

    /// Short name for summaries.
    pub fn name(self) -> &'static str {
        match self {
            Limitation::SparseDivisor => "sparse-divisor",
            Limitation::OutputFormat => "output-format",
            Limitation::Order => "order",
            Limitation::ScheduleScalar => "schedule-scalar",
            Limitation::ScheduleInPlace => "schedule-in-place",
            Limitation::ScheduleVar => "schedule-variable",
            Limitation::HiddenFill => "hidden-fill",
            Limitation::EmptyRegion => "empty-region",
        }
    }
}

impl fmt::Display for Limitation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every limitation the kernel hits (empty: the compiler must accept it). A kernel of several
/// statements hits those of each statement ([`Kernel::step`]): it is accepted iff every
/// statement is.
pub fn limitations(k: &Kernel) -> Vec<Limitation> {
    if k.is_sequence() {
        let mut found: Vec<Limitation> = Vec::new();
        for step in k.steps() {
            for l in limitations(&step) {
                if !found.contains(&l) {
                    found.push(l);
                }
            }
        }
        return found;
    }
    let mut found = Vec::new();
    let sparse_out = !k.dense_output();
    if k.params.iter().any(|p| {
        p.format().is_some_and(|f| f.hidden > 0)
            && p.fill.as_ref().is_some_and(|f| f.value != Fill::ZERO)
    }) {
        found.push(Limitation::HiddenFill);
    }
    if !crate::reference::empty_regions(k).is_empty() {
        found.push(Limitation::EmptyRegion);
    }
    if has_sparse_divisor(k, &k.rhs, false) {
        found.push(Limitation::SparseDivisor);
    }
    if sparse_out && !k.out_format().is_some_and(Format::assemblable) {
        found.push(Limitation::OutputFormat);
    }
    match &k.schedule {
        None if !has_loop_order(k) && !conversion_applies(k) => found.push(Limitation::Order),
        None => {}
        Some(s) => match schedule_level(k, s) {
            Err(l) => found.push(l),
            Ok(m) => {
                if !workspace_levels(k).contains(&m) {
                    found.push(Limitation::Order);
                }
            }
        },
    }
    found
}

/// The output storage level a workspace schedule starts at, or the refusal of the directive
/// itself (checked in this order: a scalar output, an output written in place, a variable that
/// indexes no level of the output). With a schedule, the compiler tries no other placement:
/// the kernel is accepted iff rule (d) holds at that level ([`workspace_levels`]), even when a
/// direct order exists.
pub fn schedule_level(k: &Kernel, s: &Schedule) -> Result<usize, Limitation> {
    let Some(f) = k.out_format() else {
        return Err(Limitation::ScheduleScalar);
    };
    if k.in_place_output() {
        return Err(Limitation::ScheduleInPlace);
    }
    (0..f.kinds.len())
        .find(|&level| {
            k.out_vars
                .get(f.modes[level])
                .is_some_and(|&v| same_name(&k.var_names[v], &s.var))
        })
        .ok_or(Limitation::ScheduleVar)
}

/// Where an accepted kernel's output goes through a workspace, and which accumulator holds
/// it: the compiler's documented choice, which the tester checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The first output storage level computed in the workspace.
    pub level: usize,
    /// The accumulator.
    pub kind: Accumulator,
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} workspace from level {}",
            self.kind.name(),
            self.level
        )
    }
}

/// The workspace each statement of an accepted kernel is computed through ([`workspace`] of
/// each [`Kernel::step`]; one for a single-statement kernel).
pub fn workspaces(k: &Kernel) -> Vec<Option<Placement>> {
    k.steps().iter().map(workspace).collect()
}

/// The workspace an accepted kernel (no [`limitations`]) is computed through, if any: with a
/// schedule, the one it asks for (its kind, else dense for one workspace level and hash for
/// more); without, one only when no loop order appends the sparse output directly (rule (c)),
/// at the deepest level where rule (d) holds, with the default kind.
pub fn workspace(k: &Kernel) -> Option<Placement> {
    let f = k.out_format()?;
    let levels = f.kinds.len();
    let default = |level: usize| {
        if levels - level <= 1 {
            Accumulator::Dense
        } else {
            Accumulator::Hash
        }
    };
    if let Some(s) = &k.schedule {
        let level = schedule_level(k, s).ok()?;
        return Some(Placement {
            level,
            kind: s.kind.unwrap_or(default(level)),
        });
    }
    if k.in_place_output() || direct_order_exists(k) || conversion_applies(k) {
        return None;
    }
    let level = workspace_levels(k).into_iter().max()?;
    Some(Placement {
        level,
        kind: default(level),
    })
}

/// A sparse access with fill value 0 under the right operand of `/` (a nonzero fill value
/// makes a sparse divisor legal).
fn has_sparse_divisor(k: &Kernel, e: &Expr, below_divisor: bool) -> bool {
    match e {
        Expr::Access { param, .. } => {
            let p = &k.params[*param];
            below_divisor
                && !p.format().is_some_and(Format::all_dense)
                && p.fill.as_ref().is_none_or(|f| f.value == Fill::ZERO)
        }
        Expr::Bin(op, l, r) => {
            has_sparse_divisor(k, l, below_divisor)
                || has_sparse_divisor(k, r, below_divisor || *op == Op::Div)
        }
        other => other
            .children()
            .into_iter()
            .any(|c| has_sparse_divisor(k, c, below_divisor)),
    }
}

/// "u before w" constraints over index variables.
struct Constraints {
    n: usize,
    edges: BTreeSet<(usize, usize)>,
}

impl Constraints {
    fn new(n: usize) -> Self {
        Constraints {
            n,
            edges: BTreeSet::new(),
        }
    }

    fn before(&mut self, u: usize, w: usize) {
        self.edges.insert((u, w));
    }

    /// Some permutation satisfies every constraint (the graph is acyclic; a self-edge is a
    /// cycle).
    fn satisfiable(&self) -> bool {
        let mut indeg = vec![0usize; self.n];
        for &(_, w) in &self.edges {
            indeg[w] += 1;
        }
        let mut ready: Vec<usize> = (0..self.n).filter(|&v| indeg[v] == 0).collect();
        let mut done = 0;
        while let Some(u) = ready.pop() {
            done += 1;
            for &(a, w) in &self.edges {
                if a == u {
                    indeg[w] -= 1;
                    if indeg[w] == 0 {
                        ready.push(w);
                    }
                }
            }
        }
        done == self.n
    }
}

/// Rule (a): in every access, the variable of each level without locate comes after the
/// variables of all levels above it.
fn access_constraints(k: &Kernel, p: &Placed, c: &mut Constraints) {
    match p {
        Placed::Access { param, vars } => {
            let f = k.params[*param]
                .format()
                .expect("accesses name tensor parameters");
            storage_order_constraints(f, vars, false, c);
        }
        Placed::Neg(b) | Placed::Sum(_, b) | Placed::Reduce(_, _, b) => access_constraints(k, b, c),
        Placed::Bin(_, l, r) => {
            access_constraints(k, l, c);
            access_constraints(k, r, c);
        }
        Placed::Call(_, args) => args.iter().for_each(|a| access_constraints(k, a, c)),
        Placed::Scalar { .. } | Placed::Lit(_) => {}
    }
}

/// Constraints of one access (or of a sparse output when `every`): `vars` has a variable per
/// mode of the stored view. A remapped output (refused as unassemblable anyway) has variables
/// only for its logical modes; its hidden levels are skipped.
fn storage_order_constraints(f: &Format, vars: &[usize], every: bool, c: &mut Constraints) {
    for (level, kind) in f.kinds.iter().enumerate() {
        let Some(&w) = vars.get(f.modes[level]) else {
            continue;
        };
        if every || !kind.locate() {
            for &m in &f.modes[..level] {
                if let Some(&u) = vars.get(m) {
                    c.before(u, w);
                }
            }
        }
    }
}

/// Rule (b): every variable bound around a sum (or a reduction) comes before the sum's
/// variables.
fn nested_sum_constraints(p: &Placed, bound: &BTreeSet<usize>, c: &mut Constraints) {
    let nest = |vs: &[usize], b: &Placed, c: &mut Constraints| {
        for &u in bound {
            for &w in vs {
                c.before(u, w);
            }
        }
        let mut inner = bound.clone();
        inner.extend(vs.iter().copied());
        nested_sum_constraints(b, &inner, c);
    };
    match p {
        Placed::Sum(vs, b) => nest(vs, b, c),
        Placed::Reduce(_, v, b) => nest(&[*v], b, c),
        Placed::Neg(b) => nested_sum_constraints(b, bound, c),
        Placed::Bin(_, l, r) => {
            nested_sum_constraints(l, bound, c);
            nested_sum_constraints(r, bound, c);
        }
        Placed::Call(_, args) => args
            .iter()
            .for_each(|a| nested_sum_constraints(a, bound, c)),
        Placed::Access { .. } | Placed::Scalar { .. } | Placed::Lit(_) => {}
    }
}

/// One additive term `Σ_R f1 * f2 * ...` of a dense or scalar output's right side.
pub struct Term<'a> {
    /// The root sum's variables (with those of sums hoisted out of its factors).
    pub root: BTreeSet<usize>,
    /// Its factors: leaves, quotients, or products of them.
    pub factors: Vec<&'a Placed>,
}

/// Splits a placed right side into additive terms: through `+`, `-`, unary minus and root
/// sums (merging nested root sums), and through products, distributed over the terms of their
/// factors (`(a + b) * c` is `a * c + b * c`; a sum inside a factor moves to the product's
/// root, unless it covers its dimensions: then it stays a factor, as in the compiler, since
/// over an empty dimension it is present). Quotients are not distributed, nor a product
/// whose copied factor may be infinite ([`may_be_infinite`]): it stays one term.
pub fn terms<'p>(k: &Kernel, p: &'p Placed) -> Vec<Term<'p>> {
    terms_in(k, p, false)
}

fn terms_in<'p>(k: &Kernel, p: &'p Placed, in_product: bool) -> Vec<Term<'p>> {
    match p {
        Placed::Bin(Op::Add | Op::Sub, l, r) => {
            let mut t = terms_in(k, l, in_product);
            t.extend(terms_in(k, r, in_product));
            t
        }
        Placed::Neg(b) => terms_in(k, b, in_product),
        Placed::Sum(vs, b) if !(in_product && crate::reference::covers(k, p)) => {
            terms_in(k, b, in_product)
                .into_iter()
                .map(|mut t| {
                    t.root.extend(vs.iter().copied());
                    t
                })
                .collect()
        }
        Placed::Bin(Op::Mul, l, r) => {
            let left = terms_in(k, l, true);
            let right = terms_in(k, r, true);
            // A factor copied into several terms must be finite where the data are.
            let copies = |t: &[Term<'_>]| t.len() > 1 || t.iter().any(|t| !t.root.is_empty());
            if (copies(&left) && may_be_infinite(k, r)) || (copies(&right) && may_be_infinite(k, l))
            {
                return vec![Term {
                    root: BTreeSet::new(),
                    factors: vec![p],
                }];
            }
            let mut product = Vec::new();
            for a in left {
                for b in &right {
                    product.push(Term {
                        root: a.root.union(&b.root).copied().collect(),
                        factors: a.factors.iter().chain(&b.factors).copied().collect(),
                    });
                }
            }
            product
        }
        other => vec![Term {
            root: BTreeSet::new(),
            factors: vec![other],
        }],
    }
}

/// Whether a factor may be infinite although every stored value is finite: an operand filled
/// with an infinity, a quotient (by 0), a function, or a reduction other than a sum (`min`
/// over an empty dimension). [`terms`] does not distribute a product over such a factor:
/// `(a - b) * inf` is `inf` where `a > b`, `a * inf - b * inf` is NaN.
fn may_be_infinite(k: &Kernel, p: &Placed) -> bool {
    match p {
        Placed::Access { param, .. } => k.params[*param]
            .fill
            .as_ref()
            .is_some_and(|f| matches!(f.value, Fill::Inf | Fill::NegInf)),
        Placed::Scalar { .. } | Placed::Lit(_) => false,
        Placed::Neg(b) | Placed::Sum(_, b) => may_be_infinite(k, b),
        Placed::Bin(Op::Div, ..) | Placed::Call(..) | Placed::Reduce(..) => true,
        Placed::Bin(_, l, r) => may_be_infinite(k, l) || may_be_infinite(k, r),
    }
}

/// Whether the additive terms of a dense output must also agree on one order of the output
/// variables. The language definition says no (each term needs an order of its own); the
/// compiler's statement splitting and its UI test `loop_order_cycle` (`a(i, j) = b(i, j) +
/// c(j, i)`, `a` dense, `b` and `c` CSR: refused) say yes. Flip this to check the compiler
/// against the stricter rule.
pub const DENSE_TERMS_SHARE_OUTPUT_ORDER: bool = false;

/// Whether a loop order exists (see the acceptance rules in `TESTING.md`).
pub fn has_loop_order(k: &Kernel) -> bool {
    has_loop_order_with(k, DENSE_TERMS_SHARE_OUTPUT_ORDER)
}

/// [`has_loop_order`], with or without the requirement that the terms of a dense output agree
/// on the order of the output variables.
pub fn has_loop_order_with(k: &Kernel, shared_output_order: bool) -> bool {
    if !k.in_place_output() {
        return direct_order_exists(k) || !workspace_levels(k).is_empty();
    }
    let (k, hidden) = &with_hidden_vars(k);
    let placed = place_with_hidden(k, hidden);
    let out: BTreeSet<usize> = k.out_vars.iter().copied().collect();
    let terms = terms(k, &placed);
    if !splits(k, &terms) {
        return whole_constraints(k, &placed, &out).satisfiable();
    }
    let graphs: Vec<Constraints> = terms.iter().map(|t| term_constraints(k, t, &out)).collect();
    if !shared_output_order {
        return graphs.iter().all(Constraints::satisfiable);
    }
    // Some order of the output variables extends to an order of every term.
    permutations(&k.out_vars).iter().any(|perm| {
        graphs.iter().all(|g| {
            let mut g = Constraints {
                n: g.n,
                edges: g.edges.clone(),
            };
            for w in perm.windows(2) {
                g.before(w[0], w[1]);
            }
            g.satisfiable()
        })
    })
}

/// Formats held in a runtime struct (a view with modes the user does not index, or levels
/// sharing one array): the compiler never converts them.
const STRUCT_HELD: &[&str] = &["Dia", "CooAos", "Bcsr", "Csb"];

/// Rule (e), operand conversion: without a schedule, when no loop order traverses every
/// operand in storage order (no direct order for an appended output, nor a workspace below
/// loops over its outer levels, a level above 0; for an output written in place, no order of
/// rules (a) and (b)), the compiler converts one input, else two, into its own levels in
/// another mode order, if that gives such an order (ahead of a workspace of the whole output).
/// Convertible: an input of order 2 or more, not the output, not held in a struct. Never for
/// a product-like kernel (a summed variable, a remapped format's hidden ones included, and
/// two output variables no input access indexes together), whose orders without a workspace
/// are inner products.
pub fn conversion_applies(k: &Kernel) -> bool {
    if k.is_sequence() {
        return k.steps().iter().any(conversion_applies);
    }
    if k.schedule.is_some() || product_like(k) {
        return false;
    }
    let ordered = |k: &Kernel| {
        if k.in_place_output() {
            has_loop_order(k)
        } else {
            direct_order_exists(k)
        }
    };
    if ordered(k) || workspace_levels(k).iter().any(|&m| m > 0) {
        return false;
    }
    let mut inputs: Vec<usize> = Vec::new();
    accessed_params(&k.rhs, &mut inputs);
    inputs.retain(|&p| {
        p != k.out
            && k.params[p].format().is_some_and(|f| {
                f.order() >= 2
                    && f.hidden == 0
                    && !matches!(f.spelling, crate::format::Spelling::Alias { name, .. } if STRUCT_HELD.contains(&name))
            })
    });
    // The temporary: the input's own levels in another mode order if they store exactly any
    // coordinates (every singleton below a non-unique level, and no dense level below a
    // sparse one, unless all are dense), else compressed levels.
    let reordered = |k: &Kernel, p: usize| -> Vec<Kernel> {
        let f = k.params[p].format().expect("a tensor");
        let universal = f.all_dense() || f.stores_any_entries_exactly();
        permutations(&f.modes)
            .into_iter()
            .filter(|m| *m != f.modes)
            .map(|modes| {
                let mut out = k.clone();
                if let ParamKind::Input(f) = &mut out.params[p].kind {
                    f.modes = modes;
                    if !universal {
                        f.kinds.iter_mut().for_each(|kind| *kind = Kind::Compressed);
                    }
                }
                out
            })
            .collect()
    };
    for &p in &inputs {
        if reordered(k, p).iter().any(ordered) {
            return true;
        }
    }
    for (a, &p) in inputs.iter().enumerate() {
        for &q in &inputs[a + 1..] {
            if reordered(k, p)
                .iter()
                .any(|kp| reordered(kp, q).iter().any(ordered))
            {
                return true;
            }
        }
    }
    false
}

/// See [`conversion_applies`].
fn product_like(k: &Kernel) -> bool {
    let (k, _) = &with_hidden_vars(k);
    let mut accesses: Vec<(usize, Vec<usize>)> = Vec::new();
    collect_accesses(&k.rhs, &mut accesses);
    let used: BTreeSet<usize> = accesses
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    let sums = used.iter().any(|v| !k.out_vars.contains(v));
    let shared = |u: usize, w: usize| {
        accesses
            .iter()
            .any(|(p, vars)| *p != k.out && vars.contains(&u) && vars.contains(&w))
    };
    let out = &k.out_vars;
    sums && out
        .iter()
        .enumerate()
        .any(|(n, &u)| out[n + 1..].iter().any(|&w| u != w && !shared(u, w)))
}

fn collect_accesses(e: &Expr, out: &mut Vec<(usize, Vec<usize>)>) {
    e.visit(&mut |x| {
        if let Expr::Access { param, vars } = x {
            out.push((*param, vars.clone()));
        }
    });
}

/// The parameters `e` accesses, each once, in order of first access.
fn accessed_params(e: &Expr, out: &mut Vec<usize>) {
    e.visit(&mut |x| {
        if let Expr::Access { param, .. } = x {
            if !out.contains(param) {
                out.push(*param);
            }
        }
    });
}

/// Rule (c): one order of a sparse output's term (root sum nested) that follows the output's
/// storage order, so the output is appended directly.
fn direct_order_exists(k: &Kernel) -> bool {
    let (k, hidden) = &with_hidden_vars(k);
    let placed = place_with_hidden(k, hidden);
    let out: BTreeSet<usize> = k.out_vars.iter().copied().collect();
    let mut c = Constraints::new(k.n_vars());
    access_constraints(k, &placed, &mut c);
    nested_sum_constraints(&placed, &out, &mut c);
    let f = k.out_format().expect("a sparse output has a format");
    storage_order_constraints(f, &k.out_vars, true, &mut c);
    c.satisfiable()
}

/// Rules (a) and (b) for one additive term of an output written in place (its root sum free).
fn term_constraints(k: &Kernel, t: &Term<'_>, out: &BTreeSet<usize>) -> Constraints {
    let mut c = Constraints::new(k.n_vars());
    let mut bound = out.clone();
    bound.extend(t.root.iter().copied());
    for f in &t.factors {
        access_constraints(k, f, &mut c);
        nested_sum_constraints(f, &bound, &mut c);
    }
    c
}

/// Rule (d), workspaces: the output storage levels `m` at which a sparse output can be
/// appended through a workspace. None when its last level is `Dense` (a dense block at its
/// bottom); otherwise every `m` for which every additive term of the right side (split as for
/// an output written in place, its root sum free) has an order satisfying (a) and (b) that
/// starts with the variables of the output's levels above `m`, in storage order.
pub fn workspace_levels(k: &Kernel) -> Vec<usize> {
    let Some(f) = k.out_format() else {
        return Vec::new();
    };
    if k.in_place_output() || f.kinds.last() == Some(&Kind::Dense) {
        return Vec::new();
    }
    // A remapped output (refused as unassemblable) has no variables for its hidden modes.
    let Some(storage) = f
        .modes
        .iter()
        .map(|&m| k.out_vars.get(m).copied())
        .collect::<Option<Vec<usize>>>()
    else {
        return Vec::new();
    };
    let (k, hidden) = &with_hidden_vars(k);
    let placed = place_with_hidden(k, hidden);
    let out: BTreeSet<usize> = k.out_vars.iter().copied().collect();
    let terms = terms(k, &placed);
    let split = splits(k, &terms);
    (0..storage.len())
        .filter(|&m| {
            let outer = &storage[..m];
            let after_outer = |mut c: Constraints| {
                for w in outer.windows(2) {
                    c.before(w[0], w[1]);
                }
                if let Some(&last) = outer.last() {
                    for v in (0..k.n_vars()).filter(|v| !outer.contains(v)) {
                        c.before(last, v);
                    }
                }
                c.satisfiable()
            };
            if !split {
                return after_outer(whole_constraints(k, &placed, &out));
            }
            terms
                .iter()
                .all(|t| after_outer(term_constraints(k, t, &out)))
        })
        .collect()
}

/// Whether the compiler may compute the additive terms of a statement written in place (or
/// into a workspace) in loop nests of their own, accumulating: only when every term is zero
/// outside its own loops, i.e. its fill value is NONE or decided to be 0
/// ([`crate::reference::zero_outside`]); a term filled with 2 would contribute everywhere,
/// which its nest does not visit. The old contents of an output of `+=` that the compiler
/// reads as a term (`y = y_old + e`: into an appended output, or where the right side's fill
/// value or the output's is not 0) have the output's fill value.
fn splits(k: &Kernel, terms: &[Term<'_>]) -> bool {
    if old_output_term(k)
        && k.params[k.out]
            .fill
            .as_ref()
            .is_some_and(|f| f.value != Fill::ZERO)
    {
        return false;
    }
    terms.iter().all(|t| {
        let mut factors = t.factors.iter().map(|&f| f.clone());
        let Some(first) = factors.next() else {
            return true;
        };
        let product = factors.fold(first, |a, b| Placed::Bin(Op::Mul, Box::new(a), Box::new(b)));
        let term = if t.root.is_empty() {
            product
        } else {
            Placed::Sum(t.root.iter().copied().collect(), Box::new(product))
        };
        crate::reference::zero_outside(k, &term)
    })
}

/// Whether the compiler reads a tensor output's old contents as an additive term of its right
/// side: `+=` into an appended output, or into one written in place where the right side's
/// fill value or the output's is not decided to be 0.
fn old_output_term(k: &Kernel) -> bool {
    if !k.accumulate || k.out_format().is_none() {
        return false;
    }
    let zero_out = k.params[k.out]
        .fill
        .as_ref()
        .is_none_or(|f| f.value == Fill::ZERO);
    let zero_rhs =
        crate::reference::rhs_fill(k) == Some(0.0) && crate::reference::fill_plainly_constant(k);
    !(k.in_place_output() && zero_out && zero_rhs)
}

/// Rules (a) and (b) for the whole statement as one loop nest, when it is not split into its
/// terms: only a sum at the root of the right side runs free (and none when the output's old
/// contents are added at the root).
fn whole_constraints(k: &Kernel, placed: &Placed, out: &BTreeSet<usize>) -> Constraints {
    let mut c = Constraints::new(k.n_vars());
    access_constraints(k, placed, &mut c);
    let old = old_output_term(k);
    if old {
        // `y_old`, an access of the output's own format in the same nest.
        let f = k.out_format().expect("a tensor output");
        storage_order_constraints(f, &k.out_vars, false, &mut c);
    }
    let mut bound = out.clone();
    match placed {
        Placed::Sum(vs, body) if !old => {
            bound.extend(vs.iter().copied());
            nested_sum_constraints(body, &bound, &mut c);
        }
        p => nested_sum_constraints(p, &bound, &mut c),
    }
    c
}

/// The kernel as its loops see it: every access of a remapped format (`Dia`, `Bcsr`, `Csb`)
/// also indexes each of the view's hidden modes (`Format::hidden` of them, after the logical
/// modes), with a fresh variable per hidden mode that no other access uses, and the set of
/// those hidden variables (placed by [`place_with_hidden`]).
pub fn with_hidden_vars(k: &Kernel) -> (Kernel, BTreeSet<usize>) {
    let mut out = k.clone();
    out.rhs = add_hidden(&k.rhs, k, &mut out.var_names);
    let hidden = (k.var_names.len()..out.var_names.len()).collect();
    (out, hidden)
}

fn add_hidden(e: &Expr, k: &Kernel, names: &mut Vec<String>) -> Expr {
    match e {
        Expr::Access { param, vars } => {
            let mut vars = vars.clone();
            let hidden = k.params[*param].format().map_or(0, |f| f.hidden);
            for _ in 0..hidden {
                vars.push(names.len());
                names.push(format!("hidden{}", names.len()));
            }
            Expr::Access {
                param: *param,
                vars,
            }
        }
        Expr::Neg(x) => Expr::Neg(Box::new(add_hidden(x, k, names))),
        Expr::Paren(x) => Expr::Paren(Box::new(add_hidden(x, k, names))),
        Expr::Bin(op, l, r) => Expr::bin(*op, add_hidden(l, k, names), add_hidden(r, k, names)),
        Expr::Call { func, args } => Expr::Call {
            func: *func,
            args: args.iter().map(|a| add_hidden(a, k, names)).collect(),
        },
        Expr::Reduce { by, var, body } => Expr::reduce(*by, *var, add_hidden(body, k, names)),
        other => other.clone(),
    }
}

fn permutations(xs: &[usize]) -> Vec<Vec<usize>> {
    if xs.len() <= 1 {
        return vec![xs.to_vec()];
    }
    let mut out = Vec::new();
    for (i, &x) in xs.iter().enumerate() {
        let mut rest = xs.to_vec();
        rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

/// Whether parameter `p` is a tensor input.
pub fn is_input(k: &Kernel, p: usize) -> bool {
    matches!(k.params[p].kind, ParamKind::Input(_))
}
