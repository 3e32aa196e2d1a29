//! Statement splitting (a sequence of loop nests in concrete index notation): a sum at the root
//! of a dense or scalar output's right side may run outside the output's loops, the output
//! accumulating across its iterations. When a statement has several additive terms, each with
//! its own sums, no single loop order may suit every term; then the right side is split into
//! its additive terms (sums and products distributed over the additions below them, `Σ_i (a +
//! b) = Σ_i a + Σ_i b` and `(a + b) * c = a * c + b * c`, and nested sums merged, `Σ_i Σ_k e =
//! Σ_{i,k} e`), and the terms are grouped (first
//! fit) into loop nests that each have an order, computed one after the other: the first nest writes
//! the output (`=` or `+=`), every later nest adds to it. This is sound because the output is
//! linear in its terms and an output whose levels all insert (dense, or dense rows of a hash
//! table) can be written and accumulated in any order.
//!
//! Examples: `r(i) = b(i) - A(i,j) * x(j)` with `A` in CSC walks `b` by rows, then `A` by
//! columns; `s = x(i) + a(k, i)` with `a` in CSR sums `x`, then walks `a` by rows; `y(i) =
//! (A(i,j) + D(i,j)) * x(j)` with `D` a `Dia` walks `A` by rows, then `D` diagonal by diagonal.
//! Distributing changes only the rounding of floating-point results (and, for integers, which
//! intermediate can overflow), as any reassociation of a sum does, as long as the factor it
//! copies into several terms is finite: a factor the kernel itself may make infinite (a
//! quotient, a function, a `min` or `max` reduction, an infinite fill) is never copied. An
//! infinite *stored* value in a copied factor can still turn `(a - b) * inf = inf` into
//! `a * inf - b * inf = NaN`; the guide says so.

use crate::algebra::Constant;
use crate::diagnostic::Diagnostics;
use crate::iteration_graph::loop_order_after;
use crate::notation::{AssignOp, BinOp, Expr, Kernel, VarId};

/// One loop nest of the kernel: the statement it computes and its loop order.
pub struct Part {
    /// The kernel with this part's right side and assignment.
    pub kernel: Kernel,
    /// Index variables in loop order.
    pub order: Vec<VarId>,
}

/// The loop nests that compute `kernel`: one when an order exists, else groups of its terms.
/// Reports the diagnostic of a term no order can traverse when no split helps.
pub fn parts(kernel: &Kernel, diags: &mut Diagnostics) -> Option<Vec<Part>> {
    parts_after(kernel, &[], diags)
}

/// [`parts`] for nests that run inside loops over `outer` (in that order), as a workspace's
/// do (`crate::workspace`): every nest's order starts with `outer`.
pub fn parts_after(kernel: &Kernel, outer: &[VarId], diags: &mut Diagnostics) -> Option<Vec<Part>> {
    if let Some(order) = loop_order_after(kernel, outer, &mut Diagnostics::default()) {
        return Some(vec![Part {
            kernel: kernel.clone(),
            order,
        }]);
    }
    let mut terms: Vec<Expr> = if kernel.output_in_place() {
        additive_terms(kernel, kernel.rhs.clone())
    } else {
        Vec::new()
    };
    // The output is the sum of its terms' nests only where each term is zero outside its
    // own loops: one whose fill value is not zero (an operand filled with 2, a function
    // mapping zeros to ones) contributes everywhere.
    // (A term without a fill value is present everywhere: its nest visits every point.)
    let zero = |t: &Expr| match crate::algebra::fill_of(kernel, t) {
        None => true,
        Some(Expr::Const(c)) => c.is_zero(),
        Some(_) => false,
    };
    if !terms.iter().all(zero) {
        terms.clear();
    }
    if terms.is_empty() {
        loop_order_after(kernel, outer, diags);
        return None;
    }
    // A term no order traverses is the error, reported at its access.
    for term in &terms {
        if ordered(kernel, term, outer).is_none() {
            let mut k = kernel.clone();
            k.rhs = term.clone();
            loop_order_after(&k, outer, diags);
            return None;
        }
    }
    Some(group_terms(kernel, terms, outer))
}

/// Groups terms into as few nests as a first fit finds: each term joins the first group that
/// one order still traverses with it, else starts a group. The output accumulates, so terms
/// may be regrouped freely; every term has an order of its own, so every group does.
fn group_terms(kernel: &Kernel, terms: Vec<Expr>, outer: &[VarId]) -> Vec<Part> {
    let mut groups: Vec<(Expr, Vec<VarId>)> = Vec::new();
    for term in terms {
        let joined = groups.iter_mut().find_map(|(g, order)| {
            let grown = Expr::binary(BinOp::Add, g.clone(), term.clone());
            let grown_order = ordered(kernel, &grown, outer)?;
            *g = grown;
            *order = grown_order;
            Some(())
        });
        if joined.is_none() {
            let order = ordered(kernel, &term, outer).unwrap_or_default();
            groups.push((term, order));
        }
    }
    groups
        .into_iter()
        .enumerate()
        .map(|(n, (rhs, order))| part(kernel, rhs, order, n == 0))
        .collect()
}

fn ordered(kernel: &Kernel, rhs: &Expr, outer: &[VarId]) -> Option<Vec<VarId>> {
    let mut k = kernel.clone();
    k.rhs = rhs.clone();
    loop_order_after(&k, outer, &mut Diagnostics::default())
}

fn part(kernel: &Kernel, rhs: Expr, order: Vec<VarId>, first: bool) -> Part {
    let mut k = kernel.clone();
    k.rhs = rhs;
    if !first {
        k.op = AssignOp::AddAssign;
    }
    Part { kernel: k, order }
}

