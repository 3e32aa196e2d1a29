//! Generator 2: mutations of valid kernels. The base is a seed of the corpus (`fuzz/corpus`),
//! several seeds concatenated, or a small grammar-generated kernel; then one to a few dozen
//! token-level mutations: delete, duplicate, swap, replace and insert tokens, splice subtrees
//! and ranges from other kernels, change numbers to huge or zero, change type names and generic
//! arguments, nest expressions, repeat operands many times, rename identifiers, change or drop
//! group delimiters.

use crate::gen_tokens::{self, KNOWN_NAMES, SHORT_NAMES};
use crate::rng::Rng;
use crate::tok::{self, Delim, Tok};
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));

/// The seed corpus, lexed once.
pub fn corpus() -> &'static [Vec<Tok>] {
    static SEEDS: OnceLock<Vec<Vec<Tok>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        CORPUS
            .iter()
            .map(|(name, text)| {
                tok::parse(text).unwrap_or_else(|| panic!("corpus file {name} does not lex"))
            })
            .collect()
    })
}

/// Mutated inputs stop growing at this many token trees.
const MAX_TOKENS: usize = 200_000;

/// Every token sequence of `toks` (the top level and each group's contents), as a path of
/// group indices, with its length.
fn sequences(toks: &[Tok], path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, usize)>) {
    out.push((path.clone(), toks.len()));
    for (k, t) in toks.iter().enumerate() {
        if let Tok::Group(_, inner) = t {
            path.push(k);
            sequences(inner, path, out);
            path.pop();
        }
    }
}

fn seq_mut<'a>(toks: &'a mut Vec<Tok>, path: &[usize]) -> &'a mut Vec<Tok> {
    match path.split_first() {
        None => toks,
        Some((&k, rest)) => match &mut toks[k] {
            Tok::Group(_, inner) => seq_mut(inner, rest),
            _ => unreachable!("paths lead through groups"),
        },
    }
}

/// A random sequence, chosen with weight its length + 1 (so empty groups can gain tokens).
fn random_seq(rng: &mut Rng, toks: &[Tok]) -> Vec<usize> {
    let mut all = Vec::new();
    sequences(toks, &mut Vec::new(), &mut all);
    let weights: Vec<u32> = all
        .iter()
        .map(|(_, n)| (*n as u32).saturating_add(1))
        .collect();
    all.swap_remove(rng.weighted(&weights)).0
}

/// Every group of `toks` with its path (the path of its sequence plus its index).
fn groups(toks: &[Tok], path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (k, t) in toks.iter().enumerate() {
        if let Tok::Group(_, inner) = t {
            path.push(k);
            out.push(path.clone());
            groups(inner, path, out);
            path.pop();
        }
    }
}

fn tok_at<'a>(toks: &'a mut Vec<Tok>, path: &[usize]) -> &'a mut Tok {
    let (last, parent) = path.split_last().expect("a group path is not empty");
    &mut seq_mut(toks, parent)[*last]
}

/// The brace group of a kernel body: a `{}` group whose sequence contains `fn` before it.
fn bodies(toks: &[Tok]) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    groups(toks, &mut Vec::new(), &mut all);
    all.into_iter()
        .filter(|p| p.len() == 1 && matches!(toks[p[0]], Tok::Group(Delim::Brace, _)))
        .collect()
}

/// The right side of a body's statement: the range after the first top-level `=` or `+=`.
fn rhs_range(body: &[Tok]) -> Option<(usize, usize)> {
    let eq = body.iter().position(|t| matches!(t, Tok::Punct('=', _)))?;
    let end = body
        .iter()
        .rposition(|t| matches!(t, Tok::Punct(';', _)))
        .filter(|&e| e > eq)
        .unwrap_or(body.len());
    (eq + 1 < end).then_some((eq + 1, end))
}

/// Type names a mutation swaps for one another.
const TYPE_NAMES: &[&str] = &[
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
    "Dense",
    "Compressed",
    "CompressedNonUnique",
    "Singleton",
    "SingletonNonUnique",
    "Hashed",
    "NonUnique",
    "Modes",
    "Identity",
    "f64",
    "f32",
    "i32",
    "u8",
    "i128",
    "u64",
    "usize",
    "bool",
    "Range",
    "Hashed",
    "Vec",
];

fn huge_number(rng: &mut Rng) -> String {
    rng.pick(&[
        "0",
        "0usize",
        "18446744073709551615",
        "18446744073709551616",
        "340282366920938463463374607431768211455",
        "340282366920938463463374607431768211456",
        "99999999999999999999999999999999999999999999",
        "9223372036854775808",
        "4294967296",
        "1e400",
        "1e-400",
        "0.0",
        "1.7976931348623157e308",
        "255u8",
        "256u8",
    ])
    .to_string()
}

