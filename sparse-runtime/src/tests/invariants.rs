//! One test per (level kind, invariant): raw arrays that break exactly that
//! invariant, built without validation (`from_parts_unchecked`, standing for
//! any route around `from_raw`: assembly functions, `Level::build`), must be
//! rejected by `from_levels`, and by `from_raw` where `from_raw` checks it.
//! The invariants are the ones listed in each level type's documentation.

use super::invalid;
use crate::prelude::*;
use crate::Error;

/// Asserts that `r` is `InvalidLevel` at `level` with `needle` in its detail.
fn assert_invalid<T: std::fmt::Debug>(r: Result<T, Error>, level: usize, needle: &str) {
    let (found, detail) = invalid(r);
    assert_eq!(found, level, "{detail}");
    assert!(detail.contains(needle), "{detail:?} lacks {needle:?}");
}

/// `2^32`, the first size that does not fit `u32`.
const TOO_BIG: usize = 1 << 32;

fn u32_overflow(value: usize) -> Error {
    Error::IndexOverflow {
        index_type: "u32",
        value,
    }
}

mod dense {
    use super::*;

    #[test]
    fn size_matches_the_shape() {
        let r = Dense2::<f64>::from_levels(&[2, 3], (Dense::new(2), Dense::new(4)), vec![0.0; 8]);
        assert_invalid(r, 1, "its size is 4 but mode 1 of the shape has size 3");
    }

    #[test]
    fn position_count_fits_usize() {
        let levels = (Dense::new(usize::MAX), Dense::new(2));
        let r = Dense2::<f64>::from_levels(&[usize::MAX, 2], levels, vec![]);
        assert!(
            matches!(&r, Err(Error::NotRepresentable { detail }) if detail.contains("more than usize::MAX positions")),
            "{r:?}"
        );
    }

    #[test]
    fn may_sit_first_last_and_anywhere() {
        let t = Tensor::<f64, (Dense, Compressed, Dense)>::new(&[2, 2, 2]).unwrap();
        assert_eq!(t.nnz(), 0);
    }
}

