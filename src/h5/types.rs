//! dah5 dtypes as HDF5 datatypes, and back.

use std::ffi::CStr;

use hdf5_sys::h5::H5free_memory;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5t::{
    H5T_C_S1, H5T_COMPOUND, H5T_CSET_UTF8, H5T_FLOAT, H5T_INTEGER, H5T_NATIVE_DOUBLE,
    H5T_NATIVE_FLOAT, H5T_NATIVE_INT8, H5T_NATIVE_INT16, H5T_NATIVE_INT32, H5T_NATIVE_INT64,
    H5T_NATIVE_UINT8, H5T_NATIVE_UINT16, H5T_NATIVE_UINT32, H5T_NATIVE_UINT64, H5T_SGN_NONE,
    H5T_STRING, H5T_VARIABLE, H5Tclose, H5Tcopy, H5Tcreate, H5Tequal, H5Tget_class,
    H5Tget_member_name, H5Tget_member_offset, H5Tget_member_type, H5Tget_native_type,
    H5Tget_nmembers, H5Tget_sign, H5Tget_size, H5Tinsert, H5Tis_variable_str, H5Tset_cset,
    H5Tset_size,
};

use crate::dtype::{Class, Dtype};
use crate::error::{Error, ErrorKind, Result};
use crate::h5::id::Id;

/// The native (memory) HDF5 type of a dtype. Datasets are created with it too, so the file
/// holds the standard little-endian type of this machine.
pub fn native(dtype: Dtype) -> Result<Id> {
    let scalar = match dtype {
        Dtype::Int8 => &H5T_NATIVE_INT8,
        Dtype::Int16 => &H5T_NATIVE_INT16,
        Dtype::Int32 => &H5T_NATIVE_INT32,
        Dtype::Int64 => &H5T_NATIVE_INT64,
        Dtype::Uint8 => &H5T_NATIVE_UINT8,
        Dtype::Uint16 => &H5T_NATIVE_UINT16,
        Dtype::Uint32 => &H5T_NATIVE_UINT32,
        Dtype::Uint64 => &H5T_NATIVE_UINT64,
        Dtype::Float32 | Dtype::Complex64 => &H5T_NATIVE_FLOAT,
        Dtype::Float64 | Dtype::Complex128 => &H5T_NATIVE_DOUBLE,
    };
    let part = Id::borrowed(crate::h5::library::predefined(scalar));
    if dtype.class() != Class::Complex {
        return Ok(part);
    }
    complex(dtype, part)
}

/// The {r, i} compound of h5py and HDF5.jl, of two `part`s.
fn complex(dtype: Dtype, part: Id) -> Result<Id> {
    let half = dtype.size() / 2;
    // SAFETY: creating an empty compound of the full element size.
    let compound = h5call!(unsafe { H5Tcreate(H5T_COMPOUND, dtype.size()) }, closed by H5Tclose)?;
    for (name, offset) in [(c"r", 0), (c"i", half)] {
        let (c, p) = (compound.raw(), part.raw());
        // SAFETY: both ids are types; the member fits inside the compound's size.
        h5call!(unsafe { H5Tinsert(c, name.as_ptr(), offset, p) })?;
    }
    Ok(compound)
}

/// A variable-length UTF-8 string type: how h5py and HDF5.jl store a `str` attribute.
pub fn utf8_string() -> Result<Id> {
    let c_string = crate::h5::library::predefined(H5T_C_S1);
    // SAFETY: H5T_C_S1 is a predefined type, read after H5open.
    let t = h5call!(unsafe { H5Tcopy(c_string) }, closed by H5Tclose)?;
    let raw = t.raw();
    // SAFETY: `raw` is a string type of ours.
    h5call!(unsafe { H5Tset_size(raw, H5T_VARIABLE) })?;
    // SAFETY: as above.
    h5call!(unsafe { H5Tset_cset(raw, H5T_CSET_UTF8) })?;
    Ok(t)
}

/// How a type holds text: `None` if it is not a string, else `Some(None)` for a
/// variable-length string and `Some(Some(n))` for a fixed one of `n` bytes.
pub fn string_kind(type_id: hid_t) -> Result<Option<Option<usize>>> {
    if type_class(type_id)? != H5T_STRING {
        return Ok(None);
    }
    // SAFETY: `type_id` is an open string type.
    let variable = h5call!(unsafe { H5Tis_variable_str(type_id) })?;
    Ok(Some(if variable > 0 {
        None
    } else {
        Some(type_size(type_id)?)
    }))
}

