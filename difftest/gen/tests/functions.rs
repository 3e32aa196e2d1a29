//! Sparse array programming in the tester: the generator's kernels keep the promises the
//! definition relies on (the reference never finds a non-present point whose finite value
//! differs from its finite fill value), and the reference reads the definition's examples as
//! the language definition says.

use sparse_difftest_gen::data::cases;
use sparse_difftest_gen::format::Format;
use sparse_difftest_gen::functions::{Fill, FillAttr, Func, Reducer};
use sparse_difftest_gen::generate;
use sparse_difftest_gen::kernel::{Expr, Kernel, Op, Param, ParamKind, ValTy};
use sparse_difftest_gen::reference::{evaluation, rhs_fill, Stored};
use sparse_difftest_gen::semantics::{limitations, place, Limitation};

/// The stored inputs of a case, as `from_entries` would store them (no padding).
fn stored(k: &Kernel, c: &sparse_difftest_gen::data::Case) -> Vec<Option<Stored>> {
    k.params
        .iter()
        .enumerate()
        .map(|(p, param)| {
            param.format().map(|_| Stored {
                shape: c.shapes[p].clone(),
                entries: c.entries[p].clone(),
                mags: Vec::new(),
                fill: c.fills[p],
            })
        })
        .collect()
}

#[test]
fn generated_kernels_keep_the_definitions_promises() {
    let mut feature = 0;
    for seed in 0..1500 {
        let k = generate(seed);
        if !k.feature {
            continue;
        }
        feature += 1;
        for c in cases(&k).iter().filter(|c| !c.expect_err()) {
            let ev = evaluation(&k, &c.var_sizes, &stored(&k, c), &c.scalars);
            assert_eq!(
                ev.inconsistent,
                0,
                "seed {seed}, case {}: a non-present value differs from its fill value\n{}\nplaced: {}",
                c.index,
                k.invocation(),
                place(&k).show(&k)
            );
        }
    }
    assert!(feature > 500, "{feature} feature kernels");
}

#[test]
fn about_half_of_the_single_statements_use_the_feature() {
    let (mut single, mut feature, mut calls, mut fills, mut reductions) = (0, 0, 0, 0, 0);
    for seed in 0..4000 {
        let k = generate(seed);
        if k.is_sequence() {
            assert!(!k.feature);
            continue;
        }
        // The row-bounded family is drawn before the feature stream (and draws no feature).
        if k.template == "row_bounded" {
            assert!(!k.feature);
            continue;
        }
        single += 1;
        if k.feature {
            feature += 1;
            calls += usize::from(k.rhs.uses_functions());
            fills += usize::from(k.params.iter().any(|p| p.fill.is_some()));
            let mut reduce = false;
            k.rhs
                .visit(&mut |e| reduce |= matches!(e, Expr::Reduce { .. }));
            reductions += usize::from(reduce);
        }
    }
    let share = feature as f64 / single as f64;
    assert!((0.45..0.55).contains(&share), "{feature} of {single}");
    assert!(
        calls as f64 > 0.8 * feature as f64,
        "{calls} of {feature} call"
    );
    assert!(
        fills as f64 > 0.4 * feature as f64,
        "{fills} of {feature} fill"
    );
    assert!(
        reductions as f64 > 0.25 * feature as f64,
        "{reductions} of {feature} reduce"
    );
}

fn input(name: &str, fmt: &str, fill: Option<Fill>) -> Param {
    let mut p = Param::new(name, ParamKind::Input(Format::alias(fmt, None)));
    p.fill = fill.map(|value| FillAttr {
        value,
        text: value.text(false),
    });
    p
}

fn acc(param: usize, vars: &[usize]) -> Expr {
    Expr::Access {
        param,
        vars: vars.to_vec(),
    }
}

fn kernel(params: Vec<Param>, out_vars: &[usize], rhs: Expr) -> Kernel {
    let n = rhs.vars().iter().chain(out_vars).max().map_or(0, |v| v + 1);
    Kernel {
        id: 0,
        template: "test",
        vt: ValTy::F64,
        params,
        out: 0,
        out_vars: out_vars.to_vec(),
        accumulate: false,
        subtract: false,
        rhs,
        var_names: ["i", "j", "k", "l"][..n]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        semicolon: false,
        schedule: None,
        statements: Vec::new(),
        temporaries: Vec::new(),
        feature: true,
        windows: Vec::new(),
        term_by_term: false,
    }
}

