//! The Julia package cannot run here (no Julia), so what can be checked is: every `.jl`
//! file parses with tree-sitter-julia (tests/py/parse_julia.py, from PyPI, installed by
//! scripts/deps.sh into the venv `DAH5_TOOLS_PYTHON` names). Its ccalls are checked
//! against the header by tests/abi, and its call sequences run from Python by
//! tests/py/julia_like.py.

mod common;

use std::process::Command;

use common::root;

#[test]
fn every_julia_file_parses() {
    let python = std::env::var("DAH5_TOOLS_PYTHON").expect(
        "DAH5_TOOLS_PYTHON (the venv with tree-sitter-julia): run the tests with \
         ./scripts/test.sh, which installs it",
    );
    let files = std::fs::read_dir(root().join("julia/DAH5/src"))
        .expect("julia/DAH5/src")
        .count();
    let output = Command::new(&python)
        .arg(root().join("tests/py/parse_julia.py"))
        .arg(root().join("julia"))
        .output()
        .expect("the tools venv's python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    let parsed: usize = stdout
        .trim()
        .strip_prefix("parsed ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected output: {stdout}{stderr}"));
    assert!(parsed >= files, "parsed {parsed} of at least {files} files");
    assert!(stdout.contains(" 0 syntax errors"), "{stdout}");
}
