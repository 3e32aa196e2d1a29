//! A plain token tree that generators build and mutate, printed to the exact text that is
//! lexed and handed to `expand`. Lifetimes and doc comments are single tokens here so that a
//! mutation cannot split them into something the lexer rejects.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// Group delimiters (invisible groups do not survive printing, so they are not generated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delim {
    /// `( )`
    Paren,
    /// `[ ]`
    Bracket,
    /// `{ }`
    Brace,
}

/// One token tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier, keyword or raw identifier (`r#fn`).
    Ident(String),
    /// A punctuation character; `true` when joined to the next one (`+=` is `+` joint, `=`).
    Punct(char, bool),
    /// A literal as written (`1.5e3f32`, `"s"`, `b'x'`).
    Lit(String),
    /// A lifetime `'name` (without the quote).
    Lifetime(String),
    /// A doc comment as written (`/// text`, `/** text */`).
    Doc(String),
    /// A delimited group.
    Group(Delim, Vec<Tok>),
}

impl Tok {
    /// An identifier token.
    pub fn ident(s: &str) -> Tok {
        Tok::Ident(s.to_string())
    }

    /// A lone punctuation character.
    pub fn punct(c: char) -> Tok {
        Tok::Punct(c, false)
    }

    /// Number of token trees, groups counted with their contents.
    pub fn count(toks: &[Tok]) -> usize {
        toks.iter()
            .map(|t| match t {
                Tok::Group(_, inner) => 1 + Tok::count(inner),
                _ => 1,
            })
            .sum()
    }
}

/// Tokens of a multi-character operator (`<<=`), all but the last joint.
pub fn op(s: &str) -> Vec<Tok> {
    let chars: Vec<char> = s.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(k, &c)| Tok::Punct(c, k + 1 < chars.len()))
        .collect()
}

/// Prints tokens so that lexing the text gives them back.
pub fn print(toks: &[Tok]) -> String {
    let mut out = String::new();
    print_into(toks, &mut out);
    out
}

fn print_into(toks: &[Tok], out: &mut String) {
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Ident(s) | Tok::Lit(s) => out.push_str(s),
            Tok::Lifetime(s) => {
                out.push('\'');
                out.push_str(s);
            }
            Tok::Doc(s) => {
                out.push('\n');
                out.push_str(s);
                out.push('\n');
                continue;
            }
            Tok::Punct(c, joint) => {
                out.push(*c);
                // A joint `/` before `/` or `*` would open a comment.
                let opens_comment = *c == '/'
                    && matches!(
                        toks.get(k + 1),
                        Some(Tok::Punct('/' | '*', _)) | Some(Tok::Doc(_))
                    );
                if *joint && !opens_comment && matches!(toks.get(k + 1), Some(Tok::Punct(..))) {
                    continue;
                }
            }
            Tok::Group(d, inner) => {
                let (open, close) = match d {
                    Delim::Paren => ('(', ')'),
                    Delim::Bracket => ('[', ']'),
                    Delim::Brace => ('{', '}'),
                };
                out.push(open);
                print_into(inner, out);
                out.push(close);
            }
        }
        out.push(' ');
    }
}

/// Converts a lexed stream (invisible groups are flattened).
pub fn from_stream(ts: TokenStream) -> Vec<Tok> {
    let trees: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut k = 0;
    while k < trees.len() {
        match &trees[k] {
            TokenTree::Punct(p) if p.as_char() == '\'' && p.spacing() == Spacing::Joint => {
                if let Some(TokenTree::Ident(i)) = trees.get(k + 1) {
                    out.push(Tok::Lifetime(i.to_string()));
                    k += 2;
                    continue;
                }
                out.push(Tok::Punct('\'', true));
            }
            TokenTree::Punct(p) => out.push(Tok::Punct(p.as_char(), p.spacing() == Spacing::Joint)),
            TokenTree::Ident(i) => out.push(Tok::Ident(i.to_string())),
            TokenTree::Literal(l) => out.push(Tok::Lit(l.to_string())),
            TokenTree::Group(g) => {
                let inner = from_stream(g.stream());
                match g.delimiter() {
                    Delimiter::Parenthesis => out.push(Tok::Group(Delim::Paren, inner)),
                    Delimiter::Bracket => out.push(Tok::Group(Delim::Bracket, inner)),
                    Delimiter::Brace => out.push(Tok::Group(Delim::Brace, inner)),
                    Delimiter::None => out.extend(inner),
                }
            }
        }
        k += 1;
    }
    out
}

/// Lexes text into tokens of this model; `None` if it does not lex.
pub fn parse(text: &str) -> Option<Vec<Tok>> {
    text.parse::<TokenStream>().ok().map(from_stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing_round_trips_through_the_lexer() {
        let text = "/// doc\npub fn f<'a>(y: &mut Dense1<f64>, x: r#type) { y(i) += -1.5e3f32 * x(i) ; a <<= b ..= c / / d :: e }";
        let toks = parse(text).unwrap();
        let printed = print(&toks);
        assert_eq!(print(&parse(&printed).unwrap()), printed);
        assert!(printed.contains("<<="), "{printed}");
        assert!(printed.contains("'a"), "{printed}");
        assert!(toks.contains(&Tok::Lifetime("a".into())));
    }

    #[test]
    fn joint_slashes_do_not_open_comments() {
        let toks = vec![
            Tok::Punct('/', true),
            Tok::Punct('/', true),
            Tok::Punct('*', false),
        ];
        assert_eq!(parse(&print(&toks)).unwrap().len(), 3);
    }
}
