//! What the Julia package calls: every `ccall((:name, libdah5), Ret, (Args...), ...)`, every
//! `const DAH5_* = ...` and every `struct dah5_*` mirror, from the package's .jl files.

use std::collections::BTreeMap;

#[derive(Debug)]
pub struct Ccall {
    pub name: String,
    pub ret: String,
    pub arg_types: Vec<String>,
    pub arg_values: usize,
}

#[derive(Debug, Default)]
pub struct Package {
    pub ccalls: Vec<Ccall>,
    pub constants: BTreeMap<String, u64>,
    pub structs: BTreeMap<String, Vec<(String, String)>>,
}

impl Package {
    pub fn parse(sources: &[String]) -> Package {
        let mut package = Package::default();
        for text in sources {
            let code = strip_comments(text);
            let mut rest = code.as_str();
            while let Some(start) = rest.find("ccall(") {
                let open = start + "ccall".len();
                let close = matching(rest, open);
                package.ccalls.push(parse_ccall(&rest[open + 1..close]));
                rest = &rest[close..];
            }
            let mut lines = code.lines();
            while let Some(line) = lines.next() {
                let line = line.trim();
                if let Some(def) = line.strip_prefix("const DAH5_") {
                    let (name, value) = def.split_once('=').expect("const NAME = value");
                    let value = value.trim();
                    // `32`, `Int32(-1)`, `typemax(UInt64)`.
                    let inner = value
                        .find('(')
                        .map_or(value, |open| &value[open + 1..value.len() - 1]);
                    let number = crate::parse_int(value)
                        .or_else(|| crate::parse_int(inner))
                        .unwrap_or_else(|| {
                            panic!("constant DAH5_{name} = {value}: not an integer literal")
                        });
                    package
                        .constants
                        .insert(format!("DAH5_{}", name.trim()), number);
                } else if let Some(name) = line.strip_prefix("struct dah5_") {
                    let fields = lines
                        .by_ref()
                        .map(str::trim)
                        .take_while(|l| *l != "end")
                        .map(|l| {
                            let (field, ty) = l.split_once("::").expect("field::Type");
                            (field.trim().to_string(), ty.trim().to_string())
                        })
                        .collect();
                    package
                        .structs
                        .insert(format!("dah5_{}", name.trim()), fields);
                }
            }
        }
        package
    }
}

/// The arguments of a ccall: `(:name, lib), Ret, (T1, T2), v1, v2`.
fn parse_ccall(inside: &str) -> Ccall {
    let parts = split_top_level(inside);
    assert!(
        parts.len() >= 3,
        "ccall({inside}) has no return and argument types"
    );
    let target = parts[0].trim_start_matches('(').trim_end_matches(')');
    let name = target
        .split(',')
        .next()
        .unwrap()
        .trim()
        .trim_start_matches(':')
        .to_string();
    let types = parts[2].trim();
    assert!(
        types.starts_with('(') && types.ends_with(')'),
        "ccall of {name}: argument types must be a literal tuple, got {types}"
    );
    Ccall {
        name,
        ret: parts[1].to_string(),
        arg_types: split_top_level(&types[1..types.len() - 1]),
        arg_values: parts.len() - 3,
    }
}

/// Split on commas outside (), {} and [], dropping empty items (a 1-tuple's trailing comma).
fn split_top_level(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut item = String::new();
    for c in text.chars() {
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    items
        .into_iter()
        .map(|i| i.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|i| !i.is_empty())
        .collect()
}

/// The index of the parenthesis closing the one at `open`.
fn matching(text: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return open + i;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses after {}", &text[open..]);
}

/// Julia comments (`#` to end of line, outside strings) and docstrings are dropped.
fn strip_comments(text: &str) -> String {
    let without_docstrings: Vec<&str> = text.split("\"\"\"").step_by(2).collect();
    without_docstrings
        .concat()
        .lines()
        .map(|line| {
            let mut in_string = false;
            for (i, c) in line.char_indices() {
                match c {
                    '"' => in_string = !in_string,
                    '#' if !in_string => return &line[..i],
                    _ => {}
                }
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}
