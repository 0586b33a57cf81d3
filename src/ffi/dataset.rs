//! Dataset functions of the C ABI.

use std::ffi::c_char;

use crate::core::closing::Later;
use crate::core::collective::{self, Collective, Section};
use crate::core::dataset::{CloseDataset, CreateDataset, Dataset, DatasetRequest, OpenDataset};
use crate::core::dimension_names::SetDimNames;
use crate::core::extend::Extend;
use crate::core::file::File;
use crate::core::shape::check_ndims;
use crate::error::{Error, Result};
use crate::ffi::consts::{dtype_code, dtype_from_code};
use crate::ffi::handles::{Held, Registry, token};
use crate::ffi::options::{dah5_dataset_options, dataset_options};
use crate::ffi::{self, dah5_dataset, dah5_file, from_c};

/// Create a dataset: contiguous, allocated now, not filled (unless `DAH5_FILL_ZEROS`).
///
/// **Collective** over the file's communicator: every rank passes the same name, dtype,
/// dims and options. If any rank's arguments are invalid, or ranks disagree, every rank
/// returns the same error and nothing is created.
///
/// @param file         an open, writable file.
/// @param name         NUL-terminated path inside the file; intermediate groups are
///                     created (`"results/step1/u"`).
/// @param dtype        `DAH5_INT8` .. `DAH5_COMPLEX128`.
/// @param ndims        1 .. `DAH5_MAX_NDIMS`.
/// @param dims         `ndims` extents, in the file handle's order (`DAH5_ORDER_F`).
/// @param options      NULL for the defaults, or from `dah5_dataset_options_default`.
/// @param dataset_out  receives the handle on success; untouched on failure.
///
/// # Safety
/// Pointers are NULL or valid for the sizes above.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_create(
    file: *mut dah5_file,
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    dims: *const u64,
    options: *const dah5_dataset_options,
    dataset_out: *mut *mut dah5_dataset,
) -> i32 {
    let request = |file: &File| {
        from_c::out(dataset_out, "dataset_out")?;
        // SAFETY: by this function's contract.
        let request = unsafe { dataset_request(name, dtype, ndims, dims, options) }?;
        CreateDataset::checked(file, request)
    };
    // SAFETY: `dataset_out` was checked non-NULL (on every rank, by agreement).
    ffi::collective(file, request, |r, d| unsafe {
        hand_out(r, file, d, dataset_out)
    })
}

/// The dataset a rank describes to `dah5_dataset_create` or `dah5_darray_write`.
///
/// # Safety
/// `name` is NULL or NUL-terminated; `dims` is NULL or has `ndims` entries; `options` is
/// NULL or readable.
pub(crate) unsafe fn dataset_request(
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    dims: *const u64,
    options: *const dah5_dataset_options,
) -> Result<DatasetRequest> {
    // SAFETY: by this function's contract.
    let name = unsafe { from_c::string(name, "name") }?;
    let dtype = dtype_from_code(dtype, "dtype")?;
    check_ndims(ndims as usize)?;
    // SAFETY: `dims` has `ndims` entries by this function's contract.
    let dims = unsafe { from_c::u64s(dims, ndims as usize, "dims") }?;
    // SAFETY: by this function's contract.
    let options = unsafe { dataset_options(options) }?;
    Ok(DatasetRequest {
        name: name.into(),
        dtype,
        dims,
        options,
    })
}

/// Register a new dataset of `file` and write its handle to `dataset_out`.
///
/// # Safety
/// `dataset_out` is non-NULL and writable.
pub(crate) unsafe fn hand_out(
    registry: &mut Registry,
    file: *const dah5_file,
    dataset: Dataset,
    dataset_out: *mut *mut dah5_dataset,
) -> Result<()> {
    let handle = registry.insert_dataset(token(file)?, dataset);
    // SAFETY: by this function's contract.
    unsafe { *dataset_out = handle };
    Ok(())
}

