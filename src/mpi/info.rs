//! MPI_Info objects for the MPI-IO hints of a file (romio_cb_write, striping_factor, ...).

use std::ffi::CString;

use mpi_sys::{
    MPI_File, MPI_File_get_info, MPI_Info, MPI_Info_create, MPI_Info_free, MPI_Info_get,
    MPI_Info_set, RSMPI_INFO_NULL,
};

use crate::error::{Error, Result};
use crate::mpi::status::check;

/// MPI-IO hints: `MPI_Info` keys and values, e.g. `("romio_cb_write", "enable")`.
pub type Hints = Vec<(String, String)>;

/// `"key=value;key=value"` (spaces around items ignored) as MPI_Info pairs.
pub fn parse_hints(text: &str) -> Result<Hints> {
    text.split(';')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| match item.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                Ok((key.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(Error::invalid(format!(
                "MPI hint {item:?} is not key=value (hints are \"key=value;key=value\")"
            ))),
        })
        .collect()
}

/// The variable with which HDF5 (since 1.13.2) lets a user overrule MPI-IO's
/// `romio_visibility_immediate`: `TRUE`/`1` or `FALSE`/`0`. dah5 reads it as HDF5 2.2 does.
pub(crate) const FILE_SYNC_ENV: &str = "HDF5_DO_MPI_FILE_SYNC";

/// What `HDF5_DO_MPI_FILE_SYNC` says: sync (`Some(true)`), do not (`Some(false)`), or
/// nothing (`None`: the MPI's hint decides). A value [`file_sync_setting`] refuses says
/// nothing here (the create or open refuses it).
pub fn file_sync_from_env() -> Option<bool> {
    file_sync_setting().unwrap_or(None)
}

/// `HDF5_DO_MPI_FILE_SYNC` read as HDF5 reads it (`H5_mpio_get_file_sync_required`: exactly
/// `TRUE` or `1`, `FALSE` or `0`). HDF5 ignores any other value without a word; dah5 refuses
/// it, so that a misspelt setting is not taken for one that works.
pub fn file_sync_setting() -> Result<Option<bool>> {
    match std::env::var(FILE_SYNC_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Ok(value) => match value.as_str() {
            "TRUE" | "1" => Ok(Some(true)),
            "FALSE" | "0" => Ok(Some(false)),
            "" => Ok(None),
            _ => Err(Error::invalid(format!(
                "{FILE_SYNC_ENV}={value:?} is not a value HDF5 reads: HDF5 takes TRUE, 1, \
                 FALSE or 0 (exactly so) and ignores anything else, so set one of those or \
                 unset it"
            ))),
        },
        Err(std::env::VarError::NotUnicode(value)) => Err(Error::invalid(format!(
            "{FILE_SYNC_ENV}={value:?} is not a value HDF5 reads: set TRUE, 1, FALSE or 0"
        ))),
    }
}

/// Whether a write through the MPI-IO file `file` is visible to the other processes at
/// once. ROMIO's drivers say so in the hint `romio_visibility_immediate`: MPICH 4.1 and
/// later say `false` on NFS, where another process sees a write only after
/// `MPI_File_sync` (which HDF5 then calls after every collective write, and so refuses
/// independent ones). An MPI that says nothing (Open MPI's ompio) makes writes visible at
/// once. `file_sync`, from `HDF5_DO_MPI_FILE_SYNC`, overrules the hint, for HDF5 and for
/// dah5 alike.
pub fn writes_visible_at_once(file: MPI_File, file_sync: Option<bool>) -> Result<bool> {
    if let Some(sync) = file_sync {
        return Ok(!sync);
    }
    let mut info = Info {
        // SAFETY: reading the MPI_INFO_NULL constant.
        raw: unsafe { RSMPI_INFO_NULL },
    };
    // SAFETY: `file` is an open MPI file; `info.raw` receives a new info object (freed on
    // drop).
    check("MPI_File_get_info", unsafe {
        MPI_File_get_info(file, &mut info.raw)
    })?;
    let mut value = [0 as std::ffi::c_char; 16];
    let mut found = 0;
    // SAFETY: a live info object, a NUL-terminated key, and room for `len` bytes and a NUL.
    check("MPI_Info_get", unsafe {
        MPI_Info_get(
            info.raw,
            c"romio_visibility_immediate".as_ptr(),
            value.len() as i32 - 1,
            value.as_mut_ptr(),
            &mut found,
        )
    })?;
    // SAFETY: MPI_Info_get wrote a NUL-terminated value into `value` (zeroed beyond it).
    let said = unsafe { std::ffi::CStr::from_ptr(value.as_ptr()) };
    Ok(found == 0 || said != c"false")
}

/// An MPI_Info, freed on drop; `MPI_INFO_NULL` when there are no hints.
pub struct Info {
    raw: MPI_Info,
}

impl Info {
    pub fn new(hints: &Hints) -> Result<Info> {
        // SAFETY: reading the MPI_INFO_NULL constant (a handle to pass on, never freed).
        let null = unsafe { RSMPI_INFO_NULL };
        let mut info = Info { raw: null };
        if hints.is_empty() {
            return Ok(info);
        }
        // SAFETY: `info.raw` receives a new info object.
        check("MPI_Info_create", unsafe { MPI_Info_create(&mut info.raw) })?;
        for (key, value) in hints {
            let nul = |_| Error::invalid(format!("MPI hint {key:?} contains a NUL byte"));
            let (k, v) = (
                CString::new(key.as_str()).map_err(nul)?,
                CString::new(value.as_str()).map_err(nul)?,
            );
            // SAFETY: `info.raw` is a live info object; both strings are NUL-terminated.
            check("MPI_Info_set", unsafe {
                MPI_Info_set(info.raw, k.as_ptr(), v.as_ptr())
            })?;
        }
        Ok(info)
    }

    pub fn raw(&self) -> MPI_Info {
        self.raw
    }
}

impl Drop for Info {
    fn drop(&mut self) {
        // SAFETY: comparing handles only.
        if self.raw != unsafe { RSMPI_INFO_NULL } {
            // SAFETY: `self.raw` was made by MPI_Info_create and is freed once.
            unsafe { MPI_Info_free(&mut self.raw) };
        }
    }
}
