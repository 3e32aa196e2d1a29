//! Dense tensors over values the caller owns: [`Dense2View`] and [`Dense3View`] borrow a
//! row-major slice shared, [`Dense2ViewMut`] and [`Dense3ViewMut`] mutably. Kernels take them
//! like `Dense2` and `Dense3` (`b: &Dense2View<'_, f64>` as an input, `c: &mut
//! Dense2ViewMut<'_, f64>` as an output) and read or write the slice in place, without a copy.
//! A dense vector needs no view: a kernel takes a slice (`x: &[f64]`), which the generated
//! code wraps on entry in a [`Dense1View`] or [`Dense1ViewMut`] over the whole slice.
//!
//! A view's shape is checked against its slice's length when it is made, and never changes,
//! so the invariant kernels rely on (every position below the shape's product holds a value)
//! holds for its whole life.

use crate::dense::check_len;
use crate::error::Error;
use crate::level::Dense;
use crate::tensor::Tensor;
use crate::update::Updated;
use crate::value::Value;

macro_rules! dense_views {
    ($order:literal, $view:ident, $view_mut:ident, $owned:literal, ($($level:ident),+ $(,)?), $example:literal) => {
        #[doc = concat!("A row-major ", $owned, " over values the caller owns, borrowed shared: a kernel takes `&", stringify!($view), "<'_, V>` as an input, reading the values in place. The shape is checked against the slice's length when the view is made.")]
        ///
        /// ```
        /// use sparse_runtime::prelude::*;
        ///
        #[doc = $example]
        /// # Ok::<(), sparse_runtime::Error>(())
        /// ```
        #[derive(Clone, Copy, Debug)]
        pub struct $view<'a, V> {
            shape: [usize; $order],
            levels: ($($level,)+),
            vals: &'a [V],
        }

        #[doc = concat!("A row-major ", $owned, " over values the caller owns, borrowed mutably: a kernel takes `&mut ", stringify!($view_mut), "<'_, V>` as an output (or `&` as an input), writing the values in place. The shape is checked against the slice's length when the view is made.")]
        #[derive(Debug)]
        pub struct $view_mut<'a, V> {
            shape: [usize; $order],
            levels: ($($level,)+),
            vals: &'a mut [V],
        }

        impl<'a, V: Value> $view<'a, V> {
            /// The view of `vals`, row-major, as a tensor of `shape`; `Err(LengthMismatch)`
            /// unless `vals` holds exactly the shape's number of components.
            pub fn new(shape: [usize; $order], vals: &'a [V]) -> Result<Self, Error> {
                check_len(&shape, vals)?;
                Ok($view { shape, levels: levels(shape), vals })
            }

            /// The logical shape.
            #[inline]
            pub fn shape(&self) -> &[usize] {
                &self.shape
            }

            /// The dense levels (each the size of its mode).
            #[inline]
            pub fn levels(&self) -> &($($level,)+) {
                &self.levels
            }

            /// The components, row-major.
            #[inline]
            pub fn vals(&self) -> &'a [V] {
                self.vals
            }
        }

        impl<'a, V: Value> $view_mut<'a, V> {
            /// The view of `vals`, row-major, as a tensor of `shape`; `Err(LengthMismatch)`
            /// unless `vals` holds exactly the shape's number of components.
            pub fn new(shape: [usize; $order], vals: &'a mut [V]) -> Result<Self, Error> {
                check_len(&shape, vals)?;
                Ok($view_mut { shape, levels: levels(shape), vals })
            }

            /// The logical shape.
            #[inline]
            pub fn shape(&self) -> &[usize] {
                &self.shape
            }

            /// The dense levels (each the size of its mode).
            #[inline]
            pub fn levels(&self) -> &($($level,)+) {
                &self.levels
            }

            /// The components, row-major.
            #[inline]
            pub fn vals(&self) -> &[V] {
                self.vals
            }

            /// The components, row-major, to write.
            #[inline]
            pub fn vals_mut(&mut self) -> &mut [V] {
                self.vals
            }
        }

        /// An output whose old contents a kernel reads: they are copied out (the values
        /// cannot move), the view is zeroed, and the copy is written back if the kernel fails.
        impl<V: Value> Updated for $view_mut<'_, V> {
            type Old = Tensor<V, ($($level,)+)>;

            fn take_old(&mut self) -> Result<Self::Old, Error> {
                let old = Tensor::from_levels(&self.shape, self.levels, self.vals.to_vec())?;
                self.vals.fill(V::zero());
                Ok(old)
            }

            fn restore(&mut self, old: Self::Old) {
                self.vals.copy_from_slice(old.vals());
            }
        }
    };
}

