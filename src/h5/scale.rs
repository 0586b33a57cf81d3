//! HDF5 dimension scales (the high-level library's H5DS functions, which hdf5-sys does not
//! declare): how netCDF-4 names the dimensions of a dataset. A scale is a 1-D dataset; a
//! dataset's dimension "attached" to it takes its name. Every call here changes or reads
//! metadata: collective in a parallel file.

use std::ffi::{c_char, c_int, c_uint};

use hdf5_sys::h5::{herr_t, htri_t};
use hdf5_sys::h5i::hid_t;

use crate::error::Result;
use crate::h5::c_string;
use crate::h5::id::Id;

unsafe extern "C" {
    fn H5DSset_scale(dsid: hid_t, dimname: *const c_char) -> herr_t;
    fn H5DSattach_scale(did: hid_t, dsid: hid_t, idx: c_uint) -> herr_t;
    fn H5DSis_attached(did: hid_t, dsid: hid_t, idx: c_uint) -> htri_t;
    fn H5DSis_scale(did: hid_t) -> htri_t;
    fn H5DSget_num_scales(did: hid_t, idx: c_uint) -> c_int;
    fn H5DSget_scale_name(did: hid_t, name: *mut c_char, size: usize) -> isize;
}

/// Make the 1-D dataset `scale` a dimension scale whose NAME attribute is `name`.
pub fn set_scale(scale: &Id, name: &str) -> Result<()> {
    let c_name = c_string(name)?;
    let s = scale.raw();
    // SAFETY: `s` is an open dataset; the name is NUL-terminated.
    h5call!(unsafe { H5DSset_scale(s, c_name.as_ptr()) }).map(|_| ())
}

/// Attach `scale` to dimension `dim` of `dataset`.
pub fn attach(dataset: &Id, scale: &Id, dim: usize) -> Result<()> {
    let (d, s) = (dataset.raw(), scale.raw());
    // SAFETY: both are open datasets.
    h5call!(unsafe { H5DSattach_scale(d, s, dim as c_uint) }).map(|_| ())
}

/// Whether `scale` is attached to dimension `dim` of `dataset`.
pub fn is_attached(dataset: &Id, scale: &Id, dim: usize) -> Result<bool> {
    let (d, s) = (dataset.raw(), scale.raw());
    // SAFETY: both are open datasets.
    Ok(h5call!(unsafe { H5DSis_attached(d, s, dim as c_uint) })? > 0)
}

/// Whether `dataset` is a dimension scale.
pub fn is_scale(dataset: &Id) -> Result<bool> {
    let d = dataset.raw();
    // SAFETY: `d` is an open dataset.
    Ok(h5call!(unsafe { H5DSis_scale(d) })? > 0)
}

/// How many scales are attached to dimension `dim` of `dataset`.
pub fn count(dataset: &Id, dim: usize) -> Result<usize> {
    let d = dataset.raw();
    // SAFETY: `d` is an open dataset.
    Ok(h5call!(unsafe { H5DSget_num_scales(d, dim as c_uint) })? as usize)
}

/// The NAME attribute of the scale `scale` (empty if it has none).
pub fn name(scale: &Id) -> Result<String> {
    let s = scale.raw();
    // SAFETY: `s` is an open dataset; a NULL buffer asks for the length only.
    let len = h5call!(unsafe { H5DSget_scale_name(s, std::ptr::null_mut(), 0) })?;
    let mut bytes = vec![0u8; len as usize + 1];
    let (p, size) = (bytes.as_mut_ptr().cast::<c_char>(), bytes.len());
    // SAFETY: `p` has room for `size` bytes, the name and its NUL.
    h5call!(unsafe { H5DSget_scale_name(s, p, size) })?;
    bytes.truncate(len as usize);
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
