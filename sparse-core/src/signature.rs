//! Reading a kernel's signature: which parameters are tensors (and in which format), which are
//! scalars. A proc macro sees tokens, not types, so formats are read from the type names.

use crate::diagnostic::Diagnostics;
use crate::format::{
    borrowed_format, level_type_names, Alias, Borrow, DenseView, Format, LevelFormat, ALIASES,
    DENSE_VIEWS,
};
use proc_macro2::{Ident, Span};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Pat, PathArguments, Type};

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passing {
    /// `T`
    Value,
    /// `&T`
    Shared,
    /// `&mut T`
    Mutable,
}

/// What a parameter is.
#[derive(Clone, Debug)]
pub enum ParamKind {
    /// A tensor of a known format.
    Tensor(Format),
    /// A scalar: a primitive number, or the value type of the kernel's tensors.
    Scalar,
}

/// One parameter of the kernel signature.
#[derive(Clone, Debug)]
pub struct Param {
    /// The name, with the user's span.
    pub name: Ident,
    /// Tensor or scalar.
    pub kind: ParamKind,
    /// How it is passed.
    pub passing: Passing,
    /// The value type (`f64` in `&Csr<f64>`, or the scalar's own type).
    pub value_type: Type,
    /// Span of the whole type, for diagnostics.
    pub type_span: Span,
    /// The type as written (with its reference), for diagnostics that cover all of it.
    pub ty: Type,
    /// The type behind the reference, as written.
    pub inner: Type,
    /// The fill value `#[fill(..)]` declares (zero without one).
    pub fill: crate::algebra::Constant,
    /// The `#[fill(..)]` attribute, if the parameter has one (for diagnostics).
    pub fill_attr: Option<syn::Attribute>,
}

/// Scalar types a kernel computes with.
pub const PRIMITIVES: &[&str] = &[
    "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize",
];

/// Whether `ty` is a primitive float type.
pub fn is_float(ty: &Type) -> bool {
    matches!(type_name(ty).as_deref(), Some("f32" | "f64"))
}

/// Whether `ty` is a primitive unsigned integer type.
pub fn is_unsigned(ty: &Type) -> bool {
    matches!(
        type_name(ty).as_deref(),
        Some("u8" | "u16" | "u32" | "u64" | "u128" | "usize")
    )
}

/// Whether `ty` is one of [`PRIMITIVES`].
pub fn is_primitive(ty: &Type) -> bool {
    type_name(ty).is_some_and(|n| PRIMITIVES.contains(&n.as_str()))
}

fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
}

/// Reads every parameter; unreadable ones are reported and skipped.
///
/// A parameter whose type is a path naming no format (`alpha: Complex64`, `out: &mut Mod7`)
/// is a scalar if that type is the value type of the first tensor parameter, as written:
/// value types other than primitive numbers are known only from the tensors. Otherwise it
/// is an unknown tensor type, reported with the formats that exist.
pub fn read_params(sig: &syn::Signature, diags: &mut Diagnostics) -> Vec<Param> {
    let read: Vec<(Param, bool)> = sig
        .inputs
        .iter()
        .filter_map(|arg| read_param(arg, diags))
        .collect();
    let value_type = read.iter().find_map(|(p, _)| match p.kind {
        ParamKind::Tensor(_) => Some(p.value_type.to_token_stream().to_string()),
        ParamKind::Scalar => None,
    });
    read.into_iter()
        .filter_map(|(param, names_no_format)| {
            let scalar = !names_no_format
                || value_type.as_deref() == Some(&param.inner.to_token_stream().to_string());
            if !scalar {
                unknown_type(&param.inner, diags);
            }
            scalar.then_some(param)
        })
        .collect()
}

/// Whether `ty` is a path that names no format: a scalar of a value type that is not a
/// primitive number, or a misspelled format.
fn names_no_format(ty: &Type) -> bool {
    let Type::Path(path) = ty else {
        return false;
    };
    path.path.segments.last().is_some_and(|segment| {
        segment.ident != "Tensor"
            && !ALIASES.iter().any(|a| segment.ident == a.name)
            && !DENSE_VIEWS.iter().any(|v| segment.ident == v.name)
    }) && !is_primitive(ty)
}

