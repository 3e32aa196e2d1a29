//! An in-process fuzzer for `sparse_kernel!`, on the stable toolchain.
//!
//! The target is [`sparse_core::expand`], the whole macro run outside rustc (proc_macro2's
//! fallback implementation). Inputs come from three generators, each deterministic from
//! `(seed, index)` so that any input is regenerated from its number: arbitrary token streams
//! ([`gen_tokens`]), mutations of valid kernels ([`gen_mutate`]) and grammar-generated kernels
//! ([`gen_grammar`]). Each input runs under `catch_unwind` on an 8 MiB stack, with its wall
//! time and peak memory measured ([`exec`], [`alloc`]); the binary (`src/main.rs`) runs the
//! inputs in worker processes so that aborts, stack overflows and hangs are recorded too.
//! See `FUZZING.md` at the workspace root.

pub mod alloc;
pub mod exec;
pub mod gen_grammar;
pub mod gen_mutate;
pub mod gen_tokens;
pub mod known;
pub mod rng;
pub mod tok;

use rng::Rng;

/// Which generator made an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    /// Arbitrary token streams.
    Tokens = 1,
    /// Mutations of valid kernels.
    Mutation = 2,
    /// Grammar-generated kernels.
    Grammar = 3,
}

/// One generated input: the exact text that is lexed and handed to `expand`.
pub struct Input {
    /// Its generator.
    pub generator: Generator,
    /// The text.
    pub text: String,
}

/// Input `index` of the run with seed `seed`.
pub fn generate(seed: u64, index: u64) -> Input {
    let mut rng = Rng::for_input(seed, index);
    let generator = match rng.weighted(&[30, 35, 35]) {
        0 => Generator::Tokens,
        1 => Generator::Mutation,
        _ => Generator::Grammar,
    };
    let text = match generator {
        Generator::Tokens => tok::print(&gen_tokens::generate(&mut rng)),
        Generator::Mutation => tok::print(&gen_mutate::generate(&mut rng)),
        Generator::Grammar => gen_grammar::generate(&mut rng),
    };
    Input { generator, text }
}
