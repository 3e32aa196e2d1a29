//! Prints the code `sparse_kernel!` generates for a kernel given as source, formatted:
//! `cargo run -p sparse-core --example expand -- 'fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }'`.
//! A rejected kernel prints its `compile_error!` invocations.

fn main() {
    let Some(src) = std::env::args().nth(1) else {
        eprintln!("usage: expand 'fn name(params) {{ statement }}'");
        std::process::exit(2);
    };
    let tokens: proc_macro2::TokenStream = match src.parse() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("the kernel does not tokenize: {e}");
            std::process::exit(2);
        }
    };
    let out = sparse_core::expand(tokens);
    match syn::parse2::<syn::File>(out.clone()) {
        Ok(file) => print!("{}", prettyplease::unparse(&file)),
        Err(_) => println!("{out}"),
    }
}
