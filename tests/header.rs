//! The committed header is exactly what cbindgen generates, and it compiles alone as
//! strict C99 and as C++. `DAH5_UPDATE_HEADER=1 cargo test --test header` (what
//! `make header` runs) rewrites it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{mpi_tool, root};

fn generate() -> String {
    let config = cbindgen::Config::from_file(root().join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::generate_with_config(root(), config).expect("cbindgen runs");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("utf-8 header")
}

#[test]
fn committed_header_equals_generated() {
    let path = root().join("include/dah5.h");
    let generated = generate();
    if std::env::var_os("DAH5_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("write include/dah5.h");
    }
    let committed = std::fs::read_to_string(&path).expect("include/dah5.h exists");
    assert!(
        committed == generated,
        "include/dah5.h differs from what cbindgen generates from src/ffi; run `make header` \
         and commit the result"
    );
}

fn compile(compiler: &str, flags: &[&str], language: &str, source: &str, dir: &Path) {
    let file = dir.join(format!("only_header.{language}"));
    std::fs::write(&file, source).unwrap();
    let output = Command::new(compiler)
        .args(flags)
        .arg("-fsyntax-only")
        .arg(format!("-I{}", root().join("include").display()))
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("{compiler} must be installed: {e}"));
    assert!(
        output.status.success(),
        "{compiler} {flags:?} rejects the header:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn header_compiles_alone_as_strict_c99_and_as_cpp() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("header");
    std::fs::create_dir_all(&dir).unwrap();
    let use_it = "#include \"dah5.h\"\nint main(void) { return dah5_version() == DAH5_VERSION_NUMBER ? 0 : 1; }\n";
    let strict = ["-Wall", "-Wextra", "-pedantic", "-Werror"];
    compile(
        "gcc",
        &[&["-std=c99"][..], &strict].concat(),
        "c",
        use_it,
        &dir,
    );
    compile(
        "g++",
        &[&["-std=c++11"][..], &strict].concat(),
        "cpp",
        use_it,
        &dir,
    );
    // The MPI helpers compile with the MPI wrappers, both languages.
    let with_mpi = "#include \"dah5_mpi.h\"\nint main(void) { return 0; }\n";
    compile(
        &mpi_tool("mpicc"),
        &[&["-std=c99"][..], &strict].concat(),
        "c",
        with_mpi,
        &dir,
    );
    // The MPIs' deprecated C++ bindings do not pass -Wextra themselves; skip them.
    let cxx = ["-std=c++11", "-DOMPI_SKIP_MPICXX", "-DMPICH_SKIP_MPICXX"];
    compile(
        &mpi_tool("mpicxx"),
        &[&cxx[..], &strict].concat(),
        "cpp",
        with_mpi,
        &dir,
    );
}
