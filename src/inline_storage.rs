//! A dataset's dims and name, held in place when small (as most are). Every dataset create
//! used to allocate both, and those two blocks, taken before HDF5's own allocations and
//! given back after, cost HDF5's allocations in the same call more than themselves: glibc's
//! per-thread cache of small blocks ran dry more often (callgrind, the metadata loop: 0.8k
//! more instructions inside `H5Dcreate2` a dataset than the same call from C).
//!
//! Outside `core` for one unsafe block: a name held in place is read back as `str` without
//! checking its UTF-8 again (that check cost 440 instructions a dataset: a name is read
//! several times a call).

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Dims held in place up to this many (every array up to 4-D).
const DIMS_IN_PLACE: usize = 4;

/// Names held in place up to this many bytes.
const NAME_IN_PLACE: usize = 22;

/// A dataset's dims (or any one-per-dimension values).
#[derive(Clone)]
pub enum Dims {
    InPlace {
        len: u8,
        values: [u64; DIMS_IN_PLACE],
    },
    Heap(Vec<u64>),
}

impl From<&[u64]> for Dims {
    fn from(values: &[u64]) -> Dims {
        if values.len() > DIMS_IN_PLACE {
            return Dims::Heap(values.to_vec());
        }
        let mut in_place = [0; DIMS_IN_PLACE];
        in_place[..values.len()].copy_from_slice(values);
        Dims::InPlace {
            len: values.len() as u8,
            values: in_place,
        }
    }
}

impl From<Vec<u64>> for Dims {
    fn from(values: Vec<u64>) -> Dims {
        if values.len() > DIMS_IN_PLACE {
            Dims::Heap(values)
        } else {
            Dims::from(&values[..])
        }
    }
}

impl Deref for Dims {
    type Target = [u64];

    fn deref(&self) -> &[u64] {
        match self {
            Dims::InPlace { len, values } => &values[..*len as usize],
            Dims::Heap(values) => values,
        }
    }
}

impl DerefMut for Dims {
    fn deref_mut(&mut self) -> &mut [u64] {
        match self {
            Dims::InPlace { len, values } => &mut values[..*len as usize],
            Dims::Heap(values) => values,
        }
    }
}

// By value: the same dims compare equal whichever way they are held.
impl PartialEq for Dims {
    fn eq(&self, other: &Dims) -> bool {
        **self == **other
    }
}

impl Eq for Dims {}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// A dataset's name (path in its file): shared, not copied, by the dataset and its file's
/// list of open datasets. Made only from a `&str` (the field is private), so the bytes it
/// holds in place are always whole UTF-8 text.
#[derive(Clone)]
pub struct Name(NameRepr);

#[derive(Clone)]
enum NameRepr {
    InPlace { len: u8, bytes: [u8; NAME_IN_PLACE] },
    Shared(Arc<str>),
}

impl From<&str> for Name {
    fn from(name: &str) -> Name {
        if name.len() > NAME_IN_PLACE {
            return Name(NameRepr::Shared(name.into()));
        }
        let mut bytes = [0; NAME_IN_PLACE];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Name(NameRepr::InPlace {
            len: name.len() as u8,
            bytes,
        })
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            NameRepr::InPlace { len, bytes } => {
                let text = &bytes[..*len as usize];
                // SAFETY: `text` is a whole `&str` copied by `From<&str>`, the only constructor.
                unsafe { std::str::from_utf8_unchecked(text) }
            }
            NameRepr::Shared(name) => name,
        }
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_values_read_back_alike() {
        for values in [&[][..], &[1, 2, 3][..], &[1, 2, 3, 4, 5, 6][..]] {
            assert_eq!(&*Dims::from(values), values);
            assert_eq!(&*Dims::from(values.to_vec()), values);
        }
        let mut dims = Dims::from(&[1, 2, 3][..]);
        dims.reverse();
        assert_eq!(&*dims, &[3, 2, 1]);
        let long = "group/subgroup/a_long_dataset_name";
        for name in ["", "d000001", "α/β", long] {
            assert_eq!(&*Name::from(name), name);
        }
        assert!(matches!(Name::from(long).0, NameRepr::Shared(_)));
        assert!(matches!(Name::from("d000001").0, NameRepr::InPlace { .. }));
        // Equal by value, held in place or not.
        assert_eq!(Dims::from(&[1, 2][..]), Dims::Heap(vec![1, 2]));
    }
}
