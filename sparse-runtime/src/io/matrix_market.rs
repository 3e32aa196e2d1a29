//! The Matrix Market exchange format (<https://math.nist.gov/MatrixMarket/formats.html>):
//! a banner `%%MatrixMarket matrix <format> <field> <symmetry>`, `%` comment lines, a
//! size line, then the entries, 1-based.

use super::chunks::{self, Bytes, CHUNK, MIN_CHUNKS};
use super::parse::{check_index, is_real, parse_count, parse_error, parse_index};
use super::parse::{check_writable, complex_parts, is_complex};
use super::parse::{negated_text, parse_negated, parse_value};
use super::parse::{show, Lines};
use super::{read_all, read_file, write_file, Entries, FromEntries, Sink};
use super::{ToEntries, WRITER};
use crate::{Error, Value};
use num_complex::Complex;
use std::any::Any;
use std::io::{Read, Write};
use std::path::Path;

/// The fields a banner may name, for messages.
const FIELDS: &str = "`real`, `double`, `integer`, `pattern` or `complex`";

/// The symmetries a banner may name, for messages.
const SYMMETRIES: &str = "`general`, `symmetric`, `skew-symmetric` or `hermitian`";

/// The banner every file starts with, for messages.
const BANNER: &str = "%%MatrixMarket matrix <format> <field> <symmetry>";

/// How the entries are laid out in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `coordinate`: a size line `rows columns entries`, then one `row column value`
    /// line per stored entry.
    Coordinate,
    /// `array`: a size line `rows columns`, then every component's value, one per line,
    /// column by column (column-major).
    Array,
}

/// What the values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// `real` or `double`.
    Real,
    /// `integer`.
    Integer,
    /// `pattern`: no value, each entry is one.
    Pattern,
    /// `complex`: two fields per value, the real and the imaginary part, read into
    /// `Complex<f64>` or `Complex<f32>` values.
    Complex,
}

/// Which entries the file stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Symmetry {
    /// Every entry.
    General,
    /// The lower triangle, diagonal included; `a(j, i) = a(i, j)` (also `hermitian` when
    /// the values are real).
    Symmetric,
    /// The strictly lower triangle; `a(j, i) = -a(i, j)`, the diagonal zero.
    SkewSymmetric,
    /// `hermitian` with complex values: the lower triangle, diagonal included;
    /// `a(j, i) = conj(a(i, j))`, the diagonal real.
    Hermitian,
}

/// The banner's contents.
#[derive(Clone, Copy, Debug)]
struct Header {
    layout: Layout,
    field: Field,
    symmetry: Symmetry,
}

/// Reads the Matrix Market file at `path` into any format (`Csr<f64>`, `Coo<i64>`,
/// `Dia<f32>`, [`Entries`], ...).
///
/// Reads `coordinate` and `array` files whose field is `real`, `double`, `integer`,
/// `pattern` (each entry one) or `complex` (a real and an imaginary part per value, into
/// a tensor of [`Complex<f64>`](crate::num_complex::Complex) or `Complex<f32>`, which
/// also read every other field) and whose symmetry is `general`, `symmetric`,
/// `skew-symmetric` or `hermitian` (for real values, the same as symmetric). Symmetric
/// files are expanded: each entry off the diagonal is also stored mirrored (negated
/// for skew-symmetric, conjugated for hermitian). An `array` file gives every component
/// as a stored entry, zeros included. Repeated coordinates are summed. The banner's
/// words are matched without regard to case; `%` comment lines and blank lines may appear
/// anywhere after the banner.
///
/// Errors: [`Error::Io`] if the file cannot be read; [`Error::Parse`] naming the file and
/// line for any defect: a missing or malformed banner, an unknown or unsupported
/// format, field (`complex` into a value type other than `Complex<f64>` or `Complex<f32>`)
/// or symmetry, a malformed size line, a line with the wrong number of fields, an index
/// that is 0, out of range or not an integer, a value the value type cannot hold, more or
/// fewer entries than the size line declares, an entry above the diagonal of a symmetric
/// file, a nonzero diagonal in a skew-symmetric one, a diagonal that is not real in a
/// hermitian one; and the format's own construction errors (a shape its index type
/// cannot hold). Nothing is built on error.
///
/// ```no_run
/// let a: sparse_runtime::Csr<f64> = sparse_runtime::io::read_matrix_market("a.mtx")?;
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn read_matrix_market<T: FromEntries>(path: impl AsRef<Path>) -> Result<T, Error> {
    read_path::<T::Value>(path.as_ref())?.into_tensor()
}

