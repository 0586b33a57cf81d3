//! What the Fortran module declares: its `bind(C, name="dah5_...")` interfaces (dummy
//! arguments with kind, VALUE and array-ness), its `parameter` constants and its
//! `bind(C)` derived types.

use std::collections::BTreeMap;

/// One dummy argument or result, as it is passed: `integer(c_int64_t) :: dims(*)` is kind
/// `c_int64_t`, by reference, an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FType {
    pub kind: String,
    pub by_value: bool,
    pub array: bool,
}

impl std::fmt::Display for FType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let value = if self.by_value { ", value" } else { "" };
        let array = if self.array { "(*)" } else { "" };
        write!(f, "{}{value}{array}", self.kind)
    }
}

#[derive(Debug)]
pub struct Interface {
    pub c_name: String,
    pub ret: FType,
    pub params: Vec<(String, FType)>,
}

#[derive(Debug, Default)]
pub struct Module {
    pub interfaces: Vec<Interface>,
    pub constants: BTreeMap<String, u64>,
    pub types: BTreeMap<String, Vec<(String, String)>>,
}

impl Module {
    pub fn parse(text: &str) -> Module {
        let mut module = Module::default();
        let lines = statements(text);
        let mut i = 0;
        while i < lines.len() {
            let line = &lines[i];
            let lower = line.to_lowercase();
            if lower.starts_with("function ") && lower.contains("bind(c") {
                let end = lines[i..]
                    .iter()
                    .position(|l| l.to_lowercase().starts_with("end function"))
                    .expect("end function")
                    + i;
                module.interfaces.push(interface(line, &lines[i + 1..end]));
                i = end;
            } else if lower.starts_with("type, bind(c)") {
                let name = lower.rsplit("::").next().unwrap().trim().to_string();
                let end = lines[i..]
                    .iter()
                    .position(|l| l.to_lowercase().starts_with("end type"))
                    .expect("end type")
                    + i;
                let fields: Vec<(String, String)> = lines[i + 1..end]
                    .iter()
                    .map(|l| {
                        let (kind, name) = l.split_once("::").expect("kind :: name");
                        let name = name.split('=').next().unwrap().trim().to_lowercase();
                        match name.split_once('(') {
                            // An array field: its kind with the length, "c_int64_t(32)".
                            Some((field, len)) => {
                                let len = len.trim_end_matches(')').trim();
                                // A number, or a parameter of the module (declared above).
                                let len = crate::parse_int(len)
                                    .or_else(|| module.constants.get(&len.to_uppercase()).copied())
                                    .unwrap_or_else(|| panic!("array length {len}"));
                                (
                                    field.trim().to_string(),
                                    format!("{}({len})", kind_of(kind)),
                                )
                            }
                            None => (name, kind_of(kind)),
                        }
                    })
                    .collect();
                module.types.insert(name, fields);
                i = end;
            } else if lower.contains(", parameter") && lower.contains("dah5_") {
                let (_, def) = line.split_once("::").unwrap();
                let (name, value) = def.split_once('=').unwrap();
                let value = crate::parse_int(value.trim()).unwrap_or_else(|| {
                    panic!("parameter {name} = {value}: not an integer literal")
                });
                module.constants.insert(name.trim().to_uppercase(), value);
            }
            i += 1;
        }
        module
    }
}

/// `function dah5_c_x(a, b) bind(C, name="dah5_x") result(status)` and its declarations.
fn interface(first: &str, body: &[String]) -> Interface {
    let lower = first.to_lowercase();
    let open = lower.find('(').unwrap();
    let close = lower.find(')').unwrap();
    let dummies: Vec<String> = lower[open + 1..close]
        .split(',')
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty())
        .collect();
    let c_name = first
        .split("name=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("bind(C, name=\"...\")")
        .to_string();
    let result = lower
        .split("result(")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .expect("result(name)")
        .trim()
        .to_string();
    let mut declared = BTreeMap::new();
    let declarations = body
        .iter()
        .filter(|l| l.contains("::") && !l.to_lowercase().starts_with("import"));
    for line in declarations {
        let (spec, names) = line.split_once("::").unwrap();
        let spec = spec.to_lowercase();
        for name in names.split(',') {
            let name = name.trim().to_lowercase();
            let array = name.ends_with("(*)");
            let name = name.trim_end_matches("(*)").to_string();
            declared.insert(
                name,
                FType {
                    kind: kind_of(&spec),
                    by_value: spec.contains("value"),
                    array,
                },
            );
        }
    }
    let lookup = |name: &String| {
        declared
            .get(name)
            .cloned()
            .unwrap_or_else(|| panic!("{c_name}: {name} is not declared"))
    };
    Interface {
        params: dummies.iter().map(|d| (d.clone(), lookup(d))).collect(),
        ret: lookup(&result),
        c_name,
    }
}

/// `integer(c_int32_t), value` → `c_int32_t`; `type(c_ptr)` → `c_ptr`;
/// `character(kind=c_char)` → `c_char`.
fn kind_of(spec: &str) -> String {
    let spec = spec.to_lowercase();
    let open = spec.find('(').expect("a kind in parentheses");
    let close = spec.find(')').unwrap();
    spec[open + 1..close]
        .trim_start_matches("kind=")
        .trim()
        .to_string()
}

/// Free-form statements: comments dropped (outside strings), `&` continuations joined.
fn statements(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut continued = false;
    for raw in text.lines() {
        let mut in_string = false;
        let mut line = raw;
        for (i, c) in raw.char_indices() {
            match c {
                '"' => in_string = !in_string,
                '!' if !in_string => {
                    line = &raw[..i];
                    break;
                }
                _ => {}
            }
        }
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (body, continues) = match line.strip_suffix('&') {
            Some(body) => (body.trim_end(), true),
            None => (line, false),
        };
        let body = body.trim_start_matches('&').trim_start();
        if continued {
            out.last_mut().unwrap().push_str(&format!(" {body}"));
        } else {
            out.push(body.to_string());
        }
        continued = continues;
    }
    out
}
