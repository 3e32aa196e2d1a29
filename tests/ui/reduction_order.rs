use sparse_runtime::prelude::*;

sparse_kernel! {
    /// A reduction is folded inside the loops of the variables around it: `j` cannot run
    /// outside `i`.
    #[schedule(order(j, i), convert(never))]
    pub fn pull(next: &mut Dense1<u8>, gt: &Csr<u8>, f: &SparseVec<u8>) {
        next(i) = any[j](and(f(j), gt(j, i)))
    }
}

fn main() {}
