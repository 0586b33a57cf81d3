//! The committed header is exactly what cbindgen generates, and it compiles alone as
//! strict C99 and as C++. `DAH5_UPDATE_HEADER=1 cargo test --test header` (what
//! `make header` runs) rewrites it. Every name it declares is dah5's.

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

/// The names a line of the header declares: a macro, a typedef'd or tagged type, or a
/// function (the word before the first `(` of a line that starts a declaration).
fn declared_names(header: &str) -> Vec<String> {
    let word = |s: &str| -> String {
        s.chars()
            .rev()
            .skip_while(|c| !(c.is_alphanumeric() || *c == '_'))
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect()
    };
    let mut names = Vec::new();
    for line in header.lines() {
        if let Some(rest) = line.strip_prefix("#define ") {
            names.push(
                rest.split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            );
        } else if line.starts_with("typedef ") || line.starts_with("struct ") {
            names.push(word(line.trim_end_matches(['{', ';', ' '])));
        } else if line.starts_with(|c: char| c.is_ascii_alphabetic()) && line.contains('(') {
            names.push(word(&line[..line.find('(').unwrap()]));
        }
    }
    names
}

#[test]
fn header_declares_only_dah5_names() {
    let header = generate();
    let names = declared_names(&header);
    assert!(
        names.iter().any(|n| n == "dah5_write_block"),
        "parsed {names:?}"
    );
    let foreign: Vec<_> = names
        .iter()
        .filter(|n| !(n.starts_with("dah5_") || n.starts_with("DAH5_")))
        .collect();
    assert!(
        foreign.is_empty(),
        "the header would declare {foreign:?}: items outside src/ffi must be pub(crate) (or \
         listed under [export] exclude in cbindgen.toml) so the C API holds only dah5 names"
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
