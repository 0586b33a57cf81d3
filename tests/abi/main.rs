//! ABI conformance: the Julia package's `ccall`s and the Fortran module's `bind(C)`
//! interfaces must match include/dah5.h function by function, argument by argument, and
//! carry the same constants and option structs. Julia cannot be installed on the CI
//! machines, so this is how its ABI use is checked (tests/bindings.rs then drives the
//! library from Python exactly as the Julia wrappers call it, and runs the Fortran module).
//! Change the header without the bindings and this test fails.

mod c_header;
mod fortran;
mod julia;

use c_header::{CType, Header};
use fortran::FType;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An integer constant as a 64-bit pattern: decimal (signed), `0x` hex, `UINT64_MAX`, with
/// Julia's `_` separators or a Fortran kind suffix (`-1_c_int64_t`).
pub fn parse_int(text: &str) -> Option<u64> {
    let text = text.trim();
    if text == "UINT64_MAX" || text == "typemax(UInt64)" {
        return Some(u64::MAX);
    }
    let number = match text.split_once("_c_") {
        Some((number, _kind)) => number,
        None => text,
    };
    let number = number.replace('_', "");
    if let Some(hex) = number.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    number.parse::<i64>().ok().map(|v| v as u64)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn header() -> Header {
    Header::parse(&read(&root().join("include/dah5.h")))
}

fn julia_sources() -> Vec<String> {
    let mut sources = Vec::new();
    for dir in ["julia/DAH5/src", "julia/DAH5/ext"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jl"))
            .collect();
        paths.sort();
        sources.extend(paths.iter().map(|p| read(p)));
    }
    sources
}

fn fortran_source() -> String {
    read(&root().join("fortran/dah5.f90"))
}

/// The Julia base types that stand for a C base type.
fn julia_base_matches(julia: &str, c: &str) -> bool {
    const SAME: &[(&str, &str)] = &[
        ("Int32", "int32_t"),
        ("Cint", "int32_t"),
        ("UInt32", "uint32_t"),
        ("Cuint", "uint32_t"),
        ("Int64", "int64_t"),
        ("UInt64", "uint64_t"),
        ("Csize_t", "size_t"),
        ("Cvoid", "void"),
        ("UInt8", "char"),
        ("Cchar", "char"),
    ];
    SAME.contains(&(julia, c)) || c.strip_prefix("struct ") == Some(julia)
}

/// Does a Julia ccall type pass what the C type says? `Ptr{T}`/`Ref{T}` are one pointer
/// level (const is C's business), `Cstring` is a NUL-terminated `const char *`.
fn julia_matches(julia: &str, c: &CType) -> bool {
    if let Some(n) = c.array {
        let element = CType {
            array: None,
            ..c.clone()
        };
        return julia
            .strip_prefix("NTuple{")
            .and_then(|t| t.strip_suffix('}'))
            .and_then(|t| t.split_once(','))
            .is_some_and(|(len, inner)| {
                len.trim().parse() == Ok(n) && julia_matches(inner.trim(), &element)
            });
    }
    if julia == "Cstring" {
        return c.base == "char" && c.pointers == 1 && c.is_const;
    }
    for wrapper in ["Ptr{", "Ref{"] {
        if let Some(inner) = julia
            .strip_prefix(wrapper)
            .and_then(|t| t.strip_suffix('}'))
        {
            return c.pointers > 0
                && julia_matches(
                    inner,
                    &CType {
                        pointers: c.pointers - 1,
                        ..c.clone()
                    },
                );
        }
    }
    c.pointers == 0 && julia_base_matches(julia, &c.base)
}

/// How the Fortran interface must declare a C parameter or result. Fortran has no
/// unsigned kinds: uint32_t/uint64_t use the signed kind of the same size.
fn fortran_for(c: &CType, header: &Header, result: bool) -> Option<FType> {
    let scalar = |kind: &str, by_value: bool| FType {
        kind: kind.to_string(),
        by_value,
        array: false,
    };
    let integer_kind = match c.base.as_str() {
        "int32_t" | "uint32_t" => Some("c_int32_t"),
        "int64_t" | "uint64_t" => Some("c_int64_t"),
        "size_t" => Some("c_size_t"),
        _ => None,
    };
    let opaque = header.is_opaque(&c.base) || c.base == "void";
    Some(match (c.pointers, integer_kind) {
        (0, Some(kind)) => scalar(kind, !result),
        // A pointer result is a C string or a handle: type(c_ptr).
        (1, _) if result => scalar("c_ptr", false),
        (1, Some("c_int64_t")) => FType {
            kind: "c_int64_t".into(),
            by_value: false,
            array: true,
        },
        (1, Some(kind)) => scalar(kind, false),
        (1, None) if c.base == "char" => FType {
            kind: "c_char".into(),
            by_value: false,
            array: true,
        },
        (1, None) if opaque => scalar("c_ptr", true),
        (1, None) => scalar(c.base.strip_prefix("struct ")?, false),
        (2, None) if header.is_opaque(&c.base) => scalar("c_ptr", false),
        // An array of C strings: an array of c_loc pointers.
        (2, None) if c.base == "char" => FType {
            kind: "c_ptr".into(),
            by_value: false,
            array: true,
        },
        _ => return None,
    })
}

/// Everything in which the Julia package differs from the header.
fn julia_drift(header: &Header, package: &julia::Package) -> Vec<String> {
    let mut errors = Vec::new();
    for function in &header.functions {
        let calls: Vec<_> = package
            .ccalls
            .iter()
            .filter(|c| c.name == function.name)
            .collect();
        if calls.is_empty() {
            errors.push(format!("Julia has no ccall of {}", function.name));
        }
        for call in calls {
            let name = &function.name;
            if !julia_matches(&call.ret, &function.ret) {
                errors.push(format!(
                    "{name}: Julia returns {}, C returns {}",
                    call.ret, function.ret
                ));
            }
            if call.arg_types.len() != function.params.len() {
                errors.push(format!(
                    "{name}: Julia passes {} arguments, C takes {}",
                    call.arg_types.len(),
                    function.params.len()
                ));
            }
            if call.arg_values != call.arg_types.len() {
                errors.push(format!(
                    "{name}: ccall lists {} types but {} values",
                    call.arg_types.len(),
                    call.arg_values
                ));
            }
            for (julia, (param, c)) in call.arg_types.iter().zip(&function.params) {
                if !julia_matches(julia, c) {
                    errors.push(format!(
                        "{name}({param}): Julia passes {julia}, C takes {c}"
                    ));
                }
            }
        }
    }
    for call in &package.ccalls {
        if header.function(&call.name).is_none() {
            errors.push(format!(
                "Julia calls {}, which dah5.h does not declare",
                call.name
            ));
        }
    }
    errors.extend(constant_drift(
        "Julia",
        &header.constants,
        &package.constants,
    ));
    errors.extend(struct_drift(
        "Julia",
        header,
        &package.structs,
        julia_matches,
    ));
    errors
}

/// Fortran passes a scalar by reference exactly as an array (`uint64_t *count_out` may be
/// declared either way); everything else must match.
fn same_abi(expected: &FType, actual: &FType) -> bool {
    expected == actual
        || (!expected.by_value
            && !actual.by_value
            && expected.kind == actual.kind
            && expected.kind != "c_char")
}

/// Everything in which the Fortran module differs from the header.
fn fortran_drift(header: &Header, module: &fortran::Module) -> Vec<String> {
    let mut errors = Vec::new();
    let interfaces: Vec<_> = module
        .interfaces
        .iter()
        .filter(|i| i.c_name.starts_with("dah5_"))
        .collect();
    for function in &header.functions {
        let name = &function.name;
        let Some(interface) = interfaces.iter().find(|i| &i.c_name == name) else {
            errors.push(format!("Fortran has no bind(C) interface to {name}"));
            continue;
        };
        match fortran_for(&function.ret, header, true) {
            Some(expected) if expected == interface.ret => {}
            expected => errors.push(format!(
                "{name}: Fortran result {}, C {} needs {}",
                interface.ret,
                function.ret,
                describe(expected)
            )),
        }
        if interface.params.len() != function.params.len() {
            errors.push(format!(
                "{name}: Fortran declares {} arguments, C takes {}",
                interface.params.len(),
                function.params.len()
            ));
        }
        for ((dummy, ftype), (param, c)) in interface.params.iter().zip(&function.params) {
            match fortran_for(c, header, false) {
                Some(expected) if same_abi(&expected, ftype) => {}
                expected => errors.push(format!(
                    "{name}({param}): Fortran {dummy} is {ftype}, C {c} needs {}",
                    describe(expected)
                )),
            }
        }
    }
    for interface in &interfaces {
        if header.function(&interface.c_name).is_none() {
            errors.push(format!(
                "Fortran binds {}, which dah5.h does not declare",
                interface.c_name
            ));
        }
    }
    errors.extend(constant_drift(
        "Fortran",
        &header.constants,
        &module.constants,
    ));
    errors.extend(struct_drift("Fortran", header, &module.types, |kind, c| {
        fortran_field(c) == kind
    }));
    errors
}

/// The option structs: same fields, in the same order, of matching types.
fn struct_drift(
    language: &str,
    header: &Header,
    theirs: &BTreeMap<String, Vec<(String, String)>>,
    matches: impl Fn(&str, &CType) -> bool,
) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, c_fields) in &header.structs {
        let same = theirs.get(name).is_some_and(|fields| {
            fields.len() == c_fields.len()
                && fields
                    .iter()
                    .zip(c_fields)
                    .all(|((field, ty), (c_field, c_ty))| field == c_field && matches(ty, c_ty))
        });
        if !same {
            errors.push(format!(
                "{language} {name} is {:?}, dah5.h has {}",
                theirs.get(name),
                show_fields(c_fields)
            ));
        }
    }
    errors
}

