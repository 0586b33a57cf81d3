//! The arguments of a collective call that must be the same on every rank, by name. Ranks
//! compare their 64-bit digest with one small reduction (a multiply-xorshift over 8-byte
//! words: a few instructions a word, deterministic on every rank, no allocation); when they
//! differ, the text of each argument says which one and how.

use std::borrow::Cow;

/// One argument's value.
#[derive(Clone, Debug)]
enum Value<'a> {
    Text(Cow<'a, str>),
    Number(u64),
    Numbers(&'a [u64]),
    Bytes(&'a [u8]),
}

impl Value<'_> {
    fn describe(&self) -> String {
        match self {
            Value::Text(text) => format!("{text:?}"),
            Value::Number(value) => value.to_string(),
            Value::Numbers([value]) => value.to_string(),
            Value::Numbers(values) => {
                let values: Vec<String> = values.iter().map(u64::to_string).collect();
                format!("({})", values.join(", "))
            }
            Value::Bytes(bytes) => {
                let digest = Digest::new().bytes(bytes).value();
                format!("{} bytes (digest {digest:016x})", bytes.len())
            }
        }
    }
}

/// A collective call's operation and its named arguments.
#[derive(Clone, Debug)]
pub struct Args<'a> {
    operation: &'a str,
    items: Vec<(&'static str, Value<'a>)>,
}

impl<'a> Args<'a> {
    pub fn of(operation: &'a str) -> Args<'a> {
        Args {
            operation,
            // Room for the arguments of any call: one allocation.
            items: Vec::with_capacity(12),
        }
    }

    pub fn text(mut self, name: &'static str, text: impl Into<Cow<'a, str>>) -> Args<'a> {
        self.items.push((name, Value::Text(text.into())));
        self
    }

    pub fn numbers(mut self, name: &'static str, values: &'a [u64]) -> Args<'a> {
        self.items.push((name, Value::Numbers(values)));
        self
    }

    pub fn number(mut self, name: &'static str, value: u64) -> Args<'a> {
        self.items.push((name, Value::Number(value)));
        self
    }

    pub fn bytes(mut self, name: &'static str, bytes: &'a [u8]) -> Args<'a> {
        self.items.push((name, Value::Bytes(bytes)));
        self
    }

    /// Everything the ranks must agree on, in 64 bits. The operation's name stands for its
    /// arguments' names (every call of it names the same ones in the same order), so of
    /// each name only its length goes in: a cheap guard should a call ever name its
    /// arguments differently.
    pub fn digest(&self) -> u64 {
        let mut digest = Digest::new()
            .bytes(self.operation.as_bytes())
            .word(self.items.len() as u64);
        for (name, value) in &self.items {
            digest = digest.word(name.len() as u64);
            digest = match value {
                Value::Text(text) => digest.bytes(text.as_bytes()),
                Value::Number(value) => digest.word(1).word(*value),
                Value::Numbers(values) => values
                    .iter()
                    .fold(digest.word(values.len() as u64), |d, &v| d.word(v)),
                Value::Bytes(bytes) => digest.bytes(bytes),
            };
        }
        digest.value()
    }

    /// `call\t<operation>` and one `name\tvalue` line per argument, to send to other ranks.
    pub fn describe(&self) -> String {
        let mut text = format!("call\t{}\n", self.operation);
        for (name, value) in &self.items {
            text.push_str(&format!(
                "{name}\t{}\n",
                value.describe().replace('\n', " ")
            ));
        }
        text
    }
}

/// A hash of length-prefixed pieces, so ("ab", "c") and ("a", "bc") differ, taken a
/// little-endian 8-byte word at a time.
#[derive(Clone, Copy, Debug)]
struct Digest(u64);

