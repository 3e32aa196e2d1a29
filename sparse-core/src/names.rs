//! Identifiers for the locals lowering invents.
//!
//! Hygiene rests on two facts. Emission gives every local a mixed-site span, so no identifier
//! the user writes (a parameter, anything in scope at the call site) can refer to one or be
//! shadowed by one. And this table gives every [`Local`] of a kernel a distinct identifier: the
//! readable name it would like (`p_a1`, `dim_i`, the index variable's own name) when that is
//! free, else the same with a numeric suffix. So an index variable named `p_a1` or `t0`, a
//! tensor named `a1` next to a tensor `a` used twice, or a raw identifier `r#i` cannot make two
//! locals one.

use crate::ir::Local;
use crate::notation::{AccessId, Kernel};
use std::collections::{HashMap, HashSet};
use syn::ext::IdentExt;

/// The identifier of every local of one kernel.
#[derive(Clone, Debug, Default)]
pub struct Names {
    names: HashMap<Local, String>,
}

impl Names {
    /// Names `locals` (in any order, repeats allowed) for `kernel`. Deterministic: locals are
    /// named in their sort order, index variables first, so they keep the names the user gave.
    pub fn new(kernel: &Kernel, locals: impl IntoIterator<Item = Local>) -> Names {
        let mut all: Vec<Local> = locals.into_iter().collect();
        all.sort_unstable();
        all.dedup();
        let labels = labels(kernel);
        let mut taken: HashSet<String> = HashSet::new();
        let mut names = HashMap::new();
        for local in all {
            let preferred = sanitize(preferred(kernel, &labels, local));
            let mut name = preferred.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{preferred}_{n}");
                n += 1;
            }
            names.insert(local, name);
        }
        Names { names }
    }

    /// The identifier of `local`. A local that was not named (an internal error) gets a name
    /// no named local has, so emission still produces code rather than panicking.
    pub fn get(&self, local: Local) -> &str {
        self.names.get(&local).map_or("__unnamed", String::as_str)
    }
}

/// A user identifier as text, without the `r#` of a raw identifier.
pub fn plain(ident: &proc_macro2::Ident) -> String {
    ident.unraw().to_string()
}

/// Whether two user identifiers are the same identifier (`r#y` is `y`).
pub fn same(a: &proc_macro2::Ident, b: &proc_macro2::Ident) -> bool {
    plain(a) == plain(b)
}

/// The name a local would like: readable in snapshots and expanded code.
fn preferred(kernel: &Kernel, labels: &[String], local: Local) -> String {
    let var = |v: usize| {
        kernel
            .vars
            .get(v)
            .map_or_else(|| "v".into(), |x| plain(&x.name))
    };
    let tensor = |t: usize| {
        kernel
            .tensors
            .get(t)
            .map_or_else(|| "x".into(), |x| plain(&x.name))
    };
    let label = |a: AccessId| labels.get(a).map_or("x", String::as_str);
    match local {
        Local::Index(v) => var(v),
        Local::Dim(v) => format!("dim_{}", var(v)),
        Local::Pos(a, k) => format!("p_{}{k}", label(a)),
        Local::End(a, k) => format!("end_{}{k}", label(a)),
        Local::Coord(a, k) => format!("c_{}{k}", label(a)),
        Local::RunEnd(a, k) => format!("r_{}{k}", label(a)),
        Local::Matched(a, k) => format!("m_{}{k}", label(a)),
        Local::Found(a, k) => format!("found_{}{k}", label(a)),
        Local::Scratch(a, k) => format!("sorted_{}{k}", label(a)),
        Local::ScratchPos(a, k) => format!("q_{}{k}", label(a)),
        Local::Flag(n) => format!("has{n}"),
        Local::SegBegin(a, k) => format!("begin_{}{k}", label(a)),
        Local::SegEnd(a, k) => format!("end_{}{k}", label(a)),
        Local::BlockOpen(a) => format!("block_{}", label(a)),
        Local::BlockLen(a) => format!("block_len_{}", label(a)),
        Local::Temp(n) => format!("t{n}"),
        Local::TempSome(n) => format!("some_t{n}"),
        Local::Level(t, k) => format!("{}_l{k}", tensor(t)),
        Local::Vals(t) => format!("{}_vals", tensor(t)),
        Local::Assembly(t) => format!("{}_asm", tensor(t)),
        Local::Stored => "stored".into(),
        Local::Workspace => "workspace".into(),
        Local::WorkspaceLen => "workspace_len".into(),
        Local::Cursor => "entry".into(),
        Local::Key => "key".into(),
        Local::Stride(k) => format!("stride{k}"),
        Local::Group(k) => format!("group{k}"),
        Local::PosLo => "pos_lo".into(),
        Local::PosHi => "pos_hi".into(),
        Local::RowLo => "row_lo".into(),
        Local::RowHi => "row_hi".into(),
        Local::RowBase => "row_base".into(),
        Local::Block => "block".into(),
        Local::BlockStart => "block_start".into(),
        Local::Lane => "lane".into(),
        Local::Strip => "strip".into(),
        Local::StripLane => "strip_lane".into(),
        Local::Precomputed => "pre".into(),
        Local::LaneSums(n) => format!("lane_sums{n}"),
        Local::Partial => "partial".into(),
        Local::Adds => "adds".into(),
        Local::Appends => "appends".into(),
        Local::ChunkLo => "chunk_lo".into(),
        Local::FoldStart => "fold_start".into(),
        Local::FoldTotal => "fold_total".into(),
        Local::ChunkHi => "chunk_hi".into(),
    }
}

/// A readable label per access: the tensor name, numbered when a tensor occurs twice.
fn labels(kernel: &Kernel) -> Vec<String> {
    let mut count = vec![0usize; kernel.tensors.len()];
    for a in &kernel.accesses {
        count[a.tensor] += 1;
    }
    let mut seen = vec![0usize; kernel.tensors.len()];
    kernel
        .accesses
        .iter()
        .map(|a| {
            let name = plain(&kernel.tensors[a.tensor].name);
            seen[a.tensor] += 1;
            if count[a.tensor] <= 1 {
                name
            } else {
                format!("{name}{}", seen[a.tensor])
            }
        })
        .collect()
}

/// Keywords cannot name a local: `fn` becomes `fn_`.
fn sanitize(name: String) -> String {
    if syn::parse_str::<syn::Ident>(&name).is_ok() {
        name
    } else {
        format!("{name}_")
    }
}

/// `a, b, c`: identifiers as written, for diagnostics.
pub fn join(idents: &[proc_macro2::Ident]) -> String {
    let names: Vec<String> = idents.iter().map(|i| i.to_string()).collect();
    names.join(", ")
}
