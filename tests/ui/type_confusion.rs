// A format is read from the type name the user writes; rustc must confirm it is the runtime
// type the code was generated for, whatever alias, re-export or look-alike the name resolves to.

mod shadowing_alias {
    use sparse_runtime::prelude::{sparse_kernel, Compressed, Dense, Dense1, Modes, Tensor};
    type Csr<V> = Tensor<V, (Dense, Compressed), Modes<1, 0>>;

    sparse_kernel! {
        pub fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
            y(i) = a(i, j) * x(j)
        }
    }
}

mod renamed_reexport {
    use sparse_runtime::prelude::{sparse_kernel, Dense1};
    mod m {
        pub use sparse_runtime::Csc as Csr;
    }

    sparse_kernel! {
        pub fn spmv(y: &mut Dense1<f64>, a: &m::Csr<f64>, x: &Dense1<f64>) {
            y(i) = a(i, j) * x(j)
        }
    }
}

mod look_alike_struct {
    use sparse_runtime::prelude::{sparse_kernel, Dense1};
    pub struct Csr<V>(pub Vec<V>);
    impl<V> Csr<V> {
        pub fn shape(&self) -> &[usize] {
            &[1_000_000, 1_000_000]
        }
    }

    sparse_kernel! {
        pub fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
            y(i) = a(i, j) * x(j)
        }
    }
}

mod look_alike_mode_order {
    use sparse_runtime::prelude::{sparse_kernel, Compressed, Dense, Dense1, Tensor};
    #[derive(Default, Clone, Copy, Debug)]
    pub struct Identity;

    sparse_kernel! {
        pub fn spmv(y: &mut Dense1<f64>, a: &Tensor<f64, (Dense, Compressed), Identity>, x: &Dense1<f64>) {
            y(i) = a(i, j) * x(j)
        }
    }
}

fn main() {}