/// A parameter, and whether its type names no format ([`names_no_format`]; then it is
/// read as a scalar, which [`read_params`] confirms or reports).
fn read_param(arg: &FnArg, diags: &mut Diagnostics) -> Option<(Param, bool)> {
    let FnArg::Typed(pat_type) = arg else {
        diags.error(
            arg.span(),
            "a kernel is a free function; it takes no `self`",
        );
        return None;
    };
    let plain = match &*pat_type.pat {
        Pat::Ident(pat)
            if pat.by_ref.is_none() && pat.mutability.is_none() && pat.subpat.is_none() =>
        {
            Some(pat)
        }
        _ => None,
    };
    let Some(pat) = plain else {
        diags.error_help(
            pat_type.pat.span(),
            "kernel parameters must be plain names",
            "write `name: Type` (no `ref`, `mut` or patterns)",
        );
        return None;
    };
    if let Some(attr) = pat_type.attrs.iter().find(|a| !a.path().is_ident("fill")) {
        diags.error_spanned(
            attr,
            "unknown attribute on a kernel parameter",
            "the one attribute a parameter takes is `#[fill(c)]`, its fill value",
        );
        return None;
    }
    let fill = crate::algebra::read_fill(&pat_type.attrs, diags);
    let fill_attr = pat_type.attrs.last().cloned();
    let (passing, inner) = match ungroup(&pat_type.ty) {
        Type::Reference(r) if r.mutability.is_some() => (Passing::Mutable, ungroup(&r.elem)),
        Type::Reference(r) => (Passing::Shared, ungroup(&r.elem)),
        other => (Passing::Value, other),
    };
    let type_span = pat_type.ty.span();
    let other = names_no_format(inner);
    let (kind, value_type) = if other {
        (ParamKind::Scalar, inner.clone())
    } else {
        read_type(inner, diags)?
    };
    let param = Param {
        name: pat.ident.clone(),
        kind,
        passing,
        value_type,
        type_span,
        ty: (*pat_type.ty).clone(),
        inner: inner.clone(),
        fill,
        fill_attr,
    };
    Some((param, other))
}

/// Looks through the invisible groups a `macro_rules!` `$t:ty` fragment arrives in.
fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => ungroup(&g.elem),
        Type::Paren(p) => ungroup(&p.elem),
        other => other,
    }
}

/// Resolves a parameter type (behind any reference) to a format or a scalar.
fn read_type(ty: &Type, diags: &mut Diagnostics) -> Option<(ParamKind, Type)> {
    if is_primitive(ty) {
        return Some((ParamKind::Scalar, ty.clone()));
    }
    if let Type::Slice(slice) = ty {
        let format = borrowed_format(1, Borrow::Slice, written_type(ty));
        return Some((ParamKind::Tensor(format), (*slice.elem).clone()));
    }
    let Type::Path(path) = ty else {
        unknown_type(ty, diags);
        return None;
    };
    let segment = path.path.segments.last()?;
    let name = segment.ident.to_string();
    let args = generic_types(&segment.arguments);
    let written = written_type(ty);
    if name == "Tensor" {
        return read_tensor_spelling(ty, &args, written, diags);
    }
    if let Some(view) = DENSE_VIEWS.iter().find(|v| v.name == name) {
        return read_view(ty, view, &args, written, diags);
    }
    let Some(alias) = ALIASES.iter().find(|a| a.name == name) else {
        unknown_type(ty, diags);
        return None;
    };
    let consts = alias.consts();
    let spelling = alias_spelling(alias);
    let first_index = 1 + consts.len();
    let max_args = first_index + usize::from(alias.takes_index());
    let (Some(GenericArgument::Type(value)), true) =
        (args.first(), (first_index..=max_args).contains(&args.len()))
    else {
        let mut takes = String::from("its value type");
        if !consts.is_empty() {
            takes += &format!(", then {}", consts.join(" and "));
        }
        if alias.takes_index() {
            takes += " and optionally an index type";
        }
        diags.error_help(
            ty.span(),
            format!("`{name}` takes {takes}"),
            format!("write {spelling}"),
        );
        return None;
    };
    let mut const_args = Vec::new();
    for arg in &args[1..first_index] {
        // `3` arrives as a const argument, a const item `N` as a type path: rustc tells them
        // apart when it checks the canonical type the argument is spelled back into.
        let is_const = match arg {
            GenericArgument::Const(_) => true,
            GenericArgument::Type(Type::Path(p)) => p.qself.is_none(),
            _ => false,
        };
        if !is_const {
            diags.error_help(
                arg.span(),
                format!(
                    "expected a constant for `{name}`'s {}",
                    consts.join(" and ")
                ),
                format!("write {spelling}"),
            );
            return None;
        }
        const_args.push(arg.clone());
    }
    let index = match args.get(first_index) {
        None => None,
        Some(GenericArgument::Type(index)) => Some(read_index_type(index, diags)?),
        Some(other) => {
            diags.error_help(
                other.span(),
                "expected an index type",
                format!("write {spelling}"),
            );
            return None;
        }
    };
    Some((
        ParamKind::Tensor(alias.format(index.as_ref(), const_args, written)),
        value.clone(),
    ))
}

