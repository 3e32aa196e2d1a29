//! Generator 1: arbitrary token streams. Random identifiers (keywords, raw identifiers, the
//! names the macro knows), punctuation including multi-character operators, literals of every
//! kind with and without suffixes, lifetimes, doc comments and attributes, and groups nested to
//! a moderate depth. Half of the streams are shaped like `fn name(params) { body }` with random
//! fillings, so that they get past the item parser more often.

use crate::rng::Rng;
use crate::tok::{op, Delim, Tok};

/// Rust keywords and reserved words (raw-identifier-capable ones are also used as `r#kw`).
pub const KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "try",
    "gen",
    "union",
    "default",
    "macro_rules",
    "_",
];

/// Names the macro gives meaning to.
pub const KNOWN_NAMES: &[&str] = &[
    "Dense1",
    "Dense2",
    "Dense3",
    "SparseVec",
    "Csr",
    "Csc",
    "Dcsr",
    "Coo",
    "Csf3",
    "Csf4",
    "Dcsc",
    "Coo3",
    "HashVec",
    "HashMat",
    "Tensor",
    "Modes",
    "Identity",
    "Dense",
    "Compressed",
    "CompressedNonUnique",
    "Singleton",
    "SingletonNonUnique",
    "NonUnique",
    "Range",
    "Offset",
    "Hashed",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "bool",
    "char",
    "str",
    "String",
    "Vec",
    "Option",
    "sparse_runtime",
    "core",
    "std",
    "doc",
    "inline",
    "cfg",
    "allow",
    "compile_error",
    "sparse_kernel",
];

/// Short names used as index variables, tensors and scalars.
pub const SHORT_NAMES: &[&str] = &[
    "i", "j", "k", "l", "m", "n", "p", "q", "a", "b", "c", "d", "x", "y", "z", "out", "alpha",
    "beta", "A", "B",
];

const PUNCT: &[char] = &[
    '+', '-', '*', '/', '%', '^', '!', '&', '|', '=', '<', '>', '@', '.', ',', ';', ':', '#', '$',
    '?', '~',
];

const MULTI_OPS: &[&str] = &[
    "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<=", ">>=", "==", "!=", "<=", ">=", "&&",
    "||", "<<", ">>", "->", "=>", "::", "..", "...", "..=", "<-",
];

const IDENT_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

const UNICODE_IDENTS: &[&str] = &["δ", "变量", "ñandú", "Ωmega", "café", "𝑥"];

/// A random identifier.
pub fn ident(rng: &mut Rng) -> String {
    match rng.weighted(&[30, 25, 25, 5, 10, 5]) {
        0 => rng.pick(KEYWORDS).to_string(),
        1 => rng.pick(KNOWN_NAMES).to_string(),
        2 => rng.pick(SHORT_NAMES).to_string(),
        3 => {
            // Raw identifiers: any keyword except those that cannot be raw.
            let kw = rng.pick(KEYWORDS);
            if matches!(*kw, "crate" | "self" | "Self" | "super" | "_") {
                format!("r#{}", rng.pick(SHORT_NAMES))
            } else {
                format!("r#{kw}")
            }
        }
        4 => {
            let len = rng.band(&[(80, 1, 8), (19, 9, 40), (1, 200, 2000)]);
            let mut s = String::with_capacity(len);
            s.push(if rng.percent(10) {
                '_'
            } else {
                (b'a' + rng.below(26) as u8) as char
            });
            for _ in 1..len {
                s.push(*rng.pick(IDENT_CHARS) as char);
            }
            if s == "_" {
                s.push('x');
            }
            s
        }
        _ => rng.pick(UNICODE_IDENTS).to_string(),
    }
}

const INT_SUFFIXES: &[&str] = &[
    "", "", "", "u8", "i8", "u16", "i32", "u32", "i64", "u64", "i128", "u128", "usize", "isize",
    "f32", "f64", "foo", "_u8",
];
const FLOAT_SUFFIXES: &[&str] = &["", "", "", "f32", "f64", "f16", "f128", "x", "_f64"];

/// A numeric literal: an integer or float, small, huge or zero, with or without a suffix.
pub fn number(rng: &mut Rng) -> String {
    let int = |rng: &mut Rng| -> String {
        match rng.weighted(&[40, 10, 10, 10, 5, 5, 5, 5, 5]) {
            0 => rng.below(10).to_string(),
            1 => "0".to_string(),
            2 => rng.next_u64().to_string(),
            3 => u128::MAX.to_string(),
            4 => "340282366920938463463374607431768211456".to_string(), // u128::MAX + 1
            5 => format!("0x{:X}", rng.next_u64()),
            6 => format!("0b{:b}", rng.below(64)),
            7 => format!("0o{:o}", rng.below(512)),
            _ => "1_000_000".to_string(),
        }
    };
    if rng.percent(55) {
        let digits = int(rng);
        let suffix = rng.pick(INT_SUFFIXES);
        // `0x..` with an `f32` suffix reads as hex digits; keep it lexable either way.
        let sep = if digits.starts_with("0x") && suffix.starts_with(['f', 'a', 'b', 'c', 'd', 'e'])
        {
            "_"
        } else {
            ""
        };
        format!("{digits}{sep}{suffix}")
    } else {
        let body = match rng.weighted(&[40, 10, 10, 10, 10, 10]) {
            0 => format!("{}.{}", rng.below(100), rng.below(1000)),
            1 => "0.0".to_string(),
            2 => "1e400".to_string(),
            3 => format!("{}e{}", rng.below(10), rng.below(40)),
            4 => "1.7976931348623157e308".to_string(),
            _ => "4.9e-324".to_string(),
        };
        format!("{body}{}", rng.pick(FLOAT_SUFFIXES))
    }
}

