//! Darrays of many blocks a rank end to end: tests/c/darray_blocks.c on 1–4 ranks in C and
//! Fortran order (a block-cyclic matrix, E3SM-style runs with a rank that has none, a
//! 100,000-block table, the refusals), then every element and the schema-3 table checked by
//! h5py, and `dah5 info --blocks` listing each block with its rank.

mod common;

use common::*;

/// h5py: the darray's table is schema 3, its rows name ranks in rank order, and the
/// blocks cover the array once.
const CHECK_TABLE: &str = "
import h5py, numpy as np
f = h5py.File(FILE, 'r')
for name in ['cyclic', 'runs', 'big']:
    d = f[name]
    assert d.attrs['dah5_darray_version'] == 3, dict(d.attrs)
    t = f[d.attrs['dah5_block_table']][...]
    assert t.shape[1] == 3 and t.shape[0] == d.attrs['dah5_nblocks'], t.shape
    r = t[:, 2, 0]
    assert (np.diff(r.astype(np.int64)) >= 0).all() and (t[:, 2, 1:] == 0).all()
    seen = np.zeros(d.shape, dtype=np.int64)
    for row in t:
        seen[tuple(slice(o, o + c) for o, c in zip(row[0], row[1]))] += 1
    assert (seen == 1).all(), name
    print(name, 'table ok', len(t), 'blocks, ranks', sorted(set(r.tolist())))
";

fn run_and_check(ranks: u32, order: &str) {
    let exe = build_c(&["tests/c/darray_blocks.c"], "darray_blocks");
    let dir = scratch(&format!("darray_blocks_{ranks}_{order}"));
    let out = mpiexec_ok(ranks, &exe, &[".", order], &[], &dir);
    assert!(out.contains(" 0 failures"), "{out}");
    let file = format!("darray_blocks_{order}.h5");
    let runs: u64 = (0..30 * ranks as u64).map(|k| 1 + k % 4).sum();
    h5py_pattern(&dir, &file, "cyclic", "float64", &[18, 20]);
    h5py_pattern(&dir, &file, "runs", "float64", &[runs]);
    h5py_pattern(&dir, &file, "big", "float64", &[100_000]);
    let out = python_inline(&CHECK_TABLE.replace("FILE", &format!("{file:?}")), &dir);
    assert!(out.contains("big table ok 100000 blocks"), "{out}");
}

#[test]
fn many_block_darrays_on_1_to_4_ranks() {
    for ranks in 1..=4 {
        run_and_check(ranks, if ranks % 2 == 0 { "c" } else { "f" });
    }
    run_and_check(2, "f");
}

#[test]
fn dah5_info_lists_each_block_with_its_rank() {
    let exe = build_c(&["tests/c/darray_blocks.c"], "darray_blocks");
    let dir = scratch("darray_blocks_info");
    mpiexec_ok(3, &exe, &[".", "c"], &[], &dir);
    let out = dah5_info(&["--blocks", "darray_blocks_c.h5", "cyclic"], &dir);
    assert!(out.contains("block table schema 3, 24 blocks"), "{out}");
    // Tile (0, 0) is rank 0's, (0, 1) rank 1's, (1, 1) rank 2's.
    for line in [
        "    0: (0, 0) (3, 5)",
        "    1: (0, 5) (3, 5)",
        "    2: (3, 5) (3, 5)",
    ] {
        assert!(out.contains(line), "{line:?} not in\n{out}");
    }
}
