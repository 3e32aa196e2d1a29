//! Workspaces (Kjolstad et al., "Tensor Algebra Compilation with Workspaces", CGO 2019; taco,
//! sections 6.3–6.4): a sparse output that no loop order can append in storage order is
//! computed a slice at a time into a temporary that can be written in any order, and each
//! slice is then copied into the output in order.
//!
//! The output's storage levels split into *outer* levels, appended by the outermost loops as
//! usual, and *workspace* levels below them. For every point of the outer loops, the loop
//! nests below compute the slice of the right side into the workspace (an accumulator over
//! the workspace levels' coordinates, linearized row-major in storage order, so that
//! increasing keys are the output's storage order); the slice's entries are then read back in
//! key order and appended to the workspace levels, and the workspace is cleared. Gustavson's
//! SpGEMM is the case `C(i,k) = Σ_j A(i,j) B(j,k)` with outer level `i` and workspace `k`.
//!
//! Below the outer loops the workspace is written in place, so the nests follow the rules of
//! an output written in place: a root sum may run outside the workspace's variables, and
//! terms that need different orders become nests of their own (`crate::split`). The split
//! point is the deepest one that leaves every nest an order: the fewer workspace levels, the
//! smaller the workspace. An entry is stored wherever the iteration space has a point (the
//! accumulator records a key when a present value is added), exactly as an output appended
//! directly would store it.

use crate::diagnostic::Diagnostics;
use crate::format::{Assembly, Format, LevelFormat};
use crate::level::DENSE;
use crate::notation::{Kernel, VarId};
use crate::split::parts_after;

/// How the workspace stores a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A dense array over the workspace's coordinates with a list of the touched ones
    /// (`DenseAccumulator`): constant-time updates, memory proportional to the slice's size.
    Dense,
    /// A hash table of the touched coordinates (`HashAccumulator`): memory proportional to
    /// the entries, for slices too large or too sparse for a dense array.
    Hash,
}

impl Kind {
    /// The heuristic: a dense accumulator for a workspace of one level (a row of a matrix,
    /// whose dense array is as long as the matrix is wide, allocated once per call), a hash
    /// table for more (their dense array would be the product of the dimensions). A
    /// `#[schedule(workspace(v, dense | hash))]` overrides it.
    pub fn default_for(levels: usize) -> Kind {
        if levels <= 1 {
            Kind::Dense
        } else {
            Kind::Hash
        }
    }

    /// The schedule's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Dense => "dense",
            Kind::Hash => "hash",
        }
    }
}

/// Where a kernel's workspace goes and what it is.
#[derive(Clone, Debug)]
pub struct Workspace {
    /// The first output storage level computed in the workspace.
    pub level: usize,
    /// The variables of the outer levels, outermost first: the loops the nests run inside.
    pub outer: Vec<VarId>,
    /// The variables of the workspace levels in storage order (the key's row-major order).
    pub vars: Vec<VarId>,
    /// The accumulator.
    pub kind: Kind,
    /// The kernel with its output written in place (dense levels of the same modes): the
    /// statement the nests below the outer loops compute, for ordering and splitting them.
    pub inner: Kernel,
}

/// A workspace for `kernel` when its sparse output can be appended only through one:
/// `at` forces the first workspace level (a schedule), else the deepest level that gives
/// every nest an order. `None` if the output is not appended, or no split point works.
pub fn plan(kernel: &Kernel, at: Option<usize>, kind: Option<Kind>) -> Option<Workspace> {
    let out = kernel.output_access()?;
    let format = kernel.format_of(out);
    if format.is_all_dense() || format.inserts_everywhere() || !copies_out(format) {
        return None;
    }
    let inner = in_place(kernel);
    let storage_vars: Vec<VarId> = (0..format.order())
        .map(|k| kernel.accesses[out].level_var(format, k))
        .collect();
    let candidates: Vec<usize> = match at {
        Some(level) => vec![level],
        None => (0..format.order()).rev().collect(),
    };
    candidates.into_iter().find_map(|level| {
        let outer = storage_vars[..level].to_vec();
        parts_after(&inner, &outer, &mut Diagnostics::default())?;
        let vars = storage_vars[level..].to_vec();
        Some(Workspace {
            level,
            outer,
            kind: kind.unwrap_or(Kind::default_for(vars.len())),
            vars,
            inner: inner.clone(),
        })
    })
}

/// Why no workspace starts at output level `level`: the diagnostic of the term no order
/// traverses below the outer loops, at its access.
pub fn explain(kernel: &Kernel, level: usize, diags: &mut Diagnostics) {
    let Some(out) = kernel.output_access() else {
        return;
    };
    let format = kernel.format_of(out);
    let outer: Vec<VarId> = (0..level.min(format.order()))
        .map(|k| kernel.accesses[out].level_var(format, k))
        .collect();
    parts_after(&in_place(kernel), &outer, diags);
}

/// Whether the entries of a workspace can be copied into the output's levels: every level
/// below the last appending one would be a dense block, which the copy does not open (an
/// output of that shape is appended directly or not at all).
pub fn copies_out(format: &Format) -> bool {
    format.levels.last().and_then(LevelFormat::assembly) == Some(Assembly::Append)
}

/// `kernel` with its output's levels all `Dense`: written in place, in any order.
fn in_place(kernel: &Kernel) -> Kernel {
    let mut inner = kernel.clone();
    if let Some(out) = kernel.output_access() {
        let tensor = &mut inner.tensors[kernel.accesses[out].tensor];
        for level in &mut tensor.format.levels {
            *level = LevelFormat::new(&DENSE, &[]);
        }
        tensor.format.remap = None;
    }
    inner
}
