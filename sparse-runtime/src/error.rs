//! The error type of every fallible runtime operation.

use std::fmt;

/// Why a tensor could not be built, validated or used by a kernel.
///
/// Every variant carries the numbers involved so that the message alone is
/// enough to find the offending input.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A kernel's operands have incompatible shapes (raised by generated code).
    DimensionMismatch {
        /// Name of the kernel function.
        kernel: &'static str,
        /// Which dimensions disagree, as a sentence.
        detail: String,
    },
    /// A coordinate lies outside the tensor's shape.
    CoordinateOutOfBounds {
        /// The offending logical coordinate.
        coordinate: Vec<usize>,
        /// The tensor's logical shape.
        shape: Vec<usize>,
    },
    /// A coordinate or shape has the wrong number of modes.
    OrderMismatch {
        /// Number of modes the tensor has.
        expected: usize,
        /// Number of modes that were given.
        found: usize,
    },
    /// A size, coordinate or position does not fit a level's index type.
    IndexOverflow {
        /// Name of the index type (`"u32"`, ...).
        index_type: &'static str,
        /// The value that does not fit.
        value: usize,
    },
    /// Raw level arrays break a structural invariant.
    InvalidLevel {
        /// Storage level (0 = outermost); a standalone `from_raw` reports 0.
        level: usize,
        /// The broken invariant, as a sentence.
        detail: String,
    },
    /// An array has the wrong length.
    LengthMismatch {
        /// Which array.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        found: usize,
    },
    /// The entries cannot be stored in the requested format.
    NotRepresentable {
        /// Why, as a sentence.
        detail: String,
    },
    /// A kernel's compute-only variant was called with an output whose pattern it did not
    /// assemble for these operands' patterns (raised by generated code): computing only its
    /// values would store them at the wrong coordinates.
    NotAssembled {
        /// Name of the compute-only function.
        kernel: &'static str,
        /// Name of the kernel that assembles the pattern.
        assembler: &'static str,
    },
    /// A `Modes<...>` mode order is not a permutation of the tensor's modes.
    InvalidModeOrder {
        /// Number of modes of the tensor.
        order: usize,
        /// What is wrong with the mode order.
        detail: String,
    },
    /// A file being read (Matrix Market, FROSTT `.tns`) is malformed, or holds a value
    /// the tensor's value type cannot represent (see [`crate::io`]).
    Parse {
        /// The file's path, or the name given for in-memory data.
        file: String,
        /// The 1-based line of the defect (the last line for a file that ends early).
        line: usize,
        /// What was expected and what was found, as a sentence.
        detail: String,
    },
    /// A kernel's operand has a fill value other than the one the kernel was compiled for
    /// (raised by generated code): the kernel's loops skip the components the operand does
    /// not store on the assumption that they hold the declared fill value, so running it
    /// would give wrong values. See [`Tensor::fill`](crate::Tensor::fill).
    FillMismatch {
        /// Name of the operand (the kernel's parameter).
        tensor: &'static str,
        /// The fill value the kernel was compiled for, as written by `{:?}`.
        declared: String,
        /// The operand's fill value, as written by `{:?}`.
        found: String,
    },
    /// Reading or writing a file failed in the operating system (see [`crate::io`]).
    Io {
        /// The file's path, or the name given for in-memory data.
        file: String,
        /// The kind of the underlying [`std::io::Error`].
        kind: std::io::ErrorKind,
        /// The underlying error's message.
        message: String,
    },
}

impl Error {
    /// A kernel's operand shapes disagree. Generated kernels call this.
    ///
    /// ```
    /// use sparse_runtime::Error;
    ///
    /// let e = Error::dimension_mismatch("spmv", "a has 3 columns but x has 4 rows".into());
    /// assert_eq!(e.to_string(), "kernel `spmv`: a has 3 columns but x has 4 rows");
    /// ```
    pub fn dimension_mismatch(kernel: &'static str, detail: String) -> Error {
        Error::DimensionMismatch { kernel, detail }
    }

    /// An operand's fill value is not the one a kernel was compiled for. Generated kernels
    /// call this (through `__private::fill_mismatch`); both values are written with `{:?}`.
    ///
    /// ```
    /// use sparse_runtime::Error;
    ///
    /// let e = Error::fill_mismatch("a", f64::INFINITY, 3.0);
    /// assert_eq!(
    ///     e.to_string(),
    ///     "operand `a` has fill value 3.0, but the kernel was compiled for fill value inf; \
    ///      build it with `.with_fill(..)` or declare `#[fill(..)]` to match"
    /// );
    /// ```
    pub fn fill_mismatch<V: fmt::Debug>(tensor: &'static str, declared: V, found: V) -> Error {
        Error::FillMismatch {
            tensor,
            declared: format!("{declared:?}"),
            found: format!("{found:?}"),
        }
    }

    /// Shorthand for [`Error::InvalidLevel`].
    pub(crate) fn invalid_level(level: usize, detail: String) -> Error {
        Error::InvalidLevel { level, detail }
    }

    /// Shorthand for [`Error::IndexOverflow`] for index type `I`.
    pub(crate) fn overflow<I: crate::Index>(value: usize) -> Error {
        Error::IndexOverflow {
            index_type: I::NAME,
            value,
        }
    }