fn st(shape: &[usize], entries: &[(&[usize], f64)], fill: f64) -> Option<Stored> {
    Some(Stored {
        shape: shape.to_vec(),
        entries: entries.iter().map(|(c, v)| (c.to_vec(), *v)).collect(),
        mags: Vec::new(),
        fill,
    })
}

#[test]
fn min_plus_spmv_follows_the_definition() {
    // y(i) = min[j](plus(a(i, j), x(j))), a and x filled with inf.
    let out = Param::new("y", ParamKind::Output(Format::alias("SparseVec", None)));
    let k = kernel(
        vec![
            out,
            input("a", "Csr", Some(Fill::Inf)),
            input("x", "SparseVec", Some(Fill::Inf)),
        ],
        &[0],
        Expr::reduce(
            Reducer::Min,
            1,
            Expr::call(Func::Plus, vec![acc(1, &[0, 1]), acc(2, &[1])]),
        ),
    );
    assert_eq!(rhs_fill(&k), Some(f64::INFINITY));
    let inf = f64::INFINITY;
    let tensors = vec![
        None,
        st(
            &[3, 2],
            &[(&[0, 0], 1.0), (&[0, 1], 5.0), (&[1, 1], 2.0)],
            inf,
        ),
        st(&[2], &[(&[0], 3.0)], inf),
    ];
    let ev = evaluation(&k, &[3, 2], &tensors, &[0.0; 3]);
    let got: Vec<(Option<f64>, bool)> = ev.points.iter().map(|p| (p.value, p.present)).collect();
    // Row 0 meets x at j = 0 (1 + 3); row 1 only where x is absent: `plus` is annihilated
    // by either fill value, so its region is the intersection, and row 1 is not present
    // (its value the fill value inf); row 2 is empty.
    assert_eq!(
        got,
        vec![(Some(4.0), true), (Some(inf), false), (Some(inf), false)]
    );
    assert_eq!(ev.inconsistent, 0);
}

#[test]
fn a_nonzero_fill_makes_a_sparse_divisor_legal() {
    let out = Param::new("y", ParamKind::Output(Format::alias("Dense1", None)));
    let div = |fill| {
        kernel(
            vec![
                out.clone(),
                input("a", "SparseVec", None),
                input("d", "SparseVec", fill),
            ],
            &[0],
            Expr::bin(Op::Div, acc(1, &[0]), acc(2, &[0])),
        )
    };
    assert_eq!(limitations(&div(None)), vec![Limitation::SparseDivisor]);
    assert_eq!(
        limitations(&div(Some(Fill::ZERO))),
        vec![Limitation::SparseDivisor]
    );
    assert!(limitations(&div(Some(Fill::Num(2.5)))).is_empty());
}

