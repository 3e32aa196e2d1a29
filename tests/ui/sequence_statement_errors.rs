use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn statements(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j);
        let n = y(i) * z(i);
        y(i) = a(i) * x(i);
        x(i) = y(i);
    }
}

fn main() {}