/// [`read_matrix_market`] from any reader (a `&[u8]`, a `File`, a `BufReader`, ...);
/// `name` stands for the file in error messages.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let text = "%%MatrixMarket matrix array integer general\n2 2\n1\n2\n3\n4\n";
/// let a: Dense2<i32> = sparse_runtime::io::read_matrix_market_from(text.as_bytes(), "a.mtx")?;
/// assert_eq!(a.as_slice(), &[1, 3, 2, 4]); // the file is column-major
///
/// let bad = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1.0\n";
/// let err = sparse_runtime::io::read_matrix_market_from::<Csr<f64>>(bad.as_bytes(), "b.mtx");
/// assert_eq!(err.unwrap_err().to_string(), "b.mtx:3: column index is 3, outside 1..=2");
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn read_matrix_market_from<T: FromEntries>(reader: impl Read, name: &str) -> Result<T, Error> {
    let bytes = read_all(reader, name)?;
    parse_matrix_market::<T::Value>(&bytes, name)?.into_tensor()
}

/// Writes a matrix to the file at `path` (created or truncated) in the Matrix Market
/// format, [`Layout::Array`] if its format stores every component
/// ([`ToEntries::is_dense`]: `Dense2`), else [`Layout::Coordinate`]; see
/// [`write_matrix_market_with`].
///
/// Errors: the tensor is not a matrix (`OrderMismatch`), its fill value is not zero
/// (`NotRepresentable`), or [`Error::Io`] naming `path`.
pub fn write_matrix_market<T: ToEntries + ?Sized>(
    path: impl AsRef<Path>,
    tensor: &T,
) -> Result<(), Error> {
    let body = Body::of(tensor, auto_layout(tensor))?;
    write_file(path.as_ref(), |out| body.write(out))
}

/// [`write_matrix_market`] into any writer (buffered here).
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 0.1), ([1, 0], -2.0)])?;
/// let mut out = Vec::new();
/// sparse_runtime::io::write_matrix_market_to(&mut out, &a)?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 0.1\n2 1 -2.0\n"
/// );
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn write_matrix_market_to<T: ToEntries + ?Sized>(
    writer: impl Write,
    tensor: &T,
) -> Result<(), Error> {
    write_matrix_market_with(writer, tensor, auto_layout(tensor))
}

/// Writes a matrix in the Matrix Market format with the given layout, as a `general`
/// matrix whose field is `complex` for `Complex<f64>` and `Complex<f32>` values (each
/// written as its two parts), `integer` if the value type holds only integers (it cannot
/// parse `0.5`) and `real` otherwise.
///
/// [`Layout::Coordinate`] writes every stored entry (explicit zeros included), sorted by
/// row then column; [`Layout::Array`] every component, column by column. Indices are
/// 1-based. Values are written with `{:?}`: for `f32` and `f64` the shortest decimal that
/// reads back to the same bits (`0.1`, `1e-300`, `-0.0`, `inf`, `NaN`), for integers
/// their digits.
///
/// Errors: the tensor is not a matrix (`OrderMismatch`), its fill value is not zero, its
/// array has more than `usize::MAX` components or its values are of a complex type other
/// than `Complex<f64>` and `Complex<f32>` (`NotRepresentable`), or writing fails
/// ([`Error::Io`]).
///
/// ```
/// use sparse_runtime::prelude::*;
/// use sparse_runtime::io::{self, Layout};
///
/// let a = Csr::<i64>::from_entries(&[2, 2], [([0, 1], 7)])?;
/// let mut out = Vec::new();
/// io::write_matrix_market_with(&mut out, &a, Layout::Array)?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "%%MatrixMarket matrix array integer general\n2 2\n0\n0\n7\n0\n"
/// );
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn write_matrix_market_with<T: ToEntries + ?Sized>(
    writer: impl Write,
    tensor: &T,
    layout: Layout,
) -> Result<(), Error> {
    let body = Body::of(tensor, layout)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, writer);
    body.write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| super::io_error(WRITER, &e))
}

/// The layout [`write_matrix_market`] picks.
fn auto_layout<T: ToEntries + ?Sized>(tensor: &T) -> Layout {
    if tensor.is_dense() {
        Layout::Array
    } else {
        Layout::Coordinate
    }
}

/// What a writer writes: a matrix's sorted entries, or its components column by column.
enum Body<V> {
    Coordinate(Entries<V>),
    Array {
        rows: usize,
        cols: usize,
        dense: Vec<V>,
    },
}

