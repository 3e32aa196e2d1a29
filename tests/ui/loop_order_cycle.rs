use sparse_runtime::prelude::*;

sparse_kernel! {
    // One operand read in both orders: converting it cannot help.
    pub fn mul_own_transpose(a: &mut Csr<f64>, b: &Csr<f64>) {
        a(i, j) = b(i, j) * b(j, i)
    }
}

fn main() {}
