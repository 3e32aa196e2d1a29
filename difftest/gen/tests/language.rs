//! The tester's own reading of the language, on the examples of the language definition and
//! the known defect reproducers: sum placement, acceptance, values and presence.

use sparse_difftest_gen::classify::{compile, judge, Compiled, Verdict};
use sparse_difftest_gen::format::{Format, Kind};
use sparse_difftest_gen::kernel::{
    Accumulator, Expr, Kernel, Op, Param, ParamKind, Schedule, Statement, Target, ValTy,
};
use sparse_difftest_gen::reference::{
    check_dense, check_sparse, evaluate, evaluate_sequence, evaluation, SparseOut, Stored,
};
use sparse_difftest_gen::semantics::{
    conversion_applies, has_loop_order_with, limitations, place, workspace, workspace_levels,
    Limitation, Placement,
};

fn input(name: &str, fmt: Format) -> Param {
    Param::new(name, ParamKind::Input(fmt))
}

fn output(name: &str, fmt: Format) -> Param {
    Param::new(name, ParamKind::Output(fmt))
}

fn scalar_out(name: &str) -> Param {
    Param::new(name, ParamKind::ScalarOut)
}

fn alias(name: &str) -> Format {
    Format::alias(name, None)
}

fn acc(param: usize, vars: &[usize]) -> Expr {
    Expr::Access {
        param,
        vars: vars.to_vec(),
    }
}

fn lit(value: f64) -> Expr {
    Expr::Lit {
        text: format!("{value:?}"),
        value,
    }
}

fn add(l: Expr, r: Expr) -> Expr {
    Expr::bin(Op::Add, l, r)
}

fn sub(l: Expr, r: Expr) -> Expr {
    Expr::bin(Op::Sub, l, r)
}

fn mul(l: Expr, r: Expr) -> Expr {
    Expr::bin(Op::Mul, l, r)
}

/// A kernel whose output is parameter 0; variables are named `i j k l m` by index.
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
        var_names: ["i", "j", "k", "l", "m"][..n]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        semicolon: false,
        schedule: None,
        statements: Vec::new(),
        temporaries: Vec::new(),
        feature: false,
        windows: Vec::new(),
        term_by_term: false,
    }
}

const I: usize = 0;
const J: usize = 1;
const K: usize = 2;
const L: usize = 3;

#[test]
fn sums_are_placed_as_the_definition_says() {
    // out = a(i) + 1.0  is  (Σ_i a(i)) + 1
    let k = kernel(
        vec![scalar_out("out"), input("a", alias("SparseVec"))],
        &[],
        add(acc(1, &[I]), lit(1.0)),
    );
    assert_eq!(place(&k).show(&k), "(Σ{i}a(i) + 1)");
    // s = x(i) + 1.0 + a(k, i)  is  Σ_i ((x(i) + 1) + Σ_k a(k, i))
    let k = kernel(
        vec![
            scalar_out("s"),
            input("x", alias("Dense1")),
            input("a", alias("Csr")),
        ],
        &[],
        add(add(acc(1, &[I]), lit(1.0)), acc(2, &[K, I])),
    );
    assert_eq!(place(&k).show(&k), "Σ{i}((x(i) + 1) + Σ{k}a(k,i))");
    // y(i) = b(i) - A(i,j)*x(j)  is  b(i) - Σ_j A(i,j) x(j)
    let k = kernel(
        vec![
            output("y", alias("Dense1")),
            input("b", alias("Dense1")),
            input("A", alias("Csr")),
            input("x", alias("Dense1")),
        ],
        &[I],
        sub(acc(1, &[I]), mul(acc(2, &[I, J]), acc(3, &[J]))),
    );
    assert_eq!(place(&k).show(&k), "(b(i) - Σ{j}(A(i,j) * x(j)))");
    // A(i,j) = B(i,k,l)*C(k,j)*D(l,j) sums k and l over the whole product.
    let k = kernel(
        vec![
            output("A", alias("Dense2")),
            input("B", alias("Csf3")),
            input("C", alias("Dense2")),
            input("D", alias("Dense2")),
        ],
        &[I, J],
        mul(mul(acc(1, &[I, K, L]), acc(2, &[K, J])), acc(3, &[L, J])),
    );
    assert_eq!(place(&k).show(&k), "Σ{k,l}((B(i,k,l) * C(k,j)) * D(l,j))");
}

