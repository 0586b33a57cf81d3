//! The source keeps its shape (see `src/lib.rs` and CONTRIBUTING.md): the layers import
//! only downwards (`ffi` through `core` alone), no two files of a folder import each other,
//! `core` has no unsafe code, every unsafe block that clippy cannot see
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
        "src/inline_storage.rs",
        "src/lent.rs",
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
    // MPI's layer knows nothing of HDF5's (both are below core, side by side).
    let found = uses("src/mpi", "crate::h5");
    assert!(found.is_empty(), "mpi imports h5:\n{}", found.join("\n"));
}

/// The exported functions reach MPI and HDF5 only through `core` (`core::process` for what
/// they ask of the process), so that each export is a thin call into `core`.
#[test]
fn ffi_goes_through_core() {
    // A grouped import (`use crate::{mpi, ...}`) would hide a name from this check.
    for lower in ["crate::mpi", "crate::h5", "use crate::{"] {
        let found = uses("src/ffi", lower);
        assert!(
            found.is_empty(),
            "ffi has `{lower}` (reach MPI and HDF5 through crate::core, one path a `use`):\n{}",
            found.join("\n")
        );
    }
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

/// Where the bracket opened just before `text` closes (`open` and `close` nest): the length
/// of what it encloses, or all of `text` if it never closes.
fn closing(text: &str, open: char, close: char) -> usize {
    let mut depth = 1;
    text.char_indices()
        .find(|&(_, c)| {
            depth += match c {
                c if c == open => 1,
                c if c == close => -1,
                _ => 0,
            };
            depth == 0
        })
        .map_or(text.len(), |(i, _)| i)
}

/// The first path segment of each entry of a `use` group's inside (`a::b, c, d::{e, f}`
/// gives `a`, `c`, `d`).
fn group_heads(group: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices().chain([(group.len(), ',')]) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                let head = group[start..i]
                    .split("::")
                    .next()
                    .unwrap_or_default()
                    .trim();
                if !head.is_empty() {
                    heads.push(head);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    heads
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
        bodies.push(&body[..closing(body, '(', ')')]);
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

/// The files of the folder `dir` (module names: `mod` for `mod.rs`) and, for each, the
/// files of the same folder its code names: through `crate::<folder>::` or `super::`
/// (`{...}` groups too), and in `mod.rs` through a child's bare name. An item of `mod.rs`
/// itself is `mod`. Test modules (`#[cfg(test)]`, at the end of a file) are left out.
fn imports_within(dir: &str) -> Vec<(String, Vec<String>)> {
    let folder = dir.rsplit('/').next().expect("a folder name");
    let files: Vec<(String, String)> = sources(dir)
        .into_iter()
        .map(|(path, text)| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let code: String = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            (name, code)
        })
        .collect();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let module_of = |segment: &str| -> String {
        let segment = segment.trim();
        if names.contains(&segment) && segment != "mod" {
            segment.to_string()
        } else {
            "mod".to_string()
        }
    };
    let mut graph = Vec::new();
    for (name, code) in &files {
        let mut targets = Vec::new();
        let prefixes = [format!("crate::{folder}::"), "super::".to_string()];
        for prefix in &prefixes {
            for (at, _) in code.match_indices(prefix.as_str()) {
                let rest = &code[at + prefix.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    let inside = &group[..closing(group, '{', '}')];
                    targets.extend(group_heads(inside).into_iter().map(module_of));
                } else {
                    let first: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    targets.push(module_of(&first));
                }
            }
        }
        if name == "mod" {
            for child in names.iter().filter(|n| **n != "mod") {
                let bare = format!("{child}::");
                let named = code.match_indices(&bare).any(|(at, _)| {
                    !code[..at]
                        .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                });
                if named {
                    targets.push(child.to_string());
                }
            }
        }
        targets.sort();
        targets.dedup();
        targets.retain(|t| t != name);
        graph.push((name.clone(), targets));
    }
    graph.sort();
    graph
}

/// The import circles of a folder: its files that reach each other through imports, each
/// circle as its sorted names joined by spaces.
fn circles(graph: &[(String, Vec<String>)]) -> Vec<String> {
    let reach = |from: &str| -> Vec<String> {
        let mut seen = vec![from.to_string()];
        let mut pending = vec![from.to_string()];
        while let Some(node) = pending.pop() {
            for (_, next) in graph.iter().filter(|(n, _)| *n == node) {
                for n in next {
                    if !seen.contains(n) {
                        seen.push(n.clone());
                        pending.push(n.clone());
                    }
                }
            }
        }
        seen
    };
    let mut found = Vec::new();
    for (node, _) in graph {
        let mut circle: Vec<&str> = graph
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| reach(node).iter().any(|r| r == n) && reach(n).iter().any(|r| r == node))
            .collect();
        circle.sort();
        let circle = circle.join(" ");
        if circle.contains(' ') && !found.contains(&circle) {
            found.push(circle);
        }
    }
    found
}

/// Each folder reads from the bottom up: no two files of one folder import each other,
/// directly or around a circle.
#[test]
fn no_import_circle_inside_a_folder() {
    let mut found = Vec::new();
    for dir in ["src/core", "src/mpi", "src/h5", "src/ffi"] {
        let graph = imports_within(dir);
        assert!(graph.len() > 3, "{dir}: {graph:?}");
        found.extend(circles(&graph).into_iter().map(|c| format!("{dir}: {c}")));
    }
    assert!(
        found.is_empty(),
        "import circles (files that import each other; move what both need to a file below \
         them):\n{}",
        found.join("\n")
    );
}

/// Every source file says in its first line what it is for (a `//!` module doc).
#[test]
fn every_source_file_says_what_it_is_for() {
    let files = sources("src");
    assert!(files.len() > 40, "{} files", files.len());
    let silent: Vec<_> = files
        .iter()
        .filter(|(_, text)| !text.starts_with("//!"))
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(silent.is_empty(), "no //! line first: {silent:?}");
}

/// The README is a front page: at most 14,000 bytes, the reference in docs/.
#[test]
fn readme_is_a_front_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    assert!(
        readme.len() <= 14_000,
        "README.md is {} bytes",
        readme.len()
    );
    for page in ["docs/subfiled.md", "docs/schema.md", "docs/c-api.md"] {
        assert!(readme.contains(page), "README.md does not link {page}");
        assert!(root.join(page).is_file(), "{page} is missing");
    }
}
