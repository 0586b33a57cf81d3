//! Block I/O end to end: tests/c/blockio.c under mpiexec with 1–4 ranks, files checked by
//! h5py and h5dump. Blocks split one axis unevenly (rank r gets a share proportional to
//! r + 1); every element holds a closed form of its global index.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;

fn blockio() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| build_c(&["tests/c/blockio.c"], "blockio"))
}

/// One blockio launch. `spec` is "MODE DATASET DTYPE ORDER XFER AXIS EMPTY" (see
/// tests/c/blockio.c); `dims` are in the ORDER's numbering.
fn run(dir: &Path, ranks: u32, spec: &str, dims: &[u64], env: &[(&str, &str)]) -> String {
    let words: Vec<&str> = spec.split_whitespace().collect();
    assert_eq!(words.len(), 7, "spec {spec:?}");
    let dims: Vec<String> = dims.iter().map(u64::to_string).collect();
    let mut args = vec![words[0], "t.h5"];
    args.extend(&words[1..]);
    args.extend(dims.iter().map(String::as_str));
    let out = mpiexec_ok(ranks, blockio(), &args, env, dir);
    assert_eq!(
        out.lines().filter(|l| l.contains(", 0 wrong")).count(),
        ranks as usize,
        "every rank reports its block right:\n{out}"
    );
    out
}

fn storage(order: &str, dims: &[u64]) -> Vec<u64> {
    if order == "f" {
        dims.iter().rev().copied().collect()
    } else {
        dims.to_vec()
    }
}

#[test]
fn n_to_n_for_1_to_4_ranks_independent_and_collective() {
    for ranks in 1..=4u32 {
        for xfer in ["ind", "coll"] {
            let dir = scratch(&format!("n_to_n_{ranks}_{xfer}"));
            let dims = [10, 7];
            run(
                &dir,
                ranks,
                &format!("create u float64 c {xfer} 0 -1"),
                &dims,
                &[],
            );
            run(
                &dir,
                ranks,
                &format!("read u float64 c {xfer} 0 -1"),
                &dims,
                &[],
            );
            h5py_pattern(&dir, "t.h5", "u", "float64", &dims);
        }
    }
}

#[test]
fn n_to_m_write_with_4_read_with_1_2_3_and_other_axes() {
    let dir = scratch("n_to_m");
    let dims = [9, 6, 5];
    run(&dir, 4, "create a/b/c float64 c ind 0 2", &dims, &[]);
    h5py_pattern(&dir, "t.h5", "a/b/c", "float64", &dims);
    let header = h5dump_header(&dir, "t.h5");
    assert!(header.contains("H5T_IEEE_F64LE"), "{header}");
    assert!(
        header.contains("SIMPLE { ( 9, 6, 5 ) / ( 9, 6, 5 ) }"),
        "{header}"
    );
    assert!(
        header.contains("GROUP \"a\"") && header.contains("GROUP \"b\""),
        "{header}"
    );
    for (ranks, axis) in [(1, 0), (2, 1), (3, 2), (3, 0)] {
        for xfer in ["ind", "coll"] {
            run(
                &dir,
                ranks,
                &format!("read a/b/c float64 c {xfer} {axis} -1"),
                &dims,
                &[],
            );
        }
    }
}

#[test]
fn fortran_order_stores_reversed_dims_and_reads_back_the_original() {
    let dir = scratch("fortran_order");
    // A Fortran/Julia array A(nx=8, ny=5, nz=3), split over its last index.
    let dims = [8, 5, 3];
    run(&dir, 3, "create f float32 f ind 2 -1", &dims, &[]);
    // h5py (C order) sees (nz, ny, nx) with the same bytes.
    h5py_pattern(&dir, "t.h5", "f", "float32", &storage("f", &dims));
    let header = h5dump_header(&dir, "t.h5");
    assert!(
        header.contains("SIMPLE { ( 3, 5, 8 ) / ( 3, 5, 8 ) }"),
        "{header}"
    );
    // An F-order reader gets A back, split along another axis; a C-order reader the
    // reversed view.
    run(&dir, 2, "read f float32 f coll 0 -1", &dims, &[]);
    run(
        &dir,
        4,
        "read f float32 c ind 1 0",
        &storage("f", &dims),
        &[],
    );
}

#[test]
fn empty_and_uneven_blocks_in_both_transfer_modes() {
    for xfer in ["ind", "coll"] {
        let dir = scratch(&format!("empty_{xfer}"));
        // Rank 2 has nothing; with 4 ranks over 5 rows the others get 0 to 3 rows.
        let dims = [5, 3];
        let out = run(&dir, 4, &format!("create e int32 c {xfer} 0 2"), &dims, &[]);
        assert!(
            out.contains("rank 2/4 create e: block") && out.contains(" 0 elements"),
            "{out}"
        );
        h5py_pattern(&dir, "t.h5", "e", "int32", &dims);
        run(&dir, 3, &format!("read e int32 c {xfer} 1 1"), &dims, &[]);
    }
}

#[test]
fn forced_splitting_into_small_pieces() {
    // 40-byte pieces: rows of 6 doubles (48 bytes) split inside rows; collective ranks with
    // fewer pieces take part in the extra calls with empty selections.
    let env = [("DAH5_MAX_PIECE_BYTES", "40")];
    for xfer in ["ind", "coll"] {
        let dir = scratch(&format!("split_{xfer}"));
        let dims = [7, 4, 6];
        run(
            &dir,
            3,
            &format!("create s float64 c {xfer} 0 -1"),
            &dims,
            &env,
        );
        h5py_pattern(&dir, "t.h5", "s", "float64", &dims);
        run(
            &dir,
            2,
            &format!("read s float64 c {xfer} 1 -1"),
            &dims,
            &env,
        );
        run(
            &dir,
            2,
            &format!("read s float64 c {xfer} 2 -1"),
            &dims,
            &[],
        );
    }
    // The variable does reach the library: a bad value is refused, not ignored.
    let dir = scratch("split_bad_env");
    let args = [
        "create", "t.h5", "s", "float64", "c", "ind", "0", "-1", "4", "4",
    ];
    let job = mpiexec(2, blockio(), &args, &[("DAH5_MAX_PIECE_BYTES", "0")], &dir);
    assert!(
        job.stderr.contains("DAH5_ERR_INVALID_ARGUMENT")
            && job.stderr.contains("DAH5_MAX_PIECE_BYTES=\"0\""),
        "{}",
        job.stderr
    );
}

#[test]
fn every_dtype_round_trips_and_h5py_reads_it() {
    let dir = scratch("dtypes");
    let dtypes = [
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ];
    let dims = [6, 5];
    for (i, dtype) in dtypes.iter().enumerate() {
        let mode = if i == 0 { "create" } else { "add" };
        let name = format!("types/{dtype}");
        run(
            &dir,
            3,
            &format!("{mode} {name} {dtype} c ind 1 -1"),
            &dims,
            &[],
        );
        h5py_pattern(&dir, "t.h5", &name, dtype, &dims);
        run(
            &dir,
            2,
            &format!("read {name} {dtype} f coll 0 -1"),
            &storage("f", &dims),
            &[],
        );
    }
    let header = h5dump_header(&dir, "t.h5");
    for hdf5_type in [
        "H5T_STD_I8LE",
        "H5T_STD_U64LE",
        "H5T_IEEE_F32LE",
        "H5T_COMPOUND",
    ] {
        assert!(header.contains(hdf5_type), "{hdf5_type} in\n{header}");
    }
    assert!(
        header.contains("\"r\"") && header.contains("\"i\""),
        "complex is {{r, i}}:\n{header}"
    );
}
