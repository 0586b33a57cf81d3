//! Element types a dataset can hold. Complex numbers are the `{r, i}` compound of two floats
//! that h5py and HDF5.jl read and write.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Float32,
    Float64,
    Complex64,
    Complex128,
}

/// What kind of number a dtype is, as HDF5 classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    SignedInt,
    UnsignedInt,
    Float,
    Complex,
}

impl Dtype {
    pub const ALL: [Dtype; 12] = [
        Dtype::Int8,
        Dtype::Int16,
        Dtype::Int32,
        Dtype::Int64,
        Dtype::Uint8,
        Dtype::Uint16,
        Dtype::Uint32,
        Dtype::Uint64,
        Dtype::Float32,
        Dtype::Float64,
        Dtype::Complex64,
        Dtype::Complex128,
    ];

    /// Bytes of one element in memory (and in the file).
    pub fn size(self) -> usize {
        match self {
            Dtype::Int8 | Dtype::Uint8 => 1,
            Dtype::Int16 | Dtype::Uint16 => 2,
            Dtype::Int32 | Dtype::Uint32 | Dtype::Float32 => 4,
            Dtype::Int64 | Dtype::Uint64 | Dtype::Float64 | Dtype::Complex64 => 8,
            Dtype::Complex128 => 16,
        }
    }

    pub fn class(self) -> Class {
        match self {
            Dtype::Int8 | Dtype::Int16 | Dtype::Int32 | Dtype::Int64 => Class::SignedInt,
            Dtype::Uint8 | Dtype::Uint16 | Dtype::Uint32 | Dtype::Uint64 => Class::UnsignedInt,
            Dtype::Float32 | Dtype::Float64 => Class::Float,
            Dtype::Complex64 | Dtype::Complex128 => Class::Complex,
        }
    }

    /// The dtype of a given class and element size, if there is one.
    pub fn from_class_and_size(class: Class, size: usize) -> Option<Dtype> {
        Dtype::ALL
            .into_iter()
            .find(|d| d.class() == class && d.size() == size)
    }

    /// The name users see in messages: the C constant's name.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Int8 => "DAH5_INT8",
            Dtype::Int16 => "DAH5_INT16",
            Dtype::Int32 => "DAH5_INT32",
            Dtype::Int64 => "DAH5_INT64",
            Dtype::Uint8 => "DAH5_UINT8",
            Dtype::Uint16 => "DAH5_UINT16",
            Dtype::Uint32 => "DAH5_UINT32",
            Dtype::Uint64 => "DAH5_UINT64",
            Dtype::Float32 => "DAH5_FLOAT32",
            Dtype::Float64 => "DAH5_FLOAT64",
            Dtype::Complex64 => "DAH5_COMPLEX64",
            Dtype::Complex128 => "DAH5_COMPLEX128",
        }
    }
}

/// One element, widened so that every dtype's values are exact (floats stay floats).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:e}"),
        }
    }
}

