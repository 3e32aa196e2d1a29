//! Data cases of a kernel: a size per index variable, a density per input, entries built to be
//! representable in each input's format, stale outputs, and one case with a perturbed shape.

use crate::format::{Format, Kind};
use crate::kernel::{Expr, Kernel, Op, ParamKind, ValTy};
use crate::rng::{mix, Rng};
use std::collections::{BTreeMap, BTreeSet};

/// Regular (consistent-shape) cases per kernel; one perturbed case follows them.
pub const CASES: usize = 7;

/// Largest product of the index variables' sizes (bounds the dense reference's cost).
pub const MAX_ITERATION_SPACE: usize = 4096;

/// Input densities and their weights.
pub const DENSITIES: [(f64, u32); 4] = [(0.0, 1), (0.1, 3), (0.4, 3), (1.0, 2)];

/// Entries in logical coordinates.
pub type Entries = Vec<(Vec<usize>, f64)>;

/// One data case of a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Position among the kernel's cases.
    pub index: usize,
    /// The seed its data was drawn from.
    pub seed: u64,
    /// Size of each index variable.
    pub var_sizes: Vec<usize>,
    /// Per parameter: the density its entries were drawn with (inputs), else 0.
    pub densities: Vec<f64>,
    /// Per parameter: the tensor's shape (empty for scalars).
    pub shapes: Vec<Vec<usize>>,
    /// Per parameter: input entries, or the output's stale entries.
    pub entries: Vec<Entries>,
    /// Per parameter: a scalar input's value, or the scalar output's stale value.
    pub scalars: Vec<f64>,
    /// `(parameter, mode)` whose size was changed: the kernel must return `Err`.
    pub perturbed: Option<(usize, usize)>,
    /// Per parameter: the block size a `Csb` input is built with
    /// (`Csb::from_entries_with_block`); `None`: `Csb::from_entries` and its default block,
    /// or not a `Csb`. See [`csb_block`].
    pub blocks: Vec<Option<usize>>,
    /// Per parameter: the fill value a tensor is built with (`with_fill`): an input's
    /// declared one (0 without a declaration), a stale sparse output's (its declared one, or
    /// for `=` sometimes [`STALE_FILL`]), 0 for the rest.
    pub fills: Vec<f64>,
    /// A sparse input built with a fill value other than its declared one: the kernel must
    /// return `Err` and write nothing.
    pub wrong_fill: Option<usize>,
    /// Per window of the kernel ([`Kernel::windows`]): its bounds and its mode's size here.
    pub windows: Vec<crate::windows::Placement>,
    /// A window reaches past its mode: the kernel must return `Err` and write nothing.
    pub window_past: bool,
}

/// The fill value of a stale sparse output of `=` in the odd cases of a kernel of sparse
/// array programming: the kernel must replace it with the right side's.
pub const STALE_FILL: f64 = 7.0;

/// Probability that an entry of an input of a kernel of sparse array programming is an
/// explicit zero (a stored 0: present, as a structural mask sees it).
pub const P_EXPLICIT_ZERO: f64 = 0.2;

/// The fill value a wrong-fill case builds an input with, instead of its declared `fill`.
pub fn wrong_fill(fill: f64) -> f64 {
    if fill.is_finite() && fill.abs() < 1e15 {
        fill + 1.0
    } else {
        0.0
    }
}

/// The block size of a `Csb` input `p` of shape `shape` in case `index`: cycling with the case
/// (shifted by the parameter, so two `Csb` operands differ) through 1, 2, 3, the default of
/// `Csb::from_entries` (`None`), one more than the matrix's larger side, and 4.
pub fn csb_block(index: usize, p: usize, shape: &[usize]) -> Option<usize> {
    match (index + p) % 6 {
        0 => Some(1),
        1 => Some(2),
        2 => Some(3),
        3 => None,
        4 => Some(shape.iter().copied().max().unwrap_or(0) + 1),
        _ => Some(4),
    }
}

impl Case {
    /// The kernel must report a dimension mismatch or a fill value that differs from the
    /// declared one.
    pub fn expect_err(&self) -> bool {
        self.perturbed.is_some() || self.wrong_fill.is_some() || self.window_past
    }