#[test]
fn fills_and_regions_of_the_definition() {
    let out = || Param::new("c", ParamKind::Output(Format::alias("SparseVec", None)));
    let v = |fill| input("a", "SparseVec", fill);
    let w = |fill| input("b", "SparseVec", fill);
    let two = |f: Func, fa, fb| {
        kernel(
            vec![out(), v(fa), w(fb)],
            &[0],
            Expr::call(f, vec![acc(1, &[0]), acc(2, &[0])]),
        )
    };
    // and(2.5, 1) is 1: the identity 1 of `and` holds on 0 and 1 only.
    assert_eq!(
        rhs_fill(&two(Func::And, Some(Fill::Num(2.5)), Some(Fill::ONE))),
        Some(1.0)
    );
    // pow(1, y) = 1: the base's fill annihilates.
    assert_eq!(
        rhs_fill(&two(Func::Pow, Some(Fill::ONE), Some(Fill::Num(2.5)))),
        Some(1.0)
    );
    // unless(x, m): its formula's fill value, whatever the arguments are.
    let k = two(Func::Unless, Some(Fill::Num(2.5)), None);
    assert_eq!(rhs_fill(&k), Some(2.5));
    let tensors = vec![
        None,
        st(&[3], &[(&[0], 1.0), (&[1], 2.0)], 2.5),
        st(&[3], &[(&[1], 0.0), (&[2], 4.0)], 0.0),
    ];
    let ev = evaluation(&k, &[3], &tensors, &[0.0; 3]);
    let got: Vec<(Option<f64>, bool)> = ev.points.iter().map(|p| (p.value, p.present)).collect();
    // At 1, m stores an explicit 0: not present, the fill value unless(2.5, 0) = 2.5.
    assert_eq!(
        got,
        vec![(Some(1.0), true), (Some(2.5), false), (Some(2.5), false)]
    );
    // A sum over a body whose fill is not 0 covers its dimension: it is present everywhere,
    // 0 over an empty dimension, as a reduction by a function is.
    let s = kernel(
        vec![out(), input("a", "Csr", Some(Fill::ONE))],
        &[0],
        Expr::reduce(Reducer::Sum, 1, acc(1, &[0, 1])),
    );
    let ev = evaluation(&s, &[2, 0], &[None, st(&[2, 0], &[], 1.0)], &[0.0; 2]);
    assert!(ev.points.iter().all(|p| p.present && p.value == Some(0.0)));
    let ev = evaluation(&s, &[2, 3], &[None, st(&[2, 3], &[], 1.0)], &[0.0; 2]);
    assert!(ev.points.iter().all(|p| p.present && p.value == Some(3.0)));
    // A reduction by min over a body filled with 0 (not its identity) is present everywhere.
    let m = kernel(
        vec![out(), input("a", "Csr", None)],
        &[0],
        Expr::reduce(Reducer::Min, 1, acc(1, &[0, 1])),
    );
    let ev = evaluation(&m, &[2, 0], &[None, st(&[2, 0], &[], 0.0)], &[0.0; 2]);
    assert!(ev
        .points
        .iter()
        .all(|p| p.present && p.value == Some(f64::INFINITY)));
}

/// A reduction covers its dimension unless the compiler decides that its body's fill value
/// is its identity: `gt(-1, 0)` it folds (the sum is present only where a term is), `skew(0,
/// 0)` it does not evaluate (the sum covers, though the body's fill is 0 too).
#[test]
fn a_reduction_covers_unless_its_bodys_fill_is_decided() {
    let out = || Param::new("c", ParamKind::Output(Format::alias("SparseVec", None)));
    let sum_of = |f: Func, fill: Option<Fill>| {
        kernel(
            vec![out(), input("a", "Csr", fill), input("b", "Csr", None)],
            &[0],
            Expr::reduce(
                Reducer::Sum,
                1,
                Expr::call(f, vec![acc(1, &[0, 1]), acc(2, &[0, 1])]),
            ),
        )
    };
    let gt = sum_of(Func::Gt, Some(Fill::Num(-1.0)));
    assert_eq!(rhs_fill(&gt), Some(0.0));
    let tensors = [
        None,
        st(&[2, 2], &[(&[0, 1], 3.0)], -1.0),
        st(&[2, 2], &[], 0.0),
    ];
    let ev = evaluation(&gt, &[2, 2], &tensors, &[0.0; 3]);
    let got: Vec<(Option<f64>, bool)> = ev.points.iter().map(|p| (p.value, p.present)).collect();
    assert_eq!(got, vec![(Some(1.0), true), (Some(0.0), false)]);
    let skew = sum_of(Func::Skew, None);
    assert_eq!(rhs_fill(&skew), None);
    let tensors = [None, st(&[2, 2], &[], 0.0), st(&[2, 2], &[], 0.0)];
    let ev = evaluation(&skew, &[2, 2], &tensors, &[0.0; 3]);
    assert!(ev.points.iter().all(|p| p.present && p.value == Some(0.0)));
}

