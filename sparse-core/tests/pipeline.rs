//! The compiler's stages on canonical kernels: loop orders from the iteration graph, merge
//! lattices and their property-based optimizations, sum placement.

use sparse_core::lattice::{Iter, LevelInfo, MergeLattice};
use sparse_core::notation::{AccessId, Expr};
use sparse_core::workspace::Kind;
use sparse_core::{compile, Compiled};

fn compiled(src: &str) -> Compiled {
    let item: syn::ItemFn = syn::parse_str(src).expect("test kernel parses");
    compile(&item).unwrap_or_else(|e| panic!("kernel does not compile: {e}"))
}

fn order(src: &str) -> Vec<String> {
    let c = compiled(src);
    c.orders[0]
        .iter()
        .map(|&v| c.kernel.vars[v].name.to_string())
        .collect()
}

#[test]
fn loop_orders_follow_storage_order() {
    let spmv = |fmt: &str| {
        order(&format!(
            "fn f(y: &mut Dense1<f64>, a: &{fmt}<f64>, x: &Dense1<f64>) {{ y(i) = a(i, j) * x(j) }}"
        ))
    };
    assert_eq!(spmv("Csr"), ["i", "j"]);
    assert_eq!(spmv("Csc"), ["j", "i"]);
    assert_eq!(spmv("Coo"), ["i", "j"]);
    assert_eq!(spmv("Dense2"), ["i", "j"]);
    // SpMM walks rows of B inside rows of A (linear combination of rows).
    assert_eq!(
        order("fn f(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
        ["i", "k", "j"]
    );
    // MTTKRP iterates B's levels in order and accumulates into A.
    assert_eq!(
        order("fn f(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, k, l) * c(k, j) * d(l, j) }"),
        ["i", "k", "l", "j"]
    );
    // A sparse output cannot accumulate: its variables come before the reduction.
    assert_eq!(
        order("fn f(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, j) * c(i, k) * d(k, j) }"),
        ["i", "j", "k"]
    );
}

#[test]
fn sums_look_through_additions_only() {
    let c = compiled(
        "fn f(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { r(i) = b(i) - a(i, j) * x(j) }",
    );
    let Expr::Binary(_, l, r) = &c.kernel.rhs else {
        panic!("expected a subtraction at the root, got {:?}", c.kernel.rhs)
    };
    assert!(matches!(**l, Expr::Access(_)));
    assert!(matches!(**r, Expr::Sum(ref v, _) if v.len() == 1));
    let c = compiled(
        "fn f(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, k, l) * c(k, j) * d(l, j) }",
    );
    assert!(matches!(c.kernel.rhs, Expr::Sum(ref v, _) if v.len() == 2));
}

/// Accesses 0.. iterate the current variable; `full` lists the dense ones.
struct Levels {
    full: Vec<AccessId>,
}

impl LevelInfo for Levels {
    fn level_of(&self, _: AccessId) -> Option<usize> {
        Some(0)
    }
    fn is_full(&self, it: Iter) -> bool {
        match it {
            Iter::Universe => true,
            Iter::Level { access, .. } => self.full.contains(&access),
        }
    }
    fn has_locate(&self, it: Iter) -> bool {
        self.is_full(it)
    }
    fn iterates_positions(&self, it: Iter) -> bool {
        !self.is_full(it)
    }
    fn settled(&self, _: AccessId) -> bool {
        true
    }
}

fn lattice(src: &str, full: &[AccessId]) -> Vec<Vec<AccessId>> {
    let c = compiled(src);
    let info = Levels {
        full: full.to_vec(),
    };
    let lattice = MergeLattice::build(&c.kernel.rhs, &c.kernel, &info);
    lattice
        .points
        .iter()
        .map(|p| {
            p.iters
                .iter()
                .map(|it| match it {
                    Iter::Level { access, .. } => *access,
                    Iter::Universe => usize::MAX,
                })
                .collect()
        })
        .collect()
}

#[test]
fn merge_lattices_union_intersection_and_pruning() {
    // Access ids: 0 is the output, then the right side left to right.
    let add = "fn f(a: &mut SparseVec<f64>, b: &SparseVec<f64>, c: &SparseVec<f64>) { a(i) = b(i) + c(i) }";
    assert_eq!(lattice(add, &[]), vec![vec![1, 2], vec![1], vec![2]]);
    let mul = "fn f(a: &mut SparseVec<f64>, b: &SparseVec<f64>, c: &SparseVec<f64>) { a(i) = b(i) * c(i) }";
    assert_eq!(lattice(mul, &[]), vec![vec![1, 2]]);
    // b + D: once the full D is exhausted every coordinate was visited.
    assert_eq!(lattice(add, &[2]), vec![vec![1, 2], vec![2]]);
    // b * D + c: D is only located, so it covers nothing and nothing is pruned.
    let mixed = "fn f(a: &mut SparseVec<f64>, b: &SparseVec<f64>, d: &Dense1<f64>, c: &SparseVec<f64>) { a(i) = b(i) * d(i) + c(i) }";
    assert_eq!(
        lattice(mixed, &[2]),
        vec![vec![1, 2, 3], vec![1, 2], vec![3]]
    );
    // A scalar added to a sparse vector is nonzero everywhere: the universe joins every point.
    let shift = "fn f(a: &mut Dense1<f64>, b: &SparseVec<f64>, s: f64) { a(i) = b(i) + s }";
    assert_eq!(
        lattice(shift, &[]),
        vec![vec![1, usize::MAX], vec![usize::MAX]]
    );
}

#[test]
fn ir_prints_as_pseudocode() {
    let text = listing(
        "fn f(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }",
    );
    // The rows of the dense output are independent: they are split into parallel tasks, each
    // running the loop over its rows and writing them, indexed from its first row's position.
    assert!(text.starts_with("parallel rows 0..dim_i {"), "{text}");
    assert!(text.contains("for i in row_lo..row_hi {"), "{text}");
    assert!(text.contains("t0 += (a_vals[p_a1] * x_vals[j])"), "{text}");
    assert!(text.contains("y_vals[(i - row_base)] = t0"), "{text}");
}

#[test]
fn statements_split_when_no_single_order_exists() {
    let c = compiled(
        "fn f(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) { r(i) = b(i) - a(i, j) * x(j) }",
    );
    let names = |o: &Vec<usize>| -> Vec<String> {
        o.iter()
            .map(|&v| c.kernel.vars[v].name.to_string())
            .collect()
    };
    assert_eq!(c.orders.len(), 2);
    assert_eq!(names(&c.orders[1]), ["j", "i"]);
    // A dense output can be written in any order, so each term may follow its own operands.
    let item: syn::ItemFn = syn::parse_str(
        "fn f(a: &mut Dense2<f64>, b: &Csr<f64>, c: &Csr<f64>) { a(i, j) = b(i, j) + c(j, i) }",
    )
    .unwrap();
    let split = compile(&item).expect("a dense output is split into two nests");
    assert_eq!(split.orders.len(), 2);
    // Terms regroup freely (first fit): alternating orders still make two nests.
    let item: syn::ItemFn = syn::parse_str(
        "fn f(a: &mut Dense2<f64>, b: &Csr<f64>, c: &Csr<f64>) { a(i, j) = b(i, j) + c(j, i) - b(i, j) + c(j, i) }",
    )
    .unwrap();
    assert_eq!(compile(&item).expect("split").orders.len(), 2);
    // A sparse output cannot accumulate, and no workspace below its rows exists: `c` is
    // converted on entry into its transpose's order, and one nest merges.
    let plus_transpose =
        "fn f(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) { a(i, j) = b(i, j) + c(j, i) }";
    let c = compile(&syn::parse_str(plus_transpose).unwrap()).expect("a conversion");
    assert!(c.workspace.is_none());
    assert_eq!(c.orders.len(), 1);
    let converted: Vec<_> = c.kernel.conversions.iter().map(|v| v.tensor).collect();
    assert_eq!(converted, [2]);
    assert_eq!(c.kernel.tensors[2].format.mode_order, [1, 0]);
    assert_eq!(c.kernel.param_format(2).mode_order, [0, 1]);
    // A schedule can still ask for a workspace holding all of it, which two nests fill.
    let item: syn::ItemFn =
        syn::parse_str(&format!("#[schedule(workspace(i))] {plus_transpose}")).unwrap();
    let c = compile(&item).expect("a workspace over the whole output");
    let w = c.workspace.as_ref().expect("a workspace");
    assert_eq!((w.level, w.kind), (0, Kind::Hash));
    assert_eq!(c.orders.len(), 2);
    assert!(c.kernel.conversions.is_empty());
    // A product traversing two operands in opposite orders converts one of them; forbidden,
    // the error names the conversion a caller can make.
    let product =
        "fn f(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) { a(i, j) = b(i, j) * c(j, i) }";
    let c = compile(&syn::parse_str(product).unwrap()).expect("a conversion");
    assert_eq!(c.kernel.conversions.len(), 1);
    let item: syn::ItemFn =
        syn::parse_str(&format!("#[schedule(convert(never))] {product}")).unwrap();
    let err = compile(&item).err().expect("no order without a conversion");
    assert!(
        err.to_string()
            .contains("`convert(never)` forbids converting it"),
        "{err}"
    );
    let item: syn::ItemFn = syn::parse_str(
        "#[schedule(convert(never))] fn f(r: &mut Csr<f64>, a: &Csc<f64>, b: &Csr<f64>) { r(i, j) = a(i, j) * b(i, j) }",
    )
    .unwrap();
    let err = compile(&item).err().expect("no order for a sparse output");
    assert!(
        err.to_string().contains("let a: Csr<_> = a.convert()?;"),
        "{err}"
    );
    // Gustavson's workspace below the rows comes before a conversion.
    let item: syn::ItemFn = syn::parse_str(
        "fn f(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }",
    )
    .unwrap();
    let c = compile(&item).expect("Gustavson");
    assert!(c.kernel.conversions.is_empty());
    assert_eq!(c.workspace.as_ref().map(|w| w.level), Some(1));
}

/// `order(..)` fixes the listed loops' nesting in every nest; the others go where the
/// compiler puts them.
#[test]
fn scheduled_orders_are_followed() {
    let order_of = |src: &str| -> Vec<Vec<String>> {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let c = compile(&item).unwrap_or_else(|e| panic!("{e}"));
        c.orders
            .iter()
            .map(|o| {
                o.iter()
                    .map(|&v| c.kernel.vars[v].name.to_string())
                    .collect()
            })
            .collect()
    };
    assert_eq!(
        order_of("#[schedule(order(k, j, i))] fn f(c: &mut Dense2<f64>, a: &Dense2<f64>, b: &Dense2<f64>) { c(i, k) = a(i, j) * b(j, k) }"),
        [["k", "j", "i"]]
    );
    assert_eq!(
        order_of("#[schedule(order(j, i))] fn f(c: &mut Dense2<f64>, a: &Dense2<f64>, b: &Dense2<f64>) { c(i, k) = a(i, j) * b(j, k) }")[0][..2],
        ["j", "i"]
    );
    // Every nest of a split statement follows it.
    assert_eq!(
        order_of("#[schedule(order(j, i))] fn f(r: &mut Dense2<f64>, b: &Dense2<f64>, a: &Csc<f64>) { r(i, j) = b(i, j) - a(i, j) }"),
        [["j", "i"]]
    );
}

/// The IR listing of a kernel's body.
fn listing(src: &str) -> String {
    let c = compiled(src);
    sparse_core::ir::Listing {
        stmts: &c.body,
        names: &c.names,
    }
    .to_string()
}

#[test]
fn scalar_reductions_fold_in_parallel_only_where_reassociation_is_sound() {
    let folds = |src: &str| listing(src).contains("parallel fold of t0 over");
    // Float sums over rows, over a sparse root's positions, and folds by `max` and `any`.
    assert!(folds(
        "fn f(s: &mut f64, a: &Csr<f64>, b: &Csr<f64>) { s = a(i, j) * b(i, j) }"
    ));
    assert!(folds(
        "fn f(s: &mut f64, x: &SparseVec<f64>, y: &Dense1<f64>) { s = x(i) * y(i) }"
    ));
    assert!(folds(
        "fn f(s: &mut f64, x: &Dense1<f64>) { s = max[i](x(i)) }"
    ));
    assert!(folds(
        "fn f(s: &mut u8, a: &Csr<u8>) { s = any[i](any[j](a(i, j))) }"
    ));
    // `min` over integers cannot overflow; a sum or a product of integers can, reassociated.
    assert!(folds(
        "fn f(s: &mut i64, x: &Dense1<i64>) { s = min[i](x(i)) }"
    ));
    assert!(!folds(
        "fn f(s: &mut i64, x: &Dense1<i64>, y: &Dense1<i64>) { s = x(i) * y(i) }"
    ));
    assert!(!folds(
        "fn f(s: &mut i64, x: &Dense1<i64>) { s = prod[i](x(i)) }"
    ));
    // A merge of two sparse vectors is one loop over both: nothing to cut into chunks.
    assert!(!folds(
        "fn f(s: &mut f64, x: &SparseVec<f64>, y: &SparseVec<f64>) { s = x(i) * y(i) }"
    ));
    // A tensor output splits by rows instead; a reduction inside a row stays in its row.
    assert!(!folds(
        "fn f(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
    // `parallel(never)` keeps the loop's order.
    assert!(!folds(
        "#[schedule(parallel(never))]
        fn f(s: &mut f64, x: &Dense1<f64>, y: &Dense1<f64>) { s = x(i) * y(i) }"
    ));
}