    /// Sizes, densities and the seed, for findings.
    pub fn describe(&self, k: &Kernel) -> String {
        let sizes: Vec<String> = k
            .var_names
            .iter()
            .zip(&self.var_sizes)
            .map(|(n, s)| format!("{n}={s}"))
            .collect();
        let mut dens = Vec::new();
        for (p, param) in k.params.iter().enumerate() {
            if let ParamKind::Input(f) = &param.kind {
                let mut block = match (f.alias_name(), self.blocks[p]) {
                    (Some("Csb"), Some(b)) => format!(", block {b}"),
                    (Some("Csb"), None) => ", default block".to_string(),
                    _ => String::new(),
                };
                if self.fills[p] != 0.0 {
                    block += &format!(", fill {}", self.fills[p]);
                }
                dens.push(format!(
                    "{}={} (shape {:?}, {} entries{block})",
                    param.name,
                    self.densities[p],
                    self.shapes[p],
                    self.entries[p].len()
                ));
            }
        }
        let mut s = format!(
            "case {} (data seed {:#x}): sizes {}; densities {}",
            self.index,
            self.seed,
            sizes.join(" "),
            dens.join(", ")
        );
        if let Some((p, m)) = self.perturbed {
            s += &format!(
                "; perturbed: `{}` mode {m} has size {} (expect Err)",
                k.params[p].name, self.shapes[p][m]
            );
        }
        for (p, param) in k.params.iter().enumerate() {
            if matches!(param.kind, ParamKind::Output(_)) && self.fills[p] != 0.0 {
                s += &format!("; stale `{}` has fill {}", param.name, self.fills[p]);
            }
        }
        for (w, at) in k.windows.iter().zip(&self.windows) {
            s += &format!(
                "; window of `{}` mode {}: {}..{} step {}, mode size {}{}",
                k.params[w.param].name,
                w.mode,
                at.lo,
                at.hi,
                w.step,
                at.size,
                if self.window_past {
                    " (past the mode: expect Err)"
                } else {
                    ""
                }
            );
        }
        if let Some(p) = self.wrong_fill {
            s += &format!(
                "; `{}` has fill {}, not its declared {} (expect Err)",
                k.params[p].name,
                self.fills[p],
                declared_fill(k, p)
            );
        }
        s
    }
}

/// The fill value parameter `p` declares (0 without a declaration).
pub fn declared_fill(k: &Kernel, p: usize) -> f64 {
    k.params[p]
        .fill
        .as_ref()
        .map_or(0.0, |f| f.value.value(k.vt))
}

/// Union-find over index variables: variables bound to the same mode of the same tensor must
/// have the same size.
/// The tensor modes `(parameter, mode)` bound to each variable class.
type Slots = BTreeMap<usize, BTreeSet<(usize, usize)>>;

fn var_classes(k: &Kernel) -> (Vec<usize>, Slots) {
    let n = k.n_vars();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], v: usize) -> usize {
        let mut r = v;
        while parent[r] != r {
            r = parent[r];
        }
        parent[v] = r;
        r
    }
    let mut slot_var: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut bind = |param: usize, vars: &[usize], parent: &mut Vec<usize>| {
        for (m, &v) in vars.iter().enumerate() {
            match slot_var.get(&(param, m)) {
                Some(&w) => {
                    let (a, b) = (find(parent, v), find(parent, w));
                    parent[a] = b;
                }
                None => {
                    slot_var.insert((param, m), v);
                }
            }
        }
    };
    // Every statement of a sequence: they share the parameters' shapes.
    for step in k.steps() {
        if step.params[step.out].format().is_some() {
            bind(step.out, &step.out_vars, &mut parent);
        }
        step.rhs.visit(&mut |e| {
            if let Expr::Access { param, vars } = e {
                bind(*param, vars, &mut parent);
            }
        });
    }
    let class: Vec<usize> = (0..n).map(|v| find(&mut parent, v)).collect();
    let mut slots: BTreeMap<usize, BTreeSet<(usize, usize)>> = BTreeMap::new();
    for (&(p, m), &v) in &slot_var {
        slots.entry(class[v]).or_default().insert((p, m));
    }
    (class, slots)
}

