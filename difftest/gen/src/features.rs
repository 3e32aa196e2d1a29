//! Kernels of sparse array programming (Henry et al. 2021): fill values on sparse inputs,
//! calls of the prelude and of functions declared in the kernel's block, reductions by
//! monoids, semirings and masks. Half of the single-statement seeds
//! ([`crate::generate::P_FEATURE`]) draw such a kernel from a stream of their own
//! ([`crate::generate::FEATURE_STREAM`]); the other seeds keep the kernels they had.
//!
//! Shapes (template weights in [`TEMPLATES`]):
//!
//! - `featurized`: a kernel of the other generator (its templates and decorations), rewritten
//!   once or twice: a subexpression wrapped in a unary call (`abs`, `not`, `exp`,
//!   `sqrt(abs(..))`), or in a binary call with a new operand (`min(e, t(i))`, `lt(e, 2)`,
//!   `scale(e, s(i))`, ...), or in an explicit reduction over a variable only it uses;
//! - `tropical`: min-plus products and relaxations (`min[j](plus(a(i, j), x(j)))`), pairwise
//!   and reduced `min`/`max` over tensors filled with `inf`/`-inf`;
//! - `boolean`: `any[j](and(a(i, j), x(j)))`, a BFS step with a complemented mask, `all`,
//!   `and(xor(a, b), c)`;
//! - `mask`: `unless(e, m(..))` (the structural `iterate(x & !m)`), `and(e, not(m(..)))`;
//! - `calls`: element-wise calls (nested, unary, over operators, with Einstein sums around or
//!   inside them);
//! - `reduce`: `R[j](e)` for every reducer, nested reductions, reductions in arithmetic;
//! - `random`: random trees with calls and reductions.
//!
//! Infinite fill values only reach `min`, `max`, `plus` and their reductions (where the
//! definition stays free of `inf * 0`); `sqrt`, `pow` and `gcd` only see fills that are not
//! negative; a divisor's fill value is positive (or 0, a deliberate `divisor` refusal).

use crate::functions::{Fill, FillAttr, Func, Reducer};
use crate::generate::{Gen, SCHEDULE_STREAM, SUBTRACT_STREAM};
use crate::kernel::{Expr, Kernel, Op, ParamKind, ValTy};
use crate::rng::{mix, Rng};

/// Fill values, as bits of a set (`FillSet`): which fill values an operand may get.
pub const F_ZERO: u8 = 1;
/// 1.
pub const F_ONE: u8 = 2;
/// -1.
pub const F_NEG_ONE: u8 = 4;
/// 2.5 (floats) or 2 (integers).
pub const F_TWO: u8 = 8;
/// `inf`.
pub const F_INF: u8 = 16;
/// `-inf`.
pub const F_NEG_INF: u8 = 32;
/// Every fill value: a parameter's set before its accesses narrow it.
pub const ALL: u8 = 63;
/// The finite fill values.
pub const FINITE: u8 = F_ZERO | F_ONE | F_NEG_ONE | F_TWO;
/// Not negative (`sqrt`, `pow`, `gcd`).
pub const NONNEG: u8 = F_ZERO | F_ONE | F_TWO;
/// Positive (a sparse divisor's).
pub const POSITIVE: u8 = F_ONE | F_TWO;
/// Under `min` or `plus`, whose identity or annihilator `inf` is.
pub const MIN_SIDE: u8 = FINITE | F_INF;
/// Under `max`.
pub const MAX_SIDE: u8 = FINITE | F_NEG_INF;

/// Weights of drawing each fill value (among those a set allows): mostly 0, and `inf` /
/// `-inf` often where they are allowed.
const FILL_WEIGHTS: [(u8, u32); 6] = [
    (F_ZERO, 40),
    (F_ONE, 14),
    (F_NEG_ONE, 8),
    (F_TWO, 10),
    (F_INF, 36),
    (F_NEG_INF, 36),
];