#[test]
fn the_kernels_of_known_defect_7_are_accepted() {
    // s = x(i) + a(k, i), x Dense1, a Csr, scalar output.
    let k = kernel(
        vec![
            scalar_out("s"),
            input("x", alias("Dense1")),
            input("a", alias("Csr")),
        ],
        &[],
        add(acc(1, &[I]), acc(2, &[K, I])),
    );
    assert_eq!(limitations(&k), vec![]);
    // y(i) = -(a(i,j) * x(j)) with a Csc: accepted into a dense output (the root sum's
    // variable is free), and into a sparse one through a workspace holding all of it (rule
    // (d); appended directly, `j` would have to come after `i`).
    let neg = Expr::negate(Expr::paren(mul(acc(1, &[I, J]), acc(2, &[J]))));
    let params = |y: &str| {
        vec![
            output("y", alias(y)),
            input("a", alias("Csc")),
            input("x", alias("Dense1")),
        ]
    };
    assert_eq!(
        limitations(&kernel(params("Dense1"), &[I], neg.clone())),
        vec![]
    );
    assert_eq!(limitations(&kernel(params("SparseVec"), &[I], neg)), vec![]);
    // y(i,j) = f(j,k,i) + v(i), y Dense2, f Csf3.
    let k = kernel(
        vec![
            output("y", alias("Dense2")),
            input("f", alias("Csf3")),
            input("v", alias("Dense1")),
        ],
        &[I, J],
        add(acc(1, &[J, K, I]), acc(2, &[I])),
    );
    assert_eq!(limitations(&k), vec![]);
}

#[test]
fn dense_terms_with_opposite_orders_split_unless_the_output_order_is_shared() {
    // The UI test loop_order_cycle: a(i, j) = b(i, j) + c(j, i), a Dense2, b and c Csr.
    let k = kernel(
        vec![
            output("a", alias("Dense2")),
            input("b", alias("Csr")),
            input("c", alias("Csr")),
        ],
        &[I, J],
        add(acc(1, &[I, J]), acc(2, &[J, I])),
    );
    assert!(has_loop_order_with(&k, false));
    assert!(!has_loop_order_with(&k, true));
    // s = x(i) + a(k, i) has no output variables: the same under both rules.
    let k = kernel(
        vec![
            scalar_out("s"),
            input("x", alias("Dense1")),
            input("a", alias("Csr")),
        ],
        &[],
        add(acc(1, &[I]), acc(2, &[K, I])),
    );
    assert!(has_loop_order_with(&k, true));
}

#[test]
fn limitations_are_recognized() {
    // c(i, j) = a(j, i), both Csr: the output's order contradicts a's, so it is appended
    // through a workspace holding all of it.
    let k = kernel(
        vec![output("c", alias("Csr")), input("a", alias("Csr"))],
        &[I, J],
        acc(1, &[J, I]),
    );
    assert_eq!(limitations(&k), vec![]);
    // c(i, j) = a(j, i) * b(i, j), all Csr: one term walks a and b in opposite orders;
    // converting one of them into the other order gives a loop order (rule (e)).
    let k = kernel(
        vec![
            output("c", alias("Csr")),
            input("a", alias("Csr")),
            input("b", alias("Csr")),
        ],
        &[I, J],
        mul(acc(1, &[J, I]), acc(2, &[I, J])),
    );
    assert_eq!(limitations(&k), vec![]);
    assert!(conversion_applies(&k));
    // c(i, j) = a(j, i) * a(i, j): one operand in both orders, which no conversion fixes.
    let k = kernel(
        vec![output("c", alias("Csr")), input("a", alias("Csr"))],
        &[I, J],
        mul(acc(1, &[J, I]), acc(1, &[I, J])),
    );
    assert_eq!(limitations(&k), vec![Limitation::Order]);
    assert!(!conversion_applies(&k));
    // The same into a dense output is fine (a's order alone decides).
    let k = kernel(
        vec![output("c", alias("Dense2")), input("a", alias("Csr"))],
        &[I, J],
        acc(1, &[J, I]),
    );
    assert_eq!(limitations(&k), vec![]);
    // += into a sparse output (its old contents join the right side).
    let mut k = kernel(
        vec![output("c", alias("Csr")), input("a", alias("Csr"))],
        &[I, J],
        acc(1, &[I, J]),
    );
    k.accumulate = true;
    assert_eq!(limitations(&k), vec![]);
    // A sparse divisor.
    let k = kernel(
        vec![
            output("y", alias("Dense1")),
            input("a", alias("Dense1")),
            input("c", alias("SparseVec")),
        ],
        &[I],
        Expr::bin(Op::Div, acc(1, &[I]), add(lit(1.0), acc(2, &[I]))),
    );
    assert_eq!(limitations(&k), vec![Limitation::SparseDivisor]);
    // An output format that cannot be assembled.
    let ds = Format::explicit(
        &mut sparse_difftest_gen::rng::Rng::new(1),
        vec![Kind::Dense, Kind::Singleton],
        vec![0, 1],
    );
    let k = kernel(
        vec![output("c", ds), input("a", alias("Csr"))],
        &[I, J],
        acc(1, &[I, J]),
    );
    assert_eq!(limitations(&k), vec![Limitation::OutputFormat]);
}

