//! Files: Matrix Market (`.mtx`) and FROSTT (`.tns`), into and out of any format.
//!
//! The [`io`](crate::io) module reads both formats into any format, chosen by the type you
//! ask for (every [`Tensor`](crate::Tensor), and [`Dia`](crate::Dia),
//! [`Bcsr`](crate::Bcsr), [`Csb`](crate::Csb), [`CooAos`](crate::CooAos)), and writes any of
//! them:
//!
//! | function | reads or writes |
//! |---|---|
//! | [`read_matrix_market`](crate::io::read_matrix_market), [`read_matrix_market_from`](crate::io::read_matrix_market_from) | a `.mtx` file, or any `std::io::Read` (the name is for messages) |
//! | [`write_matrix_market`](crate::io::write_matrix_market), [`write_matrix_market_to`](crate::io::write_matrix_market_to), [`write_matrix_market_with`](crate::io::write_matrix_market_with) | a matrix, as `array` if its format is dense, else `coordinate` (or the [`Layout`](crate::io::Layout) given) |
//! | [`read_tns`](crate::io::read_tns), [`read_tns_from`](crate::io::read_tns_from) | a `.tns` file of any order, each mode's size the largest index in it |
//! | [`read_tns_with_shape`](crate::io::read_tns_with_shape), [`read_tns_with_shape_from`](crate::io::read_tns_with_shape_from) | the same with the shape given (trailing empty slices kept) |
//! | [`write_tns`](crate::io::write_tns), [`write_tns_to`](crate::io::write_tns_to) | a tensor of any order, one line per stored entry |
//!
//! Matrix Market `coordinate` and `array` files with the fields `real`, `double`, `integer`
//! and `pattern` are read, with every symmetry (symmetric files are expanded: the mirrored
//! entries are stored). Values are parsed by the value type itself, so `1.5` into an `i32`
//! is an error, and written in the shortest form that reads back to the same bits.
//! Repeated coordinates are summed. A malformed file is an
//! [`Error::Parse`](crate::Error::Parse) naming the file, the line and what was expected;
//! nothing is built, and no input makes a reader panic. Large files are parsed on every
//! core, in chunks, never held in memory whole.
//!
//! ```
//! use sparse_runtime::io;
//! use sparse_runtime::prelude::*;
//!
//! // A symmetric pattern file: the lower triangle, every value one.
//! let text = "%%MatrixMarket matrix coordinate pattern symmetric\n\
//!             % a path graph on 3 vertices\n\
//!             3 3 2\n\
//!             2 1\n\
//!             3 2\n";
//! let a: Csr<f64> = io::read_matrix_market_from(text.as_bytes(), "path.mtx")?;
//! assert_eq!(a.nnz(), 4);
//! assert_eq!(a.row(1), Some((&[0u32, 2][..], &[1.0, 1.0][..])));
//!
//! // Written out and read back in another format.
//! let mut file = Vec::new();
//! io::write_matrix_market_to(&mut file, &a)?;
//! let b: Dia<f64> = io::read_matrix_market_from(&file[..], "written.mtx")?;
//! assert_eq!(b.offsets(), &[-1, 1]);
//!
//! // A FROSTT tensor: 1-based indices, then the value.
//! let t = Csf3::<i64>::from_entries(&[2, 2, 3], [([0, 1, 2], 7), ([1, 0, 0], -1)])?;
//! let mut file = Vec::new();
//! io::write_tns_to(&mut file, &t)?;
//! assert_eq!(String::from_utf8(file.clone()).unwrap(), "1 2 3 7\n2 1 1 -1\n");
//! let u: Coo3<i64> = io::read_tns_from(&file[..], "t.tns")?;
//! assert_eq!(u.entries(), t.entries());
//!
//! // Errors name the file and the line.
//! let bad = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 2.5\n";
//! let err = io::read_matrix_market_from::<Csr<i32>>(bad.as_bytes(), "bad.mtx").unwrap_err();
//! assert!(matches!(err, Error::Parse { line: 3, .. }));
//! assert!(err.to_string().starts_with("bad.mtx:3: "));
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! To read into a type of your own, implement [`FromEntries`](crate::io::FromEntries) (the
//! readers hand it an [`Entries`](crate::io::Entries) list); to write one, implement
//! [`ToEntries`](crate::io::ToEntries).