fn flat_len(toks: &[Tok]) -> usize {
    Tok::count(toks)
}

/// Applies one random mutation.
fn mutate(rng: &mut Rng, toks: &mut Vec<Tok>) {
    let corpus = corpus();
    match rng.weighted(&[10, 6, 6, 4, 8, 6, 6, 4, 8, 10, 6, 6, 8, 3, 5, 3, 3, 3]) {
        // Delete a token.
        0 => {
            let path = random_seq(rng, toks);
            let seq = seq_mut(toks, &path);
            if !seq.is_empty() {
                let k = rng.below(seq.len());
                seq.remove(k);
            }
        }
        // Duplicate a token (or a short run).
        1 => {
            let path = random_seq(rng, toks);
            let seq = seq_mut(toks, &path);
            if !seq.is_empty() {
                let k = rng.below(seq.len());
                let n = rng.range(1, 4).min(seq.len() - k);
                let run: Vec<Tok> = seq[k..k + n].to_vec();
                let times = rng.band(&[(90, 1, 1), (10, 2, 50)]);
                for _ in 0..times {
                    seq.splice(k..k, run.iter().cloned());
                }
            }
        }
        // Swap two adjacent tokens.
        2 => {
            let path = random_seq(rng, toks);
            let seq = seq_mut(toks, &path);
            if seq.len() >= 2 {
                let k = rng.below(seq.len() - 1);
                seq.swap(k, k + 1);
            }
        }
        // Swap two tokens of a sequence.
        3 => {
            let path = random_seq(rng, toks);
            let seq = seq_mut(toks, &path);
            if seq.len() >= 2 {
                let (a, b) = (rng.below(seq.len()), rng.below(seq.len()));
                seq.swap(a, b);
            }
        }
        // Replace a token with a random one.
        4 => {
            let path = random_seq(rng, toks);
            let mut budget = 3;
            let new = gen_tokens::token(rng, 6, &mut budget);
            let seq = seq_mut(toks, &path);
            if !seq.is_empty() {
                let k = rng.below(seq.len());
                seq.splice(k..k + 1, new);
            }
        }
        // Insert a random token.
        5 => {
            let path = random_seq(rng, toks);
            let mut budget = 3;
            let new = gen_tokens::token(rng, 6, &mut budget);
            let seq = seq_mut(toks, &path);
            let k = rng.below(seq.len() + 1);
            seq.splice(k..k, new);
        }
        // Splice a group from another kernel over a group of this one.
        6 => {
            let donor = rng.pick(corpus);
            let mut dg = Vec::new();
            groups(donor, &mut Vec::new(), &mut dg);
            let mut tg = Vec::new();
            groups(toks, &mut Vec::new(), &mut tg);
            if !dg.is_empty() && !tg.is_empty() {
                let mut donor = donor.clone();
                let g = tok_at(&mut donor, rng.pick::<Vec<usize>>(&dg)).clone();
                *tok_at(toks, rng.pick::<Vec<usize>>(&tg)) = g;
            }
        }
        // Splice a range of tokens from another kernel into a random place.
        7 => {
            let donor = rng.pick(corpus);
            let dpath = random_seq(rng, donor);
            let mut donor = donor.clone();
            let dseq = seq_mut(&mut donor, &dpath).clone();
            if !dseq.is_empty() {
                let a = rng.below(dseq.len());
                let b = rng.range(a + 1, dseq.len().min(a + 12));
                let path = random_seq(rng, toks);
                let seq = seq_mut(toks, &path);
                let k = rng.below(seq.len() + 1);
                seq.splice(k..k, dseq[a..b].iter().cloned());
            }
        }
        // Numbers: huge, zero, overflowing, or a float where an integer was.
        8 => {
            let mut lits = Vec::new();
            collect_paths(
                toks,
                &mut Vec::new(),
                &mut lits,
                &|t| matches!(t, Tok::Lit(s) if s.starts_with(|c: char| c.is_ascii_digit())),
            );
            let new = Tok::Lit(huge_number(rng));
            if lits.is_empty() {
                // Add a literal operand to some statement instead.
                add_operand(rng, toks, new);
            } else {
                *tok_at(toks, rng.pick::<Vec<usize>>(&lits)) = new;
            }
        }
        // Type names: replace one with another known (or unknown) name.
        9 => {
            let mut names = Vec::new();
            collect_paths(
                toks,
                &mut Vec::new(),
                &mut names,
                &|t| matches!(t, Tok::Ident(s) if TYPE_NAMES.contains(&s.as_str())),
            );
            if !names.is_empty() {
                let new = if rng.percent(85) {
                    rng.pick(TYPE_NAMES).to_string()
                } else {
                    gen_tokens::ident(rng)
                };
                *tok_at(toks, rng.pick::<Vec<usize>>(&names)) = Tok::Ident(new);
            }
        }
        // Generic arguments: insert or delete an argument after a `<`.
        10 => {
            let mut opens = Vec::new();
            collect_paths(toks, &mut Vec::new(), &mut opens, &|t| {
                matches!(t, Tok::Punct('<', _))
            });
            if !opens.is_empty() {
                let at = rng.pick::<Vec<usize>>(&opens).clone();
                let (k, parent) = at.split_last().expect("non-empty path");
                let seq = seq_mut(toks, parent);
                let k = *k + 1;
                if rng.percent(60) {
                    let arg: Vec<Tok> = match rng.below(5) {
                        0 => vec![Tok::ident(rng.word(TYPE_NAMES))],
                        1 => vec![Tok::Lit(rng.below(9).to_string())],
                        2 => vec![
                            Tok::ident("Modes"),
                            Tok::punct('<'),
                            Tok::Lit("1".into()),
                            Tok::punct(','),
                            Tok::Lit("0".into()),
                            Tok::punct('>'),
                        ],
                        3 => vec![Tok::Group(
                            Delim::Paren,
                            vec![
                                Tok::ident("Dense"),
                                Tok::punct(','),
                                Tok::ident("Compressed"),
                            ],
                        )],
                        _ => vec![Tok::Lifetime("a".into())],
                    };
                    let mut ins = arg;
                    ins.push(Tok::punct(','));
                    seq.splice(k..k, ins);
                } else if k < seq.len() {
                    // Delete up to the next comma or `>`.
                    let end = seq[k..]
                        .iter()
                        .position(|t| matches!(t, Tok::Punct(',' | '>', _)))
                        .map(|e| k + e + 1)
                        .unwrap_or(seq.len());
                    seq.drain(k..end);
                }
            }
        }
        // Nest: wrap a range of a body in parentheses (possibly hundreds deep) or negations.
        11 => {
            let b = bodies(toks);
            if !b.is_empty() {
                let path = rng.pick::<Vec<usize>>(&b).clone();
                let body = seq_mut(toks, &path);
                if let Some((lo, hi)) = rhs_range(body) {
                    let a = rng.range(lo, hi - 1);
                    let z = rng.range(a + 1, hi);
                    let depth = rng.band(&[(70, 1, 3), (20, 4, 50), (10, 100, 600)]);
                    let mut inner: Vec<Tok> = body.drain(a..z).collect();
                    let neg = rng.percent(20);
                    for _ in 0..depth {
                        if neg {
                            inner.insert(0, Tok::punct('-'));
                        } else {
                            inner = vec![Tok::Group(Delim::Paren, inner)];
                        }
                    }
                    body.splice(a..a, inner);
                }
            }
        }
        // Repeat the operands of a statement many times: `r` becomes `r + r + ... + r`.
        12 => {
            let b = bodies(toks);
            if !b.is_empty() {
                let path = rng.pick::<Vec<usize>>(&b).clone();
                let times = rng.band(&[(60, 2, 8), (30, 9, 100), (10, 101, 1000)]);
                let op = *rng.pick(&['+', '-', '*', '+']);
                let body = seq_mut(toks, &path);
                if let Some((lo, hi)) = rhs_range(body) {
                    let r: Vec<Tok> = body[lo..hi].to_vec();
                    // With `k` copies and `k - 1` operators, `out` has this many tokens.
                    let per_copy = flat_len(&r) + 1;
                    let mut out = r.clone();
                    for k in 1..times {
                        if k * per_copy - 1 > MAX_TOKENS {
                            break;
                        }
                        out.push(Tok::punct(op));
                        out.extend(r.iter().cloned());
                    }
                    body.splice(lo..hi, out);
                }
            }
        }
        // Duplicate the whole invocation (many kernels per macro, same names).
        13 => {
            let times = rng.band(&[(80, 2, 3), (20, 4, 40)]);
            let one = toks.clone();
            let per_copy = flat_len(&one);
            for k in 1..times {
                if k * per_copy > MAX_TOKENS {
                    break;
                }
                toks.extend(one.iter().cloned());
            }
        }
        // Rename every occurrence of an identifier (index variables collide, names vanish).
        14 => {
            let mut idents = Vec::new();
            collect_paths(toks, &mut Vec::new(), &mut idents, &|t| {
                matches!(t, Tok::Ident(_))
            });
            if !idents.is_empty() {
                let from = tok_at(toks, rng.pick::<Vec<usize>>(&idents)).clone();
                let to = Tok::Ident(if rng.percent(70) {
                    rng.pick(SHORT_NAMES).to_string()
                } else {
                    rng.pick(KNOWN_NAMES).to_string()
                });
                replace_all(toks, &from, &to);
            }
        }
        // Change a group's delimiter.
        15 => {
            let mut g = Vec::new();
            groups(toks, &mut Vec::new(), &mut g);
            if !g.is_empty() {
                let d = *rng.pick(&[Delim::Paren, Delim::Bracket, Delim::Brace]);
                if let Tok::Group(delim, _) = tok_at(toks, rng.pick::<Vec<usize>>(&g)) {
                    *delim = d;
                }
            }
        }
        // Drop a group's delimiters (splice its contents in its place).
        16 => {
            let mut g = Vec::new();
            groups(toks, &mut Vec::new(), &mut g);
            if !g.is_empty() {
                let path = rng.pick::<Vec<usize>>(&g).clone();
                let (k, parent) = path.split_last().expect("non-empty path");
                let seq = seq_mut(toks, parent);
                if let Tok::Group(_, inner) = seq[*k].clone() {
                    seq.splice(*k..*k + 1, inner);
                }
            }
        }
        // Wrap a run of tokens in a new group.
        _ => {
            let path = random_seq(rng, toks);
            let d = *rng.pick(&[Delim::Paren, Delim::Bracket, Delim::Brace]);
            let seq = seq_mut(toks, &path);
            if !seq.is_empty() {
                let a = rng.below(seq.len());
                let z = rng.range(a + 1, seq.len());
                let inner: Vec<Tok> = seq.drain(a..z).collect();
                seq.insert(a, Tok::Group(d, inner));
            }
        }
    }
}