#[test]
fn remapped_formats_sum_their_hidden_modes_inside_their_access() {
    use sparse_difftest_gen::semantics::with_hidden_vars;
    for name in ["Dia", "Bcsr", "Csb"] {
        let hidden = alias(name).hidden;
        // y(i) = A(i, j) * x(j): the hidden block (or diagonal) variables join the access.
        let spmv = |y: &str| {
            kernel(
                vec![
                    output("y", alias(y)),
                    input("A", alias(name)),
                    input("x", alias("Dense1")),
                ],
                &[I],
                mul(acc(1, &[I, J]), acc(2, &[J])),
            )
        };
        let (h, vars) = with_hidden_vars(&spmv("Dense1"));
        assert_eq!(vars.len(), hidden, "{name}");
        let Expr::Bin(_, a, _) = &h.rhs else {
            panic!("a product")
        };
        assert!(matches!(&**a, Expr::Access { vars, .. } if vars.len() == 2 + hidden));
        assert_eq!(limitations(&spmv("Dense1")), vec![], "{name}");
        // Into a sparse appended output, the hidden sums nest under the output's variables,
        // which the in-block (or in-diagonal) levels must follow: no order appends it
        // directly, but a workspace holding all of it does (rule (d)).
        assert_eq!(limitations(&spmv("SparseVec")), vec![], "{name}");
        assert_eq!(limitations(&spmv("HashVec")), vec![], "{name}");
        // Transposed SpMV into a dense output is fine.
        let k = kernel(
            vec![
                output("y", alias("Dense1")),
                input("A", alias(name)),
                input("x", alias("Dense1")),
            ],
            &[J],
            mul(acc(1, &[I, J]), acc(2, &[I])),
        );
        assert_eq!(limitations(&k), vec![], "{name}");
        // s = A(i, j) * B(j, i): each access wants its row before its column.
        let k = kernel(
            vec![
                scalar_out("s"),
                input("A", alias(name)),
                input("B", alias(name)),
            ],
            &[],
            mul(acc(1, &[I, J]), acc(2, &[J, I])),
        );
        assert_eq!(limitations(&k), vec![Limitation::Order], "{name}");
        // c(i, j) = A(i, j) + B(i, j) into a hash output: the hidden sums stay in their terms.
        let k = kernel(
            vec![
                output("c", alias("HashMat")),
                input("A", alias(name)),
                input("B", alias("Csr")),
            ],
            &[I, J],
            add(acc(1, &[I, J]), acc(2, &[I, J])),
        );
        assert_eq!(limitations(&k), vec![], "{name}");
        // An output of a remapped format cannot be assembled.
        let k = kernel(
            vec![output("c", alias(name)), input("a", alias("Csr"))],
            &[I, J],
            acc(1, &[I, J]),
        );
        assert!(
            limitations(&k).contains(&Limitation::OutputFormat),
            "{name}"
        );
    }
    // Bcsr's InBlock levels have no locate; Csb's levels are plain ones.
    assert_eq!(
        alias("Bcsr").kinds,
        vec![Kind::Dense, Kind::Compressed, Kind::InBlock, Kind::InBlock]
    );
    assert!(!Kind::InBlock.locate() && Kind::InBlock.unique() && !Kind::InBlock.singleton());
    assert_eq!(alias("Csb").modes, vec![2, 3, 0, 1]);
}

/// `k` with `#[schedule(workspace(var[, kind]))]`.
fn scheduled(k: &Kernel, var: &str, kind: Option<Accumulator>) -> Kernel {
    let mut k = k.clone();
    k.schedule = Some(Schedule {
        var: var.into(),
        kind,
    });
    k
}

