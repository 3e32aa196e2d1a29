//! Rust source for generated test crates: one module per kernel (the `sparse_kernel!`
//! invocation and a `call` function that builds its operands through the harness).

use crate::kernel::{Kernel, ParamKind};

/// The argument for tensor parameter `p`, built as the owned tensor `local`: a reference to
/// it, or the slice or dense view over its values the signature asks for
/// ([`Kernel::borrowed`]).
fn borrow(k: &Kernel, p: usize, local: &str, output: bool) -> String {
    let (reference, vals, view) = match output {
        false => ("&", "vals", "View"),
        true => ("&mut ", "vals_mut", "ViewMut"),
    };
    match k.borrowed(p) {
        None => format!("{reference}{local}"),
        Some(1) => format!("{local}.{vals}()"),
        Some(n) => format!(
            "{reference}Dense{n}{view}::new(<[usize; {n}]>::try_from({local}.shape()).unwrap(), {local}.{vals}()).unwrap()"
        ),
    }
}

/// The Rust source of a kernel's module for a generated test crate: the kernel, and the `call`
/// function that builds its operands. `krate` is the path of this crate (`::sparse_difftest`).
pub fn kernel_module(k: &Kernel, krate: &str) -> String {
    let mut args = Vec::new();
    // The same call on copies of the outputs, run serially.
    let mut serial_args = Vec::new();
    let mut lets = Vec::new();
    let mut outputs = Vec::new();
    let mut finish = Vec::new();
    let v = k.vt.name();
    for (p, param) in k.params.iter().enumerate() {
        let local = format!("p{p}");
        match &param.kind {
            ParamKind::Input(f) => {
                let build = match crate::generate::via_format(k.id, p, f.order()) {
                    Some(via) => format!("c.input_via::<_, _, {}>({p})?", via.rust_type(v)),
                    None => format!("c.input({p})?"),
                };
                lets.push(format!("let {local}: {} = {build};", f.rust_type(v)));
                args.push(borrow(k, p, &local, false));
                serial_args.push(borrow(k, p, &local, false));
            }
            ParamKind::ScalarIn => {
                lets.push(format!("let {local}: {v} = c.scalar({p});"));
                args.push(local.clone());
                serial_args.push(local);
            }
            ParamKind::Index => {
                lets.push(format!("let {local}: usize = c.index({p});"));
                args.push(local.clone());
                serial_args.push(local);
            }
            ParamKind::Output(f) => {
                outputs.push(format!(
                    "let mut {local}: {} = c.output({p})?;",
                    f.rust_type(v)
                ));
                outputs.push(format!("let mut {local}_serial = {local}.clone();"));
                args.push(borrow(k, p, &local, true));
                serial_args.push(borrow(k, p, &format!("{local}_serial"), true));
                finish.push(format!("c.read_tensor({p}, &{local});"));
                finish.push(format!("c.same_as_serial({p}, &{local}_serial, &{local});"));
            }
            ParamKind::ScalarOut => {
                outputs.push(format!("let mut {local}: {v} = c.scalar_output({p});"));
                outputs.push(format!("let mut {local}_serial = {local};"));
                args.push(format!("&mut {local}"));
                serial_args.push(format!("&mut {local}_serial"));
                finish.push(format!("c.read_scalar({p}, {local});"));
                finish.push(format!(
                    "c.same_scalar_as_serial({p}, {local}_serial, {local});"
                ));
            }
        }
    }
    // The outputs are built last, so that the case's phase says "in the kernel call".
    lets.extend(outputs);
    let pair = crate::classify::accepted_compute_pair(k);
    if pair.is_some() {
        finish.push(compute_pair_check(k, krate));
    }
    let body = k.invocation_with(pair.as_deref()).replace('\n', "\n    ");
    format!(
        "pub mod {name} {{
    #![allow(unused_imports)]
    use sparse_runtime::prelude::*;
    use {krate}::{{Case, Stop}};

    {body}

    pub fn call(c: &mut Case<'_>) -> Result<(), Stop> {{
        {lets}
        let serial = {krate}::in_serial(|| {fname}({serial_args}));
        let r = {krate}::in_parallel(|| {fname}({args}));
        c.returned(r);
        c.serial_returned(serial);
        {finish}
        Ok(())
    }}
}}
",
        name = k.fn_name(),
        fname = k.fn_name(),
        lets = lets.join("\n        "),
        args = args.join(", "),
        serial_args = serial_args.join(", "),
        finish = finish.join("\n        "),
    )
}

/// The harness's run of a kernel's compute-only pair ([`Kernel::compute_pair`]): `_asm`
/// assembles a fresh copy of the output from the same operands, its values are overwritten,
/// and `_values` recomputes them. `_values` must give `_asm`'s values bit for bit (the same
/// loops compute them), and `_asm` the kernel's pattern (its values may round differently: the
/// compute directive forbids the conversions the kernel may use, so its loops can differ).
fn compute_pair_check(k: &Kernel, krate: &str) -> String {
    let out = k.out;
    let ParamKind::Output(f) = &k.params[out].kind else {
        unreachable!("a compute pair has a tensor output")
    };
    let v = k.vt.name();
    let args = |local: &str| -> String {
        (0..k.params.len())
            .map(|p| match (&k.params[p].kind, p == out) {
                (_, true) => borrow(k, p, local, true),
                (ParamKind::Input(_), false) => borrow(k, p, &format!("p{p}"), false),
                _ => format!("p{p}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let name = k.fn_name();
    format!(
        "let mut pair: {ty} = c.output({out})?;
        let assembled = {krate}::in_parallel(|| {name}_asm({pair_args}));
        let by_asm = pair.clone();
        pair.vals_mut().iter_mut().for_each(|v| *v = {krate}::TestValue::from_f64(77.0));
        let values = assembled.is_ok().then(|| {krate}::in_parallel(|| {name}_values({pair_args})));
        c.same_as_compute_only({out}, &p{out}, &by_asm, &pair, assembled, values);",
        ty = f.rust_type(v),
        pair_args = args("pair"),
    )
}
