// sparse array programming: declared functions, cases, fills, reductions, masks
/// Greatest common divisor, with per-case bodies.
#[function(commutative, associative, identity = 0)]
#[case(gcd(x, 0) => x.abs())]
#[case(gcd(0, y) => y.abs())]
fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

#[function(iterate(x & !m))]
fn unless(x: i64, m: i64) -> i64 {
    if m != 0 { 0 } else { x }
}

#[function(commutative, associative, identity = 0, annihilator = inf)]
fn plus(a: i64, b: i64) -> i64 {
    a.saturating_add(b)
}

pub fn gcds(c: &mut SparseVec<i64>, a: &SparseVec<i64>, b: &SparseVec<i64>) {
    c(i) = gcd(a(i), b(i))
}

pub fn masked(y: &mut SparseVec<i64>, a: &Csr<i64>, x: &Dense1<i64>, m: &HashVec<i64>) {
    y(i) = unless(any[j](and(a(i, j), x(j))), m(i))
}

pub fn relax(next: &mut Dense1<i64>, #[fill(inf)] w: &Csr<i64>, d: &Dense1<i64>) {
    next(i) = min(d(i), min[j](plus(w(i, j), d(j))))
}

pub fn ufuncs(c: &mut SparseVec<i64>, #[fill(1)] a: &SparseVec<i64>, #[fill(-1)] b: &SparseVec<i64>) {
    c(i) = xor(a(i), shr(b(i), 2))
}
