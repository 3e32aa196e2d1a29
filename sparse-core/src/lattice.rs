//! Merge lattices (taco, section 5; Chou 2018, section 4.2). A lattice for index variable `v`
//! lists the lattice points that one loop over `v` may pass through: each point is the set of
//! level iterators still being merged and the subexpression that is nonzero there.

use crate::algebra::{applied, fill_of, rebuild, region_of, Region};
use crate::notation::{AccessId, BinOp, Expr, Kernel};

/// An iterator over the coordinates of index variable `v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Iter {
    /// Level `level` of access `access`.
    Level {
        /// The access (tensor occurrence).
        access: AccessId,
        /// Its storage level that stores `v`.
        level: usize,
    },
    /// Every coordinate of `v`'s dimension: needed where a subexpression is nonzero even when
    /// no tensor stores the coordinate (a scalar added to a sparse operand).
    Universe,
}

/// What the lattice builder needs to know about the levels of the current loop.
pub trait LevelInfo {
    /// The level of `access` that iterates the current index variable, if any.
    fn level_of(&self, access: AccessId) -> Option<usize>;
    /// Whether the iterator's level is full (stores every coordinate).
    fn is_full(&self, it: Iter) -> bool;
    /// Whether the iterator's level supports `locate`.
    fn has_locate(&self, it: Iter) -> bool;
    /// Whether the iterator can enumerate its coordinates by position here: its level
    /// iterates by position and, if it could be located instead, its parent is resolved
    /// (a level reached out of storage order can only be located).
    fn iterates_positions(&self, it: Iter) -> bool;
    /// Whether the access's presence is decided once the current loop's levels are: it has
    /// no level below them. An access with levels left may still be absent below a
    /// coordinate where it is present here (`m(i, l)` at `i`, `m(l)` not iterated at `i`).
    fn settled(&self, access: AccessId) -> bool;
}

/// One lattice point: the iterators merged in its loop and the expression computed there.
#[derive(Clone, Debug)]
pub struct LatticePoint {
    /// Sorted, without duplicates.
    pub iters: Vec<Iter>,
    /// The subexpression of the operands whose iterators are in `iters` (an absent operand
    /// replaced by its fill value).
    pub expr: Expr,
    /// The expression whose operands the point's loop merges: `expr`, except where an
    /// argument sits at one of its omitter points, whose operands are still merged (to tell
    /// its coordinates from its producers') though its value is its fill.
    pub merged: Expr,
    /// An omitter point (Henry et al. 2021, section 6.2): where its iterators are present
    /// the result is its fill value, so its case computes nothing. It is kept only to tell
    /// its coordinates from those of the points it dominates (`a & !b`: where `b` is
    /// present, nothing; where only `a` is, `a`).
    pub omit: bool,
}

impl LatticePoint {
    fn new(iters: Vec<Iter>, expr: Expr) -> Self {
        Self::with(iters, expr, false)
    }

    fn with(iters: Vec<Iter>, expr: Expr, omit: bool) -> Self {
        Self::merging(iters, expr.clone(), expr, omit)
    }

    fn merging(mut iters: Vec<Iter>, expr: Expr, merged: Expr, omit: bool) -> Self {
        iters.sort_unstable();
        iters.dedup();
        LatticePoint {
            iters,
            expr,
            merged,
            omit,
        }
    }

    /// Whether every iterator of `other` is in `self` (`other` is dominated by `self`).
    pub fn dominates(&self, other: &LatticePoint) -> bool {
        other.iters.iter().all(|i| self.iters.contains(i))
    }
}

/// A merge lattice: points ordered so that each comes before the points it dominates.
#[derive(Clone, Debug)]
pub struct MergeLattice {
    /// The points, top first.
    pub points: Vec<LatticePoint>,
}

