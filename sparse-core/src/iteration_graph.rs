//! The iteration graph (taco, section 4): index variables ordered so that every tensor is
//! traversed from its first stored level to its last. Only levels without `locate` constrain the
//! order; dense levels add soft edges that are kept when they do not close a cycle, so dense
//! operands are walked in storage order too (row-major for `Dense2`).

use crate::diagnostic::Diagnostics;
use crate::notation::{AccessId, Expr, Kernel, VarId};
use crate::signature::suggest_format;

/// An edge `from -> to`: `from` must be iterated outside `to`.
type Edge = (VarId, VarId);

/// Directed edges between index variables.
#[derive(Clone, Default)]
struct Graph {
    vars: usize,
    edges: Vec<(VarId, VarId)>,
}

impl Graph {
    fn new(vars: usize) -> Self {
        Graph {
            vars,
            edges: Vec::new(),
        }
    }

    /// Kahn's algorithm; ties go to the variable that appeared first. `None` on a cycle.
    fn topological_order(&self) -> Option<Vec<VarId>> {
        let mut indegree = vec![0usize; self.vars];
        for &(_, to) in &self.edges {
            indegree[to] += 1;
        }
        let mut order = Vec::with_capacity(self.vars);
        let mut placed = vec![false; self.vars];
        while order.len() < self.vars {
            let next = (0..self.vars).find(|&v| !placed[v] && indegree[v] == 0)?;
            placed[next] = true;
            order.push(next);
            for &(from, to) in &self.edges {
                if from == next {
                    indegree[to] -= 1;
                }
            }
        }
        Some(order)
    }

    fn is_acyclic(&self) -> bool {
        self.topological_order().is_some()
    }

    /// Adds `edges` if the graph stays acyclic; reports whether it did.
    fn try_add(&mut self, edges: &[(VarId, VarId)]) -> bool {
        let before = self.edges.len();
        for &edge in edges {
            // Many accesses share edges; keeping each once keeps the graph small.
            if !self.edges.contains(&edge) {
                self.edges.push(edge);
            }
        }
        if self.is_acyclic() {
            true
        } else {
            self.edges.truncate(before);
            false
        }
    }
}

/// Edges of one access's path: `hard` from levels that must be iterated in order (no locate),
/// `soft` from levels that could be located in any order. A sparse output is appended in
/// storage order, so every one of its levels is hard: the positions of a level that appends
/// segments must be visited in increasing order, and those of a dense level above it are
/// computed from its coordinates.
pub fn path_edges(kernel: &Kernel, access: AccessId) -> (Vec<Edge>, Vec<Edge>) {
    let format = kernel.format_of(access);
    let a = &kernel.accesses[access];
    let appended = kernel.output_access() == Some(access) && !format.inserts_everywhere();
    let (mut hard, mut soft) = (Vec::new(), Vec::new());
    for (k, level) in format.levels.iter().enumerate() {
        let to = a.level_var(format, k);
        for parent in 0..k {
            let edge = (a.level_var(format, parent), to);
            if level.has_locate() && !appended {
                soft.push(edge);
            } else {
                hard.push(edge);
            }
        }
    }
    (hard, soft)
}

/// Reduction variables summed at the root of the right side: only these may be iterated
/// outside an output variable (the output then accumulates across their iterations).
pub fn root_sum_vars(kernel: &Kernel) -> Vec<VarId> {
    match &kernel.rhs {
        Expr::Sum(vars, _) => vars.clone(),
        _ => Vec::new(),
    }
}

/// Computes the loop order, or reports the access that no order can traverse.
pub fn loop_order(kernel: &Kernel, diags: &mut Diagnostics) -> Option<Vec<VarId>> {
    loop_order_after(kernel, &[], diags)
}

/// [`loop_order`] with the variables of `outer` iterated first, in that order: the loops a
/// workspace's nests run inside (`crate::workspace`). An access that must be traversed
/// before one of them is reported as having no order.
pub fn loop_order_after(
    kernel: &Kernel,
    outer: &[VarId],
    diags: &mut Diagnostics,
) -> Option<Vec<VarId>> {
    let mut graph = Graph::new(kernel.vars.len());
    let forced: Vec<Edge> = kernel
        .forced_order
        .windows(2)
        .map(|w| (w[0], w[1]))
        .collect();
    graph.try_add(&forced);
    if !graph.try_add(&outer_edges(kernel.vars.len(), outer)) {
        return None;
    }
    // Without outer variables or a forced order the sum nesting is acyclic by construction;
    // with them, a reduction that must be complete inside a loop the order puts inside it
    // leaves no order.
    let nesting = nesting_edges(kernel);
    if !graph.try_add(&nesting) {
        if let Some(&(u, v)) = nesting.iter().find(|&&e| !graph.clone().try_add(&[e])) {
            let (outer, inner) = (&kernel.vars[u].name, &kernel.vars[v].name);
            diags.error_help(
                inner.span(),
                format!(
                    "`{inner}` is reduced inside the loops over `{outer}` (its reduction is folded for each `{outer}`), so no loop over `{inner}` can run outside `{outer}`"
                ),
                format!("iterate `{outer}` before `{inner}` in the schedule's `order(..)`"),
            );
        }
        return None;
    }
    let output = kernel.output_access();
    let mut rhs_accesses = Vec::new();
    kernel.rhs.accesses(&mut rhs_accesses);
    let accesses = output.into_iter().chain(rhs_accesses);
    let mut soft = Vec::new();
    for access in accesses {
        let (hard, s) = path_edges(kernel, access);
        if !graph.try_add(&hard) {
            report_cycle(kernel, &graph, access, diags);
            return None;
        }
        soft.extend(s);
    }
    for edge in soft {
        graph.try_add(&[edge]);
    }
    graph.topological_order()
}

