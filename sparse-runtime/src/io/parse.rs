//! Byte-level scanning shared by the readers: lines split into fields without
//! allocating, 1-based indices parsed by hand, values parsed from borrowed `&str`
//! slices through the value type's own `from_str_radix`.

use crate::{Error, Value};
use num_complex::Complex;
use std::any::Any;
use std::fmt::Debug;

/// A file's bytes read line by line, each line split into its whitespace-separated
/// fields; knows the file's name and the current line's number for error messages.
pub(crate) struct Lines<'a> {
    name: &'a str,
    bytes: &'a [u8],
    /// Offset of the next line's first byte.
    pos: usize,
    /// Number of the line last returned (1-based; 0 before the first).
    line: usize,
    /// Line number of the first line of `bytes` minus one (a chunk of a larger file).
    first: usize,
}

/// The end of the field starting at `i` of `bytes`: the first byte from `i` on that is
/// at most `b' '` (a blank, the newline, another control byte: the caller checks which),
/// or the end. Eight bytes at a time: a value is typically 10 to 25 bytes long.
#[inline]
fn field_end(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    while let Some(word) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
        // The high bit of each byte below 0x21 (Mycroft's has-less-than test); a borrow
        // can flag bytes above the first such byte, never below it, so the lowest flag
        // is exact.
        let low = x.wrapping_sub(ONES * 0x21) & !x & HIGHS;
        if low != 0 {
            return i + (low.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i] > b' ' {
        i += 1;
    }
    i
}

/// The first position from `i` on of `bytes` that is not a blank (or the end).
#[inline]
fn skip_blanks(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && is_blank(bytes[i]) {
        i += 1;
    }
    i
}

/// Bytes that end a field: blanks and the newline.
#[inline]
fn is_separator(b: u8) -> bool {
    is_blank(b) || b == b'\n'
}

/// Bytes that separate fields (ASCII whitespace other than the newline, `\r`
/// included so that CRLF files read like LF files).
#[inline]
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

impl<'a> Lines<'a> {
    /// The lines of `bytes`, the first numbered `first_line`, errors naming `name`.
    pub(crate) fn new(name: &'a str, bytes: &'a [u8], first_line: usize) -> Self {
        Lines {
            name,
            bytes,
            pos: 0,
            line: first_line.saturating_sub(1),
            first: first_line.saturating_sub(1),
        }
    }

    /// The number of the line last returned by [`Lines::next_fields`] (or of the
    /// last line read, once the input is exhausted).
    pub(crate) fn line(&self) -> usize {
        self.line.max(self.first + 1)
    }

    /// [`Lines::next_fields`] for the next line that is neither blank nor a comment (its first
    /// field starting with `comment`); false at the end of the input.
    #[inline]
    pub(crate) fn next_data(&mut self, fields: &mut Vec<&'a [u8]>, comment: u8) -> bool {
        while self.next_fields(fields) {
            if fields.first().is_some_and(|f| f[0] != comment) {
                return true;
            }
        }
        false
    }

    /// The next line as an entry `i1 .. iK value` (no `value` unless `valued`), if it is
    /// an ordinary one: `K = indices.len()` indices of 1 to 19 decimal digits and a value
    /// field, separated by blanks, nothing after. The indices are stored in `indices` as
    /// written (1-based, not yet checked against a shape), the value returned as its
    /// text. Any other line (blank, a comment, another number of fields, a sign or other
    /// byte in an index) is left unread and gives `None`, for [`Lines::next_data`] to
    /// read or to word the error.
    ///
    /// The fast path of the readers: one pass over the line's bytes, the indices'
    /// digits accumulated as they are scanned.
    #[inline]
    pub(crate) fn next_entry(&mut self, indices: &mut [usize], valued: bool) -> Option<&'a [u8]> {
        let rest = self.bytes.get(self.pos..)?;
        let mut i = 0;
        for index in indices {
            i = skip_blanks(rest, i);
            let start = i;
            let mut n: u64 = 0;
            while let Some(d) = rest
                .get(i)
                .map(|&b| b.wrapping_sub(b'0'))
                .filter(|&d| d < 10)
            {
                n = n.wrapping_mul(10).wrapping_add(u64::from(d));
                i += 1;
            }
            // 19 digits cannot overflow a u64; the index must end at a separator.
            if i == start || i - start > 19 || rest.get(i).is_some_and(|&b| !is_separator(b)) {
                return None;
            }
            *index = usize::try_from(n).ok()?;
        }
        let mut value = &rest[..0];
        if valued {
            i = skip_blanks(rest, i);
            let start = i;
            i = field_end(rest, i);
            if i == start {
                return None;
            }
            value = &rest[start..i];
        }
        i = skip_blanks(rest, i);
        match rest.get(i) {
            None => {}
            Some(b'\n') => i += 1,
            Some(_) => return None,
        }
        self.pos += i;
        self.line += 1;
        Some(value)
    }

    /// Splits the next line into `fields` (cleared first) in one pass over its bytes;
    /// `false` at the end of the input. An empty `fields` is a blank line.
    #[inline]
    pub(crate) fn next_fields(&mut self, fields: &mut Vec<&'a [u8]>) -> bool {
        fields.clear();
        let bytes = self.bytes;
        let mut i = self.pos;
        if i >= bytes.len() {
            return false;
        }
        self.line += 1;
        loop {
            i = skip_blanks(bytes, i);
            if i >= bytes.len() || bytes[i] == b'\n' {
                break;
            }
            let start = i;
            while i < bytes.len() && !is_separator(bytes[i]) {
                i += 1;
            }
            fields.push(&bytes[start..i]);
        }
        // Past the newline (or past the end).
        self.pos = i + 1;
        true
    }

    /// The raw text of the next line (for the banner, which is matched as a whole),
    /// without its line ending; `None` at the end of the input.
    pub(crate) fn next_raw(&mut self) -> Option<&'a [u8]> {
        let bytes = self.bytes;
        if self.pos >= bytes.len() {
            return None;
        }
        self.line += 1;
        let rest = &bytes[self.pos..];
        let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.pos += len + 1;
        let mut line = &rest[..len];
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        Some(line)
    }

    /// A parse error at the current line.
    pub(crate) fn error(&self, detail: impl Into<String>) -> Error {
        parse_error(self.name, self.line(), detail)
    }

    /// The offset of the next line's first byte.
    pub(crate) fn offset(&self) -> usize {
        self.pos.min(self.bytes.len())
    }

    /// The name used in error messages.
    pub(crate) fn name(&self) -> &'a str {
        self.name
    }
}

