//! Random kernels from a seed.
//!
//! Most weight goes to what users write (SpMV, SpMM, element-wise, TTV, TTM, MTTKRP, dot
//! products, residuals), decorated with scalars, literals, negation, extra terms and dense
//! divisors; the rest are random expression trees. Formats are drawn per operand (aliases and
//! random valid level compositions with random mode orders); a kernel that hits the `order`
//! limitation is usually re-drawn, so most generated kernels are accepted, while each
//! limitation still shows up at a small rate.

use crate::format::{
    random_assemblable_kinds, random_modes, random_unassemblable_kinds, random_valid_kinds, Format,
    IndexTy, ALIASES, INPUT_ONLY, MAX_BCSR_BLOCK, REMAPPED, STRUCTURED,
};
use crate::kernel::{
    same_name, Accumulator, Expr, Kernel, Op, Param, ParamKind, Schedule, Statement, Target, ValTy,
};
use crate::rng::{mix, Rng};
use crate::semantics::{limitations, Limitation};

/// Most non-dense operands in one statement. Loops over more than three merge compactly (one
/// loop over the union, run-time presence), so wide statements exercise that path.
pub const MAX_SPARSE_OPERANDS: usize = 12;

/// Most index variables in one kernel.
pub const MAX_VARS: usize = 5;

/// Most tensor modes (and levels).
pub const MAX_ORDER: usize = 4;

/// Deepest right side (operators nested).
pub const MAX_DEPTH: usize = 4;

/// Probability that a kernel uses names that look like the compiler's generated locals.
pub const P_TRICKY_NAMES: f64 = 0.12;

/// Probability that a kernel spells one of its names as a raw identifier.
pub const P_RAW_NAMES: f64 = 0.02;

/// Probability that an appended sparse output is updated (`+=`: the old contents plus the
/// right side, on the union of their patterns).
pub const P_SPARSE_ACCUMULATE: f64 = 0.25;
/// Probabilities of deliberately hitting a limitation.
pub const P_SPARSE_DIVISOR: f64 = 0.15;
/// See [`P_SPARSE_DIVISOR`].
pub const P_BAD_OUTPUT_FORMAT: f64 = 0.03;
/// Probability that a sparse matrix input is drawn from the structured aliases (`STRUCTURED`:
/// `Dia`, `Ell`, `CooAos`, `Bcsr`, `Csb`), besides their chance among all aliases.
pub const P_STRUCTURED: f64 = 0.3;
/// Probability that a kernel without a loop order is kept rather than re-drawn.
pub const P_KEEP_NO_ORDER: f64 = 0.12;

/// Probability that a kernel whose sparse output is appended (not written in place) carries a
/// `#[schedule(workspace(v[, dense|hash]))]` attribute. Schedules are drawn from a stream of
/// their own ([`SCHEDULE_STREAM`]) after the kernel is complete, so a kernel without one is
/// exactly the kernel its seed gave before schedules were drawn.
pub const P_SCHEDULE: f64 = 1.0 / 6.0;
/// Probability of a (refused) schedule on a kernel whose output is written in place (dense, or
/// dense rows of a hash table).
pub const P_SCHEDULE_IN_PLACE: f64 = 0.02;
/// Probability of a (refused) schedule on a kernel with a scalar output.
pub const P_SCHEDULE_SCALAR: f64 = 0.01;
/// Probability that a schedule names a variable that does not index the output (refused).
pub const P_SCHEDULE_OTHER_VAR: f64 = 0.08;
/// The salt of the schedule stream: `Rng::new(mix(seed, SCHEDULE_STREAM))`.
pub const SCHEDULE_STREAM: u64 = 0x5c4e_d01e;

/// Probability that a single-statement kernel carries `#[schedule(precompute(never))]`, drawn
/// from a stream of its own ([`PRECOMPUTE_STREAM`]) so other kernels keep their seeds.
pub const P_TERM_BY_TERM: f64 = 0.1;
/// The salt of the precompute stream.
pub const PRECOMPUTE_STREAM: u64 = 0x9e3c_0be5;

/// Probability that a kernel is a sequence of several statements (drawn from a stream of its
/// own, [`SEQUENCE_STREAM`], so the seeds of single-statement kernels keep their kernels).
pub const P_SEQUENCE: f64 = 0.25;
/// Most statements in a sequence (at least 2).
pub const MAX_STATEMENTS: usize = 4;
/// The salt of the sequence stream: `Rng::new(mix(seed, SEQUENCE_STREAM))` decides whether a
/// kernel is a sequence and, if so, draws all of it.
pub const SEQUENCE_STREAM: u64 = 0x5e0_0e7ce;
/// In a sequence: probability that a new tensor access reads an output of the kernel of the
/// same order instead (what an earlier statement wrote, or its stale contents).
pub const P_READ_OUTPUT: f64 = 0.35;
/// In a sequence: probability that a scalar leaf reads a temporary defined earlier or a scalar
/// output (as a factor, a term, or in a divisor).
pub const P_READ_TEMPORARY: f64 = 0.6;
/// In a sequence: probability that a statement also reads its own output on the right side
/// (its contents before the statement; tensor outputs only: a scalar output read by its own
/// statement is refused, `s = s + e` being `s += e`).
pub const P_READ_OWN: f64 = 0.2;
/// Probability that an accumulating statement (`+=`) subtracts instead (`-=`); drawn for a
/// single statement from a stream of its own ([`SUBTRACT_STREAM`]). Every value type drawn is
/// signed.
pub const P_SUBTRACT: f64 = 0.4;
/// The salt of the subtraction stream of single-statement kernels.
pub const SUBTRACT_STREAM: u64 = 0x5ab_7ac7;
/// Statement weights in a sequence: a new tensor output, an output written before (again), a
/// `let` temporary (never last), a scalar output.
const STATEMENT_KINDS: [u32; 4] = [5, 4, 3, 1];
/// Temporaries read in a sequence before the generator fixes their numbering: `Expr::Scalar {
/// param: TEMPORARY + t }`.
const TEMPORARY: usize = 1 << 20;
const TEMPORARY_NAMES: &[&str] = &["rho", "sigma", "tmp", "nrm", "total", "pq", "theta", "t"];

const PLAIN_TENSORS: &[&str] = &["a", "b", "c", "d", "x", "y", "z", "w", "v", "u", "f", "g"];
const UPPER_TENSORS: &[&str] = &["A", "B", "C", "D", "M"];
const PLAIN_VARS: &[&str] = &["i", "j", "k", "l", "m", "n"];
const SCALARS: &[&str] = &["alpha", "beta", "s", "gamma", "h"];
const SCALAR_OUTS: &[&str] = &["out", "acc", "s", "r", "dot"];
const RAW: &[&str] = &["r#i", "r#y", "r#type", "r#in", "r#match", "r#a"];
const KEYWORDS: &[&str] = &[
    "type", "in", "match", "fn", "let", "for", "loop", "self", "mod",
];

/// Probability that an input is built in another format and converted into its own
/// (`sparse_runtime::convert`) before the call.
pub const P_CONVERTED_INPUT: f64 = 0.5;
/// The salt of the conversion stream: `Rng::new(mix(mix(seed, CONVERSION_STREAM), param))`.
pub const CONVERSION_STREAM: u64 = 0xc0_5e_47;

