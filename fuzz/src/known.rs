//! `fuzz/known_failures.txt`: inputs that fail today, skipped by the smoke run and the
//! regression test until the defect is fixed and the line removed.
//!
//! One entry per line, `#` starts a comment. An entry is `seed:index class` for a generated
//! input or `regressions/NAME.rs class` for a saved input.

use std::collections::BTreeSet;
use std::path::Path;

/// The known failures.
#[derive(Clone, Debug, Default)]
pub struct Known {
    generated: BTreeSet<(u64, u64)>,
    files: BTreeSet<String>,
}

impl Known {
    /// Parses the file's text.
    pub fn parse(text: &str) -> Known {
        let mut known = Known::default();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            let Some(key) = line.split_whitespace().next() else {
                continue;
            };
            if let Some(file) = key.strip_prefix("regressions/") {
                known.files.insert(file.to_string());
            } else if let Some((s, i)) = key.split_once(':') {
                if let (Ok(s), Ok(i)) = (s.parse(), i.parse()) {
                    known.generated.insert((s, i));
                }
            }
        }
        known
    }

    /// Reads the file; a missing file means no known failures.
    pub fn load(path: &Path) -> Known {
        std::fs::read_to_string(path)
            .map(|t| Known::parse(&t))
            .unwrap_or_default()
    }

    /// Whether generated input `index` of seed `seed` is a known failure.
    pub fn has_input(&self, seed: u64, index: u64) -> bool {
        self.generated.contains(&(seed, index))
    }

    /// Whether the regression file named `name` is a known failure.
    pub fn has_file(&self, name: &str) -> bool {
        self.files.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_kinds_of_entries() {
        let k = Known::parse(
            "# header\n7:12 panic-lattice # note\n\nregressions/deep.rs stack-overflow\nbad line\n",
        );
        assert!(k.has_input(7, 12));
        assert!(!k.has_input(7, 13));
        assert!(k.has_file("deep.rs"));
        assert!(!k.has_file("other.rs"));
    }
}