/// Probability that a sparse divisor gets fill value 0 (refused: `divisor`) rather than a
/// positive one.
pub const P_ZERO_FILLED_DIVISOR: f64 = 0.15;
/// Probability that a sparse input whose drawn fill value is 0 declares it (`#[fill(0)]`).
pub const P_DECLARE_ZERO: f64 = 0.1;
/// Probability that a sparse output declares its fill value (only where the right side's
/// fill value is plainly a constant: the compiler refuses a declaration otherwise).
pub const P_DECLARE_OUTPUT_FILL: f64 = 0.2;

/// Template weights: featurized, tropical, boolean, mask, calls, reduce, random.
pub const TEMPLATES: [u32; 7] = [30, 12, 10, 8, 18, 14, 8];

/// The kernel of `seed`, drawn from the feature stream `rng`.
pub(crate) fn kernel(seed: u64, rng: Rng) -> Kernel {
    let mut g = Gen::new(rng);
    g.feature = true;
    g.vt = [ValTy::F64, ValTy::F32, ValTy::I64][g.rng.weighted(&[5, 1, 3])];
    let (template, hint, rhs) = g.feature_template();
    let mut k = g.finish(seed, template, hint, rhs);
    k.schedule = crate::generate::schedule(&mut Rng::new(mix(seed, SCHEDULE_STREAM)), &k);
    k.subtract =
        k.accumulate && Rng::new(mix(seed, SUBTRACT_STREAM)).chance(crate::generate::P_SUBTRACT);
    // `-=` negates the right side: an integer infinity (`i64::MIN`) would overflow, so an
    // integer kernel with an infinite fill value adds instead.
    let infinite = |p: &crate::kernel::Param| {
        p.fill
            .as_ref()
            .is_some_and(|f| matches!(f.value, Fill::Inf | Fill::NegInf))
    };
    if k.vt == ValTy::I64 && k.params.iter().any(infinite) {
        k.subtract = false;
    }
    k
}

/// The fill value a bit stands for, in value type `vt`.
fn fill_of_bit(bit: u8, vt: ValTy) -> Fill {
    match bit {
        F_ZERO => Fill::ZERO,
        F_ONE => Fill::ONE,
        F_NEG_ONE => Fill::Num(-1.0),
        F_TWO if vt.is_float() => Fill::Num(2.5),
        F_TWO => Fill::Num(2.0),
        F_INF => Fill::Inf,
        _ => Fill::NegInf,
    }
}

/// A fill value as the generator would write it in `#[fill(..)]` or read it back from the
/// definition's fill value of an expression (`None` for a value it does not write).
fn fill_from_value(v: f64, vt: ValTy) -> Option<Fill> {
    if vt == ValTy::I64 && v == i64::MAX as f64 || v == f64::INFINITY {
        return Some(Fill::Inf);
    }
    if vt == ValTy::I64 && v == i64::MIN as f64 || v == f64::NEG_INFINITY {
        return Some(Fill::NegInf);
    }
    v.is_finite().then_some(Fill::Num(v))
}

impl Gen {
    /// An access of a new tensor whose fill value is drawn from `set`.
    fn fresh(&mut self, vars: &[usize], set: u8) -> Expr {
        let t = self.tensor(vars.len());
        self.fill_sets[t] = set;
        self.acc(t, vars)
    }

    /// A fresh access with a finite fill value.
    fn plain(&mut self, vars: &[usize]) -> Expr {
        self.fresh(vars, FINITE)
    }

    fn float(&self) -> bool {
        self.vt.is_float()
    }

    /// A literal of the value type, as written and valued.
    fn lit(&self, value: f64) -> Expr {
        let text = if self.float() {
            format!("{value:?}")
        } else {
            format!("{}", value as i64)
        };
        Expr::Lit { text, value }
    }

    /// Distinct variables among `0..nv`, at least one.
    fn subset(&mut self, vars: &[usize]) -> Vec<usize> {
        let mut v = vars.to_vec();
        self.rng.shuffle(&mut v);
        let n = self.rng.range(1, v.len().max(1));
        v.truncate(n);
        v
    }