/// `Dense2View<'_, V>`: a lifetime (which may be elided) and the value type.
fn read_view(
    ty: &Type,
    view: &'static DenseView,
    args: &[GenericArgument],
    written: String,
    diags: &mut Diagnostics,
) -> Option<(ParamKind, Type)> {
    let types: Vec<&GenericArgument> = args
        .iter()
        .filter(|a| !matches!(a, GenericArgument::Lifetime(_)))
        .collect();
    let [GenericArgument::Type(value)] = types.as_slice() else {
        diags.error_help(
            ty.span(),
            format!("`{}` takes a lifetime and its value type", view.name),
            format!("write `{}<'_, f64>`", view.name),
        );
        return None;
    };
    let format = borrowed_format(view.order, Borrow::View(view), written);
    Some((ParamKind::Tensor(format), value.clone()))
}

/// How an alias is written: `` `Csr<f64>` or `Csr<f64, u64>` ``, `` `Bcsr<f64, 3, 3>` ... ``.
fn alias_spelling(alias: &Alias) -> String {
    let examples = ["3", "3", "2", "2"];
    let consts: String = examples[..alias.consts().len().min(examples.len())]
        .iter()
        .map(|c| format!(", {c}"))
        .collect();
    let name = alias.name;
    if alias.takes_index() {
        format!("`{name}<f64{consts}>` or `{name}<f64{consts}, u64>`")
    } else {
        format!("`{name}<f64{consts}>`")
    }
}

/// Index types the runtime implements `Index` for.
pub const INDEX_TYPES: &[&str] = &["u32", "u64", "usize"];

/// An index type: one of [`INDEX_TYPES`] (a path to one is left for rustc to check, since the
/// runtime's sealed `Index` trait admits nothing else).
fn read_index_type(ty: &Type, diags: &mut Diagnostics) -> Option<Type> {
    let ty = ungroup(ty);
    let single = type_name(ty);
    match single {
        Some(name) if !INDEX_TYPES.contains(&name.as_str()) => {
            diags.error_help(
                ty.span(),
                format!("`{name}` is not an index type"),
                "the index type of a level is `u32` (the default), `u64` or `usize`",
            );
            None
        }
        _ => Some(ty.clone()),
    }
}

/// A type as a user would write it: `Tensor<f64, (Dense, Compressed)>`.
pub fn written_type(ty: &Type) -> String {
    let mut s = ty.to_token_stream().to_string();
    for (from, to) in [
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        ("& ", "&"),
        (" :: ", "::"),
    ] {
        s = s.replace(from, to);
    }
    s
}

fn generic_types(args: &PathArguments) -> Vec<GenericArgument> {
    match args {
        PathArguments::AngleBracketed(a) => a.args.iter().cloned().collect(),
        _ => Vec::new(),
    }
}

fn unknown_type(ty: &Type, diags: &mut Diagnostics) {
    let known: Vec<&str> = ALIASES.iter().map(|a| a.name).collect();
    diags.error_spanned(
        ty,
        format!(
            "unknown tensor type `{}`",
            written_type(ty)
        ),
        format!(
            "use a format alias ({}), `Tensor<V, (levels...)>` with levels from {}, a slice `[V]` for a dense vector, a dense view (`Dense2View<'_, V>`, ...), or a scalar (a primitive number or the tensors' value type)",
            known.join(", "),
            level_type_names().join(", ")
        ),
    );
}

