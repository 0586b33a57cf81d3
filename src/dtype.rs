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
}
