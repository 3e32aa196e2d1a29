//! Asks the compiler and the oracle about one kernel given as source (a function item):
//! `cargo run -p sparse-difftest-gen --example verdict -- 'fn k(y: &mut Dense1<f64>, ..) { .. }'`.

fn main() {
    let src = std::env::args()
        .nth(1)
        .expect("a kernel function as one argument");
    let item: syn::ItemFn = syn::parse_str(&src).expect("a function item");
    match sparse_core::compile(&item) {
        Ok(c) => match c.workspace {
            Some(w) => println!(
                "compiler: accepted, through a {} workspace from output level {} (outer loops {}, orders {:?})",
                w.kind.name(),
                w.level,
                w.outer.len(),
                c.orders
            ),
            None => println!("compiler: accepted, orders {:?}", c.orders),
        },
        Err(e) => {
            for m in e {
                println!("compiler: {m}");
            }
        }
    }
}
