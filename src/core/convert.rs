//! Values that do not fit: HDF5's conversions clamp an out-of-range value to the nearest
//! one the destination type holds (1e10 into an int32 becomes 2147483647) and say nothing.
//! dah5 converts only when asked (`DAH5_CONVERT`), and even then refuses a value that does
//! not fit: writes are checked here, before anything is written; reads by HDF5's
//! conversion callback (`h5::plist::refuse_out_of_range`).
//!
//! Allowed, as in a C cast: a float's fraction is dropped on the way to an integer, and an
//! integer may lose precision on the way to a float. Infinities and NaN pass between floats,
//! and never into an integer. Reads and writes follow the one rule, `Dtype::holds`.

use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};

/// Whether every value of `from` fits `to`, so that no element needs looking at.
fn always_fits(from: Dtype, to: Dtype) -> bool {
    match (from.int_range(), to.int_range()) {
        (Some((lo, hi)), Some((min, max))) => min <= lo && hi <= max,
        // Integers into floats: precision may go, the magnitude always fits.
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => from.size() <= to.size(),
    }
}

/// Refuse the write of `bytes` (elements of `from`) into a dataset of `to` if any value
/// does not fit. `dataset` names it in the message.
pub fn check_values_fit(from: Dtype, to: Dtype, bytes: &[u8], dataset: &str) -> Result<()> {
    let (from_part, to_part) = (from.component(), to.component());
    if always_fits(from_part, to_part) {
        return Ok(());
    }
    let size = from_part.size();
    for (index, chunk) in bytes.chunks_exact(size).enumerate() {
        let value = from_part.decode(chunk);
        if !to_part.holds(value) {
            let element = index * size / from.size();
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "element {element} of buf ({value}) does not fit the dtype {} of dataset \
                     {dataset:?}; HDF5 would put another value in its place, so nothing was written",
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