/// The tensor modes `(parameter, mode)` that some statement binds to an index variable that
/// also binds another mode in that statement.
fn detectable_slots(k: &Kernel) -> BTreeSet<(usize, usize)> {
    let mut out = BTreeSet::new();
    for step in k.steps() {
        let mut by_var: BTreeMap<usize, BTreeSet<(usize, usize)>> = BTreeMap::new();
        let mut bind = |param: usize, vars: &[usize]| {
            for (m, &v) in vars.iter().enumerate() {
                by_var.entry(v).or_default().insert((param, m));
            }
        };
        if step.params[step.out].format().is_some() {
            bind(step.out, &step.out_vars);
        }
        step.rhs.visit(&mut |e| {
            if let Expr::Access { param, vars } = e {
                bind(*param, vars);
            }
        });
        for slots in by_var.into_values().filter(|s| s.len() >= 2) {
            out.extend(slots);
        }
    }
    out
}

/// Parameters accessed in a divisor (under the right operand of a `/`, wherever that `/` is:
/// inside a call or a reduction too).
pub fn divisor_params(k: &Kernel) -> BTreeSet<usize> {
    fn walk(e: &Expr, below: bool, out: &mut BTreeSet<usize>) {
        match e {
            Expr::Access { param, .. } if below => {
                out.insert(*param);
            }
            Expr::Bin(op, l, r) => {
                walk(l, below, out);
                walk(r, below || *op == Op::Div, out);
            }
            other => {
                for c in other.children() {
                    walk(c, below, out);
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    for step in k.steps() {
        walk(&step.rhs, false, &mut out);
    }
    out
}

/// The variables of each tensor parameter's modes (from its first access; the output's own).
fn param_vars(k: &Kernel) -> Vec<Option<Vec<usize>>> {
    let mut pv: Vec<Option<Vec<usize>>> = vec![None; k.params.len()];
    for step in k.steps() {
        if step.params[step.out].format().is_some() && pv[step.out].is_none() {
            pv[step.out] = Some(step.out_vars.clone());
        }
        step.rhs.visit(&mut |e| {
            if let Expr::Access { param, vars } = e {
                if pv[*param].is_none() {
                    pv[*param] = Some(vars.clone());
                }
            }
        });
    }
    pv
}

fn random_value(rng: &mut Rng, vt: ValTy) -> f64 {
    match vt {
        ValTy::F64 => 0.5 + rng.unit(),
        ValTy::F32 => f64::from((0.5 + rng.unit()) as f32),
        ValTy::I64 => rng.range(1, 3) as f64,
    }
}

/// Every coordinate of `shape`, row-major.
pub fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    let total: usize = shape.iter().product();
    (0..total)
        .map(|mut flat| {
            let mut c = vec![0; shape.len()];
            for (slot, &n) in c.iter_mut().zip(shape).rev() {
                *slot = flat % n;
                flat /= n;
            }
            c
        })
        .collect()
}

/// Keeps the entries (greedily, in order) that the format can hold. A non-unique compressed
/// level stores one position per distinct (parent, coordinate tuple), the tuple running through
/// the branchless levels below it down to the first unique one; any other singleton level holds
/// one coordinate per parent position, so entries that share its parent position must agree on
/// it (equal coordinates share the position).
pub fn representable(f: &Format, entries: Entries) -> Entries {
    // A remapped format holds any entries (DIA stores every diagonal that has one, BCSR every
    // block, CSB every entry in the block that contains it).
    if f.remapped() {
        return entries;
    }
    let n = f.order();
    let mut taken: BTreeMap<(usize, Vec<usize>), usize> = BTreeMap::new();
    let mut kept = Vec::new();
    'entries: for (coord, v) in entries {
        let storage: Vec<usize> = (0..n).map(|l| coord[f.modes[l]]).collect();
        let mut key: Vec<usize> = Vec::new();
        let mut claims = Vec::new();
        let mut level = 0;
        while level < n {
            let kind = f.kinds[level];
            key.push(storage[level]);
            level += 1;
            match kind {
                Kind::Dense
                | Kind::Compressed
                | Kind::CompressedUnordered
                | Kind::Hashed
                | Kind::Slotted => {}
                Kind::CompressedNu => {
                    // The run: branchless levels below, through the first unique one.
                    let mut unique = false;
                    while level < n && !unique && f.kinds[level].singleton() {
                        unique = f.kinds[level] == Kind::Singleton;
                        key.push(storage[level]);
                        level += 1;
                    }
                }
                Kind::Range | Kind::Offset | Kind::InBlock => {}
                Kind::Singleton | Kind::SingletonNu | Kind::SingletonPadded => {
                    let parent = key[..key.len() - 1].to_vec();
                    match taken.get(&(level - 1, parent.clone())) {
                        Some(&c) if c != storage[level - 1] => continue 'entries,
                        Some(_) => {}
                        None => claims.push(((level - 1, parent), storage[level - 1])),
                    }
                }
            }
        }
        taken.extend(claims);
        kept.push((coord, v));
    }
    kept
}

/// Storage levels that are singletons padded under a dense level (every parent position has
/// a child even without entries), so their size cannot be 0 while the parent has positions.
pub fn padded_singletons(f: &Format) -> Vec<usize> {
    let mut out = Vec::new();
    if f.remapped() {
        return out;
    }
    let mut padded = false;
    for (level, kind) in f.kinds.iter().enumerate() {
        padded = match kind {
            // A hash level's empty buckets and a slotted level's empty slots, like dense
            // positions, have children too.
            Kind::Dense | Kind::Hashed | Kind::Slotted => true,
            Kind::Compressed
            | Kind::CompressedNu
            | Kind::CompressedUnordered
            | Kind::Range
            | Kind::InBlock => false,
            Kind::Singleton | Kind::SingletonNu | Kind::Offset | Kind::SingletonPadded => padded,
        };
        // A padded singleton may leave a position empty: size 0 is fine for it.
        if padded && kind.singleton() && *kind != Kind::SingletonPadded {
            out.push(level);
        }
    }
    out
}

/// Random entries of `shape` at `density`, representable in `f`; with `zeros`, a share
/// [`P_EXPLICIT_ZERO`] of them explicit zeros.
fn random_entries(
    rng: &mut Rng,
    f: &Format,
    shape: &[usize],
    density: f64,
    vt: ValTy,
    zeros: bool,
) -> Entries {
    let mut entries: Entries = Vec::new();
    for c in coordinates(shape) {
        if rng.chance(density) {
            let mut v = random_value(rng, vt);
            if zeros && rng.chance(P_EXPLICIT_ZERO) {
                v = 0.0;
            }
            entries.push((c, v));
        }
    }
    rng.shuffle(&mut entries);
    let mut kept = representable(f, entries);
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    kept
}

/// The cases of kernel `k`: [`CASES`] with consistent shapes, then (if some index variable
/// binds two tensor modes) one with a perturbed mode size.
pub fn cases(k: &Kernel) -> Vec<Case> {
    let (class, slots) = var_classes(k);
    let divisors = divisor_params(k);
    let pv = param_vars(k);
    let mut out = Vec::new();
    let mut perturbable: Vec<(usize, usize)> = slots
        .values()
        .filter(|s| s.len() >= 2)
        .flat_map(|s| s.iter().copied())
        .collect();
    if k.is_sequence() {
        // Each statement has index variables of its own (the generator's shared numbering
        // only ties their sizes together): a mode size differs detectably only where one
        // statement binds its variable to another mode too.
        let detectable = detectable_slots(k);
        perturbable.retain(|slot| detectable.contains(slot));
    }
    // A sparse input (not an output read as one) whose fill value the kernel checks.
    let fill_checked: Vec<usize> = (0..k.params.len())
        .filter(|&p| matches!(&k.params[p].kind, ParamKind::Input(f) if !f.all_dense()))
        .collect();
    // A windowed mode's size is not its variable's.
    perturbable.retain(|&(p, m)| k.window(p, m).is_none());
    let perturbed_case = (!perturbable.is_empty()).then_some(CASES);
    let wrong_fill_case =
        (!fill_checked.is_empty()).then_some(CASES + usize::from(perturbed_case.is_some()));
    let window_past_case = k.windows.iter().any(crate::windows::can_pass).then_some(
        CASES + usize::from(perturbed_case.is_some()) + usize::from(wrong_fill_case.is_some()),
    );
    let total = CASES
        + usize::from(perturbed_case.is_some())
        + usize::from(wrong_fill_case.is_some())
        + usize::from(window_past_case.is_some());
    let first_names: BTreeSet<usize> = {
        let first = k.steps().swap_remove(0);
        let mut names = BTreeSet::from([first.out]);
        first.rhs.visit(&mut |e| {
            if let Expr::Access { param, .. } = e {
                names.insert(*param);
            }
        });
        names
    };
    for index in 0..total {
        let seed = mix(k.id, index as u64 + 1);
        let mut rng = Rng::new(seed);
        // Sizes per class.
        let mut size_of_class: BTreeMap<usize, usize> = BTreeMap::new();
        for &c in &class {
            // Now and then past 8, the narrower width of a register block of a dense output's
            // row (`sparse_core::register_block::WIDTHS`, 16 and 8): one block of 8, a block
            // and a remainder, blocks of both widths and a remainder (25, or a little less
            // where the iteration space is capped).
            size_of_class.entry(c).or_insert_with(|| {
                [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 25]
                    [rng.weighted(&[3, 7, 15, 15, 15, 15, 15, 15, 3, 3, 2])]
            });
        }
        // A singleton padded under a dense level cannot have size 0.
        for (p, param) in k.params.iter().enumerate() {
            if let (Some(f), Some(vars)) = (param.format(), pv[p].as_ref()) {
                for level in padded_singletons(f) {
                    let s = size_of_class
                        .get_mut(&class[vars[f.modes[level]]])
                        .expect("class");
                    *s = (*s).max(1);
                }
            }
        }
        loop {
            let space: usize = class.iter().map(|c| size_of_class[c].max(1)).product();
            if space <= MAX_ITERATION_SPACE {
                break;
            }
            let (&big, _) = size_of_class
                .iter()
                .max_by_key(|(c, s)| (**s, std::cmp::Reverse(**c)))
                .expect("some class");
            let s = size_of_class.get_mut(&big).expect("class");
            *s = (*s - 1).max(1);
            if *s == 1 && size_of_class.values().all(|&x| x <= 1) {
                break;
            }
        }
        // A window of literal bounds fixes its variable's size.
        for w in &k.windows {
            if let Some(len) = crate::windows::literal_length(w) {
                let v = pv[w.param].as_ref().expect("a bound tensor")[w.mode];
                size_of_class.insert(class[v], len);
            }
        }
        let perturbed = if Some(index) == perturbed_case {
            // In a sequence, half the time a tensor the first statement does not name, so
            // that the mismatch is in a later statement.
            let later: Vec<(usize, usize)> = perturbable
                .iter()
                .copied()
                .filter(|&(p, _)| !first_names.contains(&p))
                .collect();
            let slot = if k.is_sequence() && !later.is_empty() && rng.chance(0.5) {
                *rng.pick(&later)
            } else {
                *rng.pick(&perturbable)
            };
            let (_, mode) = slot;
            let c = class[pv[slot.0].as_ref().expect("a bound tensor")[mode]];
            let s = size_of_class.get_mut(&c).expect("class");
            *s = (*s).max(1);
            Some(slot)
        } else {
            None
        };
        let var_sizes: Vec<usize> = class.iter().map(|c| size_of_class[c]).collect();
        // Windows are placed from a stream of their own, so the data of the other operands
        // stays what it was.
        let mut window_past = Some(index) == window_past_case;
        let place = |past: bool| {
            let mut wrng = Rng::new(mix(seed, crate::windows::WINDOW_STREAM));
            k.windows
                .iter()
                .map(|w| {
                    let v = pv[w.param].as_ref().expect("a bound tensor")[w.mode];
                    let past = past && crate::windows::can_pass(w);
                    crate::windows::place(w, var_sizes[v], &mut wrng, past)
                        .expect("a window that can pass its mode")
                })
                .collect::<Vec<crate::windows::Placement>>()
        };
        let mut windows = place(window_past);
        // A window past its mode by a mode of size 0 cannot be built where that mode is a
        // singleton level under padded positions (sweep kernel 3018244): that case runs the
        // window inside its mode instead.
        let unbuildable = k.windows.iter().zip(&windows).any(|(w, at)| {
            let f = k.params[w.param].format().expect("a tensor");
            at.size == 0
                && padded_singletons(f)
                    .iter()
                    .any(|&level| f.modes[level] == w.mode)
        });
        if window_past && unbuildable {
            window_past = false;
            windows = place(false);
        }
        let mut case = Case {
            index,
            seed,
            var_sizes: var_sizes.clone(),
            densities: vec![0.0; k.params.len()],
            shapes: vec![Vec::new(); k.params.len()],
            entries: vec![Vec::new(); k.params.len()],
            scalars: vec![0.0; k.params.len()],
            perturbed,
            blocks: vec![None; k.params.len()],
            fills: vec![0.0; k.params.len()],
            wrong_fill: None,
            windows: windows.clone(),
            window_past,
        };
        for (p, param) in k.params.iter().enumerate() {
            match &param.kind {
                ParamKind::ScalarIn | ParamKind::ScalarOut => {
                    case.scalars[p] = random_value(&mut rng, k.vt);
                }
                // Set from the windows' placements below.
                ParamKind::Index => {}
                ParamKind::Input(f) | ParamKind::Output(f) => {
                    let mut shape: Vec<usize> = pv[p]
                        .as_ref()
                        .map(|vars| vars.iter().map(|&v| var_sizes[v]).collect())
                        .unwrap_or_else(|| vec![1; f.order()]);
                    if let Some((pp, m)) = perturbed {
                        if pp == p {
                            shape[m] += 1;
                        }
                    }
                    for (w, at) in k.windows.iter().zip(&windows) {
                        if w.param == p {
                            shape[w.mode] = at.size;
                        }
                    }
                    let output = matches!(param.kind, ParamKind::Output(_));
                    // A sparse divisor with a fill value stores what it likes.
                    let filled_divisor =
                        divisors.contains(&p) && !f.all_dense() && declared_fill(k, p) != 0.0;
                    let density = if output {
                        if f.all_dense() {
                            1.0
                        } else {
                            0.4
                        }
                    } else if divisors.contains(&p) && !filled_divisor {
                        1.0
                    } else {
                        let w: Vec<u32> = DENSITIES.iter().map(|d| d.1).collect();
                        DENSITIES[rng.weighted(&w)].0
                    };
                    if !output {
                        case.densities[p] = density;
                    }
                    let zeros = k.feature && !output && !divisors.contains(&p);
                    case.entries[p] = random_entries(&mut rng, f, &shape, density, k.vt, zeros);
                    case.fills[p] = declared_fill(k, p);
                    let equals = !k.accumulate && k.out == p && !k.is_sequence();
                    if output && k.feature && equals && !f.all_dense() && index % 2 == 1 {
                        case.fills[p] = STALE_FILL;
                    }
                    if f.alias_name() == Some("Csb") {
                        case.blocks[p] = csb_block(index, p, &shape);
                    }
                    case.shapes[p] = shape;
                }
            }
        }
        for (w, at) in k.windows.iter().zip(&windows) {
            if let Some(crate::kernel::Bound::Param(p)) = w.lo {
                case.scalars[p] = at.lo as f64;
            }
            if let Some(crate::kernel::Bound::Param(p)) = w.hi {
                case.scalars[p] = at.hi as f64;
            }
        }
        if Some(index) == wrong_fill_case {
            let p = *rng.pick(&fill_checked);
            case.fills[p] = wrong_fill(case.fills[p]);
            case.wrong_fill = Some(p);
        }
        out.push(case);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Spelling;

    fn fmt(kinds: Vec<Kind>, modes: Vec<usize>) -> Format {
        let n = kinds.len();
        Format {
            kinds,
            index: vec![crate::format::IndexTy::U32; n],
            modes,
            spelling: Spelling::Alias {
                name: "",
                index: None,
                consts: Vec::new(),
            },
            hidden: 0,
        }
    }

    #[test]
    fn singleton_under_unique_parent_holds_one_entry_per_parent() {
        let f = fmt(vec![Kind::Dense, Kind::Singleton], vec![0, 1]);
        let e = vec![
            (vec![0, 1], 1.0),
            (vec![0, 2], 2.0),
            (vec![1, 0], 3.0),
            (vec![0, 1], 4.0),
        ];
        let kept = representable(&f, e);
        // A repeated coordinate shares its position (from_entries sums the two).
        assert_eq!(
            kept,
            vec![(vec![0, 1], 1.0), (vec![1, 0], 3.0), (vec![0, 1], 4.0)]
        );
        // A run of a non-unique level ends at its first unique singleton; a singleton below
        // holds one coordinate per tuple.
        let runs = fmt(
            vec![Kind::CompressedNu, Kind::Singleton, Kind::Singleton],
            vec![0, 1, 2],
        );
        let e = vec![
            (vec![0, 0, 2], 1.0),
            (vec![0, 0, 3], 2.0),
            (vec![0, 1, 3], 3.0),
        ];
        assert_eq!(representable(&runs, e).len(), 2);
        let coo = fmt(vec![Kind::CompressedNu, Kind::Singleton], vec![0, 1]);
        let e = vec![(vec![0, 1], 1.0), (vec![0, 2], 2.0)];
        assert_eq!(representable(&coo, e.clone()).len(), 2);
        // Storage order decides: with modes [1, 0] the singleton holds mode 0.
        let t = fmt(vec![Kind::Dense, Kind::Singleton], vec![1, 0]);
        let e = vec![(vec![0, 1], 1.0), (vec![1, 1], 2.0), (vec![1, 0], 3.0)];
        assert_eq!(representable(&t, e).len(), 2);
    }

    #[test]
    fn divisors_under_calls_and_reductions_are_divisors() {
        use crate::functions::{Func, Reducer};
        let acc = |param: usize| Expr::Access {
            param,
            vars: vec![0],
        };
        let mut k = crate::generate::generate(0);
        k.statements.clear();
        k.rhs = Expr::call(
            Func::And,
            vec![
                Expr::bin(Op::Div, acc(1), acc(2)),
                Expr::reduce(Reducer::Any, 1, Expr::bin(Op::Div, acc(1), acc(3))),
            ],
        );
        assert_eq!(divisor_params(&k), BTreeSet::from([2, 3]));
    }

    #[test]
    fn cases_unify_sizes_and_perturb_a_shared_mode() {
        for seed in 0..300 {
            let k = crate::generate::generate(seed);
            let cs = cases(&k);
            assert!(cs.len() >= CASES);
            for c in &cs {
                let pv = param_vars(&k);
                for (p, vars) in pv.iter().enumerate() {
                    let Some(vars) = vars else { continue };
                    for (m, &v) in vars.iter().enumerate() {
                        let bump = usize::from(c.perturbed == Some((p, m)));
                        let Some(w) = k.window(p, m) else {
                            assert_eq!(c.shapes[p][m], c.var_sizes[v] + bump, "seed {seed}");
                            continue;
                        };
                        // A window's length is its variable's size, its mode at least its end.
                        let at = c.windows[k.windows.iter().position(|x| x == w).unwrap()];
                        if c.window_past {
                            assert!(at.lo > at.size || at.hi > at.size, "seed {seed}");
                        } else if !c.expect_err() {
                            assert!(at.lo <= at.hi && at.hi <= c.shapes[p][m], "seed {seed}");
                            assert_eq!(
                                (at.hi - at.lo).div_ceil(w.step),
                                c.var_sizes[v],
                                "seed {seed}"
                            );
                        }
                    }
                }
            }
        }
    }
}
