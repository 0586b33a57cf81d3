//! Shared by the integration tests: build C programs against the freshly built library, run
//! them under `mpiexec` with a timeout, and check files with readers nobody here wrote
//! (h5py with Debian's /usr/bin/python3, h5dump, h5ls).
#![allow(dead_code)] // each test binary uses its own part of these helpers

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Every launch gets this long; a hang fails the test instead of stalling the run.
pub const TIMEOUT_SECONDS: u32 = 120;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding libdah5.so (target/<profile>). `cargo test` builds only the rlib
/// for the tests, so the shared library is built here once (cargo allows this nested build:
/// it holds its lock only while compiling).
pub fn lib_dir() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test executable path");
            let dir = exe
                .parent()
                .and_then(Path::parent)
                .expect("target/<profile>/deps/<test>")
                .to_path_buf();
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
            let mut build = Command::new(cargo);
            build.args(["build", "--lib"]).current_dir(root());
            if dir.ends_with("release") {
                build.arg("--release");
            }
            let output = run(&mut build, "cargo build --lib");
            assert!(
                output.status.success() && dir.join("libdah5.so").exists(),
                "building libdah5.so into {} failed:\n{}",
                dir.display(),
                String::from_utf8_lossy(&output.stderr)
            );
            dir
        })
        .clone()
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(command: &mut Command, what: &str) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("{what} could not start (is it installed?): {e}"))
}

/// The MPI stack's tool `name` (mpicc, mpicxx, mpif90, mpiexec): `$DAH5_MPICC` and so on
/// when set (scripts/deps.sh sets them for the stack under test), else the default MPI's
/// wrapper on PATH. The suffixed names (`mpicc.mpich`) are how Debian installs a second MPI.
pub fn mpi_tool(name: &str) -> String {
    std::env::var(format!("DAH5_{}", name.to_uppercase())).unwrap_or_else(|_| name.to_string())
}

/// Debian's name of the MPI libdah5 is linked to (`openmpi` or `mpich`, from `ldd`), and of
/// the other one, whose suffixed tools (`mpicc.mpich`) the MPI-mismatch tests use.
pub fn built_and_other_mpi() -> (&'static str, &'static str) {
    let ldd = run(Command::new("ldd").arg(lib_dir().join("libdah5.so")), "ldd");
    if String::from_utf8_lossy(&ldd.stdout).contains("libmpich") {
        ("mpich", "openmpi")
    } else {
        ("openmpi", "mpich")
    }
}

/// Where test programs are built.
fn bin_dir() -> PathBuf {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bin");
    std::fs::create_dir_all(&out).unwrap();
    out
}

