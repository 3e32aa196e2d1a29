//! Diagnostics as rustc prints them: the message, where it is, the source line with the
//! offending part underlined, and the help line.
//!
//! The cli parses its input with proc-macro2's `span-locations`, so every span the compiler
//! reports carries a line, a column and its byte range in the text it was parsed from.

use proc_macro2::Span;
use std::fmt::Write;

/// One error: a message, where it is (if it is in the input), and help lines.
pub struct Diagnostic {
    pub message: String,
    pub help: Vec<String>,
    pub place: Place,
}

/// Where a diagnostic points.
pub enum Place {
    /// At a span of the input.
    Span(Span),
    /// Just past the end of the input (syn's "unexpected end of input").
    End,
    /// Nowhere in the input.
    Nowhere,
}

impl Diagnostic {
    /// An error at `span`; a message line starting `help: ` becomes a help line.
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        let text: String = message.into();
        let mut lines = Vec::new();
        let mut help = Vec::new();
        for line in text.lines() {
            match line.trim_start().strip_prefix("help: ") {
                Some(h) => help.push(h.to_string()),
                None => lines.push(line),
            }
        }
        let message = lines.join("\n");
        // syn reports a missing end at the call site, which is in no text.
        let place =
            if message.starts_with("unexpected end of input") && span.source_text().is_none() {
                Place::End
            } else {
                Place::Span(span)
            };
        Diagnostic {
            message,
            help,
            place,
        }
    }

    /// An error without a location in the input.
    pub fn unplaced(message: impl Into<String>, help: Option<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            help: help.into_iter().collect(),
            place: Place::Nowhere,
        }
    }

    /// Every error a `syn::Error` holds (the compiler collects all of a kernel's).
    pub fn from_syn(error: syn::Error) -> Vec<Diagnostic> {
        error
            .into_iter()
            .map(|e| Diagnostic::new(e.span(), e.to_string()))
            .collect()
    }

    /// The errors of parsing the input: one at no place in it is at its end (syn reports
    /// what it expected at the end of the input at the call site).
    pub fn from_parse(error: syn::Error) -> Vec<Diagnostic> {
        let mut all = Diagnostic::from_syn(error);
        for d in &mut all {
            if let Place::Span(span) = d.place {
                if span.source_text().is_none() {
                    d.place = Place::End;
                }
            }
        }
        all
    }
}

/// A range of lines of the parsed text, shown under a name with its own line numbers (the
/// statement inside the function the cli built shows as the statement's own lines).
pub struct View<'a> {
    /// The name shown after `-->`.
    pub origin: &'a str,
    /// The first and last line (1-based) of the parsed text in this view.
    pub lines: (usize, usize),
    /// Subtracted from a line of the parsed text to give the line shown.
    pub offset: usize,
}

/// `diagnostic` as text, its span looked up in `parsed` (the text its tokens were parsed
/// from) and shown through the first of `views` holding its line. A span from elsewhere (a
/// token the compiler made) is reported without a location.
pub fn render(diagnostic: &Diagnostic, parsed: &str, views: &[View]) -> String {
    let mut out = format!("error: {}\n", diagnostic.message);
    let place = match diagnostic.place {
        Place::Span(span) => locate(span, parsed, views),
        Place::End => end_of(parsed, views),
        Place::Nowhere => None,
    };
    if let Some((view, start, end)) = place {
        let line_text = parsed.lines().nth(start.line - 1).unwrap_or("");
        let shown = start.line - view.offset;
        let gutter = " ".repeat(shown.to_string().len());
        let width = if end.line == start.line {
            end.column.saturating_sub(start.column)
        } else {
            line_text.chars().count().saturating_sub(start.column)
        };
        let _ = writeln!(
            out,
            "{gutter}--> {}:{shown}:{}\n{gutter} |\n{shown} | {line_text}\n{gutter} | {}{}",
            view.origin,
            start.column + 1,
            " ".repeat(start.column),
            "^".repeat(width.max(1)),
        );
        for help in &diagnostic.help {
            let _ = writeln!(out, "{gutter} |\n{gutter} = help: {help}");
        }
    } else {
        for help in &diagnostic.help {
            let _ = writeln!(out, "  = help: {help}");
        }
    }
    out
}

/// The view and the start and end of `span`, if it is a span of `parsed`.
fn locate<'v>(
    span: Span,
    parsed: &str,
    views: &'v [View<'v>],
) -> Option<(
    &'v View<'v>,
    proc_macro2::LineColumn,
    proc_macro2::LineColumn,
)> {
    let text = span.source_text()?;
    if parsed.get(span.byte_range()) != Some(text.as_str()) {
        return None;
    }
    let (start, end) = (span.start(), span.end());
    let view = views
        .iter()
        .find(|v| (v.lines.0..=v.lines.1).contains(&start.line))?;
    Some((view, start, end))
}

/// The position just past the last character of the last line of a view.
fn end_of<'v>(
    parsed: &str,
    views: &'v [View<'v>],
) -> Option<(
    &'v View<'v>,
    proc_macro2::LineColumn,
    proc_macro2::LineColumn,
)> {
    let (line, text) = parsed
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .last()
        .map(|(n, l)| (n + 1, l))?;
    let view = views
        .iter()
        .find(|v| (v.lines.0..=v.lines.1).contains(&line))?;
    let column = text.trim_end().chars().count();
    let at = |column| proc_macro2::LineColumn { line, column };
    Some((view, at(column), at(column + 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underlines_the_span_in_its_view() {
        let text = "fn f() {\ny(i) = a(i, j)\n}\n";
        let tokens: proc_macro2::TokenStream = text.parse().unwrap();
        let item: syn::ItemFn = syn::parse2(tokens).unwrap();
        let syn::Stmt::Expr(syn::Expr::Assign(assign), _) = &item.block.stmts[0] else {
            panic!("an assignment");
        };
        let error = syn::Error::new_spanned(&assign.right, "bad\nhelp: do better");
        let d = &Diagnostic::from_syn(error)[0];
        let views = [View {
            origin: "<statement>",
            lines: (2, 2),
            offset: 1,
        }];
        assert_eq!(
            render(d, text, &views),
            "error: bad\n --> <statement>:1:8\n  |\n1 | y(i) = a(i, j)\n  |        ^^^^^^^\n  |\n  = help: do better\n"
        );
        // A line no view holds, or another text: no location.
        assert_eq!(render(d, text, &[]), "error: bad\n  = help: do better\n");
        assert_eq!(
            render(d, "something else entirely", &views),
            "error: bad\n  = help: do better\n"
        );
    }
}
