//! A 64-bit digest of a collective call's arguments, so ranks can check with one small
//! reduction that they all made the same call (FNV-1a: tiny, deterministic on every rank).

#[derive(Clone, Copy, Debug)]
pub struct Digest(u64);

impl Digest {
    /// Start a digest for the named operation.
    pub fn of(operation: &str) -> Digest {
        Digest(0xcbf2_9ce4_8422_2325).bytes(operation.as_bytes())
    }

    pub fn bytes(mut self, data: &[u8]) -> Digest {
        // Length first, so ("ab", "c") and ("a", "bc") differ.
        for &b in (data.len() as u64).to_le_bytes().iter().chain(data) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        self
    }

    pub fn u64(self, value: u64) -> Digest {
        self.bytes(&value.to_le_bytes())
    }

    pub fn u64s(self, values: &[u64]) -> Digest {
        values
            .iter()
            .fold(self.u64(values.len() as u64), |d, &v| d.u64(v))
    }

    pub fn value(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differs_when_any_argument_differs() {
        let a = Digest::of("create").bytes(b"u").u64s(&[8, 4]).value();
        assert_eq!(a, Digest::of("create").bytes(b"u").u64s(&[8, 4]).value());
        assert_ne!(a, Digest::of("create").bytes(b"u").u64s(&[16, 4]).value());
        assert_ne!(a, Digest::of("open").bytes(b"u").u64s(&[8, 4]).value());
        assert_ne!(
            Digest::of("x").bytes(b"ab").bytes(b"c").value(),
            Digest::of("x").bytes(b"a").bytes(b"bc").value()
        );
    }
}
