//! `-f NAME:FORMAT` into the Rust type a kernel signature names: an alias (`csr`, `dense`,
//! `bcsr<2,2>`), a level list with an optional mode order (`dense,compressed` and
//! `--order A:1,0`), or a Rust type as written (`Csr<f64, u64>`).

use sparse_core::format::{level_type_names, Alias, LevelFormat, ALIASES};
use sparse_core::level::LEVEL_SPELLINGS;

/// What the type is built from besides the format: the tensor's arity in the statement, the
/// mode order given with `--order`, the value type and the index type.
pub struct Context<'a> {
    /// The tensor's name, for messages.
    pub tensor: &'a str,
    /// How many indices the statement gives it.
    pub arity: usize,
    /// Its `--order`, if given.
    pub order: Option<&'a [usize]>,
    /// The value type.
    pub value: &'a str,
    /// The index type of sparse levels, if given.
    pub index: Option<&'a str>,
}

/// The Rust type (without the reference) of a tensor given `-f NAME:spec`; an error is a
/// usage message.
pub fn rust_type(spec: &str, cx: &Context) -> Result<String, String> {
    let (head, args) = match spec.split_once('<') {
        Some((head, rest)) => match rest.trim_end().strip_suffix('>') {
            Some(args) => (head.trim(), Some(args)),
            None => return verbatim(spec, cx),
        },
        None => (spec.trim(), None),
    };
    let key = normalize(head);
    if let (Some(levels), None) = (family(&key, cx.arity), args) {
        return from_levels(levels, (0..cx.arity.max(1)).collect(), cx);
    }
    let alias = ALIASES.iter().find(|a| normalize(a.name) == key);
    match (alias, args) {
        (Some(alias), Some(args)) if !alias.consts().is_empty() && all_integers(args) => {
            let consts: Vec<&str> = args.split(',').map(str::trim).collect();
            remapped(alias, &consts, cx)
        }
        (_, Some(_)) => verbatim(spec, cx),
        (Some(alias), None) if !alias.consts().is_empty() => Err(format!(
            "`-f {}:{spec}`: {} needs its block size, e.g. `-f {}:{key}<2,2>`",
            cx.tensor, alias.name, cx.tensor
        )),
        (Some(alias), None) if alias.remap.is_some() => remapped(alias, &[], cx),
        (Some(alias), None) => {
            let levels = alias.levels.iter().map(|l| l.to_string()).collect();
            let modes = alias.modes.to_vec();
            from_levels(levels, modes, cx)
        }
        (None, None) => {
            let levels = spec
                .split(',')
                .map(|item| level_name(item, spec, cx))
                .collect::<Result<Vec<_>, _>>()?;
            let identity = (0..levels.len()).collect();
            from_levels(levels, identity, cx)
        }
    }
}

/// Lower case, without `-`, `_` and spaces: `Compressed-NonUnique` is `compressednonunique`.
fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

fn all_integers(args: &str) -> bool {
    args.split(',')
        .all(|a| !a.trim().is_empty() && a.trim().chars().all(|c| c.is_ascii_digit()))
}

/// The levels of a family named by its structure, sized by the tensor's arity.
fn family(key: &str, arity: usize) -> Option<Vec<String>> {
    let n = arity.max(1);
    let levels = match key {
        "dense" => vec!["Dense"; n],
        "sparse" | "csf" => vec!["Compressed"; n],
        "hash" => [vec!["Dense"; n - 1], vec!["Hashed"]].concat(),
        "coo" if n >= 2 => [
            vec!["CompressedNonUnique"],
            vec!["SingletonNonUnique"; n - 2],
            vec!["Singleton"],
        ]
        .concat(),
        _ => return None,
    };
    Some(levels.into_iter().map(String::from).collect())
}

