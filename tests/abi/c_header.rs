//! What include/dah5.h declares: function prototypes, `#define` constants and the fields
//! of the option structs. A small parser for the header cbindgen writes (one style, no
//! macros in prototypes), not a C parser.

use std::collections::BTreeMap;

/// A C type as it crosses the ABI: `const struct dah5_dataset *` is base
/// `struct dah5_dataset`, const, one pointer level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CType {
    pub base: String,
    pub is_const: bool,
    pub pointers: usize,
    /// `Some(n)` for a struct field `T name[n]`.
    pub array: Option<usize>,
}

impl CType {
    pub fn parse(text: &str) -> CType {
        let spaced = text.replace('*', " * ");
        let mut words: Vec<&str> = spaced.split_whitespace().collect();
        let pointers = words.iter().filter(|w| **w == "*").count();
        words.retain(|w| *w != "*");
        let is_const = words.contains(&"const");
        words.retain(|w| *w != "const");
        CType {
            base: words.join(" "),
            is_const,
            pointers,
            array: None,
        }
    }
}

impl std::fmt::Display for CType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let constness = if self.is_const { "const " } else { "" };
        write!(f, "{constness}{}{}", self.base, " *".repeat(self.pointers))?;
        match self.array {
            Some(n) => write!(f, "[{n}]"),
            None => Ok(()),
        }
    }
}

#[derive(Debug)]
pub struct Function {
    pub name: String,
    pub ret: CType,
    pub params: Vec<(String, CType)>,
}

#[derive(Debug, Default)]
pub struct Header {
    pub functions: Vec<Function>,
    /// Values as 64-bit patterns (`-1` and `UINT64_MAX` are the same).
    pub constants: BTreeMap<String, u64>,
    /// Option structs (those with a body): name → fields in order.
    pub structs: BTreeMap<String, Vec<(String, CType)>>,
}

impl Header {
    pub fn parse(text: &str) -> Header {
        let mut header = Header::default();
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if let ["#define", name, value] = words[..]
                && let Some(value) = crate::parse_int(value)
            {
                header.constants.insert(name.to_string(), value);
            }
        }
        let code: String = strip_comments(text)
            .lines()
            .filter(|line| !line.trim_start().starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        let mut rest = code.as_str();
        while let Some(start) = rest.find("typedef struct") {
            let after = &rest[start..];
            let end = after.find(';').expect("typedef ends with ;");
            match after[..end].find('{') {
                Some(open) => {
                    let close = after.find('}').expect("struct body is closed");
                    let name = after[..open]["typedef struct".len()..].trim().to_string();
                    header.structs.insert(name, fields(&after[open + 1..close]));
                    rest = &after[close + 1..];
                }
                None => rest = &after[end + 1..],
            }
        }
        for chunk in code.split(';') {
            let chunk = chunk.rsplit(['{', '}']).next().unwrap_or(chunk).trim();
            let (Some(open), Some(close)) = (chunk.find('('), chunk.rfind(')')) else {
                continue;
            };
            let signature = CType::parse(&chunk[..open]);
            let name = signature
                .base
                .rsplit(' ')
                .next()
                .unwrap_or_default()
                .to_string();
            let ret = CType::parse(chunk[..open].trim_end().strip_suffix(&name).unwrap());
            let params = chunk[open + 1..close]
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty() && *p != "void")
                .map(declaration)
                .collect();
            header.functions.push(Function { name, ret, params });
        }
        header
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// An opaque handle type: a `struct dah5_*` the header declares without a body.
    pub fn is_opaque(&self, base: &str) -> bool {
        base.strip_prefix("struct ")
            .is_some_and(|name| !self.structs.contains_key(name))
    }
}

/// `"const uint64_t *offset"` → ("offset", `const uint64_t *`); `"uint64_t chunk[32]"` →
/// ("chunk", `uint64_t[32]`).
fn declaration(text: &str) -> (String, CType) {
    let text = text.trim();
    if let Some((decl, len)) = text.strip_suffix(']').and_then(|t| t.split_once('[')) {
        let (name, mut ctype) = declaration(decl);
        ctype.array = Some(len.trim().parse().expect("array length"));
        return (name, ctype);
    }
    let split = text
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .expect("a declaration has a type and a name");
    (text[split + 1..].to_string(), CType::parse(&text[..=split]))
}

fn fields(body: &str) -> Vec<(String, CType)> {
    body.split(';')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(declaration)
        .collect()
}

fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(['/']) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        if tail.starts_with("/*") {
            let end = tail.find("*/").expect("comment is closed");
            rest = &tail[end + 2..];
        } else if tail.starts_with("//") {
            rest = tail.find('\n').map_or("", |end| &tail[end..]);
        } else {
            out.push('/');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}