impl<V: Value> Body<V> {
    /// The body of `tensor` in `layout`: `OrderMismatch` if it is not a matrix,
    /// `NotRepresentable` if its array cannot be allocated.
    fn of<T: ToEntries<Value = V> + ?Sized>(tensor: &T, layout: Layout) -> Result<Self, Error> {
        check_writable::<V>("Matrix Market `complex`")?;
        super::check_zero_fill(tensor.fill(), "Matrix Market")?;
        let entries = tensor.to_entry_list();
        let &[rows, cols] = entries.shape() else {
            return Err(Error::OrderMismatch {
                expected: 2,
                found: entries.order(),
            });
        };
        if layout == Layout::Coordinate {
            return Ok(Body::Coordinate(entries));
        }
        let len = rows
            .checked_mul(cols)
            .ok_or_else(|| Error::NotRepresentable {
                detail: format!("a {rows} x {cols} array has more than usize::MAX components"),
            })?;
        let mut dense = crate::alloc::filled(len, V::zero(), "the array")?;
        for (c, v) in entries.iter() {
            let at = c[1] * rows + c[0];
            dense[at] = dense[at] + v;
        }
        Ok(Body::Array { rows, cols, dense })
    }

    /// Writes the banner, the size line and the body.
    fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let field = if is_complex::<V>() {
            "complex"
        } else if is_real::<V>() {
            "real"
        } else {
            "integer"
        };
        // `{:?}` of a value, or of each part of a complex one.
        let value = |out: &mut dyn Write, v: &V| match complex_parts(v) {
            Some((re, im)) => writeln!(out, "{re:?} {im:?}"),
            None => writeln!(out, "{v:?}"),
        };
        match self {
            Body::Coordinate(entries) => {
                let [rows, cols] = [entries.shape()[0], entries.shape()[1]];
                writeln!(out, "%%MatrixMarket matrix coordinate {field} general")?;
                writeln!(out, "{rows} {cols} {}", entries.len())?;
                for (c, v) in entries.iter() {
                    write!(out, "{} {} ", c[0] + 1, c[1] + 1)?;
                    value(out, &v)?;
                }
            }
            Body::Array { rows, cols, dense } => {
                writeln!(out, "%%MatrixMarket matrix array {field} general")?;
                writeln!(out, "{rows} {cols}")?;
                for v in dense {
                    value(out, v)?;
                }
            }
        }
        Ok(())
    }
}

/// Reads the file at `path`: a large `coordinate` file in chunks, in parallel, without
/// holding the whole file in memory; anything else (and every file the chunked read
/// finds fault with, so that the error is worded from a read in order) whole. A header
/// beyond the first [`CHUNK`] bytes (a long comment) also means a read whole.
fn read_path<V: Value>(path: &Path) -> Result<Entries<V>, Error> {
    let name = path.display().to_string();
    if let Some((file, len, head)) = chunks::open_large(path, &name)? {
        let mut lines = Lines::new(&name, &head, 1);
        match parse_head(&mut lines) {
            Ok(head) if head.header.layout == Layout::Coordinate => {
                check_value_type::<V>(&head, &name)?;
                let body = (lines.offset(), len, lines.line() + 1);
                let bytes = Bytes::File(&file);
                if let Some(entries) = chunked_coordinates(bytes, body, head, &name, CHUNK)? {
                    return Ok(entries);
                }
            }
            _ => {}
        }
    }
    parse_matrix_market(&read_file(path)?, &name)
}

/// Parses a whole Matrix Market file held in memory.
fn parse_matrix_market<V: Value>(bytes: &[u8], name: &str) -> Result<Entries<V>, Error> {
    let mut lines = Lines::new(name, bytes, 1);
    let head = parse_head(&mut lines)?;
    check_value_type::<V>(&head, name)?;
    match head.header.layout {
        Layout::Coordinate => {
            if bytes.len() - lines.offset() >= MIN_CHUNKS * CHUNK {
                let body = (lines.offset(), bytes.len(), lines.line() + 1);
                let chunked = chunked_coordinates(Bytes::Memory(bytes), body, head, name, CHUNK)?;
                if let Some(entries) = chunked {
                    return Ok(entries);
                }
            }
            read_coordinate(&mut lines, head, bytes.len())
        }
        Layout::Array => read_array(&mut lines, head.header, head.shape, bytes.len()),
    }
}