/// [`Error::Parse`] at `line` of `file`.
pub(crate) fn parse_error(file: &str, line: usize, detail: impl Into<String>) -> Error {
    Error::Parse {
        file: file.to_owned(),
        line,
        detail: detail.into(),
    }
}

/// `field` as text for a message: lossy UTF-8, cut after 40 characters.
pub(crate) fn show(field: &[u8]) -> String {
    let text = String::from_utf8_lossy(field);
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.into_owned(),
    }
}

/// A non-negative decimal integer (digits only), or why not.
#[inline]
pub(crate) fn parse_count(field: &[u8], what: &str) -> Result<usize, String> {
    if field.is_empty() || !field.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "{what} `{}` is not a non-negative integer",
            show(field)
        ));
    }
    let mut n: usize = 0;
    for &b in field {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(usize::from(b - b'0')))
            .ok_or_else(|| format!("{what} {} is too large for usize", show(field)))?;
    }
    Ok(n)
}

/// A 1-based index in `1..=bound`, returned 0-based, or why not (`what` names it:
/// "row index", "index 2").
#[inline]
pub(crate) fn parse_index(field: &[u8], what: &str, bound: usize) -> Result<usize, String> {
    // The common case, one pass: 19 digits cannot overflow a u64.
    let mut n: u64 = 0;
    let mut ok = !field.is_empty() && field.len() <= 19;
    if ok {
        for &b in field {
            let d = b.wrapping_sub(b'0');
            ok &= d < 10;
            n = n.wrapping_mul(10).wrapping_add(u64::from(d));
        }
    }
    let n = match usize::try_from(n) {
        Ok(n) if ok => n,
        // Slow path: the precise complaint (not digits, or too large).
        _ => parse_count(field, what).map_err(|e| {
            if !field.is_empty() && field.iter().all(u8::is_ascii_digit) {
                e
            } else {
                format!("{what} `{}` is not a positive integer", show(field))
            }
        })?,
    };
    check_index(n, what, bound)
}

