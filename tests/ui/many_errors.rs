use sparse_runtime::prelude::*;

// Every diagnostic of a kernel is reported together, and callers see no cascade.
sparse_kernel! {
    pub fn broken(y: &mut Dense1<f64>, a: &Csr<f64>) {
        y(i) = a(i) * q(i) % 2.0
    }
}

fn main() {
    let a = Csr::<f64>::new(&[2, 2]).unwrap();
    let mut y = Dense1::zeros(2);
    let _ = broken(&mut y, &a);
}
