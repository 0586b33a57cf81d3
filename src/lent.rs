//! A buffer the C caller lends dah5 beyond the call that passed it: a write behind
//! (`DAH5_ASYNC`) reads it on another thread after `dah5_write_block` returned, and the
//! caller keeps it allocated and unmodified until `dah5_file_wait`, `dah5_file_flush` or
//! `dah5_file_close` returns. dah5 drops the [`Lent`] before any of those returns.

/// Bytes lent by the caller; readable for as long as the value lives.
pub struct Lent {
    start: *const u8,
    len: usize,
}

// SAFETY: the bytes are only read, and the lender leaves them unmodified while lent.
unsafe impl Send for Lent {}

impl Lent {
    /// # Safety
    /// `bytes` stay allocated and unmodified for as long as the returned value lives, not
    /// only for the lifetime the borrow has here.
    pub unsafe fn new(bytes: &[u8]) -> Lent {
        Lent {
            start: bytes.as_ptr(),
            len: bytes.len(),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: taken from a slice (`new`), kept alive and unmodified by its contract.
        unsafe { std::slice::from_raw_parts(self.start, self.len) }
    }
}

/// Bytes that live for ever and never change are lent safely.
impl From<&'static [u8]> for Lent {
    fn from(bytes: &'static [u8]) -> Lent {
        // SAFETY: a shared 'static borrow stays allocated and unmodified.
        unsafe { Lent::new(bytes) }
    }
}