/// Probability that a single-statement kernel is a sum or elementwise product of matrices,
/// mostly `Csr`/`Csc`, some transposed, into a `Csr` or `Csc` output (drawn from a stream of
/// its own, [`ROW_BOUNDED_STREAM`], so the other seeds keep their kernels). Such operands
/// bound the entries of each range of the output's rows, so the output is assembled in
/// parallel in one phase (`parallel_append_bounded`), which other kernels rarely reach.
pub const P_ROW_BOUNDED: f64 = 0.1;
/// The salt of the row-bounded stream.
pub const ROW_BOUNDED_STREAM: u64 = 0x20b0_0bd5;

/// The format input `param` (of order `order`) of kernel `seed` is first built in, to be
/// converted into the parameter's own format, or `None` (built directly): any input format
/// the generator draws that stores exactly the entries it is given (`Format::stores_exactly`:
/// the parameter's own format may not hold the zeros a padded one adds).
/// Drawn from a stream of its own, so the kernels of a seed do not change.
pub fn via_format(seed: u64, param: usize, order: usize) -> Option<Format> {
    let mut g = Gen::new(Rng::new(mix(mix(seed, CONVERSION_STREAM), param as u64)));
    if order == 0 || !g.rng.chance(P_CONVERTED_INPUT) {
        return None;
    }
    (0..16)
        .map(|_| g.input_format(order))
        .find(Format::stores_exactly)
}

/// Probability that a single-statement kernel is drawn as a kernel of sparse array
/// programming (`features`: fill values, calls, reductions), from a stream of its own
/// ([`FEATURE_STREAM`]), so the other seeds keep their kernels.
pub const P_FEATURE: f64 = 0.5;
/// The salt of the feature stream: `Rng::new(mix(seed, FEATURE_STREAM))` decides whether a
/// single-statement kernel is a feature kernel and, if so, draws all of it.
pub const FEATURE_STREAM: u64 = 0x0f11_15e7;
/// In a kernel of sparse array programming: probability that a divisor tensor is sparse
/// (with a fill value that is not zero, mostly; [`crate::features::P_ZERO_FILLED_DIVISOR`]).
pub const P_SPARSE_FILLED_DIVISOR: f64 = 0.4;

/// Generates the kernel of `seed`.
pub fn generate(seed: u64) -> Kernel {
    let mut rng = Rng::new(mix(seed, SEQUENCE_STREAM));
    if rng.chance(P_SEQUENCE) {
        return sequence(seed, rng);
    }
    let mut r = Rng::new(mix(seed, ROW_BOUNDED_STREAM));
    if r.chance(P_ROW_BOUNDED) {
        return row_bounded(seed, r);
    }
    let mut f = Rng::new(mix(seed, FEATURE_STREAM));
    if f.chance(P_FEATURE) {
        let mut k = crate::features::kernel(seed, f);
        crate::windows::draw(&mut k);
        k.term_by_term = Rng::new(mix(seed, PRECOMPUTE_STREAM)).chance(P_TERM_BY_TERM);
        return k;
    }
    let mut g = Gen::new(Rng::new(seed));
    g.vt = [ValTy::F64, ValTy::F32, ValTy::I64][g.rng.weighted(&[6, 2, 2])];
    let (template, out_order_hint, rhs) = g.template();
    let rhs = g.decorate(rhs);
    let mut k = g.finish(seed, template, out_order_hint, rhs);
    k.schedule = schedule(&mut Rng::new(mix(seed, SCHEDULE_STREAM)), &k);
    k.subtract = k.accumulate && Rng::new(mix(seed, SUBTRACT_STREAM)).chance(P_SUBTRACT);
    crate::windows::draw(&mut k);
    k.term_by_term = Rng::new(mix(seed, PRECOMPUTE_STREAM)).chance(P_TERM_BY_TERM);
    k
}

/// In a row-bounded kernel: probability that its first term is a product over a shared
/// index, `a(i, k) * b(k, j)` (SpGEMM, `b` sometimes accessed `(j, k)`): summed per row in a
/// dense accumulator, whose adds bound the row's entries (`parallel_append_bounded_accumulated`).
pub const P_ROW_PRODUCT: f64 = 0.5;

/// The first term of a row-bounded kernel of [`P_ROW_PRODUCT`]: `a(i, k) * b(k, j)`, or
/// `b(j, k)` a quarter of the time. Seven times in ten, every matrix of such a kernel is
/// then made `Csr`, or every one `Csc`.
fn row_product(g: &mut Gen) -> Expr {
    let a = g.new_acc(&[0, 2]);
    let vars = if g.rng.chance(0.25) { [1, 2] } else { [2, 1] };
    let b = g.new_acc(&vars);
    Expr::bin(Op::Mul, a, b)
}

/// In a row-bounded kernel: probability that it is instead a sum over the last mode of a
/// 3-tensor whose first level is sparse, `b(i, j, k) * x(k)` (TTV): its loop runs over `b`'s
/// root positions, each bounding its entries by the appends it runs (the `(i, j)` positions
/// below it), so a `Csr` output is assembled in chunks of positions in one phase
/// (`parallel_append_positions_bounded`); over a `Coo3`, its loop runs over the root's runs,
/// in chunks of whole runs bounded by their positions (`parallel_append_runs_bounded`).
pub const P_ROW_ROOT: f64 = 0.3;

/// The 3-tensor formats of [`P_ROW_ROOT`]'s kernels: a sparse first level, unique (`Csf3`,
/// explicit levels) or not (`Coo3`, whose root runs the chunks must not split).
fn root_format(g: &mut Gen) -> Format {
    use crate::format::Kind::{Compressed, Dense};
    match g.rng.weighted(&[3, 3, 3]) {
        0 => g.alias("Csf3"),
        1 => g.alias("Coo3"),
        _ => {
            let rest = [
                [Compressed, Compressed],
                [Dense, Compressed],
                [Compressed, Dense],
            ];
            let [b, c] = *g.rng.pick(&rest);
            Format::explicit(&mut g.rng, vec![Compressed, b, c], vec![0, 1, 2])
        }
    }
}

/// A kernel of [`P_ROW_ROOT`]: `c(i, j) = b(i, j, k) * x(k)` (sometimes decorated), `b` of a
/// [`root_format`], `x` dense or sparse, into a `Csr` output four times in five (else `Csc`,
/// whose rows are not `b`'s root).
fn row_root(seed: u64, mut g: Gen) -> Kernel {
    let b = g.new_acc(&[0, 1, 2]);
    let x = g.new_acc(&[2]);
    let mut e = Expr::bin(Op::Mul, b, x);
    if g.rng.chance(0.2) {
        e = g.decorate(e);
    }
    let mut k = g.finish(seed, "row_root", Some(2), e);
    let layout = ["Csr", "Csc"][g.rng.weighted(&[4, 1])];
    for p in 0..k.params.len() {
        let order = k.params[p].format().map(Format::order);
        match (&k.params[p].kind, order) {
            (ParamKind::Output(_), Some(2)) => {
                k.params[p].kind = ParamKind::Output(g.alias(layout))
            }
            (ParamKind::Input(_), Some(3)) => {
                k.params[p].kind = ParamKind::Input(root_format(&mut g))
            }
            _ => {}
        }
    }
    k.accumulate = g.rng.chance(P_SPARSE_ACCUMULATE);
    k.subtract = k.accumulate && g.rng.chance(P_SUBTRACT);
    k.term_by_term = g.rng.chance(P_TERM_BY_TERM);
    crate::windows::draw(&mut k);
    k
}