/// The memory type of a stored type of any class (what a copy reads and writes through),
/// and its size in bytes.
pub fn native_of(file_type: &Id) -> Result<(Id, usize)> {
    let t = file_type.raw();
    // SAFETY: `t` is an open datatype; the new type is ours to close.
    let native = h5call!(unsafe { H5Tget_native_type(t, hdf5_sys::h5t::H5T_direction_t::H5T_DIR_ASCEND) }, closed by H5Tclose)?;
    let size = type_size(native.raw())?;
    Ok((native, size))
}

/// Whether two datatypes are the same (class, size, byte order, members).
pub fn equal(a: &Id, b: &Id) -> Result<bool> {
    let (a, b) = (a.raw(), b.raw());
    // SAFETY: both are open datatypes.
    Ok(h5call!(unsafe { H5Tequal(a, b) })? > 0)
}

/// The dtype of an HDF5 datatype, if dah5 supports it.
pub fn dtype_of(type_id: hid_t) -> Result<Dtype> {
    let class = type_class(type_id)?;
    let size = type_size(type_id)?;
    let dtype = if class == H5T_INTEGER {
        let class = if integer_sign(type_id)? == H5T_SGN_NONE {
            Class::UnsignedInt
        } else {
            Class::SignedInt
        };
        Dtype::from_class_and_size(class, size)
    } else if class == H5T_FLOAT {
        Dtype::from_class_and_size(Class::Float, size)
    } else if class == H5T_COMPOUND && is_complex(type_id, size)? {
        Dtype::from_class_and_size(Class::Complex, size)
    } else {
        None
    };
    dtype.ok_or_else(|| {
        Error::new(
            ErrorKind::TypeMismatch,
            format!(
                "the dataset's HDF5 type (class {class:?}, {size} bytes) is not one dah5 supports"
            ),
        )
    })
}

fn type_class(type_id: hid_t) -> Result<hdf5_sys::h5t::H5T_class_t> {
    // SAFETY: `type_id` is an open datatype.
    h5call!(unsafe { H5Tget_class(type_id) }, fails if |c| c == hdf5_sys::h5t::H5T_NO_CLASS)
}

fn type_size(type_id: hid_t) -> Result<usize> {
    // SAFETY: `type_id` is an open datatype.
    h5call!(unsafe { H5Tget_size(type_id) }, fails if |size| size == 0)
}

fn integer_sign(type_id: hid_t) -> Result<hdf5_sys::h5t::H5T_sign_t> {
    // SAFETY: `type_id` is an open integer datatype.
    h5call!(unsafe { H5Tget_sign(type_id) }, fails if |s| s == hdf5_sys::h5t::H5T_SGN_ERROR)
}

/// A compound is complex when it is exactly `{r, i}` of two equal floats, `r` first.
fn is_complex(type_id: hid_t, size: usize) -> Result<bool> {
    // SAFETY: `type_id` is an open compound datatype.
    let n = h5call!(unsafe { H5Tget_nmembers(type_id) })?;
    if n != 2 || !size.is_multiple_of(2) {
        return Ok(false);
    }
    for (index, expected, offset) in [(0u32, "r", 0usize), (1, "i", size / 2)] {
        let name = member_name(type_id, index)?;
        // SAFETY: `index` < the member count, checked above. (0 is also its failure value,
        // which the offset check below refuses for the "i" member.)
        let at = h5call!(unsafe { H5Tget_member_offset(type_id, index) }, fails if |_| false)?;
        // SAFETY: as above; the returned type is owned by us.
        let member = h5call!(unsafe { H5Tget_member_type(type_id, index) }, closed by H5Tclose)?;
        let member_ok =
            type_class(member.raw())? == H5T_FLOAT && type_size(member.raw())? == size / 2;
        if name != expected || at != offset || !member_ok {
            return Ok(false);
        }
    }
    Ok(true)
}

fn member_name(type_id: hid_t, index: u32) -> Result<String> {
    // SAFETY: `index` < the member count.
    let p = h5call!(unsafe { H5Tget_member_name(type_id, index) }, fails if |p: *mut std::ffi::c_char| p.is_null())?;
    // SAFETY: HDF5 returned a NUL-terminated string it malloc'd for us.
    let name = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    // SAFETY: `p` came from HDF5's allocator and is not used again.
    h5call!(unsafe { H5free_memory(p.cast()) })?;
    Ok(name)
}