/// A 1-based index `n` (as written) in `1..=bound`, returned 0-based, or why not.
#[inline]
pub(crate) fn check_index(n: usize, what: &str, bound: usize) -> Result<usize, String> {
    if n == 0 {
        return Err(format!("{what} is 0, but indices are 1-based"));
    }
    if n > bound {
        return Err(format!("{what} is {n}, outside 1..={bound}"));
    }
    Ok(n - 1)
}

/// `field` parsed as a `V` by `V::from_str_radix(_, 10)` (exact: floats are rounded
/// once, integers must be integers in range), or why not.
#[inline]
pub(crate) fn parse_value<V: Value>(field: &[u8]) -> Result<V, String> {
    let text = if field.is_ascii() {
        // SAFETY: every byte of `field` is ASCII (checked just above), and ASCII is
        // valid UTF-8. (A number is ASCII; `from_utf8` here was 10% of reading a file.)
        Some(unsafe { std::str::from_utf8_unchecked(field) })
    } else {
        std::str::from_utf8(field).ok()
    };
    text.and_then(|s| V::from_str_radix(s, 10).ok())
        .ok_or_else(|| value_error::<V>(field))
}

/// The message for a value `V` cannot hold.
#[cold]
pub(crate) fn value_error<V>(field: &[u8]) -> String {
    format!(
        "value `{}` is not a valid {}",
        show(field),
        std::any::type_name::<V>()
    )
}

/// The value of `-field` parsed as a `V` (the mirror of a skew-symmetric entry),
/// computed by parsing the negated text, so that it is exact and an unsigned or
/// overflowing negation is an error rather than a wrap or a panic.
pub(crate) fn parse_negated<V: Value>(field: &[u8]) -> Result<V, String> {
    parse_value::<V>(&negated_text(field)).map_err(|_| {
        format!(
            "the mirrored value -({}) of this skew-symmetric entry is not a valid {}",
            show(field),
            std::any::type_name::<V>()
        )
    })
}

/// The text of `-field`: its sign flipped (`-x` for `x` and `+x`, `x` for `-x`).
pub(crate) fn negated_text(field: &[u8]) -> Vec<u8> {
    match field {
        [b'-', rest @ ..] => rest.to_vec(),
        [b'+', rest @ ..] | rest => {
            let mut text = Vec::with_capacity(rest.len() + 1);
            text.push(b'-');
            text.extend_from_slice(rest);
            text
        }
    }
}

/// The parts of `v` if `V` is `Complex<f64>` or `Complex<f32>`, the complex types the
/// writers take apart.
pub(crate) fn complex_parts<V: Value>(v: &V) -> Option<(&dyn Debug, &dyn Debug)> {
    let v = v as &dyn Any;
    if let Some(c) = v.downcast_ref::<Complex<f64>>() {
        return Some((&c.re, &c.im));
    }
    v.downcast_ref::<Complex<f32>>()
        .map(|c| (&c.re as &dyn Debug, &c.im as &dyn Debug))
}

/// Whether `V` is `Complex<f64>` or `Complex<f32>`.
pub(crate) fn is_complex<V: Value>() -> bool {
    complex_parts(&V::zero()).is_some()
}

/// Refuses to write values of a complex type other than `Complex<f64>` and `Complex<f32>`
/// (one whose `from_str_radix` reads `1i`), whose parts the writers cannot reach.
pub(crate) fn check_writable<V: Value>(format: &str) -> Result<(), Error> {
    if !is_complex::<V>() && V::from_str_radix("1i", 10).is_ok() {
        return Err(Error::NotRepresentable {
            detail: format!(
                "{format} complex values are written from `num_complex::Complex<f64>` and \
                 `Complex<f32>` only, not `{}`",
                std::any::type_name::<V>()
            ),
        });
    }
    Ok(())
}

