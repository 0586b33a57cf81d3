//! HDF5 files: create, open, flush (close is `Id::close`).

use std::sync::{Mutex, OnceLock};

use hdf5_sys::h5f::{
    H5F_ACC_EXCL, H5F_ACC_RDONLY, H5F_ACC_RDWR, H5F_ACC_TRUNC, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18,
    H5F_SCOPE_GLOBAL, H5Fclose, H5Fcreate, H5Fflush, H5Fget_access_plist, H5Fget_file_image,
    H5Fget_mdc_size, H5Fget_vfd_handle, H5Fopen, H5Fset_mpi_atomicity,
};
use hdf5_sys::h5p::{H5P_DEFAULT, H5Pclose, H5Pget_libver_bounds};

use mpi_sys::MPI_File;

use crate::error::{Error, ErrorKind, Result};
use crate::h5::id::Id;
use crate::h5::name::c_string;

/// Create `path` (collective). Without `truncate`, an existing file is an error.
pub fn create(path: &str, truncate: bool, fapl: &Id) -> Result<Id> {
    let c_path = c_string(path)?;
    let mode = if truncate {
        H5F_ACC_TRUNC
    } else {
        H5F_ACC_EXCL
    };
    let fapl = fapl.raw();
    // SAFETY: `c_path` is NUL-terminated and `fapl` is a file access list.
    h5call!(unsafe { H5Fcreate(c_path.as_ptr(), mode, H5P_DEFAULT, fapl) }, closed by H5Fclose)
}

/// The bytes of an HDF5 file without objects, as this HDF5 writes one with its default
/// creation and format properties: made once per process, in memory. Written to storage,
/// they are a valid file that HDF5 opens as if it had created it there.
pub fn empty_image() -> Result<&'static [u8]> {
    static IMAGE: OnceLock<Vec<u8>> = OnceLock::new();
    // One thread makes it: a second would find the in-memory file's name taken.
    static MAKING: Mutex<()> = Mutex::new(());
    if let Some(image) = IMAGE.get() {
        return Ok(image);
    }
    let _one_at_a_time = MAKING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(image) = IMAGE.get() {
        return Ok(image);
    }
    let fapl = crate::h5::plist::in_memory_file_access()?;
    let file = create("dah5-empty.h5", true, &fapl)?;
    // The image is what storage holds: the superblock and root group once flushed.
    flush(&file)?;
    let f = file.raw();
    // SAFETY: `f` is an open file; a NULL buffer asks for the image's size only.
    let len = h5call!(unsafe { H5Fget_file_image(f, std::ptr::null_mut(), 0) })?;
    let mut image = vec![0u8; len as usize];
    // SAFETY: `image` has room for the `len` bytes HDF5 copies into it.
    h5call!(unsafe { H5Fget_file_image(f, image.as_mut_ptr().cast(), image.len()) })?;
    file.close()?;
    // A version 3 superblock (format bound 1.10 or later; no HDF5 default) records that
    // a writer has the file open, as the image of an open file would: HDF5 would refuse
    // to open it for writing.
    const SUPERBLOCK_VERSION_AT: usize = 8;
    if image
        .get(SUPERBLOCK_VERSION_AT)
        .is_none_or(|&version| version >= 3)
    {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "this HDF5's new files have a version 3 superblock".to_string(),
        ));
    }
    Ok(IMAGE.get_or_init(|| image))
}

/// Open an existing `path` (collective).
pub fn open(path: &str, writable: bool, fapl: &Id) -> Result<Id> {
    let c_path = c_string(path)?;
    let mode = if writable {
        H5F_ACC_RDWR
    } else {
        H5F_ACC_RDONLY
    };
    let fapl = fapl.raw();
    // SAFETY: `c_path` is NUL-terminated and `fapl` is a file access list.
    h5call!(unsafe { H5Fopen(c_path.as_ptr(), mode, fapl) }, closed by H5Fclose)
}

/// Write everything HDF5 holds for the file to storage (collective).
pub fn flush(file: &Id) -> Result<()> {
    let raw = file.raw();
    // SAFETY: `raw` is an open file.
    h5call!(unsafe { H5Fflush(raw, H5F_SCOPE_GLOBAL) })?;
    Ok(())
}

/// Bytes in the file's metadata cache: an upper bound of the metadata not yet written.
pub fn metadata_cache_bytes(file: &Id) -> Result<u64> {
    let raw = file.raw();
    let (mut max, mut min_clean, mut current, mut entries) = (0usize, 0usize, 0usize, 0i32);
    // SAFETY: `raw` is an open file; the out-pointers are live locals.
    h5call!(unsafe { H5Fget_mdc_size(raw, &mut max, &mut min_clean, &mut current, &mut entries) })?;
    Ok(current as u64)
}

/// MPI atomic mode on or off (collective).
pub fn set_atomicity(file: &Id, atomic: bool) -> Result<()> {
    let raw = file.raw();
    // SAFETY: `raw` is an open file of the MPI-IO driver.
    h5call!(unsafe { H5Fset_mpi_atomicity(raw, atomic as _) })?;
    Ok(())
}

/// The MPI-IO file under a file of the MPI-IO driver (HDF5's: valid while the file is open).
pub fn mpi_file(file: &Id) -> Result<MPI_File> {
    let raw = file.raw();
    let mut handle: *mut std::ffi::c_void = std::ptr::null_mut();
    // SAFETY: `raw` is an open file; HDF5 stores a pointer to its driver's handle in `handle`.
    h5call!(unsafe { H5Fget_vfd_handle(raw, H5P_DEFAULT, &mut handle) })?;
    // SAFETY: the MPI-IO driver's handle is its MPI_File, set for as long as the file is open.
    Ok(unsafe { *handle.cast::<MPI_File>() })
}

/// Whether the file's format keeps an attribute too large for its object's header apart
/// (dense attribute storage, in the object headers of the 1.8 format): the file's low
/// format bound is 1.8 or later, as HDF5 2.x's default is (1.10's and 1.14's is the
/// earliest format, whose object headers hold messages of at most 64 KiB).
pub fn keeps_large_attributes(file: &Id) -> Result<bool> {
    let raw = file.raw();
    // SAFETY: `raw` is an open file; the copy of its access list is ours to close.
    let fapl = h5call!(unsafe { H5Fget_access_plist(raw) }, closed by H5Pclose)?;
    let p = fapl.raw();
    // Read as plain integers: a bound this hdf5-sys does not list is still a bound.
    let (mut low, mut high) = (H5F_LIBVER_EARLIEST as i32, H5F_LIBVER_EARLIEST as i32);
    let (l, h) = ((&raw mut low).cast(), (&raw mut high).cast());
    // SAFETY: `p` is a file access list; H5F_libver_t is a C enum, stored as an int.
    h5call!(unsafe { H5Pget_libver_bounds(p, l, h) })?;
    Ok(low >= H5F_LIBVER_V18 as i32)
}