/// Open an existing dataset of a supported dtype with 1 to 32 dimensions.
///
/// **Collective** over the file's communicator, with the same name on every rank.
///
/// @return `DAH5_OK`, `DAH5_ERR_NOT_FOUND`, `DAH5_ERR_TYPE_MISMATCH` (unsupported type),
///         `DAH5_ERR_FILE_CHANGED` (a read-only file changed since it was opened), ...
///
/// # Safety
/// `name` is NULL or NUL-terminated; `dataset_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_open(
    file: *mut dah5_file,
    name: *const c_char,
    dataset_out: *mut *mut dah5_dataset,
) -> i32 {
    let request = |_: &File| {
        from_c::out(dataset_out, "dataset_out")?;
        // SAFETY: by this function's contract.
        let name = unsafe { from_c::string(name, "name") }?;
        Ok(OpenDataset(name.to_string()))
    };
    // SAFETY: `dataset_out` was checked non-NULL (on every rank, by agreement).
    ffi::collective(file, request, |r, d| unsafe {
        hand_out(r, file, d, dataset_out)
    })
}

/// Close a dataset and set `*dataset = NULL`. NULL or `*dataset == NULL` is a no-op.
///
/// **Collective** over the file's communicator: every rank closes the same datasets in the
/// same order. With the checks on and the ranks on one node, the close does not wait for
/// the other ranks: a rank that makes another call at that point gets
/// `DAH5_ERR_COLLECTIVE_MISMATCH` at once, and this rank gets it from its next collective
/// call on the file, which then fails on every rank and does nothing; the dataset then
/// stays open in HDF5 until `dah5_file_close`. A close that finds every other rank already
/// at another call fails at once, and `*dataset` is left as it was. The close of a
/// subfiled darray being written, any close across nodes, or with the checks off, waits
/// for the other ranks (if they disagree nothing is closed and `*dataset` is left as it
/// was).
///
/// # Safety
/// `dataset` is NULL or points to a writable `dah5_dataset *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_close(dataset: *mut *mut dah5_dataset) -> i32 {
    // SAFETY: by this function's contract.
    unsafe { ffi::close_out(dataset) }
}

/// A dataset's close: agreed in its own call (keeping HDF5's collective section to the
/// end) when it has collective work, else posted for the next call (`core::closing`).
impl ffi::Closable for dah5_dataset {
    const NAME: &'static str = CloseDataset::NAME;
    type Agreed = (Option<Section>, Option<Later>);

    fn agree(dataset: &mut Dataset) -> Result<Self::Agreed> {
        Ok(match dataset.closes_alone() {
            true => (
                Some(collective::run_in_section(dataset, Ok(CloseDataset))?.1),
                None,
            ),
            false => (None, dataset.agree_on_close()?),
        })
    }

    fn take_out(registry: &mut Registry, token: u64) -> Result<()> {
        registry.remove_dataset(token).map(drop)
    }

    fn close(dataset: Dataset, _: Option<Vec<Held<Dataset>>>, agreed: Self::Agreed) -> Result<()> {
        match agreed {
            (Some(_section), _) => dataset.close(),
            (None, later) => {
                dataset.close_held(later);
                Ok(())
            }
        }
    }
}

/// The dataset's element type (`DAH5_INT8` .. `DAH5_COMPLEX128`).
///
/// Local.
///
/// # Safety
/// `dtype_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_dtype(
    dataset: *const dah5_dataset,
    dtype_out: *mut i32,
) -> i32 {
    ffi::dataset_facts("dah5_dataset_dtype", dataset, |facts| {
        from_c::out(dtype_out, "dtype_out")?;
        let code = dtype_code(facts.dtype);
        // SAFETY: checked non-NULL.
        unsafe { *dtype_out = code };
        Ok(())
    })
}

/// The dataset's number of dimensions.
///
/// Local.
///
/// # Safety
/// `ndims_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_ndims(
    dataset: *const dah5_dataset,
    ndims_out: *mut u32,
) -> i32 {
    ffi::dataset_facts("dah5_dataset_ndims", dataset, |facts| {
        from_c::out(ndims_out, "ndims_out")?;
        let ndims = facts.dims.len() as u32;
        // SAFETY: checked non-NULL.
        unsafe { *ndims_out = ndims };
        Ok(())
    })
}

