//! Dataset closes that ride on the next agreement. With the checks on, `dah5_dataset_close`
//! does not agree on its own: the dataset's HDF5 id waits here, and the next collective call
//! on the file agrees on its own arguments and on the "closed datasets" (their names as
//! opened, in the order this rank closed them) in its one reduction. Only once that agreed
//! are the ids closed, in that order, and then the call acts. A rank that closed other
//! datasets, or in another order, gets `DAH5_ERR_COLLECTIVE_MISMATCH` from that call on
//! every rank, with the closes of each rank in the message, and nothing is closed: HDF5 is
//! still never called before the ranks agreed.
//!
//! Why: a loop of create, attribute, close made three agreements a dataset, each putting
//! the ranks in step where raw HDF5 lets them run; this makes it two. A close with
//! collective work of its own (a subfiled darray being written) still agrees at once.

use crate::error::Result;
use crate::h5::id::Id;

/// The datasets of one file let go of since its last agreed call, oldest first.
#[derive(Debug, Default)]
pub struct Closes {
    /// Their names, as the agreement compares them.
    names: String,
    ids: Vec<Id>,
}

/// The closes among an agreement's arguments ("none" when there are none, so that a
/// mismatch's message says so).
pub const ARG: &str = "closed datasets";

impl Closes {
    /// Hold `id` (of the dataset `name`) until the next agreement.
    pub fn push(&mut self, name: &str, id: Id) {
        if !self.names.is_empty() {
            self.names.push_str(", ");
        }
        self.names.push_str(name);
        self.ids.push(id);
    }

    /// What the next agreement compares.
    pub fn names(&self) -> &str {
        if self.names.is_empty() {
            "none"
        } else {
            &self.names
        }
    }

    /// Close every held id, in order (only after an agreement). Returns the first failure,
    /// naming the datasets, after trying them all.
    pub fn close_all(&mut self) -> Result<()> {
        let mut result = Ok(());
        for id in self.ids.drain(..) {
            result = result.and(id.close());
        }
        let result = result.map_err(|e| {
            e.context(format_args!(
                "closing datasets {} (dah5_dataset_close)",
                self.names
            ))
        });
        // Cleared, not taken: the next closes reuse its capacity.
        self.names.clear();
        result
    }
}
