//! MPI_Info objects for the MPI-IO hints of a file (romio_cb_write, striping_factor, ...).

use std::ffi::CString;

use mpi_sys::{MPI_Info, MPI_Info_create, MPI_Info_free, MPI_Info_set, RSMPI_INFO_NULL};

use crate::error::{Error, Result};
use crate::mpi::check;

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
