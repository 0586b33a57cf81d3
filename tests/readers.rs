//! Files every reader opens: tests/c/readers.c writes a file with coordinate variables,
//! darrays (one compressed, in a group), attributes, an extendible series and named
//! dimensions, from 1 to 4 ranks in C and in Fortran order; then h5dump, h5py, ncdump,
//! netCDF4-python and xarray (netcdf4 and h5netcdf engines) each open every file and must
//! see the same names, shapes and values (tests/py/readers.py). `dah5 info` describes them.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::*;

/// tests/c/readers.c, built once for both tests (a rebuild under a running one would make
/// its exec fail with "Text file busy").
fn readers() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| build_c(&["tests/c/readers.c"], "readers"))
}

#[test]
fn files_from_1_to_4_ranks_in_c_and_f_order_open_in_six_readers_with_their_dimension_names() {
    let exe = readers();
    // The writer is the HDF5 under test, the readers are Debian's (HDF5 1.10 on Debian 12):
    // on the HDF5 2.x stack this is the 2.x -> 1.10 round trip, and its files are in 2.x's
    // own default format (superblock 2, the 1.8 format; 1.x writes superblock 0).
    let hdf5 = std::env::var("DAH5_HDF5_VERSION")
        .expect("DAH5_HDF5_VERSION (the HDF5 under test): run the tests with ./scripts/test.sh");
    let superblock = if hdf5.starts_with("1.") { 0 } else { 2 };
    let dir = scratch("readers");
    let mut files = Vec::new();
    for ranks in 1..=4 {
        for order in ["c", "f"] {
            let file = format!("r{ranks}{order}.h5");
            let out = mpiexec_ok(ranks, exe, &[&file, order], &[], &dir);
            assert_eq!(out.matches("wrote").count(), ranks as usize, "{out}");
            assert_eq!(
                superblock_version(&dir, &file),
                superblock,
                "{file}, HDF5 {hdf5}"
            );
            let header = h5dump_header(&dir, &file);
            for needle in [
                "DATASET \"temp\"",
                "( 6, 8 ) / ( 6, 8 )",
                "( 4, 5 ) / ( H5S_UNLIMITED, 5 )",
                "ATTRIBUTE \"DIMENSION_LIST\"",
                "ATTRIBUTE \"REFERENCE_LIST\"",
            ] {
                assert!(
                    header.contains(needle),
                    "h5dump -H {file}: no {needle}:\n{header}"
                );
            }
            files.push(file);
        }
    }
    for reader in [
        "h5py",
        "netcdf4",
        "xarray-netcdf4",
        "xarray-h5netcdf",
        "ncdump",
    ] {
        let mut args = vec![reader];
        args.extend(files.iter().map(String::as_str));
        let out = python("tests/py/readers.py", &args, &dir);
        assert_eq!(
            out.matches("dimension names, shapes and values right")
                .count(),
            files.len(),
            "{out}"
        );
    }
}

#[test]
fn dimension_names_that_cannot_be_given_are_refused_on_every_rank_and_change_nothing() {
    let exe = readers();
    let dir = scratch("readers_bad");
    let out = mpiexec_ok(3, exe, &["bad.h5", "bad"], &[], &dir);
    assert_eq!(
        out.matches("bad names refused everywhere").count(),
        3,
        "{out}"
    );
    let out = python_inline(
        "import h5py\n\
         f = h5py.File('bad.h5', 'r')\n\
         assert sorted(f) == ['cols', 'rows', 'u', 'v'], sorted(f)\n\
         assert [d[0].name for d in f['u'].dims] == ['/rows', '/cols']\n\
         assert not h5py.h5ds.is_scale(f['v'].id)\n\
         print('only the names given were recorded')\n",
        &dir,
    );
    assert!(out.contains("only the names given"), "{out}");
}
