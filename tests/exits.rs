//! A rank leaves the program with a file open (exit(), a return from main without
//! MPI_Finalize, Fortran's error stop) while the others wait: the job ends as MPI ends it
//! without dah5 (it hung in HDF5's exit handler, which closes files collectively), with a
//! line on stderr per leaving rank naming the file, and the file opens as of its last flush
//! (also when the leaving rank has a write behind, `DAH5_ASYNC`, in flight).

mod common;

use std::path::Path;
use std::time::Instant;

use common::*;

/// The file as of its flush: "flushed" holds 0..7, "unflushed" (created later) may be
/// missing.
fn assert_as_of_flush(dir: &Path, file: &str) {
    let out = python_inline(
        &format!(
            "import h5py, numpy as np\n\
             f = h5py.File('{file}', 'r')\n\
             assert (f['flushed'][()] == np.arange(8)).all(), f['flushed'][()]\n\
             print('as of the flush:', sorted(f))\n"
        ),
        dir,
    );
    assert!(out.contains("as of the flush"), "{out}");
}

/// Run the job and check that it ended in bounded time, never went on, and that each
/// leaving rank said which file it left open: `leaving_ranks` lines, or from 1 to that many
/// when all leave at once (`all_leave`: the launcher may kill a rank that is still in its
/// exit handler once another has gone, as MPICH's Hydra does: MPI ending the job).
fn assert_ended(job: &Job, started: Instant, leaving_ranks: usize, all_leave: bool, what: &str) {
    let took = started.elapsed().as_secs_f64();
    let report = format!("{what}, {took:.1} s\n{}\n{}", job.stdout, job.stderr);
    // Without dah5 the same job ends in about 1.5 s; a hang is the 120 s timeout.
    assert!(took < 30.0, "{report}");
    assert!(!job.stderr.contains("not reached"), "{report}");
    let said = job
        .stderr
        .matches("exits without MPI_Finalize with \"exit.h5\" open")
        .count();
    if all_leave {
        assert!((1..=leaving_ranks).contains(&said), "{report}");
    } else {
        assert_eq!(said, leaving_ranks, "{report}");
    }
    assert!(
        job.stderr
            .contains("the data is as of the last dah5_file_flush"),
        "{report}"
    );
}

#[test]
fn a_rank_that_exits_with_a_file_open_ends_the_job_and_leaves_the_file_as_of_its_flush() {
    let exe = build_c(&["tests/c/exit_open.c"], "exit_open");
    for (mode, wait, ranks) in [
        ("exit", "allreduce", 2),
        ("exit", "flush", 3),
        ("behind", "allreduce", 2),
        ("behind", "flush", 3),
        ("return", "allreduce", 3),
        ("return", "flush", 2),
        ("all-exit", "flush", 2),
    ] {
        let dir = scratch(&format!("exit_open_{mode}_{wait}_{ranks}"));
        let started = Instant::now();
        let job = mpiexec(ranks, &exe, &["exit.h5", mode, wait], &[], &dir);
        let leaving = if mode == "all-exit" {
            ranks as usize
        } else {
            1
        };
        let all_leave = mode == "all-exit";
        assert_ended(
            &job,
            started,
            leaving,
            all_leave,
            &format!("{mode} {wait} {ranks}"),
        );
        assert_as_of_flush(&dir, "exit.h5");
    }
}

#[test]
fn fortran_error_stop_with_a_file_open_ends_the_job() {
    let exe = build_fortran(&["tests/fortran/error_stop.f90"], "error_stop");
    for ranks in [2, 3] {
        let dir = scratch(&format!("error_stop_{ranks}"));
        let started = Instant::now();
        let job = mpiexec(ranks, &exe, &["exit.h5"], &[], &dir);
        assert_ended(
            &job,
            started,
            1,
            false,
            &format!("error stop, {ranks} ranks"),
        );
        assert!(job.stderr.contains("a solver failed"), "{}", job.stderr);
        assert_as_of_flush(&dir, "exit.h5");
    }
}

#[test]
fn a_file_never_flushed_is_left_a_valid_empty_file_by_a_rank_that_exits() {
    let exe = build_c(&["tests/c/exit_open.c"], "exit_open");
    for (wait, ranks) in [("allreduce", 2), ("flush", 3)] {
        let dir = scratch(&format!("exit_open_early_{wait}_{ranks}"));
        let started = Instant::now();
        let job = mpiexec(ranks, &exe, &["exit.h5", "early", wait], &[], &dir);
        assert_ended(&job, started, 1, false, &format!("early {wait} {ranks}"));
        // HDF5 writes a new file's superblock at its first flush: dah5 flushes at create.
        let out = python_inline(
            "import h5py\n\
             f = h5py.File('exit.h5', 'r')\n\
             assert len(f) == 0, list(f)\n\
             print('an empty HDF5 file')\n",
            &dir,
        );
        assert!(out.contains("an empty HDF5 file"), "{out}");
    }
}
