//! HDF5 dimension scales (the high-level library's H5DS functions, which hdf5-sys does not
//! declare): how netCDF-4 names the dimensions of a dataset. A scale is a 1-D dataset; a
//! dataset's dimension "attached" to it takes its name. Every call here changes or reads
//! metadata: collective in a parallel file.

use std::ffi::{c_char, c_int, c_uint, c_void};

use hdf5_sys::h5::{herr_t, htri_t};
use hdf5_sys::h5i::{H5Iget_name, hid_t};

use crate::error::Result;
use crate::h5::id::Id;
use crate::h5::name::c_string;

unsafe extern "C" {
    fn H5DSset_scale(dsid: hid_t, dimname: *const c_char) -> herr_t;
    fn H5DSattach_scale(did: hid_t, dsid: hid_t, idx: c_uint) -> herr_t;
    fn H5DSis_scale(did: hid_t) -> htri_t;
    fn H5DSget_num_scales(did: hid_t, idx: c_uint) -> c_int;
    fn H5DSiterate_scales(
        did: hid_t,
        dim: c_uint,
        idx: *mut c_int,
        visitor: extern "C" fn(hid_t, c_uint, hid_t, *mut c_void) -> herr_t,
        visitor_data: *mut c_void,
    ) -> herr_t;
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

/// The paths of the scales attached to dimension `dim` of `dataset`.
pub fn attached(dataset: &Id, dim: usize) -> Result<Vec<String>> {
    let mut paths: Vec<String> = Vec::new();
    let d = dataset.raw();
    let out: *mut Vec<String> = &mut paths;
    // SAFETY: `d` is an open dataset; `collect_path` gets `out`, a live Vec<String>.
    h5call!(unsafe {
        H5DSiterate_scales(
            d,
            dim as c_uint,
            std::ptr::null_mut(),
            collect_path,
            out.cast(),
        )
    })?;
    Ok(paths)
}

/// H5DSiterate_scales' visitor: push the scale's path onto the Vec<String> in `paths`.
extern "C" fn collect_path(
    _dataset: hid_t,
    _dim: c_uint,
    scale: hid_t,
    paths: *mut c_void,
) -> herr_t {
    let mut name = [0u8; 1024];
    // SAFETY: `scale` is the open scale HDF5 passes; `name` has room for 1024 bytes.
    let len = unsafe { H5Iget_name(scale, name.as_mut_ptr().cast(), name.len()) };
    if len < 0 {
        return -1;
    }
    // SAFETY: `paths` is the Vec<String> `attached` passed.
    let paths = unsafe { &mut *paths.cast::<Vec<String>>() };
    let len = (len as usize).min(name.len() - 1);
    paths.push(String::from_utf8_lossy(&name[..len]).into_owned());
    0
}