/// Whether `V` holds fractions (`0.5` parses), i.e. is written as `real` rather
/// than `integer`.
pub(crate) fn is_real<V: Value>() -> bool {
    V::from_str_radix("0.5", 10).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields_of(text: &str) -> Vec<Vec<String>> {
        let mut lines = Lines::new("t", text.as_bytes(), 1);
        let mut fields = Vec::new();
        let mut out = Vec::new();
        while lines.next_fields(&mut fields) {
            out.push(fields.iter().map(|f| show(f)).collect());
        }
        out
    }

    #[test]
    fn lines_split_on_blanks_and_newlines() {
        assert_eq!(
            fields_of("a  b\tc\r\n\n  d \n e"),
            vec![
                vec!["a".to_string(), "b".into(), "c".into()],
                vec![],
                vec!["d".into()],
                vec!["e".into()]
            ]
        );
        assert!(fields_of("").is_empty());
        assert_eq!(fields_of("x\n"), vec![vec!["x".to_string()]]);
    }

    #[test]
    fn fields_end_at_the_first_separator_in_every_position() {
        for len in 0..40 {
            for end in 0..=len {
                for sep in [b' ', b'\t', b'\n', b'\r', 0u8, 0x20] {
                    let mut bytes: Vec<u8> = (0..len).map(|k| b'!' + (k * 37 % 90) as u8).collect();
                    bytes.extend([0xff, b'~', 0x80]);
                    if end < len {
                        bytes[end] = sep;
                    }
                    let want = if end < len { end } else { len + 3 };
                    assert_eq!(field_end(&bytes, 0), want, "{bytes:?}");
                    if end < len {
                        bytes[len - 1] = b' ';
                        assert_eq!(field_end(&bytes, 0), end, "{bytes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn indices_are_one_based_and_bounded() {
        assert_eq!(parse_index(b"1", "row index", 3), Ok(0));
        assert_eq!(parse_index(b"3", "row index", 3), Ok(2));
        assert_eq!(
            parse_index(b"0", "row index", 3),
            Err("row index is 0, but indices are 1-based".into())
        );
        assert_eq!(
            parse_index(b"4", "row index", 3),
            Err("row index is 4, outside 1..=3".into())
        );
        assert_eq!(
            parse_index(b"-1", "row index", 3),
            Err("row index `-1` is not a positive integer".into())
        );
        assert_eq!(
            parse_index(b"1.0", "row index", 3),
            Err("row index `1.0` is not a positive integer".into())
        );
        assert_eq!(
            parse_index(b"99999999999999999999999", "row index", usize::MAX),
            Err("row index 99999999999999999999999 is too large for usize".into())
        );
        assert_eq!(
            parse_index(b"0000000000000000000000000000001", "row index", 3),
            Ok(0)
        );
    }

    #[test]
    fn values_parse_exactly_or_fail() {
        assert_eq!(parse_value::<f64>(b"1.5e3"), Ok(1500.0));
        assert_eq!(parse_value::<i32>(b"-7"), Ok(-7));
        assert_eq!(
            parse_value::<i32>(b"1.5"),
            Err("value `1.5` is not a valid i32".into())
        );
        assert_eq!(
            parse_value::<u32>(b"-1"),
            Err("value `-1` is not a valid u32".into())
        );
        assert_eq!(parse_negated::<f64>(b"2.5"), Ok(-2.5));
        assert_eq!(parse_negated::<f64>(b"-2.5"), Ok(2.5));
        assert_eq!(parse_negated::<i8>(b"+5"), Ok(-5));
        assert!(parse_negated::<i8>(b"-128").is_err());
        assert!(parse_negated::<u32>(b"3").is_err());
        assert!(is_real::<f32>() && is_real::<f64>());
        assert!(!is_real::<i64>() && !is_real::<u8>());
    }
}
