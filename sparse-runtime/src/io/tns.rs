//! The FROSTT `.tns` format (<http://frostt.io/tensors/file-formats.html>): one entry per
//! line, `i1 i2 ... iN value`, 1-based, `#` comment lines; the shape is not stored.

use super::chunks::{self, Bytes, CHUNK, MIN_CHUNKS};
use super::parse::{check_index, check_writable, complex_parts, parse_index, parse_value, Lines};
use super::WRITER;
use super::{read_all, read_file, write_file, Entries, FromEntries, Sink, ToEntries};
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
    let expect = Expect {
        shape: None,
        order: T::ORDER,
    };
    read_path::<T::Value>(path.as_ref(), expect)?.into_tensor()
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
    let expect = Expect {
        shape: Some(shape),
        order: T::ORDER,
    };
    read_path::<T::Value>(path.as_ref(), expect)?.into_tensor()
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
    let expect = Expect {
        shape: None,
        order: T::ORDER,
    };
    parse_tns::<T::Value>(&bytes, name, expect)?.into_tensor()
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
    let expect = Expect {
        shape: Some(shape),
        order: T::ORDER,
    };
    parse_tns::<T::Value>(&bytes, name, expect)?.into_tensor()
}

/// Writes a tensor of any order to the file at `path` (created or truncated) in the
/// `.tns` format: one line `i1 ... iN value` per stored entry (explicit zeros included),
/// 1-based, sorted by coordinate, values written with `{:?}` (see
/// [`write_matrix_market_with`](super::write_matrix_market_with)), a `Complex<f64>` or
/// `Complex<f32>` value as one field `re+imi` (`1.5+-2.0i`, each part with `{:?}`), which
/// reading into the same type parses back bit-identical. The shape is not
/// written; read the file back with [`read_tns_with_shape`] to keep trailing empty
/// slices.
///
/// Errors: an order-0 list (`OrderMismatch`), a fill value that is not zero or values of
/// a complex type other than `Complex<f64>` and `Complex<f32>` (`NotRepresentable`), or
/// [`Error::Io`] naming `path`.
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
    check_writable::<T::Value>("`.tns`")?;
    super::check_zero_fill(tensor.fill(), "`.tns`")?;
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
        match complex_parts(&v) {
            // One field that `Complex`'s `from_str_radix` reads back: `1.5+-2.0i`.
            Some((re, im)) => writeln!(out, "{re:?}+{im:?}i")?,
            None => writeln!(out, "{v:?}")?,
        }
    }
    Ok(())
}

/// What a reader knows before the entries: the shape it was given, or the order of the
/// format it builds (an empty file's order).
#[derive(Clone, Copy)]
struct Expect<'s> {
    shape: Option<&'s [usize]>,
    order: Option<usize>,
}

impl Expect<'_> {
    /// `OrderMismatch` if the shape given does not have the format's order.
    fn check(self) -> Result<(), Error> {
        match (self.shape, self.order) {
            (Some(shape), Some(order)) if shape.len() != order => Err(Error::OrderMismatch {
                expected: order,
                found: shape.len(),
            }),
            _ => Ok(()),
        }
    }
}

/// The file's first entry line: its number of indices (the order), its first byte and
/// its line number; `None` if the file has no entry line.
fn first_entry(lines: &mut Lines<'_>, expect: Expect<'_>) -> Result<Option<Body>, Error> {
    let mut fields = Vec::with_capacity(8);
    let start = loop {
        let at = lines.offset();
        if !lines.next_fields(&mut fields) {
            return Ok(None);
        }
        if fields.first().is_some_and(|f| f[0] != b'#') {
            break at;
        }
    };
    let modes = match expect.shape {
        Some(shape) => shape.len(),
        None if fields.len() < 2 => {
            return Err(lines.error(format!(
                "expected at least 2 fields (an index and a value), found {}",
                fields.len()
            )))
        }
        None => fields.len() - 1,
    };
    if let Some(order) = expect.order.filter(|&o| o != modes) {
        return Err(lines.error(format!(
            "the file has {modes} indices per line, but the tensor has order {order}"
        )));
    }
    Ok(Some(Body {
        modes,
        start,
        first_line: lines.line(),
    }))
}

/// Where the entry lines start, and how many indices each has.
#[derive(Clone, Copy)]
struct Body {
    modes: usize,
    start: usize,
    first_line: usize,
}