impl MergeLattice {
    /// Builds the optimized lattice of `expr` for the current index variable.
    pub fn build(expr: &Expr, kernel: &Kernel, info: &impl LevelInfo) -> MergeLattice {
        let mut lattice = construct(expr, kernel, info);
        lattice.cover_constants();
        lattice.prune_unreachable(info);
        lattice.prune_omitters();
        lattice
    }

    /// Whether some point omits its coordinates: the loops then do not write every
    /// coordinate they visit.
    pub fn omits(&self) -> bool {
        self.points.iter().any(|p| p.omit)
    }

    /// Algorithm 1 of Henry et al. 2021, last step: an omitter point that dominates no
    /// producer point has nothing to tell apart; without it its coordinates are not visited,
    /// which is the same as visiting them to do nothing.
    fn prune_omitters(&mut self) {
        let producers: Vec<LatticePoint> =
            self.points.iter().filter(|p| !p.omit).cloned().collect();
        self.points
            .retain(|p| !p.omit || producers.iter().any(|q| p.dominates(q)));
    }

    fn has_empty_point(&self) -> bool {
        self.points.iter().any(|p| p.iters.is_empty())
    }

    /// Points that must be merged below `top` (its sub-lattice, itself included).
    pub fn sub_points<'a>(
        &'a self,
        top: &'a LatticePoint,
    ) -> impl Iterator<Item = &'a LatticePoint> {
        self.points.iter().filter(move |p| top.dominates(p))
    }

    /// How many cases the merge loops emit: each point's loop has one per point of its
    /// sub-lattice.
    pub fn cases(&self) -> usize {
        self.points.iter().map(|p| self.sub_points(p).count()).sum()
    }

    /// A point without iterators computes something nonzero everywhere (a constant with
    /// respect to `v`), so every point must also walk the whole dimension.
    fn cover_constants(&mut self) {
        if self.points.iter().any(|p| p.iters.is_empty()) {
            for p in &mut self.points {
                p.iters.push(Iter::Universe);
                p.iters.sort_unstable();
            }
            self.dedup();
        }
    }

    /// Chou 2018, 4.2, stated so that it holds for any expression: a point `Q` is never
    /// reached when the lattice has a point `P` that contains `Q`'s iterators plus only full
    /// ones. `P` comes first; its loop ends either because a full iterator is exhausted (the
    /// whole dimension is done) or because one of `Q`'s iterators is (so `Q`'s loop runs
    /// zero times); and as a case `P` matches exactly where `Q` would, full levels always
    /// being present. (Pruning a point merely for lacking a full iterator of the top point is
    /// wrong when that iterator sits in an intersection: in `(b + D) * x + d` the `d`-only
    /// point is reached when `x` runs out, long before `D` does.)
    fn prune_unreachable(&mut self, info: &impl LevelInfo) {
        let all = self.points.clone();
        self.points.retain(|q| {
            !all.iter().any(|p| {
                p.iters.len() > q.iters.len()
                    && p.dominates(q)
                    && p.iters
                        .iter()
                        .filter(|i| !q.iters.contains(i))
                        .all(|&i| info.is_full(i))
            })
        });
    }

    /// Keeps the first point of each iterator set (the one computing the most operands) and
    /// orders points by decreasing size so each precedes those it dominates.
    fn dedup(&mut self) {
        let mut kept: Vec<LatticePoint> = Vec::new();
        for p in self.points.drain(..) {
            if !kept.iter().any(|k| k.iters == p.iters) {
                kept.push(p);
            }
        }
        kept.sort_by_key(|p| std::cmp::Reverse(p.iters.len()));
        self.points = kept;
    }
}

