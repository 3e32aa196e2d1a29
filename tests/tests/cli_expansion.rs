//! The CLI's output compiles and computes what the macro computes: `tests/data/cli_spmv.rs` is
//! what `sparse-kernel 'y(i) = a(i,j) * x(j)' -f a:csr -f x:dense -f y:dense --name spmv` prints
//! (cli/tests/cli.rs fails when it is stale), included here as plain Rust and run against the
//! `sparse_kernel!` kernel of the same statement and a dense oracle on random matrices.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

// The CLI's SpMV, `fn spmv`, as checked in.
include!("../data/cli_spmv.rs");

sparse_kernel! {
    fn spmv_macro(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

#[test]
fn cli_spmv_computes_the_macro_kernels_y() {
    for shape in MATRIX_SHAPES.into_iter().chain([[40, 31]]) {
        sweep(|density, seed| {
            let case = (shape, density, seed);
            let entries = random_entries::<f64>(&shape, density, case_seed(seed, &shape, 0));
            let x_entries = random_entries::<f64>(&shape[1..], 0.8, case_seed(seed, &shape, 1));
            let a: Csr<f64> = build(&shape, &entries);
            let x: Dense1<f64> = build(&shape[1..], &x_entries);
            // Outputs holding garbage: `=` overwrites every component.
            let garbage = vec![7.5; shape[0]];
            let (mut y_cli, mut y_macro) =
                (Dense1::from_vec(garbage.clone()), Dense1::from_vec(garbage));
            spmv(&mut y_cli, &a, &x).unwrap();
            spmv_macro(&mut y_macro, &a, &x).unwrap();
            assert_eq!(y_cli.as_slice(), y_macro.as_slice(), "{case:?}");
            let oracle = matvec(
                &DenseT::from_entries(&shape, &entries),
                &DenseT::from_entries(&shape[1..], &x_entries),
            );
            assert_close(y_cli.as_slice(), &oracle, 1e-12, case);
        });
    }
}

#[test]
fn cli_spmv_checks_shapes_as_the_macro_kernel_does() {
    let a = Csr::<f64>::from_entries(&[2, 3], [([0, 1], 1.0)]).unwrap();
    let x = Dense1::from_vec(vec![1.0; 4]);
    let (mut y_cli, mut y_macro) = (Dense1::zeros(2), Dense1::zeros(2));
    let cli = spmv(&mut y_cli, &a, &x).unwrap_err();
    let by_macro = spmv_macro(&mut y_macro, &a, &x).unwrap_err();
    assert_eq!(
        cli.to_string(),
        by_macro.to_string().replace("spmv_macro", "spmv")
    );
}
