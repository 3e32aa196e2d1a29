// from tests/ui/float_literal_in_integer_kernel.rs
pub fn scale(y: &mut Dense1<i64>, x: &Dense1<i64>) {
    y(i) = 2.5 * x(i)
}
