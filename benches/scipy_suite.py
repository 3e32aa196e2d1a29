#!/usr/bin/env python3
"""SciPy on the matrices of the `suite` bench, for the kernels SciPy has.

The matrices are generated in Rust, so the bench writes them out first:

    SPARSE_SUITE_DUMP=/tmp/suite cargo bench -p sparse-benches --bench suite
    python3 benches/scipy_suite.py /tmp/suite [--repeat 10] [--filter spmv]

With `SPARSE_SUITE_DUMP=dir` the bench writes into `dir`: each matrix dataset `DS` and the
second operand of its sums and inner products `DS_b` (raw little-endian arrays
`NAME.rowptr.u32`, `NAME.colidx.u32`, `NAME.vals.f64` and a `NAME.shape` line
`rows cols nnz`, as `sparse_benches::dump_csr` writes them); `suite_cases.tsv`, one line per
kernel and dataset, `kernel dataset count sum` (the number of stored values and their sum of
the hand-written reference's result, which every Rust contender matched); `suite_times.tsv`,
`kernel dataset contender threads median_ms fastest_ms` of every Rust contender; and
`suite.meta` (scale, rounds, triad GB/s). The dump of a full-scale run takes about 1 GB; use
`SPARSE_SUITE_SCALE` and `SPARSE_SUITE_FILTER` for less. (`-- --test` dumps the tiny test-mode
matrices, which checks this script quickly.)

For each case of a kernel SciPy has, the script rebuilds the operands (`x` and the dense
matrices are the bench's `test_vector` formula, so they are recomputed here), runs SciPy once
and checks the result's count and sum against `suite_cases.tsv`, then times it: `--repeat`
single calls (fewer for calls over a few seconds, at least 3), median in ms. It prints a table
of SciPy's median, the generated kernel's median at 1 thread and the fastest Rust peer's
median from `suite_times.tsv` (same machine, but another process and another moment: compare
ratios, not a few percent), and generated / SciPy (below 1: generated faster).

Kernels and their SciPy forms (`A` a `csr_matrix` with int32 indices, sorted rows):

- `spmv_csr` `A @ x`, `spmv_csc` `A.tocsc() @ x`, `spmv_coo` `A.tocoo() @ x` (the conversion
  outside the timing), `spmm` `A @ B` (`B` rows x 16, C order), `residual` `b - A @ x`;
- `spgemm` `A @ A`, `add` `A + B`; `inner_same` `A.multiply(A2).sum()` (`A2` the same pattern,
  values times `1 + p % 3`), `inner_diff` `A.multiply(B).sum()`: these two build the product
  matrix first, SciPy has no fused sparse inner product;
- `construct`: `coo_matrix((v, (i, j)), shape).tocsr()` on the entries of `A` shuffled by
  NumPy (`default_rng(5)`: another order than the bench's, the same entries).

SciPy's sparse kernels are single-threaded C++ (sparsetools); compare with the 1-thread column.

Requirements: numpy and scipy (`python3 -m pip install scipy`).
"""

import argparse
import collections
import pathlib
import statistics
import sys
import timeit

import numpy as np
import scipy
import scipy.sparse as sp

# The reader of `dump_csr`'s files, shared with the SpGEMM script beside this one.
import scipy_spgemm

K = 16


def test_vector(n):
    """`sparse_benches::test_vector(n)`."""
    j = np.arange(n, dtype=np.int64)
    return ((j * 7919) % 1000) / 1000.0 - 0.5


def load_matrix(directory, name, cache):
    """`scipy_spgemm.load_matrix`, keeping one dataset at a time (the full-scale matrices
    are large)."""
    if name not in cache:
        cache.clear()
    return scipy_spgemm.load_matrix(directory, name, cache)


def median_ms(stmt, repeat):
    """Median and fastest of `repeat` timed calls (one call each), in ms; fewer runs for slow
    calls."""
    first = timeit.timeit(stmt, number=1)
    runs = max(3, min(repeat, int(30.0 / max(first, 1e-9))))
    times = timeit.repeat(stmt, number=1, repeat=runs)
    return 1e3 * statistics.median(times), 1e3 * min(times)


def checksum(result):
    """(count, sum) of a result as `suite_cases.tsv` counts it."""
    if sp.issparse(result):
        result = result.tocsr()
        return result.nnz, float(result.data.sum())
    if np.isscalar(result) or np.ndim(result) == 0:
        return 1, float(result)
    return np.size(result), float(np.sum(result))