/// A level of a level list, by its runtime name in any case.
fn level_name(item: &str, spec: &str, cx: &Context) -> Result<String, String> {
    let key = normalize(item);
    if let Some(name) = level_type_names().into_iter().find(|n| normalize(n) == key) {
        return Ok(name.to_string());
    }
    let held = LEVEL_SPELLINGS
        .iter()
        .find(|s| normalize(s.name) == key)
        .and_then(|s| s.inside.map(|inside| (s.name, inside)));
    if let Some((level, inside)) = held {
        return Err(format!(
            "`-f {}:{spec}`: a `{level}` level exists only inside `{inside}`; use `-f {}:{}`",
            cx.tensor,
            cx.tensor,
            inside.to_lowercase()
        ));
    }
    let aliases: Vec<String> = ALIASES.iter().map(|a| a.name.to_lowercase()).collect();
    let levels: Vec<String> = level_type_names().iter().map(|l| l.to_string()).collect();
    Err(format!(
        "`-f {}:{spec}`: `{}` is neither a format nor a level; formats: {}, dense, sparse, csf, coo, hash; levels: {}",
        cx.tensor,
        item.trim(),
        aliases.join(", "),
        levels.join(", ")
    ))
}

/// A level list with its mode order (replaced by `--order` if given): its alias if it has one
/// (`Csc<f64>`), else `Tensor<V, (levels), Modes<..>>`.
fn from_levels(levels: Vec<String>, modes: Vec<usize>, cx: &Context) -> Result<String, String> {
    let modes = match cx.order {
        Some(order) => {
            let mut sorted = order.to_vec();
            sorted.sort_unstable();
            if sorted != (0..levels.len()).collect::<Vec<_>>() {
                return Err(format!(
                    "`--order {}:{}`: the format has {} levels, so the order lists each of the modes 0..{} once",
                    cx.tensor,
                    list(order),
                    levels.len(),
                    levels.len()
                ));
            }
            order.to_vec()
        }
        None => modes,
    };
    let parsed: Vec<LevelFormat> = levels
        .iter()
        .filter_map(|l| LevelFormat::from_type_name(l))
        .collect();
    let index = |level: &LevelFormat| match cx.index {
        Some(i) if level.has_index_type() => format!("<{i}>"),
        _ => String::new(),
    };
    if let Some(alias) = Alias::find(&parsed, &modes) {
        let index = match cx.index {
            Some(i) if alias.takes_index() => format!(", {i}"),
            _ => String::new(),
        };
        return Ok(format!("{}<{}{index}>", alias.name, cx.value));
    }
    let spelled: Vec<String> = levels
        .iter()
        .zip(&parsed)
        .map(|(name, level)| format!("{name}{}", index(level)))
        .collect();
    let tuple = match spelled.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", spelled.join(", ")),
    };
    if modes.iter().enumerate().all(|(k, &m)| k == m) {
        Ok(format!("Tensor<{}, {tuple}>", cx.value))
    } else {
        Ok(format!(
            "Tensor<{}, {tuple}, Modes<{}>>",
            cx.value,
            list(&modes).replace(',', ", ")
        ))
    }
}

/// A format held by a runtime struct around a remapped view (`Dia`, `Bcsr`, `Csb`, `CooAos`).
fn remapped(alias: &Alias, consts: &[&str], cx: &Context) -> Result<String, String> {
    if cx.order.is_some() {
        return Err(format!(
            "`--order {}`: a `{}` has a fixed layout; give a level list or another format for another mode order",
            cx.tensor, alias.name
        ));
    }
    if consts.len() != alias.consts().len() {
        return Err(format!(
            "`-f {}`: `{}` takes {} numbers ({}), e.g. `{}<2,2>`",
            cx.tensor,
            alias.name,
            alias.consts().len(),
            alias.consts().join(", "),
            alias.name.to_lowercase()
        ));
    }
    let mut args = vec![cx.value.to_string()];
    args.extend(consts.iter().map(|c| c.to_string()));
    if let Some(i) = cx.index.filter(|_| alias.takes_index()) {
        args.push(i.to_string());
    }
    Ok(format!("{}<{}>", alias.name, args.join(", ")))
}