fn construct(expr: &Expr, kernel: &Kernel, info: &impl LevelInfo) -> MergeLattice {
    let single = |iters: Vec<Iter>| MergeLattice {
        points: vec![LatticePoint::new(iters, expr.clone())],
    };
    match expr {
        Expr::Access(a) => single(
            info.level_of(*a)
                .map(|level| Iter::Level { access: *a, level })
                .into_iter()
                .collect(),
        ),
        Expr::Scalar(_) | Expr::Literal(_) | Expr::Const(_) => single(Vec::new()),
        Expr::Neg(e) => map(construct(e, kernel, info), |e| Expr::Neg(Box::new(e))),
        Expr::Sum(_, body) | Expr::Reduce(_, _, body) => reduction(expr, body, kernel, info),
        Expr::Binary(..) | Expr::Call(..) => apply(expr, kernel, info),
    }
}

/// The lattice of a reduction is its body's. Where the body's fill value is not the
/// reduction's identity (`Σ_j exp(a(j))`, `min[j]` over a zero-filled operand), every
/// coordinate contributes, so the reduction covers the dimension: a point without
/// iterators computes the fill's contribution, and omitted points contribute it too.
fn reduction(expr: &Expr, body: &Expr, kernel: &Kernel, info: &impl LevelInfo) -> MergeLattice {
    let wrap = |e: Expr| match expr {
        Expr::Sum(vars, _) => Expr::Sum(vars.clone(), Box::new(e)),
        Expr::Reduce(f, vars, _) => Expr::Reduce(*f, vars.clone(), Box::new(e)),
        other => other.clone(),
    };
    let mut lattice = map(construct(body, kernel, info), wrap);
    if fill_of(kernel, expr).is_some() {
        return lattice;
    }
    let Some(body_fill) = fill_of(kernel, body) else {
        return lattice;
    };
    for p in &mut lattice.points {
        if p.omit {
            p.omit = false;
            p.expr = wrap(body_fill.clone());
        }
    }
    if !lattice.has_empty_point() {
        lattice
            .points
            .push(LatticePoint::new(Vec::new(), wrap(body_fill)));
    }
    lattice
}

fn map(mut lattice: MergeLattice, f: impl Fn(Expr) -> Expr) -> MergeLattice {
    for p in &mut lattice.points {
        let e = std::mem::replace(&mut p.expr, Expr::Scalar(0));
        p.expr = f(e);
        let m = std::mem::replace(&mut p.merged, Expr::Scalar(0));
        p.merged = f(m);
    }
    lattice
}

/// One way an argument of a node can be at a coordinate.
struct ArgAt {
    iters: Vec<Iter>,
    /// Its value there: its point's expression, or its fill value.
    expr: Expr,
    /// The expression used to decide how the point is merged (an omitted argument's
    /// operands are still merged).
    merged: Expr,
    /// Whether it may differ from its fill value there.
    present: bool,
    /// Present here, but its presence is decided by loops below (an operand has levels left):
    /// it may yet be absent there.
    maybe: bool,
}

