//! Owned HDF5 identifiers, closed when dropped.

use hdf5_sys::h5::herr_t;
pub use hdf5_sys::h5i::hid_t;

use crate::error::Result;
use crate::h5::call::call;

/// How an owned id is closed: its closer (`H5Fclose`, `H5Dclose`, ...) and the closer's
/// name, for messages. One static per closer (`h5call!` makes it), so that an [`Id`] is two
/// words: ids are moved and held on every call.
#[derive(Debug)]
pub struct Closer {
    pub close: unsafe extern "C" fn(hid_t) -> herr_t,
    pub name: &'static str,
}

impl Closer {
    /// Close `raw`, an open id of the kind this closes, named after the closer in an error.
    fn close(&self, raw: hid_t) -> Result<()> {
        // SAFETY: `raw` is an open id of the kind `self.close` closes (the callers give up
        // their id: it is not used again).
        call(self.name, || unsafe { (self.close)(raw) }).map(|_| ())
    }
}

/// An HDF5 id and how it is closed; or nothing, for an id owned elsewhere (HDF5's
/// predefined `H5T_NATIVE_DOUBLE`, `H5P_DEFAULT`; an object another `Id` holds open), which
/// is never closed through this one.
#[derive(Debug)]
pub struct Id {
    raw: hid_t,
    closer: Option<&'static Closer>,
}

// SAFETY: an hid_t is a plain integer; every use of it goes through the global HDF5 lock.
unsafe impl Send for Id {}

impl Id {
    /// Make an id from the call `what`, closed by `closer`: use
    /// `h5call!(unsafe { ... }, closed by H5Xclose)`, which names both.
    pub fn create(
        what: &'static str,
        closer: &'static Closer,
        f: impl FnOnce() -> hid_t,
    ) -> Result<Id> {
        let raw = call(what, f)?;
        Ok(Id {
            raw,
            closer: Some(closer),
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
        self.closer.map_or(Ok(()), |closer| closer.close(raw))
    }
}

impl Drop for Id {
    fn drop(&mut self) {
        if let (true, Some(closer)) = (self.raw >= 0, self.closer) {
            // A failure here has nowhere to go, so it is dropped.
            let _ = closer.close(self.raw);
        }
    }
}