/// A kernel of [`P_ROW_BOUNDED`]: 2 to 4 matrices accessed `(i, j)` or `(j, i)` joined by
/// `+`, `-`, `*`, or a product over a shared index ([`P_ROW_PRODUCT`]) alone or with one
/// matrix added or subtracted (either sometimes decorated: scalars, literals, more terms),
/// into a matrix output, then the output made `Csr` or `Csc` and each matrix input, nine
/// times in ten, one of them too; a window drawn as for other kernels.
fn row_bounded(seed: u64, rng: Rng) -> Kernel {
    let mut g = Gen::new(rng);
    g.vt = [ValTy::F64, ValTy::F32, ValTy::I64][g.rng.weighted(&[6, 2, 2])];
    if g.rng.chance(P_ROW_ROOT) {
        return row_root(seed, g);
    }
    let product = g.rng.chance(P_ROW_PRODUCT);
    let mut e = match product {
        true => row_product(&mut g),
        false => g.new_acc(&[0, 1]),
    };
    // A product takes at most one more matrix, added or subtracted (multiplied, it would
    // mask the product: SDDMM, not Gustavson).
    let (terms, weights) = match product {
        true => (g.rng.range(1, 2), [1, 1, 0]),
        false => (g.rng.range(2, 4), [5, 2, 3]),
    };
    for _ in 1..terms {
        let vars = if g.rng.chance(0.25) { [1, 0] } else { [0, 1] };
        let b = g.new_acc(&vars);
        let op = [Op::Add, Op::Sub, Op::Mul][g.rng.weighted(&weights)];
        e = Expr::bin(op, e, b);
    }
    if g.rng.chance(0.2) {
        e = g.decorate(e);
    }
    let mut k = g.finish(seed, "row_bounded", Some(2), e);
    // A product's operands and output mostly share one layout, as Gustavson's rows need.
    let layout = *g.rng.pick(&["Csr", "Csc"]);
    let aligned = product && g.rng.chance(0.7);
    for p in 0..k.params.len() {
        let two = k.params[p].format().is_some_and(|f| f.order() == 2);
        let name = match aligned {
            true => layout,
            false => *g.rng.pick(&["Csr", "Csc"]),
        };
        match k.params[p].kind {
            ParamKind::Output(_) if two => k.params[p].kind = ParamKind::Output(g.alias(name)),
            ParamKind::Input(_) if two && g.rng.chance(0.9) => {
                k.params[p].kind = ParamKind::Input(g.alias(name));
            }
            _ => {}
        }
    }
    k.accumulate = g.rng.chance(P_SPARSE_ACCUMULATE);
    k.subtract = k.accumulate && g.rng.chance(P_SUBTRACT);
    k.term_by_term = g.rng.chance(P_TERM_BY_TERM);
    // A windowed operand's rows are not the output's: it must keep the two phases.
    crate::windows::draw(&mut k);
    k
}

/// A kernel of 2 to [`MAX_STATEMENTS`] statements, drawn from `rng`. Each statement's right
/// side is a template as for a single statement (decorated the same way); new tensor accesses
/// sometimes read an output of the kernel, scalar leaves a temporary defined earlier or a
/// scalar output. Each statement writes a new tensor or scalar output, an output written
/// before (same order), or a `let` temporary (never the last statement), sometimes reading
/// its own output too. Formats, `=`/`+=`/`-=` and schedules are drawn per statement by the
/// single-statement rules ([`Kernel::step`]).
fn sequence(seed: u64, rng: Rng) -> Kernel {
    let mut g = Gen::new(rng);
    g.sequence = true;
    g.vt = [ValTy::F64, ValTy::F32, ValTy::I64][g.rng.weighted(&[6, 2, 2])];
    let n = g.rng.range(2, MAX_STATEMENTS);
    let mut drafts: Vec<(Target, Vec<usize>, Expr)> = Vec::new();
    for s in 0..n {
        let (_, hint, rhs) = g.template();
        let mut rhs = g.decorate(rhs);
        let used: Vec<usize> = rhs.vars().into_iter().collect();
        let last = s + 1 == n;
        let mut weights = STATEMENT_KINDS;
        if last {
            weights[2] = 0;
        }
        let again: Vec<usize> = (0..g.params.len())
            .filter(|&p| matches!(g.params[p].kind, ParamKind::Output(_)))
            .filter(|&p| g.orders[p] <= used.len())
            .collect();
        let (target, out_vars) = match g.rng.weighted(&weights) {
            1 if !again.is_empty() => {
                let p = *g.rng.pick(&again);
                let mut vars = used.clone();
                g.rng.shuffle(&mut vars);
                vars.truncate(g.orders[p]);
                (Target::Param(p), vars)
            }
            2 => {
                g.temporaries += 1;
                (Target::Temporary(g.temporaries - 1), Vec::new())
            }
            3 => {
                // Not a scalar output the right side reads: a statement cannot read its own
                // scalar output (`s = s + e` is `s += e`).
                let mut read = Vec::new();
                rhs.visit(&mut |e| {
                    if let Expr::Scalar { param } = e {
                        read.push(*param);
                    }
                });
                let outs: Vec<usize> = g
                    .scalar_outs
                    .iter()
                    .copied()
                    .filter(|p| !read.contains(p))
                    .collect();
                let p = if !outs.is_empty() && g.rng.chance(0.5) {
                    *g.rng.pick(&outs)
                } else {
                    g.output(0)
                };
                (Target::Param(p), Vec::new())
            }
            _ => {
                let vars = g.out_vars(&used, hint);
                (Target::Param(g.output(vars.len())), vars)
            }
        };
        // (A scalar output cannot be read by its own statement: `s = s + e` is `s += e`.)
        if let (Target::Param(p), false) = (target, out_vars.is_empty()) {
            if g.rng.chance(P_READ_OWN) {
                let own = g.acc(p, &out_vars);
                let op = [Op::Add, Op::Sub, Op::Mul][g.rng.weighted(&[3, 2, 2])];
                rhs = if g.rng.chance(0.5) {
                    Expr::bin(op, own, rhs)
                } else {
                    Expr::bin(op, rhs, own)
                };
            }
        }
        drafts.push((target, out_vars, rhs));
    }
    let n_params = g.params.len();
    let statements: Vec<Statement> = drafts
        .into_iter()
        .map(|(target, out_vars, rhs)| Statement {
            target,
            out_vars,
            accumulate: false,
            subtract: false,
            rhs: number_temporaries(rhs, n_params),
            schedule: None,
        })
        .collect();
    let n_vars = statements
        .iter()
        .flat_map(|s| s.rhs.vars().into_iter().chain(s.out_vars.iter().copied()))
        .map(|v| v + 1)
        .max()
        .unwrap_or(0)
        .max(g.n_vars);
    let params = std::mem::take(&mut g.params);
    let orders = std::mem::take(&mut g.orders);
    let divisor = std::mem::take(&mut g.divisor);
    let mut k = Kernel {
        id: seed,
        template: "sequence",
        vt: g.vt,
        params,
        out: 0,
        out_vars: Vec::new(),
        accumulate: false,
        subtract: false,
        rhs: Expr::Lit {
            text: "0".into(),
            value: 0.0,
        },
        var_names: vec![String::new(); n_vars],
        semicolon: g.rng.chance(0.5),
        schedule: None,
        statements,
        temporaries: vec![String::new(); g.temporaries],
        feature: false,
        windows: Vec::new(),
        term_by_term: false,
    };
    g.name(&mut k);
    for t in 0..k.temporaries.len() {
        let taken = |c: &str| {
            k.params.iter().any(|p| same_name(&p.name, c))
                || k.var_names.iter().any(|v| same_name(v, c))
                || k.temporaries.iter().any(|v| same_name(v, c))
        };
        let free: Vec<&str> = TEMPORARY_NAMES
            .iter()
            .copied()
            .filter(|c| !taken(c))
            .collect();
        k.temporaries[t] = if free.is_empty() {
            format!("tmp{t}")
        } else {
            g.rng.pick(&free).to_string()
        };
    }
    g.assign_formats(&mut k, &orders, &divisor);
    let mut rng = Rng::new(mix(seed, SCHEDULE_STREAM));
    for s in 0..k.statements.len() {
        let step = k.step(s);
        k.statements[s].schedule = schedule(&mut rng, &step);
    }
    // The single-statement fields repeat the first statement that writes a parameter.
    let first = k
        .statements
        .iter()
        .find(|s| matches!(s.target, Target::Param(_)))
        .expect("the last statement writes a parameter")
        .clone();
    if let Target::Param(p) = first.target {
        k.out = p;
    }
    k.out_vars = first.out_vars;
    k.accumulate = first.accumulate;
    k.subtract = first.subtract;
    k.rhs = first.rhs;
    k
}

