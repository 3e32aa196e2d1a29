//! Operand conversion (taco, end of section 4; Chou et al. 2020): when no loop order
//! traverses every operand in its storage order, an input is converted on entry into a
//! temporary holding the same levels in another mode order, which the loop order can
//! traverse (`A(i,j) = B(i,j) + C(j,i)` with all three `Csr` reads `C` as a CSC matrix of
//! `C`'s transpose, built by counting). The conversion is a runtime routine
//! (`sparse_runtime::convert`), linear in the operand's size.

use crate::diagnostic::Diagnostics;
use crate::format::Format;
use crate::notation::{Kernel, TensorId, VarId};
use crate::split;

/// An input the kernel converts on entry.
#[derive(Clone, Debug)]
pub struct Conversion {
    /// The tensor, whose format in the kernel is the temporary's from then on.
    pub tensor: TensorId,
    /// The format of the parameter as passed.
    pub from: Format,
}

/// How many candidate conversions the planner tries at most: each try orders the kernel once.
const BUDGET: usize = 4096;

/// The fewest inputs to convert, each into its own levels in another mode order, after which
/// the kernel has loop nests: the kernel with those inputs' formats replaced (and the
/// conversions recorded in [`Kernel::conversions`]), and its nests. One input is tried before
/// two; for each, first the mode order that follows the output's storage order.
///
/// Not for a product-like kernel (a sum, and two output variables no input access shares):
/// its only orders without a workspace compute each output component as an inner product,
/// visiting every pair of the two variables' coordinates, far slower than a workspace.
pub fn plan(kernel: &Kernel) -> Option<(Kernel, Vec<split::Part>)> {
    if product_like(kernel) {
        return None;
    }
    let mut inputs = convertible_inputs(kernel);
    // An input already stored in the output's order is the least likely offender.
    inputs.sort_by_key(|&t| output_order(kernel, t) == kernel.tensors[t].format.mode_order);
    let candidates: Vec<(TensorId, Vec<Vec<usize>>)> = inputs
        .into_iter()
        .map(|t| (t, mode_orders(kernel, t)))
        .collect();
    let tries = std::cell::Cell::new(0);
    let attempt = |choice: &[(TensorId, &Vec<usize>)]| {
        tries.set(tries.get() + 1);
        let mut converted = kernel.clone();
        for &(t, order) in choice {
            convert(&mut converted, t, order);
        }
        split::parts(&converted, &mut Diagnostics::default()).map(|parts| (converted, parts))
    };
    for (t, orders) in &candidates {
        for order in orders {
            if let Some(found) = attempt(&[(*t, order)]) {
                return Some(found);
            }
        }
    }
    for (a, (t, orders)) in candidates.iter().enumerate() {
        for (u, others) in &candidates[a + 1..] {
            for order in orders {
                for other in others {
                    if tries.get() >= BUDGET {
                        return None;
                    }
                    if let Some(found) = attempt(&[(*t, order), (*u, other)]) {
                        return Some(found);
                    }
                }
            }
        }
    }
    None
}

/// Whether the kernel sums over a variable and has two output variables that no input access
/// indexes together (`c(i, k) = a(i, j) * b(j, k)`).
fn product_like(kernel: &Kernel) -> bool {
    let out = kernel.output_vars();
    let sums = (0..kernel.vars.len()).any(|v| !out.contains(&v));
    let output = kernel.output_access();
    let shared = |u: VarId, w: VarId| {
        kernel.accesses.iter().enumerate().any(|(a, access)| {
            Some(a) != output
                && Some(access.tensor) != kernel.old_output
                && access.vars.contains(&u)
                && access.vars.contains(&w)
        })
    };
    sums && out
        .iter()
        .enumerate()
        .any(|(n, &u)| out[n + 1..].iter().any(|&w| u != w && !shared(u, w)))
}

/// Inputs a conversion can reorder: read on the right side, not the output (nor its old
/// contents), not a struct-held format (whose view has modes the user does not index), and
/// of order two or more.
fn convertible_inputs(kernel: &Kernel) -> Vec<TensorId> {
    let output = kernel.output_access().map(|a| kernel.accesses[a].tensor);
    let mut inputs: Vec<TensorId> = Vec::new();
    for access in &kernel.accesses {
        let t = access.tensor;
        let format = &kernel.tensors[t].format;
        let eligible = Some(t) != output
            && Some(t) != kernel.old_output
            && format.remap.is_none()
            && format.order() >= 2;
        if eligible && !inputs.contains(&t) {
            inputs.push(t);
        }
    }
    inputs
}

/// Every other mode order of tensor `t`, the one that follows the output's storage order
/// first.
fn mode_orders(kernel: &Kernel, t: TensorId) -> Vec<Vec<usize>> {
    let current = kernel.tensors[t].format.mode_order.clone();
    let mut orders = vec![output_order(kernel, t)];
    for order in permutations(current.len()) {
        if !orders.contains(&order) {
            orders.push(order);
        }
    }
    orders.retain(|o| *o != current);
    orders
}

