//! The smaller cases of what programs do (tests/c/small_cases.c asserts each status and
//! message on every rank): values that do not fit a conversion, environment variables dah5
//! cannot read, a numeric attribute too large for an object header, names that cannot be
//! datasets, handles used after `MPI_Finalize`. Afterwards h5py reads each file.

mod common;

use std::path::PathBuf;

use common::*;

/// Run `small_cases CASE .` on `ranks` ranks in a fresh directory; it must report no
/// failure. Returns the directory and what the job printed on stderr.
fn run(case: &str, ranks: u32, env: &[(&str, &str)]) -> (PathBuf, String) {
    let exe = build_c(&["tests/c/small_cases.c"], "small_cases");
    let dir = scratch(&format!("small_cases_{case}_{ranks}"));
    let job = mpiexec(ranks, &exe, &[case, "."], env, &dir);
    assert!(
        job.success && job.stdout.contains(" 0 failures over"),
        "small_cases {case} on {ranks} ranks:\nstdout:\n{}\nstderr:\n{}",
        job.stdout,
        job.stderr
    );
    (dir, job.stderr)
}

#[test]
fn values_that_do_not_fit_are_refused_reading_and_writing_on_every_rank() {
    for ranks in [2, 3] {
        let (dir, stderr) = run("convert", ranks, &[]);
        assert!(stderr.trim().is_empty(), "{stderr}");
        let out = python_inline(
            &format!(
                "import h5py, numpy as np\n\
                 f = h5py.File('convert.h5', 'r')\n\
                 s = f['special'][()]\n\
                 assert np.isnan(s[:2]).all() and np.signbit(s[1]), s\n\
                 assert (s[2:] == [np.inf, -np.inf, 3e9, 1.5, -0.5, 2147483647.5, 1e39]).all(), s\n\
                 assert (f['wide_ints'][()] == [300, -1, 1 << 40, 5]).all()\n\
                 assert (f['int32s'][()] == 7).all(), f['int32s'][()]\n\
                 assert (f['uint8s'][()] == 0).all() and np.isnan(f['float32s'][()]).all()\n\
                 for name in ('darray', 'subfiled'):\n\
                 \x20   d = f[name][()]\n\
                 \x20   assert (d[:-1] == [r + 0.5 * (i % 2) for r in range({ranks}) for i in (0, 1)][:-1]).all(), d\n\
                 \x20   assert np.isnan(d[-1])\n\
                 print('intact')\n"
            ),
            &dir,
        );
        assert!(out.contains("intact"), "{out}");
    }
}

#[test]
fn environment_variables_dah5_cannot_read_are_refused_at_create_and_open() {
    let (dir, stderr) = run("env", 3, &[]);
    assert!(stderr.trim().is_empty(), "{stderr}");
    let out = python_inline(
        "import h5py, numpy as np\n\
         assert (h5py.File('env.h5', 'r')['x'][()] == np.arange(12)).all()\n\
         print('written')\n",
        &dir,
    );
    assert!(out.contains("written"), "{out}");
}

#[test]
fn a_numeric_attribute_larger_than_an_object_header_is_refused_or_stored_clearly() {
    // HDF5 2.x writes the 1.8 format by default, which keeps large attributes apart.
    let version = std::env::var("DAH5_HDF5_VERSION").unwrap_or_default();
    let dense = !version.starts_with("1.");
    let env: &[(&str, &str)] = if dense {
        &[("SMALL_CASES_DENSE", "1")]
    } else {
        &[]
    };
    let (dir, stderr) = run("attr", 2, env);
    assert!(stderr.trim().is_empty(), "{stderr}");
    let out = python_inline(
        &format!(
            "import h5py, numpy as np\n\
             f = h5py.File('attr.h5', 'r')\n\
             assert len(f.attrs['text']) == 1 << 20\n\
             assert (f['x'].attrs['fits'] == np.arange(8000)).all()\n\
             if {dense}:\n\
             \x20   assert (f.attrs['big'] == np.arange(131072)).all()\n\
             \x20   assert (f['x'].attrs['table'] == np.arange(131072)).all()\n\
             else:\n\
             \x20   assert 'big' not in f.attrs and 'complex' not in f['x'].attrs\n\
             \x20   assert f['x'].attrs['table'] == 2.5\n\
             print('readable')\n",
            dense = if dense { "True" } else { "False" }
        ),
        &dir,
    );
    assert!(out.contains("readable"), "{out}");
}

#[test]
fn names_that_cannot_be_datasets_say_what_is_wrong_with_the_name() {
    let (dir, stderr) = run("names", 3, &[]);
    assert!(stderr.trim().is_empty(), "{stderr}");
    let out = python_inline(
        "import h5py\n\
         f = h5py.File('names.h5', 'r')\n\
         names = []\n\
         f.visit(names.append)\n\
         assert sorted(names) == ['d', 'dah5_blocks', 'dah5_blocks/d', 'g', 'g/h', 'g/h/y', 'x'], names\n\
         assert f['g/h'].attrs['units'] == 1.0\n\
         print('only the good names')\n",
        &dir,
    );
    assert!(out.contains("only the good names"), "{out}");
}

#[test]
fn handles_used_after_mpi_finalize_are_mpi_not_initialized() {
    let (dir, stderr) = run("finalized", 2, &[]);
    // The file left open is closed inside MPI_Finalize, one line a rank.
    assert_eq!(
        stderr
            .matches("MPI_Finalize was called with 1 dah5 file(s) still open")
            .count(),
        2,
        "{stderr}"
    );
    let out = python_inline(
        "import h5py, numpy as np\n\
         assert (h5py.File('finalized.h5', 'r')['x'][()] == np.arange(2)).all()\n\
         print('closed')\n",
        &dir,
    );
    assert!(out.contains("closed"), "{out}");
}