/// How a Fortran bind(C) type declares a C struct field: the kind, and for an array the
/// length, as `c_int64_t(32)`; a pointer is c_ptr.
fn fortran_field(c: &CType) -> String {
    if c.pointers > 0 {
        return "c_ptr".to_string();
    }
    let kind = match c.base.as_str() {
        "int32_t" | "uint32_t" => "c_int32_t",
        "int64_t" | "uint64_t" => "c_int64_t",
        "size_t" => "c_size_t",
        other => other,
    };
    match c.array {
        None => kind.to_string(),
        Some(n) => format!("{kind}({n})"),
    }
}

fn describe(expected: Option<FType>) -> String {
    expected.map_or("a type Fortran cannot express".to_string(), |e| {
        e.to_string()
    })
}

fn show_fields(fields: &[(String, CType)]) -> String {
    let fields: Vec<String> = fields.iter().map(|(n, t)| format!("{t} {n}")).collect();
    fields.join("; ")
}

fn constant_drift(
    language: &str,
    c: &BTreeMap<String, u64>,
    theirs: &BTreeMap<String, u64>,
) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, value) in c {
        match theirs.get(name) {
            Some(v) if v == value => {}
            Some(v) => errors.push(format!("{language} {name} = {v}, dah5.h says {value}")),
            None => errors.push(format!("{language} lacks {name} (= {value})")),
        }
    }
    for name in theirs.keys().filter(|n| !c.contains_key(*n)) {
        errors.push(format!("{language} defines {name}, which dah5.h does not"));
    }
    errors
}

