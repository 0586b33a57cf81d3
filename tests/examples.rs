//! The examples a user copies: they build with `-Wall -Wextra -Werror`, run at 1–4 ranks,
//! and their files read right in h5py and h5dump. And the install tree works the way the
//! README says: `mpicc prog.c $(pkg-config --cflags --libs dah5)`.

mod common;

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
        let check = "import h5py, numpy as np, sys\n\
                     d = h5py.File('demo.h5', 'r')['field'][()]\n\
                     i, j = np.indices((10, 6))\n\
                     sys.exit(0 if (d == 100 * i + j).all() else 'wrong values')\n";
        let status = Command::new("/usr/bin/python3")
            .args(["-c", check])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "h5py finds the values of darray_roundtrip"
        );
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

#[test]
fn hello_block_builds_from_the_install_tree_with_pkg_config_and_runs() {
    let lib = lib_dir();
    let prefix = scratch("install");
    let profile = lib.file_name().unwrap().to_str().unwrap().to_string();
    let status = Command::new("make")
        .args([
            "install-files",
            &format!("PREFIX={}", prefix.display()),
            &format!("PROFILE={profile}"),
        ])
        .current_dir(root())
        .status()
        .expect("make");
    assert!(status.success(), "make install-files");
    for file in [
        "lib/libdah5.so",
        "include/dah5.h",
        "include/dah5_mpi.h",
        "lib/pkgconfig/dah5.pc",
    ] {
        assert!(prefix.join(file).exists(), "{file} installed");
    }
    let pkg = Command::new("pkg-config")
        .args(["--cflags", "--libs", "dah5"])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output()
        .expect("pkg-config");
    let flags = String::from_utf8(pkg.stdout).unwrap();
    assert!(
        pkg.status.success() && flags.contains("-ldah5"),
        "pkg-config: {flags}"
    );
    let exe = prefix.join("hello_block");
    let status = Command::new("mpicc")
        .args(["-Wall", "-Wextra", "-Werror"])
        .arg(root().join("examples-c/hello_block.c"))
        .args(flags.split_whitespace())
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("mpicc");
    assert!(
        status.success(),
        "hello_block builds against the install tree"
    );
    for ranks in 1..=4 {
        let out = mpiexec_ok(ranks, &exe, &["hello.h5"], &[], &prefix);
        assert_eq!(out.matches("(as written)").count(), ranks as usize, "{out}");
    }
}