/// Tests of one compressed variant in a format where it sits at level 1 under
/// a dense level of 2 positions, holding `pos = [0, 2, 3]`, `crd = [1, 3, 0]`
/// (size 4) and 3 values when valid.
macro_rules! compressed_invariants {
    ($module:ident, $Level:ident, unique = $unique:expr, $tensor:expr) => {
        mod $module {
            use super::*;

            /// `from_levels` of `level` at level 1, with mode 1 of size `size`.
            fn from_levels(size: usize, level: $Level<u32>) -> Result<(), Error> {
                $tensor(size, level)
            }

            fn raw(size: usize, pos: Vec<u32>, crd: Vec<u32>) -> Result<$Level<u32>, Error> {
                $Level::from_raw(size, pos, crd)
            }

            fn bypass(size: usize, pos: Vec<u32>, crd: Vec<u32>) -> $Level<u32> {
                $Level::from_parts_unchecked(size, pos, crd)
            }

            /// Both routes reject the arrays with `needle`.
            fn rejected(size: usize, pos: Vec<u32>, crd: Vec<u32>, needle: &str) {
                assert_invalid(raw(size, pos.clone(), crd.clone()), 0, needle);
                assert_invalid(from_levels(size, bypass(size, pos, crd)), 1, needle);
            }

            #[test]
            fn the_baseline_is_valid() {
                from_levels(4, raw(4, vec![0, 2, 3], vec![1, 3, 0]).unwrap()).unwrap();
            }

            #[test]
            fn size_matches_the_shape() {
                let level = raw(4, vec![0, 2, 3], vec![1, 3, 0]).unwrap();
                assert_invalid(from_levels(5, level), 1, "its size is 4 but mode 1");
            }

            #[test]
            fn pos_has_one_entry_per_parent_position_plus_one() {
                let (pos, crd) = (vec![0, 3], vec![0, 1, 3]);
                // Alone, a level cannot know its parent's position count.
                assert!(raw(4, pos.clone(), crd.clone()).is_ok());
                let r = from_levels(4, bypass(4, pos, crd));
                assert_invalid(
                    r,
                    1,
                    "pos has 2 entries but the parent level has 2 positions",
                );
            }

            #[test]
            fn pos_starts_at_zero() {
                rejected(4, vec![1, 2, 3], vec![1, 3, 0], "pos[0] is 1 but must be 0");
            }

            #[test]
            fn pos_is_non_decreasing() {
                rejected(4, vec![0, 4, 3], vec![1, 3, 0], "pos[1] = 4 > pos[2] = 3");
            }

            #[test]
            fn pos_ends_at_the_number_of_coordinates() {
                rejected(
                    4,
                    vec![0, 2, 2],
                    vec![1, 3, 0],
                    "the last pos entry is 2 but crd has 3 entries",
                );
            }

            #[test]
            fn size_fits_the_index_type() {
                let (pos, crd) = (vec![0, 2, 3], vec![1, 3, 0]);
                assert_eq!(
                    raw(TOO_BIG, pos.clone(), crd.clone()).unwrap_err(),
                    u32_overflow(TOO_BIG)
                );
                let r = from_levels(TOO_BIG, bypass(TOO_BIG, pos, crd));
                assert_eq!(r.unwrap_err(), u32_overflow(TOO_BIG));
            }

            #[test]
            fn coordinates_are_below_the_size() {
                rejected(
                    4,
                    vec![0, 2, 3],
                    vec![1, 4, 0],
                    "crd[1] = 4 is not below the level size 4",
                );
            }

            #[test]
            fn siblings_are_ordered() {
                let want = if $unique {
                    "strictly increasing"
                } else {
                    "non-decreasing"
                };
                rejected(4, vec![0, 2, 3], vec![3, 1, 0], want);
            }

            #[test]
            fn siblings_are_unique_if_the_level_is() {
                let (pos, crd) = (vec![0, 2, 3], vec![1, 1, 0]);
                if $unique {
                    rejected(4, pos, crd, "not strictly increasing");
                } else {
                    from_levels(4, raw(4, pos, crd).unwrap()).unwrap();
                }
            }

            #[test]
            fn order_is_per_segment() {
                // Segment 1 may start below the end of segment 0.
                from_levels(4, raw(4, vec![0, 2, 3], vec![2, 3, 0]).unwrap()).unwrap();
            }
        }
    };
}

compressed_invariants!(
    compressed,
    Compressed,
    unique = true,
    |size: usize, level: Compressed<u32>| {
        Csr::<f64>::from_levels(&[2, size], (Dense::new(2), level), vec![0.0; 3]).map(drop)
    }
);

compressed_invariants!(
    compressed_non_unique,
    CompressedNonUnique,
    unique = false,
    |size: usize, level: CompressedNonUnique<u32>| {
        let below = Singleton::from_raw(3, vec![0, 1, 2]).unwrap();
        Tensor::<f64, (Dense, CompressedNonUnique, Singleton)>::from_levels(
            &[2, size, 3],
            (Dense::new(2), level, below),
            vec![0.0; 3],
        )
        .map(drop)
    }
);

mod compressed_structure {
    use super::*;

    #[test]
    fn a_compressed_level_may_sit_anywhere() {
        assert!(Tensor::<f64, (Compressed, Dense, Compressed)>::new(&[2, 2, 2]).is_ok());
    }

    #[test]
    fn a_non_unique_compressed_level_needs_a_branchless_child() {
        let levels = (
            CompressedNonUnique::<u32>::from_raw(2, vec![0, 1], vec![0]).unwrap(),
            Compressed::<u32>::from_raw(2, vec![0, 1], vec![1]).unwrap(),
        );
        let r = Tensor::<f64, (CompressedNonUnique, Compressed)>::from_levels(
            &[2, 2],
            levels,
            vec![0.0],
        );
        assert_invalid(r, 0, "must be followed by a branchless level (a Singleton)");
    }

