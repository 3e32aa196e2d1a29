//! Outputs whose old contents a kernel reads: `y(i) = a(i, j) * y(j)` reads every component
//! of `y` as it was before the call, and `c(i, j) += e` into an appended sparse output is
//! `c = c_old + e`. The old contents move into a value of the output's format that every such
//! read names, and the output starts as the zero tensor of its shape. An [`Update`] guard
//! holds them for the call: if the kernel returns an error or panics, dropping the guard puts
//! them back, so neither loses anything; only a kernel that finishes keeps its result.

use crate::error::Error;
use crate::tensor::Tensor;
use crate::value::Value;

/// An output a kernel can update: its old contents can move out and back.
#[doc(hidden)]
pub trait Updated {
    /// The old contents.
    type Old;
    /// Moves the old contents out, leaving the zero tensor of the output's shape (with the
    /// output's fill value); `Err` (and the output unchanged) if that cannot be allocated.
    fn take_old(&mut self) -> Result<Self::Old, Error>;
    /// Puts the old contents back.
    fn restore(&mut self, old: Self::Old);
}

impl<V: Value, L: crate::Levels, O: crate::ModeOrder> Updated for Tensor<V, L, O> {
    type Old = Tensor<V, L, O>;

    /// The output left behind keeps its fill value (a sparse output is then empty, every
    /// component its fill value).
    fn take_old(&mut self) -> Result<Self::Old, Error> {
        let empty = Tensor::new(self.shape())?.with_fill(self.fill());
        Ok(std::mem::replace(self, empty))
    }

    fn restore(&mut self, old: Self::Old) {
        *self = old;
    }
}

/// The old contents of an output during a kernel call; see the [module](self).
#[doc(hidden)]
pub struct Update<'a, T: Updated + ?Sized> {
    output: &'a mut T,
    /// `None` once the kernel finished and the output keeps its new contents.
    old: Option<T::Old>,
}

impl<'a, T: Updated + ?Sized> Update<'a, T> {
    /// Moves `output`'s old contents into the guard.
    pub fn take(output: &'a mut T) -> Result<Self, Error> {
        let old = output.take_old()?;
        Ok(Update {
            output,
            old: Some(old),
        })
    }

    /// The output, to write, and its old contents, to read.
    pub fn parts(&mut self) -> (&mut T, &T::Old) {
        // `keep` consumes the guard, so the old contents are here whenever this can be called.
        let old = self
            .old
            .as_ref()
            .expect("an update guard holds the old contents until it is kept");
        (&mut *self.output, old)
    }

    /// The kernel finished: the output keeps its new contents.
    pub fn keep(mut self) {
        self.old = None;
    }
}

impl<T: Updated + ?Sized> Drop for Update<'_, T> {
    fn drop(&mut self) {
        if let Some(old) = self.old.take() {
            self.output.restore(old);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Dense;

    fn vector(v: Vec<f64>) -> Tensor<f64, (Dense,)> {
        let n = v.len();
        Tensor::from_levels(&[n], (Dense::new(n),), v).unwrap()
    }

    #[test]
    fn a_kept_update_keeps_the_new_contents() {
        let mut t = vector(vec![4.0, 5.0]);
        let mut guard = Update::take(&mut t).unwrap();
        let (out, old) = guard.parts();
        assert_eq!((old.vals(), out.vals()), (&[4.0, 5.0][..], &[0.0; 2][..]));
        out.vals_mut()[0] = 1.0;
        guard.keep();
        assert_eq!(t.vals(), [1.0, 0.0]);
    }

    #[test]
    fn an_update_keeps_the_fill_value_on_both_sides() {
        let mut t = vector(vec![4.0, 5.0]).with_fill(f64::INFINITY);
        let mut guard = Update::take(&mut t).unwrap();
        let (out, old) = guard.parts();
        assert_eq!((out.fill(), old.fill()), (f64::INFINITY, f64::INFINITY));
        drop(guard);
        assert_eq!((t.vals(), t.fill()), (&[4.0, 5.0][..], f64::INFINITY));
    }

    #[test]
    fn an_abandoned_or_unwound_update_restores_the_old_contents() {
        let mut t = vector(vec![4.0, 5.0]);
        let mut guard = Update::take(&mut t).unwrap();
        guard.parts().0.vals_mut()[1] = 9.0;
        drop(guard);
        assert_eq!(t.vals(), [4.0, 5.0]);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut guard = Update::take(&mut t).unwrap();
            guard.parts().0.vals_mut()[1] = 9.0;
            panic!("a kernel's arithmetic panicked");
        }));
        assert!(unwound.is_err());
        assert_eq!(t.vals(), [4.0, 5.0]);
    }
}
