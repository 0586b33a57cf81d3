//! Direct block mode (no MPI): forked worker processes write disjoint blocks of one
//! dataset at once (tests/c/direct.c); h5py and h5dump check the file, and the MPI path
//! reads what direct mode wrote and the other way round.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::*;

fn direct() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| build_c(&["tests/c/direct.c"], "direct"))
        .clone()
}

fn darray() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| build_c(&["tests/c/darray.c"], "darray_for_direct"))
        .clone()
}

fn pattern(dir: &std::path::Path, file: &str, dataset: &str, dtype: &str, dims: &[u64]) {
    h5py_pattern(dir, file, dataset, dtype, dims);
    h5dump_header(dir, file);
}

#[test]
fn concurrent_workers_write_rows_in_c_order_and_blocks_in_fortran_order() {
    let dir = scratch("direct_orders");
    let out = local_ok(
        &direct(),
        &[
            "write", "rows.h5", "u", "float64", "c", "4x1", "-", "12", "5",
        ],
        &dir,
    );
    assert!(
        out.contains("4 workers wrote u, 0 killed, 0 wrong"),
        "{out}"
    );
    pattern(&dir, "rows.h5", "u", "float64", &[12, 5]);
    // Fortran order, a 2x2 grid: HDF5 dims (8, 6) for Fortran (6, 8).
    let out = local_ok(
        &direct(),
        &["write", "f.h5", "v", "int32", "f", "2x2", "-", "6", "8"],
        &dir,
    );
    assert!(
        out.contains("4 workers wrote v, 0 killed, 0 wrong"),
        "{out}"
    );
    pattern(&dir, "f.h5", "v", "int32", &[8, 6]);
    let out = python(
        "tests/py/check_darray.py",
        &["blocks", "f.h5", "v", "int32"],
        &dir,
    );
    assert!(
        out.contains("4 blocks rebuilt") && out.contains("order F"),
        "{out}"
    );
}

#[test]
fn blocks_that_are_not_whole_rows_with_the_advisory_lock() {
    let dir = scratch("direct_grid");
    let args = [
        "write",
        "grid.h5",
        "w",
        "complex128",
        "c",
        "2x3",
        "l",
        "7",
        "9",
    ];
    let out = local_ok(&direct(), &args, &dir);
    assert!(
        out.contains("6 workers wrote w, 0 killed, 0 wrong"),
        "{out}"
    );
    pattern(&dir, "grid.h5", "w", "complex128", &[7, 9]);
    let out = local_ok(
        &direct(),
        &["read", "grid.h5", "w", "complex128", "c", "3"],
        &dir,
    );
    assert!(out.contains("3 readers checked w"), "{out}");
}

#[test]
fn direct_files_read_through_mpi_and_mpi_files_read_directly() {
    let dir = scratch("direct_cross");
    local_ok(
        &direct(),
        &["write", "d.h5", "u", "float64", "c", "3x2", "-", "9", "4"],
        &dir,
    );
    let out = mpiexec_ok(
        3,
        &darray(),
        &["read-table", "d.h5", "u", "float64", "c"],
        &[],
        &dir,
    );
    assert!(out.contains("0 wrong"), "{out}");
    mpiexec_ok(
        4,
        &darray(),
        &[
            "write", "m.h5", "v", "int64", "f", "2x2", "0", "-1", "6", "8",
        ],
        &[],
        &dir,
    );
    let out = local_ok(&direct(), &["read", "m.h5", "v", "int64", "f", "3"], &dir);
    assert!(out.contains("3 readers checked v"), "{out}");
}

#[test]
fn layouts_without_one_place_for_the_data_are_refused() {
    let dir = scratch("direct_refused");
    python("tests/py/make_refused.py", &["refused.h5"], &dir);
    let out = local_ok(&direct(), &["refuse", "refused.h5"], &dir);
    assert!(out.contains("refused 6 layouts"), "{out}");
}

#[test]
fn a_killed_writer_leaves_the_other_blocks_intact() {
    let dir = scratch("direct_crash");
    // The parent checks every block but the killed worker's, which wrote half of its own.
    let out = local_ok(
        &direct(),
        &["write", "c.h5", "u", "float64", "c", "3x1", "k", "12", "5"],
        &dir,
    );
    assert!(
        out.contains("3 workers wrote u, 1 killed, 0 wrong"),
        "{out}"
    );
    let check = "import h5py, numpy as np\n\
                 d = h5py.File('c.h5', 'r')['u'][()]\n\
                 l = np.arange(60).reshape(12, 5)\n\
                 assert (d[:8] == l[:8] + l[:8] / 1024.0).all(), 'blocks of the live workers'\n\
                 print('live blocks intact')\n";
    let out = python_inline(check, &dir);
    assert!(out.contains("live blocks intact"), "{out}");
}

#[test]
fn the_julia_addprocs_path_driven_from_python_writes_one_dataset_without_mpi() {
    let dir = scratch("direct_julia");
    let lib = lib_dir().join("libdah5.so");
    let out = python(
        "tests/py/julia_direct.py",
        &[lib.to_str().unwrap(), "jd.h5"],
        &dir,
    );
    assert!(out.contains("3 workers wrote (5, 7) without MPI"), "{out}");
    h5dump_header(&dir, "jd.h5");
}

#[test]
fn a_file_another_process_has_locked_says_so_and_works_without_file_locking() {
    let dir = scratch("direct_locked");
    local_ok(
        &direct(),
        &["write", "l.h5", "u", "float64", "c", "1x1", "-", "4", "4"],
        &dir,
    );
    // Another process holds the file locked, as HDF5 itself does while it writes a file.
    let mut holder = std::process::Command::new("/usr/bin/python3")
        .args([
            "-c",
            "import fcntl, sys, time\n\
             f = open('l.h5', 'rb+')\n\
             fcntl.flock(f, fcntl.LOCK_EX)\n\
             print('locked', flush=True)\n\
             time.sleep(60)\n",
        ])
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "locked");
    let result = std::panic::catch_unwind(|| local_ok(&direct(), &["locked", "l.h5"], &dir));
    let _ = holder.kill();
    let _ = holder.wait();
    let out = result.expect("the locked-file checks");
    assert!(out.contains("then without locking fine"), "{out}");
    // The dataset added without locking is in the file, as h5dump sees it.
    let header = h5dump_header(&dir, "l.h5");
    assert!(header.contains("DATASET \"late\""), "{header}");
}
