//! Generator 3: kernels from the macro's grammar. Random signatures over every format alias and
//! over spelled-out `Tensor<V, (levels..), Modes<..>>` types of order up to 8, with random value
//! and index types; one statement per kernel with `+ - * /`, unary minus, literals, scalars,
//! `=` or `+=`. Mostly well-formed (so the inputs reach lattices, lowering and emission), with a
//! few deliberate mistakes, and a heavy tail of wide sums, very long sums, deep parentheses and
//! many kernels per invocation.

use crate::rng::Rng;

const VALUE_TYPES: &[&str] = &[
    "f64", "f64", "f64", "f32", "i32", "i64", "u32", "u64", "u8", "i8", "i16", "u16", "i128",
    "u128", "isize", "usize",
];
const INDEX_TYPES: &[&str] = &["u32", "u64", "usize", "u8", "u16", "i32"];
const VARS: &[&str] = &["i", "j", "k", "l", "m", "n", "p", "q"];
const LEVELS: &[&str] = &[
    "Dense",
    "Compressed",
    "CompressedNonUnique",
    "Singleton",
    "SingletonNonUnique",
    "Hashed",
];

/// Format aliases and their orders.
const ALIASES: &[(&str, usize)] = &[
    ("Dense1", 1),
    ("Dense2", 2),
    ("Dense3", 3),
    ("SparseVec", 1),
    ("Csr", 2),
    ("Csc", 2),
    ("Dcsr", 2),
    ("Dcsc", 2),
    ("Coo", 2),
    ("Csf3", 3),
    ("Csf4", 4),
    ("Coo3", 3),
    ("HashVec", 1),
    ("HashMat", 2),
];

/// A tensor parameter: its order, whether every level is dense, and its type as written
/// (without the reference).
struct TensorType {
    order: usize,
    dense: bool,
    text: String,
}

fn is_float(v: &str) -> bool {
    v.starts_with('f')
}

/// Levels obeying the rules the checker enforces (a non-unique level is followed by a
/// singleton, no singleton first, the last level unique), or anything when `valid` is false.
fn levels(rng: &mut Rng, order: usize, valid: bool) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::with_capacity(order);
    for k in 0..order {
        if !valid {
            out.push(rng.word(LEVELS));
            continue;
        }
        let last = k + 1 == order;
        let after_non_unique = out
            .last()
            .is_some_and(|l| *l == "CompressedNonUnique" || *l == "SingletonNonUnique");
        let choice = if after_non_unique {
            if last || rng.percent(50) {
                "Singleton"
            } else {
                "SingletonNonUnique"
            }
        } else {
            let opts: &[&str] = match (k == 0, last) {
                (true, true) => &["Dense", "Compressed", "Hashed"],
                (true, false) => &["Dense", "Compressed", "CompressedNonUnique", "Hashed"],
                (false, true) => &["Dense", "Compressed", "Singleton", "Hashed"],
                (false, false) => &[
                    "Dense",
                    "Compressed",
                    "CompressedNonUnique",
                    "Singleton",
                    "Hashed",
                ],
            };
            rng.pick(opts)
        };
        out.push(choice);
    }
    out
}

fn permutation(rng: &mut Rng, n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for k in (1..n).rev() {
        p.swap(k, rng.below(k + 1));
    }
    p
}

