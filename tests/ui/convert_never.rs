use sparse_runtime::prelude::*;

sparse_kernel! {
    // `c` is read against its storage order: the kernel would convert it on each call.
    #[schedule(convert(never))]
    pub fn plus_transpose(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) {
        a(i, j) = b(i, j) + c(j, i)
    }
    // The same with a dense output and a Csc operand.
    #[schedule(convert(never))]
    pub fn row_dots(y: &mut Dense1<f64>, a: &Csr<f64>, b: &Csc<f64>) {
        y(i) = a(i, j) * b(i, j)
    }
    // Not the directive.
    #[schedule(convert(always))]
    pub fn unknown(a: &mut Csr<f64>, b: &Csr<f64>) {
        a(i, j) = b(i, j)
    }
    // Given twice.
    #[schedule(convert(never), convert(never))]
    pub fn twice(a: &mut Csr<f64>, b: &Csr<f64>) {
        a(i, j) = b(i, j)
    }
}

fn main() {}
