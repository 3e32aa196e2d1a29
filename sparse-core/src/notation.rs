//! Tensor index notation after checking (taco, section 3): tensors bound to formats, index
//! variables, and an expression tree in which every reduction is an explicit `Sum`.

use crate::algebra::{Constant, FuncId, Function};
use crate::format::Format;
use proc_macro2::Ident;

/// Index of a tensor parameter in [`Kernel::tensors`].
pub type TensorId = usize;
/// Index of an index variable in [`Kernel::vars`].
pub type VarId = usize;
/// Index of a scalar parameter in [`Kernel::scalars`].
pub type ScalarId = usize;
/// Index of one access expression (one occurrence of a tensor) in [`Kernel::accesses`].
pub type AccessId = usize;

/// A tensor parameter of the kernel.
#[derive(Clone, Debug)]
pub struct TensorParam {
    /// The parameter name, with the span the user wrote.
    pub name: Ident,
    /// Storage format resolved from the parameter type.
    pub format: Format,
    /// The parameter's type behind its reference, as written (`Csr<f64>`).
    pub written_type: syn::Type,
    /// The value of every component the tensor does not store, as declared by `#[fill(..)]`
    /// (zero when not declared); checked on entry for a sparse operand.
    pub fill: Constant,
}

/// A plain scalar parameter (`alpha: f64`).
#[derive(Clone, Debug)]
pub struct ScalarParam {
    /// The parameter name, with the span the user wrote.
    pub name: Ident,
}

/// An index variable.
#[derive(Clone, Debug)]
pub struct IndexVar {
    /// The variable as first written (for a hidden one, a readable name no user identifier
    /// can refer to).
    pub name: Ident,
    /// A hidden storage coordinate of a remapped format (a diagonal of `Dia`), invented by the
    /// compiler for one access and summed over; never a name the user wrote.
    pub hidden: bool,
}

/// One occurrence of a tensor in the statement, `a(i, j)`.
#[derive(Clone, Debug)]
pub struct Access {
    /// The tensor accessed.
    pub tensor: TensorId,
    /// Index variable of each mode: the logical ones as written, then a remapped format's
    /// hidden ones.
    pub vars: Vec<VarId>,
    /// The access as written, for diagnostics that cover all of it.
    pub tokens: proc_macro2::TokenStream,
    /// Per logical mode, the window the access reads it through (`a(i[2..8], j)`), if any.
    pub windows: Vec<Option<Window>>,
}

impl Access {
    /// The index variable of storage level `level` (logical mode `mode_order[level]`).
    pub fn level_var(&self, format: &Format, level: usize) -> VarId {
        self.vars[format.mode_order[level]]
    }

    /// The window of storage level `level`, if its mode is read through one.
    pub fn level_window(&self, format: &Format, level: usize) -> Option<&Window> {
        self.windows.get(format.mode_order[level])?.as_ref()
    }
}

/// A bound of a window: a constant, or a `usize` parameter of the kernel.
#[derive(Clone, Debug)]
pub enum Bound {
    /// A literal.
    Const(usize),
    /// A parameter, by its name as written.
    Param(Ident),
}

/// A window of one mode of an access (Henry et al. 2021, section 7.3): the access reads
/// coordinate `lo + step * i` of the mode for `i` below the window's length, which is the
/// index variable's size. `i[lo..hi]`, `i[lo..]`, `i[(lo..hi).step_by(step)]`.
#[derive(Clone, Debug)]
pub struct Window {
    /// The first coordinate.
    pub lo: Bound,
    /// The end (exclusive); `None` for the mode's size.
    pub hi: Option<Bound>,
    /// The stride, at least 1.
    pub step: Bound,
    /// The index as written, for diagnostics.
    pub tokens: proc_macro2::TokenStream,
}

impl Window {
    /// Whether the stride is other than 1 (positions between must be stepped over).
    pub fn strided(&self) -> bool {
        !matches!(self.step, Bound::Const(1))
    }
}

/// Binary operators of the notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`, a union (disjunctive) merge.
    Add,
    /// `-`, a union merge whose right-only points negate.
    Sub,
    /// `*`, an intersection (conjunctive) merge.
    Mul,
    /// `/`, an intersection merge; the divisor must be dense (see `check`).
    Div,
}

/// A numeric literal as written by the user.
#[derive(Clone, Debug)]
pub struct Literal {
    /// The literal token.
    pub lit: syn::Lit,
}

