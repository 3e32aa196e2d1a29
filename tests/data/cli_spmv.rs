// What `sparse-kernel 'y(i) = a(i,j) * x(j)' -f a:csr -f x:dense -f y:dense --name spmv` prints
// (the CLI in cli/), checked in: tests/tests/cli_expansion.rs compiles it against sparse-runtime
// and compares it with the macro's kernel, and cli/tests/cli.rs fails when the CLI's output
// differs from it. Regenerate it with
// `UPDATE_CLI_SPMV=1 cargo test -p sparse-kernel-cli --test cli checked_in_expansion_is_current`.
#[allow(unused_unsafe, clippy::all)]
fn spmv(
    y: &mut ::sparse_runtime::Tensor<
        f64,
        (::sparse_runtime::Dense,),
        ::sparse_runtime::Identity,
    >,
    a: &::sparse_runtime::Tensor<
        f64,
        (::sparse_runtime::Dense, ::sparse_runtime::Compressed),
        ::sparse_runtime::Identity,
    >,
    x: &::sparse_runtime::Tensor<
        f64,
        (::sparse_runtime::Dense,),
        ::sparse_runtime::Identity,
    >,
) -> ::core::result::Result<(), ::sparse_runtime::Error> {
    let _: ::core::marker::PhantomData<
        ::sparse_runtime::Tensor<
            f64,
            (::sparse_runtime::Dense,),
            ::sparse_runtime::Identity,
        >,
    > = ::core::marker::PhantomData::<Dense1<f64>>;
    let _: ::core::marker::PhantomData<
        ::sparse_runtime::Tensor<
            f64,
            (::sparse_runtime::Dense, ::sparse_runtime::Compressed),
            ::sparse_runtime::Identity,
        >,
    > = ::core::marker::PhantomData::<Csr<f64>>;
    let _: ::core::marker::PhantomData<
        ::sparse_runtime::Tensor<
            f64,
            (::sparse_runtime::Dense,),
            ::sparse_runtime::Identity,
        >,
    > = ::core::marker::PhantomData::<Dense1<f64>>;
    if a.shape()[0usize] != y.shape()[0usize] {
        return ::core::result::Result::Err(
            ::sparse_runtime::Error::dimension_mismatch(
                "spmv",
                ::std::format!(
                    "index variable `i` has size {} in `y` (mode 0) but size {} in `a` (mode 0)",
                    y.shape() [0usize], a.shape() [0usize]
                ),
            ),
        );
    }
    if x.shape()[0usize] != a.shape()[1usize] {
        return ::core::result::Result::Err(
            ::sparse_runtime::Error::dimension_mismatch(
                "spmv",
                ::std::format!(
                    "index variable `j` has size {} in `a` (mode 1) but size {} in `x` (mode 0)",
                    a.shape() [1usize], x.shape() [0usize]
                ),
            ),
        );
    }
    {
        let declared: f64 = <f64 as ::sparse_runtime::__private::num_traits::Zero>::zero();
        if a.fill() != declared {
            return ::core::result::Result::Err(
                ::sparse_runtime::__private::fill_mismatch("a", declared, a.fill()),
            );
        }
    }
    let dim_i = y.shape()[0usize];
    unsafe {
        let y_vals = y.vals_mut();
        let (_, a_l1) = a.levels();
        let a_vals = a.vals();
        let x_vals = x.vals();
        (|
            y_vals: &mut [f64],
            a_vals: &[f64],
            x_vals: &[f64],
            a_l1: &::sparse_runtime::Compressed,
        | -> ::core::result::Result<(), ::sparse_runtime::Error> {
            ::sparse_runtime::__private::parallel_rows(
                y_vals,
                dim_i,
                a_vals.len().saturating_add(x_vals.len()),
                move |
                    row_lo,
                    row_hi,
                    row_base,
                    y_vals,
                | -> ::core::result::Result<(), ::sparse_runtime::Error> {
                    (|
                        y_vals: &mut [f64],
                        a_vals: &[f64],
                        x_vals: &[f64],
                        a_l1: &::sparse_runtime::Compressed,
                    | -> ::core::result::Result<(), ::sparse_runtime::Error> {
                        for i in row_lo..row_hi {
                            let mut t0 = <f64 as ::sparse_runtime::__private::num_traits::Zero>::zero();
                            let (p_a1, end_a1) = a_l1.pos_bounds_unchecked(i);
                            for p_a1 in p_a1..end_a1 {
                                let j = a_l1.pos_access_unchecked(p_a1);
                                t0
                                    += *a_vals.get_unchecked(p_a1) * *x_vals.get_unchecked(j);
                            }
                            *y_vals.get_unchecked_mut(i - row_base) = t0;
                        }
                        ::core::result::Result::Ok(())
                    })(y_vals, a_vals, x_vals, a_l1)?;
                    ::core::result::Result::Ok(())
                },
            )?;
            ::core::result::Result::Ok(())
        })(y_vals, a_vals, x_vals, a_l1)?;
    }
    ::core::result::Result::Ok(())
}
