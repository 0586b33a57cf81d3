//! Values that do not fit: HDF5's conversions clamp an out-of-range value to the nearest
//! one the destination type holds (1e10 into an int32 becomes 2147483647) and say nothing.
//! dah5 converts only when asked (`DAH5_CONVERT`), and even then refuses a value that does
//! not fit: writes are checked here, before anything is written; reads by HDF5's
//! conversion callback (`h5::plist::refuse_out_of_range`).
//!
//! Allowed, as in a C cast: a float's fraction is dropped on the way to an integer, and an
//! integer may lose precision on the way to a float. Infinities and NaN pass between floats.

use crate::dtype::{Class, Dtype};
use crate::error::{Error, ErrorKind, Result};

/// One element, widened so that every dtype's values are exact (floats stay floats).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Int(i128),
    Float(f64),
}

/// The range of a real dtype as `(min, max)`, for integers exactly.
fn int_range(dtype: Dtype) -> Option<(i128, i128)> {
    let bits = 8 * dtype.size() as u32;
    match dtype.class() {
        Class::SignedInt => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
        Class::UnsignedInt => Some((0, (1i128 << bits) - 1)),
        Class::Float | Class::Complex => None,
    }
}

/// The real type of each component: a complex is two floats.
fn component(dtype: Dtype) -> Dtype {
    match dtype {
        Dtype::Complex64 => Dtype::Float32,
        Dtype::Complex128 => Dtype::Float64,
        other => other,
    }
}

/// Whether every value of `from` fits `to`, so that no element needs looking at.
fn always_fits(from: Dtype, to: Dtype) -> bool {
    match (int_range(from), int_range(to)) {
        (Some((lo, hi)), Some((min, max))) => min <= lo && hi <= max,
        // Integers into floats: precision may go, the magnitude always fits.
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => from.size() <= to.size(),
    }
}

fn decode(dtype: Dtype, bytes: &[u8]) -> Value {
    let array = |n: usize| -> [u8; 8] {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&bytes[..n]);
        a
    };
    match dtype {
        Dtype::Int8 => Value::Int(bytes[0] as i8 as i128),
        Dtype::Int16 => Value::Int(i16::from_ne_bytes([bytes[0], bytes[1]]) as i128),
        Dtype::Int32 => Value::Int(i32::from_ne_bytes(bytes[..4].try_into().unwrap()) as i128),
        Dtype::Int64 => Value::Int(i64::from_ne_bytes(array(8)) as i128),
        Dtype::Uint8 => Value::Int(bytes[0] as i128),
        Dtype::Uint16 => Value::Int(u16::from_ne_bytes([bytes[0], bytes[1]]) as i128),
        Dtype::Uint32 => Value::Int(u32::from_ne_bytes(bytes[..4].try_into().unwrap()) as i128),
        Dtype::Uint64 => Value::Int(u64::from_ne_bytes(array(8)) as i128),
        Dtype::Float32 => Value::Float(f32::from_ne_bytes(bytes[..4].try_into().unwrap()) as f64),
        Dtype::Float64 | Dtype::Complex64 | Dtype::Complex128 => {
            Value::Float(f64::from_ne_bytes(array(8)))
        }
    }
}

/// Whether `value` fits the real dtype `to`.
fn fits(value: Value, to: Dtype) -> bool {
    match (value, int_range(to)) {
        (Value::Int(v), Some((min, max))) => min <= v && v <= max,
        (Value::Float(v), Some((min, max))) => {
            // The fraction goes (toward zero); what is left must be in range.
            v.is_finite() && (min as f64) <= v.trunc() && v.trunc() <= (max as f64)
                // i64::MAX and u64::MAX round up to 2^63 and 2^64 as f64: those are out.
                && (v.trunc() as i128) <= max
        }
        (Value::Int(_), None) => true,
        (Value::Float(v), None) => !v.is_finite() || v.abs() <= f32::MAX as f64 || to.size() == 8,
    }
}

/// Refuse the write of `bytes` (elements of `from`) into a dataset of `to` if any value
/// does not fit. `dataset` names it in the message.
pub fn check_values_fit(from: Dtype, to: Dtype, bytes: &[u8], dataset: &str) -> Result<()> {
    let (from_part, to_part) = (component(from), component(to));
    if always_fits(from_part, to_part) {
        return Ok(());
    }
    let size = from_part.size();
    for (index, chunk) in bytes.chunks_exact(size).enumerate() {
        let value = decode(from_part, chunk);
        if !fits(value, to_part) {
            let shown = match value {
                Value::Int(v) => v.to_string(),
                Value::Float(v) => format!("{v:e}"),
            };
            let element = index * size / from.size();
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "element {element} of buf ({shown}) does not fit the dtype {} of dataset \
                     {dataset:?}; HDF5 would clamp it, so nothing was written",
                    to.name()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers as the bytes of a buffer.
    trait Bytes: Copy {
        fn bytes(self) -> Vec<u8>;
    }

    macro_rules! bytes {
        ($($t:ty),*) => {$(
            impl Bytes for $t {
                fn bytes(self) -> Vec<u8> {
                    self.to_ne_bytes().to_vec()
                }
            }
        )*};
    }
    bytes!(i8, i32, i64, u64, f64);

    fn check<T: Bytes>(from: Dtype, to: Dtype, values: &[T]) -> Result<()> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.bytes()).collect();
        check_values_fit(from, to, &bytes, "x")
    }

    #[test]
    fn values_in_range_convert_and_values_out_of_range_are_refused() {
        assert!(check(Dtype::Float64, Dtype::Int32, &[1.0f64, -2.9, 2147483647.5]).is_ok());
        let e = check(Dtype::Float64, Dtype::Int32, &[1.0f64, 3e10]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::TypeMismatch);
        assert!(
            e.message.contains("element 1 of buf (3e10)"),
            "{}",
            e.message
        );
        assert!(check(Dtype::Float64, Dtype::Int32, &[f64::NAN]).is_err());
        assert!(check(Dtype::Float64, Dtype::Uint8, &[-1.0f64]).is_err());
        assert!(check(Dtype::Float64, Dtype::Int64, &[i64::MAX as f64]).is_err());
        assert!(check(Dtype::Int64, Dtype::Int32, &[-2147483648i64, 2147483647]).is_ok());
        assert!(check(Dtype::Int64, Dtype::Int32, &[2147483648i64]).is_err());
        assert!(check(Dtype::Int32, Dtype::Uint32, &[-1i32]).is_err());
        assert!(check(Dtype::Uint64, Dtype::Int64, &[u64::MAX]).is_err());
        assert!(check(Dtype::Float64, Dtype::Float32, &[1e38f64, f64::INFINITY]).is_ok());
        assert!(check(Dtype::Float64, Dtype::Float32, &[1e39f64]).is_err());
        assert!(check(Dtype::Complex128, Dtype::Complex64, &[1.0f64, 1e39]).is_err());
        // Widening never looks at the values.
        assert!(check(Dtype::Int8, Dtype::Int16, &[i8::MIN]).is_ok());
        assert!(check(Dtype::Uint64, Dtype::Float32, &[u64::MAX]).is_ok());
    }
}