fn at(level: usize, kind: Accumulator) -> Option<Placement> {
    Some(Placement { level, kind })
}

/// The oracle's verdict and the compiler's agree (the compiler's workspace included).
fn compiler_agrees(k: &Kernel) {
    let compiled = compile(k);
    let verdict = judge(k, &compiled);
    assert!(
        matches!(verdict, Verdict::Accepted | Verdict::RefusedAsExpected(_)),
        "{}\noracle: {:?}, {:?}; compiler: {compiled:?}",
        k.source(),
        limitations(k),
        workspace(k),
    );
}

#[test]
fn a_schedule_is_honoured_even_where_a_direct_order_exists() {
    use Accumulator::{Dense, Hash};
    // c(i, j) = a(i, j) * b(i, j), all Csr: appended directly without a schedule.
    let k = kernel(
        vec![
            output("c", alias("Csr")),
            input("a", alias("Csr")),
            input("b", alias("Csr")),
        ],
        &[I, J],
        mul(acc(1, &[I, J]), acc(2, &[I, J])),
    );
    assert_eq!(limitations(&k), vec![]);
    assert_eq!(workspace(&k), None);
    assert_eq!(workspace_levels(&k), vec![0, 1]);
    // workspace(j): rows appended by the loop over i, each row through a workspace; the
    // default accumulator of one workspace level is dense.
    let row = scheduled(&k, "j", None);
    assert_eq!(limitations(&row), vec![]);
    assert_eq!(workspace(&row), at(1, Dense));
    assert_eq!(workspace(&scheduled(&k, "j", Some(Hash))), at(1, Hash));
    // workspace(i): all of it in a workspace, hashed by default (two levels).
    assert_eq!(workspace(&scheduled(&k, "i", None)), at(0, Hash));
    assert_eq!(workspace(&scheduled(&k, "i", Some(Dense))), at(0, Dense));
    // A raw spelling names the same variable.
    assert_eq!(workspace(&scheduled(&k, "r#j", None)), at(1, Dense));
    for var in ["i", "j", "r#j"] {
        for kind in [None, Some(Dense), Some(Hash)] {
            compiler_agrees(&scheduled(&k, var, kind));
        }
    }
    // The output's storage order decides the level: a Csc output stores j first.
    let mut csc = k.clone();
    csc.params[0] = output("c", alias("Csc"));
    assert_eq!(workspace(&scheduled(&csc, "i", None)), at(1, Dense));
    assert_eq!(workspace(&scheduled(&csc, "j", None)), at(0, Hash));
    compiler_agrees(&scheduled(&csc, "i", None));
    compiler_agrees(&scheduled(&csc, "j", None));
}

#[test]
fn a_schedule_at_an_impossible_level_is_refused() {
    use Accumulator::{Dense, Hash};
    // c(i, j) = a(j, i), both Csr: no direct order; a workspace holding all of c works, one
    // per row does not (a's rows are c's columns).
    let k = kernel(
        vec![output("c", alias("Csr")), input("a", alias("Csr"))],
        &[I, J],
        acc(1, &[J, I]),
    );
    assert_eq!(workspace_levels(&k), vec![0]);
    // Without a schedule, a is converted instead (rule (e)): no workspace.
    assert!(conversion_applies(&k));
    assert_eq!(workspace(&k), None);
    assert_eq!(limitations(&scheduled(&k, "i", None)), vec![]);
    assert_eq!(workspace(&scheduled(&k, "i", None)), at(0, Hash));
    assert_eq!(
        limitations(&scheduled(&k, "j", Some(Dense))),
        vec![Limitation::Order]
    );
    compiler_agrees(&k);
    compiler_agrees(&scheduled(&k, "i", None));
    compiler_agrees(&scheduled(&k, "j", Some(Dense)));
    // Gustavson's SpGEMM: C(i,k) = A(i,j) * B(j,k), all Csr. The deepest workspace is a row
    // (the compiler's choice without a schedule); all of C also works.
    let spgemm = kernel(
        vec![
            output("C", alias("Csr")),
            input("A", alias("Csr")),
            input("B", alias("Csr")),
        ],
        &[I, K],
        mul(acc(1, &[I, J]), acc(2, &[J, K])),
    );
    assert_eq!(workspace(&spgemm), at(1, Dense));
    assert_eq!(workspace(&scheduled(&spgemm, "i", None)), at(0, Hash));
    compiler_agrees(&spgemm);
    compiler_agrees(&scheduled(&spgemm, "i", None));
    compiler_agrees(&scheduled(&spgemm, "k", Some(Hash)));
    // An output ending in a dense block is never copied out of a workspace: appended directly
    // it is accepted, scheduled it has no loop order.
    let block = Format::explicit(
        &mut sparse_difftest_gen::rng::Rng::new(1),
        vec![Kind::Compressed, Kind::Dense],
        vec![0, 1],
    );
    let k = kernel(
        vec![output("c", block), input("a", alias("Csr"))],
        &[I, J],
        acc(1, &[I, J]),
    );
    assert_eq!(limitations(&k), vec![]);
    assert_eq!(workspace_levels(&k), Vec::<usize>::new());
    for var in ["i", "j"] {
        let s = scheduled(&k, var, None);
        assert_eq!(limitations(&s), vec![Limitation::Order], "{var}");
        compiler_agrees(&s);
    }
}

