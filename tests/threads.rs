//! dah5 from threads (tests/c/threads.c, MPI_THREAD_MULTIPLE): two threads per rank, each
//! with its own file on its own communicator, race to their collective calls. Before, the
//! one lock of the handle registry was held for a whole call: one thread waited inside
//! `H5Fcreate` for the other rank while that rank's matching thread waited for its own
//! rank's lock, and about 4 runs in 10 hung. A local query from a second thread waited
//! as long as the first thread's collective call. Each file also has a write behind
//! (`DAH5_ASYNC`) in flight at its close: two write-behind threads beside the two callers.

mod common;

use common::*;

#[test]
fn two_threads_with_a_file_each_never_wait_for_each_other_across_ranks() {
    let exe = build_c(&["tests/c/threads.c"], "threads");
    // 10 runs in a row (each run 2 threads x 5 rounds: before, 4 runs in 10 hung, so 10
    // runs all pass by chance 0.6^10 = 0.6%), and 2 with 3 ranks.
    for run in 0..12 {
        let ranks = if run < 10 { 2 } else { 3 };
        let dir = scratch(&format!("threads_{run}"));
        let out = mpiexec_ok(ranks, &exe, &[".", "files"], &[], &dir);
        assert!(out.contains("files: 10 rounds"), "run {run}: {out}");
        let checked = python_inline(
            &format!(
                "import h5py, numpy as np\n\
                 for t in (0, 1):\n\
                 \x20   f = h5py.File(f'thread{{t}}.h5', 'r')\n\
                 \x20   for x in (f['x'][()], f['y'][()]):\n\
                 \x20       assert (x == t * 1000 + np.arange(64 * {ranks})).all(), (t, x)\n\
                 print('both files right')\n"
            ),
            &dir,
        );
        assert!(checked.contains("both files right"), "{checked}");
    }
}

#[test]
fn a_local_query_from_another_thread_does_not_wait_for_a_collective_call() {
    let exe = build_c(&["tests/c/threads.c"], "threads");
    let dir = scratch("threads_query");
    let out = mpiexec_ok(2, &exe, &[".", "query"], &[], &dir);
    // The collective write waits 3 s for the late rank; the queries began 0.5 s into it
    // and ended while it still waited (they waited as long as it did before).
    assert!(out.contains(", before the write returned"), "{out}");
}