#[test]
fn a_nonzero_fill_on_hidden_coordinates_is_refused() {
    // `y(i, j) = a(i, j)`: a `Dia`, `Bcsr` or `Csb` of fill -1 would add the fill value once
    // per hidden coordinate; a `CooAos` (no hidden mode) may have one, fill 0 is fine.
    let out = Param::new("y", ParamKind::Output(Format::alias("Dense2", None)));
    let copy = |fmt: &str, fill| {
        kernel(
            vec![out.clone(), input("a", fmt, fill)],
            &[0, 1],
            acc(1, &[0, 1]),
        )
    };
    for fmt in ["Dia", "Bcsr", "Csb"] {
        assert_eq!(
            limitations(&copy(fmt, Some(Fill::Num(-1.0)))),
            vec![Limitation::HiddenFill],
            "{fmt}"
        );
        assert!(
            limitations(&copy(fmt, Some(Fill::ZERO))).is_empty(),
            "{fmt}"
        );
        assert!(limitations(&copy(fmt, None)).is_empty(), "{fmt}");
    }
    assert!(limitations(&copy("CooAos", Some(Fill::Num(-1.0)))).is_empty());
}

#[test]
fn a_region_that_never_holds_is_refused() {
    // `y(i) = unless(x(i), m(i))`: refused where `m` is dense (stored everywhere), or is a
    // reduction that covers its dimension; fine over a sparse mask.
    let out = Param::new("y", ParamKind::Output(Format::alias("SparseVec", None)));
    let unless = |m: Param, mask: Expr| {
        kernel(
            vec![out.clone(), input("x", "SparseVec", None), m],
            &[0],
            Expr::call(Func::Unless, vec![acc(1, &[0]), mask]),
        )
    };
    let sparse = unless(input("m", "SparseVec", None), acc(2, &[0]));
    assert!(limitations(&sparse).is_empty());
    let dense = unless(input("m", "Dense1", None), acc(2, &[0]));
    assert_eq!(limitations(&dense), vec![Limitation::EmptyRegion]);
    // `max[j](m(i, j))` over a fill 0 that is not max's identity covers: stored everywhere.
    let covering = unless(
        input("m", "Csr", None),
        Expr::reduce(Reducer::Max, 1, acc(2, &[0, 1])),
    );
    assert_eq!(limitations(&covering), vec![Limitation::EmptyRegion]);
    // `sum[j](m(i, j))` has fill value 0: present only where a row stores something.
    let summed = unless(
        input("m", "Csr", None),
        Expr::reduce(Reducer::Sum, 1, acc(2, &[0, 1])),
    );
    assert!(limitations(&summed).is_empty());
    // `x * d` with `d` dense is only where `x` is (0 annihilates), so a dense `x`-side fails
    // only when both are dense.
    let product = kernel(
        vec![
            out.clone(),
            input("x", "SparseVec", None),
            input("d", "Dense1", None),
            input("m", "SparseVec", None),
        ],
        &[0],
        Expr::call(
            Func::Unless,
            vec![Expr::bin(Op::Mul, acc(1, &[0]), acc(2, &[0])), acc(3, &[0])],
        ),
    );
    assert!(limitations(&product).is_empty());
}

#[test]
fn terms_whose_fill_is_not_zero_are_not_split() {
    // `u(i) = b(k, i) + c(i)` with `b` a `CooAos` (row by row: k before i; never converted)
    // and `c` a `SparseVec`: the terms have orders of their own (split into two nests); with
    // `c` filled with 1 the sum is one nest, whose sum over `k` is not at the root, so `i`
    // comes before `k`: no order. A root sum's term stays splittable (its fill value is NONE
    // or 0), so a filled `b` is fine.
    let out = Param::new("u", ParamKind::Output(Format::alias("Dense1", None)));
    let k = |fill| {
        kernel(
            vec![
                out.clone(),
                input("b", "CooAos", None),
                input("c", "SparseVec", fill),
            ],
            &[0],
            Expr::bin(Op::Add, acc(1, &[1, 0]), acc(2, &[0])),
        )
    };
    assert!(limitations(&k(None)).is_empty());
    assert!(limitations(&k(Some(Fill::ZERO))).is_empty());
    assert_eq!(limitations(&k(Some(Fill::ONE))), vec![Limitation::Order]);
    let b_filled = kernel(
        vec![
            out.clone(),
            input("b", "CooAos", Some(Fill::ONE)),
            input("c", "SparseVec", None),
        ],
        &[0],
        Expr::bin(Op::Add, acc(1, &[1, 0]), acc(2, &[0])),
    );
    assert!(limitations(&b_filled).is_empty());
}