fn tensor_type(rng: &mut Rng, value: &str) -> TensorType {
    let index = |rng: &mut Rng| -> String {
        if rng.percent(20) {
            format!(", {}", rng.pick(INDEX_TYPES))
        } else {
            String::new()
        }
    };
    if rng.percent(45) {
        let (name, order) = *rng.pick(ALIASES);
        let idx = if name.starts_with("Dense") {
            String::new()
        } else {
            index(rng)
        };
        let text = match rng.weighted(&[96, 2, 2]) {
            0 => format!("{name}<{value}{idx}>"),
            1 => name.to_string(),
            _ => format!("{name}<{value}, {value}, {value}>"),
        };
        return TensorType {
            order,
            dense: name.starts_with("Dense"),
            text,
        };
    }
    let order = rng.band(&[(50, 1, 2), (35, 3, 4), (12, 5, 6), (3, 7, 8)]);
    let valid = rng.percent(97);
    let lv = levels(rng, order, valid);
    let dense = lv.iter().all(|l| *l == "Dense");
    let lv: Vec<String> = lv
        .iter()
        .map(|l| {
            if *l != "Dense" && rng.percent(10) {
                format!("{l}<{}>", rng.pick(INDEX_TYPES))
            } else {
                l.to_string()
            }
        })
        .collect();
    let tuple = if order == 1 {
        match rng.below(3) {
            0 => format!("({},)", lv[0]),
            1 => format!("({})", lv[0]),
            _ => lv[0].clone(),
        }
    } else {
        format!("({})", lv.join(", "))
    };
    let modes = match rng.weighted(&[50, 15, 30, 2, 3]) {
        0 => String::new(),
        1 => format!(
            ", Modes<{}>",
            (0..order)
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        2 => format!(
            ", Modes<{}>",
            permutation(rng, order)
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        3 => ", Identity".to_string(),
        _ => {
            // Malformed: a wrong count, a repeat, a huge or negative mode.
            let mut m: Vec<String> = permutation(rng, order)
                .iter()
                .map(|m| m.to_string())
                .collect();
            match rng.below(4) {
                0 => m.push(order.to_string()),
                1 => m[0] = "18446744073709551616".to_string(),
                2 => m[0] = m.last().cloned().unwrap_or_default(),
                _ => m[0] = format!("{}", usize::MAX),
            }
            format!(", Modes<{}>", m.join(", "))
        }
    };
    TensorType {
        order,
        dense,
        text: format!("Tensor<{value}, {tuple}{modes}>"),
    }
}

/// A leaf of the right side.
enum Leaf {
    Access(usize, Vec<usize>),
    Scalar(usize),
    Literal(String),
}

fn literal(rng: &mut Rng, value: &str) -> String {
    let float = if rng.percent(3) {
        !is_float(value)
    } else {
        is_float(value)
    };
    if float {
        rng.pick(&["2.0", "0.5", "1e-3", "0.0", "1e308", "3.25"])
            .to_string()
    } else {
        rng.pick(&[
            "2",
            "0",
            "1",
            "7",
            "340282366920938463463374607431768211455",
        ])
        .to_string()
    }
}

fn distinct_vars(rng: &mut Rng, pool: usize, n: usize) -> Vec<usize> {
    let pool = pool.max(n);
    let mut p = permutation(rng, pool);
    p.truncate(n);
    p
}

fn render_leaf(leaf: &Leaf, inputs: &[(String, TensorType)], scalars: &[String]) -> String {
    match leaf {
        Leaf::Access(t, vars) => {
            let vs: Vec<&str> = vars.iter().map(|&v| VARS[v]).collect();
            format!("{}({})", inputs[*t].0, vs.join(", "))
        }
        Leaf::Scalar(s) => scalars[*s].clone(),
        Leaf::Literal(l) => l.clone(),
    }
}

/// A random expression tree over `leaves` (rendered), for small statements.
fn tree(rng: &mut Rng, leaves: &[String]) -> String {
    let body = if leaves.len() == 1 {
        leaves[0].clone()
    } else {
        let split = rng.range(1, leaves.len() - 1);
        let op = rng.word(&["+", "+", "-", "-", "*", "*", "*", "+", "*", "/"]);
        format!(
            "{} {op} {}",
            tree(rng, &leaves[..split]),
            tree(rng, &leaves[split..])
        )
    };
    match rng.weighted(&[60, 30, 10]) {
        0 if leaves.len() == 1 => body,
        0 | 1 => format!("({body})"),
        _ => format!("-({body})"),
    }
}

fn wrap(rng: &mut Rng, text: String) -> String {
    let depth = rng.range(100, 600);
    let mut s = String::with_capacity(text.len() + 2 * depth);
    for _ in 0..depth {
        s.push('(');
    }
    s.push_str(&text);
    for _ in 0..depth {
        s.push(')');
    }
    s
}

/// One kernel function.
fn kernel(rng: &mut Rng, name: &str, huge: bool) -> String {
    let value = rng.word(VALUE_TYPES);
    let value = if rng.percent(1) { "bool" } else { value };
    let n_inputs = rng.band(&[(60, 1, 2), (30, 3, 5), (9, 6, 10), (1, 11, 30)]);
    let pool = rng.band(&[(40, 1, 2), (40, 3, 4), (20, 5, 8)]);
    let inputs: Vec<(String, TensorType)> = (0..n_inputs)
        .map(|k| {
            let name = if k < 6 {
                ["a", "b", "c", "d", "e", "g"][k].to_string()
            } else {
                format!("t{k}")
            };
            (name, tensor_type(rng, value))
        })
        .collect();
    let scalars: Vec<String> = (0..rng.weighted(&[60, 25, 15]))
        .map(|k| ["alpha", "beta"][k].to_string())
        .collect();
    let output = if rng.percent(80) {
        Some(tensor_type(rng, value))
    } else {
        None
    };
    let mut out_vars = output
        .as_ref()
        .map(|o| distinct_vars(rng, pool, o.order))
        .unwrap_or_default();

    let width = if huge {
        rng.range(1000, 4000)
    } else {
        rng.band(&[(70, 1, 4), (22, 5, 16), (8, 17, 300)])
    };
    let mut leaves: Vec<Leaf> = (0..width)
        .map(|_| match rng.weighted(&[75, 10, 15]) {
            1 if !scalars.is_empty() => Leaf::Scalar(rng.below(scalars.len())),
            2 => Leaf::Literal(literal(rng, value)),
            _ => {
                let t = rng.below(inputs.len());
                Leaf::Access(t, distinct_vars(rng, pool, inputs[t].1.order))
            }
        })
        .collect();
    // Mostly: every output variable appears on the right (the checker requires it). Draw the
    // output's variables from those of the right side when there are enough, else move
    // missing ones into accesses.
    let mut used: Vec<usize> = Vec::new();
    for leaf in &leaves {
        if let Leaf::Access(_, vs) = leaf {
            for v in vs {
                if !used.contains(v) {
                    used.push(*v);
                }
            }
        }
    }
    // An output of higher order than the right side has variables: mostly, draw another.
    let mut output = output;
    for _ in 0..8 {
        match &output {
            Some(o) if o.order > used.len() && !used.is_empty() && rng.percent(90) => {
                output = Some(tensor_type(rng, value));
                out_vars.truncate(output.as_ref().map_or(0, |o| o.order));
                while out_vars.len() < output.as_ref().map_or(0, |o| o.order) {
                    let fresh = (0..).find(|v| !out_vars.contains(v)).unwrap_or(0);
                    out_vars.push(fresh);
                }
            }
            _ => break,
        }
    }
    if rng.percent(97) && used.len() >= out_vars.len() {
        let pick = permutation(rng, used.len());
        out_vars = pick[..out_vars.len()].iter().map(|&k| used[k]).collect();
    } else if rng.percent(97) {
        for &v in &out_vars {
            let used = leaves
                .iter()
                .any(|l| matches!(l, Leaf::Access(_, vs) if vs.contains(&v)));
            if used {
                continue;
            }
            let candidates: Vec<usize> = (0..leaves.len())
                .filter(|&k| {
                    matches!(&leaves[k], Leaf::Access(_, vs) if vs.iter().any(|u| !out_vars.contains(u)))
                })
                .collect();
            if candidates.is_empty() {
                break;
            }
            if let Leaf::Access(_, vs) = &mut leaves[*rng.pick(candidates.as_slice())] {
                let slots: Vec<usize> = (0..vs.len())
                    .filter(|&s| !out_vars.contains(&vs[s]))
                    .collect();
                vs[*rng.pick(slots.as_slice())] = v;
            }
        }
    }
    let mut rendered: Vec<String> = leaves
        .iter()
        .map(|l| render_leaf(l, &inputs, &scalars))
        .collect();
    if rng.percent(2) {
        let k = rng.below(rendered.len());
        rendered[k] = wrap(rng, std::mem::take(&mut rendered[k]));
    }
    if rng.percent(1) {
        let k = rng.below(rendered.len());
        rendered[k] = format!("{}{}", "- ".repeat(rng.range(100, 500)), rendered[k]);
    }
    let mut rhs = if width <= 16 {
        tree(rng, &rendered)
    } else {
        let mut s = rendered[0].clone();
        for leaf in &rendered[1..] {
            s.push(' ');
            s.push_str(rng.word(&["+", "+", "+", "-", "-", "*", "/"]));
            s.push(' ');
            s.push_str(leaf);
        }
        s
    };
    if rng.percent(2) {
        rhs = wrap(rng, rhs);
    }

    let (lhs, out_param) = match &output {
        Some(o) => {
            let vs: Vec<&str> = out_vars.iter().map(|&v| VARS[v]).collect();
            (
                format!("y({})", vs.join(", ")),
                format!("y: &mut {}", o.text),
            )
        }
        None => ("out".to_string(), format!("out: &mut {value}")),
    };
    // `+=` accumulates into dense outputs only (a sparse one is a checked error).
    let dense_out = output.as_ref().is_none_or(|o| o.dense);
    let add_assign = if dense_out { 15 } else { 1 };
    let assign = match rng.weighted(&[85, add_assign, 1]) {
        0 => "=",
        1 => "+=",
        _ => "-=",
    };
    let mut params: Vec<String> = vec![out_param];
    for (name, t) in &inputs {
        let passing = match rng.weighted(&[97, 1, 1, 1]) {
            0 => "&",
            1 => "&mut ",
            2 => "",
            _ => "& &",
        };
        params.push(format!("{name}: {passing}{}", t.text));
    }
    for s in &scalars {
        params.push(format!("{s}: {value}"));
    }
    if rng.percent(20) {
        let n = params.len();
        params.swap(rng.below(n), rng.below(n));
    }
    let mut text = String::new();
    if rng.percent(20) {
        text.push_str("/// A generated kernel.\n");
    }
    if rng.percent(5) {
        text.push_str("#[inline]\n");
    }
    if rng.percent(70) {
        text.push_str("pub ");
    }
    let semi = if rng.percent(50) { ";" } else { "" };
    text.push_str(&format!(
        "fn {name}({}) {{\n    {lhs} {assign} {rhs}{semi}\n}}\n",
        params.join(", ")
    ));
    text
}

/// Generator 3's input: one `sparse_kernel!` body of one or more kernels.
pub fn generate(rng: &mut Rng) -> String {
    let n = rng.band(&[(85, 1, 1), (12, 2, 8), (3, 20, 60)]);
    let huge = rng.percent(2);
    (0..n)
        .map(|k| kernel(rng, &format!("kernel{k}"), huge && k == 0))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A small well-formed kernel, the base of some mutations.
pub fn small(rng: &mut Rng) -> String {
    kernel(rng, "kernel", false)
}