/// Run a compiler and assert it succeeded.
fn compile(compiler: &str, args: &[String], what: &str) {
    let output = run(Command::new(compiler).args(args), compiler);
    assert!(
        output.status.success(),
        "{compiler} failed for {what}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Link a program with `compiler` and `args` into `exe`, through a file of this build's own
/// renamed into place: two tests of one binary that build the same program at once would
/// otherwise exec it while the other's linker rewrites it (execvp: Permission denied, and
/// Hydra's mpiexec then waited for the missing process until the test's timeout).
fn link(compiler: &str, mut args: Vec<String>, exe: &Path, what: &str) {
    static BUILDS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let build = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let partial = exe.with_extension(format!("partial-{}-{build}", std::process::id()));
    args.extend(link_dah5(&partial));
    compile(compiler, &args, what);
    std::fs::rename(&partial, exe).unwrap();
}

/// The flags that link a program against the freshly built libdah5.
fn link_dah5(exe: &Path) -> Vec<String> {
    let lib = lib_dir();
    vec![
        format!("-L{}", lib.display()),
        format!("-Wl,-rpath,{}", lib.display()),
        "-ldah5".to_string(),
        "-o".to_string(),
        exe.display().to_string(),
    ]
}

fn sources_of(sources: &[&str]) -> Vec<String> {
    sources
        .iter()
        .map(|s| root().join(s).display().to_string())
        .collect()
}

/// Compile C sources with `mpicc -Wall -Wextra -Werror` against include/ and libdah5.
pub fn build_c(sources: &[&str], exe_name: &str) -> PathBuf {
    build_c_with(&mpi_tool("mpicc"), sources, exe_name)
}

/// [`build_c`] with the MPI C compiler `mpicc`.
pub fn build_c_with(mpicc: &str, sources: &[&str], exe_name: &str) -> PathBuf {
    let exe = bin_dir().join(exe_name);
    let mut args: Vec<String> = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1"]
        .map(String::from)
        .to_vec();
    args.push(format!("-I{}", root().join("include").display()));
    args.extend(sources_of(sources));
    link(mpicc, args, &exe, &format!("{sources:?}"));
    exe
}

/// The strict Fortran flags every Fortran source of the project builds with.
const FORTRAN_FLAGS: [&str; 4] = ["-std=f2018", "-Wall", "-Wextra", "-Werror"];

/// Compile Fortran sources with `mpif90 -std=f2018 -Wall -Wextra -Werror` and the module
/// fortran/dah5.f90 (built in a directory of this program's own: .mod files are per build).
pub fn build_fortran(sources: &[&str], exe_name: &str) -> PathBuf {
    let exe = bin_dir().join(exe_name);
    let modules = bin_dir().join(format!("{exe_name}.modules"));
    std::fs::create_dir_all(&modules).unwrap();
    let module_object = modules.join("dah5.o").display().to_string();
    let mut args: Vec<String> = FORTRAN_FLAGS.map(String::from).to_vec();
    args.extend([
        "-J".to_string(),
        modules.display().to_string(),
        "-c".to_string(),
    ]);
    args.extend(sources_of(&["fortran/dah5.f90"]));
    args.extend(["-o".to_string(), module_object.clone()]);
    compile(&mpi_tool("mpif90"), &args, "fortran/dah5.f90");
    let mut args: Vec<String> = FORTRAN_FLAGS.map(String::from).to_vec();
    args.push(format!("-I{}", modules.display()));
    args.extend(sources_of(sources));
    args.push(module_object);
    link(&mpi_tool("mpif90"), args, &exe, &format!("{sources:?}"));
    exe
}

/// One MPI job at a time: these machines have 2 cores, and parallel jobs only make each
/// other slow (and timeouts more likely).
fn one_job_at_a_time() -> MutexGuard<'static, ()> {
    static JOBS: Mutex<()> = Mutex::new(());
    JOBS.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct Job {
    pub stdout: String,
    pub stderr: String,
    /// The launcher's exit status was 0. A job that ends in `MPI_Abort` or with a killed
    /// rank must not be recognised by this alone: under load MPICH's Hydra (4.0 and 4.2)
    /// now and then exits 0 after either. Tests assert what the job printed, or did not.
    pub success: bool,
}

/// What a launcher needs to run the tests' jobs on one host as root with more ranks than
/// cores. Only Open MPI reads these (4.x the OMPI_ ones, 5.x PRRTE's); MPICH's Hydra needs
/// nothing. `btl ^tcp`: on one host the shared-memory transport is used anyway, and Open MPI
/// 5's TCP transport warns on every rank of an IPv4+IPv6 host (open-mpi/ompi#14079).
pub const LAUNCH_ENV: [(&str, &str); 6] = [
    ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
    ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
    ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
    ("PRTE_MCA_rmaps_default_mapping_policy", ":oversubscribe"),
    ("OMPI_MCA_btl", "^tcp"),
    // Idle ranks yield the CPU instead of spinning: oversubscribed jobs stay fast.
    ("OMPI_MCA_mpi_yield_when_idle", "1"),
];

/// Run `exe args` under `mpiexec -n ranks` in `dir`, with `env` set in every rank, under a
/// timeout. The environment travels as `env KEY=VALUE exe`, which every launcher runs the
/// same way (Open MPI's `-x` is not Hydra's).
pub fn mpiexec(ranks: u32, exe: &Path, args: &[&str], env: &[(&str, &str)], dir: &Path) -> Job {
    mpiexec_with(&mpi_tool("mpiexec"), ranks, exe, args, env, dir)
}

/// [`mpiexec`] with the launcher `launcher`.
pub fn mpiexec_with(
    launcher: &str,
    ranks: u32,
    exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    dir: &Path,
) -> Job {
    let _job = one_job_at_a_time();
    launch(launcher, ranks, exe, args, env, dir)
}

/// [`mpiexec`] for a second job that must run while the test's first one runs (started
/// with [`mpiexec`] in a thread, which holds the one-job-at-a-time lock until it ends).
pub fn mpiexec_alongside(
    ranks: u32,
    exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    dir: &Path,
) -> Job {
    launch(&mpi_tool("mpiexec"), ranks, exe, args, env, dir)
}

fn launch(
    launcher: &str,
    ranks: u32,
    exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    dir: &Path,
) -> Job {
    let mut command = Command::new("timeout");
    command
        .args(["-k", "10", &TIMEOUT_SECONDS.to_string(), launcher])
        .args(["-n", &ranks.to_string()])
        .current_dir(dir)
        .envs(LAUNCH_ENV);
    if !env.is_empty() {
        command.arg("env");
        command.args(env.iter().map(|(key, value)| format!("{key}={value}")));
    }
    command.arg(exe).args(args);
    let output = run(&mut command, "mpiexec");
    let job = Job {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        success: output.status.success(),
    };
    if output.status.code() == Some(124) {
        panic!(
            "{} {args:?} on {ranks} ranks hung (killed after {TIMEOUT_SECONDS} s)\nstdout:\n{}\nstderr:\n{}",
            exe.display(),
            job.stdout,
            job.stderr
        );
    }
    job
}

/// Like [`mpiexec`], and assert success with nothing on stderr (a successful dah5 program
/// prints nothing there: HDF5's error printing is off).
pub fn mpiexec_ok(
    ranks: u32,
    exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    dir: &Path,
) -> String {
    let job = mpiexec(ranks, exe, args, env, dir);
    assert!(
        job.success && job.stderr.trim().is_empty(),
        "{} {args:?} on {ranks} ranks failed or printed on stderr\nstdout:\n{}\nstderr:\n{}",
        exe.display(),
        job.stdout,
        job.stderr
    );
    job.stdout
}

/// Run `exe args` in `dir` as a plain process (no mpiexec) under a timeout; assert success
/// with nothing on stderr, and return stdout.
pub fn local_ok(exe: &Path, args: &[&str], dir: &Path) -> String {
    let output = run(
        Command::new("timeout")
            .args(["-k", "10", &TIMEOUT_SECONDS.to_string()])
            .arg(exe)
            .args(args)
            .current_dir(dir),
        "timeout",
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    assert!(
        output.status.success() && stderr.trim().is_empty(),
        "{} {args:?} failed:\nstdout:\n{stdout}\nstderr:\n{stderr}",
        exe.display()
    );
    stdout
}

/// Run a script that launches MPI jobs itself (the bench), alone, under a timeout of
/// `seconds`; returns its output.
pub fn run_script(script: &str, env: &[(&str, &str)], seconds: u32) -> Job {
    let _job = one_job_at_a_time();
    let mut command = Command::new("timeout");
    command
        .args(["-k", "10", &seconds.to_string()])
        .arg(root().join(script))
        .current_dir(root())
        .envs(env.iter().copied());
    let output = run(&mut command, script);
    assert_ne!(
        output.status.code(),
        Some(124),
        "{script} hung (killed after {seconds} s)"
    );
    Job {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        success: output.status.success(),
    }
}

/// Run a checker script with Debian's Python (its h5py is built against Debian's HDF5, so
/// on a stack of another HDF5, `DAH5_HDF5_DIR`, it is a reader of another version).
pub fn python(script: &str, args: &[&str], dir: &Path) -> String {
    let script = root().join(script).display().to_string();
    let mut all = vec![script.as_str()];
    all.extend(args);
    run_python(&all, dir)
}

/// Run a few lines of Python (Debian's) in `dir`; they must exit 0.
pub fn python_inline(code: &str, dir: &Path) -> String {
    run_python(&["-c", code], dir)
}

fn run_python(args: &[&str], dir: &Path) -> String {
    stdout_of(
        Command::new("/usr/bin/python3").args(args).current_dir(dir),
        "/usr/bin/python3 (apt install python3-h5py-mpi)",
    )
}

/// Run `command`, assert it succeeded (showing its output if not), and return its stdout.
fn stdout_of(command: &mut Command, what: &str) -> String {
    let output = run(command, what);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} {command:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Check a dataset written with the test pattern (tests/c/pattern.h) with h5py: shape in
/// HDF5's C order, dtype, every element.
pub fn h5py_pattern(dir: &Path, file: &str, dataset: &str, dtype: &str, storage_dims: &[u64]) {
    let dims: Vec<String> = storage_dims.iter().map(u64::to_string).collect();
    let mut args = vec![file, dataset, dtype];
    args.extend(dims.iter().map(String::as_str));
    let out = python("tests/py/check_pattern.py", &args, dir);
    assert!(out.contains("elements match"), "{out}");
}

/// `h5diff args...` in `dir` (options, then the two files): true when the files hold the
/// same objects and values.
pub fn h5diff(dir: &Path, args: &[&str]) -> (bool, String) {
    let output = run(
        Command::new("h5diff").args(args).current_dir(dir),
        "h5diff (apt install hdf5-tools)",
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// `h5dump -H` (header only) of a file, which must succeed.
pub fn h5dump_header(dir: &Path, file: &str) -> String {
    h5dump(dir, &["-H", file])
}

/// `h5dump ARGS`, which must succeed.
fn h5dump(dir: &Path, args: &[&str]) -> String {
    let output = run(
        Command::new("h5dump").args(args).current_dir(dir),
        "h5dump (apt install hdf5-tools)",
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "h5dump {args:?} failed:\n{text}");
    text
}

/// The version of a file's superblock, as h5dump (Debian's) reads it.
pub fn superblock_version(dir: &Path, file: &str) -> u32 {
    let text = h5dump(dir, &["-B", "-H", file]);
    text.lines()
        .find_map(|l| l.trim().strip_prefix("SUPERBLOCK_VERSION "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("h5dump -B {file}: no superblock version:\n{text}"))
}

/// `dah5 info ARGS` (the installed command, built by cargo) in `dir`; asserts success.
pub fn dah5_info(args: &[&str], dir: &Path) -> String {
    stdout_of(
        Command::new(env!("CARGO_BIN_EXE_dah5"))
            .arg("info")
            .args(args)
            .current_dir(dir),
        "dah5 info",
    )
}