    /// Re-tags an [`Error::InvalidLevel`] with the storage level it came from.
    ///
    /// `from_raw` does not know where its level will sit in a tensor, so
    /// callers that do know rewrite the level number.
    pub(crate) fn at_level(self, level: usize) -> Error {
        match self {
            Error::InvalidLevel { detail, .. } => Error::InvalidLevel { level, detail },
            other => other,
        }
    }
}

/// [`Error::fill_mismatch`] as a free function: what generated kernels call, by the path
/// `::sparse_runtime::__private::fill_mismatch`, when an operand's fill value is not the
/// declared one.
#[doc(hidden)]
pub fn fill_mismatch<V: fmt::Debug>(tensor: &'static str, declared: V, found: V) -> Error {
    Error::fill_mismatch(tensor, declared, found)
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DimensionMismatch { kernel, detail } => write!(f, "kernel `{kernel}`: {detail}"),
            Error::CoordinateOutOfBounds { coordinate, shape } => {
                write!(
                    f,
                    "coordinate {coordinate:?} is out of bounds for shape {shape:?}"
                )
            }
            Error::OrderMismatch { expected, found } => write!(
                f,
                "expected {expected} modes (one per level) but a shape or coordinate has {found}"
            ),
            Error::IndexOverflow { index_type, value } => {
                write!(f, "{value} does not fit the level index type {index_type}")?;
                match *index_type {
                    "usize" | "u64" => Ok(()),
                    _ => write!(
                        f,
                        "; use a wider index type (`Csr<f64, u64>`, `Compressed<u64>`: the \
                         index type is the format's second parameter)"
                    ),
                }
            }
            Error::InvalidLevel { level, detail } => {
                write!(f, "level {level} is invalid: {detail}")
            }
            Error::LengthMismatch {
                what,
                expected,
                found,
            } => write!(
                f,
                "{what} has length {found} but must have length {expected}"
            ),
            Error::NotRepresentable { detail } => {
                write!(f, "the entries cannot be stored in this format: {detail}")
            }
            Error::NotAssembled { kernel, assembler } => write!(
                f,
                "kernel `{kernel}` computes the values of an output whose pattern `{assembler}` assembled for the same operands, but this output was not (or an operand's pattern has changed since): call `{assembler}` first"
            ),
            Error::InvalidModeOrder { order, detail } => {
                write!(
                    f,
                    "invalid mode order for a tensor with {order} modes: {detail}"
                )
            }
            Error::FillMismatch {
                tensor,
                declared,
                found,
            } => write!(
                f,
                "operand `{tensor}` has fill value {found}, but the kernel was compiled for fill value {declared}; build it with `.with_fill(..)` or declare `#[fill(..)]` to match"
            ),
            Error::Parse { file, line, detail } => write!(f, "{file}:{line}: {detail}"),
            Error::Io { file, message, .. } => write!(f, "{file}: {message}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn messages_name_the_numbers() {
        let e = Error::dimension_mismatch("spmv", "A has 3 columns but x has 4 rows".into());
        assert_eq!(
            e.to_string(),
            "kernel `spmv`: A has 3 columns but x has 4 rows"
        );
        let e = Error::CoordinateOutOfBounds {
            coordinate: vec![1, 5],
            shape: vec![2, 5],
        };
        assert_eq!(
            e.to_string(),
            "coordinate [1, 5] is out of bounds for shape [2, 5]"
        );
        let e = Error::overflow::<u32>(1 << 33);
        assert_eq!(
            e.to_string(),
            "8589934592 does not fit the level index type u32; use a wider index type \
             (`Csr<f64, u64>`, `Compressed<u64>`: the index type is the format's second parameter)"
        );
        assert_eq!(
            Error::overflow::<usize>(7).to_string(),
            "7 does not fit the level index type usize"
        );
        let e = Error::LengthMismatch {
            what: "vals",
            expected: 3,
            found: 2,
        };
        assert_eq!(e.to_string(), "vals has length 2 but must have length 3");
        let e = Error::OrderMismatch {
            expected: 2,
            found: 3,
        };
        assert!(e.to_string().contains("expected 2 modes"));
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e.clone());
        assert_eq!(boxed.to_string(), e.to_string());
    }

    #[test]
    fn fill_mismatch_names_the_operand_and_both_fills() {
        let e = Error::fill_mismatch("dist", f64::INFINITY, 0.0);
        assert_eq!(
            e,
            Error::FillMismatch {
                tensor: "dist",
                declared: "inf".into(),
                found: "0.0".into(),
            }
        );
        assert_eq!(
            e.to_string(),
            "operand `dist` has fill value 0.0, but the kernel was compiled for fill value inf; \
             build it with `.with_fill(..)` or declare `#[fill(..)]` to match"
        );
        assert_eq!(
            crate::__private::fill_mismatch("b", i32::MAX, -1),
            Error::fill_mismatch("b", i32::MAX, -1)
        );
        let nan = Error::fill_mismatch("x", 0.0f32, f32::NAN).to_string();
        assert!(nan.starts_with(
            "operand `x` has fill value NaN, but the kernel was compiled for fill value 0.0;"
        ));
    }

    #[test]
    fn at_level_rewrites_only_invalid_level() {
        let e = Error::invalid_level(0, "pos[0] is 1, not 0".into()).at_level(3);
        assert_eq!(e, Error::invalid_level(3, "pos[0] is 1, not 0".into()));
        assert_eq!(e.to_string(), "level 3 is invalid: pos[0] is 1, not 0");
        let other = Error::overflow::<u64>(1).at_level(2);
        assert_eq!(other, Error::overflow::<u64>(1));
    }
}