    /// A reducer for a body of any finite fill value.
    fn reducer(&mut self) -> Reducer {
        let all = [
            (Reducer::Sum, 3),
            (Reducer::Prod, 1),
            (Reducer::Min, 3),
            (Reducer::Max, 3),
            (Reducer::Any, 2),
            (Reducer::All, 1),
            (Reducer::Plus, 1),
        ];
        let choices: Vec<&(Reducer, u32)> =
            all.iter().filter(|(r, _)| r.supports(self.vt)).collect();
        let w: Vec<u32> = choices.iter().map(|c| c.1).collect();
        choices[self.rng.weighted(&w)].0
    }

    /// A binary function safe on any finite arguments (its result used anywhere).
    fn any_binary(&mut self) -> Func {
        let mut fs = vec![
            Func::Min,
            Func::Max,
            Func::And,
            Func::Or,
            Func::Xor,
            Func::Eq,
            Func::Ne,
            Func::Lt,
            Func::Le,
            Func::Gt,
            Func::Ge,
            Func::AbsDiff,
            Func::Skew,
            Func::Scale,
        ];
        if self.float() {
            fs.push(Func::Ldexp);
        } else {
            fs.extend([Func::Shl, Func::Shr]);
        }
        *self.rng.pick(&fs)
    }

    /// A unary call around `e` (its result finite where `e` is).
    fn unary(&mut self, e: Expr) -> Expr {
        let float = self.float();
        match self
            .rng
            .weighted(&[4, 3, if float { 2 } else { 0 }, if float { 2 } else { 0 }])
        {
            0 => Expr::call(Func::Abs, vec![e]),
            1 => Expr::call(Func::Not, vec![e]),
            2 if e.depth() <= 2 => Expr::call(Func::Exp, vec![e]),
            _ => Expr::call(Func::Sqrt, vec![Expr::call(Func::Abs, vec![e])]),
        }
    }

    /// A kernel shape of sparse array programming: (name, output order hint, right side).
    pub(crate) fn feature_template(&mut self) -> (&'static str, Option<usize>, Expr) {
        match self.rng.weighted(&TEMPLATES) {
            0 => {
                let (_, hint, rhs) = self.template();
                let rhs = self.decorate(rhs);
                let rhs = self.featurize(rhs);
                ("featurized", hint, rhs)
            }
            1 => self.tropical(),
            2 => self.boolean(),
            3 => self.mask(),
            4 => self.calls(),
            5 => self.reduce(),
            _ => {
                let nv = self.rng.range(1, 4);
                self.n_vars = self.n_vars.max(nv);
                let depth = self.rng.range(1, 3);
                let mut e = self.random_call_tree(depth, nv);
                if e.free_vars().is_empty() {
                    let vars = self.some_vars(1, nv);
                    let t = self.plain(&vars);
                    e = Expr::bin(Op::Mul, e, t);
                }
                ("fn-random", None, e)
            }
        }
    }

    /// Rewrites a kernel of the other generator once or twice with calls and reductions.
    fn featurize(&mut self, mut e: Expr) -> Expr {
        for _ in 0..self.rng.range(1, 2) {
            // Not inside a divisor: a call there could make it 0 (`not(v(j))`).
            let nodes = outside_divisors(&e);
            let at = *self.rng.pick(&nodes);
            let node = nth(&e, at).clone();
            let rewritten = match self.rng.weighted(&[3, 5, 3]) {
                0 => self.unary(node),
                1 => {
                    let vars: Vec<usize> = node.free_vars().into_iter().collect();
                    let f = self.any_binary();
                    let other = if vars.is_empty() || self.rng.chance(0.15) {
                        {
                            let v = [1.0, 2.0][self.rng.below(2)];
                            self.lit(v)
                        }
                    } else {
                        let vs = self.subset(&vars);
                        self.plain(&vs)
                    };
                    if self.rng.chance(0.6) {
                        Expr::call(f, vec![node, other])
                    } else {
                        Expr::call(f, vec![other, node])
                    }
                }
                _ => {
                    // An explicit reduction over a variable only this subexpression uses.
                    let reduced = e.reduced_vars();
                    let candidates: Vec<usize> = node
                        .free_vars()
                        .into_iter()
                        .filter(|v| !reduced.contains(v) && uses(&e, *v) == uses(&node, *v))
                        .collect();
                    if candidates.is_empty() {
                        self.unary(node)
                    } else {
                        let v = *self.rng.pick(&candidates);
                        let by = self.reducer();
                        Expr::reduce(by, v, node)
                    }
                }
            };
            e = replace_nth(e, at, &mut Some(rewritten));
        }
        e
    }

