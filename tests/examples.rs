//! The examples a user copies: they build with `-Wall -Wextra -Werror`, run at 1–4 ranks,
//! and their files read right in h5py and h5dump (darray_roundtrip.c, block_cyclic.c,
//! e3sm_runs.c, fortran_order.c). And the install tree works the way the
//! README says: `mpicc prog.c $(pkg-config --cflags --libs dah5)`.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

#[test]
fn darray_roundtrip_writes_rows_and_reads_columns_at_1_to_4_ranks_then_other_rank_counts() {
    let exe = build_c(&["examples-c/darray_roundtrip.c"], "darray_roundtrip");
    for ranks in 1..=4 {
        let dir = scratch(&format!("roundtrip_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["demo.h5"], &[], &dir);
        assert!(out.contains("round trip OK"), "{out}");
        let header = h5dump_header(&dir, "demo.h5");
        assert!(
            header.contains("DATASET \"field\"") && header.contains("( 10, 6 )"),
            "{header}"
        );
        for readers in [1, 3] {
            let out = mpiexec_ok(readers, &exe, &["--read", "demo.h5"], &[], &dir);
            assert!(out.contains("round trip OK"), "{out}");
        }
        // h5py: element (i, j) is 100 i + j.
        let check = "import h5py, numpy as np\n\
                     d = h5py.File('demo.h5', 'r')['field'][()]\n\
                     i, j = np.indices((10, 6))\n\
                     assert (d == 100 * i + j).all(), d\n\
                     print('values match')\n";
        let out = python_inline(check, &dir);
        assert!(out.contains("values match"), "{out}");
    }
}

/// h5py reads `dataset` of `file` as a `rows` x `cols` array whose element (i, j) is
/// `formula` (numpy's `i` and `j`, 0-based).
fn h5py_values_match(dir: &Path, file: &str, dataset: &str, rows: u64, cols: u64, formula: &str) {
    let check = format!(
        "import h5py, numpy as np\n\
         d = h5py.File('{file}', 'r')['{dataset}'][()]\n\
         i, j = np.indices(({rows}, {cols}))\n\
         assert d.shape == ({rows}, {cols}) and (d == {formula}).all(), d\n\
         print('values match')\n"
    );
    let out = python_inline(&check, dir);
    assert!(out.contains("values match"), "{out}");
}

#[test]
fn block_cyclic_example_writes_a_process_grid_s_tiles_and_reads_the_transposed_grid_s() {
    let exe = build_c(&["examples-c/block_cyclic.c"], "block_cyclic");
    for ranks in 1..=4 {
        let dir = scratch(&format!("block_cyclic_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["matrix.h5"], &[], &dir);
        assert!(
            out.contains("the file records 15 tiles, each with its rank: as dealt")
                && out.contains("block-cyclic OK"),
            "{out}"
        );
        let header = h5dump_header(&dir, "matrix.h5");
        assert!(
            header.contains("DATASET \"A\"") && header.contains("( 13, 10 )"),
            "{header}"
        );
        h5py_values_match(&dir, "matrix.h5", "A", 13, 10, "1000 * i + j");
    }
}

#[test]
fn e3sm_runs_example_writes_shuffled_runs_of_a_flattened_index_at_1_to_4_ranks() {
    let exe = build_c(&["examples-c/e3sm_runs.c"], "e3sm_runs");
    for ranks in 1..=4 {
        let dir = scratch(&format!("e3sm_runs_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["runs.h5"], &[], &dir);
        assert!(
            out.contains(&format!("{ranks} ranks wrote T(8, 30) as"))
                && out.contains("e3sm runs OK"),
            "{out}"
        );
        let header = h5dump_header(&dir, "runs.h5");
        assert!(
            header.contains("DATASET \"T\"") && header.contains("( 8, 30 )"),
            "{header}"
        );
        h5py_values_match(&dir, "runs.h5", "T", 8, 30, "100 * i + j");
    }
}

#[test]
fn fortran_order_example_stores_the_transpose() {
    let exe = build_c(&["examples-c/fortran_order.c"], "fortran_order");
    for ranks in [1, 3] {
        let dir = scratch(&format!("forder_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["forder.h5"], &[], &dir);
        assert!(out.contains("HDF5 (C order) dims are (6, 4)"), "{out}");
        let header = h5dump_header(&dir, "forder.h5");
        assert!(
            header.contains("SIMPLE { ( 6, 4 ) / ( 6, 4 ) }"),
            "{header}"
        );
    }
}

/// `make install-files` of the freshly built library into the scratch prefix `name`, with
/// this stack's MPI wrappers. One at a time: two makes at once would both rebuild the
/// Fortran module when it is out of date, and one would install the other's half-written
/// `dah5.mod`.
fn install_tree(name: &str) -> std::path::PathBuf {
    static MAKE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = MAKE.lock().unwrap_or_else(|e| e.into_inner());
    let prefix = scratch(name);
    let status = Command::new("make")
        .args([
            "install-files",
            &format!("PREFIX={}", prefix.display()),
            &format!("TARGET={}", lib_dir().display()),
            &format!("MPICC={}", mpi_tool("mpicc")),
            &format!("MPIFC={}", mpi_tool("mpif90")),
        ])
        .current_dir(root())
        .status()
        .expect("make");
    assert!(status.success(), "make install-files");
    prefix
}

/// `pkg-config --cflags --libs NAME` against the install tree under `prefix`.
fn pkg_config(prefix: &Path, name: &str) -> Vec<String> {
    let pkg = Command::new("pkg-config")
        .args(["--cflags", "--libs", name])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output()
        .expect("pkg-config");
    let flags = String::from_utf8(pkg.stdout).unwrap();
    assert!(
        pkg.status.success() && flags.contains("-ldah5"),
        "pkg-config {name}: {flags}"
    );
    flags.split_whitespace().map(String::from).collect()
}

/// Compile one example against the install tree, as the README says.
fn build_installed(compiler: &str, flags: &[&str], source: &str, pkg: &[String], exe: &Path) {
    let status = Command::new(compiler)
        .args(flags)
        .arg(root().join(source))
        .args(pkg)
        .arg("-o")
        .arg(exe)
        .status()
        .expect(compiler);
    assert!(status.success(), "{source} builds against the install tree");
}

#[test]
fn c_and_fortran_examples_build_from_the_install_tree_with_pkg_config_and_run() {
    let prefix = install_tree("install");
    for file in [
        "lib/libdah5.so",
        "lib/libdah5_fortran.a",
        "include/dah5.h",
        "include/dah5_mpi.h",
        "include/dah5.f90",
        "include/dah5.mod",
        "lib/pkgconfig/dah5.pc",
        "lib/pkgconfig/dah5-fortran.pc",
        "lib/cmake/dah5/dah5Config.cmake",
        "lib/cmake/dah5/dah5ConfigVersion.cmake",
    ] {
        assert!(prefix.join(file).exists(), "{file} installed");
    }
    let hello = prefix.join("hello_block");
    let c_flags = ["-Wall", "-Wextra", "-Werror"];
    let c_pkg = pkg_config(&prefix, "dah5");
    build_installed(
        &mpi_tool("mpicc"),
        &c_flags,
        "examples-c/hello_block.c",
        &c_pkg,
        &hello,
    );
    for ranks in 1..=4 {
        let out = mpiexec_ok(ranks, &hello, &["hello.h5"], &[], &prefix);
        assert_eq!(out.matches("(as written)").count(), ranks as usize, "{out}");
    }
    let darray2d = prefix.join("darray2d");
    let f_flags = ["-std=f2018", "-Wall", "-Werror"];
    let f_pkg = pkg_config(&prefix, "dah5-fortran");
    let source = "examples-fortran/darray2d.f90";
    build_installed(&mpi_tool("mpif90"), &f_flags, source, &f_pkg, &darray2d);
    let out = mpiexec_ok(3, &darray2d, &["darray2d.h5"], &[], &prefix);
    assert!(out.contains("darray2d: 0 wrong elements"), "{out}");
}

#[test]
fn a_cmake_project_finds_the_install_tree_and_builds_c_and_fortran_against_it() {
    let prefix = install_tree("install_for_cmake");
    let build = scratch("cmake_user");
    let configure = Command::new("cmake")
        .arg("-S")
        .arg(root().join("tests/cmake"))
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
        .arg(format!("-DDAH5_EXAMPLES={}", root().display()))
        .output()
        .expect("cmake (apt install cmake)");
    let log = String::from_utf8_lossy(&configure.stdout).into_owned()
        + &String::from_utf8_lossy(&configure.stderr);
    assert!(configure.status.success(), "cmake configure:\n{log}");
    // The MPI that FindMPI was pointed at is the one dah5 was built with.
    let cache = std::fs::read_to_string(build.join("CMakeCache.txt")).unwrap();
    let wrapper = cache
        .lines()
        .find(|l| l.starts_with("MPI_C_COMPILER:"))
        .unwrap_or("");
    assert!(
        wrapper.ends_with(&format!("/{}", mpi_tool("mpicc"))),
        "{wrapper}"
    );
    let built = Command::new("cmake")
        .arg("--build")
        .arg(&build)
        .output()
        .expect("cmake --build");
    assert!(
        built.status.success(),
        "cmake --build:\n{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    let out = mpiexec_ok(2, &build.join("hello_block"), &["hello.h5"], &[], &build);
    assert_eq!(out.matches("(as written)").count(), 2, "{out}");
    let out = mpiexec_ok(3, &build.join("darray2d"), &["darray2d.h5"], &[], &build);
    assert!(out.contains("darray2d: 0 wrong elements"), "{out}");
}