/// `Tensor<V, (L0, L1, ...)>` or `Tensor<V, (L0, ...), Modes<m0, m1, ...>>`.
fn read_tensor_spelling(
    ty: &Type,
    args: &[GenericArgument],
    written: String,
    diags: &mut Diagnostics,
) -> Option<(ParamKind, Type)> {
    let help =
        "write `Tensor<f64, (Dense, Compressed)>`, optionally with a mode order `Modes<1, 0>`";
    let (Some(GenericArgument::Type(value)), Some(GenericArgument::Type(levels))) =
        (args.first(), args.get(1))
    else {
        diags.error_help(
            ty.span(),
            "`Tensor` needs a value type and a tuple of levels",
            help,
        );
        return None;
    };
    if args.len() > 3 {
        diags.error_help(
            args[3].span(),
            "`Tensor` takes a value type, a tuple of levels and a mode order",
            help,
        );
        return None;
    }
    let levels = read_levels(levels, diags)?;
    let (mode_order, modes_spelled) = match args.get(2) {
        None => ((0..levels.len()).collect(), false),
        Some(GenericArgument::Type(order)) => read_mode_order(order, levels.len(), diags)?,
        Some(other) => {
            diags.error_help(other.span(), "expected a mode order type", help);
            return None;
        }
    };
    let format = Format {
        levels,
        mode_order,
        modes_spelled,
        written,
        remap: None,
        const_args: Vec::new(),
        borrow: crate::format::Borrow::Owned,
    };
    Some((ParamKind::Tensor(format), value.clone()))
}

/// The most levels a tensor type of the runtime has.
pub const MAX_ORDER: usize = 6;

/// `(L0, L1, ...)`: a tuple of one to [`MAX_ORDER`] level types.
fn read_levels(levels: &Type, diags: &mut Diagnostics) -> Option<Vec<LevelFormat>> {
    let Type::Tuple(tuple) = ungroup_group(levels) else {
        let one = levels.to_token_stream().to_string().replace(' ', "");
        diags.error_help(
            levels.span(),
            "the levels of a `Tensor` are a tuple",
            format!("write `({one},)` for a single level"),
        );
        return None;
    };
    if tuple.elems.is_empty() || tuple.elems.len() > MAX_ORDER {
        diags.error_help(
            levels.span(),
            format!(
                "a tensor has 1 to {MAX_ORDER} levels, but this tuple has {}",
                tuple.elems.len()
            ),
            "list one level type per mode, outermost first",
        );
        return None;
    }
    let mut out: Vec<LevelFormat> = Vec::new();
    let mut misplaced = false;
    for elem in &tuple.elems {
        if let Some(level) = read_level(elem, diags) {
            // Below a non-unique parent, positions come in runs of one coordinate that
            // iterators walk whole; a position without a coordinate has no place in one.
            let padded = level.is_branchless() && !level.is_compact();
            if padded && out.last().is_some_and(|parent| !parent.is_unique()) {
                misplaced = true;
                diags.error_help(
                    elem.span(),
                    "a padded level (positions that may hold no coordinate) cannot sit below a non-unique level",
                    "use `Singleton` here, or make the level above unique",
                );
            }
            out.push(level);
        }
    }
    (out.len() == tuple.elems.len() && !misplaced).then_some(out)
}