/// The dense level of each mode of `shape`.
trait DenseLevels<const N: usize> {
    fn make(shape: [usize; N]) -> Self;
}

impl DenseLevels<1> for (Dense,) {
    fn make([n]: [usize; 1]) -> Self {
        (Dense::new(n),)
    }
}

impl DenseLevels<2> for (Dense, Dense) {
    fn make([m, n]: [usize; 2]) -> Self {
        (Dense::new(m), Dense::new(n))
    }
}

impl DenseLevels<3> for (Dense, Dense, Dense) {
    fn make([a, b, c]: [usize; 3]) -> Self {
        (Dense::new(a), Dense::new(b), Dense::new(c))
    }
}

fn levels<L: DenseLevels<N>, const N: usize>(shape: [usize; N]) -> L {
    L::make(shape)
}

dense_views!(
    1,
    Dense1View,
    Dense1ViewMut,
    "vector",
    (Dense,),
    "let data = vec![1.0, 2.0];\nlet x = Dense1View::new([2], &data)?;\nassert_eq!(x.vals(), &[1.0, 2.0]);"
);
dense_views!(
    2,
    Dense2View,
    Dense2ViewMut,
    "matrix",
    (Dense, Dense),
    "let data = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];\nlet b = Dense2View::new([2, 3], &data)?;\nassert_eq!((b.shape(), b.vals()[5]), (&[2, 3][..], 6.0));\nassert!(Dense2View::new([4, 4], &data).is_err());"
);
dense_views!(
    3,
    Dense3View,
    Dense3ViewMut,
    "3-tensor",
    (Dense, Dense, Dense),
    "let data = vec![0.0; 24];\nlet b = Dense3View::new([2, 3, 4], &data)?;\nassert_eq!(b.shape(), &[2, 3, 4]);"
);

impl<'a, V: Value> Dense1View<'a, V> {
    /// The whole slice as a vector of its length (what a kernel's `&[V]` parameter is).
    pub fn from_slice(vals: &'a [V]) -> Self {
        Dense1View {
            shape: [vals.len()],
            levels: levels([vals.len()]),
            vals,
        }
    }
}

impl<'a, V: Value> Dense1ViewMut<'a, V> {
    /// The whole slice as a vector of its length (what a kernel's `&mut [V]` parameter is).
    pub fn from_slice(vals: &'a mut [V]) -> Self {
        let n = vals.len();
        Dense1ViewMut {
            shape: [n],
            levels: levels([n]),
            vals,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::update::Update;

    #[test]
    fn a_mutable_view_moves_its_old_contents_out_and_back() {
        let mut data = vec![1, 2, 3, 4, 5, 6];
        let mut c = Dense2ViewMut::new([3, 2], &mut data).unwrap();
        assert_eq!((c.levels().0.size(), c.levels().1.size()), (3, 2));
        let mut guard = Update::take(&mut c).unwrap();
        let (new, old) = guard.parts();
        assert_eq!(
            (old.vals(), new.vals()),
            (&[1, 2, 3, 4, 5, 6][..], &[0; 6][..])
        );
        new.vals_mut()[0] = 9;
        drop(guard);
        assert_eq!(data, [1, 2, 3, 4, 5, 6]);
        assert!(Dense3ViewMut::new([1, 2, 4], &mut data).is_err());
        assert!(Dense2View::new([usize::MAX, 2], &data).is_err());
    }

    #[test]
    fn a_slice_is_a_vector_of_its_length() {
        let mut data = vec![1.0, 2.0, 3.0];
        let mut out = Dense1ViewMut::from_slice(&mut data);
        assert_eq!((out.shape(), out.levels().0.size()), (&[3][..], 3));
        let mut guard = Update::take(&mut out).unwrap();
        let (new, old) = guard.parts();
        assert_eq!(
            (old.vals(), new.vals()),
            (&[1.0, 2.0, 3.0][..], &[0.0; 3][..])
        );
        new.vals_mut()[1] = 9.0;
        drop(guard);
        assert_eq!(data, [1.0, 2.0, 3.0]);
        let empty: &[f64] = &[];
        let view = Dense1View::from_slice(empty);
        assert_eq!((view.shape(), view.vals().len()), (&[0][..], 0));
    }
}
