//! Asks the compiler about one kernel given as source: a function item, or a block of items as
//! inside `sparse_kernel! { .. }` (functions declared with `#[function(..)]`, then the kernel):
//! `cargo run -p sparse-difftest-gen --example verdict -- 'fn k(y: &mut Dense1<f64>, ..) { .. }'`.

fn main() {
    let src = std::env::args()
        .nth(1)
        .expect("a kernel function (or a block of items) as one argument");
    let file: syn::File = syn::parse_str(&src).expect("function items");
    let mut functions = Vec::new();
    let mut kernel = None;
    for item in file.items {
        let syn::Item::Fn(f) = item else {
            panic!("only function items")
        };
        if sparse_core::algebra::is_declaration(&f.attrs) {
            let mut diags = sparse_core::diagnostic::Diagnostics::default();
            let (declared, _) = sparse_core::algebra::declare(&f, &mut diags);
            if let Some(e) = diags.into_error() {
                for m in e {
                    println!("compiler: in the declaration of `{}`: {m}", f.sig.ident);
                }
            }
            functions.extend(declared);
        } else {
            kernel = Some(f);
        }
    }
    let item = kernel.expect("a kernel function");
    match sparse_core::compile_with(&item, &functions) {
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