/// What the lines before the entries say.
#[derive(Clone, Copy, Debug)]
struct Head {
    header: Header,
    shape: [usize; 2],
    /// The entry count of a `coordinate` file's size line (0 for `array`).
    declared: usize,
}

/// Reads the banner and the size line.
fn parse_head(lines: &mut Lines<'_>) -> Result<Head, Error> {
    let header = parse_banner(lines)?;
    let mut fields = Vec::with_capacity(8);
    // The size line: the first line that is neither blank nor a comment.
    if !lines.next_data(&mut fields, b'%') {
        return Err(lines.error(format!(
            "the file ends before the size line ({})",
            size_line_fields(header.layout)
        )));
    }
    let expected = match header.layout {
        Layout::Coordinate => 3,
        Layout::Array => 2,
    };
    if fields.len() != expected {
        return Err(lines.error(format!(
            "expected {expected} fields on the size line ({}), found {}",
            size_line_fields(header.layout),
            fields.len()
        )));
    }
    let count = |k: usize, what: &str| parse_count(fields[k], what).map_err(|e| lines.error(e));
    let rows = count(0, "the row count")?;
    let cols = count(1, "the column count")?;
    if header.symmetry != Symmetry::General && rows != cols {
        return Err(lines.error(format!(
            "a {} matrix must be square, but the size line declares {rows} x {cols}",
            symmetry_name(header.symmetry)
        )));
    }
    let declared = match header.layout {
        Layout::Coordinate => count(2, "the entry count")?,
        Layout::Array => 0,
    };
    Ok(Head {
        header,
        shape: [rows, cols],
        declared,
    })
}

/// What a size line holds, for messages.
fn size_line_fields(layout: Layout) -> &'static str {
    match layout {
        Layout::Coordinate => "rows, columns, entries",
        Layout::Array => "rows, columns",
    }
}

/// The name of a symmetry, for messages.
fn symmetry_name(symmetry: Symmetry) -> &'static str {
    match symmetry {
        Symmetry::General => "general",
        Symmetry::Symmetric => "symmetric",
        Symmetry::SkewSymmetric => "skew-symmetric",
        Symmetry::Hermitian => "hermitian",
    }
}

/// Reads and checks the banner, the file's first line.
fn parse_banner(lines: &mut Lines<'_>) -> Result<Header, Error> {
    let Some(line) = lines.next_raw() else {
        return Err(lines.error(format!(
            "the file is empty; a Matrix Market file starts with `{BANNER}`"
        )));
    };
    let text = String::from_utf8_lossy(line).to_ascii_lowercase();
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    if words.first() != Some(&"%%matrixmarket") {
        return Err(lines.error(format!(
            "expected the banner `{BANNER}`, found `{}`",
            show(line)
        )));
    }
    if words.len() != 5 {
        return Err(lines.error(format!(
            "the banner has {} words after `%%MatrixMarket`, expected 4: `{BANNER}`",
            words.len() - 1
        )));
    }
    if words[1] != "matrix" {
        return Err(lines.error(format!(
            "unknown object `{}`: only `matrix` is supported",
            words[1]
        )));
    }
    let layout = match words[2] {
        "coordinate" => Layout::Coordinate,
        "array" => Layout::Array,
        other => {
            return Err(lines.error(format!(
                "unknown format `{other}`: expected `coordinate` or `array`"
            )))
        }
    };
    let field = match words[3] {
        "real" | "double" => Field::Real,
        "integer" => Field::Integer,
        "pattern" => Field::Pattern,
        "complex" => Field::Complex,
        other => return Err(lines.error(format!("unknown field `{other}`: expected {FIELDS}"))),
    };
    let symmetry = match words[4] {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "hermitian" if field == Field::Complex => Symmetry::Hermitian,
        "hermitian" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::SkewSymmetric,
        other => {
            return Err(lines.error(format!("unknown symmetry `{other}`: expected {SYMMETRIES}")))
        }
    };
    if field == Field::Pattern && layout == Layout::Array {
        return Err(lines.error("an `array` file cannot have the field `pattern`"));
    }
    if field == Field::Pattern && symmetry == Symmetry::SkewSymmetric {
        return Err(lines.error(
            "a `pattern` file cannot be `skew-symmetric` (its mirrored entries would be -1)",
        ));
    }
    Ok(Header {
        layout,
        field,
        symmetry,
    })
}

/// A cap on the entries to reserve room for: a file of `len` bytes holds at most one
/// entry per 4 bytes (`1 1\n`), whatever its size line claims.
fn plausible(declared: usize, len: usize) -> usize {
    declared.min(len / 4 + 1)
}

