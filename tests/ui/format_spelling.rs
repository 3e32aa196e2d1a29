use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn seven_levels(y: &mut f64, a: &Tensor<f64, (Dense, Dense, Dense, Dense, Dense, Dense, Dense)>) {
        y = a(i, j, k, l, m, n, o)
    }
    pub fn not_a_tuple(y: &mut f64, a: &Tensor<f64, Dense>) {
        y = a(i)
    }
    pub fn bad_index_type(y: &mut f64, a: &Csr<f64, i32>) {
        y = a(i, j)
    }
    pub fn dense_has_no_index_type(y: &mut f64, a: &Dense2<f64, u64>) {
        y = a(i, j)
    }
    pub fn dense_level_has_no_index_type(y: &mut f64, a: &Tensor<f64, (Dense<u64>,)>) {
        y = a(i)
    }
    pub fn unknown_marker(y: &mut f64, a: &Tensor<f64, (Compressed<u32, Padded>,)>) {
        y = a(i)
    }
    pub fn alias_carries_its_marker(y: &mut f64, a: &Tensor<f64, (CompressedNonUnique<u32, NonUnique>, Singleton)>) {
        y = a(i, j)
    }
    pub fn marker_without_index(y: &mut f64, a: &Tensor<f64, (Compressed<NonUnique>, Singleton)>) {
        y = a(i, j)
    }
    pub fn three_arguments(y: &mut f64, a: &Tensor<f64, (Compressed<u32, NonUnique, u32>, Singleton)>) {
        y = a(i, j)
    }
}

mod look_alike_marker {
    use sparse_runtime::prelude::{sparse_kernel, Compressed, Singleton, Tensor};
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct NonUnique;

    sparse_kernel! {
        pub fn sum(y: &mut f64, a: &Tensor<f64, (Compressed<u32, NonUnique>, Singleton)>) {
            y = a(i, j)
        }
    }
}

sparse_kernel! {
    // A padded singleton's empty positions cannot sit inside runs of a non-unique parent.
    pub fn padded_below_runs(y: &mut Dense1<f64>, a: &Tensor<f64, (CompressedNonUnique, SingletonPadded)>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

fn main() {}
