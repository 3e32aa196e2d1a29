//! The schedule vocabulary: `#[schedule(...)]` attributes on a kernel choose how it is
//! computed, never what. The compiler takes them off the function (rustc does not know them)
//! and checks each against the statement; a directive that cannot be honoured is a spanned
//! error saying why, never silently ignored.
//!
//! - `workspace(v)`, `workspace(v, dense)`, `workspace(v, hash)`: compute the output's levels
//!   from the one storing `v` down into a workspace of that kind (`crate::workspace`), the
//!   levels above it appended by the outer loops.
//! - `order(i, k, j)`: the listed index variables' loops nest in that order (outermost
//!   first), in every loop nest of the kernel; variables not listed go wherever the compiler
//!   puts them. An order no format admits is an error saying which access it contradicts.
//! - `compute(name)`: the assemble/compute split (taco, section 7). Besides the kernel, which
//!   assembles its sparse output's pattern and computes its values, emit `name`, with the same
//!   parameters, which computes only the values into an output the kernel assembled, for
//!   operands with the same patterns (their values may change); any other output is an
//!   `Err`.
//! - `parallel(never)`: keep the kernel serial. Without it, an outer loop over the first
//!   level of a dense output runs its rows in parallel (`crate::parallel`).
//! - `precompute(never)`: sum every product term by term, in the order written. Without it,
//!   a factor that does not change in a summing loop multiplies the loop's sum once
//!   (`crate::precompute`), and a float sum over a dense dimension adds a partial sum per
//!   strip lane (`crate::lane_sums`); both round floats differently.

use crate::diagnostic::Diagnostics;
use crate::names::same;
use crate::notation::Kernel;
use crate::workspace::Kind;
use proc_macro2::{Ident, Span};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::Token;

/// The attribute's name.
const SCHEDULE: &str = "schedule";

/// The directives of a kernel's schedule attributes, as written.
#[derive(Default)]
pub struct Schedule {
    /// `workspace(v[, kind])`: the variable and the kind, if given.
    pub workspace: Option<WorkspaceDirective>,
    /// `compute(name)`: the name of the compute-only function.
    pub compute: Option<Ident>,
    /// `order(...)`: the variables as written, and the directive's span.
    pub order: Option<(Vec<Ident>, Span)>,
    /// `convert(never)`: no operand is converted, nor the whole output computed through a
    /// workspace, to get a loop order (the directive's span).
    pub no_conversion: Option<Span>,
    /// `parallel(never)`: every loop runs serially (the directive's span).
    pub serial: Option<Span>,
    /// `precompute(never)`: no loop-invariant factor is moved out of a sum, and no sum is
    /// split into partial sums per strip lane (the directive's span).
    pub term_by_term: Option<Span>,
}

/// `workspace(v[, kind])`.
pub struct WorkspaceDirective {
    /// The output index variable whose level is the workspace's first.
    pub var: Ident,
    /// The accumulator, if the schedule names one.
    pub kind: Option<Kind>,
    /// The directive as written, for errors.
    pub span: Span,
}

/// Whether `attr` is a schedule attribute.
pub fn is_schedule(attr: &syn::Attribute) -> bool {
    attr.path().is_ident(SCHEDULE)
}

/// Splits the schedule attributes off `item`.
pub fn split(item: &syn::ItemFn) -> (syn::ItemFn, Vec<syn::Attribute>) {
    let mut plain = item.clone();
    let (schedule, rest) = item.attrs.iter().cloned().partition(is_schedule);
    plain.attrs = rest;
    (plain, schedule)
}

/// Reads the directives of `attrs`, reporting unknown or malformed ones.
pub fn read(attrs: &[syn::Attribute], diags: &mut Diagnostics) -> Schedule {
    let mut schedule = Schedule::default();
    for attr in attrs {
        let parsed =
            attr.parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_separated_nonempty);
        let directives = match parsed {
            Ok(d) => d,
            Err(e) => {
                diags.error_help(e.span(), format!("malformed schedule: {e}"), EXPECTED);
                continue;
            }
        };
        for directive in directives {
            read_directive(&directive, &mut schedule, diags);
        }
    }
    schedule
}

const EXPECTED: &str = "the directives are `order(i, k, j)` (a loop order), `workspace(k)`, `workspace(k, dense)` or `workspace(k, hash)` (with `k` an index variable of the sparse output), `compute(name)` (a compute-only variant named `name`), `convert(never)` (no implicit conversion), `parallel(never)` (a serial kernel) and `precompute(never)` (every product summed term by term)";

