//! Helpers for dense tensors, whose values are a plain row-major array.

use crate::aliases::{Dense1, Dense2, Dense3};
use crate::alloc;
use crate::level::Dense;
use crate::{Error, Tensor, Value};

/// The number of components of a dense tensor of shape `dims`.
fn dense_len(dims: &[usize]) -> Result<usize, Error> {
    dims.iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| Error::NotRepresentable {
            detail: format!("a dense tensor of shape {dims:?} has more than usize::MAX components"),
        })
}

/// Checks that `v` holds exactly the components of shape `dims`.
pub(crate) fn check_len<V>(dims: &[usize], v: &[V]) -> Result<(), Error> {
    let expected = dense_len(dims)?;
    if v.len() != expected {
        return Err(Error::LengthMismatch {
            what: "dense values",
            expected,
            found: v.len(),
        });
    }
    Ok(())
}

/// The zero components of shape `dims`, allocated fallibly; panics with a
/// message naming `what` and the shape if the size overflows `usize` or the
/// allocation fails (rather than aborting the process).
fn zero_vals<V: Value>(what: &str, dims: &[usize]) -> Vec<V> {
    dense_len(dims)
        .and_then(|len| alloc::filled(len, V::zero(), "dense values"))
        .unwrap_or_else(|e| {
            let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
            panic!("{what}({}): {e}", dims.join(", "))
        })
}

impl<V: Value> Dense1<V> {
    /// The zero vector of length `n`.
    ///
    /// # Panics
    /// If the `n` values cannot be allocated (with a message naming `n`;
    /// [`Tensor::new`] reports the same as an `Err`).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let y = Dense1::<f64>::zeros(3);
    /// assert_eq!(y.as_slice(), &[0.0, 0.0, 0.0]);
    /// ```
    pub fn zeros(n: usize) -> Self {
        Self::from_vec(zero_vals("Dense1::zeros", &[n]))
    }

    /// The vector holding `v`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let x = Dense1::from_vec(vec![1.0, 2.0]); // moved in, not copied
    /// assert_eq!((x.shape(), x.as_slice()), (&[2][..], &[1.0, 2.0][..]));
    /// ```
    pub fn from_vec(v: Vec<V>) -> Self {
        let n = v.len();
        Tensor::from_parts(&[n], (Dense::new(n),), v)
    }

    /// The components.
    pub fn as_slice(&self) -> &[V] {
        self.vals()
    }

    /// The components, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [V] {
        self.vals_mut()
    }

    /// The components, row-major, as a `Vec`: the storage itself, given back without a
    /// copy.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let v = Dense1::from_vec(vec![1.0, 2.0]);
    /// assert_eq!(v.into_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn into_vec(self) -> Vec<V> {
        self.into_parts().1
    }
}

impl<V: Value> Dense2<V> {
    /// The `rows x cols` zero matrix.
    ///
    /// # Panics
    /// If `rows * cols` overflows `usize` or the values cannot be allocated
    /// (with a message naming the shape; [`Tensor::new`] reports the same as
    /// an `Err`).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let m = Dense2::<i32>::zeros(2, 3);
    /// assert_eq!((m.shape(), m.as_slice()), (&[2, 3][..], &[0; 6][..]));
    /// ```
    pub fn zeros(rows: usize, cols: usize) -> Self {
        let v = zero_vals("Dense2::zeros", &[rows, cols]);
        Tensor::from_parts(&[rows, cols], (Dense::new(rows), Dense::new(cols)), v)
    }

    /// The `rows x cols` matrix whose row-major components are `v`;
    /// `Err(LengthMismatch)` unless `v.len() == rows * cols`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let m = Dense2::from_vec(2, 2, vec![1, 2, 3, 4])?; // rows [1 2] and [3 4]
    /// assert_eq!(m.entries()[1], (vec![0, 1], 2));
    /// assert!(Dense2::from_vec(2, 2, vec![1, 2, 3]).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_vec(rows: usize, cols: usize, v: Vec<V>) -> Result<Self, Error> {
        check_len(&[rows, cols], &v)?;
        let levels = (Dense::new(rows), Dense::new(cols));
        Ok(Tensor::from_parts(&[rows, cols], levels, v))
    }

    /// The row-major components.
    pub fn as_slice(&self) -> &[V] {
        self.vals()
    }

    /// The row-major components, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [V] {
        self.vals_mut()
    }

    /// The components, row-major, as a `Vec`: the storage itself, given back without a
    /// copy.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Dense2::from_vec(2, 2, vec![1, 2, 3, 4])?;
    /// assert_eq!(a.into_vec(), vec![1, 2, 3, 4]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn into_vec(self) -> Vec<V> {
        self.into_parts().1
    }
}

impl<V: Value> Dense3<V> {
    /// The `d0 x d1 x d2` zero tensor.
    ///
    /// # Panics
    /// If `d0 * d1 * d2` overflows `usize` or the values cannot be allocated
    /// (with a message naming the shape; [`Tensor::new`] reports the same as
    /// an `Err`).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let t = Dense3::<f64>::zeros(2, 1, 3);
    /// assert_eq!((t.shape(), t.as_slice().len()), (&[2, 1, 3][..], 6));
    /// ```
    pub fn zeros(d0: usize, d1: usize, d2: usize) -> Self {
        let v = zero_vals("Dense3::zeros", &[d0, d1, d2]);
        let levels = (Dense::new(d0), Dense::new(d1), Dense::new(d2));
        Tensor::from_parts(&[d0, d1, d2], levels, v)
    }

    /// The `d0 x d1 x d2` tensor whose row-major components are `v`;
    /// `Err(LengthMismatch)` unless `v.len() == d0 * d1 * d2`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let t = Dense3::from_vec(2, 1, 2, vec![1, 2, 3, 4])?;
    /// assert_eq!(t.entries()[2], (vec![1, 0, 0], 3));
    /// assert!(Dense3::from_vec(2, 2, 2, vec![0; 7]).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_vec(d0: usize, d1: usize, d2: usize, v: Vec<V>) -> Result<Self, Error> {
        check_len(&[d0, d1, d2], &v)?;
        let levels = (Dense::new(d0), Dense::new(d1), Dense::new(d2));
        Ok(Tensor::from_parts(&[d0, d1, d2], levels, v))
    }

    /// The row-major components.
    pub fn as_slice(&self) -> &[V] {
        self.vals()
    }

    /// The row-major components, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [V] {
        self.vals_mut()
    }

    /// The components, row-major, as a `Vec`: the storage itself, given back without a
    /// copy.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let t = Dense3::from_vec(1, 2, 1, vec![5, 6])?;
    /// assert_eq!(t.into_vec(), vec![5, 6]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn into_vec(self) -> Vec<V> {
        self.into_parts().1
    }
}
