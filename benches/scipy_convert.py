"""SciPy's COO -> CSR and CSR -> CSC on the triplets `benches/benches/convert.rs` dumps.

Run the Rust bench once with the dump directory set, then this script on the same directory:

    SPARSE_BENCH_DUMP=/tmp/sparse-dump cargo bench -p sparse-benches --bench convert
    python3 benches/scipy_convert.py /tmp/sparse-dump

It prints the median of 11 timed calls of `coo_matrix.tocsr()` (from the shuffled triplets,
duplicates none) and of `csr_matrix.tocsc()`, and checks both against the triplets.
"""

import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp


def load(dir_: Path):
    rows, cols, nnz = (int(x) for x in (dir_ / "triplets_rand8.shape").read_text().split())
    r = np.fromfile(dir_ / "triplets_rand8.rows.u32", dtype="<u4").astype(np.int32)
    c = np.fromfile(dir_ / "triplets_rand8.cols.u32", dtype="<u4").astype(np.int32)
    v = np.fromfile(dir_ / "triplets_rand8.vals.f64", dtype="<f8")
    assert len(r) == len(c) == len(v) == nnz
    return sp.coo_matrix((v, (r, c)), shape=(rows, cols))


def median_ms(f, repeats=11):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return 1000 * sorted(times)[len(times) // 2]


def main():
    coo = load(Path(sys.argv[1]))
    csr = coo.tocsr()
    assert csr.nnz == coo.nnz and csr.has_sorted_indices
    csc = csr.tocsc()
    assert csc.nnz == coo.nnz
    print(f"scipy {sp.__name__} coo.tocsr: {median_ms(coo.tocsr):.1f} ms")
    print(f"scipy csr.tocsc: {median_ms(csr.tocsc):.1f} ms")


if __name__ == "__main__":
    main()