/// Reads the `.tns` file at `path`: a large one in chunks, in parallel (as a large
/// Matrix Market file), anything else whole.
fn read_path<V: Value>(path: &Path, expect: Expect<'_>) -> Result<Entries<V>, Error> {
    expect.check()?;
    let name = path.display().to_string();
    if let Some((file, len, head)) = chunks::open_large(path, &name)? {
        let mut lines = Lines::new(&name, &head, 1);
        if let Ok(Some(body)) = first_entry(&mut lines, expect) {
            let bytes = Bytes::File(&file);
            if let Some(entries) = chunked(bytes, len, body, expect, &name, CHUNK)? {
                return Ok(entries);
            }
        }
    }
    parse_tns(&read_file(path)?, &name, expect)
}

/// Parses a whole `.tns` file held in memory: with a shape, checked against it; without,
/// the shape inferred (the order from the first entry line, or the format's for an
/// empty file).
fn parse_tns<V: Value>(bytes: &[u8], name: &str, expect: Expect<'_>) -> Result<Entries<V>, Error> {
    expect.check()?;
    let mut lines = Lines::new(name, bytes, 1);
    let Some(body) = first_entry(&mut lines, expect)? else {
        return empty(name, &lines, expect.shape, expect.order);
    };
    if bytes.len() - body.start >= MIN_CHUNKS * CHUNK {
        if let Some(entries) =
            chunked(Bytes::Memory(bytes), bytes.len(), body, expect, name, CHUNK)?
        {
            return Ok(entries);
        }
    }
    let mut lines = Lines::new(name, &bytes[body.start..], body.first_line);
    let bounds = bounds(body, expect);
    // A capacity from the first line's length; the lists grow if the guess is short.
    let first = bytes[body.start..]
        .split(|&b| b == b'\n')
        .next()
        .unwrap_or_default();
    let guess = (bytes.len() - body.start) / (first.len() + 1);
    let mut entries = Entries::with_capacity(&bounds, guess + guess / 8);
    let max = entry_lines(&mut lines, body, expect, &bounds, &mut entries)?;
    if expect.shape.is_none() {
        entries.shape = max;
    }
    Ok(entries)
}

/// The bound of each index: the shape given, or none.
fn bounds(body: Body, expect: Expect<'_>) -> Vec<usize> {
    match expect.shape {
        Some(shape) => shape.to_vec(),
        None => vec![usize::MAX; body.modes],
    }
}

/// [`parse_tns`]'s entries read in chunks of about `size` bytes on every core
/// ([`chunks::parse`]), from the first entry line to `end`; `None` if any line is amiss.
fn chunked<V: Value>(
    bytes: Bytes<'_>,
    end: usize,
    body: Body,
    expect: Expect<'_>,
    name: &str,
    size: usize,
) -> Result<Option<Entries<V>>, Error> {
    let bounds = bounds(body, expect);
    let span = (body.start, end, body.first_line);
    let parsed = chunks::parse(bytes, span, &bounds, 1, size, name, |lines, slots| {
        entry_lines(lines, body, expect, &bounds, slots)
    })?;
    Ok(parsed.map(|(mut entries, maxima)| {
        if expect.shape.is_none() {
            entries.shape = vec![0; body.modes];
            for max in maxima {
                for (m, n) in entries.shape.iter_mut().zip(max) {
                    *m = (*m).max(n);
                }
            }
        }
        entries
    }))
}

/// Reads entry lines of `body.modes` indices each into `sink` until the end of `lines`;
/// returns the largest index (1-based) seen in each mode.
fn entry_lines<V: Value>(
    lines: &mut Lines<'_>,
    body: Body,
    expect: Expect<'_>,
    bounds: &[usize],
    sink: &mut impl Sink<V>,
) -> Result<Vec<usize>, Error> {
    let modes = body.modes;
    let mut max = vec![0usize; modes];
    let mut coord = vec![0usize; modes];
    let mut fields = Vec::with_capacity(8);
    loop {
        // An ordinary line in one pass; anything else through the general split.
        let value = match lines.next_entry(&mut coord, true) {
            Some(value) => {
                for (k, c) in coord.iter_mut().enumerate() {
                    let n = *c;
                    *c = index(lines, k, |what| check_index(n, what, bounds[k]))?;
                }
                value
            }
            None => {
                if !lines.next_data(&mut fields, b'#') {
                    return Ok(max);
                }
                if fields.len() != modes + 1 {
                    let why = match expect.shape {
                        Some(_) => format!("for a shape of {modes} modes"),
                        None => format!("as on line {}", body.first_line),
                    };
                    return Err(lines.error(format!(
                        "expected {} fields ({modes} indices and a value, {why}), found {}",
                        modes + 1,
                        fields.len()
                    )));
                }
                for (k, c) in coord.iter_mut().enumerate() {
                    *c = index(lines, k, |what| parse_index(fields[k], what, bounds[k]))?;
                }
                fields[modes]
            }
        };
        for (m, &c) in max.iter_mut().zip(&coord) {
            *m = (*m).max(c + 1);
        }
        let v = parse_value(value).map_err(|e| lines.error(e))?;
        if !sink.put(&coord, v) {
            return Err(lines.error("the file has more lines than when it was opened"));
        }
    }
}

