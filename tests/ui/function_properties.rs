use sparse_runtime::prelude::*;

sparse_kernel! {
    // Contradictory: 0 cannot be both the identity and the annihilator.
    #[function(identity = 0, annihilator = 0)]
    fn both(a: f64, b: f64) -> f64 { a + b }

    // Commutative, but the identity differs between the parameters.
    #[function(commutative, identity(a) = 0, identity(b) = 1)]
    fn lopsided(a: f64, b: f64) -> f64 { a * b }

    // Binary properties of a function of one argument.
    #[function(associative)]
    fn unary(a: f64) -> f64 { a }

    // A region that holds where nothing is stored.
    #[function(iterate(!a))]
    fn everywhere(a: f64, b: f64) -> f64 { a - b }

    // Not a parameter; not a property.
    #[function(identity(c) = 0, distributive)]
    fn names(a: f64, b: f64) -> f64 { a / b }

    #[function(commutative)]
    unsafe fn hidden(a: f64, b: f64) -> f64 { a + b }

    #[function(annihilator = 0)]
    #[case(cased(x) => x)]
    fn cased(a: f64) -> f64 { a }
}

fn main() {}