#[test]
fn schedules_the_compiler_cannot_honour_are_refused_by_kind() {
    // A scalar output.
    let dot = kernel(
        vec![
            scalar_out("s"),
            input("x", alias("SparseVec")),
            input("y", alias("Dense1")),
        ],
        &[],
        mul(acc(1, &[I]), acc(2, &[I])),
    );
    let s = scheduled(&dot, "i", None);
    assert_eq!(limitations(&s), vec![Limitation::ScheduleScalar]);
    compiler_agrees(&s);
    // Outputs written in place: dense, and dense rows of a hash table.
    for out in ["Dense2", "HashMat"] {
        let k = kernel(
            vec![output("c", alias(out)), input("a", alias("Csr"))],
            &[I, J],
            acc(1, &[I, J]),
        );
        let s = scheduled(&k, "j", Some(Accumulator::Dense));
        assert_eq!(limitations(&s), vec![Limitation::ScheduleInPlace], "{out}");
        compiler_agrees(&s);
    }
    // A variable that does not index the output: a reduction variable, or an unused name.
    let spmv = kernel(
        vec![
            output("y", alias("SparseVec")),
            input("A", alias("Csr")),
            input("x", alias("Dense1")),
        ],
        &[I],
        mul(acc(1, &[I, J]), acc(2, &[J])),
    );
    assert_eq!(limitations(&spmv), vec![]);
    for var in ["j", "q"] {
        let s = scheduled(&spmv, var, None);
        assert_eq!(limitations(&s), vec![Limitation::ScheduleVar], "{var}");
        compiler_agrees(&s);
    }
    // `+=` into a scheduled output: its old contents join the right side, in the workspace.
    let mut update = scheduled(&spmv, "i", Some(Accumulator::Hash));
    update.accumulate = true;
    assert_eq!(limitations(&update), vec![]);
    assert_eq!(workspace(&update), at(0, Accumulator::Hash));
    compiler_agrees(&update);
    // The directive is checked after the statement: a kernel refused for another reason is
    // refused for it.
    let ds = Format::explicit(
        &mut sparse_difftest_gen::rng::Rng::new(1),
        vec![Kind::Dense, Kind::Singleton],
        vec![0, 1],
    );
    let k = kernel(
        vec![output("c", ds), input("a", alias("Csr"))],
        &[I, J],
        acc(1, &[I, J]),
    );
    let s = scheduled(&k, "j", None);
    assert_eq!(limitations(&s), vec![Limitation::OutputFormat]);
    compiler_agrees(&s);
}

#[test]
fn a_schedule_renders_as_an_attribute() {
    let k = kernel(
        vec![output("y", alias("SparseVec")), input("a", alias("Csr"))],
        &[I],
        acc(1, &[I, J]),
    );
    let s = scheduled(&k, "r#i", Some(Accumulator::Hash));
    let src = s.source();
    assert!(
        src.starts_with("#[schedule(workspace(r#i, hash))]\nfn k0(y: &mut SparseVec<f64>"),
        "{src}"
    );
    syn_parses(&src);
    assert!(matches!(compile(&s), Compiled::Accepted(w) if matches!(w[..], [Some(_)])));
}

