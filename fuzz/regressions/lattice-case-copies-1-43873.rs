pub fn kernel0(y: &mut Tensor<u8, (CompressedNonUnique, Singleton, Dense), Modes<1, 0, 2>>, a: &Csc<u8, u16>, b: &mut Tensor<u8, (Dense, Singleton)>, c: &Tensor<u8, (Dense, CompressedNonUnique, Singleton, Dense, Singleton, Dense)>) {
    y(j, k, l) = ((c(k, i, l, n, q, j)) * b(q, l))
}

pub fn kernel1(y: &mut Tensor<f64, (Compressed, Dense, Compressed, SingletonNonUnique, Singleton, Compressed), Modes<0, 1, 2, 3, 4, 5>>, a: &Tensor<f64, (CompressedNonUnique, Singleton, CompressedNonUnique, Singleton), Modes<0, 1, 2, 3>>, b: &Tensor<f64, (Dense, CompressedNonUnique, Singleton, Singleton), Modes<3, 0, 2, 1>>, c: &Tensor<f64, (Compressed, CompressedNonUnique, SingletonNonUnique, Singleton), Modes<0, 1, 2, 3>>, alpha: f64, beta: f64) {
    y(j, l, i, n, k, m) = 1e308;
}

pub fn kernel2(b: &Dcsr<i16, u64>, a: &Csc<i16, u16>, y: &mut Tensor<i16, (Dense,), Modes<0>>) {
    y(j) = (a(k, j) - a(j, k));
}

fn kernel3(out: &mut u64, a: &Tensor<u64, (CompressedNonUnique, SingletonNonUnique, Singleton), Modes<0, 2, 1>>, b: &Coo<u64>, alpha: u64) {
    out = alpha
}

pub fn kernel4(y: &mut Csf3<i32>, a: &Csf3<i32>, b: &Csr<i32>) {
    y(i, k, j) = (-(b(i, j) * ((-(2) * a(k, i, j)) + b(j, i))) + (b(j, i) * (2 * (b(i, j) + -(b(j, i))))));
}

pub fn kernel5(out: &mut f64, a: &Tensor<f64, (Compressed, Singleton), Modes<0, 1>>, b: &Tensor<f64, (CompressedNonUnique, Singleton)>) {
    out += ((b(i, k)) * (((-(b(l, i)) + (b(n, k) - (b(n, j) - (a(j, i))))) - (a(k, m))) + (b(l, m))));
}

fn kernel6(a: &Dcsr<isize>, y: &mut Tensor<isize, (Compressed, Compressed)>, b: &Tensor<isize, (Dense)>) {
    y(j, i) = (((a(i, j) + b(j)) + (7)) + (a(i, j) * (-(a(j, i)) * b(j))))
}
