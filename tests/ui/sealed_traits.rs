// Unsafe code trusts `Index::to_usize` and `ModeOrder::mode`: a user implementation that
// lied (a coordinate scaled up, an order permuted) would make validated kernels read out of
// bounds. Both traits are sealed, so neither implementation compiles.

use sparse_runtime::{Index, ModeOrder};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Debug)]
struct Evil(u32);

impl Index for Evil {
    const NAME: &'static str = "Evil";
    fn to_usize(self) -> usize {
        self.0 as usize * 1_000_000
    }
    fn try_from_usize(x: usize) -> Option<Self> {
        u32::try_from(x).ok().map(Evil)
    }
    fn from_usize_unchecked(x: usize) -> Self {
        Evil(x as u32)
    }
    fn max_usize() -> usize {
        u32::MAX as usize
    }
}

#[derive(Default, Clone, Copy, Debug)]
struct Identity;

impl ModeOrder for Identity {
    fn mode(k: usize) -> usize {
        1 - k
    }
}

fn main() {}