/// Numbers the temporaries a sequence's statement reads after the parameters.
fn number_temporaries(e: Expr, n_params: usize) -> Expr {
    e.map_leaves(&|leaf| match leaf {
        Expr::Scalar { param } if param >= TEMPORARY => Expr::Scalar {
            param: n_params + param - TEMPORARY,
        },
        other => other,
    })
}

/// Draws a workspace schedule for a finished kernel, or none: mostly on appended sparse
/// outputs, naming one of the output's variables (any storage level, so some placements are
/// impossible and refused as `no loop order`), sometimes another variable; rarely on an output
/// written in place or a scalar output, which are refused. The accumulator is left to the
/// compiler half the time. A variable is sometimes spelled as a raw identifier, or a raw one
/// without its `r#` (the compiler compares names without it).
pub(crate) fn schedule(rng: &mut Rng, k: &Kernel) -> Option<Schedule> {
    let p = match k.out_format() {
        None => P_SCHEDULE_SCALAR,
        Some(_) if k.in_place_output() => P_SCHEDULE_IN_PLACE,
        Some(_) => P_SCHEDULE,
    };
    if !rng.chance(p) {
        return None;
    }
    let others: Vec<&String> = (0..k.n_vars())
        .filter(|v| !k.out_vars.contains(v))
        .map(|v| &k.var_names[v])
        .collect();
    let var = if k.out_vars.is_empty() || rng.chance(P_SCHEDULE_OTHER_VAR) {
        if !others.is_empty() && rng.chance(0.7) {
            rng.pick(&others).to_string()
        } else {
            // A name no parameter or variable of the kernel uses.
            let taken = |c: &str| {
                k.var_names.iter().any(|n| crate::kernel::same_name(n, c))
                    || k.params
                        .iter()
                        .any(|p| crate::kernel::same_name(&p.name, c))
            };
            ["q", "o", "zz", "w_", "row"]
                .iter()
                .find(|c| !taken(c))
                .map_or_else(|| "unused_var".to_string(), |c| c.to_string())
        }
    } else {
        k.var_names[*rng.pick(&k.out_vars)].clone()
    };
    let var = match var.strip_prefix("r#") {
        Some(plain) if !KEYWORDS.contains(&plain) && rng.chance(0.5) => plain.to_string(),
        None if rng.chance(0.05) => format!("r#{var}"),
        _ => var,
    };
    let kind = [None, Some(Accumulator::Dense), Some(Accumulator::Hash)][rng.weighted(&[2, 1, 1])];
    Some(Schedule { var, kind })
}

/// Generator state while building one kernel.
pub(crate) struct Gen {
    pub(crate) rng: Rng,
    pub(crate) vt: ValTy,
    /// Tensor and scalar input parameters (formats are placeholders until `finish`).
    pub(crate) params: Vec<Param>,
    /// Order of each tensor parameter (0 for scalars).
    pub(crate) orders: Vec<usize>,
    /// Whether the parameter is accessed in a divisor.
    pub(crate) divisor: Vec<bool>,
    pub(crate) n_vars: usize,
    /// Drawing a sequence: new accesses may read outputs, scalar leaves temporaries.
    sequence: bool,
    /// Temporaries defined so far (by earlier statements of a sequence).
    temporaries: usize,
    /// Scalar output parameters so far.
    scalar_outs: Vec<usize>,
    /// Drawing a kernel of sparse array programming (`features`).
    pub(crate) feature: bool,
    /// Per parameter: the fill values its accesses allow (`features::FillSet`).
    pub(crate) fill_sets: Vec<u8>,
}

impl Gen {
    pub(crate) fn new(rng: Rng) -> Gen {
        Gen {
            rng,
            params: Vec::new(),
            orders: Vec::new(),
            divisor: Vec::new(),
            n_vars: 0,
            vt: ValTy::F64,
            sequence: false,
            temporaries: 0,
            scalar_outs: Vec::new(),
            feature: false,
            fill_sets: Vec::new(),
        }
    }

    /// A new output parameter of a sequence (a scalar output for order 0).
    fn output(&mut self, order: usize) -> usize {
        self.params.push(Param::new(
            String::new(),
            if order == 0 {
                ParamKind::ScalarOut
            } else {
                ParamKind::Output(Format::alias("Dense1", None))
            },
        ));
        self.orders.push(order);
        self.divisor.push(false);
        self.fill_sets.push(crate::features::ALL);
        let p = self.params.len() - 1;
        if order == 0 {
            self.scalar_outs.push(p);
        }
        p
    }

    /// In a sequence, sometimes a temporary defined earlier or a scalar output to read where
    /// a scalar parameter would be.
    fn scalar_read(&mut self) -> Option<usize> {
        if !self.sequence || !self.rng.chance(P_READ_TEMPORARY) {
            return None;
        }
        let mut choices: Vec<usize> = (0..self.temporaries).map(|t| TEMPORARY + t).collect();
        choices.extend(self.scalar_outs.iter().copied());
        (!choices.is_empty()).then(|| *self.rng.pick(&choices))
    }
    pub(crate) fn tensor(&mut self, order: usize) -> usize {
        self.params.push(Param::new(
            String::new(),
            ParamKind::Input(Format::alias("Dense1", None)),
        ));
        self.orders.push(order);
        self.divisor.push(false);
        // Finite fill values unless the access's context allows more (`features`).
        self.fill_sets.push(crate::features::FINITE);
        self.params.len() - 1
    }