def case_callable(kernel, a, b):
    """A no-argument function computing `kernel` with SciPy, or None if SciPy lacks it."""
    rows, cols = a.shape
    x = test_vector(cols)
    if kernel == "spmv_csr":
        return lambda: a @ x
    if kernel == "spmv_csc":
        c = a.tocsc()
        return lambda: c @ x
    if kernel == "spmv_coo":
        c = a.tocoo()
        return lambda: c @ x
    if kernel == "spmm":
        dense = test_vector(cols * K).reshape(cols, K)
        return lambda: a @ dense
    if kernel == "residual":
        rhs = test_vector(rows + 3)[3:]
        return lambda: rhs - a @ x
    if kernel == "spgemm":
        return lambda: a @ a
    if kernel == "add":
        return lambda: a + b
    if kernel == "inner_same":
        a2 = a.copy()
        a2.data = a.data * (1.0 + np.arange(a.nnz) % 3)
        return lambda: a.multiply(a2).sum()
    if kernel == "inner_diff":
        return lambda: a.multiply(b).sum()
    if kernel == "construct":
        coo = a.tocoo()
        order = np.random.default_rng(5).permutation(coo.nnz)
        i, j, v = coo.row[order], coo.col[order], coo.data[order]
        return lambda: sp.coo_matrix((v, (i, j)), shape=a.shape).tocsr()
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=pathlib.Path, help="the SPARSE_SUITE_DUMP directory")
    parser.add_argument("--repeat", type=int, default=10, help="timed calls per case")
    parser.add_argument("--filter", default="", help="substring of kernel/dataset")
    args = parser.parse_args()

    meta = dict(
        line.split(maxsplit=1) for line in (args.dir / "suite.meta").read_text().splitlines()
    )
    cases = [line.split("\t") for line in (args.dir / "suite_cases.tsv").read_text().splitlines()]
    rust = collections.defaultdict(list)
    times_path = args.dir / "suite_times.tsv"
    if times_path.exists():
        for line in times_path.read_text().splitlines():
            kernel, dataset, contender, threads, med, fastest = line.split("\t")
            rust[(kernel, dataset)].append((contender, int(threads), float(med), float(fastest)))
    print(
        f"SciPy {scipy.__version__}, NumPy {np.__version__}; Rust dump at scale 1/{meta['scale']}"
        f" ({meta['rounds']} rounds); medians in ms; the fastest calls' ratio as well (steadier"
        " on a machine with slow phases)",
        file=sys.stderr,
    )

    print(
        "| kernel | dataset | SciPy | generated, 1 thread | generated / SciPy"
        " | fastest calls: generated / SciPy | fastest Rust peer |"
    )
    print("|---|---|---:|---|---:|---:|---|")
    cache = {}
    for kernel, dataset, count, total in cases:
        if args.filter not in f"{kernel}/{dataset}":
            continue
        if (args.dir / f"{dataset}.shape").exists():
            a = load_matrix(args.dir, dataset, cache)
        else:
            continue  # a tensor dataset: SciPy has no 3-tensors
        b = None
        if kernel in ("add", "inner_diff"):
            b = load_matrix(args.dir, f"{dataset}_b", {})
        run = case_callable(kernel, a, b)
        if run is None:
            continue
        got_count, got_sum = checksum(run())
        want_count, want_sum = int(count), float(total)
        note = ""
        if got_count != want_count or abs(got_sum - want_sum) > 1e-9 * max(1.0, abs(want_sum)):
            note = f" (check: SciPy {got_count} / {got_sum:.12e}, Rust {want_count} / {want_sum:.12e})"
        ms, ms_min = median_ms(run, args.repeat)
        entries = rust.get((kernel, dataset), [])
        generated = [
            (c, m, f)
            for c, t, m, f in entries
            if t == 1 and c != "hand" and c not in ("sprs", "nalgebra")
        ]
        peers = [(c, m) for c, t, m, _ in entries if c in ("hand", "sprs", "nalgebra")]
        peer = min(peers, key=lambda p: p[1]) if peers else None
        for name, gen_ms, gen_min in generated or [("-", float("nan"), float("nan"))]:
            print(
                f"| {kernel} | {dataset} | {ms:.3g}{note} | {name} {gen_ms:.3g} | {gen_ms / ms:.2f} | "
                f"{gen_min / ms_min:.2f} | "
                + (f"{peer[0]} {peer[1]:.3g}" if peer else "-")
                + " |"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