    fn tropical(&mut self) -> (&'static str, Option<usize>, Expr) {
        let (i, j, k) = (self.var(0), self.var(1), 2);
        let float = self.float();
        let which = if float {
            self.rng.weighted(&[4, 3, 2, 3, 3, 2])
        } else {
            3 + self.rng.below(3)
        };
        match which {
            0 => {
                // SpMV in the min-plus semiring.
                let a = self.fresh(&[i, j], MIN_SIDE);
                let x = self.fresh(&[j], MIN_SIDE);
                let body = Expr::call(Func::Plus, vec![a, x]);
                ("min-plus", Some(1), Expr::reduce(Reducer::Min, j, body))
            }
            1 => {
                // One Bellman-Ford relaxation: min(d(i), min_j w(i, j) + d(j)).
                let d = self.tensor(1);
                self.fill_sets[d] = MIN_SIDE;
                let w = self.fresh(&[i, j], MIN_SIDE);
                let dj = self.acc(d, &[j]);
                let di = self.acc(d, &[i]);
                let relaxed = Expr::reduce(Reducer::Min, j, Expr::call(Func::Plus, vec![w, dj]));
                ("relax", Some(1), Expr::call(Func::Min, vec![di, relaxed]))
            }
            2 => {
                self.var(k);
                let a = self.fresh(&[i, j], MIN_SIDE);
                let b = self.fresh(&[j, k], MIN_SIDE);
                let body = Expr::call(Func::Plus, vec![a, b]);
                ("min-plus-mm", Some(2), Expr::reduce(Reducer::Min, j, body))
            }
            3 => {
                // Pairwise min or max, possibly transposed.
                let (f, set) = if self.rng.chance(0.5) {
                    (Func::Min, MIN_SIDE)
                } else {
                    (Func::Max, MAX_SIDE)
                };
                let order = self.rng.range(1, 2);
                let vars: Vec<usize> = (0..order).map(|v| self.var(v)).collect();
                let a = self.fresh(&vars, set);
                let mut other = vars.clone();
                if self.rng.chance(0.2) {
                    other.reverse();
                }
                let b = self.fresh(&other, set);
                ("pairwise", Some(order), Expr::call(f, vec![a, b]))
            }
            4 => {
                // Rows or everything reduced by min or max.
                let (by, set) = if self.rng.chance(0.5) {
                    (Reducer::Min, MIN_SIDE)
                } else {
                    (Reducer::Max, MAX_SIDE)
                };
                let a = self.fresh(&[i, j], set);
                if self.rng.chance(0.3) {
                    let inner = Expr::reduce(by, j, a);
                    ("reduce-all", Some(0), Expr::reduce(by, i, inner))
                } else {
                    ("reduce-rows", Some(1), Expr::reduce(by, j, a))
                }
            }
            _ => {
                // max(min(a, b), c): min's inf meets max's -inf.
                let a = self.fresh(&[i, j], MIN_SIDE);
                let b = self.fresh(&[i, j], MIN_SIDE);
                let c = self.fresh(&[i, j], MAX_SIDE);
                let inner = Expr::call(Func::Min, vec![a, b]);
                ("min-max", Some(2), Expr::call(Func::Max, vec![inner, c]))
            }
        }
    }