/// Index `k` of the current line by `parse(what)`, or its error naming it "index 2" for
/// the second (1-based like the file): the name is formatted only for the message.
#[inline]
fn index(
    lines: &Lines<'_>,
    k: usize,
    parse: impl Fn(&str) -> Result<usize, String>,
) -> Result<usize, Error> {
    parse("").map_err(|_| {
        let what = format!("index {}", k + 1);
        lines.error(parse(&what).err().unwrap_or_default())
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::prng::XorShift;

    /// A random `.tns` text of order 1 to 5 with comment and blank lines among its
    /// entries, with or without a final newline; and its shape.
    fn random_file(rng: &mut XorShift) -> (String, Vec<usize>) {
        let shape: Vec<usize> = (0..1 + rng.below(5)).map(|_| 1 + rng.below(9)).collect();
        let mut text = String::from("# a tensor\n");
        for _ in 0..rng.below(200) {
            while rng.below(8) == 0 {
                text += ["# a comment\n", "\n", " \t\n"][rng.below(3)];
            }
            for &n in &shape {
                text += &format!("{}{}", 1 + rng.below(n), [" ", "\t", "  "][rng.below(3)]);
            }
            text += &format!("{}", rng.below(100) as f64 / 4.0 - 12.0);
            text += ["\n", "\r\n", " \n"][rng.below(3)];
        }
        if rng.below(4) == 0 {
            text.pop();
        }
        (text, shape)
    }

    /// The entries read in chunks of `size` bytes (from memory), if the file has any.
    fn in_chunks(text: &str, expect: Expect<'_>, size: usize) -> Option<Option<Entries<f64>>> {
        let mut lines = Lines::new("t", text.as_bytes(), 1);
        let body = first_entry(&mut lines, expect).unwrap()?;
        let bytes = Bytes::Memory(text.as_bytes());
        Some(chunked(bytes, text.len(), body, expect, "t", size).unwrap())
    }

    #[test]
    fn chunked_reads_equal_a_read_in_order() {
        let mut rng = XorShift::new(11);
        for _ in 0..60 {
            let (text, shape) = random_file(&mut rng);
            for given in [None, Some(&shape[..])] {
                let expect = Expect {
                    shape: given,
                    order: None,
                };
                let Ok(want) = parse_tns::<f64>(text.as_bytes(), "t", expect) else {
                    // No entry: the order is unknown without a shape.
                    assert!(given.is_none() && in_chunks(&text, expect, 1).is_none());
                    continue;
                };
                for size in [1, 6, 100, 1 << 20] {
                    let got = in_chunks(&text, expect, size);
                    assert_eq!(got, Some(Some(want.clone())), "{text}");
                }
            }
        }
    }

    #[test]
    fn chunked_reads_leave_every_defect_to_the_read_in_order() {
        let good = "1 2 3 1.5\n2 2 2 -1\n# c\n3 1 1 4\n";
        let expect = Expect {
            shape: Some(&[3, 3, 3]),
            order: None,
        };
        assert!(in_chunks(good, expect, 3).unwrap().is_some());
        for (from, to) in [("2 2 2 -1", "2 2 2"), ("2 2 2 -1", "2 2 4 -1"), ("-1", "x")] {
            let bad = good.replace(from, to);
            assert!(parse_tns::<f64>(bad.as_bytes(), "t", expect).is_err());
            for size in [1, 5, 100] {
                assert_eq!(in_chunks(&bad, expect, size), Some(None), "{bad}");
            }
        }
    }
}