/// The lattice of an operator or a call (Henry et al. 2021, Algorithm 1, stated over the
/// node's region): one point per way its arguments can be at a coordinate (each argument at
/// one of its own points, or absent where it can be), ordered by decreasing number of
/// arguments present; a point outside the region is an omitter. With a region that grows
/// with its arguments (every derived one), the omitters dominate no producer and are
/// pruned: `a * b` is `{a, b}`, `a + b` is `{a, b}, {a}, {b}`, as in taco.
fn apply(expr: &Expr, kernel: &Kernel, info: &impl LevelInfo) -> MergeLattice {
    let (Some((_, args)), Some(region)) = (applied(kernel, expr), region_of(kernel, expr)) else {
        return MergeLattice { points: Vec::new() };
    };
    let options: Vec<Vec<ArgAt>> = args
        .iter()
        .map(|arg| arg_options(arg, kernel, info))
        .collect();
    let n = args.len();
    let mut points = Vec::new();
    // Every choice of one option per argument, the ones with more arguments present first
    // (so that each point precedes the points it dominates, as dedup then keeps them).
    let mut choices: Vec<Vec<usize>> = vec![Vec::new()];
    for opts in &options {
        choices = choices
            .into_iter()
            .flat_map(|c| {
                (0..opts.len()).map(move |k| {
                    let mut c = c.clone();
                    c.push(k);
                    c
                })
            })
            .collect();
    }
    let present_count = |c: &Vec<usize>| (0..n).filter(|&i| options[i][c[i]].present).count();
    choices.sort_by_key(|c| std::cmp::Reverse(present_count(c)));
    for choice in choices {
        let chosen: Vec<&ArgAt> = (0..n).map(|i| &options[i][choice[i]]).collect();
        let iters: Vec<Iter> = chosen.iter().flat_map(|o| o.iters.clone()).collect();
        let present: Vec<bool> = chosen.iter().map(|o| o.present).collect();
        if iters.is_empty() && !present.iter().any(|&p| p) {
            continue;
        }
        // A point produces where the region can hold, over either presence of the arguments
        // that loops below decide (`x & !m(l)` at `i` may hold wherever `x` is present).
        let maybe: Vec<bool> = chosen.iter().map(|o| o.maybe).collect();
        let produces = region.may_hold(&present, &maybe);
        let merged = simplify(rebuild(
            expr,
            chosen.iter().map(|o| o.merged.clone()).collect(),
        ));
        let value = match produces {
            true => simplify(rebuild(
                expr,
                chosen.iter().map(|o| o.expr.clone()).collect(),
            )),
            false => merged.clone(),
        };
        points.push(LatticePoint::merging(iters, value, merged, !produces));
    }
    let mut lattice = MergeLattice { points };
    lattice.dedup();
    // An omitter that tells no producer apart is the node at its fill, as if absent.
    lattice.prune_omitters();
    lattice
}

/// The ways one argument can be at a coordinate: at each point of its own lattice, or absent
/// (at its fill value) where it has no point without iterators.
fn arg_options(arg: &Expr, kernel: &Kernel, info: &impl LevelInfo) -> Vec<ArgAt> {
    let lattice = construct(arg, kernel, info);
    let fill = fill_of(kernel, arg);
    let mut options: Vec<ArgAt> = lattice
        .points
        .iter()
        .map(|p| ArgAt {
            iters: p.iters.clone(),
            expr: if p.omit {
                fill.clone().unwrap_or_else(|| p.expr.clone())
            } else {
                p.expr.clone()
            },
            merged: p.merged.clone(),
            // A fill substituted for an absent operand is not present (`unless(s, 0)` where
            // the mask is not stored holds; a literal is present everywhere).
            present: !p.omit && !is_fill(&p.expr),
            maybe: !p.omit && !is_fill(&p.expr) && unsettled(&p.expr, info),
        })
        .collect();
    if let (false, Some(fill)) = (lattice.has_empty_point(), fill) {
        options.push(ArgAt {
            iters: Vec::new(),
            expr: fill.clone(),
            merged: fill,
            present: false,
            maybe: false,
        });
    }
    options
}

/// Whether some operand of `e` has levels below the current loop's.
fn unsettled(e: &Expr, info: &impl LevelInfo) -> bool {
    let mut accesses = Vec::new();
    e.accesses(&mut accesses);
    accesses.iter().any(|&a| !info.settled(a))
}

/// Whether `e` is made of fill values alone (what an absent operand becomes at a point).
fn is_fill(e: &Expr) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::Neg(_) | Expr::Binary(..) | Expr::Call(..) => e.children().into_iter().all(is_fill),
        _ => false,
    }
}

/// The simplifications taco's lattices make by construction, so that zero-filled operands
/// compute what they always did: `x + 0` is `x`, `0 + x` is `x`, `x - 0` is `x`, `0 - x` is
/// `-x`.
fn simplify(e: Expr) -> Expr {
    let zero = |e: &Expr| matches!(e, Expr::Const(c) if c.is_zero());
    match e {
        Expr::Binary(BinOp::Add | BinOp::Sub, l, r) if zero(&r) => *l,
        Expr::Binary(BinOp::Add, l, r) if zero(&l) => *r,
        Expr::Binary(BinOp::Sub, l, r) if zero(&l) => Expr::Neg(r),
        other => other,
    }
}

