//! Merge lattices (taco, section 5; Chou 2018, section 4.2). A lattice for index variable `v`
//! lists the lattice points that one loop over `v` may pass through: each point is the set of
//! level iterators still being merged and the subexpression that is nonzero there.

use crate::notation::{AccessId, BinOp, Expr};

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
}

/// One lattice point: the iterators merged in its loop and the expression computed there.
#[derive(Clone, Debug)]
pub struct LatticePoint {
    /// Sorted, without duplicates.
    pub iters: Vec<Iter>,
    /// The subexpression of the operands whose iterators are in `iters`.
    pub expr: Expr,
}

impl LatticePoint {
    fn new(mut iters: Vec<Iter>, expr: Expr) -> Self {
        iters.sort_unstable();
        iters.dedup();
        LatticePoint { iters, expr }
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
    pub fn build(expr: &Expr, info: &impl LevelInfo) -> MergeLattice {
        let mut lattice = construct(expr, info);
        lattice.cover_constants();
        lattice.prune_unreachable(info);
        lattice
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

fn construct(expr: &Expr, info: &impl LevelInfo) -> MergeLattice {
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
        Expr::Scalar(_) | Expr::Literal(_) => single(Vec::new()),
        Expr::Neg(e) => map(construct(e, info), |e| Expr::Neg(Box::new(e))),
        Expr::Sum(vars, e) => map(construct(e, info), |e| Expr::Sum(vars.clone(), Box::new(e))),
        Expr::Binary(op, l, r) => {
            let (l, r) = (construct(l, info), construct(r, info));
            match op {
                BinOp::Mul | BinOp::Div => conjunction(*op, &l, &r),
                BinOp::Add | BinOp::Sub => disjunction(*op, l, r),
            }
        }
    }
}

fn map(mut lattice: MergeLattice, f: impl Fn(Expr) -> Expr) -> MergeLattice {
    for p in &mut lattice.points {
        let e = std::mem::replace(&mut p.expr, Expr::Scalar(0));
        p.expr = f(e);
    }
    lattice
}

/// `l ∧ r`: every pair of points, iterators united, expressions combined.
fn conjunction(op: BinOp, l: &MergeLattice, r: &MergeLattice) -> MergeLattice {
    let mut points = Vec::new();
    for a in &l.points {
        for b in &r.points {
            let iters = a.iters.iter().chain(&b.iters).copied().collect();
            points.push(LatticePoint::new(
                iters,
                Expr::binary(op, a.expr.clone(), b.expr.clone()),
            ));
        }
    }
    let mut lattice = MergeLattice { points };
    lattice.dedup();
    lattice
}

/// `l ∨ r = (l ∧ r) ∪ l ∪ r`; where only the right operand of a subtraction is present the
/// point computes its negation.
fn disjunction(op: BinOp, l: MergeLattice, r: MergeLattice) -> MergeLattice {
    let mut lattice = conjunction(op, &l, &r);
    lattice.points.extend(l.points);
    let right = if op == BinOp::Sub {
        map(r, |e| Expr::Neg(Box::new(e)))
    } else {
        r
    };
    lattice.points.extend(right.points);
    lattice.dedup();
    lattice
}

/// The iterators a point must co-iterate (Chou 2018, 4.4), the universe standing for a part that
/// is nonzero along the whole dimension (a constant): a union co-iterates both sides; an
/// intersection co-iterates one side and locates what it can of the other.
pub fn coiterated(expr: &Expr, info: &impl LevelInfo) -> Vec<Iter> {
    coiterated_within(expr, info, &|_| true)
}

/// [`coiterated`], choosing, where a product can be co-iterated by either side, one that
/// co-iterates no position iterator with `locate` outside `preferred` if there is one.
fn coiterated_within(
    expr: &Expr,
    info: &impl LevelInfo,
    preferred: &dyn Fn(Iter) -> bool,
) -> Vec<Iter> {
    let recurse = |e: &Expr| coiterated_within(e, info, preferred);
    let mut out = match expr {
        Expr::Access(a) => info
            .level_of(*a)
            .map(|level| vec![Iter::Level { access: *a, level }])
            .unwrap_or(vec![Iter::Universe]),
        // Constant along `v`: where it is nonzero, it is nonzero at every coordinate. So a sum
        // with a constant covers the dimension and must be iterated whole, whatever it is
        // then multiplied by (`(g + y(k)) * b(j)` at `j` is nonzero wherever `b` is).
        Expr::Scalar(_) | Expr::Literal(_) => vec![Iter::Universe],
        Expr::Neg(e) | Expr::Sum(_, e) => recurse(e),
        Expr::Binary(BinOp::Add | BinOp::Sub, l, r) => {
            let mut c = recurse(l);
            c.extend(recurse(r));
            c
        }
        // Either side may be the one co-iterated; the other is located where it can be (the
        // universe always can: a constant side lets the other drive). Choose the side that
        // leaves fewer full levels to co-iterate: in `(b + D) * x` that is `x`, so `b` and `x`
        // are merged and `D` is located, rather than walking all of `D`.
        Expr::Binary(BinOp::Mul | BinOp::Div, l, r) => {
            let (cl, cr) = (recurse(l), recurse(r));
            let sparse = |c: &[Iter]| -> Vec<Iter> {
                c.iter().copied().filter(|&i| !info.has_locate(i)).collect()
            };
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
            if cost(&right) < cost(&left) {
                right
            } else {
                left
            }
        }
    };
    out.sort_unstable();
    out.dedup();
    out
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
    pub fn of(lattice: &MergeLattice, info: &impl LevelInfo) -> Strategy {
        let top = lattice
            .points
            .first()
            .map(|p| coiterated(&p.expr, info))
            .unwrap_or_default();
        let preferred = |i: Iter| top.contains(&i);
        let coiterated: Vec<Vec<Iter>> = lattice
            .points
            .iter()
            .map(|p| coiterated_within(&p.expr, info, &preferred))
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
        let exhausts = counts.iter().zip(&drivers).any(|(&c, d)| c && d.is_empty());
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
