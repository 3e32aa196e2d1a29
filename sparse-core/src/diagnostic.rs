//! Diagnostics: every user error of a kernel is collected and reported together, each at the
//! span of the offending token, with a help line that says what to write instead.

use proc_macro2::Span;
use std::fmt::Display;

/// A set of spanned errors, combined into one `syn::Error` for emission.
#[derive(Default)]
pub struct Diagnostics {
    errors: Option<syn::Error>,
}

impl Diagnostics {
    /// Records an error at `span`.
    pub fn error(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records an error at `span` with a help line.
    pub fn error_help(&mut self, span: Span, message: impl Display, help: impl Display) {
        self.error(span, format_args!("{message}\nhelp: {help}"));
    }

    /// Records an error covering all of `tokens` (first to last token), with a help line.
    pub fn error_spanned(
        &mut self,
        tokens: impl quote::ToTokens,
        message: impl Display,
        help: impl Display,
    ) {
        self.push(syn::Error::new_spanned(
            tokens,
            format_args!("{message}\nhelp: {help}"),
        ));
    }

    /// Records an already built error (e.g. from syn).
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.errors {
            Some(all) => all.combine(error),
            None => self.errors = Some(error),
        }
    }

    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        self.errors.is_some()
    }

    /// The collected errors, if any.
    pub fn into_error(self) -> Option<syn::Error> {
        self.errors
    }
}
