//! A small deterministic random number generator (SplitMix64): every input is regenerated
//! from `(seed, index)` alone, so a run needs no saved state to reproduce any of its inputs.

/// SplitMix64 (Steele, Lea and Flood 2014): 64 bits of state, one multiply-xorshift per draw.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// The generator of input `index` of a run with seed `seed`.
    pub fn for_input(seed: u64, index: u64) -> Rng {
        let mut r = Rng {
            state: seed ^ 0x9e37_79b9_7f4a_7c15,
        };
        let a = r.next_u64();
        Rng {
            state: a ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03),
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent / 100`.
    pub fn percent(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    /// A uniformly chosen element.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A uniformly chosen word.
    pub fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }

    /// An index chosen with the given weights (not all zero).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut x = self.below(total as usize) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }

    /// A size from a heavy-tailed profile: mostly small, sometimes medium, rarely huge.
    /// `profile` lists `(weight, lo, hi)` bands.
    pub fn band(&mut self, profile: &[(u32, usize, usize)]) -> usize {
        let weights: Vec<u32> = profile.iter().map(|b| b.0).collect();
        let (_, lo, hi) = profile[self.weighted(&weights)];
        self.range(lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map(|_| Rng::for_input(7, 3))
            .map(|mut r| r.next_u64())
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::for_input(7, 3).next_u64(),
            Rng::for_input(7, 4).next_u64()
        );
        assert_ne!(
            Rng::for_input(7, 3).next_u64(),
            Rng::for_input(8, 3).next_u64()
        );
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::for_input(1, 1);
        for n in 1..50 {
            for _ in 0..100 {
                assert!(r.below(n) < n);
            }
        }
        assert_eq!(r.range(5, 5), 5);
    }
}