    #[test]
    fn a_non_unique_compressed_level_is_not_last() {
        let levels = (
            Dense::new(1),
            CompressedNonUnique::<u32>::from_raw(2, vec![0, 2], vec![1, 1]).unwrap(),
        );
        let r =
            Tensor::<f64, (Dense, CompressedNonUnique)>::from_levels(&[1, 2], levels, vec![0.0; 2]);
        assert_invalid(r, 1, "the last level must be unique");
    }
}

/// Tests of one singleton variant in a format where it sits at level 1 under
/// a non-unique compressed level holding `pos = [0, 3]`, `crd = [0, 0, 1]`
/// (one run of coordinate 0 over positions 0 and 1), with `crd = [1, 2, 0]`
/// (size 3) when valid.
macro_rules! singleton_invariants {
    ($module:ident, $Level:ident, unique = $unique:expr, $tensor:expr) => {
        mod $module {
            use super::*;

            /// `from_levels` of `level` at level 1, with mode 1 of size `size`.
            fn from_levels(size: usize, level: $Level<u32>) -> Result<(), Error> {
                $tensor(size, level)
            }

            fn raw(size: usize, crd: Vec<u32>) -> Result<$Level<u32>, Error> {
                $Level::from_raw(size, crd)
            }

            fn bypass(size: usize, crd: Vec<u32>) -> $Level<u32> {
                $Level::from_parts_unchecked(size, crd)
            }

            #[test]
            fn the_baseline_is_valid() {
                from_levels(3, raw(3, vec![1, 2, 0]).unwrap()).unwrap();
            }

            #[test]
            fn size_matches_the_shape() {
                let level = raw(3, vec![1, 2, 0]).unwrap();
                assert_invalid(from_levels(4, level), 1, "its size is 3 but mode 1");
            }

            #[test]
            fn size_fits_the_index_type() {
                assert_eq!(
                    raw(TOO_BIG, vec![1, 2, 0]).unwrap_err(),
                    u32_overflow(TOO_BIG)
                );
                let r = from_levels(TOO_BIG, bypass(TOO_BIG, vec![1, 2, 0]));
                assert_eq!(r.unwrap_err(), u32_overflow(TOO_BIG));
            }

            #[test]
            fn coordinates_are_below_the_size() {
                let needle = "crd[1] = 3 is not below the level size 3";
                assert_invalid(raw(3, vec![1, 3, 0]), 0, needle);
                assert_invalid(from_levels(3, bypass(3, vec![1, 3, 0])), 1, needle);
            }

            #[test]
            fn one_coordinate_per_parent_position() {
                // Alone, a level cannot know its parent's position count.
                assert!(raw(3, vec![1, 2]).is_ok());
                let r = from_levels(3, bypass(3, vec![1, 2]));
                assert_invalid(
                    r,
                    1,
                    "crd has 2 entries but the parent level has 3 positions",
                );
            }

            #[test]
            fn size_zero_holds_no_coordinate() {
                assert!(raw(0, vec![]).is_ok());
                let r = from_levels(0, bypass(0, vec![0, 0, 0]));
                assert_invalid(r, 1, "no coordinate is below 0");
            }

            #[test]
            fn siblings_in_a_parent_run_are_ordered() {
                // Positions 0 and 1 share the parent coordinate 0.
                assert!(
                    raw(3, vec![2, 1, 0]).is_ok(),
                    "runs are a hierarchy property"
                );
                let want = if $unique {
                    "strictly increasing"
                } else {
                    "non-decreasing"
                };
                assert_invalid(from_levels(3, bypass(3, vec![2, 1, 0])), 1, want);
            }

            #[test]
            fn siblings_in_a_parent_run_are_unique_if_the_level_is() {
                let r = from_levels(3, bypass(3, vec![1, 1, 0]));
                if $unique {
                    assert_invalid(r, 1, "strictly increasing");
                } else {
                    r.unwrap();
                }
            }

            #[test]
            fn a_new_parent_run_may_start_lower() {
                from_levels(3, raw(3, vec![1, 2, 0]).unwrap()).unwrap();
                from_levels(3, raw(3, vec![0, 2, 0]).unwrap()).unwrap();
            }

            #[test]
            fn it_is_not_the_first_level() {
                let r = Tensor::<f64, ($Level, Dense)>::from_levels(
                    &[1, 1],
                    (raw(1, vec![]).unwrap(), Dense::new(1)),
                    vec![],
                );
                assert_invalid(r, 0, "cannot be the first level");
            }
        }
    };
}