    fn boolean(&mut self) -> (&'static str, Option<usize>, Expr) {
        let (i, j) = (self.var(0), self.var(1));
        let reached = |g: &mut Gen| {
            let graph = g.plain(&[i, j]);
            let frontier = g.plain(&[j]);
            Expr::reduce(
                Reducer::Any,
                j,
                Expr::call(Func::And, vec![graph, frontier]),
            )
        };
        match self.rng.below(6) {
            0 => ("bool-spmv", Some(1), reached(self)),
            1 => {
                let r = reached(self);
                let visited = self.plain(&[i]);
                let mask = Expr::call(Func::Not, vec![visited]);
                ("bfs", Some(1), Expr::call(Func::And, vec![r, mask]))
            }
            2 => {
                let r = reached(self);
                let visited = self.plain(&[i]);
                (
                    "bfs-unless",
                    Some(1),
                    Expr::call(Func::Unless, vec![r, visited]),
                )
            }
            3 => {
                let a = self.plain(&[i, j]);
                let b = self.plain(&[i, j]);
                let body = Expr::call(Func::Or, vec![a, b]);
                ("all-rows", Some(1), Expr::reduce(Reducer::All, j, body))
            }
            4 => {
                let a = self.plain(&[i, j]);
                let b = self.plain(&[i, j]);
                let c = self.plain(&[i, j]);
                let x = Expr::call(Func::Xor, vec![a, b]);
                ("and-xor", Some(2), Expr::call(Func::And, vec![x, c]))
            }
            _ => {
                let order = self.rng.range(1, 2);
                let vars: Vec<usize> = (0..order).collect();
                let a = self.plain(&vars);
                let b = self.plain(&vars);
                let f = [Func::Or, Func::Xor, Func::And][self.rng.below(3)];
                let na = Expr::call(Func::Not, vec![a]);
                ("bool-elementwise", Some(order), Expr::call(f, vec![na, b]))
            }
        }
    }

    fn mask(&mut self) -> (&'static str, Option<usize>, Expr) {
        let order = self.rng.range(1, 2);
        let vars: Vec<usize> = (0..order).map(|v| self.var(v)).collect();
        // The masked expression: no literal or scalar (its fill value must be a constant).
        let e = match self.rng.below(4) {
            0 => self.plain(&vars),
            1 => {
                let a = self.plain(&vars);
                let b = self.plain(&vars);
                Expr::bin(Op::Mul, a, b)
            }
            2 => {
                let a = self.plain(&vars);
                let b = self.plain(&vars);
                Expr::bin([Op::Add, Op::Sub][self.rng.below(2)], a, b)
            }
            _ => {
                // A product summed inside the mask's argument.
                let extra = self.var(order);
                let mut av = vars.clone();
                av.push(extra);
                let a = self.plain(&av);
                let x = self.plain(&[extra]);
                Expr::bin(Op::Mul, a, x)
            }
        };
        let mv = self.subset(&vars);
        let m = self.plain(&mv);
        if self.rng.chance(0.6) {
            ("unless", Some(order), Expr::call(Func::Unless, vec![e, m]))
        } else {
            let not = Expr::call(Func::Not, vec![m]);
            ("and-not", Some(order), Expr::call(Func::And, vec![e, not]))
        }
    }

    /// An argument of `f` at `pos` over `vars`, within the values `f` is drawn for.
    fn argument(&mut self, f: Func, pos: usize, vars: &[usize]) -> Expr {
        match (f, pos) {
            (Func::Pow, 1) if self.rng.chance(0.4) => {
                let e = if self.float() {
                    [2.0, 0.5, 3.0][self.rng.below(3)]
                } else {
                    [2.0, 3.0][self.rng.below(2)]
                };
                self.lit(e)
            }
            (Func::Pow | Func::Gcd | Func::Sqrt, _) => self.fresh(vars, NONNEG),
            (Func::Plus | Func::Min, _) => self.fresh(vars, MIN_SIDE),
            (Func::Max, _) => self.fresh(vars, MAX_SIDE),
            _ => self.plain(vars),
        }
    }