fn read_directive(directive: &syn::Meta, schedule: &mut Schedule, diags: &mut Diagnostics) {
    let syn::Meta::List(list) = directive else {
        diags.error_help(directive.span(), "expected a schedule directive", EXPECTED);
        return;
    };
    if list.path.is_ident("compute") {
        read_compute(list, schedule, diags);
        return;
    }
    if list.path.is_ident("order") {
        read_order(list, schedule, diags);
        return;
    }
    if list.path.is_ident("convert") {
        read_convert(list, schedule, diags);
        return;
    }
    if list.path.is_ident("parallel") {
        read_parallel(list, schedule, diags);
        return;
    }
    if list.path.is_ident("precompute") {
        read_precompute(list, schedule, diags);
        return;
    }
    if !list.path.is_ident("workspace") {
        diags.error_help(
            list.path.span(),
            format!(
                "unknown schedule directive `{}`",
                quote::ToTokens::to_token_stream(&list.path)
            ),
            EXPECTED,
        );
        return;
    }
    let args = match list.parse_args_with(Punctuated::<Ident, Token![,]>::parse_terminated) {
        Ok(args) => args,
        Err(e) => {
            diags.error_help(e.span(), format!("malformed `workspace`: {e}"), EXPECTED);
            return;
        }
    };
    let mut args = args.into_iter();
    let Some(var) = args.next() else {
        diags.error_help(list.span(), "`workspace` needs an index variable", EXPECTED);
        return;
    };
    let kind = match args.next() {
        None => None,
        Some(k) if k == "dense" => Some(Kind::Dense),
        Some(k) if k == "hash" => Some(Kind::Hash),
        Some(k) => {
            diags.error_help(
                k.span(),
                format!("unknown workspace kind `{k}`"),
                "the kinds are `dense` (an array with a list of touched coordinates) and `hash`",
            );
            return;
        }
    };
    if let Some(extra) = args.next() {
        diags.error_help(
            extra.span(),
            "`workspace` takes a variable and a kind",
            EXPECTED,
        );
        return;
    }
    let directive = WorkspaceDirective {
        var,
        kind,
        span: list.span(),
    };
    set_once(&mut schedule.workspace, directive, list, "workspace", diags);
}

/// `parallel(never)`.
fn read_parallel(list: &syn::MetaList, schedule: &mut Schedule, diags: &mut Diagnostics) {
    let help = "write `parallel(never)` to keep every loop of the kernel serial";
    if is_never(list, "parallel", help, diags) {
        set_once(&mut schedule.serial, list.span(), list, "parallel", diags);
    }
}

/// `precompute(never)`.
fn read_precompute(list: &syn::MetaList, schedule: &mut Schedule, diags: &mut Diagnostics) {
    let help = "write `precompute(never)` to sum every product term by term, as written";
    if is_never(list, "precompute", help, diags) {
        set_once(
            &mut schedule.term_by_term,
            list.span(),
            list,
            "precompute",
            diags,
        );
    }
}

/// `convert(never)`.
fn read_convert(list: &syn::MetaList, schedule: &mut Schedule, diags: &mut Diagnostics) {
    let help = "write `convert(never)` to forbid converting an operand (or computing the whole output in a workspace) to get a loop order";
    if is_never(list, "convert", help, diags) {
        set_once(
            &mut schedule.no_conversion,
            list.span(),
            list,
            "convert",
            diags,
        );
    }
}

/// Whether directive `name`'s argument is `never`; an error with `help` if not.
fn is_never(list: &syn::MetaList, name: &str, help: &str, diags: &mut Diagnostics) -> bool {
    let never = list.parse_args::<Ident>().is_ok_and(|arg| arg == "never");
    if !never {
        diags.error_help(
            list.span(),
            format!("the `{name}` directive is `{name}(never)`"),
            help,
        );
    }
    never
}

/// `order(i, j, ...)`.
fn read_order(list: &syn::MetaList, schedule: &mut Schedule, diags: &mut Diagnostics) {
    let vars = match list.parse_args_with(Punctuated::<Ident, Token![,]>::parse_terminated) {
        Ok(vars) => vars.into_iter().collect::<Vec<_>>(),
        Err(e) => {
            diags.error_help(
                e.span(),
                format!("malformed `order`: {e}"),
                "write `order(i, k, j)`: index variables, outermost first",
            );
            return;
        }
    };
    set_once(
        &mut schedule.order,
        (vars, list.span()),
        list,
        "order",
        diags,
    );
}