/// Reads the entry lines of a `coordinate` file of `len` bytes in order.
fn read_coordinate<V: Value>(
    lines: &mut Lines<'_>,
    head: Head,
    len: usize,
) -> Result<Entries<V>, Error> {
    let declared = head.declared;
    let capacity = plausible(declared, len) * mirrored(head.header.symmetry);
    let mut entries = Entries::with_capacity(&head.shape, capacity);
    let count = coordinate_lines(lines, head.header, head.shape, declared, &mut entries)?;
    if count < declared {
        return Err(lines.error(format!(
            "the file ends after {count} of the {declared} entries the size line declares"
        )));
    }
    Ok(entries)
}

/// The entries a line of a file of symmetry `symmetry` gives at most.
fn mirrored(symmetry: Symmetry) -> usize {
    match symmetry {
        Symmetry::General => 1,
        Symmetry::Symmetric | Symmetry::SkewSymmetric | Symmetry::Hermitian => 2,
    }
}

/// Reads the entry lines of a `coordinate` file in chunks of about `size` bytes, on
/// every core ([`chunks::parse`]); `body` is the entries' first byte, the end of the file
/// and the number of the entries' first line. The entries come out in file order, as
/// from [`read_coordinate`]. `None` if any line is malformed or the number of entries is
/// not the declared one: the caller then reads the file in order for the precise
/// message.
fn chunked_coordinates<V: Value>(
    bytes: Bytes<'_>,
    body: (usize, usize, usize),
    head: Head,
    name: &str,
    size: usize,
) -> Result<Option<Entries<V>>, Error> {
    let per_line = mirrored(head.header.symmetry);
    let parsed = chunks::parse(
        bytes,
        body,
        &head.shape,
        per_line,
        size,
        name,
        |lines, slots| coordinate_lines(lines, head.header, head.shape, usize::MAX, slots),
    )?;
    Ok(parsed.and_then(|(entries, read)| {
        (read.iter().sum::<usize>() == head.declared).then_some(entries)
    }))
}

/// Parses entry lines into `entries` until the end of `lines`; returns their count.
/// More than `limit` entries is an error.
fn coordinate_lines<V: Value>(
    lines: &mut Lines<'_>,
    header: Header,
    shape: [usize; 2],
    limit: usize,
    entries: &mut impl Sink<V>,
) -> Result<usize, Error> {
    let (expected, what) = match header.field {
        Field::Pattern => (2, "row, column"),
        Field::Complex => (4, "row, column, real part, imaginary part"),
        Field::Real | Field::Integer => (3, "row, column, value"),
    };
    let mut fields = Vec::with_capacity(8);
    let mut count = 0;
    loop {
        // An ordinary line in one pass; anything else through the general split.
        let mut ij = [0; 2];
        // (A complex line's two value fields always take the general split.)
        let fast = match header.field {
            Field::Complex => None,
            _ => lines.next_entry(&mut ij, header.field != Field::Pattern),
        };
        if fast.is_none() && !lines.next_data(&mut fields, b'%') {
            break;
        }
        if count == limit {
            return Err(lines.error(format!(
                "more entries than the {limit} the size line declares"
            )));
        }
        let (i, j, value) = match fast {
            Some(value) => (
                check_index(ij[0], "row index", shape[0]).map_err(|e| lines.error(e))?,
                check_index(ij[1], "column index", shape[1]).map_err(|e| lines.error(e))?,
                value,
            ),
            None if fields.len() == expected => (
                parse_index(fields[0], "row index", shape[0]).map_err(|e| lines.error(e))?,
                parse_index(fields[1], "column index", shape[1]).map_err(|e| lines.error(e))?,
                fields[expected.min(3) - 1],
            ),
            None => {
                return Err(lines.error(format!(
                    "expected {expected} fields ({what}), found {}",
                    fields.len()
                )))
            }
        };
        // The imaginary part of a complex line (the fast path reads no complex line).
        let imaginary = match header.field {
            Field::Complex => fields[3],
            _ => &[],
        };
        let v = value_of(header.field, value, imaginary).map_err(|e| lines.error(e))?;
        push_entry(entries, header.symmetry, i, j, v, || {
            mirror(header, value, imaginary)
        })
        .map_err(|e| lines.error(e))?;
        count += 1;
    }
    Ok(count)
}