/// An expression of index notation.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A tensor access, by its id in [`Kernel::accesses`].
    Access(AccessId),
    /// A scalar parameter.
    Scalar(ScalarId),
    /// A numeric literal.
    Literal(Literal),
    /// Unary negation.
    Neg(Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Summation over the listed variables (Einstein convention made explicit: each reduction
    /// variable is summed over the smallest subexpression that holds all its uses).
    Sum(Vec<VarId>, Box<Expr>),
    /// A function of [`Kernel::functions`] applied to its arguments (`max(a(i), b(i))`).
    Call(FuncId, Vec<Expr>),
    /// A reduction by a function other than `+` over the listed variables (`min[j](e)`): a
    /// fold of the body's values from the function's identity.
    Reduce(FuncId, Vec<VarId>, Box<Expr>),
    /// A constant the compiler put there: the fill value of an operand that is absent at a
    /// lattice point (Henry et al. 2021, section 6.1).
    Const(Constant),
}

impl Expr {
    /// Builds `l op r`.
    pub fn binary(op: BinOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary(op, Box::new(l), Box::new(r))
    }

    /// The direct subexpressions, left to right.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Access(_) | Expr::Scalar(_) | Expr::Literal(_) | Expr::Const(_) => Vec::new(),
            Expr::Neg(e) | Expr::Sum(_, e) | Expr::Reduce(_, _, e) => vec![e],
            Expr::Binary(_, l, r) => vec![l, r],
            Expr::Call(_, args) => args.iter().collect(),
        }
    }

    /// Every access id in the expression, left to right.
    pub fn accesses(&self, out: &mut Vec<AccessId>) {
        match self {
            Expr::Access(a) => out.push(*a),
            other => other.children().into_iter().for_each(|c| c.accesses(out)),
        }
    }

    /// Whether an access among the expression's factors (reached through products,
    /// dividends, negations and sums, not through additions or divisors) mentions `v`.
    pub fn factor_uses(&self, v: VarId, accesses: &[Access]) -> bool {
        match self {
            Expr::Access(a) => accesses[*a].vars.contains(&v),
            Expr::Scalar(_) | Expr::Literal(_) | Expr::Const(_) => false,
            // A function is not linear in its arguments: none of them is a factor.
            Expr::Call(..) | Expr::Reduce(..) => false,
            Expr::Neg(e) | Expr::Sum(_, e) => e.factor_uses(v, accesses),
            Expr::Binary(BinOp::Mul, l, r) => {
                l.factor_uses(v, accesses) || r.factor_uses(v, accesses)
            }
            Expr::Binary(BinOp::Div, l, _) => l.factor_uses(v, accesses),
            Expr::Binary(BinOp::Add | BinOp::Sub, _, _) => false,
        }
    }

    /// Whether the expression mentions index variable `v` (through an access).
    pub fn uses_var(&self, v: VarId, accesses: &[Access]) -> bool {
        let mut ids = Vec::new();
        self.accesses(&mut ids);
        ids.iter().any(|&a| accesses[a].vars.contains(&v))
    }
}

/// How the result is combined with the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`: the output is overwritten (a sparse output is re-assembled).
    Assign,
    /// `+=`: the result is added to a dense output.
    AddAssign,
}

/// The left side of the statement.
#[derive(Clone, Debug)]
pub enum Output {
    /// A tensor output, accessed by `access` (its id in [`Kernel::accesses`]).
    Tensor(AccessId),
    /// A scalar output `out: &mut V`.
    Scalar(Ident),
}

/// A checked kernel: the statement `output op rhs` with every name resolved.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The function name.
    pub name: Ident,
    /// Tensor parameters (inputs and the output).
    pub tensors: Vec<TensorParam>,
    /// Scalar parameters usable in the expression.
    pub scalars: Vec<ScalarParam>,
    /// Index variables in order of first appearance (output first).
    pub vars: Vec<IndexVar>,
    /// Every access, the output's (if any) first.
    pub accesses: Vec<Access>,
    /// The left side.
    pub output: Output,
    /// `=` or `+=`.
    pub op: AssignOp,
    /// The right side, with explicit sums.
    pub rhs: Expr,
    /// The value type as written (`f64`), shared by every tensor.
    pub value_type: syn::Type,
    /// The tensor holding an appended sparse output's contents before the call, which `+=`
    /// reads (`check::read_old_output`): not a parameter, bound by the generated code.
    pub old_output: Option<TensorId>,
    /// Index variables whose loops a schedule nests in this order (`order(..)`), in every
    /// loop nest.
    pub forced_order: Vec<VarId>,
    /// Inputs converted on entry into a temporary of another mode order
    /// (`crate::conversion`): their [`TensorParam::format`] is the temporary's.
    pub conversions: Vec<crate::conversion::Conversion>,
    /// The functions the statement calls or reduces by (`Expr::Call`, `Expr::Reduce`).
    pub functions: Vec<Function>,
}

impl Kernel {
    /// The format of tensor `t` as passed to the function: its own, unless the kernel
    /// converts it on entry.
    pub fn param_format(&self, t: TensorId) -> &Format {
        self.conversions
            .iter()
            .find(|c| c.tensor == t)
            .map_or(&self.tensors[t].format, |c| &c.from)
    }

    /// Index variables of the output, in logical mode order (empty for a scalar output).
    pub fn output_vars(&self) -> &[VarId] {
        match &self.output {
            Output::Tensor(a) => &self.accesses[*a].vars,
            Output::Scalar(_) => &[],
        }
    }

    /// The output access, if the output is a tensor.
    pub fn output_access(&self) -> Option<AccessId> {
        match self.output {
            Output::Tensor(a) => Some(a),
            Output::Scalar(_) => None,
        }
    }

    /// Whether the output is written in place: a scalar, or a tensor whose levels all insert
    /// (dense, or dense then one hash level). Such an output can accumulate across loop nests
    /// and across the iterations of a root sum, in any order.
    pub fn output_in_place(&self) -> bool {
        self.output_access()
            .is_none_or(|a| self.format_of(a).inserts_everywhere())
    }

    /// Format of the tensor behind an access.
    pub fn format_of(&self, access: AccessId) -> &Format {
        &self.tensors[self.accesses[access].tensor].format
    }
}
