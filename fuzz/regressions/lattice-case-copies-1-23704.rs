pub fn kernel0(y: &mut Dense2<isize>, a: &SparseVec<isize>, b: &Dense1<isize>, c: &Dense1<isize>, d: &Csf3<isize>) {
    y(p, l) = (((b(i)) + (a(k) + (((a(m) * (b(l))) * ((-(d(l, k, n)) * 7) * a(p))) - ((d(p, n, i)) + (a(p)))))) + (a(m) + (-(c(n) * a(n)) * (((a(k)) * b(m)) * a(l)))));
}
