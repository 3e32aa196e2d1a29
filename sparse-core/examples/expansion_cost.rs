//! Expansion time and generated code size of n-way sparse additions, n = 2..=16: merge
//! lattices give way to compact merges past three iterators per loop, so both stay polynomial.
//!
//! `cargo run --release -p sparse-core --example expansion_cost`

use std::time::Instant;

fn kernel(n: usize, format: &str, order: usize) -> String {
    let idx = ["i", "j", "k"][..order].join(", ");
    let params: Vec<String> = (0..n).map(|t| format!("a{t}: &{format}<f64>")).collect();
    let terms: Vec<String> = (0..n).map(|t| format!("a{t}({idx})")).collect();
    format!(
        "fn add(y: &mut {format}<f64>, {}) {{ y({idx}) = {} }}",
        params.join(", "),
        terms.join(" + ")
    )
}

fn main() {
    println!("| n | SparseVec: ms | lines | Dcsr: ms | lines | Csf3: ms | lines |");
    println!("|---|---|---|---|---|---|---|");
    for n in 2..=16 {
        let mut row = format!("| {n} |");
        for (format, order) in [("SparseVec", 1), ("Dcsr", 2), ("Csf3", 3)] {
            let src = kernel(n, format, order);
            let tokens: proc_macro2::TokenStream = src.parse().expect("kernel tokenizes");
            let start = Instant::now();
            let out = sparse_core::expand(tokens);
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let file: syn::File = syn::parse2(out).expect("expansion parses");
            let lines = prettyplease::unparse(&file).lines().count();
            row += &format!(" {ms:.2} | {lines} |");
        }
        println!("{row}");
    }
}
