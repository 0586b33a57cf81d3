//! Other openers of the same file (tests/c/openers.c): a reader job that opened the file
//! before the writer's last flush, the file opened twice for writing in one job, two jobs
//! creating the same file at once, a file truncated under a reader, and a subfile of an
//! earlier run put back. Every call either returns the right data or says what happened on
//! every rank; never `DAH5_OK` with stale, lost or invented data. h5py checks each file.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;

fn openers() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| build_c(&["tests/c/openers.c"], "openers"))
}

/// Assert that each of `ranks` ranks printed `what: expected...`; returns their lines.
fn saw<'a>(out: &'a str, ranks: u32, what: &str, expected: &str) -> Vec<&'a str> {
    (0..ranks)
        .map(|rank| {
            let prefix = format!("rank {rank}: {what}: ");
            let line = out
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("rank {rank} said nothing of {what:?}:\n{out}"));
            assert!(
                line[prefix.len()..].starts_with(expected),
                "rank {rank}, {what}: expected {expected:?}, got {line:?}\n{out}"
            );
            line
        })
        .collect()
}

/// Assert that every line says each of `needles`.
fn each_says(lines: &[&str], needles: &[&str]) {
    for line in lines {
        for needle in needles {
            assert!(line.contains(needle), "no {needle:?} in {line:?}");
        }
    }
}

/// Run `first` in a thread and `second` beside it (two jobs at once); both must end well.
fn two_jobs(dir: &Path, first: &[&str], second: &[&str]) -> (String, String) {
    let exe = openers();
    let job = {
        let (exe, dir) = (exe.clone(), dir.to_path_buf());
        let args: Vec<String> = first.iter().map(|s| s.to_string()).collect();
        std::thread::spawn(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            mpiexec(2, &exe, &args, &[], &dir)
        })
    };
    let beside = mpiexec_alongside(2, exe, second, &[], dir);
    let job = job.join().unwrap();
    for (args, job) in [(first, &job), (second, &beside)] {
        assert!(
            job.success && job.stderr.trim().is_empty(),
            "{args:?}:\n{}\n{}",
            job.stdout,
            job.stderr
        );
    }
    (job.stdout, beside.stdout)
}

#[test]
fn a_reader_opened_before_the_writers_last_flush_is_told_the_file_changed() {
    let dir = scratch("openers_stale");
    let (_, out) = two_jobs(&dir, &["write", "."], &["read", "."]);
    saw(&out, 2, "before: packed collective", "DAH5_OK, round 1");
    saw(&out, 2, "before: plain independent", "DAH5_OK, round 1");
    saw(&out, 2, "before: attribute", "DAH5_OK, round 1");
    for what in [
        "after: packed collective",
        "after: packed independent",
        "after: plain collective",
        "after: plain independent",
        "after: attribute",
        "after: dataset open",
    ] {
        let lines = saw(&out, 2, what, "DAH5_ERR_FILE_CHANGED");
        each_says(
            &lines,
            &["changed since this handle opened it", "open the file again"],
        );
    }
    saw(&out, 2, "after: close", "DAH5_OK");
    saw(&out, 2, "reopened: packed collective", "DAH5_OK, round 2");
    saw(&out, 2, "reopened: attribute", "DAH5_OK, round 2");
    let checked = python_inline(
        "import h5py, numpy as np\n\
         f = h5py.File('shared.h5', 'r')\n\
         for name in ('packed', 'plain'):\n\
         \x20   assert (f[name][()] == 20000 + np.arange(4096)).all(), name\n\
         assert f.attrs['round'] == 2\n\
         print('round 2')\n",
        &dir,
    );
    assert!(checked.contains("round 2"), "{checked}");
}

#[test]
fn a_file_open_for_writing_is_in_use_for_a_second_writer_handle_of_the_same_job() {
    let dir = scratch("openers_twice");
    let out = mpiexec_ok(2, openers(), &["twice", "."], &[], &dir);
    for what in [
        "second handle: open DAH5_RDWR",
        "second handle: create DAH5_TRUNC",
    ] {
        let lines = saw(&out, 2, what, "DAH5_ERR_IN_USE");
        each_says(&lines, &["already open for writing in this program"]);
    }
    saw(&out, 2, "second handle: create", "DAH5_ERR_ALREADY_EXISTS");
    saw(&out, 2, "second handle: open DAH5_RDONLY", "DAH5_OK");
    saw(&out, 2, "first handle: close", "DAH5_OK");
    saw(&out, 2, "after the close: open DAH5_RDWR", "DAH5_OK");
    let checked = python_inline(
        "import h5py, numpy as np\n\
         f = h5py.File('twice.h5', 'r')\n\
         assert sorted(f) == ['a'], sorted(f)\n\
         assert (f['a'][()] == 20000 + np.arange(4096)).all()\n\
         assert dict(f.attrs) == {'round': 2}, dict(f.attrs)\n\
         print('a intact')\n",
        &dir,
    );
    assert!(checked.contains("a intact"), "{checked}");
}