/// The additive terms of `e`, negated where they are subtracted, with every sum distributed
/// over the terms of its body, products distributed over the terms of their factors, and
/// nested sums merged, so each term is `Σ_R p` with `p` a product of leaves and quotients: its
/// sum is at its root, free to run outside the output's loops. Distributing a product is what
/// lets `(A(i,j) + B(i,j)) * x(j)` walk `A` and `B` in different orders, and a `Dia` operand
/// (summed over its diagonals inside the product) run its diagonals outermost. A sum inside a
/// factor moves to the product's root: `(Σ_R a) * b = Σ_R a * b`, since the summation rule
/// places a variable's sum around all of its uses, so `b` does not use `R`; except a sum
/// that covers its dimensions (its body's fill is not decided to be 0), which stays a factor:
/// over an empty dimension it is 0 *and present*, so the product is present wherever `b` is,
/// while `Σ_R a * b` would be absent there. Quotients are not distributed (integer division
/// is not linear), and neither is a product whose copied factor may be infinite
/// ([`may_be_infinite`]): it stays one term.
fn additive_terms(kernel: &Kernel, e: Expr) -> Vec<Expr> {
    terms(kernel, e, false)
        .into_iter()
        .map(Term::expr)
        .collect()
}

/// Whether distributing a product over `terms`, the terms of one factor, multiplies the
/// other factor into more than one term: several terms, or a sum moved to the root.
fn copies(terms: &[Term]) -> bool {
    terms.len() > 1 || terms.iter().any(|t| !t.vars.is_empty())
}

/// Whether `e` may be infinite where every stored value it reads is finite: it reads an
/// operand filled with an infinity or holds one, or a quotient (by 0), a function (the user's
/// values, or `exp` of a large argument), or a reduction other than a sum (`min` over an
/// empty dimension is `inf`). Such a factor is not distributed: `(a - b) * inf` is `inf` for
/// `a > b`, but `a * inf - b * inf` is NaN, and `0 * inf` is NaN where a sum moved out of the
/// product would add nothing. A finite factor distributes up to rounding.
fn may_be_infinite(kernel: &Kernel, e: &Expr) -> bool {
    match e {
        Expr::Access(a) => {
            let fill = &kernel.tensors[kernel.accesses[*a].tensor].fill;
            matches!(fill, Constant::Infinity { .. })
        }
        Expr::Const(c) => matches!(c, Constant::Infinity { .. }),
        Expr::Scalar(_) | Expr::Literal(_) => false,
        Expr::Neg(inner) | Expr::Sum(_, inner) => may_be_infinite(kernel, inner),
        Expr::Binary(BinOp::Div, ..) | Expr::Call(..) | Expr::Reduce(..) => true,
        Expr::Binary(_, l, r) => may_be_infinite(kernel, l) || may_be_infinite(kernel, r),
    }
}

/// One additive term: `±Σ_vars body`.
struct Term {
    negated: bool,
    vars: Vec<VarId>,
    body: Expr,
}

impl Term {
    /// `Σ_vars ±body`: the sum stays at the root, where the output's loops may nest in it.
    fn expr(self) -> Expr {
        let body = if self.negated {
            Expr::Neg(Box::new(self.body))
        } else {
            self.body
        };
        if self.vars.is_empty() {
            body
        } else {
            Expr::Sum(self.vars, Box::new(body))
        }
    }

    fn negate(mut self) -> Term {
        self.negated = !self.negated;
        self
    }
}

/// The terms of `e`, a factor of a product if `in_product`.
fn terms(kernel: &Kernel, e: Expr, in_product: bool) -> Vec<Term> {
    // A covering sum inside a product is a leaf (see `additive_terms`).
    let covering_factor =
        in_product && matches!(e, Expr::Sum(..)) && crate::algebra::fill_of(kernel, &e).is_none();
    match e {
        Expr::Binary(BinOp::Add, l, r) => {
            let mut t = terms(kernel, *l, in_product);
            t.extend(terms(kernel, *r, in_product));
            t
        }
        Expr::Binary(BinOp::Sub, l, r) => {
            let mut t = terms(kernel, *l, in_product);
            t.extend(terms(kernel, *r, in_product).into_iter().map(Term::negate));
            t
        }
        Expr::Neg(inner) => terms(kernel, *inner, in_product)
            .into_iter()
            .map(Term::negate)
            .collect(),
        Expr::Sum(vars, body) if !covering_factor => terms(kernel, *body, in_product)
            .into_iter()
            .map(|mut t| {
                t.vars.splice(0..0, vars.iter().copied());
                t
            })
            .collect(),
        Expr::Binary(BinOp::Mul, l, r) => {
            let left = terms(kernel, (*l).clone(), true);
            let right = terms(kernel, (*r).clone(), true);
            if (copies(&left) && may_be_infinite(kernel, &r))
                || (copies(&right) && may_be_infinite(kernel, &l))
            {
                return vec![Term {
                    negated: false,
                    vars: Vec::new(),
                    body: Expr::Binary(BinOp::Mul, l, r),
                }];
            }
            let mut product = Vec::new();
            for a in left {
                for b in &right {
                    product.push(Term {
                        negated: a.negated != b.negated,
                        vars: a.vars.iter().chain(&b.vars).copied().collect(),
                        body: Expr::binary(BinOp::Mul, a.body.clone(), b.body.clone()),
                    });
                }
            }
            product
        }
        leaf_or_quotient => vec![Term {
            negated: false,
            vars: Vec::new(),
            body: leaf_or_quotient,
        }],
    }
}