#[test]
fn header_is_parsed_completely() {
    let header = header();
    // Every prototype of the header (a line starting with its return type), counted
    // independently of the parser.
    let text = read(&root().join("include/dah5.h"));
    let prototypes = text
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()) && l.contains("dah5_"))
        .filter(|l| l.contains('(') && !l.starts_with("typedef"))
        .count();
    assert_eq!(header.functions.len(), prototypes, "{:?}", header.functions);
    let write = header
        .function("dah5_write_block")
        .expect("dah5_write_block");
    assert_eq!(write.params.len(), 6);
    assert_eq!(write.params[1].1.to_string(), "const uint64_t *");
    assert_eq!(
        header
            .function("dah5_version_string")
            .unwrap()
            .ret
            .to_string(),
        "const char *"
    );
    assert_eq!(
        header.constants["DAH5_ERR_COLLECTIVE_MISMATCH"],
        -13i64 as u64
    );
    assert_eq!(header.constants["DAH5_UNLIMITED"], u64::MAX);
    let chunk = &header.structs["dah5_dataset_options"][6];
    assert_eq!(
        (chunk.0.as_str(), chunk.1.to_string()),
        ("chunk", "uint64_t[32]".into())
    );
    assert_eq!(header.structs["dah5_file_options"].len(), 7);
    assert!(header.is_opaque("struct dah5_file"));
}

#[test]
fn julia_ccalls_match_the_header() {
    let package = julia::Package::parse(&julia_sources());
    let errors = julia_drift(&header(), &package);
    assert!(
        errors.is_empty(),
        "Julia drifted from dah5.h:\n{}",
        errors.join("\n")
    );
    assert_eq!(
        package.ccalls.len(),
        header().functions.len(),
        "one ccall per function"
    );
}

#[test]
fn fortran_interfaces_match_the_header() {
    let module = fortran::Module::parse(&fortran_source());
    let errors = fortran_drift(&header(), &module);
    assert!(
        errors.is_empty(),
        "Fortran drifted from dah5.h:\n{}",
        errors.join("\n")
    );
}

/// The checks can fail: a header with one changed parameter type, one removed function
/// and one renumbered status is caught for both languages.
#[test]
fn a_changed_header_is_caught() {
    let text = read(&root().join("include/dah5.h"))
        .replace(
            "int32_t dah5_dataset_ndims(const struct dah5_dataset *dataset, uint32_t *ndims_out);",
            "int32_t dah5_dataset_ndims(const struct dah5_dataset *dataset, uint64_t *ndims_out);",
        )
        .replace(
            "uint32_t dah5_version(void);",
            "uint32_t dah5_version2(void);",
        )
        .replace("#define DAH5_ERR_PANIC -19", "#define DAH5_ERR_PANIC -21");
    let changed = Header::parse(&text);
    let julia = julia_drift(&changed, &julia::Package::parse(&julia_sources())).join("\n");
    let fortran = fortran_drift(&changed, &fortran::Module::parse(&fortran_source())).join("\n");
    for errors in [&julia, &fortran] {
        assert!(errors.contains("dah5_dataset_ndims(ndims_out)"), "{errors}");
        assert!(errors.contains("dah5_version2"), "{errors}");
        assert!(errors.contains("DAH5_ERR_PANIC"), "{errors}");
    }
}