impl Dtype {
    /// The range of an integer dtype as `(min, max)`, exactly; `None` for the others.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = 8 * self.size() as u32;
        match self.class() {
            Class::SignedInt => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
            Class::UnsignedInt => Some((0, (1i128 << bits) - 1)),
            Class::Float | Class::Complex => None,
        }
    }

    /// The real type of each component: a complex is two floats.
    pub fn component(self) -> Dtype {
        match self {
            Dtype::Complex64 => Dtype::Float32,
            Dtype::Complex128 => Dtype::Float64,
            other => other,
        }
    }

    /// The element of this real dtype in `bytes` (native order; a complex dtype decodes
    /// its first component).
    pub fn decode(self, bytes: &[u8]) -> Value {
        let mut wide = [0u8; 8];
        let n = self.component().size();
        wide[..n].copy_from_slice(&bytes[..n]);
        let four = || wide[..4].try_into().unwrap();
        match self {
            Dtype::Int8 => Value::Int(wide[0] as i8 as i128),
            Dtype::Int16 => Value::Int(i16::from_ne_bytes([wide[0], wide[1]]) as i128),
            Dtype::Int32 => Value::Int(i32::from_ne_bytes(four()) as i128),
            Dtype::Int64 => Value::Int(i64::from_ne_bytes(wide) as i128),
            Dtype::Uint8 => Value::Int(wide[0] as i128),
            Dtype::Uint16 => Value::Int(u16::from_ne_bytes([wide[0], wide[1]]) as i128),
            Dtype::Uint32 => Value::Int(u32::from_ne_bytes(four()) as i128),
            Dtype::Uint64 => Value::Int(u64::from_ne_bytes(wide) as i128),
            Dtype::Float32 | Dtype::Complex64 => Value::Float(f32::from_ne_bytes(four()) as f64),
            Dtype::Float64 | Dtype::Complex128 => Value::Float(f64::from_ne_bytes(wide)),
        }
    }

    /// Whether this real dtype holds `value` as a C cast converts it: a float's fraction is
    /// dropped on the way to an integer, and what is left must be in range (NaN and the
    /// infinities are not); an integer may lose precision on the way to a float; a float
    /// into a narrower float must be within its range (NaN and the infinities are).
    pub fn holds(self, value: Value) -> bool {
        match (value, self.int_range()) {
            (Value::Int(v), Some((min, max))) => min <= v && v <= max,
            (Value::Float(v), Some((min, max))) => {
                v.is_finite() && (min as f64) <= v.trunc() && v.trunc() <= (max as f64)
                    // i64::MAX and u64::MAX round up to 2^63 and 2^64 as f64: those are out.
                    && (v.trunc() as i128) <= max
            }
            (Value::Int(_), None) => true,
            (Value::Float(v), None) => {
                !v.is_finite() || v.abs() <= f32::MAX as f64 || self.size() == 8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_and_size_identify_each_dtype() {
        for d in Dtype::ALL {
            assert_eq!(Dtype::from_class_and_size(d.class(), d.size()), Some(d));
        }
        assert_eq!(Dtype::from_class_and_size(Class::Float, 2), None);
    }

    #[test]
    fn values_are_held_as_a_c_cast_converts_them() {
        let f = Value::Float;
        for (dtype, value) in [
            (Dtype::Uint8, f(-0.5)),
            (Dtype::Int32, f(2147483647.5)),
            (Dtype::Int32, f(-2147483648.9)),
            (Dtype::Float32, f(f64::INFINITY)),
            (Dtype::Float32, f(f64::NAN)),
            (Dtype::Float32, Value::Int(u64::MAX as i128)),
            (Dtype::Int8, Value::Int(-128)),
        ] {
            assert!(dtype.holds(value), "{dtype:?} holds {value}");
        }
        for (dtype, value) in [
            (Dtype::Int32, f(f64::NAN)),
            (Dtype::Int32, f(-f64::NAN)),
            (Dtype::Uint8, f(f64::NAN)),
            (Dtype::Int64, f(f64::NAN)),
            (Dtype::Int64, f(f64::NEG_INFINITY)),
            (Dtype::Int32, f(2147483648.0)),
            (Dtype::Uint8, f(-1.0)),
            (Dtype::Int64, f(i64::MAX as f64)),
            (Dtype::Float32, f(1e39)),
            (Dtype::Uint64, Value::Int(-1)),
        ] {
            assert!(!dtype.holds(value), "{dtype:?} does not hold {value}");
        }
        assert_eq!(f(f64::NAN).to_string(), "NaN");
        assert_eq!(f(3e9).to_string(), "3e9");
        assert_eq!(Dtype::Float32.decode(&1.5f32.to_ne_bytes()), f(1.5));
        assert_eq!(Dtype::Int16.decode(&(-7i16).to_ne_bytes()), Value::Int(-7));
    }
}
