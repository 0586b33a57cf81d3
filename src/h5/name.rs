//! Names and paths as HDF5 takes them: NUL-terminated C strings.

use std::ffi::CString;

use crate::error::{Error, Result};

/// A name or path as HDF5 takes it: NUL-terminated, on the stack when it is short (most
/// are: this saves an allocation per HDF5 call that takes a name).
pub(crate) enum CName {
    Short([u8; SHORT_NAME]),
    Long(CString),
}

const SHORT_NAME: usize = 64;

impl CName {
    pub(crate) fn as_ptr(&self) -> *const std::ffi::c_char {
        match self {
            CName::Short(bytes) => bytes.as_ptr().cast(),
            CName::Long(name) => name.as_ptr(),
        }
    }
}

pub(crate) fn c_string(name: &str) -> Result<CName> {
    if name.as_bytes().contains(&0) {
        return Err(Error::invalid(format!("name {name:?} contains a NUL byte")));
    }
    if name.len() < SHORT_NAME {
        let mut bytes = [0u8; SHORT_NAME];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        return Ok(CName::Short(bytes));
    }
    CString::new(name)
        .map(CName::Long)
        .map_err(|_| Error::invalid(format!("name {name:?} contains a NUL byte")))
}