/// The iterators a point must co-iterate (Chou 2018, 4.4), the universe standing for a part that
/// is nonzero along the whole dimension (a constant): a union co-iterates both sides; an
/// intersection co-iterates one side and locates what it can of the other.
pub fn coiterated(expr: &Expr, kernel: &Kernel, info: &impl LevelInfo) -> Vec<Iter> {
    coiterated_within(expr, kernel, info, &|_| true)
}

/// [`coiterated`], choosing, where a product can be co-iterated by either side, one that
/// co-iterates no position iterator with `locate` outside `preferred` if there is one.
fn coiterated_within(
    expr: &Expr,
    kernel: &Kernel,
    info: &impl LevelInfo,
    preferred: &dyn Fn(Iter) -> bool,
) -> Vec<Iter> {
    let recurse = |e: &Expr| coiterated_within(e, kernel, info, preferred);
    let mut out = match expr {
        Expr::Access(a) => info
            .level_of(*a)
            .map(|level| vec![Iter::Level { access: *a, level }])
            .unwrap_or(vec![Iter::Universe]),
        // Constant along `v`: where it is nonzero, it is nonzero at every coordinate. So a sum
        // with a constant covers the dimension and must be iterated whole, whatever it is
        // then multiplied by (`(g + y(k)) * b(j)` at `j` is nonzero wherever `b` is).
        Expr::Scalar(_) | Expr::Literal(_) => vec![Iter::Universe],
        // An absent operand's fill value: the point's other operands decide its coordinates.
        Expr::Const(_) => Vec::new(),
        Expr::Neg(e) | Expr::Sum(_, e) | Expr::Reduce(_, _, e) => recurse(e),
        Expr::Binary(..) | Expr::Call(..) => {
            let (Some((_, args)), Some(region)) = (applied(kernel, expr), region_of(kernel, expr))
            else {
                return Vec::new();
            };
            let co: Vec<Vec<Iter>> = args.iter().map(|a| recurse(a)).collect();
            let mut out = over_region(&region, &co, info, preferred).0;
            // Arguments the region does not name only change the value: merged where they
            // cannot be located.
            for (n, c) in co.iter().enumerate() {
                if !mentions(&region, n) {
                    out.extend(c.iter().copied().filter(|&i| !info.has_locate(i)));
                }
            }
            out
        }
    };
    out.sort_unstable();
    out.dedup();
    out
}

fn mentions(region: &Region, n: usize) -> bool {
    match region {
        Region::Arg(m) => *m == n,
        Region::And(a, b) | Region::Or(a, b) => mentions(a, n) || mentions(b, n),
        Region::Not(a) => mentions(a, n),
    }
}

/// The co-iterated set of a region over its arguments' sets, and whether the region can
/// drive a loop (a complement cannot: it holds where its operand has no coordinate).
fn over_region(
    region: &Region,
    co: &[Vec<Iter>],
    info: &impl LevelInfo,
    preferred: &dyn Fn(Iter) -> bool,
) -> (Vec<Iter>, bool) {
    let sparse =
        |c: &[Iter]| -> Vec<Iter> { c.iter().copied().filter(|&i| !info.has_locate(i)).collect() };
    match region {
        Region::Arg(n) => (co.get(*n).cloned().unwrap_or_default(), true),
        Region::Not(a) => (over_region(a, co, info, preferred).0, false),
        Region::Or(a, b) => {
            let (mut ca, da) = over_region(a, co, info, preferred);
            let (cb, db) = over_region(b, co, info, preferred);
            ca.extend(cb);
            (ca, da && db)
        }
        // Either side may be the one co-iterated; the other is located where it can be (the
        // universe always can: a constant side lets the other drive). Choose the side that
        // leaves fewer full levels to co-iterate: in `(b + D) * x` that is `x`, so `b` and `x`
        // are merged and `D` is located, rather than walking all of `D`. A complement never
        // drives.
        Region::And(a, b) => {
            let (cl, dl) = over_region(a, co, info, preferred);
            let (cr, dr) = over_region(b, co, info, preferred);
            let left = [cl.clone(), sparse(&cr)].concat();
            let right = [sparse(&cl), cr].concat();
            let cost = |c: &[Iter]| {
                let avoided =
                    |i: Iter| info.has_locate(i) && info.iterates_positions(i) && !preferred(i);
                (
                    c.iter().filter(|&&i| avoided(i)).count(),
                    c.iter().filter(|&&i| info.has_locate(i)).count(),
                    c.len(),
                )
            };
            let take_right = match (dl, dr) {
                (true, false) => false,
                (false, true) => true,
                _ => cost(&right) < cost(&left),
            };
            if take_right {
                (right, dr)
            } else {
                (left, dl)
            }
        }
    }
}

