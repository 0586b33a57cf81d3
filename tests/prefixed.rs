//! File names with ROMIO's file-system prefix (`nfs:/dir/x.h5`), and file systems where
//! MPI-IO does not make one rank's writes visible to the others at once (tests/c/prefixed.c
//! under mpiexec): dah5's free-space check, subfiles, `dah5 info` and `dah5 merge` take the
//! prefixed name; independent writes are refused there with `DAH5_ERR_UNSUPPORTED` while
//! collective writes and darrays work, read back across ranks; h5py checks every value.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;

/// Open MPI's default MPI-IO (ompio) takes no ROMIO prefix: its ROMIO component does.
const ROMIO: (&str, &str) = ("OMPI_MCA_io", "^ompio");

fn driver() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| build_c(&["tests/c/prefixed.c"], "prefixed"))
        .clone()
}

/// Whether this MPI's ROMIO says `romio_visibility_immediate=false` on NFS: MPICH 4.1 and
/// later (Hydra prints "Version: 4.2.1").
fn mpi_reports_nfs_visibility() -> bool {
    if built_and_other_mpi().0 != "mpich" {
        return false;
    }
    let out = std::process::Command::new(mpi_tool("mpiexec"))
        .arg("--version")
        .output()
        .expect("mpiexec --version");
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Version:"))
        .unwrap_or_else(|| panic!("no version in mpiexec --version:\n{text}"));
    let mut parts = version
        .trim()
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (4, 1)
}

/// h5py (Debian's) finds every value of the driver's datasets, round by round.
fn check_values(dir: &Path, file: &str, datasets: &[(&str, u32)]) {
    let checks: Vec<String> = datasets
        .iter()
        .map(|(name, round)| format!("check({name:?}, {round})"))
        .collect();
    let code = format!(
        "import h5py, numpy as np\n\
         f = h5py.File({file:?}, 'r')\n\
         def check(name, rnd):\n    \
             got = f[name][...]\n    \
             i, j = np.indices(got.shape)\n    \
             want = 1000.0 * rnd + i * got.shape[1] + j + 0.25\n    \
             assert got.shape == (8, 3) and (got == want).all(), (name, got)\n\
         {}\n\
         assert 'huge' not in f, list(f)\n\
         print('values OK')\n",
        checks.join("\n")
    );
    let out = python_inline(&code, dir);
    assert!(out.contains("values OK"), "{out}");
}

#[test]
fn a_romio_prefixed_name_works_for_create_free_space_subfiles_info_and_merge() {
    let dir = scratch("prefixed");
    let abs = dir.display().to_string();
    let out = mpiexec_ok(2, &driver(), &["nfs:", &abs], &[ROMIO], &dir);
    assert!(out.contains("prefixed: OK on 2 ranks"), "{out}");
    // The MPI's own word decides what dah5 must have done; on MPICH >= 4.1 it must be the
    // NFS driver's "not at once", so that the refusal path ran.
    let deferred = out.contains("writes visible at once: no");
    assert_eq!(
        deferred,
        mpi_reports_nfs_visibility(),
        "which MPIs say romio_visibility_immediate=false on NFS:\n{out}"
    );
    assert!(dir.join("x.h5.d").is_dir(), "the subfiles sit beside x.h5");
    assert!(
        !dir.join("nfs:").exists(),
        "nothing made under a directory named after the prefix"
    );
    check_values(&dir, "x.h5", &[("u", 2), ("d", 3), ("s", 4)]);

    let info = dah5_info(&[&format!("nfs:{abs}/x.h5")], &dir);
    assert!(info.contains("/s") && info.contains("subfiled"), "{info}");
    let dah5 = PathBuf::from(env!("CARGO_BIN_EXE_dah5"));
    let merged = format!("nfs:{abs}/m.h5");
    let out = mpiexec_ok(
        2,
        &dah5,
        &["merge", &format!("nfs:{abs}/x.h5"), &merged],
        &[ROMIO],
        &dir,
    );
    assert!(out.contains("dah5 merge: 3 dataset(s)"), "{out}");
    check_values(&dir, "m.h5", &[("u", 2), ("d", 3), ("s", 4)]);
}

/// `HDF5_DO_MPI_FILE_SYNC=1` tells HDF5 (1.14, 2.x) and dah5 what ROMIO's NFS driver says:
/// writes are not visible at once. So the refusal and the collective darray, table and merge
/// paths run on every stack, NFS or not.
#[test]
fn where_writes_are_not_visible_at_once_only_collective_writes_run_and_every_rank_reads_them() {
    let dir = scratch("not_visible_at_once");
    let abs = dir.display().to_string();
    let sync = ("HDF5_DO_MPI_FILE_SYNC", "1");
    for ranks in [2, 3] {
        let out = mpiexec_ok(ranks, &driver(), &["", &abs], &[sync], &dir);
        assert!(
            out.contains("writes visible at once: no")
                && out.contains(&format!("prefixed: OK on {ranks} ranks")),
            "{out}"
        );
    }
    let dah5 = PathBuf::from(env!("CARGO_BIN_EXE_dah5"));
    let out = mpiexec_ok(3, &dah5, &["merge", "x.h5", "m.h5"], &[sync], &dir);
    // The ranks must agree on it: one rank alone with it is a mismatch at the create.
    let alone = scratch("not_visible_at_once_on_one_rank");
    let args = ["", alone.to_str().unwrap(), "one-rank-sync"];
    let mismatch = mpiexec_ok(2, &driver(), &args, &[], &alone);
    assert!(
        mismatch.contains("prefixed: mismatch OK on 2 ranks"),
        "{mismatch}"
    );
    assert!(!alone.join("x.h5").exists(), "no file made");
    assert!(out.contains("dah5 merge: 3 dataset(s)"), "{out}");
    let code = "import h5py, numpy as np\n\
                a, b = h5py.File('x.h5', 'r'), h5py.File('m.h5', 'r')\n\
                for name in ('u', 'd', 's'):\n    \
                    assert a[name].shape == (12, 3) and (a[name][...] == b[name][...]).all(), name\n\
                print('merged file matches')\n";
    assert!(python_inline(code, &dir).contains("merged file matches"));
}