    fn calls(&mut self) -> (&'static str, Option<usize>, Expr) {
        let order = self.rng.range(1, 3);
        let vars: Vec<usize> = (0..order).map(|v| self.var(v)).collect();
        let mut fs: Vec<Func> = crate::functions::Func::ALL
            .iter()
            .copied()
            .filter(|f| f.arity() == 2 && f.supports(self.vt) && *f != Func::Unless)
            .collect();
        fs.retain(|f| *f != Func::Plus || self.rng.chance(0.5));
        let f = *self.rng.pick(&fs);
        let mut other = vars.clone();
        if order > 1 && self.rng.chance(0.2) {
            self.rng.shuffle(&mut other);
        }
        let einstein = self.rng.chance(0.25);
        let (av, bv) = if einstein {
            // A variable of one argument only is summed inside it; one of both, around the
            // call.
            let extra = self.var(order);
            let mut av = vars.clone();
            av.push(extra);
            let bv = if self.rng.chance(0.5) {
                vec![extra]
            } else {
                other.clone()
            };
            (av, bv)
        } else {
            (vars.clone(), other)
        };
        let a = self.argument(f, 0, &av);
        let b = self.argument(f, 1, &bv);
        let mut e = Expr::call(f, vec![a, b]);
        let safe = !matches!(f, Func::Plus | Func::Min | Func::Max);
        if safe && self.rng.chance(0.3) {
            let g = self.any_binary();
            let c = self.plain(&vars);
            e = if self.rng.chance(0.5) {
                Expr::call(g, vec![e, c])
            } else {
                Expr::call(g, vec![c, e])
            };
        }
        if safe && self.rng.chance(0.2) {
            e = self.unary(e);
        }
        if safe && self.rng.chance(0.25) {
            let c = self.plain(&vars);
            let op = [Op::Add, Op::Sub, Op::Mul][self.rng.below(3)];
            e = Expr::bin(op, e, c);
        }
        ("calls", Some(order), e)
    }

    fn reduce(&mut self) -> (&'static str, Option<usize>, Expr) {
        let (i, j, k) = (self.var(0), self.var(1), 2);
        if !self.float() && self.rng.chance(0.15) {
            // gcd of each row: non-negative operands only (its identity 0 holds there).
            let a = self.fresh(&[i, j], NONNEG);
            let e = if self.rng.chance(0.5) {
                Expr::reduce(Reducer::Gcd, j, a)
            } else {
                let b = self.fresh(&[i, j], NONNEG);
                Expr::reduce(Reducer::Sum, j, Expr::call(Func::Gcd, vec![a, b]))
            };
            return ("gcd", Some(1), e);
        }
        let by = self.reducer();
        let body = match self.rng.below(5) {
            0 => self.plain(&[i, j]),
            1 => {
                let a = self.plain(&[i, j]);
                let x = self.plain(&[j]);
                Expr::bin(Op::Mul, a, x)
            }
            2 => {
                let a = self.plain(&[i, j]);
                let b = self.plain(&[i, j]);
                Expr::bin([Op::Add, Op::Sub][self.rng.below(2)], a, b)
            }
            3 => {
                let f =
                    [Func::Min, Func::Max, Func::AbsDiff, Func::And, Func::Or][self.rng.below(5)];
                let a = self.plain(&[i, j]);
                let b = self.plain(&[j]);
                Expr::call(f, vec![a, b])
            }
            _ => {
                // An Einstein sum inside the body.
                self.var(k);
                let a = self.plain(&[i, j, k]);
                let x = self.plain(&[k]);
                Expr::bin(Op::Mul, a, x)
            }
        };
        let r = Expr::reduce(by, j, body);
        match self.rng.weighted(&[5, 2, 3]) {
            0 => ("reduce", Some(1), r),
            1 => {
                let outer = self.reducer();
                ("reduce-nested", Some(0), Expr::reduce(outer, i, r))
            }
            _ => {
                let b = self.plain(&[i]);
                let op = [Op::Add, Op::Sub, Op::Mul][self.rng.below(3)];
                let e = if self.rng.chance(0.5) {
                    Expr::bin(op, b, r)
                } else {
                    Expr::bin(op, r, b)
                };
                ("reduce-arith", Some(1), e)
            }
        }
    }