/// Paths of the tokens matching `pred`.
fn collect_paths(
    toks: &[Tok],
    path: &mut Vec<usize>,
    out: &mut Vec<Vec<usize>>,
    pred: &dyn Fn(&Tok) -> bool,
) {
    for (k, t) in toks.iter().enumerate() {
        path.push(k);
        if pred(t) {
            out.push(path.clone());
        }
        if let Tok::Group(_, inner) = t {
            collect_paths(inner, path, out, pred);
        }
        path.pop();
    }
}

fn replace_all(toks: &mut [Tok], from: &Tok, to: &Tok) {
    for t in toks {
        if t == from {
            *t = to.clone();
        } else if let Tok::Group(_, inner) = t {
            replace_all(inner, from, to);
        }
    }
}

fn add_operand(rng: &mut Rng, toks: &mut [Tok], operand: Tok) {
    let b = bodies(toks);
    if b.is_empty() {
        return;
    }
    let path = rng.pick::<Vec<usize>>(&b).clone();
    let op = *rng.pick(&['+', '-', '*', '/']);
    let body = seq_mut_slice(toks, &path);
    if let Some((_, hi)) = rhs_range(body) {
        body.splice(hi..hi, [Tok::punct(op), operand]);
    }
}

fn seq_mut_slice<'a>(toks: &'a mut [Tok], path: &[usize]) -> &'a mut Vec<Tok> {
    let (&k, rest) = path.split_first().expect("a body path is not empty");
    match &mut toks[k] {
        Tok::Group(_, inner) => seq_mut(inner, rest),
        _ => unreachable!("paths lead through groups"),
    }
}

/// Generator 2's input.
pub fn generate(rng: &mut Rng) -> Vec<Tok> {
    let corpus = corpus();
    let mut toks = match rng.weighted(&[60, 15, 25]) {
        0 => rng.pick(corpus).clone(),
        1 => {
            let n = rng.range(2, 4);
            (0..n).flat_map(|_| rng.pick(corpus).clone()).collect()
        }
        _ => tok::parse(&crate::gen_grammar::small(rng)).expect("grammar kernels lex"),
    };
    let n = rng.band(&[(50, 1, 1), (30, 2, 3), (15, 4, 8), (5, 9, 30)]);
    for _ in 0..n {
        if flat_len(&toks) > MAX_TOKENS {
            break;
        }
        mutate(rng, &mut toks);
    }
    toks
}