/// A Rust type as written: checked to be a type, passed on unchanged (the compiler reads it).
fn verbatim(spec: &str, cx: &Context) -> Result<String, String> {
    if cx.order.is_some() {
        return Err(format!(
            "`--order {}`: a Rust type spells its mode order itself (`Modes<1, 0>`); give a level list to use --order",
            cx.tensor
        ));
    }
    let tokens: proc_macro2::TokenStream = spec
        .parse()
        .map_err(|_| format!("`-f {}:{spec}` is not a Rust type", cx.tensor))?;
    sparse_core::limits::check_nesting(&tokens)
        .and_then(|()| syn::parse2::<syn::Type>(tokens))
        .map_err(|e| format!("`-f {}:{spec}` is not a Rust type: {e}", cx.tensor))?;
    Ok(spec.trim().to_string())
}

fn list(modes: &[usize]) -> String {
    modes
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(spec: &str, arity: usize) -> Result<String, String> {
        rust_type(
            spec,
            &Context {
                tensor: "A",
                arity,
                order: None,
                value: "f64",
                index: None,
            },
        )
    }

    fn ordered(spec: &str, order: &[usize], index: Option<&str>) -> Result<String, String> {
        rust_type(
            spec,
            &Context {
                tensor: "A",
                arity: order.len(),
                order: Some(order),
                value: "f32",
                index,
            },
        )
    }

    #[test]
    fn aliases_in_any_case() {
        assert_eq!(ty("csr", 2).unwrap(), "Csr<f64>");
        assert_eq!(ty("CSC", 2).unwrap(), "Csc<f64>");
        assert_eq!(ty("SparseVec", 1).unwrap(), "SparseVec<f64>");
        assert_eq!(ty("dia", 2).unwrap(), "Dia<f64>");
        assert_eq!(ty("bcsr<2, 3>", 2).unwrap(), "Bcsr<f64, 2, 3>");
        assert!(ty("bcsr", 2).unwrap_err().contains("block size"));
    }

    #[test]
    fn families_follow_the_arity() {
        assert_eq!(ty("dense", 1).unwrap(), "Dense1<f64>");
        assert_eq!(ty("Dense", 3).unwrap(), "Dense3<f64>");
        assert_eq!(
            ty("dense", 4).unwrap(),
            "Tensor<f64, (Dense, Dense, Dense, Dense)>"
        );
        assert_eq!(ty("coo", 3).unwrap(), "Coo3<f64>");
        assert_eq!(ty("hash", 2).unwrap(), "HashMat<f64>");
        assert_eq!(ty("csf", 3).unwrap(), "Csf3<f64>");
        assert_eq!(ty("sparse", 1).unwrap(), "SparseVec<f64>");
    }

    #[test]
    fn level_lists_and_mode_orders() {
        assert_eq!(ty("dense,compressed", 2).unwrap(), "Csr<f64>");
        assert_eq!(
            ordered("Dense, Compressed", &[1, 0], Some("u64")).unwrap(),
            "Csc<f32, u64>"
        );
        assert_eq!(ordered("csr", &[1, 0], None).unwrap(), "Csc<f32>");
        assert_eq!(
            ordered("compressed,dense", &[1, 0], Some("u64")).unwrap(),
            "Tensor<f32, (Compressed<u64>, Dense), Modes<1, 0>>"
        );
        assert_eq!(
            ty("compressed-nonunique,singleton_padded", 2).unwrap(),
            "Tensor<f64, (CompressedNonUnique, SingletonPadded)>"
        );
        assert!(ordered("dense,compressed", &[0, 0], None)
            .unwrap_err()
            .contains("each of the modes"));
        assert!(ty("dense,range", 2)
            .unwrap_err()
            .contains("only inside `Dia`"));
        assert!(ty("dense,sparsish", 2).unwrap_err().contains("`sparsish`"));
    }

    #[test]
    fn rust_types_pass_through() {
        assert_eq!(ty("Csr<f64, u64>", 2).unwrap(), "Csr<f64, u64>");
        assert_eq!(
            ty("Tensor<f64, (Dense, Compressed), Modes<1, 0>>", 2).unwrap(),
            "Tensor<f64, (Dense, Compressed), Modes<1, 0>>"
        );
        assert!(ty("Csr<f64", 2).unwrap_err().contains("not a Rust type"));
        assert!(ordered("Csr<f64>", &[1, 0], None)
            .unwrap_err()
            .contains("spells its mode order"));
    }
}
