//! Prints the kernels of seeds `START..START + N` as the tester writes them
//! (`cargo run -p sparse-difftest-gen --example dump -- START N`), to count which compiler
//! paths a generator change reaches without running a sweep: expand the printed
//! `sparse_kernel!` blocks with the CLI (`sparse-kernel --file -`) and search the expansions.

fn main() {
    let arg = |n: usize| -> Option<u64> { std::env::args().nth(n)?.parse().ok() };
    let (Some(start), Some(n)) = (arg(1), arg(2)) else {
        eprintln!("usage: dump START N");
        std::process::exit(2);
    };
    for seed in start..start.saturating_add(n) {
        let k = sparse_difftest_gen::generate::generate(seed);
        println!(
            "{}",
            sparse_difftest_gen::testcode::kernel_module(&k, "sparse_runtime")
        );
    }
}
