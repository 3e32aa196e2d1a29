//! The conjugate-gradient example at a reduced size: its one-kernel iteration converges and
//! agrees with the hand-written CG it is compared with.

#[allow(dead_code)]
#[path = "../../sparse-runtime/examples/cg.rs"]
mod cg;

#[test]
fn the_cg_example_converges_and_matches_the_hand_written_solver() {
    for n in [1, 2, 12, 30] {
        let s = cg::run(n, 1e-10).unwrap();
        assert_eq!(s.unknowns, n * n);
        assert!(s.relative_residual <= 1e-9, "{n}: {s:?}");
        assert!(s.max_difference <= 1e-12, "{n}: {s:?}");
        assert!(s.max_error <= 1e-6, "{n}: {s:?}");
        // CG on the n^2 unknowns ends within n^2 steps in exact arithmetic; on this problem
        // in far fewer.
        assert!(s.iterations <= 4 * n + 10, "{n}: {s:?}");
    }
}
