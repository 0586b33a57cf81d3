//! The source keeps its shape (see `src/lib.rs` and CONTRIBUTING.md): the layers import
//! only downwards, `core` has no unsafe code, every unsafe block that clippy cannot see
//! (inside `h5call!`, a macro) has its `// SAFETY:` comment, nothing inside an `h5call!`
//! can take the HDF5 lock again, and HDF5's globals are read only through
//! `h5::predefined`.

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

/// The body of every `h5call!(` in the code of `text` (not its comments): the text up to
/// its closing parenthesis.
fn h5call_bodies(text: &str) -> Vec<&str> {
    let mut bodies = Vec::new();
    for (start, _) in text.match_indices("h5call!(") {
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        if text[line_start..start].contains("//") {
            continue;
        }
        let body = &text[start + "h5call!(".len()..];
        let mut depth = 1;
        let end = body
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map_or(body.len(), |(i, _)| i);
        bodies.push(&body[..end]);
    }
    bodies
}

/// The names called in `code` (`a::b(` and `.b(` both give `b`).
fn called_names(code: &str) -> Vec<&str> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut names = Vec::new();
    for (i, _) in code.match_indices('(') {
        let before = code[..i].trim_end();
        let start = before.rfind(|c| !is_name(c)).map_or(0, |j| j + 1);
        if start < before.len() {
            names.push(&before[start..]);
        }
    }
    names
}

/// `h5::call`'s lock is not reentrant (a reentrant lock looks its thread's id up at every
/// HDF5 call): an `h5call!` body is one HDF5 function on plain values, so nothing in it
/// can take the lock again and hang.
#[test]
fn nothing_inside_an_hdf5_call_takes_the_lock() {
    const PLAIN: [&str; 11] = [
        "unsafe",
        "Some",
        "raw",
        "as_ptr",
        "as_mut_ptr",
        "cast",
        "len",
        "size",
        "is_null",
        "null",
        "null_mut",
    ];
    let mut found = Vec::new();
    let mut bodies = 0;
    for (path, text) in sources("src") {
        for body in h5call_bodies(&text) {
            bodies += 1;
            for name in called_names(body) {
                if !name.starts_with("H5") && !PLAIN.contains(&name) {
                    found.push(format!("{}: {name}( in h5call!({body})", path.display()));
                }
            }
        }
    }
    assert!(bodies > 50, "found only {bodies} h5call! bodies");
    assert!(
        found.is_empty(),
        "calls inside h5call! that may take the lock:\n{}",
        found.join("\n")
    );
}
