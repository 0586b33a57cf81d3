//! The source keeps its shape (see `src/lib.rs` and CONTRIBUTING.md): the layers import
//! only downwards, `core` has no unsafe code, every unsafe block that clippy cannot see
//! (inside `h5call!`, a macro) has its `// SAFETY:` comment, and HDF5's globals are read
//! only through `h5::predefined`.

use std::path::{Path, PathBuf};

fn sources(dir: &str) -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut found = Vec::new();
    let mut pending = vec![root];
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).expect("a source directory") {
                pending.push(entry.expect("a directory entry").path());
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file");
            found.push((path, text));
        }
    }
    assert!(!found.is_empty(), "no sources under {dir}");
    found
}

/// `path:line: text` of every line of `dir` that contains `needle` outside comments.
fn uses(dir: &str, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in sources(dir) {
        for (i, line) in text.lines().enumerate() {
            if line.contains(needle) && !line.trim_start().starts_with("//") {
                found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn lower_layers_never_import_the_upper_ones() {
    for lower in [
        "src/h5",
        "src/mpi",
        "src/os.rs",
        "src/in_place.rs",
        "src/error.rs",
        "src/dtype.rs",
    ] {
        for upper in ["crate::core", "crate::ffi"] {
            let found = uses(lower, upper);
            assert!(
                found.is_empty(),
                "{lower} imports {upper}:\n{}",
                found.join("\n")
            );
        }
    }
    let found = uses("src/core", "crate::ffi");
    assert!(found.is_empty(), "core imports ffi:\n{}", found.join("\n"));
}

#[test]
fn core_has_no_unsafe_code() {
    let (_, module) = sources("src/core")
        .into_iter()
        .find(|(p, _)| p.ends_with("core/mod.rs"))
        .expect("src/core/mod.rs");
    assert!(
        module.contains("\n#![deny(unsafe_code)]\n"),
        "core/mod.rs lost its deny"
    );
}

/// hdf5-sys declares HDF5's globals (`H5T_NATIVE_DOUBLE`, `H5P_CLS_FILE_ACCESS`,
/// `H5E_NOTFOUND`) immutable; with LTO a direct read (`*H5P_CLS_FILE_ACCESS`) was moved
/// before `H5open`. `h5::predefined` reads them after it.
#[test]
fn hdf5_globals_are_read_through_predefined() {
    let found = uses("src", "*H5");
    assert!(
        found.is_empty(),
        "HDF5 globals read directly (use h5::predefined):\n{}",
        found.join("\n")
    );
}

#[test]
fn every_hdf5_call_has_its_safety_comment() {
    let mut missing = Vec::new();
    let mut calls = 0;
    for (path, text) in sources("src") {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") || !code.contains("h5call!(unsafe") {
                continue;
            }
            calls += 1;
            let comment = lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.trim_start().starts_with("//"));
            if !comment.into_iter().any(|l| l.contains("// SAFETY:")) {
                missing.push(format!("{}:{}: {code}", path.display(), i + 1));
            }
        }
    }
    assert!(calls > 50, "found only {calls} h5call! sites");
    assert!(
        missing.is_empty(),
        "no SAFETY comment:\n{}",
        missing.join("\n")
    );
}