/// `outer[0] -> outer[1] -> ...`, and the last of them before every other variable.
fn outer_edges(vars: usize, outer: &[VarId]) -> Vec<Edge> {
    let mut edges: Vec<Edge> = outer.windows(2).map(|w| (w[0], w[1])).collect();
    if let Some(&last) = outer.last() {
        edges.extend((0..vars).filter(|v| !outer.contains(v)).map(|v| (last, v)));
    }
    edges
}

/// Loop nesting forced by the sums: a sum's loops run inside the loops of every variable bound
/// around it, since its temporary must be complete before it is combined. The exception is a
/// sum at the root of the right side of a scalar output or an output whose levels all insert:
/// the output can accumulate across its iterations, so its variables may also run outside
/// output variables.
fn nesting_edges(kernel: &Kernel) -> Vec<Edge> {
    let out_vars = kernel.output_vars().to_vec();
    let dense_output = kernel.output_in_place();
    let mut edges = Vec::new();
    match &kernel.rhs {
        Expr::Sum(vars, body) if dense_output => {
            let enclosing: Vec<VarId> = out_vars.iter().chain(vars).copied().collect();
            sum_edges(body, &enclosing, &mut edges);
        }
        rhs => sum_edges(rhs, &out_vars, &mut edges),
    }
    edges
}

fn sum_edges(e: &Expr, enclosing: &[VarId], edges: &mut Vec<Edge>) {
    match e {
        Expr::Sum(vars, body) | Expr::Reduce(_, vars, body) => {
            for &u in enclosing {
                edges.extend(vars.iter().map(|&v| (u, v)));
            }
            let inner: Vec<VarId> = enclosing.iter().chain(vars).copied().collect();
            sum_edges(body, &inner, edges);
        }
        other => other
            .children()
            .into_iter()
            .for_each(|c| sum_edges(c, enclosing, edges)),
    }
}

fn report_cycle(kernel: &Kernel, graph: &Graph, access: AccessId, diags: &mut Diagnostics) {
    let a = &kernel.accesses[access];
    let tensor = &kernel.tensors[a.tensor];
    let format = &tensor.format;
    let order = graph
        .topological_order()
        .expect("the graph before this access is acyclic");
    let stored: Vec<String> = (0..format.order())
        .map(|k| format!("`{}`", kernel.vars[a.level_var(format, k)].name))
        .collect();
    let mut modes: Vec<usize> = (0..format.order()).collect();
    modes.sort_by_key(|&m| order.iter().position(|&v| v == a.vars[m]));
    if let Some(remap) = format.remap {
        let v = quote::ToTokens::to_token_stream(&kernel.value_type)
            .to_string()
            .replace(' ', "");
        let in_place = kernel.output_in_place();
        let instead = if in_place {
            // The output already accumulates: what is left is a sum that must be complete
            // first (a quotient) or a sparse output's order.
            String::new()
        } else {
            format!("write the result into an output that can be written in any order (`Dense2<{v}>`, `HashMat<{v}>`), or ")
        };
        diags.error_spanned(
            &a.tokens,
            format!(
                "no loop order traverses `{}` ({}): a `{}` is visited {}, and the rest of the statement needs another order (an output appended in its storage order, or an operand or sum that must be complete first)",
                tensor.name, format.written, remap.name, remap.visits
            ),
            format!("{instead}store `{}` as `Csr<{v}>`", tensor.name),
        );
        return;
    }
    let wanted: Vec<String> = modes
        .iter()
        .map(|&m| format!("`{}`", kernel.vars[a.vars[m]].name))
        .collect();
    let suggested = suggest_format(format, &kernel.value_type, &modes);
    // Storing the tensor another way cannot help when it is also read in another order.
    let read_twice = kernel
        .accesses
        .iter()
        .any(|b| b.tensor == a.tensor && b.vars != a.vars);
    let help = if read_twice {
        format!(
            "`{name}` is also read in another order: pass a second operand holding it with its levels in the order {order} (`{name}.convert::<{plain}>()?`, sparse_runtime::convert) and read that here",
            name = tensor.name,
            order = wanted.join(", "),
            plain = suggested.trim_matches('`'),
        )
    } else {
        format!(
            "store `{}` as {}, which keeps its levels in the order {}",
            tensor.name,
            suggested,
            wanted.join(", ")
        )
    };
    diags.error_spanned(
        &a.tokens,
        format!(
            "no loop order traverses `{}` ({}) in its storage order: it stores {} in that order, but the rest of the statement needs {}",
            tensor.name,
            format.written,
            stored.join(", "),
            wanted.join(", ")
        ),
        help,
    );
}
