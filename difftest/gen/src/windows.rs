//! Windows (slices and strides) of input accesses: `a(i[lo..hi], j)`, `a(i[lo..], j)`,
//! `a(i[..hi], j)`, `a(i[(lo..hi).step_by(s)], j)` (TESTING.md, "Windows"). Drawn after the
//! kernel is complete, from a stream of their own ([`WINDOW_STREAM`]), so a kernel without a
//! window is exactly the kernel its seed had before windows were drawn.

use crate::format::{Format, Kind, Spelling};
use crate::kernel::{same_name, Bound, Expr, Kernel, Param, ParamKind, Window};
use crate::rng::{mix, Rng};

/// The salt of the window stream: `Rng::new(mix(seed, WINDOW_STREAM))`.
pub const WINDOW_STREAM: u64 = 0x5_11ce;

/// Probability that a single-statement kernel with a windowable access gets a window.
pub const P_WINDOW: f64 = 0.15;

/// Names of window bound parameters.
const BOUND_NAMES: &[&str] = &["lo", "hi", "r0", "r1", "c0", "c1", "start", "stop", "first"];

/// Formats held in a struct (or `Ell`'s slots): no window reaches their modes.
const NO_WINDOW: &[&str] = &["Dia", "Bcsr", "Csb", "CooAos", "Ell"];

/// Whether a window (with a stride when `strided`) can reach mode `mode` of `f`: the level
/// storing it is `Dense`, or ordered and compact (`Compressed`, `Singleton`; the non-unique
/// ones without a stride), in a format of levels.
pub fn reachable(f: &Format, mode: usize, strided: bool) -> bool {
    if f.hidden > 0
        || matches!(&f.spelling, Spelling::Alias { name, .. } if NO_WINDOW.contains(name))
    {
        return false;
    }
    let Some(level) = f.modes.iter().position(|&m| m == mode) else {
        return false;
    };
    match f.kinds[level] {
        Kind::Dense | Kind::Compressed | Kind::Singleton => true,
        Kind::CompressedNu | Kind::SingletonNu => !strided,
        _ => false,
    }
}

/// Draws a window of an access of `k` (single statements only): with probability
/// [`P_WINDOW`], one mode of an input accessed exactly once that a window can reach, unless
/// the oracle converts an input (rule (e)). Bounds: literals (the window's length then fixes
/// its variable's size) or `usize` parameters appended to the signature; the stride 1 (half),
/// 2 or 3 where the level allows it; empty, edge and full windows come from the data cases.
pub fn draw(k: &mut Kernel) {
    if k.is_sequence() {
        return;
    }
    let mut rng = Rng::new(mix(k.id, WINDOW_STREAM));
    if !rng.chance(P_WINDOW) {
        return;
    }
    let mut accesses: Vec<(usize, Vec<usize>)> = Vec::new();
    k.rhs.visit(&mut |e| {
        if let Expr::Access { param, vars } = e {
            accesses.push((*param, vars.clone()));
        }
    });
    let mut slots: Vec<(usize, usize)> = Vec::new();
    for (p, vars) in &accesses {
        let once = accesses.iter().filter(|(q, _)| q == p).count() == 1;
        if let (true, ParamKind::Input(f)) = (once && *p != k.out, &k.params[*p].kind) {
            slots.extend(
                (0..vars.len())
                    .filter(|&m| reachable(f, m, false))
                    .map(|m| (*p, m)),
            );
        }
    }
    if slots.is_empty() || crate::semantics::conversion_applies(k) {
        return;
    }
    let (param, mode) = *rng.pick(&slots);
    let f = k.params[param].format().expect("a tensor").clone();
    // The window's variable, where another access stores it in a singleton under padded
    // positions, cannot have size 0 (sweep kernel 3119254): no empty literal window then.
    let var = accesses
        .iter()
        .find(|(p, _)| *p == param)
        .map(|(_, vars)| vars[mode])
        .expect("the windowed access");
    let output = (k.out, k.out_vars.clone());
    let never_empty = accesses.iter().chain([&output]).any(|(p, vars)| {
        k.params[*p].format().is_some_and(|g| {
            crate::data::padded_singletons(g)
                .iter()
                .any(|&level| vars.get(g.modes[level]) == Some(&var))
        })
    });
    let step = if reachable(&f, mode, true) {
        [1, 1, 2, 3][rng.below(4)]
    } else {
        1
    };
    let bound_param = |k: &mut Kernel, rng: &mut Rng| {
        let taken = |c: &str| {
            k.params.iter().any(|p| same_name(&p.name, c))
                || k.var_names.iter().any(|v| same_name(v, c))
        };
        let free: Vec<&str> = BOUND_NAMES.iter().copied().filter(|c| !taken(c)).collect();
        let name = (*rng.pick(&free)).to_string();
        k.params.push(Param::new(name, ParamKind::Index));
        Bound::Param(k.params.len() - 1)
    };
    let (lo, hi) = match rng.below(5) {
        // `lo..hi` literal: its length fixes the variable's size (0 to 4).
        0 | 1 => {
            let lo = rng.below(4);
            let len = rng.below(5).max(usize::from(never_empty));
            let hi = lo + (step * len).saturating_sub(if len > 0 { rng.below(step) } else { 0 });
            (Some(Bound::Lit(lo)), Some(Bound::Lit(hi)))
        }
        // `lo..hi` of parameters.
        2 => {
            let lo = bound_param(k, &mut rng);
            let hi = bound_param(k, &mut rng);
            (Some(lo), Some(hi))
        }
        // `lo..`, a literal or a parameter.
        3 => {
            let lo = if rng.chance(0.5) {
                Bound::Lit(rng.below(3))
            } else {
                bound_param(k, &mut rng)
            };
            (Some(lo), None)
        }
        // `..hi` (literal, no stride) or `0..hi` of a parameter.
        _ if step == 1 => {
            let len = rng.below(5).max(usize::from(never_empty));
            (None, Some(Bound::Lit(len)))
        }
        _ => (Some(Bound::Lit(0)), Some(bound_param(k, &mut rng))),
    };
    k.windows.push(Window {
        param,
        mode,
        lo,
        hi,
        step,
    });
}

