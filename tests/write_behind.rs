//! Writes behind the caller (`DAH5_ASYNC`) end to end: tests/c/write_behind.c on 1–4 ranks
//! in C and Fortran order, ending the file after a wait, a flush or a close with the writes
//! in flight; every value then checked by h5py (h5bench's steps from reused buffers, the
//! many-block tiles, a synchronous write landing after a write behind of the same block,
//! atomic mode, the chunked dataset written collectively after its refusal).

mod common;

use common::*;

/// h5py: each step's datasets hold what that step's buffers held (`l + S/4`, `l*10 + S`).
const CHECK_STEPS: &str = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
n = int(sys.argv[2])
l = np.arange(n)
for s in range(4):
    x, i = f[f"step_{s}"], f[f"id_{s}"]
    assert x.dtype == np.float64 and x.shape == (n,), (x.dtype, x.shape)
    assert i.dtype == np.int32 and i.shape == (n,), (i.dtype, i.shape)
    assert np.array_equal(x[...], l + s / 4), f"step_{s}"
    assert np.array_equal(i[...], l * 10 + s), f"id_{s}"
    assert f.attrs[f"id_{s}"] == s
print("steps match")
"#;

fn run_and_check(ranks: u32, order: &str, end: &str) {
    let exe = build_c(&["tests/c/write_behind.c"], "write_behind");
    let dir = scratch(&format!("write_behind_{ranks}_{order}_{end}"));
    let out = mpiexec_ok(ranks, &exe, &[".", order, end], &[], &dir);
    assert!(out.contains(" 0 failures"), "{out}");
    let file = format!("write_behind_{order}_{end}.h5");
    let n = 1000 * ranks as u64;
    let code = format!("import sys; sys.argv = ['', {file:?}, '{n}']\n{CHECK_STEPS}");
    let checked = python_inline(&code, &dir);
    assert!(checked.contains("steps match"), "{checked}");
    h5py_pattern(&dir, &file, "tiles", "float64", &[12, 20]);
    h5py_pattern(
        &dir,
        &file,
        "columns",
        "float64",
        &[2048, 512 * ranks as u64],
    );
    for dataset in ["overwritten", "atomic", "chunked", "last"] {
        h5py_pattern(&dir, &file, dataset, "float64", &[n]);
    }
}

#[test]
fn writes_behind_on_1_to_4_ranks_ending_with_a_wait_a_flush_or_a_close() {
    run_and_check(1, "c", "wait");
    run_and_check(2, "f", "flush");
    run_and_check(2, "c", "close");
    run_and_check(3, "c", "flush");
    run_and_check(4, "f", "close");
    run_and_check(4, "c", "wait");
}

/// A write behind that fails after its call returned (the last rank may not write past
/// 4 MiB: EFBIG on its write-behind thread) is said by that rank's wait and by the flush
/// and the close on every rank; the file stays valid, with every other block in it.
#[test]
fn a_write_behind_that_fails_after_returning_fails_the_flush_and_close_on_every_rank() {
    let exe = build_c(&["tests/c/behind_fails.c"], "behind_fails");
    for ranks in [2, 3] {
        let dir = scratch(&format!("behind_fails_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["fails.h5"], &[], &dir);
        assert!(out.contains(" 0 failures"), "{out}");
        let header = h5dump_header(&dir, "fails.h5");
        assert!(header.contains("DATASET \"big\""), "{header}");
        let code = format!(
            "import h5py, numpy as np\n\
             f = h5py.File('fails.h5', 'r')\n\
             n, size = 1 << 20, {ranks}\n\
             assert np.array_equal(f['small'][...], np.arange(size))\n\
             l = np.arange((size - 1) * n)\n\
             assert np.array_equal(f['big'][:(size - 1) * n], l + l / 1024.0)\n\
             assert not f['big'][(size - 1) * n:].any()\n\
             print('the other blocks are in')\n"
        );
        let checked = python_inline(&code, &dir);
        assert!(checked.contains("the other blocks are in"), "{checked}");
    }
}