/// Stores entry `(i, j)` (0-based) of a file of symmetry `symmetry` and its mirror;
/// `mirror` computes the mirrored value ([`mirror`]) where it differs from `v`.
#[inline]
fn push_entry<V: Value>(
    entries: &mut impl Sink<V>,
    symmetry: Symmetry,
    i: usize,
    j: usize,
    v: V,
    mirror: impl FnOnce() -> Result<V, String>,
) -> Result<(), String> {
    let above = |what: &str, kept: &str| {
        format!(
            "entry ({}, {}) lies above the diagonal, but a {what} file stores only the \
             {kept} (row index {})",
            i + 1,
            j + 1,
            if kept.starts_with("strictly") {
                "> column index"
            } else {
                ">= column index"
            }
        )
    };
    match symmetry {
        Symmetry::General => put(entries, [i, j], v)?,
        Symmetry::Symmetric => {
            if i < j {
                return Err(above("symmetric", "lower triangle"));
            }
            put(entries, [i, j], v)?;
            if i != j {
                put(entries, [j, i], v)?;
            }
        }
        Symmetry::SkewSymmetric => {
            if i < j {
                return Err(above("skew-symmetric", "strictly lower triangle"));
            }
            if i == j {
                if v != V::zero() {
                    return Err(format!(
                        "entry ({}, {}) lies on the diagonal with the nonzero value {v:?}, but \
                         the diagonal of a skew-symmetric matrix is zero",
                        i + 1,
                        j + 1
                    ));
                }
                put(entries, [i, j], v)?;
            } else {
                let mirror = if v == V::zero() { v } else { mirror()? };
                put(entries, [i, j], v)?;
                put(entries, [j, i], mirror)?;
            }
        }
        Symmetry::Hermitian => {
            if i < j {
                return Err(above("hermitian", "lower triangle"));
            }
            let conjugate = mirror()?;
            if i == j {
                if conjugate != v {
                    return Err(format!(
                        "entry ({}, {}) lies on the diagonal with the value {v:?}, but the \
                         diagonal of a hermitian matrix is real",
                        i + 1,
                        j + 1
                    ));
                }
                put(entries, [i, j], v)?;
            } else {
                put(entries, [i, j], v)?;
                put(entries, [j, i], conjugate)?;
            }
        }
    }
    Ok(())
}

/// The value of an entry whose value fields are `value` and, in a `complex` file,
/// `imaginary`.
#[inline]
fn value_of<V: Value>(field: Field, value: &[u8], imaginary: &[u8]) -> Result<V, String> {
    match field {
        Field::Pattern => Ok(V::one()),
        Field::Real | Field::Integer => parse_value(value),
        Field::Complex => complex_value(value, imaginary),
    }
}

/// The mirror of an entry whose value fields are `value` and `imaginary` across the
/// diagonal of a skew-symmetric (negated) or hermitian (conjugated) file, parsed from the
/// negated text, so that it is exact and an unsigned or overflowing negation is an error
/// rather than a wrap or a panic.
fn mirror<V: Value>(header: Header, value: &[u8], imaginary: &[u8]) -> Result<V, String> {
    match (header.field, header.symmetry) {
        (Field::Complex, Symmetry::Hermitian) => complex_value(value, &negated_text(imaginary)),
        (Field::Complex, _) => complex_value(&negated_text(value), &negated_text(imaginary)),
        _ => parse_negated(value),
    }
}

/// The complex value of the parts `re` and `im`, for `V` = `Complex<f64>` or
/// `Complex<f32>` (the types [`check_value_type`] lets read a `complex` file).
fn complex_value<V: Value>(re: &[u8], im: &[u8]) -> Result<V, String> {
    let mut value: Option<V> = None;
    let slot = &mut value as &mut dyn Any;
    if let Some(slot) = slot.downcast_mut::<Option<Complex<f64>>>() {
        *slot = Some(Complex::new(parse_value(re)?, parse_value(im)?));
    } else if let Some(slot) = slot.downcast_mut::<Option<Complex<f32>>>() {
        *slot = Some(Complex::new(parse_value(re)?, parse_value(im)?));
    }
    value.ok_or_else(not_complex::<V>)
}

/// The message for a `complex` file read into a value type that cannot hold it.
#[cold]
fn not_complex<V>() -> String {
    format!(
        "a `complex` file is read into a tensor of `num_complex::Complex<f64>` or \
         `Complex<f32>` values, not `{}`",
        std::any::type_name::<V>()
    )
}