/// The index variables of an `order(..)` directive, or errors at the unknown or repeated ones.
pub fn resolve_order(
    kernel: &Kernel,
    order: &[Ident],
    diags: &mut Diagnostics,
) -> Option<Vec<crate::notation::VarId>> {
    let mut vars = Vec::new();
    let mut ok = true;
    for ident in order {
        let found = kernel
            .vars
            .iter()
            .position(|v| !v.hidden && same(&v.name, ident));
        match found {
            Some(v) if vars.contains(&v) => {
                diags.error_help(
                    ident.span(),
                    format!("`{ident}` appears twice in the loop order"),
                    "name each index variable once",
                );
                ok = false;
            }
            Some(v) => vars.push(v),
            None => {
                let known: Vec<String> = kernel
                    .vars
                    .iter()
                    .filter(|v| !v.hidden)
                    .map(|v| format!("`{}`", v.name))
                    .collect();
                diags.error_help(
                    ident.span(),
                    format!("`{ident}` is not an index variable of `{}`", kernel.name),
                    format!("the index variables are {}", known.join(", ")),
                );
                ok = false;
            }
        }
    }
    ok.then_some(vars)
}

/// `compute(name)`.
fn read_compute(list: &syn::MetaList, schedule: &mut Schedule, diags: &mut Diagnostics) {
    let name = match list.parse_args::<Ident>() {
        Ok(name) => name,
        Err(e) => {
            diags.error_help(
                e.span(),
                format!("malformed `compute`: {e}"),
                "write `compute(name)`: the name of the compute-only function",
            );
            return;
        }
    };
    set_once(&mut schedule.compute, name, list, "compute", diags);
}

/// Records a directive's value, or an error at it if the kernel already has one.
fn set_once<T>(
    slot: &mut Option<T>,
    value: T,
    list: &syn::MetaList,
    directive: &str,
    diags: &mut Diagnostics,
) {
    if slot.is_some() {
        diags.error_help(
            list.span(),
            format!("a kernel takes at most one `{directive}` directive"),
            format!("keep one `{directive}(..)`"),
        );
        return;
    }
    *slot = Some(value);
}

/// Whether `kernel` can have a compute-only variant: its output is sparse and appended (an
/// output written in place is computed in place anyway), not updated by `+=` (its pattern
/// grows with every call), and has no dense block at its bottom. Else an error at `name`.
pub fn check_compute(kernel: &Kernel, name: &Ident, diags: &mut Diagnostics) -> bool {
    let output = kernel.output_access().map(|a| kernel.format_of(a));
    let why = match output {
        None => Some("its output is a scalar, computed in place".to_string()),
        Some(f) if f.is_all_dense() || f.inserts_everywhere() => Some(format!(
            "its output ({}) is written in place: the kernel computes only values already",
            f.written
        )),
        Some(_) if kernel.old_output.is_some() => {
            Some("it adds (`+=`) into its output, whose pattern grows with every call".into())
        }
        Some(f) if !crate::workspace::copies_out(f) => Some(format!(
            "its output ({}) ends with a dense block, whose positions are not computed in order",
            f.written
        )),
        Some(_) => None,
    };
    match why {
        None => true,
        Some(why) => {
            diags.error_help(
                name.span(),
                format!(
                    "`{}` cannot have a compute-only variant: {why}",
                    kernel.name
                ),
                "remove the `compute(..)` directive",
            );
            false
        }
    }
}

/// The output storage level of a workspace directive's variable, or an error at it.
pub fn workspace_level(
    kernel: &Kernel,
    directive: &WorkspaceDirective,
    diags: &mut Diagnostics,
) -> Option<usize> {
    let var = &directive.var;
    let Some(out) = kernel.output_access() else {
        diags.error_help(
            var.span(),
            "a workspace holds part of a sparse output, and this kernel's output is a scalar",
            "remove the `workspace` directive",
        );
        return None;
    };
    let format = kernel.format_of(out);
    let name = &kernel.tensors[kernel.accesses[out].tensor].name;
    if format.is_all_dense() || format.inserts_everywhere() {
        diags.error_help(
            var.span(),
            format!(
                "`{name}` ({}) is written in place, in any order: it needs no workspace",
                format.written
            ),
            "remove the `workspace` directive",
        );
        return None;
    }
    let level = (0..format.order()).find(|&k| {
        same(
            &kernel.vars[kernel.accesses[out].level_var(format, k)].name,
            var,
        )
    });
    if level.is_none() {
        let vars: Vec<String> = kernel
            .output_vars()
            .iter()
            .map(|&v| format!("`{}`", kernel.vars[v].name))
            .collect();
        diags.error_help(
            var.span(),
            format!("`{var}` is not an index variable of the output `{name}`"),
            format!("name one of {}", vars.join(", ")),
        );
    }
    level
}