/// The mode order of tensor `t` that follows the output's storage order: its modes sorted by
/// where their variable (at `t`'s first access) is in the output's levels, the others after
/// them in their current order.
fn output_order(kernel: &Kernel, t: TensorId) -> Vec<usize> {
    let current = kernel.tensors[t].format.mode_order.clone();
    let Some(access) = kernel.accesses.iter().find(|a| a.tensor == t) else {
        return current;
    };
    let output_rank = |mode: usize| -> usize {
        let var = access.vars[mode];
        let Some(out) = kernel.output_access() else {
            return usize::MAX;
        };
        let out_format = kernel.format_of(out);
        let out_vars = &kernel.accesses[out].vars;
        (0..out_format.order())
            .position(|k| out_vars.get(out_format.mode_order[k]) == Some(&var))
            .unwrap_or(usize::MAX)
    };
    let mut preferred = current;
    preferred.sort_by_key(|&m| output_rank(m));
    preferred
}

/// Every permutation of `0..n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in permutations(n - 1) {
        for at in 0..=rest.len() {
            let mut p = rest.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Replaces tensor `t`'s format by the temporary's, recording the conversion: its own levels
/// in mode order `order` if they store exactly the components they are given, whatever they
/// are, else compressed levels (CSF) in that order. (A singleton level below a unique one
/// holds one coordinate per parent, which the tensor's coordinates need not satisfy in
/// another order; a dense level below a sparse one stores every coordinate below each parent,
/// zeros the original did not store, which would change the iteration space.)
fn convert(kernel: &mut Kernel, t: TensorId, order: &[usize]) {
    let tensor = &mut kernel.tensors[t];
    let from = tensor.format.clone();
    if !stores_exactly(&tensor.format) {
        let index = from.levels.iter().find_map(|l| l.index.clone());
        for level in &mut tensor.format.levels {
            if let Some(compressed) = crate::format::LevelFormat::from_type_name("Compressed") {
                *level = compressed;
                level.index = index.clone();
            }
        }
    }
    tensor.format.mode_order = order.to_vec();
    tensor.format.modes_spelled = order.iter().enumerate().any(|(k, &m)| k != m);
    tensor.format.written = spelled(&tensor.format);
    kernel.conversions.push(Conversion { tensor: t, from });
}

/// Whether a format stores exactly any set of coordinates it is given: every branchless level
/// sits below a non-unique one (COO's runs), never below a unique one, and no full level sits
/// below a level that is not full (no padding), unless every level is full (a dense tensor,
/// which stores every coordinate in any mode order).
fn stores_exactly(format: &Format) -> bool {
    let holds_anything = format
        .levels
        .windows(2)
        .all(|w| !w[1].is_branchless() || !w[0].is_unique());
    let pads = format
        .levels
        .windows(2)
        .any(|w| w[1].is_full() && !w[0].is_full());
    format.is_all_dense() || (holds_anything && !pads)
}

/// A format as a user would write it: its alias (`Csc<_>`) if it has one, else
/// `Tensor<_, (Compressed, Dense), Modes<1, 0>>`.
pub fn spelled(format: &Format) -> String {
    let levels: Vec<String> = format.levels.iter().map(|l| l.type_name()).collect();
    let alias = crate::format::ALIASES.iter().find(|a| {
        a.remap.is_none()
            && a.modes == format.mode_order.as_slice()
            && a.levels.iter().eq(levels.iter())
    });
    if let Some(alias) = alias {
        return format!("{}<_>", alias.name);
    }
    let modes: Vec<String> = format.mode_order.iter().map(|m| m.to_string()).collect();
    let tuple = match levels.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", levels.join(", ")),
    };
    if format.modes_spelled {
        format!("Tensor<_, {tuple}, Modes<{}>>", modes.join(", "))
    } else {
        format!("Tensor<_, {tuple}>")
    }
}

/// The error of a kernel that has loop nests only by converting an operand, when
/// `convert(never)` (at `directive`) forbids it: at the operand's access, naming the
/// conversion a caller can make (`converted` is the kernel with it) instead of `no_order`,
/// the error that suggests storing the operand in another format.
pub fn forbidden(
    no_order: syn::Error,
    directive: proc_macro2::Span,
    kernel: &Kernel,
    converted: &Kernel,
) -> syn::Error {
    let Some(c) = converted.conversions.first() else {
        return no_order;
    };
    let tensor = &kernel.tensors[c.tensor];
    let name = &tensor.name;
    let temporary = spelled(&converted.tensors[c.tensor].format);
    let access = kernel.accesses.iter().find(|a| a.tensor == c.tensor);
    let message = format!(
        "no loop order traverses `{name}` ({}) in its storage order, and `convert(never)` forbids converting it",
        tensor.format.written
    );
    let help = format!(
        "help: convert it before the call, `let {name}: {temporary} = {name}.convert()?;` (sparse_runtime::convert), and pass that; or remove `convert(never)` to let the kernel convert it on each call"
    );
    let mut e = match access {
        Some(a) => syn::Error::new_spanned(&a.tokens, format!("{message}\n{help}")),
        None => syn::Error::new(directive, format!("{message}\n{help}")),
    };
    e.combine(syn::Error::new(
        directive,
        "the implicit conversion is forbidden here",
    ));
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_all_listed_once() {
        assert_eq!(permutations(2), vec![vec![0, 1], vec![1, 0]]);
        let p3 = permutations(3);
        assert_eq!(p3.len(), 6);
        assert_eq!(p3[0], vec![0, 1, 2]);
        assert_eq!(p3[5], vec![2, 1, 0]);
    }
}