/// The dataset's extents, in the file handle's order.
///
/// Local.
///
/// @param capacity  entries `dims_out` has room for; at least the dataset's ndims, else
///                  `DAH5_ERR_INVALID_ARGUMENT` (`DAH5_MAX_NDIMS` always suffices).
///
/// # Safety
/// `dims_out` is NULL or has room for `capacity` u64s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_dims(
    dataset: *const dah5_dataset,
    capacity: u32,
    dims_out: *mut u64,
) -> i32 {
    ffi::dataset_facts("dah5_dataset_dims", dataset, |facts| {
        from_c::out(dims_out, "dims_out")?;
        let dims = &facts.dims;
        if dims.len() > capacity as usize {
            return Err(Error::invalid(format!(
                "capacity = {capacity} is less than the dataset's ndims = {}",
                dims.len()
            )));
        }
        // SAFETY: `dims_out` has room for `capacity` >= dims.len() entries.
        unsafe { std::ptr::copy_nonoverlapping(dims.as_ptr(), dims_out, dims.len()) };
        Ok(())
    })
}

/// Name the dataset's dimensions the way netCDF-4 does (HDF5 dimension scales), so that
/// ncdump, netCDF4-python and xarray show `temp(time, lat, lon)` instead of phony names.
/// Dimension i is attached to the 1-D dataset `names[i]` in the dataset's group: an
/// existing one of that length becomes the dimension's coordinate variable (create and
/// write it first), else dah5 makes one with no data, which netCDF readers show as a
/// dimension only. Datasets that name the same dimension share it. Names are given once.
///
/// **Collective** over the file's communicator, with the same names on every rank (a
/// difference is `DAH5_ERR_COLLECTIVE_MISMATCH` on every rank).
///
/// @param dataset  an open dataset of a writable file.
/// @param ndims    the dataset's number of dims.
/// @param names    `ndims` NUL-terminated names, in the file handle's order (like dims):
///                 non-empty, without '/'.
/// @return `DAH5_OK`; `DAH5_ERR_INVALID_ARGUMENT` (on every rank, nothing changed) when a
///         name is malformed, when `ndims` is not the dataset's, when a dimension already
///         has a name, or when `names[i]` exists in the group but is not a 1-D dataset of
///         dimension i's length (or two dims of different lengths share a name).
///
/// # Safety
/// `names` is NULL or has `ndims` entries, each NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_set_dim_names(
    dataset: *mut dah5_dataset,
    ndims: u32,
    names: *const *const c_char,
) -> i32 {
    let request = |_: &Dataset| {
        check_ndims(ndims as usize)?;
        // SAFETY: `names` has `ndims` entries by the contract.
        unsafe { from_c::strings(names, ndims as usize, "names") }.map(SetDimNames::new)
    };
    ffi::collective(dataset, request, |_, ()| Ok(()))
}

/// Change the dataset's dims to `new_dims` (in the handle's order), up to the max dims it
/// was created with (`dah5_dataset_options.max_dims`): how a time series grows by one step
/// before each rank writes its block of the new slab. Elements added and not yet written
/// read as zeros.
///
/// **Collective** over the file's communicator, with the same `new_dims` on every rank.
///
/// @return `DAH5_OK`; `DAH5_ERR_OUT_OF_BOUNDS` beyond the max dims (on every rank, if any
///         rank's `new_dims` are); `DAH5_ERR_INVALID_ARGUMENT` when `ndims` differs from
///         the dataset's, or when a dim is less than the current one (the function only
///         grows a dataset: it never discards data).
///
/// # Safety
/// `new_dims` is NULL or has `ndims` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_extend(
    dataset: *mut dah5_dataset,
    ndims: u32,
    new_dims: *const u64,
) -> i32 {
    let request = |_: &Dataset| {
        check_ndims(ndims as usize)?;
        // SAFETY: `new_dims` has `ndims` entries by the contract.
        unsafe { from_c::u64s(new_dims, ndims as usize, "new_dims") }.map(Extend)
    };
    // The new dims are what dah5_dataset_dims answers from now.
    ffi::collective(dataset, request, |registry, dims| {
        registry.set_dims(dataset, dims)
    })
}