fn stored(shape: &[usize], entries: &[(&[usize], f64)]) -> Option<Stored> {
    Some(Stored {
        shape: shape.to_vec(),
        entries: entries.iter().map(|(c, v)| (c.to_vec(), *v)).collect(),
        mags: Vec::new(),
        fill: 0.0,
    })
}

#[test]
fn defect_1_reference_is_zero_where_the_sparse_factor_is_empty() {
    // y(i) = (b(i) + c(i)) * x(i), b SparseVec, c Dense1, x SparseVec and empty.
    let k = kernel(
        vec![
            output("y", alias("Dense1")),
            input("b", alias("SparseVec")),
            input("c", alias("Dense1")),
            input("x", alias("SparseVec")),
        ],
        &[I],
        mul(Expr::paren(add(acc(1, &[I]), acc(2, &[I]))), acc(3, &[I])),
    );
    let tensors = vec![
        None,
        stored(&[3], &[(&[1], 2.0)]),
        stored(&[3], &[(&[0], 1.0), (&[1], 1.0), (&[2], 1.0)]),
        stored(&[3], &[]),
    ];
    let points = evaluate(&k, &[3], &tensors, &[0.0; 4]);
    let old: Vec<(Vec<usize>, f64)> = (0..3).map(|i| (vec![i], 7.0)).collect();
    let zeros: Vec<(Vec<usize>, f64)> = (0..3).map(|i| (vec![i], 0.0)).collect();
    assert_eq!(check_dense(&k, &points, &old, &zeros), Ok(()));
    let err = check_dense(&k, &points, &old, &old).unwrap_err();
    assert!(err.contains("the stale value was left"), "{err}");
}

#[test]
fn defect_6_presence_stores_only_contributed_coordinates() {
    // y(i) = A(i,j) * x(j), x and y SparseVec: only rows meeting x are present.
    let k = kernel(
        vec![
            output("y", alias("SparseVec")),
            input("A", alias("Csr")),
            input("x", alias("SparseVec")),
        ],
        &[I],
        mul(acc(1, &[I, J]), acc(2, &[J])),
    );
    let tensors = vec![
        None,
        stored(&[3, 2], &[(&[0, 0], 1.0), (&[1, 1], 2.0), (&[2, 0], 0.0)]),
        stored(&[2], &[(&[0], 3.0)]),
    ];
    let ev = evaluation(&k, &[3, 2], &tensors, &[0.0; 3]);
    let present: Vec<bool> = ev.points.iter().map(|p| p.present).collect();
    // Row 2 holds an explicit zero that meets x: present, with value 0.
    assert_eq!(present, vec![true, false, true]);
    let out = |entries: Vec<(Vec<usize>, f64)>| SparseOut { entries, fill: 0.0 };
    let none = out(Vec::new());
    let good = out(vec![(vec![0], 3.0), (vec![2], 0.0)]);
    assert_eq!(check_sparse(&k, &ev, &none, &good), Ok(()));
    let all = out(vec![(vec![0], 3.0), (vec![1], 0.0), (vec![2], 0.0)]);
    let err = check_sparse(&k, &ev, &none, &all).unwrap_err();
    assert!(
        err.contains("[1] is stored (value 0) but nothing contributes there"),
        "{err}"
    );
    let twice = out(vec![(vec![0], 3.0), (vec![0], 3.0), (vec![2], 0.0)]);
    assert!(check_sparse(&k, &ev, &none, &twice)
        .unwrap_err()
        .contains("stored 2 times"));
    // The output's fill value is the right side's (0 here).
    let filled = SparseOut {
        fill: 1.0,
        ..good.clone()
    };
    assert!(check_sparse(&k, &ev, &none, &filled)
        .unwrap_err()
        .contains("fill value"));
}

#[test]
fn integer_kernels_divide_like_rust_and_compare_exactly() {
    // y(i) = a(i) / d(i) over i64 truncates.
    let mut k = kernel(
        vec![
            output("y", alias("Dense1")),
            input("a", alias("Dense1")),
            input("d", alias("Dense1")),
        ],
        &[I],
        Expr::bin(Op::Div, acc(1, &[I]), acc(2, &[I])),
    );
    k.vt = ValTy::I64;
    let tensors = vec![
        None,
        stored(&[2], &[(&[0], 3.0), (&[1], -3.0)]),
        stored(&[2], &[(&[0], 2.0), (&[1], 2.0)]),
    ];
    let points = evaluate(&k, &[2], &tensors, &[0.0; 3]);
    let values: Vec<Option<f64>> = points.iter().map(|p| p.value).collect();
    assert_eq!(values, vec![Some(1.0), Some(-1.0)]);
    let off = vec![(vec![0], 1.0), (vec![1], -2.0)];
    assert!(check_dense(&k, &points, &[], &off).is_err());
}