impl Digest {
    fn new() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }

    fn word(self, word: u64) -> Digest {
        let mixed = (self.0 ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Digest(mixed ^ (mixed >> 29))
    }

    fn bytes(self, data: &[u8]) -> Digest {
        let mut chunks = data.chunks_exact(8);
        let mut digest = self.word(data.len() as u64);
        for chunk in &mut chunks {
            digest = digest.word(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if rest.is_empty() {
            return digest;
        }
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        digest.word(u64::from_le_bytes(last))
    }

    fn value(self) -> u64 {
        self.0
    }
}

/// Which argument differs between ranks, given every rank's [`Args::describe`] text (in rank
/// order), as "dims differ: rank 0 (8, 4), rank 1 (16, 4)". `None` if they are the same.
pub fn explain(descriptions: &[String]) -> Option<String> {
    let parsed: Vec<Vec<(&str, &str)>> = descriptions
        .iter()
        .map(|d| d.lines().filter_map(|l| l.split_once('\t')).collect())
        .collect();
    let names: Vec<&str> = parsed.first()?.iter().map(|(n, _)| *n).collect();
    let value = |rank: usize, name: &str| {
        parsed[rank]
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("(not passed)", |(_, v)| *v)
    };
    // The call itself first: ranks in different calls have different arguments anyway.
    let name = names
        .iter()
        .chain(parsed.iter().flatten().map(|(n, _)| n))
        .find(|name| (1..parsed.len()).any(|r| value(r, name) != value(0, name)))?;
    // Ranks grouped by value, in order of first appearance.
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for rank in 0..parsed.len() {
        let v = value(rank, name);
        match groups.iter_mut().find(|(g, _)| *g == v) {
            Some((_, ranks)) => ranks.push(rank),
            None => groups.push((v, vec![rank])),
        }
    }
    let shown: Vec<String> = groups
        .iter()
        .take(4)
        .map(|(v, ranks)| format!("{} {v}", rank_list(ranks)))
        .collect();
    let more = if groups.len() > 4 { ", ..." } else { "" };
    let verb = if name.ends_with('s') {
        "differ"
    } else {
        "differs"
    };
    Some(if *name == "call" {
        format!(
            "the ranks made different collective calls: {}{more}",
            shown.join(", ")
        )
    } else {
        format!("{name} {verb}: {}{more}", shown.join(", "))
    })
}

/// "rank 3", "ranks 0-2, 5".
pub fn rank_list(ranks: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let start = ranks[i];
        while i + 1 < ranks.len() && ranks[i + 1] == ranks[i] + 1 {
            i += 1;
        }
        parts.push(if ranks[i] == start {
            start.to_string()
        } else {
            format!("{start}-{}", ranks[i])
        });
        i += 1;
    }
    let word = if ranks.len() == 1 { "rank" } else { "ranks" };
    format!("{word} {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(dims: &[u64]) -> Args<'_> {
        Args::of("dah5_dataset_create")
            .text("name", "u")
            .numbers("dims", dims)
    }

    #[test]
    fn digests_differ_exactly_when_arguments_do() {
        assert_eq!(create(&[8, 4]).digest(), create(&[8, 4]).digest());
        assert_ne!(create(&[8, 4]).digest(), create(&[16, 4]).digest());
        let open = Args::of("dah5_dataset_open")
            .text("name", "u")
            .numbers("dims", &[8, 4]);
        assert_ne!(create(&[8, 4]).digest(), open.digest());
        assert_ne!(
            Args::of("x").text("a", "ab").text("b", "c").digest(),
            Args::of("x").text("a", "a").text("b", "bc").digest()
        );
    }

    #[test]
    fn a_mismatch_names_the_argument_and_the_ranks() {
        let d = |dims: &[u64]| create(dims).describe();
        assert_eq!(
            explain(&[d(&[8, 4]), d(&[16, 4])]).unwrap(),
            "dims differ: rank 0 (8, 4), rank 1 (16, 4)"
        );
        assert_eq!(
            explain(&[d(&[8, 4]), d(&[8, 4]), d(&[8, 4]), d(&[9, 4])]).unwrap(),
            "dims differ: ranks 0-2 (8, 4), rank 3 (9, 4)"
        );
        let other = Args::of("dah5_file_close").text("path", "f.h5").describe();
        assert_eq!(
            explain(&[d(&[8, 4]), other]).unwrap(),
            "the ranks made different collective calls: rank 0 dah5_dataset_create, rank 1 \
             dah5_file_close"
        );
        let named = |name| Args::of("op").text("name", name).describe();
        assert_eq!(
            explain(&[named("a"), named("b")]).unwrap(),
            "name differs: rank 0 \"a\", rank 1 \"b\""
        );
        assert_eq!(explain(&[d(&[8, 4]), d(&[8, 4])]), None);
    }
}