/// Refuses a `complex` file (banner on line 1) into a value type that is not complex.
fn check_value_type<V: Value>(head: &Head, name: &str) -> Result<(), Error> {
    if head.header.field == Field::Complex && !is_complex::<V>() {
        return Err(parse_error(name, 1, not_complex::<V>()));
    }
    Ok(())
}

/// Puts an entry into `sink`, or says that the file has more entries than it had lines
/// when it was split into chunks (it changed while it was read).
#[inline]
fn put<V: Value>(sink: &mut impl Sink<V>, coord: [usize; 2], v: V) -> Result<(), String> {
    if sink.put(&coord, v) {
        Ok(())
    } else {
        Err("the file has more lines than when it was opened".into())
    }
}

/// Reads the value lines of an `array` file: every component column by column, or the
/// lower triangle (strictly lower for skew-symmetric) column by column.
fn read_array<V: Value>(
    lines: &mut Lines<'_>,
    header: Header,
    shape: [usize; 2],
    len: usize,
) -> Result<Entries<V>, Error> {
    let [rows, cols] = shape;
    let name = lines.name();
    let line = lines.line();
    let too_many = || {
        parse_error(
            name,
            line,
            format!("a {rows} x {cols} array has too many components"),
        )
    };
    // The first row stored in column `j`.
    let first_row = |j: usize| match header.symmetry {
        Symmetry::General => 0,
        Symmetry::Symmetric | Symmetry::Hermitian => j,
        Symmetry::SkewSymmetric => j + 1,
    };
    let declared = match header.symmetry {
        Symmetry::General => rows.checked_mul(cols).ok_or_else(too_many)?,
        // n (n + 1) / 2 and n (n - 1) / 2, computed without overflowing on the way.
        Symmetry::Symmetric | Symmetry::Hermitian => {
            triangle(rows, rows.checked_add(1).ok_or_else(too_many)?).ok_or_else(too_many)?
        }
        Symmetry::SkewSymmetric => triangle(rows, rows.saturating_sub(1)).ok_or_else(too_many)?,
    };
    let what = match header.symmetry {
        Symmetry::General => "the array's",
        Symmetry::Symmetric | Symmetry::Hermitian => "the lower triangle's",
        Symmetry::SkewSymmetric => "the strictly lower triangle's",
    };
    let mirrored = mirrored(header.symmetry);
    let mut entries = Entries::with_capacity(&shape, plausible(declared, len * 2) * mirrored);
    let (per_line, per_line_what, a_kind) = match header.field {
        Field::Complex => (2, "2 fields (real part, imaginary part)", "a complex"),
        _ => (1, "1 field (value)", "an"),
    };
    let mut fields = Vec::with_capacity(4);
    let (mut i, mut j) = (first_row(0), 0);
    let mut count = 0;
    while lines.next_data(&mut fields, b'%') {
        if count == declared {
            return Err(lines.error(format!(
                "more values than the {declared} of {what} {rows} x {cols} components"
            )));
        }
        if fields.len() != per_line {
            return Err(lines.error(format!(
                "expected {per_line_what} per line of {a_kind} array, found {}",
                fields.len()
            )));
        }
        let (value, imaginary) = (fields[0], fields.get(1).copied().unwrap_or(&[]));
        let v = value_of(header.field, value, imaginary).map_err(|e| lines.error(e))?;
        // `count < declared`, so (i, j) is a stored component.
        push_entry(&mut entries, header.symmetry, i, j, v, || {
            mirror(header, value, imaginary)
        })
        .map_err(|e| lines.error(e))?;
        count += 1;
        i += 1;
        while i >= rows && j < cols {
            j += 1;
            i = first_row(j);
        }
    }
    if count < declared {
        return Err(lines.error(format!(
            "the file ends after {count} of the {declared} values of {what} {rows} x {cols} components"
        )));
    }
    Ok(entries)
}