#[test]
fn generated_source_renders_precedence() {
    let k = kernel(
        vec![
            output("y", alias("Dense1")),
            input("a", alias("Dense1")),
            input("b", alias("Dense1")),
        ],
        &[I],
        sub(
            mul(Expr::negate(add(acc(1, &[I]), acc(2, &[I]))), acc(1, &[I])),
            sub(acc(2, &[I]), Expr::negate(Expr::negate(acc(1, &[I])))),
        ),
    );
    assert_eq!(
        k.render_expr(&k.rhs),
        "-(a(i) + b(i)) * a(i) - (b(i) - -(-a(i)))"
    );
    let src = k.source();
    // A dense parameter may be declared as a slice (`Kernel::borrowed`).
    let ty = |p: usize| k.param_type(p, k.params[p].format().unwrap());
    let signature = format!("fn k0(y: &mut {}, a: &{}, b: &{})", ty(0), ty(1), ty(2));
    assert!(src.starts_with(&signature), "{src}");
    syn_parses(&src);
}

#[test]
fn a_quarter_of_the_dense_parameters_are_borrowed() {
    let mut k = kernel(
        vec![
            output("y", alias("Dense2")),
            input("a", alias("Dense1")),
            input("b", alias("Csr")),
        ],
        &[I, J],
        acc(2, &[I, J]),
    );
    let mut borrowed = [0; 3];
    for id in 0..400 {
        k.id = id;
        for (p, count) in borrowed.iter_mut().enumerate() {
            *count += usize::from(k.borrowed(p).is_some());
        }
        let src = k.source();
        assert_eq!(
            src.contains("y: &mut Dense2ViewMut<'_, f64>"),
            k.borrowed(0) == Some(2),
            "{src}"
        );
        assert_eq!(src.contains("a: &[f64]"), k.borrowed(1) == Some(1), "{src}");
    }
    assert!(
        (70..130).contains(&borrowed[0]) && (70..130).contains(&borrowed[1]),
        "{borrowed:?}"
    );
    assert_eq!(borrowed[2], 0, "a sparse parameter is never borrowed");
}

fn syn_parses(src: &str) {
    let item: Result<syn::ItemFn, _> = syn::parse_str(src);
    assert!(item.is_ok(), "{src}");
}

#[test]
fn generation_is_deterministic_and_parses() {
    let mut schedules = std::collections::BTreeSet::new();
    for seed in 0..2000 {
        let k = sparse_difftest_gen::generate(seed);
        assert_eq!(k, sparse_difftest_gen::generate(seed));
        if let Some(s) = &k.schedule {
            let output = match k.out_format() {
                None => "scalar",
                Some(_) if k.in_place_output() => "in place",
                Some(_) => "appended",
            };
            schedules.insert((output, limitations(&k).first().copied(), s.kind));
        }
        // Depth 6, or a chain of up to 10 operands (the wide template) with decorations.
        assert!(k.rhs.depth() <= 14, "seed {seed}");
        for p in &k.params {
            if let Some(f) = p.format() {
                assert!(f.is_valid(), "seed {seed}: {f:?}");
            }
        }
        syn_parses(&k.source());
    }
    // Schedules are drawn on every kind of output, accepted and refused for each reason.
    for lim in [None, Some(Limitation::Order), Some(Limitation::ScheduleVar)] {
        assert!(
            schedules.iter().any(|s| s.0 == "appended" && s.1 == lim),
            "{lim:?}: {schedules:?}"
        );
    }
    assert!(schedules.iter().any(|s| s.0 == "in place"));
    assert!(schedules.iter().any(|s| s.0 == "scalar"));
    for kind in [None, Some(Accumulator::Dense), Some(Accumulator::Hash)] {
        assert!(schedules.iter().any(|s| s.2 == kind));
    }
}