    /// A random tree over variables `0..nv` with operators, calls and reductions (each over a
    /// variable of its own).
    fn random_call_tree(&mut self, depth: usize, nv: usize) -> Expr {
        if depth == 0 || self.rng.chance(0.2) {
            return match self.rng.weighted(&[85, 15]) {
                0 => {
                    let order = self.rng.range(1, nv.min(3));
                    let vars = self.some_vars(order, nv);
                    self.plain(&vars)
                }
                _ => self.literal(false),
            };
        }
        match self.rng.weighted(&[30, 30, 12, 14]) {
            0 => {
                let op = [Op::Add, Op::Sub, Op::Mul][self.rng.weighted(&[3, 2, 4])];
                let l = self.random_call_tree(depth - 1, nv);
                let r = self.random_call_tree(depth - 1, nv);
                Expr::bin(op, l, r)
            }
            1 => {
                let f = self.any_binary();
                let l = self.random_call_tree(depth - 1, nv);
                let r = self.random_call_tree(depth - 1, nv);
                Expr::call(f, vec![l, r])
            }
            2 => {
                let e = self.random_call_tree(depth - 1, nv);
                self.unary(e)
            }
            _ => {
                // A reduction over a new variable, used only inside it.
                let v = self.n_vars;
                self.var(v);
                let mut body = self.random_call_tree(depth - 1, nv);
                if !body.vars().contains(&v) {
                    let n = self.rng.range(0, nv.min(2));
                    let mut vars = self.some_vars(n, nv);
                    vars.push(v);
                    let t = self.plain(&vars);
                    body = if self.rng.chance(0.5) {
                        Expr::bin(Op::Mul, body, t)
                    } else {
                        let f = self.any_binary();
                        Expr::call(f, vec![t, body])
                    };
                }
                let by = self.reducer();
                Expr::reduce(by, v, body)
            }
        }
    }

    /// Draws the fill value of every sparse input (within its set; a divisor's positive, or
    /// rarely 0 for the `divisor` refusal), re-drawing while a call with a declared region
    /// has an argument without a fill value; then, sometimes, the output's.
    pub(crate) fn assign_fills(&mut self, k: &mut Kernel, sets: &[u8], divisor: &[bool]) {
        for _attempt in 0..8 {
            for p in 0..k.params.len() {
                let sparse = matches!(&k.params[p].kind, ParamKind::Input(f) if !f.all_dense());
                if !sparse {
                    k.params[p].fill = None;
                    continue;
                }
                let set = if divisor[p] {
                    if self.rng.chance(P_ZERO_FILLED_DIVISOR) {
                        F_ZERO
                    } else {
                        POSITIVE
                    }
                } else {
                    sets[p]
                };
                let value = self.draw_fill(set);
                k.params[p].fill = (value != Fill::ZERO || self.rng.chance(P_DECLARE_ZERO))
                    .then(|| self.attr(value));
            }
            if crate::reference::iterate_args_have_fills(k) {
                break;
            }
        }
        self.declare_output_fill(k);
    }

    fn draw_fill(&mut self, set: u8) -> Fill {
        let allowed: Vec<(u8, u32)> = FILL_WEIGHTS
            .iter()
            .copied()
            .filter(|(bit, _)| set & bit != 0)
            .collect();
        if allowed.is_empty() {
            return Fill::ZERO;
        }
        let w: Vec<u32> = allowed.iter().map(|a| a.1).collect();
        fill_of_bit(allowed[self.rng.weighted(&w)].0, self.vt)
    }

    /// `#[fill(..)]` for `value`: an integral float value half the time with a decimal point.
    fn attr(&mut self, value: Fill) -> FillAttr {
        let decimal = self.float() && self.rng.chance(0.5);
        FillAttr {
            value,
            text: value.text(decimal),
        }
    }