/// One level type: `Dense`, or a sparse level with an optional index type and, for a kind with
/// configurable properties, an optional property marker: `Compressed<u64>`,
/// `Compressed<u32, NonUnique>` (also spelled `CompressedNonUnique<u32>`).
fn read_level(elem: &Type, diags: &mut Diagnostics) -> Option<LevelFormat> {
    let segment = match ungroup(elem) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    };
    if let Some((s, holder)) =
        segment.and_then(|s| Some((s, crate::format::held_inside(&s.ident.to_string())?)))
    {
        diags.error_help(
            elem.span(),
            format!(
                "`{}` levels exist only inside `{holder}`, whose constructors build them consistent with the levels around them",
                s.ident
            ),
            format!("use `{holder}` as the parameter's type"),
        );
        return None;
    }
    let level = segment.and_then(|s| LevelFormat::from_type_name(&s.ident.to_string()));
    let (Some(segment), Some(mut level)) = (segment, level) else {
        diags.error_help(
            elem.span(),
            format!(
                "unknown level type `{}`",
                elem.to_token_stream().to_string().replace(' ', "")
            ),
            format!("levels are {}", level_type_names().join(", ")),
        );
        return None;
    };
    let args = generic_types(&segment.arguments);
    let name = segment.ident.to_string();
    // An alias that already carries markers takes none; a kind with configurable properties
    // takes one after the index type.
    let takes_marker = level.markers.is_empty() && level.decl.markers().next().is_some();
    let help = match (level.has_index_type(), takes_marker) {
        (false, _) => format!("write `{name}`"),
        (true, false) => format!("write `{name}` or `{name}<u64>`"),
        (true, true) => format!(
            "write `{name}`, `{name}<u64>` or `{name}<u32, M>` with a property marker M: {}",
            level.decl.markers().collect::<Vec<_>>().join(", ")
        ),
    };
    let arity_ok = match args.len() {
        0 => true,
        1 => level.has_index_type(),
        2 => level.has_index_type() && takes_marker,
        _ => false,
    };
    if let [GenericArgument::Type(first)] = args.as_slice() {
        if let Some(m) = marker_of(&level, first).filter(|_| takes_marker) {
            diags.error_help(
                first.span(),
                "a property marker comes after the index type",
                format!("write `{name}<u32, {m}>`"),
            );
            return None;
        }
    }
    let types: Vec<&Type> = args
        .iter()
        .filter_map(|arg| match arg {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    if !arity_ok || types.len() != args.len() {
        let what = match (level.has_index_type(), takes_marker) {
            (false, _) => "no type parameters",
            (true, false) => "one index type",
            (true, true) => "an index type and optionally a property marker",
        };
        diags.error_help(
            segment.arguments.span(),
            format!("`{name}` takes {what}"),
            help,
        );
        return None;
    }
    if let Some(index) = types.first() {
        level.index = Some(read_index_type(index, diags)?);
    }
    match types.get(1) {
        Some(marker) if !is_unit(marker) => {
            let Some(m) = marker_of(&level, marker) else {
                diags.error_help(
                    marker.span(),
                    format!(
                        "`{}` is not a property marker of `{name}`",
                        marker.to_token_stream().to_string().replace(' ', "")
                    ),
                    help,
                );
                return None;
            };
            Some(LevelFormat {
                index: level.index,
                ..LevelFormat::new(level.decl, &[m])
            })
        }
        _ => Some(level),
    }
}

/// The property marker of `level`'s kind that `ty` names. The last path segment names it;
/// rustc checks the whole path against the canonical type the expansion asserts.
fn marker_of(level: &LevelFormat, ty: &Type) -> Option<&'static str> {
    match ungroup(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
    .filter(|seg| seg.arguments.is_none())
    .and_then(|seg| level.decl.markers().find(|k| seg.ident == k))
}

/// `()`: no property marker (the kind's defaults).
fn is_unit(ty: &Type) -> bool {
    matches!(ungroup_group(ty), Type::Tuple(t) if t.elems.is_empty())
}

/// Like [`ungroup`] but keeps parentheses, which spell a one-level tuple `(Dense,)`'s cousin.
fn ungroup_group(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => ungroup_group(&g.elem),
        other => other,
    }
}

/// `Identity` or `Modes<m0, m1, ...>`, checked to be a permutation of the modes; also whether
/// it was spelled `Modes` (a different type from `Identity` even when it is the identity).
fn read_mode_order(
    order: &Type,
    rank: usize,
    diags: &mut Diagnostics,
) -> Option<(Vec<usize>, bool)> {
    let segment = match order {
        Type::Path(p) => p.path.segments.last(),
        _ => None,
    };
    let help = format!(
        "write `Modes<...>` with a permutation of 0..{rank}, e.g. `Modes<{}>`",
        (0..rank)
            .rev()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let Some(segment) = segment else {
        diags.error_help(order.span(), "expected a mode order", help);
        return None;
    };
    match segment.ident.to_string().as_str() {
        "Identity" if segment.arguments.is_none() => return Some(((0..rank).collect(), false)),
        "Modes" => {}
        _ => {
            diags.error_help(order.span(), "expected a mode order", help);
            return None;
        }
    }
    let modes: Option<Vec<usize>> = generic_types(&segment.arguments)
        .iter()
        .map(|arg| match arg {
            GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            })) => i.base10_parse().ok(),
            _ => None,
        })
        .collect();
    let is_permutation = |m: &Vec<usize>| {
        let mut sorted = m.clone();
        sorted.sort_unstable();
        sorted == (0..rank).collect::<Vec<_>>()
    };
    match modes {
        Some(m) if is_permutation(&m) => Some((m, true)),
        _ => {
            diags.error_help(
                order.span(),
                format!("`Modes` must list each of the {rank} modes exactly once"),
                help,
            );
            None
        }
    }
}

/// A format suggestion for a tensor whose levels should be traversed in `modes` order.
pub fn suggest_format(format: &Format, value_type: &Type, modes: &[usize]) -> String {
    let v = value_type.to_token_stream().to_string();
    if let Some(alias) = Alias::find(&format.levels, modes) {
        return format!("`{}<{v}>`", alias.name);
    }
    let levels: Vec<String> = format.levels.iter().map(|l| l.type_name()).collect();
    let modes: Vec<String> = modes.iter().map(|m| m.to_string()).collect();
    format!(
        "`Tensor<{v}, ({}), Modes<{}>>`",
        levels.join(", "),
        modes.join(", ")
    )
}