#[test]
fn sequences_draw_every_construct_and_accept_iff_every_statement_does() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..1500 {
        let k = sparse_difftest_gen::generate(seed);
        if !k.is_sequence() {
            continue;
        }
        let src = k.source();
        syn_parses(&src);
        assert!((2..=4).contains(&k.statements.len()), "seed {seed}");
        assert!(
            k.schedule.is_none(),
            "seed {seed}: schedules go on statements"
        );
        let mut union = Vec::new();
        for step in k.steps() {
            for l in limitations(&step) {
                if !union.contains(&l) {
                    union.push(l);
                }
            }
        }
        assert_eq!(limitations(&k), union, "seed {seed}");
        for (s, st) in k.statements.iter().enumerate() {
            let step = k.step(s);
            if let Target::Param(p) = st.target {
                if k.statements[..s].iter().any(|e| e.target == st.target) {
                    seen.insert("an output written twice");
                }
                let mut own = false;
                st.rhs.visit(&mut |e| {
                    own |= matches!(e, Expr::Access { param, .. } if *param == p);
                });
                if own {
                    seen.insert("an output read by its own statement");
                }
            } else {
                seen.insert("let");
            }
            let mut reads_temporary = false;
            st.rhs.visit(&mut |e| {
                reads_temporary |= matches!(e, Expr::Scalar { param } if *param >= k.params.len());
            });
            if reads_temporary {
                seen.insert("a temporary read");
            }
            if st.schedule.is_some() {
                seen.insert("a statement schedule");
            }
            match (st.accumulate, st.subtract) {
                (true, true) => seen.insert("-="),
                (true, false) => seen.insert("+="),
                _ => false,
            };
            if st.subtract && limitations(&step).is_empty() {
                seen.insert("an accepted -=");
            }
        }
        if src.contains(" / ") && src.contains("let ") {
            seen.insert("a divisor in a kernel with temporaries");
        }
        let outputs = k
            .params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Output(_)))
            .count();
        if outputs >= 2 {
            seen.insert("two tensor outputs");
        }
    }
    for what in [
        "an output written twice",
        "an output read by its own statement",
        "let",
        "a temporary read",
        "a statement schedule",
        "-=",
        "+=",
        "an accepted -=",
        "a divisor in a kernel with temporaries",
        "two tensor outputs",
    ] {
        assert!(seen.contains(what), "no sequence with {what}: {seen:?}");
    }
}

#[test]
fn a_sequence_reads_what_earlier_statements_wrote_and_subtracts_on_the_union() {
    // y(i) = x(i); let t = y(i) * y(i); y(i) -= t * z(i);  y, x, z SparseVec.
    let y = output("y", alias("SparseVec"));
    let x = input("x", alias("SparseVec"));
    let z = input("z", alias("SparseVec"));
    let mut k = kernel(vec![y, x, z], &[I], acc(1, &[I]));
    let statement = |target, out_vars: &[usize], subtract, rhs| Statement {
        target,
        out_vars: out_vars.to_vec(),
        accumulate: subtract,
        subtract,
        rhs,
        schedule: None,
    };
    k.statements = vec![
        statement(Target::Param(0), &[I], false, acc(1, &[I])),
        statement(
            Target::Temporary(0),
            &[],
            false,
            mul(acc(0, &[I]), acc(0, &[I])),
        ),
        statement(
            Target::Param(0),
            &[I],
            true,
            mul(Expr::Scalar { param: 3 }, acc(2, &[I])),
        ),
    ];
    k.temporaries = vec!["t".into()];
    assert_eq!(
        k.source(),
        "fn k0(y: &mut SparseVec<f64>, x: &SparseVec<f64>, z: &SparseVec<f64>) {\n    y(i) = x(i);\n    let t = y(i) * y(i);\n    y(i) -= t * z(i)\n}"
    );
    assert!(limitations(&k).is_empty());
    let tensors = vec![
        stored(&[3], &[(&[1], 5.0)]),
        stored(&[3], &[(&[0], 1.0), (&[2], 2.0)]),
        stored(&[3], &[(&[1], 1.0)]),
    ];
    let result = evaluate_sequence(&k, &[3], &tensors, &[0.0; 3]);
    let y: Vec<(Vec<usize>, Option<f64>)> = result.outputs[0]
        .as_ref()
        .expect("an output")
        .iter()
        .map(|c| (c.coord.clone(), c.value))
        .collect();
    assert_eq!(
        y,
        vec![
            (vec![0], Some(1.0)),
            (vec![1], Some(-5.0)),
            (vec![2], Some(2.0))
        ]
    );
    assert!(!result.undefined);
}
