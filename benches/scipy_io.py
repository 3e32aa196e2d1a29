#!/usr/bin/env python3
"""SciPy on the input of the `io_read` bench: `scipy.io.mmread` of its Matrix Market file.

The file is generated in Rust; with `SPARSE_BENCH_MTX=path` set, the bench writes it there
and keeps it:

    SPARSE_BENCH_MTX=/tmp/io_read.mtx cargo bench -p sparse-benches --bench io_read
    python3 benches/scipy_io.py /tmp/io_read.mtx [--repeat 5]

The script reads the file once and prints its shape, nnz and value sum (to compare with
the Rust readers: they must agree), then times `scipy.io.mmread(path)` (a COO
matrix; SciPy >= 1.12 parses in C++ with several threads, `fast_matrix_market`) and
`mmread(path).tocsr()` with `timeit`, one call per run, `--repeat` runs (at least 3), and
prints the medians in ms. `--threads N` sets `scipy.io`'s parallelism (SciPy >= 1.12;
needs `pip install threadpoolctl`) for a comparison with the single-threaded Rust readers.

Requirements: numpy and scipy (see `scipy_spgemm.py`).
"""

import argparse
import statistics
import timeit

import numpy as np
import scipy
import scipy.io


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the Matrix Market file the io_read bench wrote")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads for scipy.io (default: SciPy's choice, all cores)",
    )
    args = parser.parse_args()

    limit = None
    if args.threads is not None:
        from threadpoolctl import threadpool_limits

        limit = threadpool_limits(limits=args.threads)

    m = scipy.io.mmread(args.path)
    print(
        f"scipy {scipy.__version__}, numpy {np.__version__}: {m.shape[0]} x {m.shape[1]}, "
        f"nnz {m.nnz}, value sum {m.data.sum():.6f}"
    )
    for name, call in [
        ("mmread (COO)", lambda: scipy.io.mmread(args.path)),
        ("mmread then tocsr", lambda: scipy.io.mmread(args.path).tocsr()),
    ]:
        runs = timeit.repeat(call, number=1, repeat=max(3, args.repeat))
        print(f"{name:20} median {statistics.median(runs) * 1e3:9.1f} ms  (min {min(runs) * 1e3:.1f})")
    if limit is not None:
        limit.unregister()


if __name__ == "__main__":
    main()