    pub(crate) fn scalar_param(&mut self) -> usize {
        self.params
            .push(Param::new(String::new(), ParamKind::ScalarIn));
        self.orders.push(0);
        self.divisor.push(false);
        self.fill_sets.push(0);
        self.params.len() - 1
    }

    pub(crate) fn var(&mut self, v: usize) -> usize {
        self.n_vars = self.n_vars.max(v + 1);
        v
    }

    pub(crate) fn acc(&mut self, t: usize, vars: &[usize]) -> Expr {
        for &v in vars {
            self.var(v);
        }
        Expr::Access {
            param: t,
            vars: vars.to_vec(),
        }
    }

    pub(crate) fn new_acc(&mut self, vars: &[usize]) -> Expr {
        if self.sequence {
            let outputs: Vec<usize> = (0..self.params.len())
                .filter(|&p| matches!(self.params[p].kind, ParamKind::Output(_)))
                .filter(|&p| self.orders[p] == vars.len())
                .collect();
            if !outputs.is_empty() && self.rng.chance(P_READ_OUTPUT) {
                let p = *self.rng.pick(&outputs);
                return self.acc(p, vars);
            }
        }
        let t = self.tensor(vars.len());
        self.acc(t, vars)
    }

    pub(crate) fn literal(&mut self, positive: bool) -> Expr {
        if self.vt.is_float() {
            let values: [f64; 8] = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.25, 0.0];
            let n = if positive { 7 } else { 8 };
            let value = values[self.rng.below(n)];
            let suffix = self.vt.name();
            let text = match self.rng.weighted(&[10, 2, 2, 2]) {
                0 => format!("{value:?}"),
                1 => format!("{value:?}{suffix}"),
                2 => format!("{value:?}_{suffix}"),
                _ if value.fract() == 0.0 => format!("{}", value as i64),
                _ => format!("{value:?}"),
            };
            Expr::Lit { text, value }
        } else {
            let value = if positive {
                self.rng.range(1, 3)
            } else {
                self.rng.range(0, 3)
            };
            Expr::Lit {
                text: value.to_string(),
                value: value as f64,
            }
        }
    }

    /// Distinct random variables.
    pub(crate) fn some_vars(&mut self, n: usize, pool: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..pool).collect();
        self.rng.shuffle(&mut all);
        all.truncate(n);
        for &v in &all {
            self.var(v);
        }
        all
    }

    /// A base statement shape: (name, output order hint, right side).
    pub(crate) fn template(&mut self) -> (&'static str, Option<usize>, Expr) {
        let (i, j, k, l) = (0, 1, 2, 3);
        let which = self
            .rng
            .weighted(&[14, 9, 14, 7, 4, 5, 8, 4, 5, 6, 3, 21, 8]);
        match which {
            12 => {
                // A wide sum: more iterators per loop than a merge lattice takes.
                let order = self.rng.range(1, 3);
                let base: Vec<usize> = (0..order).collect();
                let operands = self.rng.range(4, 10);
                let mut e = self.new_acc(&base);
                for _ in 1..operands {
                    let mut b = self.new_acc(&base);
                    if self.rng.chance(0.25) {
                        let c = self.new_acc(&base);
                        b = Expr::bin(Op::Mul, b, c);
                    }
                    let op = [Op::Add, Op::Sub][self.rng.weighted(&[3, 1])];
                    e = Expr::bin(op, e, b);
                }
                ("wide", Some(order), e)
            }
            0 => {
                let a = self.new_acc(&[i, j]);
                let x = self.new_acc(&[j]);
                ("spmv", Some(1), Expr::bin(Op::Mul, a, x))
            }
            1 => {
                let a = self.new_acc(&[i, j]);
                let b = self.new_acc(&[j, k]);
                ("spmm", Some(2), Expr::bin(Op::Mul, a, b))
            }
            2 => {
                let order = self.rng.range(1, 3);
                let base: Vec<usize> = (0..order).collect();
                let operands = self.rng.range(2, 3);
                let mut e = self.new_acc(&base);
                for _ in 1..operands {
                    let mut vars = base.clone();
                    if self.rng.chance(0.2) {
                        self.rng.shuffle(&mut vars);
                    }
                    let b = self.new_acc(&vars);
                    let op = [Op::Add, Op::Sub, Op::Mul][self.rng.weighted(&[5, 2, 4])];
                    e = Expr::bin(op, e, b);
                }
                ("elementwise", Some(order), e)
            }
            3 => {
                let b = self.new_acc(&[i, j, k]);
                let c = self.new_acc(&[k]);
                ("ttv", Some(2), Expr::bin(Op::Mul, b, c))
            }
            4 => {
                let b = self.new_acc(&[i, j, l]);
                let c = self.new_acc(&[k, l]);
                ("ttm", Some(3), Expr::bin(Op::Mul, b, c))
            }
            5 => {
                // A(i,j) = B(i,k,l) * C(k,j) * D(l,j)
                let b = self.new_acc(&[i, k, l]);
                let c = self.new_acc(&[k, j]);
                let d = self.new_acc(&[l, j]);
                (
                    "mttkrp",
                    Some(2),
                    Expr::bin(Op::Mul, Expr::bin(Op::Mul, b, c), d),
                )
            }
            6 => {
                let e = match self.rng.below(3) {
                    0 => {
                        let x = self.new_acc(&[i]);
                        let y = self.new_acc(&[i]);
                        Expr::bin(Op::Mul, x, y)
                    }
                    1 => {
                        let x = self.new_acc(&[i]);
                        let a = self.new_acc(&[i, j]);
                        let y = self.new_acc(&[j]);
                        Expr::bin(Op::Mul, Expr::bin(Op::Mul, x, a), y)
                    }
                    _ => {
                        let a = self.new_acc(&[i, j]);
                        let b = self.new_acc(&[i, j]);
                        Expr::bin(Op::Mul, a, b)
                    }
                };
                ("dot", Some(0), e)
            }
            7 => {
                let x = self.new_acc(&[i]);
                let y = self.new_acc(&[j]);
                ("outer", Some(2), Expr::bin(Op::Mul, x, y))
            }
            8 => {
                // The same tensor twice, possibly transposed.
                let e = if self.rng.chance(0.5) {
                    let b = self.tensor(2);
                    let x = self.acc(b, &[i, j]);
                    let y = self.acc(b, &[j, i]);
                    Expr::bin(Op::Mul, x, y)
                } else {
                    let a = self.tensor(1);
                    let x = self.acc(a, &[i]);
                    let y = self.acc(a, &[i]);
                    let z = self.new_acc(&[i]);
                    Expr::bin(Op::Add, Expr::bin(Op::Mul, x, y), z)
                };
                ("self", None, e)
            }
            9 => {
                // y(i) = b(i) - A(i,j) * x(j)
                let b = self.new_acc(&[i]);
                let a = self.new_acc(&[i, j]);
                let x = self.new_acc(&[j]);
                let op = if self.rng.chance(0.7) {
                    Op::Sub
                } else {
                    Op::Add
                };
                (
                    "residual",
                    Some(1),
                    Expr::bin(op, b, Expr::bin(Op::Mul, a, x)),
                )
            }
            10 => {
                // An order-4 operand.
                let a = self.new_acc(&[i, j, k, l]);
                let b = self.new_acc(&[k, l]);
                ("order4", Some(2), Expr::bin(Op::Mul, a, b))
            }
            _ => {
                let nv = self.rng.range(1, MAX_VARS);
                self.n_vars = nv;
                let depth = self.rng.range(1, 3);
                let mut e = self.random_tree(depth, nv);
                if e.vars().is_empty() {
                    let vars = self.some_vars(1, nv);
                    let t = self.new_acc(&vars);
                    e = Expr::bin(Op::Mul, e, t);
                }
                ("random", None, e)
            }
        }
    }

    /// A random expression tree over variables `0..nv`.
    pub(crate) fn random_tree(&mut self, depth: usize, nv: usize) -> Expr {
        if depth == 0 || self.rng.chance(0.25) {
            return self.random_leaf(nv);
        }
        match self.rng.weighted(&[25, 14, 40, 8, 7, 6]) {
            0..=2 => {
                let op = [Op::Add, Op::Sub, Op::Mul][self.rng.weighted(&[25, 14, 40])];
                let l = self.random_tree(depth - 1, nv);
                let r = self.random_tree(depth - 1, nv);
                Expr::bin(op, l, r)
            }
            3 => {
                let l = self.random_tree(depth - 1, nv);
                let d = self.divisor(nv, 1);
                Expr::bin(Op::Div, l, d)
            }
            4 => Expr::negate(self.random_tree(depth - 1, nv)),
            _ => Expr::paren(self.random_tree(depth - 1, nv)),
        }
    }

    pub(crate) fn random_leaf(&mut self, nv: usize) -> Expr {
        match self.rng.weighted(&[80, 8, 12]) {
            0 => {
                let reusable: Vec<usize> = (0..self.params.len())
                    .filter(|&p| self.orders[p] > 0 && self.orders[p] <= nv)
                    .collect();
                if !reusable.is_empty() && self.rng.chance(0.2) {
                    let t = *self.rng.pick(&reusable);
                    let vars = self.some_vars(self.orders[t], nv);
                    self.acc(t, &vars)
                } else {
                    let order = self.rng.range(1, nv.min(MAX_ORDER));
                    let vars = self.some_vars(order, nv);
                    self.new_acc(&vars)
                }
            }
            1 => {
                let s = self.scalar_read().unwrap_or_else(|| self.scalar_param());
                Expr::Scalar { param: s }
            }
            _ => self.literal(false),
        }
    }

    /// A divisor: accesses of (later all-dense) tensors, positive literals and scalars,
    /// combined with `+` and `*`.
    pub(crate) fn divisor(&mut self, nv: usize, depth: usize) -> Expr {
        if depth > 0 && self.rng.chance(0.3) {
            let op = if self.rng.chance(0.5) {
                Op::Add
            } else {
                Op::Mul
            };
            let l = self.divisor(nv, depth - 1);
            let r = self.divisor(nv, depth - 1);
            return Expr::bin(op, l, r);
        }
        match self.rng.weighted(&[6, 2, 2]) {
            0 => {
                let order = self.rng.range(1, nv.clamp(1, 2));
                let vars = self.some_vars(order, nv.max(1));
                let t = self.tensor(order);
                self.divisor[t] = true;
                self.fill_sets[t] &= crate::features::POSITIVE;
                self.acc(t, &vars)
            }
            1 => match self.scalar_read() {
                // A value an earlier statement computed may be 0: an integer divides by
                // its square plus one.
                Some(s) if self.vt == ValTy::I64 => {
                    let x = Expr::Scalar { param: s };
                    let one = Expr::Lit {
                        text: "1".into(),
                        value: 1.0,
                    };
                    Expr::paren(Expr::bin(Op::Add, Expr::bin(Op::Mul, x.clone(), x), one))
                }
                Some(s) => Expr::Scalar { param: s },
                None => Expr::Scalar {
                    param: self.scalar_param(),
                },
            },
            _ => self.literal(true),
        }
    }

    /// Wraps the template in scalars, literals, negation, extra terms, divisors, parentheses.
    pub(crate) fn decorate(&mut self, mut e: Expr) -> Expr {
        let nv = self.n_vars.max(1);
        for _ in 0..self.rng.below(3) {
            if e.depth() >= MAX_DEPTH {
                break;
            }
            e = match self.rng.weighted(&[20, 8, 14, 6, 6, 10, 4, 6]) {
                0 => {
                    let s = Expr::Scalar {
                        param: self.scalar_read().unwrap_or_else(|| self.scalar_param()),
                    };
                    if self.rng.chance(0.6) {
                        Expr::bin(Op::Mul, s, e)
                    } else {
                        Expr::bin(Op::Mul, e, s)
                    }
                }
                1 => {
                    let lit = self.literal(false);
                    Expr::bin(Op::Mul, lit, e)
                }
                2 => {
                    let n = self.rng.range(1, nv.min(3));
                    let vars = self.some_vars(n, nv);
                    let t = self.new_acc(&vars);
                    let op = if self.rng.chance(0.7) {
                        Op::Add
                    } else {
                        Op::Sub
                    };
                    if self.rng.chance(0.5) {
                        Expr::bin(op, e, t)
                    } else {
                        Expr::bin(op, t, e)
                    }
                }
                3 => {
                    let lit = self.literal(false);
                    Expr::bin(Op::Add, e, lit)
                }
                4 => Expr::negate(e),
                5 => {
                    let d = self.divisor(nv, 1);
                    let e = if matches!(e, Expr::Bin(Op::Add | Op::Sub, ..)) || self.rng.chance(0.3)
                    {
                        Expr::paren(e)
                    } else {
                        e
                    };
                    Expr::bin(Op::Div, e, d)
                }
                6 => Expr::paren(e),
                _ => {
                    // A dense operand inside a parenthesised sum times another operand.
                    let n = self.rng.range(1, nv.min(2));
                    let vars = self.some_vars(n, nv);
                    let t = self.new_acc(&vars);
                    let n2 = self.rng.range(1, nv.min(2));
                    let vars2 = self.some_vars(n2, nv);
                    let u = self.new_acc(&vars2);
                    Expr::bin(Op::Mul, Expr::paren(Expr::bin(Op::Add, e, t)), u)
                }
            };
        }
        e
    }

    /// Chooses the output, names, formats and the statement's details.
    pub(crate) fn finish(
        &mut self,
        seed: u64,
        template: &'static str,
        out_order_hint: Option<usize>,
        rhs: Expr,
    ) -> Kernel {
        // Variables of explicit reductions are theirs: never the output's.
        let used: Vec<usize> = rhs.free_vars().into_iter().collect();
        let out_vars = self.out_vars(&used, out_order_hint);
        let out_order = out_vars.len();
        // Renumber variables densely.
        let n_vars = self
            .n_vars
            .max(rhs.vars().iter().map(|v| v + 1).max().unwrap_or(0));
        self.finish_with(seed, template, out_vars, out_order, n_vars, rhs)
    }

    /// The output variables of a statement: a subset of the used ones, usually the template's.
    pub(crate) fn out_vars(&mut self, used: &[usize], out_order_hint: Option<usize>) -> Vec<usize> {
        let want = match out_order_hint {
            Some(o) if self.rng.chance(0.85) => o,
            _ => self.rng.below(4),
        };
        let out_order = want.min(used.len()).min(3);
        let mut out_vars = if out_order_hint.is_some() && want == out_order {
            // Templates list output variables first.
            (0..out_order)
                .filter(|v| used.contains(v))
                .collect::<Vec<_>>()
        } else {
            Vec::new()
        };
        if out_vars.len() != out_order {
            let mut pool = used.to_vec();
            self.rng.shuffle(&mut pool);
            pool.truncate(out_order);
            out_vars = pool;
        }
        if out_order > 1 && self.rng.chance(0.15) {
            self.rng.shuffle(&mut out_vars);
        }
        out_vars
    }

    fn finish_with(
        &mut self,
        seed: u64,
        template: &'static str,
        out_vars: Vec<usize>,
        out_order: usize,
        n_vars: usize,
        rhs: Expr,
    ) -> Kernel {
        // The output parameter.
        let out_kind = if out_order == 0 {
            ParamKind::ScalarOut
        } else {
            ParamKind::Output(Format::alias("Dense1", None))
        };
        let out_param = Param::new(String::new(), out_kind);
        let mut params = std::mem::take(&mut self.params);
        let mut orders = std::mem::take(&mut self.orders);
        let mut divisor = std::mem::take(&mut self.divisor);
        let mut fill_sets = std::mem::take(&mut self.fill_sets);
        let out_pos = if self.rng.chance(0.75) {
            0
        } else {
            self.rng.below(params.len() + 1)
        };
        params.insert(out_pos, out_param);
        orders.insert(out_pos, out_order);
        divisor.insert(out_pos, false);
        fill_sets.insert(out_pos, crate::features::ALL);
        let rhs = shift_params(rhs, out_pos);

        let mut k = Kernel {
            id: seed,
            template,
            vt: self.vt,
            params,
            out: out_pos,
            out_vars,
            accumulate: false,
            subtract: false,
            rhs,
            var_names: vec![String::new(); n_vars],
            semicolon: self.rng.chance(0.5),
            schedule: None,
            statements: Vec::new(),
            temporaries: Vec::new(),
            feature: self.feature,
            windows: Vec::new(),
            term_by_term: false,
        };
        self.name(&mut k);
        self.assign_formats(&mut k, &orders, &divisor);
        if self.feature {
            self.assign_fills(&mut k, &fill_sets, &divisor);
        }
        k
    }

    fn name(&mut self, k: &mut Kernel) {
        let tricky = self.rng.chance(P_TRICKY_NAMES);
        let raw = self.rng.chance(P_RAW_NAMES);
        let upper = self.rng.chance(0.1);
        let mut taken: Vec<String> = Vec::new();
        let key = |s: &str| s.trim_start_matches("r#").to_string();
        // Tensors and scalars first (tricky variable names refer to them).
        let order: Vec<usize> = (0..k.params.len()).collect();
        for p in order {
            let pool: Vec<String> = match k.params[p].kind {
                ParamKind::ScalarIn => SCALARS.iter().map(|s| s.to_string()).collect(),
                ParamKind::ScalarOut => SCALAR_OUTS.iter().map(|s| s.to_string()).collect(),
                _ if upper => UPPER_TENSORS
                    .iter()
                    .chain(PLAIN_TENSORS)
                    .map(|s| s.to_string())
                    .collect(),
                _ => PLAIN_TENSORS.iter().map(|s| s.to_string()).collect(),
            };
            let mut name = None;
            if tricky && !taken.is_empty() && self.rng.chance(0.4) {
                let c = self.tricky_name(&taken);
                if !taken.iter().any(|t| key(t) == key(&c)) {
                    name = Some(c);
                }
            }
            let name = name.unwrap_or_else(|| {
                let free: Vec<&String> = pool
                    .iter()
                    .filter(|c| !taken.iter().any(|t| key(t) == key(c)))
                    .collect();
                if free.is_empty() {
                    format!("t{}", taken.len() + 10)
                } else {
                    free[self.rng.below(free.len())].clone()
                }
            });
            taken.push(name.clone());
            k.params[p].name = name;
        }
        for v in 0..k.n_vars() {
            let mut name = None;
            if tricky && self.rng.chance(0.6) {
                let c = self.tricky_name(&taken);
                if !taken.iter().any(|t| key(t) == key(&c)) {
                    name = Some(c);
                }
            }
            let name = name.unwrap_or_else(|| {
                let free: Vec<&&str> = PLAIN_VARS
                    .iter()
                    .filter(|c| !taken.iter().any(|t| key(t) == **c))
                    .collect();
                match free.first() {
                    Some(_) => free[self.rng.below(free.len().min(v + 2))].to_string(),
                    None => format!("v{v}"),
                }
            });
            taken.push(name.clone());
            k.var_names[v] = name;
        }
        if raw {
            // Spell one name as a raw identifier (of a keyword or not).
            let all = k.params.len() + k.n_vars();
            let at = self.rng.below(all);
            let c = self.rng.pick(RAW).to_string();
            let current = if at < k.params.len() {
                k.params[at].name.clone()
            } else {
                k.var_names[at - k.params.len()].clone()
            };
            if !taken.iter().any(|t| *t != current && key(t) == key(&c)) {
                if at < k.params.len() {
                    k.params[at].name = c;
                } else {
                    k.var_names[at - k.params.len()] = c;
                }
            }
        }
        debug_assert!(taken
            .iter()
            .all(|t| t.starts_with("r#") || !KEYWORDS.contains(&t.as_str())));
    }

    /// A name shaped like the compiler's generated locals, built from names already taken.
    fn tricky_name(&mut self, taken: &[String]) -> String {
        let t = self.rng.pick(taken).trim_start_matches("r#").to_string();
        let d = self.rng.below(3);
        match self.rng.below(12) {
            0 => format!("p_{t}{d}"),
            1 => format!("end_{t}{d}"),
            2 => format!("c_{t}{d}"),
            3 => format!("r_{t}{d}"),
            4 => format!("begin_{t}{d}"),
            5 => format!("dim_{t}"),
            6 => format!("t{d}"),
            7 => format!("{t}{d}"),
            8 => format!("{t}_vals"),
            9 => format!("{t}_l{d}"),
            10 => format!("{t}_levels"),
            _ => format!("pos_{t}"),
        }
    }

    fn assign_formats(&mut self, k: &mut Kernel, orders: &[usize], divisor: &[bool]) {
        let sparse_divisor = self.rng.chance(P_SPARSE_DIVISOR);
        let bad_output = self.rng.chance(P_BAD_OUTPUT_FORMAT);
        let keep_no_order = self.rng.chance(P_KEEP_NO_ORDER);
        let mut first = true;
        for _attempt in 0..16 {
            for p in 0..k.params.len() {
                let order = orders[p];
                match k.params[p].kind {
                    ParamKind::Output(_) => {
                        let f = self.output_format(order, bad_output);
                        k.params[p].kind = ParamKind::Output(f);
                    }
                    ParamKind::Input(_) => {
                        let injected = sparse_divisor && first && divisor[p];
                        let f = if injected {
                            self.sparse_format(order)
                        } else if divisor[p]
                            && self.feature
                            && self.rng.chance(P_SPARSE_FILLED_DIVISOR)
                        {
                            // A sparse divisor is legal with a fill value that is not zero.
                            self.sparse_format(order)
                        } else if divisor[p] {
                            self.dense_format(order)
                        } else {
                            self.input_format(order)
                        };
                        k.params[p].kind = ParamKind::Input(f);
                    }
                    _ => {}
                }
            }
            first = false;
            self.cap_sparse_operands(k, orders);
            if k.is_sequence() {
                for s in 0..k.statements.len() {
                    let step = k.step(s);
                    let st = &mut k.statements[s];
                    if matches!(st.target, Target::Temporary(_)) {
                        continue;
                    }
                    st.accumulate = if step.in_place_output() {
                        self.rng.chance(0.3)
                    } else {
                        self.rng.chance(P_SPARSE_ACCUMULATE)
                    };
                    st.subtract = st.accumulate && self.rng.chance(P_SUBTRACT);
                }
            } else {
                k.accumulate = if k.in_place_output() {
                    self.rng.chance(0.3)
                } else {
                    self.rng.chance(P_SPARSE_ACCUMULATE)
                };
            }
            let lims = limitations(k);
            if !lims.contains(&Limitation::Order) || keep_no_order {
                return;
            }
        }
    }

    /// Keeps at most [`MAX_SPARSE_OPERANDS`] non-dense accesses.
    /// (In every statement of a sequence.)
    fn cap_sparse_operands(&mut self, k: &mut Kernel, orders: &[usize]) {
        let rhss: Vec<&Expr> = if k.is_sequence() {
            k.statements.iter().map(|s| &s.rhs).collect()
        } else {
            vec![&k.rhs]
        };
        let counts: Vec<Vec<usize>> = rhss
            .iter()
            .map(|rhs| {
                let mut count = vec![0usize; k.params.len()];
                rhs.visit(&mut |e| {
                    if let Expr::Access { param, .. } = e {
                        count[*param] += 1;
                    }
                });
                count
            })
            .collect();
        let sparse_input = |k: &Kernel, p: usize| matches!(&k.params[p].kind, ParamKind::Input(f) if !f.all_dense());
        let mut sparse: Vec<usize> = counts
            .iter()
            .map(|count| {
                (0..k.params.len())
                    .filter(|&p| sparse_input(k, p))
                    .map(|p| count[p])
                    .sum()
            })
            .collect();
        for p in 0..k.params.len() {
            if sparse.iter().all(|&n| n <= MAX_SPARSE_OPERANDS) {
                break;
            }
            if sparse_input(k, p) {
                k.params[p].kind = ParamKind::Input(self.dense_format(orders[p]));
                for (n, count) in sparse.iter_mut().zip(&counts) {
                    *n -= count[p];
                }
            }
        }
    }

    fn index(&mut self) -> Option<IndexTy> {
        [
            None,
            Some(IndexTy::U32),
            Some(IndexTy::U64),
            Some(IndexTy::Usize),
        ][self.rng.weighted(&[6, 1, 2, 2])]
    }

    fn dense_format(&mut self, order: usize) -> Format {
        if order <= 3 && self.rng.chance(0.6) {
            Format::alias(["Dense1", "Dense2", "Dense3"][order - 1], None)
        } else {
            let modes = random_modes(&mut self.rng, order, 0.5);
            Format::explicit(
                &mut self.rng,
                vec![crate::format::Kind::Dense; order],
                modes,
            )
        }
    }

    fn input_format(&mut self, order: usize) -> Format {
        if self.rng.chance(0.25) {
            return self.dense_format(order);
        }
        self.sparse_format(order)
    }

    /// The alias `name` with a random index type (written or not) and, for `Bcsr`, a block
    /// size `R x C` drawn from `1..=MAX_BCSR_BLOCK` each.
    fn alias(&mut self, name: &str) -> Format {
        let index = self.index();
        let consts = REMAPPED
            .iter()
            .find(|r| r.name == name)
            .map_or(0, |r| r.consts.len());
        let consts = (0..consts)
            .map(|_| self.rng.range(1, MAX_BCSR_BLOCK))
            .collect();
        Format::alias_with(name, index, consts)
    }

    /// A format with at least one non-dense level.
    fn sparse_format(&mut self, order: usize) -> Format {
        // The structured formats get a share of their own among the many matrix formats.
        if order == 2 && self.rng.chance(P_STRUCTURED) {
            let name = *self.rng.pick(STRUCTURED);
            return self.alias(name);
        }
        let aliases: Vec<&str> = ALIASES
            .iter()
            .filter(|a| Format::alias(a.0, None).order() == order && !a.0.starts_with("Dense"))
            .map(|a| a.0)
            .collect();
        if !aliases.is_empty() && self.rng.chance(0.5) {
            let name = *self.rng.pick(&aliases);
            return self.alias(name);
        }
        let kinds = loop {
            let kinds = random_valid_kinds(&mut self.rng, order);
            if kinds.iter().any(|k| *k != crate::format::Kind::Dense) {
                break kinds;
            }
        };
        let modes = random_modes(&mut self.rng, order, 0.6);
        Format::explicit(&mut self.rng, kinds, modes)
    }

    fn output_format(&mut self, order: usize, bad: bool) -> Format {
        if bad {
            // An input-only alias (a remapped view, or levels without assembly).
            if order == 2 && self.rng.chance(0.25) {
                let name = *self.rng.pick(INPUT_ONLY);
                return self.alias(name);
            }
            if let Some(kinds) = random_unassemblable_kinds(&mut self.rng, order) {
                let modes = random_modes(&mut self.rng, order, 0.7);
                return Format::explicit(&mut self.rng, kinds, modes);
            }
        }
        if self.rng.chance(0.4) {
            return self.dense_format(order);
        }
        // Only aliases whose levels assemble (none of `INPUT_ONLY`).
        let aliases: Vec<&str> = ALIASES
            .iter()
            .filter(|a| a.1.len() == order && !a.0.starts_with("Dense"))
            .filter(|a| !INPUT_ONLY.contains(&a.0))
            .filter(|a| Format::alias(a.0, None).assemblable())
            .map(|a| a.0)
            .collect();
        if !aliases.is_empty() && self.rng.chance(0.5) {
            let name = *self.rng.pick(&aliases);
            return self.alias(name);
        }
        let kinds = random_assemblable_kinds(&mut self.rng, order);
        let modes = random_modes(&mut self.rng, order, 0.7);
        Format::explicit(&mut self.rng, kinds, modes)
    }
}

/// Renumbers parameter references after inserting the output at `at`.
fn shift_params(e: Expr, at: usize) -> Expr {
    let s = |p: usize| if p >= at { p + 1 } else { p };
    e.map_leaves(&|leaf| match leaf {
        Expr::Access { param, vars } => Expr::Access {
            param: s(param),
            vars,
        },
        Expr::Scalar { param } => Expr::Scalar { param: s(param) },
        other => other,
    })
}