/// Any literal: numbers, strings, raw strings, byte strings, chars, C strings.
pub fn literal(rng: &mut Rng) -> String {
    match rng.weighted(&[60, 10, 5, 5, 5, 5, 5, 5]) {
        0 => number(rng),
        1 => format!(
            "\"{}\"",
            rng.pick(&["", "hi", "a\\nb", "\\u{1F600}", "{}", "\\\""])
        ),
        2 => "r#\"raw \" string\"#".to_string(),
        3 => "b\"bytes\\x00\"".to_string(),
        4 => format!("'{}'", rng.pick(&["a", "\\n", "\\u{10FFFF}", "\\'", "é"])),
        5 => "b'x'".to_string(),
        6 => "c\"cstr\"".to_string(),
        _ => format!("\"{}\"suffix", rng.below(10)),
    }
}

/// One random token tree; groups hold a random stream of about `budget` tokens.
pub fn token(rng: &mut Rng, depth: usize, budget: &mut usize) -> Vec<Tok> {
    *budget = budget.saturating_sub(1);
    let group_weight = if depth < 8 { 12 } else { 0 };
    match rng.weighted(&[35, 18, 12, 15, 4, 3, 1, group_weight]) {
        0 => vec![Tok::Ident(ident(rng))],
        1 => vec![Tok::punct(*rng.pick(PUNCT))],
        2 => op(rng.word(MULTI_OPS)),
        3 => vec![Tok::Lit(literal(rng))],
        4 => vec![Tok::Lifetime(
            rng.pick(&["a", "static", "_", "b"]).to_string(),
        )],
        5 => vec![Tok::Doc(
            rng.pick(&[
                "/// doc",
                "//! inner doc",
                "/** block */",
                "/*! inner block */",
            ])
            .to_string(),
        )],
        6 => attribute(rng),
        _ => {
            let delim = *rng.pick(&[Delim::Paren, Delim::Bracket, Delim::Brace]);
            let inner_budget = rng
                .band(&[(70, 0, 6), (25, 7, 30), (5, 31, 200)])
                .min(*budget);
            let mut b = inner_budget;
            let inner = stream(rng, depth + 1, &mut b);
            *budget = budget.saturating_sub(inner_budget - b);
            vec![Tok::Group(delim, inner)]
        }
    }
}

/// An outer or inner attribute.
pub fn attribute(rng: &mut Rng) -> Vec<Tok> {
    let mut t = vec![Tok::Punct('#', false)];
    if rng.percent(20) {
        t.push(Tok::punct('!'));
    }
    let body = match rng.below(5) {
        0 => vec![Tok::ident("inline")],
        1 => vec![Tok::ident("doc"), Tok::punct('='), Tok::Lit(literal(rng))],
        2 => vec![
            Tok::ident("allow"),
            Tok::Group(Delim::Paren, vec![Tok::ident("unused")]),
        ],
        3 => vec![
            Tok::ident("cfg"),
            Tok::Group(Delim::Paren, vec![Tok::ident("test")]),
        ],
        _ => vec![Tok::Ident(ident(rng))],
    };
    t.push(Tok::Group(Delim::Bracket, body));
    t
}

/// A random stream using up `budget` tokens.
pub fn stream(rng: &mut Rng, depth: usize, budget: &mut usize) -> Vec<Tok> {
    let mut out = Vec::new();
    while *budget > 0 {
        out.extend(token(rng, depth, budget));
    }
    out
}

/// Generator 1's input.
pub fn generate(rng: &mut Rng) -> Vec<Tok> {
    let mut budget = rng.band(&[(60, 0, 20), (30, 21, 120), (9, 121, 1000), (1, 1001, 5000)]);
    if rng.percent(50) {
        return stream(rng, 0, &mut budget);
    }
    // `fn`-shaped: `[attrs] [pub] fn name(random) { random }`, possibly several.
    let mut out = Vec::new();
    let items = rng.band(&[(85, 1, 1), (14, 2, 5), (1, 6, 40)]);
    for _ in 0..items {
        if rng.percent(15) {
            out.extend(attribute(rng));
        }
        if rng.percent(15) {
            out.push(Tok::Doc("/// doc".into()));
        }
        if rng.percent(60) {
            out.push(Tok::ident("pub"));
        }
        out.push(Tok::ident("fn"));
        out.push(Tok::Ident(if rng.percent(80) {
            rng.pick(SHORT_NAMES).to_string()
        } else {
            ident(rng)
        }));
        let mut params = Vec::new();
        let n = rng.below(5);
        for k in 0..n {
            if k > 0 {
                params.push(Tok::punct(','));
            }
            if rng.percent(70) {
                params.push(Tok::ident(rng.word(SHORT_NAMES)));
                params.push(Tok::punct(':'));
                if rng.percent(70) {
                    params.push(Tok::punct('&'));
                    if rng.percent(40) {
                        params.push(Tok::ident("mut"));
                    }
                }
                params.push(Tok::ident(rng.word(KNOWN_NAMES)));
                if rng.percent(70) {
                    params.push(Tok::punct('<'));
                    let mut b = rng.range(1, 6);
                    params.extend(stream(rng, 6, &mut b));
                    params.push(Tok::punct('>'));
                }
            } else {
                let mut b = rng.range(1, 8);
                params.extend(stream(rng, 4, &mut b));
            }
        }
        out.push(Tok::Group(Delim::Paren, params));
        if rng.percent(10) {
            out.extend(op("->"));
            out.push(Tok::Ident(ident(rng)));
        }
        let mut b = budget / items + 1;
        out.push(Tok::Group(Delim::Brace, stream(rng, 1, &mut b)));
    }
    out
}
