//! Subfiled darrays end to end (tests/c/darray.c under mpiexec): written by 4 ranks on one
//! node and on two (`DAH5_TEST_RANKS_PER_NODE=2`), whole and in steps, read back by dah5 at
//! 1 to 5 ranks and by h5py, h5dump, ncdump and xarray (tests/py/check_subfiled.py), after a
//! move too, and again once rewritten in the layout of a dah5 before subfiles per node (a
//! file per rank, tests/py/subfiles_per_rank.py); a failing subfile leaves the darray marked
//! incomplete (its failing write is tests/darray.rs's rollback test); a missing or truncated
//! subfile is an error naming it; `dah5 merge`.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;

fn driver() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| build_c(&["tests/c/darray.c"], "darray_subfiled"))
        .clone()
}

fn run(ranks: u32, args: &[&str], dir: &Path) -> String {
    mpiexec_ok(ranks, &driver(), args, &[], dir)
}

/// The test knob that makes nodes of 2 ranks each on this one host.
const TWO_A_NODE: [(&str, &str); 1] = [("DAH5_TEST_RANKS_PER_NODE", "2")];

/// (8, 6) float64 in C order written whole on a 2x2 grid of ranks on 2 nodes, and
/// (3, 4, 6) int32 in Fortran order declared with dah5_darray_create and written in two
/// steps per rank, on one node.
fn write_both(dir: &Path) {
    let u = [
        "write-subfiled",
        "a.h5",
        "u",
        "float64",
        "c",
        "2x2",
        "0",
        "-1",
        "8",
        "6",
    ];
    mpiexec_ok(4, &driver(), &u, &TWO_A_NODE, dir);
    let v = [
        "create-subfiled",
        "a.h5",
        "grp/v",
        "int32",
        "f",
        "1x2x2",
        "0",
        "-1",
        "3",
        "4",
        "6",
    ];
    run(4, &v, dir);
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| {
                    e.expect("a directory entry")
                        .file_name()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_subfiled_darray_from_4_ranks_reads_back_on_1_4_and_5_ranks_and_in_every_reader_after_a_move() {
    let dir = scratch("subfiled_round_trip");
    write_both(&dir);
    let subfiles = files_in(&dir.join("a.h5.d"));
    assert_eq!(
        subfiles,
        ["grp~v.node0.h5", "u.node0.h5", "u.node1.h5"],
        "one file per node and darray"
    );
    // Moved together (main file and directory), from another working directory.
    let moved = dir.join("moved");
    std::fs::create_dir_all(moved.join("a.h5.d")).expect("mkdir moved");
    std::fs::rename(dir.join("a.h5"), moved.join("a.h5")).expect("move a.h5");
    for name in &subfiles {
        std::fs::rename(
            dir.join("a.h5.d").join(name),
            moved.join("a.h5.d").join(name),
        )
        .expect("move a subfile");
    }
    for (name, dtype, order) in [("u", "float64", "c"), ("grp/v", "int32", "f")] {
        // One reader, as many as wrote, and more (parts that cut across the blocks).
        for readers in [1, 4, 5] {
            for mode in ["read-table", "read-partition"] {
                let out = run(readers, &[mode, "moved/a.h5", name, dtype, order], &dir);
                assert!(
                    out.contains("0 wrong") && out.contains(&format!("on {readers} ranks")),
                    "{out}"
                );
            }
        }
    }
    for (name, dtype, dims, files) in [
        ("u", "float64", ["8", "6"], 2),
        ("grp/v", "int32", ["6", "4"], 1),
    ] {
        let mut args = vec!["moved/a.h5", name, dtype];
        args.extend(dims);
        if name == "grp/v" {
            args.push("3");
        }
        let out = python("tests/py/check_subfiled.py", &args, &dir);
        for reader in [
            "h5py",
            "h5dump",
            "ncdump",
            "xarray (netcdf4)",
            "xarray (h5netcdf)",
        ] {
            assert!(
                out.contains(&format!("{reader}: {name}")) && out.contains("matches"),
                "{out}"
            );
        }
        assert!(out.contains(&format!("maps {files} subfiles")), "{out}");
    }
    let info = dah5_info(&["moved/a.h5", "u"], &dir);
    assert!(
        info.contains("subfiled: 2 files a.h5.d/u.nodeNODE.h5 (one a node)"),
        "{info}"
    );
    // The layout of a dah5 before subfiles per node, a file per rank, still reads.
    let out = python("tests/py/subfiles_per_rank.py", &["moved/a.h5", "u"], &dir);
    assert!(out.contains("4 subfiles, one a rank"), "{out}");
    let out = run(3, &["read-table", "moved/a.h5", "u", "float64", "c"], &dir);
    assert!(out.contains("0 wrong"), "{out}");
    let info = dah5_info(&["moved/a.h5", "u"], &dir);
    assert!(
        info.contains("subfiled: 4 files a.h5.d/u.RANK.h5 (one a rank)")
            && info.contains("all present"),
        "{info}"
    );
    let dah5 = PathBuf::from(env!("CARGO_BIN_EXE_dah5"));
    let out = mpiexec_ok(2, &dah5, &["merge", "moved/a.h5", "merged.h5"], &[], &dir);
    assert!(out.contains("dah5 merge: 2 dataset(s)"), "{out}");
    let out = run(
        2,
        &["read-partition", "merged.h5", "u", "float64", "c"],
        &dir,
    );
    assert!(out.contains("0 wrong"), "{out}");
}

#[test]
fn an_unfinished_subfiled_darray_is_marked_incomplete_and_dah5_refuses_to_read_it() {
    let dir = scratch("subfiled_incomplete");
    let v = [
        "create-subfiled",
        "i.h5",
        "v",
        "int32",
        "c",
        "4x1",
        "0",
        "-1",
        "8",
        "3",
    ];
    let out = mpiexec_ok(
        4,
        &driver(),
        &v,
        &[("DAH5_TEST_FAULT", "subfile_close@2")],
        &dir,
    );
    assert_eq!(out.matches("darray left incomplete").count(), 4, "{out}");
    let out = python_inline(
        "import h5py\n\
         print('complete', h5py.File('i.h5', 'r')['v'].attrs['dah5_complete'])\n",
        &dir,
    );
    assert!(out.contains("complete 0"), "{out}");
    let job = mpiexec(
        2,
        &driver(),
        &["read-partition", "i.h5", "v", "int32", "c"],
        &[],
        &dir,
    );
    assert!(
        !job.success && job.stderr.contains("is not complete (dah5_complete = 0)"),
        "{}",
        job.stderr
    );
}

#[test]
fn a_missing_or_truncated_subfile_is_an_error_naming_it_on_the_ranks_that_read_it() {
    let dir = scratch("subfiled_damaged");
    write_both(&dir);
    // Rows 4..8 of u are blocks 2 and 3, node 1's: with 2 readers, rank 1 reads them.
    std::fs::remove_file(dir.join("a.h5.d/u.node1.h5")).expect("remove a subfile");
    let job = mpiexec(
        2,
        &driver(),
        &["read-partition", "a.h5", "u", "float64", "c"],
        &[],
        &dir,
    );
    assert!(!job.success, "{}", job.stdout);
    assert!(
        job.stderr.contains("subfile ./a.h5.d/u.node1.h5")
            && job.stderr.contains("DAH5_ERR_NOT_FOUND")
            && job
                .stderr
                .contains("reading block 2 of subfiled darray \"u\""),
        "{}",
        job.stderr
    );
    let block = dir.join("a.h5.d/grp~v.node0.h5");
    let length = std::fs::metadata(&block).expect("a subfile").len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&block)
        .and_then(|f| f.set_len(length - 16))
        .expect("truncate a subfile");
    let job = mpiexec(
        1,
        &driver(),
        &["read-table", "a.h5", "grp/v", "int32", "f"],
        &[],
        &dir,
    );
    assert!(
        !job.success
            && job.stderr.contains("subfile ./a.h5.d/grp~v.node0.h5")
            && job.stderr.contains("DAH5_ERR_TRUNCATED"),
        "{}",
        job.stderr
    );
}

#[test]
fn dah5_merge_makes_one_ordinary_file_with_the_attributes_dimension_names_and_table() {
    let dir = scratch("subfiled_merge");
    run(4, &["named", "n.h5"], &dir);
    let dah5 = PathBuf::from(env!("CARGO_BIN_EXE_dah5"));
    let out = mpiexec_ok(3, &dah5, &["merge", "n.h5", "m.h5"], &[], &dir);
    assert!(
        out.contains("dah5 merge: 3 dataset(s), 460 bytes") && out.contains("on 3 rank(s)"),
        "{out}"
    );
    // Every value and attribute the same, nothing virtual, the scales and table made anew.
    let out = python_inline(
        "import h5py, numpy as np, xarray as xr, subprocess\n\
         a, b = h5py.File('n.h5', 'r'), h5py.File('m.h5', 'r')\n\
         assert a['temp'].is_virtual and not b['temp'].is_virtual\n\
         for name in ['lat', 'temp', 'grp/steps']:\n\
         \x20   assert np.array_equal(a[name][...], b[name][...]), name\n\
         \x20   assert b[name].id.get_create_plist().get_layout() == h5py.h5d.CONTIGUOUS, name\n\
         want = {k: v for k, v in a['temp'].attrs.items() if k not in ('dah5_subfiles', 'dah5_subfile_nodes', 'DIMENSION_LIST')}\n\
         got = {k: v for k, v in b['temp'].attrs.items() if k != 'DIMENSION_LIST'}\n\
         assert want == got, (want, got)\n\
         assert dict(a.attrs) == dict(b.attrs) == {'title': 'merge test'}, dict(b.attrs)\n\
         assert np.array_equal(a['dah5_blocks/temp'][...], b['dah5_blocks/temp'][...])\n\
         header = subprocess.run(['ncdump', '-h', 'm.h5'], check=True, capture_output=True, text=True).stdout\n\
         assert 'double temp(lat, lon)' in header and 'lat = 8' in header, header\n\
         with xr.open_dataset('m.h5') as ds:\n\
         \x20   assert list(ds['temp'].dims) == ['lat', 'lon'], ds\n\
         \x20   assert np.array_equal(ds['lat'].values, a['lat'][...])\n\
         \x20   assert np.array_equal(ds['temp'].values, a['temp'][...] * 0.5), 'scale_factor applied'\n\
         print('merged file matches')\n",
        &dir,
    );
    assert!(out.contains("merged file matches"), "{out}");
    let out = run(2, &["read-partition", "m.h5", "temp", "float64", "c"], &dir);
    assert!(out.contains("0 wrong"), "{out}");
    let info = dah5_info(&["m.h5", "temp"], &dir);
    assert!(
        info.contains("dimension names (C order): (lat, lon)") && info.contains("4 blocks"),
        "{info}"
    );
    // A missing subfile fails the merge on every rank, and OUT is removed.
    std::fs::remove_file(dir.join("n.h5.d/temp.node0.h5")).expect("remove a subfile");
    let job = mpiexec(2, &dah5, &["merge", "n.h5", "m2.h5"], &[], &dir);
    assert!(!job.success, "{}", job.stdout);
    // Every rank fails; Open MPI 5's launcher may end the job at the first rank's exit,
    // before the other prints, so one message is all that is sure to arrive: the failing
    // rank's (naming the subfile) or the other's (saying another rank failed).
    assert!(job.stderr.contains("dah5 merge: "), "{}", job.stderr);
    assert!(
        (job.stderr.contains("temp.node0.h5") || job.stderr.contains("failed on another rank"))
            && job.stderr.contains("(removed)"),
        "{}",
        job.stderr
    );
    assert!(!dir.join("m2.h5").exists(), "a failed merge leaves no file");
}