#[test]
fn a_second_job_creating_or_opening_a_file_being_written_is_told_it_is_in_use() {
    let dir = scratch("openers_race");
    let (first, second) = two_jobs(&dir, &["first", "."], &["second", "."]);
    for what in ["second: create DAH5_TRUNC", "second: open DAH5_RDWR"] {
        let lines = saw(&second, 2, what, "DAH5_ERR_IN_USE");
        each_says(&lines, &["open for writing", "another job"]);
    }
    saw(&second, 2, "second: open DAH5_RDONLY", "DAH5_OK");
    saw(&first, 2, "first: close", "DAH5_OK");
    let checked = python_inline(
        "import h5py, numpy as np\n\
         f = h5py.File('race.h5', 'r')\n\
         assert sorted(f) == ['first'], sorted(f)\n\
         assert (f['first'][()] == 20000 + np.arange(4096)).all()\n\
         print('first intact')\n",
        &dir,
    );
    assert!(checked.contains("first intact"), "{checked}");
}

#[test]
fn a_file_truncated_under_an_open_reader_is_said_to_have_changed() {
    let dir = scratch("openers_truncated");
    let out = mpiexec_ok(2, openers(), &["truncated", "."], &[], &dir);
    saw(&out, 2, "before: plain collective", "DAH5_OK, round 1");
    for what in [
        "after: plain collective",
        "after: plain independent",
        "after: packed independent",
        "after: attribute",
    ] {
        let lines = saw(&out, 2, what, "DAH5_ERR_FILE_CHANGED");
        each_says(
            &lines,
            &["changed since this handle opened it", "shrank", "truncated"],
        );
    }
    saw(&out, 2, "after: close", "DAH5_OK");
    saw(&out, 2, "reopened", "DAH5_ERR_TRUNCATED");
    let checked = python_inline(
        "import h5py\n\
         try:\n\
         \x20   h5py.File('cut.h5', 'r')\n\
         except OSError as e:\n\
         \x20   print(e)\n",
        &dir,
    );
    assert!(checked.contains("truncated file"), "{checked}");
}

#[test]
fn a_subfile_of_an_earlier_run_is_refused_and_named() {
    let dir = scratch("openers_subfile");
    let exe = openers();
    // A node a rank (the test knob): rank 1's block is alone in its node's subfile.
    let node_a_rank = [("DAH5_TEST_RANKS_PER_NODE", "1")];
    let subfile = dir.join("sub.h5.d/x.node1.h5");
    mpiexec_ok(2, exe, &["subfiled", ".", "1"], &node_a_rank, &dir);
    std::fs::copy(&subfile, dir.join("old.h5")).unwrap();
    mpiexec_ok(2, exe, &["subfiled", ".", "2"], &node_a_rank, &dir);
    std::fs::copy(dir.join("old.h5"), &subfile).unwrap();
    let out = mpiexec_ok(2, exe, &["readsub", "."], &[], &dir);
    saw(&out, 2, "dataset open", "DAH5_OK");
    let lines = saw(&out, 2, "whole", "DAH5_ERR_FILE_CHANGED");
    each_says(&lines, &["x.node1.h5", "another write"]);
    saw(&out, 1, "share", "DAH5_OK, round 2");
    let line = saw(&out, 2, "share", "")[1];
    assert!(line.contains("DAH5_ERR_FILE_CHANGED"), "{line}");
    let info = dah5_info(&["sub.h5"], &dir);
    assert!(
        info.contains("NOT OF THIS FILE: blocks [1]") && !info.contains("all present"),
        "{info}"
    );
    // HDF5's readers cannot tell: the virtual dataset shows the old subfile's values.
    let checked = python_inline(
        "import h5py, numpy as np\n\
         x = h5py.File('sub.h5', 'r')['x'][()]\n\
         i = np.arange(4096)\n\
         assert (x[:2048] == 20000 + i[:2048]).all() and (x[2048:] == 10000 + i[2048:]).all()\n\
         print('mixed')\n",
        &dir,
    );
    assert!(checked.contains("mixed"), "{checked}");
    // A file of an earlier dah5, which did not tie its subfiles to it, reads as before.
    mpiexec_ok(2, exe, &["subfiled", ".", "3"], &[], &dir);
    python_inline(
        "import h5py\n\
         del h5py.File('sub.h5', 'r+')['x'].attrs['dah5_subfiles_id']\n",
        &dir,
    );
    let out = mpiexec_ok(2, exe, &["readsub", "."], &[], &dir);
    saw(&out, 2, "whole", "DAH5_OK, round 3");
    let info = dah5_info(&["sub.h5"], &dir);
    assert!(
        info.contains("all present") && info.contains("not tied to this file"),
        "{info}"
    );
}