singleton_invariants!(singleton, Singleton, unique = true, |size: usize,
                                                            level: Singleton<
    u32,
>| {
    let above = CompressedNonUnique::from_raw(2, vec![0, 3], vec![0, 0, 1]).unwrap();
    Coo::<f64>::from_levels(&[2, size], (above, level), vec![0.0; 3]).map(drop)
});

singleton_invariants!(
    singleton_non_unique,
    SingletonNonUnique,
    unique = false,
    |size: usize, level: SingletonNonUnique<u32>| {
        let above = CompressedNonUnique::from_raw(2, vec![0, 3], vec![0, 0, 1]).unwrap();
        // Level 2 keeps the tuples unique whatever level 1 repeats.
        let below = Singleton::from_raw(2, vec![0, 1, 0]).unwrap();
        Coo3::<f64>::from_levels(&[2, size, 2], (above, level, below), vec![0.0; 3]).map(drop)
    }
);

mod singleton_structure {
    use super::*;

    #[test]
    fn under_a_unique_parent_every_run_is_one_position() {
        let levels = (
            Dense::new(3),
            Singleton::<u32>::from_raw(3, vec![2, 1, 0]).unwrap(),
        );
        let t = Tensor::<f64, (Dense, Singleton)>::from_levels(&[3, 3], levels, vec![0.0; 3]);
        assert!(t.is_ok(), "{t:?}");
    }

    #[test]
    fn a_non_unique_singleton_needs_a_branchless_child() {
        let levels = (
            CompressedNonUnique::<u32>::from_raw(1, vec![0, 1], vec![0]).unwrap(),
            SingletonNonUnique::<u32>::from_raw(1, vec![0]).unwrap(),
            Dense::new(1),
        );
        let r = Tensor::<f64, (CompressedNonUnique, SingletonNonUnique, Dense)>::from_levels(
            &[1, 1, 1],
            levels,
            vec![0.0],
        );
        assert_invalid(r, 1, "must be followed by a branchless level (a Singleton)");
    }

    #[test]
    fn a_non_unique_singleton_is_not_last() {
        let levels = (
            CompressedNonUnique::<u32>::from_raw(1, vec![0, 1], vec![0]).unwrap(),
            SingletonNonUnique::<u32>::from_raw(1, vec![0]).unwrap(),
        );
        let r = Tensor::<f64, (CompressedNonUnique, SingletonNonUnique)>::from_levels(
            &[1, 1],
            levels,
            vec![0.0],
        );
        assert_invalid(r, 1, "the last level must be unique");
    }

    #[test]
    fn runs_nest_through_non_unique_singletons() {
        // Level-2 runs are (level-0 run, level-1 coordinate): positions 1 and
        // 2 share (0, 1), so level 2 must increase there, and only there.
        let levels = |c2: Vec<u32>| {
            (
                CompressedNonUnique::<u32>::from_raw(1, vec![0, 3], vec![0, 0, 0]).unwrap(),
                SingletonNonUnique::<u32>::from_raw(2, vec![0, 1, 1]).unwrap(),
                Singleton::<u32>::from_raw(2, c2).unwrap(),
            )
        };
        let ok = Coo3::<f64>::from_levels(&[1, 2, 2], levels(vec![1, 0, 1]), vec![0.0; 3]);
        assert!(ok.is_ok(), "{ok:?}");
        let r = Coo3::<f64>::from_levels(&[1, 2, 2], levels(vec![0, 1, 0]), vec![0.0; 3]);
        assert_invalid(r, 2, "strictly increasing");
    }
}