/// `a * b / 2` for `a * b` even, or `None` on overflow.
fn triangle(a: usize, b: usize) -> Option<usize> {
    if a & 1 == 0 {
        (a / 2).checked_mul(b)
    } else {
        a.checked_mul(b / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::prng::XorShift;

    /// A random valid `coordinate` file: any field and symmetry, blanks, tabs and CRLF
    /// between fields, comment and blank lines among the entries, with or without a
    /// final newline.
    fn random_file(rng: &mut XorShift) -> String {
        let field = ["real", "integer", "pattern"][rng.below(3)];
        let symmetry = match field {
            "pattern" => ["general", "symmetric"][rng.below(2)],
            _ => ["general", "symmetric", "skew-symmetric"][rng.below(3)],
        };
        let rows = 1 + rng.below(40);
        let cols = if symmetry == "general" {
            1 + rng.below(40)
        } else {
            rows
        };
        let n = rng.below(300);
        let mut text = format!("%%MatrixMarket matrix coordinate {field} {symmetry}\n% x\n");
        text += &format!("{rows} {cols} {n}\n");
        for _ in 0..n {
            while rng.below(8) == 0 {
                text += ["% a comment\n", "\n", "  \t\n", "%\n"][rng.below(4)];
            }
            let (mut i, mut j) = (rng.below(rows), rng.below(cols));
            if symmetry != "general" && i < j {
                std::mem::swap(&mut i, &mut j);
            }
            if symmetry == "skew-symmetric" && i == j {
                i = (i + 1) % rows;
                if i <= j {
                    (i, j) = (j.max(1), 0);
                }
            }
            let mut line = format!("{}{}{}", i + 1, blank(rng), j + 1);
            match field {
                "real" => {
                    line += &format!("{}{}", blank(rng), rng.below(2000) as f64 / 8.0 - 100.0)
                }
                "integer" => line += &format!("{}{}", blank(rng), rng.below(200) as i64 - 100),
                _ => {}
            }
            if rng.below(4) == 0 {
                line += " ";
            }
            text += &line;
            text += ["\n", "\r\n"][rng.below(2)];
        }
        if rng.below(4) == 0 {
            text.pop();
        }
        text
    }

    /// Blanks between two fields.
    fn blank(rng: &mut XorShift) -> &'static str {
        [" ", "  ", "\t", " \t "][rng.below(4)]
    }

    /// The file's head and the body's (first byte, end, first line).
    fn head_of(text: &str) -> (Head, (usize, usize, usize)) {
        let mut lines = Lines::new("t.mtx", text.as_bytes(), 1);
        let head = parse_head(&mut lines).unwrap();
        (head, (lines.offset(), text.len(), lines.line() + 1))
    }

    /// The entries read in order, or the error.
    fn in_order(text: &str) -> Result<Entries<f64>, Error> {
        let mut lines = Lines::new("t.mtx", text.as_bytes(), 1);
        let head = parse_head(&mut lines)?;
        read_coordinate(&mut lines, head, text.len())
    }

    /// The entries read in chunks of `size` bytes, from memory and from a file.
    fn chunked(text: &str, size: usize) -> Result<Option<Entries<f64>>, Error> {
        let (head, body) = head_of(text);
        let memory = chunked_coordinates(Bytes::Memory(text.as_bytes()), body, head, "t", size)?;
        if chunks::POSITIONAL {
            // One file per call: the tests run in parallel.
            static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!(
                "sparse-runtime-chunked-{}-{call}.mtx",
                std::process::id()
            ));
            std::fs::write(&path, text).unwrap();
            let file = std::fs::File::open(&path).unwrap();
            let from_file = chunked_coordinates(Bytes::File(&file), body, head, "t", size);
            std::fs::remove_file(&path).unwrap();
            assert_eq!(from_file?, memory);
        }
        Ok(memory)
    }

    #[test]
    fn chunked_reads_equal_a_read_in_order() {
        let mut rng = XorShift::new(7);
        for _ in 0..60 {
            let text = random_file(&mut rng);
            let want = in_order(&text).unwrap();
            for size in [1, 5, 64, 700, 1 << 20] {
                assert_eq!(
                    chunked(&text, size).unwrap().as_ref(),
                    Some(&want),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn chunked_reads_leave_every_defect_to_the_read_in_order() {
        let good = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 1 2\n3 2 3\n";
        let defects = [
            ("2 1 2\n", "2 1 x\n"),
            ("2 1 2\n", "2 4 2\n"),
            ("2 1 2\n", "0 1 2\n"),
            ("2 1 2\n", "1 2 2\n"),
            ("2 1 2\n", "2 1\n"),
            ("2 1 2\n", "2 1 2 2\n"),
            ("3 2 3\n", "3 2 3\n3 3 1\n"),
            ("3 2 3\n", ""),
            ("2 1 2\n", "-2 1 2\n"),
        ];
        assert!(chunked(good, 4).unwrap().is_some());
        for (from, to) in defects {
            let bad = good.replace(from, to);
            let error = in_order(&bad).unwrap_err();
            for size in [1, 4, 100] {
                assert_eq!(chunked(&bad, size).unwrap(), None, "{bad} gave no {error}");
            }
        }
    }
}
