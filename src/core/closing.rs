//! Dataset closes that do not wait for the other ranks. With the checks on,
//! `dah5_dataset_close` posts its agreement and returns (`mpi::agree::agree_later`): a rank
//! that makes another call at that point finds the close's words and gets
//! `DAH5_ERR_COLLECTIVE_MISMATCH` at once, naming both calls. The closing rank reads the
//! others' words at its next collective call on the file, before that call's own agreement
//! ([`Closes::settle`]). The dataset's HDF5 id is held meanwhile, and closed, in the order of
//! the closes, after the next agreed call: HDF5 is still never called before the ranks
//! agreed.
//!
//! When the closes did not match, the closing rank's next call fails on every rank with
//! nothing done (this rank's failure goes into that call's agreement), so every rank's
//! calls stay paired with the other ranks' calls: the others got the mismatch from the call
//! they made at the close's place, this rank gets it one call later. The dataset stays
//! open in HDF5 (its close is collective) until `dah5_file_close` closes it.
//!
//! Why: a loop of create, attribute, close made three agreements a dataset, each putting
//! the ranks in step where raw HDF5 lets them run; a close that waits for nobody makes it
//! two. Where the agreement goes through MPI messages (ranks on several nodes) the close
//! agrees at once; its HDF5 close waits all the same. A close with collective work of its
//! own (a subfiled darray being written) agrees at once, in its own call.

use std::sync::MutexGuard;

use crate::error::{Error, Result};
use crate::h5::id::Id;
pub use crate::mpi::agree::Later;
use crate::mpi::agree::complete_later;
use crate::mpi::comm::Comm;

/// A dataset as the file's close closes it (`core::dataset` implements it; the file, below
/// the dataset, knows it only as this).
pub trait CloseWithFile {
    fn close(self) -> Result<()>;
}

/// What holds dataset closes for the next collective call (a file): the collective step
/// settles them before its agreement and finishes them after it (`core::collective`).
pub trait HeldCloses {
    fn closes(&self) -> MutexGuard<'_, Closes>;

    /// Remember a failure to carry out an agreed close, for the file's close to report.
    fn record_failure(&self, error: &Error);

    /// After an agreement: close the datasets it agreed were closed. A failure is
    /// remembered like a failed write (the ranks are past the agreement and go on alike;
    /// `dah5_file_close` reports it on every rank).
    fn finish_closes(&self) {
        if let Err(e) = self.closes().close_agreed() {
            self.record_failure(&e);
        }
    }
}

/// The datasets of one file this rank let go of that HDF5 has not closed yet.
#[derive(Debug, Default)]
pub struct Closes {
    /// The last close, until this rank reads the other ranks' words of its agreement.
    pending: Option<(Later, Held)>,
    /// Closes every rank agreed on, oldest first: closed after the next agreed call.
    agreed: Vec<Held>,
    /// Closes the other ranks did not make at that point: closed with the file.
    unmatched: Vec<Id>,
}

#[derive(Debug)]
struct Held {
    name: String,
    id: Id,
}

impl Closes {
    /// Hold `id`, the dataset `name`, closed by this rank; `later` is its agreement when
    /// this rank did not wait for it, none when it agreed at once.
    pub fn hold(&mut self, name: String, id: Id, later: Option<Later>) {
        let held = Held { name, id };
        match later {
            Some(later) => self.pending = Some((later, held)),
            None => self.agreed.push(held),
        }
    }

    /// Before this rank's next collective call on the file: complete the last close's
    /// agreement. Its error (the closes did not match, or the wait timed out) is this
    /// call's: the call then goes into its agreement with it, and fails on every rank.
    pub fn settle(&mut self, comm: &Comm) -> Result<()> {
        let Some((later, held)) = self.pending.take() else {
            return Ok(());
        };
        match complete_later(comm, later) {
            Ok(()) => {
                self.agreed.push(held);
                Ok(())
            }
            Err(e) => {
                let name = held.name;
                self.unmatched.push(held.id);
                Err(e.context(format_args!(
                    "this rank's earlier dah5_dataset_close of {name:?} (it returned at once, \
                     and is checked at the rank's next collective call on the file: this \
                     one) did not match the other ranks' calls, so this call does nothing on \
                     any rank, and the dataset stays open until dah5_file_close closes it"
                )))
            }
        }
    }

    /// Close every agreed id, in order (only after an agreement). Returns the first
    /// failure, naming the datasets, after trying them all.
    pub fn close_agreed(&mut self) -> Result<()> {
        let mut result = Ok(());
        let mut names = Vec::new();
        for held in self.agreed.drain(..) {
            if let Err(e) = held.id.close() {
                result = result.and(Err(e));
                names.push(held.name);
            }
        }
        result.map_err(|e| {
            e.context(format_args!(
                "closing datasets {} (dah5_dataset_close)",
                names.join(", ")
            ))
        })
    }

    /// Close the ids of closes that did not match (with the file, after its agreement).
    pub fn close_unmatched(&mut self) -> Result<()> {
        let mut result = Ok(());
        for id in self.unmatched.drain(..) {
            result = result.and(id.close());
        }
        result
    }
}
