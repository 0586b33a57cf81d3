//! Owned HDF5 identifiers, closed when dropped.

use hdf5_sys::h5::herr_t;
use hdf5_sys::h5i::hid_t;

use crate::error::Result;
use crate::h5::call;

type Closer = unsafe extern "C" fn(hid_t) -> herr_t;

/// An HDF5 id and the function that closes it (`H5Fclose`, `H5Dclose`, `H5Sclose`, ...).
#[derive(Debug)]
pub struct Id {
    raw: hid_t,
    closer: Closer,
    what: &'static str,
}

// SAFETY: an hid_t is a plain integer; every use of it goes through the global HDF5 lock.
unsafe impl Send for Id {}

impl Id {
    /// Make an id from a call that returns one; `what` names the call and the closer.
    pub fn create(what: &'static str, closer: Closer, f: impl FnOnce() -> hid_t) -> Result<Id> {
        let raw = call(what, f)?;
        Ok(Id { raw, closer, what })
    }

    pub fn raw(&self) -> hid_t {
        self.raw
    }

    /// Close now and report failure (file and dataset closes can fail and must be heard).
    pub fn close(mut self) -> Result<()> {
        let raw = std::mem::replace(&mut self.raw, -1);
        let closer = self.closer;
        // Every HDF5 closer is named like its opener's interface: H5Fcreate -> H5Fclose.
        let name = format!("{}close", self.what.get(..3).unwrap_or("H5"));
        // SAFETY: `raw` is an open id of the kind `closer` closes; it is not used again.
        call(&name, || unsafe { closer(raw) }).map(|_| ())
    }
}

impl Drop for Id {
    fn drop(&mut self) {
        if self.raw >= 0 {
            let (raw, closer) = (self.raw, self.closer);
            // SAFETY: as in `close`; a failure here has nowhere to go, so it is dropped.
            let _ = call(self.what, || unsafe { closer(raw) });
        }
    }
}