/// How the loops over a lattice merge: whether they count coordinates, each point's position
/// drivers, and whether they visit every coordinate.
///
/// A point's loop continues the iterators of the loops before it, so every point must be
/// driven by iterators its top point drives too. Where a product may be co-iterated by either
/// side (`h * g`, both hash levels, is driven by `h` or by `g`), the top point's choice is
/// the one every point follows.
pub struct Strategy {
    /// Whether the loops count every coordinate (value iteration): some point co-iterates a
    /// level that iterates by value (or is reached out of storage order), or the universe.
    pub counting: bool,
    /// Whether the loops visit every coordinate of the dimension: some point is driven by a
    /// full iterator alone, so its loop runs to the end of the dimension whatever the sparse
    /// iterators do. (A full iterator next to a sparse one in an intersection does not: that
    /// loop ends with the sparse iterator.)
    pub exhausts: bool,
    /// Per point: its position drivers.
    drivers: Vec<Vec<(AccessId, usize)>>,
}

impl Strategy {
    /// The strategy of `lattice` under the levels of `info`.
    pub fn of(lattice: &MergeLattice, kernel: &Kernel, info: &impl LevelInfo) -> Strategy {
        let top = lattice
            .points
            .first()
            .map(|p| coiterated(&p.merged, kernel, info))
            .unwrap_or_default();
        let preferred = |i: Iter| top.contains(&i);
        let coiterated: Vec<Vec<Iter>> = lattice
            .points
            .iter()
            .map(|p| coiterated_within(&p.merged, kernel, info, &preferred))
            .collect();
        // Per point: whether its loop counts coordinates.
        let counts: Vec<bool> = lattice
            .points
            .iter()
            .zip(&coiterated)
            .map(|(p, c)| {
                p.iters.contains(&Iter::Universe)
                    || c.iter().any(|&it| !info.iterates_positions(it))
            })
            .collect();
        let counting = counts.contains(&true);
        // Where the loops count coordinates, every level that can be located is located
        // instead of merged (Chou 2018, 4.2): a hash level in a union with a dense operand is
        // probed per coordinate.
        let drivers: Vec<Vec<(AccessId, usize)>> = coiterated
            .iter()
            .map(|c| {
                c.iter()
                    .filter(|&&it| {
                        info.iterates_positions(it) && !(counting && info.has_locate(it))
                    })
                    .filter_map(|&it| match it {
                        Iter::Level { access, level } => Some((access, level)),
                        Iter::Universe => None,
                    })
                    .collect()
            })
            .collect();
        // Omitted coordinates are visited but not written.
        let exhausts =
            !lattice.omits() && counts.iter().zip(&drivers).any(|(&c, d)| c && d.is_empty());
        Strategy {
            counting,
            exhausts,
            drivers,
        }
    }

    /// The position drivers of point `p` (an index into the lattice's points).
    pub fn drivers(&self, p: usize) -> &[(AccessId, usize)] {
        &self.drivers[p]
    }
}
