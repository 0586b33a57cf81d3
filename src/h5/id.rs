//! Owned HDF5 identifiers, closed when dropped.

use hdf5_sys::h5::herr_t;
pub use hdf5_sys::h5i::hid_t;

use crate::error::Result;
use crate::h5::call;

type Closer = unsafe extern "C" fn(hid_t) -> herr_t;

/// An HDF5 id and how it is closed: its closer (`H5Fclose`, `H5Dclose`, ...) and the names
/// of the call that made it and of the closer, for messages; or nothing, for an id owned
/// elsewhere (HDF5's predefined `H5T_NATIVE_DOUBLE`, `H5P_DEFAULT`; an object another `Id`
/// holds open), which is never closed through this one.
#[derive(Debug)]
pub struct Id {
    raw: hid_t,
    closer: Option<(Closer, &'static str)>,
}

// SAFETY: an hid_t is a plain integer; every use of it goes through the global HDF5 lock.
unsafe impl Send for Id {}

impl Id {
    /// Make an id from the call `what`, closed by `closer` (named `closer_name`): use
    /// `h5call!(unsafe { ... }, closed by H5Xclose)`, which names both.
    pub fn create(
        what: &'static str,
        closer: Closer,
        closer_name: &'static str,
        f: impl FnOnce() -> hid_t,
    ) -> Result<Id> {
        let raw = call(what, f)?;
        Ok(Id {
            raw,
            closer: Some((closer, closer_name)),
        })
    }

    /// An id owned elsewhere, which this one never closes.
    pub fn borrowed(raw: hid_t) -> Id {
        Id { raw, closer: None }
    }

    pub fn raw(&self) -> hid_t {
        self.raw
    }

    /// Close now and report failure (file and dataset closes can fail and must be heard).
    pub fn close(mut self) -> Result<()> {
        let raw = std::mem::replace(&mut self.raw, -1);
        match self.closer {
            // SAFETY: `raw` is an open id of the kind `closer` closes; it is not used again.
            Some((closer, name)) => call(name, || unsafe { closer(raw) }).map(|_| ()),
            None => Ok(()),
        }
    }
}

impl Drop for Id {
    fn drop(&mut self) {
        if let (true, Some((closer, name))) = (self.raw >= 0, self.closer) {
            let raw = self.raw;
            // SAFETY: as in `close`; a failure here has nowhere to go, so it is dropped.
            let _ = call(name, || unsafe { closer(raw) });
        }
    }
}
