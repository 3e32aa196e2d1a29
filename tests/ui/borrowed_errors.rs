use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn write_shared_view(c: &mut Dense2View<'_, f64>, a: &Csr<f64>) {
        c(i, j) = a(i, j)
    }
    pub fn view_without_value_type(c: &mut Dense2<f64>, a: &Dense2View<'_>) {
        c(i, j) = a(i, j)
    }
    pub fn slice_as_matrix(y: &mut [f64], a: &Csr<f64>) {
        y(i, j) = a(i, j)
    }
}

fn main() {}
