//! The Fortran module and the Julia package's way of calling the library, run for real under
//! mpiexec (the static checks of both against dah5.h are tests/abi).
//!
//! - the Fortran test program (tests/fortran/blocks.f90: one block and many blocks per rank)
//!   and example, compiled with `mpif90 -std=f2018 -Wall -Wextra -Werror`, at 1–4 ranks,
//!   checked by h5py and h5dump;
//! - writes behind from Fortran (tests/fortran/write_behind.f90: `asynchronous` arrays
//!   reused every step, `dah5_file_wait`) at 2 and 3 ranks, checked by h5py; and the
//!   compiler refusing a non-contiguous `asynchronous` section for the module's writes;
//! - a Python ctypes driver calling the library exactly as the Julia ccalls do, at 3 ranks
//!   (writes behind too: `async = true`, `wait(file)`), its file checked against what
//!   HDF5.jl writes (h5py, h5diff);
//! - C order from C and Fortran order from Fortran give h5diff-identical files.

mod common;

use std::path::Path;

use common::*;

#[test]
fn fortran_module_round_trips_every_type_and_array_rank_at_1_to_4_ranks() {
    let exe = build_fortran(&["tests/fortran/blocks.f90"], "fortran_blocks");
    for ranks in 1..=4 {
        let dir = scratch(&format!("fortran_blocks_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["blocks.h5"], &[], &dir);
        assert!(
            out.contains(&format!("{ranks} ranks, 0 failed checks")),
            "{out}"
        );
        let checked = python(
            "tests/py/check_fortran.py",
            &["blocks.h5", &ranks.to_string()],
            &dir,
        );
        assert!(checked.contains("13 datasets match"), "{checked}");
        // h5dump agrees on the reversed dims: Fortran (3, 4, 2, 2 n + 1) is HDF5 (2 n + 1, 2, 4, 3).
        let header = h5dump_header(&dir, "blocks.h5");
        let r4 = format!("( {}, 2, 4, 3 )", 2 * ranks + 1);
        assert!(header.contains(&r4), "{r4} not in\n{header}");
    }
}

#[test]
fn fortran_without_ierr_ends_the_job_with_the_library_message() {
    // Rank 0's write fails while the others wait in the collective close: the job must end
    // (MPI_Abort), not hang in HDF5's exit handlers or the others' close.
    let exe = build_fortran(&["tests/fortran/blocks.f90"], "fortran_blocks_stop");
    for ranks in [1, 3] {
        let dir = scratch(&format!("fortran_stop_{ranks}"));
        // Ended, not hung (the other ranks wait in a close rank 0 never makes), and no rank
        // went on (see Job::success for why the status is not asserted).
        let job = mpiexec(ranks, &exe, &["stop.h5", "stop"], &[], &dir);
        assert!(!job.stdout.contains("not reached"), "{}", job.stdout);
        assert!(
            job.stderr
                .contains("dah5: DAH5_ERR_OUT_OF_BOUNDS: dah5_write_block (rank 0 of"),
            "{}",
            job.stderr
        );
    }
}

/// h5py: "u" and "id" (Fortran (nx, ny, nsteps), h5py (nsteps, ny, nx)) hold what each step
/// filled its reused arrays with: 1000 s + 10 j + i (+ 0.5 in "u").
const CHECK_FORTRAN_STEPS: &str = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
ny = 2 * int(sys.argv[2]) + 1
s, j, i = np.indices((3, ny, 4)) + 1
u, id = f["u"], f["id"]
assert u.dtype == np.float64 and u.shape == (3, ny, 4), (u.dtype, u.shape)
assert id.dtype == np.int32 and id.shape == (3, ny, 4), (id.dtype, id.shape)
assert np.array_equal(u[...], 1000 * s + 10 * j + i + 0.5), u[...]
assert np.array_equal(id[...], 1000 * s + 10 * j + i), id[...]
assert not f["chunked"][...].any()
print("every step as written")
"#;

#[test]
fn fortran_writes_behind_from_asynchronous_arrays_reused_every_step_at_2_and_3_ranks() {
    let exe = build_fortran(&["tests/fortran/write_behind.f90"], "fortran_write_behind");
    for ranks in [2, 3] {
        let dir = scratch(&format!("fortran_write_behind_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["behind.h5"], &[], &dir);
        assert!(
            out.contains(&format!(
                "fortran write behind: {ranks} ranks, 0 failed checks"
            )),
            "{out}"
        );
        let code =
            format!("import sys; sys.argv = ['', 'behind.h5', '{ranks}']\n{CHECK_FORTRAN_STEPS}");
        let checked = python_inline(&code, &dir);
        assert!(checked.contains("every step as written"), "{checked}");
    }
}

/// The module's write arrays are `asynchronous`: a non-contiguous `asynchronous` section,
/// which the compiler would copy into a temporary that ends when the call returns (while
/// a write behind still reads it), does not compile; a contiguous one does.
#[test]
fn fortran_refuses_a_non_contiguous_asynchronous_section_at_compile_time() {
    let dir = scratch("fortran_async_section");
    let program = |section: &str| {
        format!(
            "program section\n\
             use dah5\n\
             use, intrinsic :: iso_fortran_env, only: int64, real64\n\
             implicit none\n\
             real(real64), allocatable, asynchronous :: u(:, :)\n\
             type(dah5_dataset) :: dset\n\
             allocate (u(4, 4))\n\
             u = 0\n\
             call dah5_write_block(dset, [1_int64], [4_int64], {section}, DAH5_ASYNC)\n\
             end program section\n"
        )
    };
    // Each program checked against the module, compiled with it as the tests compile it.
    let compiles = |name: &str, section: &str| {
        let source = dir.join(format!("{name}.f90"));
        std::fs::write(&source, program(section)).unwrap();
        let out = std::process::Command::new(mpi_tool("mpif90"))
            .args([
                "-std=f2018",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fsyntax-only",
                "-J",
            ])
            .arg(&dir)
            .arg(root().join("fortran/dah5.f90"))
            .arg(&source)
            .current_dir(&dir)
            .output()
            .expect("mpif90");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, stderr) = compiles("column", "u(:, 2)");
    assert!(
        ok,
        "a contiguous asynchronous column does not compile:\n{stderr}"
    );
    let (ok, stderr) = compiles("row", "u(2, :)");
    assert!(!ok, "a non-contiguous asynchronous row compiles");
    // gfortran: "There is no specific subroutine for the generic 'dah5_write_block'" (the
    // specific's CONTIGUOUS, ASYNCHRONOUS dummy cannot take it: F2018 C1538).
    assert!(stderr.contains("dah5_write_block"), "{stderr}");
}

#[test]
fn fortran_example_writes_columns_and_reads_rows_at_1_to_4_ranks() {
    let exe = build_fortran(&["examples-fortran/darray2d.f90"], "darray2d");
    for ranks in 1..=4 {
        let dir = scratch(&format!("darray2d_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["darray2d.h5"], &[], &dir);
        assert!(out.contains("darray2d: 0 wrong elements"), "{out}");
        let header = h5dump_header(&dir, "darray2d.h5");
        assert!(
            header.contains("SIMPLE { ( 8, 6 ) / ( 8, 6 ) }"),
            "{header}"
        );
        // h5py (C order) sees A transposed: d[j - 1, i - 1] = A(i, j) = 100 i + j.
        let out = python_inline(
            "import h5py, numpy as np\n\
             d = h5py.File('darray2d.h5', 'r')['A'][()]\n\
             j, i = np.indices((8, 6)) + 1\n\
             assert (d == 100 * i + j).all(), d\n\
             print('transposed view matches')\n",
            &dir,
        );
        assert!(out.contains("transposed view matches"), "{out}");
    }
}

#[test]
fn julia_like_ctypes_driver_at_3_ranks_writes_what_hdf5_jl_writes() {
    let dir = scratch("julia_like");
    let lib = lib_dir().join("libdah5.so");
    let script = root().join("tests/py/julia_like.py");
    // A Python whose mpi4py is built on dah5's MPI (scripts/deps.sh, dah5_mpi4py).
    let mpi_python = std::env::var("DAH5_MPI_PYTHON").unwrap_or_else(|_| "/usr/bin/python3".into());
    let out = mpiexec_ok(
        3,
        Path::new(&mpi_python),
        &[script.to_str().unwrap(), lib.to_str().unwrap(), "julia.h5"],
        &[],
        &dir,
    );
    assert!(out.contains("3 ranks wrote (4, 7) by columns"), "{out}");
    // "BC", "BW", "BE": many blocks per rank, block-cyclic; check_julia_layout.py checks
    // their every value against what HDF5.jl writes.
    assert!(
        out.contains("block-cyclic (10, 7) in (2, 3) tiles over a (3, 1) grid"),
        "{out}"
    );
    // "S": DAH5.darray_create(...; subfiled = true) and two write_block steps per rank.
    assert!(out.contains("subfiled S in 2 steps"), "{out}");
    // "T": write_block / write_blocks(...; async = true), wait(file), flush(file), each
    // array held until the wait or flush returned; check_julia_layout.py checks its values.
    assert!(out.contains("T in 3 steps written behind"), "{out}");
    let s = python_inline(
        "import h5py, numpy as np\n\
         f = h5py.File('julia.h5', 'r')\n\
         assert f['S'].is_virtual and len(f['S'].virtual_sources()) == 3\n\
         assert np.array_equal(f['S'][...], f['A'][...])\n\
         print('S equals A')\n",
        &dir,
    );
    assert!(s.contains("S equals A"), "{s}");
    let checked = python(
        "tests/py/check_julia_layout.py",
        &["julia.h5", "hdf5jl.h5"],
        &dir,
    );
    assert!(
        checked.contains("bytes as HDF5.jl writes them"),
        "{checked}"
    );
    let names = python_inline(
        "import netCDF4\n\
         f = netCDF4.Dataset('julia.h5')\n\
         assert f['A'].dimensions == ('y', 'x'), f['A'].dimensions\n\
         print('netCDF sees A(y, x)')\n",
        &dir,
    );
    assert!(names.contains("netCDF sees A(y, x)"), "{names}");
    // The darrays "A", "BC" and "BE" also carry their block tables (dah5_* attributes and
    // /dah5_blocks), and "A" its dimension names (the scales /x and /y), which HDF5.jl's file
    // has not, nor the subfiled /S and the group /G: the data and the rest must be identical.
    let (same, report) = h5diff(
        &dir,
        &[
            "--exclude-attribute",
            "/A",
            "--exclude-attribute",
            "/BC",
            "--exclude-attribute",
            "/BE",
            "--exclude-path",
            "/dah5_blocks",
            "--exclude-path",
            "/x",
            "--exclude-path",
            "/y",
            "--exclude-path",
            "/S",
            "--exclude-path",
            "/G",
            "julia.h5",
            "hdf5jl.h5",
        ],
    );
    assert!(
        same,
        "h5diff finds differences from the HDF5.jl layout:\n{report}"
    );
}

#[test]
fn c_order_from_c_and_fortran_order_from_fortran_give_identical_files() {
    let c = build_c(&["tests/c/same_array.c"], "same_array_c");
    let fortran = build_fortran(&["tests/fortran/same_array.f90"], "same_array_f");
    let dir = scratch("same_array");
    mpiexec_ok(3, &c, &["c.h5"], &[], &dir);
    mpiexec_ok(2, &fortran, &["f.h5"], &[], &dir);
    for file in ["c.h5", "f.h5"] {
        let header = h5dump_header(&dir, file);
        assert!(
            header.contains("SIMPLE { ( 7, 5 ) / ( 7, 5 ) }"),
            "{file}:\n{header}"
        );
    }
    let (same, report) = h5diff(&dir, &["c.h5", "f.h5"]);
    assert!(same, "the C and Fortran files differ:\n{report}");
}

#[test]
fn fortran_darray_attributes_and_time_series_at_1_and_3_ranks() {
    let exe = build_fortran(&["tests/fortran/darray.f90"], "fortran_darray");
    for ranks in [1, 3] {
        let dir = scratch(&format!("fortran_darray_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["fd.h5"], &[], &dir);
        assert!(
            out.contains(&format!("{ranks} ranks, 0 failed checks")),
            "{out}"
        );
        let ny = (2 * ranks + 1).to_string();
        // "S" is the same array, subfiled: h5py reads it through its virtual dataset.
        for name in ["A", "S"] {
            let out = python(
                "tests/py/check_pattern.py",
                &["fd.h5", name, "float64", &ny, "5"],
                &dir,
            );
            assert!(out.contains("elements match"), "{out}");
        }
        // One subfile: every rank is on this node.
        assert_eq!(
            std::fs::read_dir(dir.join("fd.h5.d"))
                .map(Iterator::count)
                .ok(),
            Some(1)
        );
        let out = python(
            "tests/py/check_darray.py",
            &["blocks", "fd.h5", "A", "float64"],
            &dir,
        );
        assert!(
            out.contains(&format!("{ranks} blocks rebuilt")) && out.contains("order F"),
            "{out}"
        );
        let out = python_inline(
            "import h5py, numpy as np\n\
             f = h5py.File('fd.h5', 'r')\n\
             assert f['A'].attrs['dt'] == 0.5 and list(f.attrs['steps']) == [1, 2, 3]\n\
             assert f.attrs['title'] == 'fortran darray' and 'B' not in f\n\
             s = f['series']\n\
             assert s.shape == (3, 5) and s.maxshape == (None, 5), (s.shape, s.maxshape)\n\
             assert (s[()] == 10 * np.arange(1, 4)[:, None] + np.arange(1, 6)).all()\n\
             print('attributes and series as written')\n",
            &dir,
        );
        assert!(out.contains("attributes and series as written"), "{out}");
        // The names, in C order for C readers, with x shared by both variables.
        let out = python_inline(
            "import netCDF4\n\
             f = netCDF4.Dataset('fd.h5')\n\
             assert f['A'].dimensions == ('y', 'x') and f['series'].dimensions == ('time', 'x')\n\
             assert f.dimensions['time'].isunlimited() and len(f.dimensions['time']) == 3\n\
             assert len(f.dimensions['x']) == 5\n\
             print('netCDF sees A(y, x) and series(time, x)')\n",
            &dir,
        );
        assert!(out.contains("netCDF sees A(y, x)"), "{out}");
    }
}