/// A window's length when both bounds are literals (it fixes its variable's size).
pub fn literal_length(w: &Window) -> Option<usize> {
    let lo = match w.lo {
        None => 0,
        Some(Bound::Lit(n)) => n,
        Some(Bound::Param(_)) => return None,
    };
    match w.hi {
        Some(Bound::Lit(hi)) => Some(hi.saturating_sub(lo).div_ceil(w.step)),
        _ => None,
    }
}

/// Whether some data case can put window `w` past its mode (not `0..`, nor an empty
/// literal `..0`).
pub fn can_pass(w: &Window) -> bool {
    matches!(w.lo, Some(Bound::Param(_)))
        || matches!(w.hi, Some(Bound::Param(_)))
        || matches!(w.hi, Some(Bound::Lit(h)) if h > 0)
        || (w.hi.is_none() && matches!(w.lo, Some(Bound::Lit(l)) if l > 0))
}

/// Where a data case puts a window: its bounds' values, and the size of the windowed mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The first component.
    pub lo: usize,
    /// The end (the mode's size when open).
    pub hi: usize,
    /// The windowed mode's size.
    pub size: usize,
}

/// Places window `w` of a variable of size `n` in a data case: a parameter `lo` in 0..=3,
/// an end that gives the window length `n` (a stride's last step short or not), and a mode
/// 0 to 2 components longer than the end (exactly the end when open). With `past`, the
/// window reaches past the mode instead (`lo` beyond it for a parameter `lo`, else the mode
/// one shorter than the end or than `lo`), or `None` if no such case exists.
pub fn place(w: &Window, n: usize, rng: &mut Rng, past: bool) -> Option<Placement> {
    let s = w.step;
    let short = |rng: &mut Rng| if n > 0 { rng.below(s) } else { 0 };
    let lo = match w.lo {
        None => 0,
        Some(Bound::Lit(l)) => l,
        Some(Bound::Param(_)) => rng.below(4),
    };
    let (hi, size) = match w.hi {
        Some(Bound::Lit(h)) => (h, h + [0, 0, 1, 2][rng.below(4)]),
        Some(Bound::Param(_)) => {
            let hi = lo + s * n - short(rng);
            (hi, hi + [0, 0, 1, 2][rng.below(4)])
        }
        None => {
            let end = lo + s * n - short(rng);
            (end, end)
        }
    };
    if !past {
        return Some(Placement { lo, hi, size });
    }
    match (w.lo, w.hi) {
        (Some(Bound::Param(_)), Some(Bound::Param(_))) => Some(Placement {
            lo: size + 1,
            hi: size + 1,
            size,
        }),
        (Some(Bound::Param(_)), _) => Some(Placement {
            lo: size + 1,
            hi,
            size,
        }),
        (_, Some(_)) if hi > 0 => Some(Placement {
            lo,
            hi,
            size: hi - 1,
        }),
        (_, Some(Bound::Param(_))) => Some(Placement { lo, hi: 1, size: 0 }),
        (_, None) if lo > 0 => Some(Placement {
            lo,
            hi: lo - 1,
            size: lo - 1,
        }),
        _ => None,
    }
}
