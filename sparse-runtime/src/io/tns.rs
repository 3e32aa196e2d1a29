//! The FROSTT `.tns` format (<http://frostt.io/tensors/file-formats.html>): one entry per
//! line, `i1 i2 ... iN value`, 1-based, `#` comment lines; the shape is not stored.

use super::parse::{parse_index, parse_value, Lines};
use super::{read_all, read_file, write_file, Entries, FromEntries, ToEntries, WRITER};
use crate::{Error, Value};
use std::io::{Read, Write};
use std::path::Path;

/// Reads the `.tns` file at `path` into any format, its shape inferred: each mode's size
/// is the largest index the file holds in it. The order is the number of fields of the
/// first entry line minus one; every entry line must have as many (`#` comment lines
/// and blank lines are skipped). An empty file is the empty tensor of shape
/// `[0, ..]` if the format's order is fixed ([`FromEntries::ORDER`]), else an error.
///
/// Errors: [`Error::Io`] if the file cannot be read; [`Error::Parse`] naming the line
/// for a line with too few or inconsistent fields, an index that is 0 or not an
/// integer, a value the value type cannot hold; a file whose order differs from the
/// format's (`OrderMismatch`); the format's construction errors.
///
/// ```no_run
/// let t: sparse_runtime::Csf3<f64> = sparse_runtime::io::read_tns("nell-2.tns")?;
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn read_tns<T: FromEntries>(path: impl AsRef<Path>) -> Result<T, Error> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    parse_tns::<T::Value>(&bytes, &path.display().to_string(), None, T::ORDER)?.into_tensor()
}

/// [`read_tns`] with the shape given: the file must have `shape.len()` indices per line,
/// each within its mode's size.
///
/// ```no_run
/// let t: sparse_runtime::Csf3<f64> =
///     sparse_runtime::io::read_tns_with_shape("t.tns", &[100, 200, 300])?;
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn read_tns_with_shape<T: FromEntries>(
    path: impl AsRef<Path>,
    shape: &[usize],
) -> Result<T, Error> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    parse_tns::<T::Value>(&bytes, &path.display().to_string(), Some(shape), T::ORDER)?.into_tensor()
}

/// [`read_tns`] from any reader; `name` stands for the file in error messages.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let text = "# a 2 x 3 x 4 tensor's two entries\n1 1 1 1.5\n2 3 4 -2\n";
/// let t: Csf3<f64> = sparse_runtime::io::read_tns_from(text.as_bytes(), "t.tns")?;
/// assert_eq!(t.shape(), &[2, 3, 4]);
/// assert_eq!(t.entries(), vec![(vec![0, 0, 0], 1.5), (vec![1, 2, 3], -2.0)]);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn read_tns_from<T: FromEntries>(reader: impl Read, name: &str) -> Result<T, Error> {
    let bytes = read_all(reader, name)?;
    parse_tns::<T::Value>(&bytes, name, None, T::ORDER)?.into_tensor()
}

/// [`read_tns_with_shape`] from any reader; `name` stands for the file in error messages.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let text = "1 1 1.5\n2 3 -2\n";
/// let t: Coo<f64> = sparse_runtime::io::read_tns_with_shape_from(text.as_bytes(), "t.tns", &[5, 5])?;
/// assert_eq!(t.shape(), &[5, 5]);
/// let err = sparse_runtime::io::read_tns_with_shape_from::<Coo<f64>>(text.as_bytes(), "t.tns", &[5, 2]);
/// assert_eq!(err.unwrap_err().to_string(), "t.tns:2: index 2 is 3, outside 1..=2");
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn read_tns_with_shape_from<T: FromEntries>(
    reader: impl Read,
    name: &str,
    shape: &[usize],
) -> Result<T, Error> {
    let bytes = read_all(reader, name)?;
    parse_tns::<T::Value>(&bytes, name, Some(shape), T::ORDER)?.into_tensor()
}

/// Writes a tensor of any order to the file at `path` (created or truncated) in the
/// `.tns` format: one line `i1 ... iN value` per stored entry (explicit zeros included),
/// 1-based, sorted by coordinate, values written with `{:?}` (see
/// [`write_matrix_market_with`](super::write_matrix_market_with)). The shape is not
/// written; read the file back with [`read_tns_with_shape`] to keep trailing empty
/// slices.
///
/// Errors: an order-0 list (`OrderMismatch`), or [`Error::Io`] naming `path`.
pub fn write_tns<T: ToEntries + ?Sized>(path: impl AsRef<Path>, tensor: &T) -> Result<(), Error> {
    let entries = tensor_entries(tensor)?;
    write_file(path.as_ref(), |out| write_entries(out, &entries))
}