    /// Sometimes declares a sparse output's fill value: for `=` the right side's (where it
    /// is plainly a constant), for `+=` any finite value when the right side's is plainly 0
    /// (the output's fill value stays its own).
    fn declare_output_fill(&mut self, k: &mut Kernel) {
        let sparse = matches!(&k.params[k.out].kind, ParamKind::Output(f) if !f.all_dense());
        if !sparse
            || !self.rng.chance(P_DECLARE_OUTPUT_FILL)
            || !crate::reference::fill_plainly_constant(k)
        {
            return;
        }
        let Some(fill) = crate::reference::rhs_fill(k) else {
            return;
        };
        let value = if k.accumulate {
            if fill != 0.0 {
                return;
            }
            let v = self.draw_fill(FINITE);
            if v == Fill::ZERO {
                return;
            }
            v
        } else {
            match fill_from_value(fill, k.vt) {
                Some(v) => v,
                None => return,
            }
        };
        k.params[k.out].fill = Some(self.attr(value));
    }
}

/// The pre-order numbers of the nodes of an expression that are not inside a divisor (the
/// right operand of `/`).
fn outside_divisors(e: &Expr) -> Vec<usize> {
    fn go(e: &Expr, below: bool, n: &mut usize, out: &mut Vec<usize>) {
        if !below {
            out.push(*n);
        }
        *n += 1;
        match e {
            Expr::Bin(Op::Div, l, r) => {
                go(l, below, n, out);
                go(r, true, n, out);
            }
            other => {
                for c in other.children() {
                    go(c, below, n, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    go(e, false, &mut 0, &mut out);
    out
}

/// Nodes of an expression, pre-order.
#[cfg(test)]
fn count(e: &Expr) -> usize {
    let mut n = 0;
    e.visit(&mut |_| n += 1);
    n
}

/// The `n`th node, pre-order.
fn nth(e: &Expr, n: usize) -> &Expr {
    fn go<'a>(e: &'a Expr, n: &mut usize) -> Option<&'a Expr> {
        if *n == 0 {
            return Some(e);
        }
        *n -= 1;
        e.children().into_iter().find_map(|c| go(c, n))
    }
    go(e, &mut { n }).expect("a node of the expression")
}

/// The expression with its `n`th node (pre-order) replaced by `with`.
fn replace_nth(e: Expr, n: usize, with: &mut Option<Expr>) -> Expr {
    fn go(e: Expr, n: &mut isize, with: &mut Option<Expr>) -> Expr {
        if *n == 0 {
            *n -= 1;
            return with.take().expect("replaced once");
        }
        *n -= 1;
        if *n < 0 {
            return e;
        }
        match e {
            Expr::Neg(x) => Expr::negate(go(*x, n, with)),
            Expr::Paren(x) => Expr::paren(go(*x, n, with)),
            Expr::Bin(op, l, r) => {
                let l = go(*l, n, with);
                let r = go(*r, n, with);
                Expr::bin(op, l, r)
            }
            Expr::Call { func, args } => Expr::Call {
                func,
                args: args.into_iter().map(|a| go(a, n, with)).collect(),
            },
            Expr::Reduce { by, var, body } => Expr::reduce(by, var, go(*body, n, with)),
            leaf => leaf,
        }
    }
    go(e, &mut (n as isize), with)
}

/// Accesses of `e` that use variable `v`.
fn uses(e: &Expr, v: usize) -> usize {
    let mut n = 0;
    e.visit(&mut |x| {
        if let Expr::Access { vars, .. } = x {
            n += usize::from(vars.contains(&v));
        }
    });
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_a_node_keeps_the_rest() {
        let a = Expr::Access {
            param: 0,
            vars: vec![0],
        };
        let b = Expr::Access {
            param: 1,
            vars: vec![0],
        };
        let e = Expr::bin(Op::Add, a.clone(), b.clone());
        assert_eq!(count(&e), 3);
        assert_eq!(nth(&e, 2), &b);
        let r = replace_nth(e, 2, &mut Some(Expr::call(Func::Abs, vec![b.clone()])));
        assert_eq!(
            r,
            Expr::bin(Op::Add, a.clone(), Expr::call(Func::Abs, vec![b.clone()]))
        );
        // The divisor and what is below it are never rewritten.
        let q = Expr::bin(Op::Div, a, Expr::bin(Op::Mul, b.clone(), b));
        assert_eq!(outside_divisors(&q), vec![0, 1]);
    }
}
