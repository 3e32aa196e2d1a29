#!/usr/bin/env python3
"""SciPy on the inputs of the `spgemm` and `sparse_add` benches: `A @ B` and `A + B`.

The matrices are generated in Rust, so the benches write them out first: with
`SPARSE_BENCH_DUMP=dir` set, each group's setup writes its operands (raw little-endian
arrays `NAME.rowptr.u32`, `NAME.colidx.u32`, `NAME.vals.f64` and a `NAME.shape` line
`rows cols nnz`) and a `GROUP.case` file (`op mul|add`, the operands' names, and the
`nnz` and value sum of the result the Rust contenders computed):

    SPARSE_BENCH_DUMP=/tmp/sparse-dump cargo bench -p sparse-benches --bench spgemm -- --test
    SPARSE_BENCH_DUMP=/tmp/sparse-dump cargo bench -p sparse-benches --bench sparse_add -- --test
    python3 benches/scipy_spgemm.py /tmp/sparse-dump [--repeat 10] [GROUP ...]

(`-- --test` runs every contender once instead of timing it; the dump happens in the
setup either way. The dump takes about 290 MB, mostly the 1M-row add and Poisson inputs.)

For every case (or only the GROUPs named) the script builds `scipy.sparse.csr_matrix`es
(`int32` indices), computes the result once and checks its `nnz` and value sum against the
`.case` file, then times it with `timeit` (one call per run, `--repeat` runs, fewer for
calls over a few seconds, at least 3) and prints the median in ms. For products it also
reports whether SciPy's result has sorted column indices and times `A @ B` followed by
`sort_indices()`, since every Rust contender returns sorted rows. SciPy's sparse products
and sums are single-threaded C++ (sparsetools), like the Rust contenders here.

Requirements: numpy and scipy (`pip install scipy`; a plain `pip install` worked on the
development machine's pyenv Python 3.11; a system Python that refuses with
"externally-managed-environment" needs `pip install --user --break-system-packages scipy`
or a virtual environment).
"""

import argparse
import pathlib
import statistics
import sys
import timeit

import numpy as np
import scipy
import scipy.sparse as sp


def load_matrix(directory, name, cache):
    """The CSR matrix `name` written by `sparse_benches::dump_csr`."""
    if name in cache:
        return cache[name]
    rows, cols, nnz = map(int, (directory / f"{name}.shape").read_text().split())
    row_ptr = np.fromfile(directory / f"{name}.rowptr.u32", dtype="<u4")
    col_idx = np.fromfile(directory / f"{name}.colidx.u32", dtype="<u4")
    vals = np.fromfile(directory / f"{name}.vals.f64", dtype="<f8")
    assert len(row_ptr) == rows + 1 and len(col_idx) == nnz and len(vals) == nnz, name
    assert nnz < 2**31 and cols < 2**31, f"{name} does not fit int32 indices"
    m = sp.csr_matrix(
        (vals, col_idx.astype(np.int32), row_ptr.astype(np.int32)), shape=(rows, cols)
    )
    m.has_sorted_indices = True  # the generators write sorted rows
    cache[name] = m
    return m


def rows_sorted(m):
    """Whether every row of the CSR matrix `m` has strictly increasing columns (checked on
    the arrays, not taken from SciPy's flag)."""
    increasing = np.diff(m.indices.astype(np.int64)) > 0
    starts = m.indptr[1:-1].astype(np.int64)
    starts = starts[(starts > 0) & (starts < m.nnz)]
    increasing[starts - 1] = True  # the last entry of a row and the first of the next
    return bool(increasing.all())


def read_case(path):
    fields = dict(line.split(maxsplit=1) for line in path.read_text().splitlines() if line)
    return fields["op"], fields["a"], fields["b"], int(fields["nnz"]), float(fields["sum"])


def median_ms(stmt, repeat):
    """Median of `repeat` timed calls (one call each), in ms; fewer runs for slow calls."""
    first = timeit.timeit(stmt, number=1)
    runs = max(3, min(repeat, int(30.0 / max(first, 1e-9))))
    times = timeit.repeat(stmt, number=1, repeat=runs)
    return 1e3 * statistics.median(times), runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", type=pathlib.Path, help="the SPARSE_BENCH_DUMP directory")
    parser.add_argument("groups", nargs="*", help="only these groups (default: every .case)")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per case")
    args = parser.parse_args()

    cases = sorted(args.dir.glob("*.case"))
    if args.groups:
        cases = [c for c in cases if c.stem in args.groups]
    if not cases:
        sys.exit(f"no .case files in {args.dir}: run the benches with SPARSE_BENCH_DUMP set")
    print(f"scipy {scipy.__version__}, numpy {np.__version__}")
    cache = {}
    for path in cases:
        group = path.stem
        op, a_name, b_name, want_nnz, want_sum = read_case(path)
        a = load_matrix(args.dir, a_name, cache)
        b = load_matrix(args.dir, b_name, cache)
        compute = {"mul": lambda: a @ b, "add": lambda: a + b}[op]
        c = compute()
        c_sum = float(c.data.sum())
        assert c.nnz == want_nnz, f"{group}: nnz {c.nnz}, Rust {want_nnz}"
        assert abs(c_sum - want_sum) <= 1e-9 * abs(want_sum), f"{group}: sum {c_sum}, Rust {want_sum}"
        sorted_out = rows_sorted(c)
        del c
        ms, runs = median_ms(compute, args.repeat)
        line = f"{group}: A {op} B, nnz {want_nnz}: scipy {ms:.2f} ms (median of {runs})"
        if op == "mul":
            line += f", result rows sorted: {sorted_out}"
            if not sorted_out:
                ms_sorted, runs = median_ms(lambda: compute().sort_indices(), args.repeat)
                line += f"; with sort_indices() {ms_sorted:.2f} ms (median of {runs})"
        print(line, flush=True)


if __name__ == "__main__":
    main()