/// [`write_tns`] into any writer (buffered here).
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let t = Csf3::<f64>::from_entries(&[2, 2, 2], [([1, 0, 1], 0.5), ([0, 1, 1], 2.0)])?;
/// let mut out = Vec::new();
/// sparse_runtime::io::write_tns_to(&mut out, &t)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "1 2 2 2.0\n2 1 2 0.5\n");
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn write_tns_to<T: ToEntries + ?Sized>(writer: impl Write, tensor: &T) -> Result<(), Error> {
    let entries = tensor_entries(tensor)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, writer);
    write_entries(&mut out, &entries)
        .and_then(|()| out.flush())
        .map_err(|e| super::io_error(WRITER, &e))
}

/// The entries of a tensor of order at least 1.
fn tensor_entries<T: ToEntries + ?Sized>(tensor: &T) -> Result<Entries<T::Value>, Error> {
    let entries = tensor.to_entry_list();
    if entries.order() == 0 {
        return Err(Error::OrderMismatch {
            expected: 1,
            found: 0,
        });
    }
    Ok(entries)
}

/// One line per entry.
fn write_entries<V: Value>(out: &mut dyn Write, entries: &Entries<V>) -> std::io::Result<()> {
    for (c, v) in entries.iter() {
        for &i in c {
            write!(out, "{} ", i + 1)?;
        }
        writeln!(out, "{v:?}")?;
    }
    Ok(())
}

/// Parses a whole `.tns` file: with `shape`, checked against it; without, the shape
/// inferred (the order from the first line, or `order` for an empty file).
fn parse_tns<V: Value>(
    bytes: &[u8],
    name: &str,
    shape: Option<&[usize]>,
    order: Option<usize>,
) -> Result<Entries<V>, Error> {
    if let (Some(shape), Some(order)) = (shape, order) {
        if shape.len() != order {
            return Err(Error::OrderMismatch {
                expected: order,
                found: shape.len(),
            });
        }
    }
    let mut lines = Lines::new(name, bytes, 1);
    let mut fields = Vec::with_capacity(8);
    // The first entry line fixes the order (unless the shape does).
    if !lines.next_data(&mut fields, b'#') {
        return empty(name, &lines, shape, order);
    }
    let modes = match shape {
        Some(shape) => shape.len(),
        None if fields.len() < 2 => {
            return Err(lines.error(format!(
                "expected at least 2 fields (an index and a value), found {}",
                fields.len()
            )))
        }
        None => fields.len() - 1,
    };
    if let Some(order) = order.filter(|&o| o != modes) {
        return Err(Error::Parse {
            file: name.to_owned(),
            line: lines.line(),
            detail: format!(
                "the file has {modes} indices per line, but the tensor has order {order}"
            ),
        });
    }
    let first_line = lines.line();
    let bounds: Vec<usize> = match shape {
        Some(shape) => shape.to_vec(),
        None => vec![usize::MAX; modes],
    };
    let mut max = vec![0usize; modes];
    // A capacity from the first line's length; the lists grow if the guess is short.
    let guess = bytes.len() / fields.iter().map(|f| f.len() + 1).sum::<usize>().max(1);
    let mut entries = Entries::with_capacity(&bounds, guess + guess / 8);
    let mut coord = vec![0usize; modes];
    let why = match shape {
        Some(_) => format!("for a shape of {modes} modes"),
        None => format!("as on line {first_line}"),
    };
    loop {
        if fields.len() != modes + 1 {
            return Err(lines.error(format!(
                "expected {} fields ({modes} indices and a value, {why}), found {}",
                modes + 1,
                fields.len()
            )));
        }
        for (k, c) in coord.iter_mut().enumerate() {
            *c = parse_index(fields[k], "", bounds[k]).map_err(|_| {
                // Again, for the message: "index 2" for the second, 1-based like the file.
                let what = format!("index {}", k + 1);
                let e = parse_index(fields[k], &what, bounds[k]).err();
                lines.error(e.unwrap_or_default())
            })?;
            max[k] = max[k].max(*c + 1);
        }
        let v = parse_value(fields[modes]).map_err(|e| lines.error(e))?;
        entries.push_unchecked(&coord, v);
        // The next entry line.
        if !lines.next_data(&mut fields, b'#') {
            if shape.is_none() {
                entries.shape = max;
            }
            return Ok(entries);
        }
    }
}

/// The result of a file without entries.
fn empty<V: Value>(
    name: &str,
    lines: &Lines<'_>,
    shape: Option<&[usize]>,
    order: Option<usize>,
) -> Result<Entries<V>, Error> {
    match (shape, order) {
        (Some(shape), _) => Ok(Entries::new(shape)),
        (None, Some(order)) => Ok(Entries::new(&vec![0; order])),
        (None, None) => Err(Error::Parse {
            file: name.to_owned(),
            line: lines.line(),
            detail: "the file has no entries, so its order is unknown: give the shape \
                     (read_tns_with_shape)"
                .into(),
        }),
    }
}
