//! The plans of a rank's last many-block calls on a file, with their HDF5 selections.
//!
//! A climate model writes dozens of variables a step with one decomposition. For each
//! call of 30,000 runs, checking the blocks, planning the transfers and building HDF5's
//! selection cost twice what writing them did (E3SM's F case, docs/benchmarks.md); raw HDF5
//! code builds the selection once and passes it to every `H5Dwrite`. A call whose blocks,
//! array dims and element size equal one of the last [`KEPT`] calls' takes that call's
//! plan: its blocks were checked against the same dims, its selection fits any dataset of
//! them.

use std::sync::{Arc, Mutex, OnceLock};

use crate::core::shape::BlockList;
use crate::core::transfer_plan::Transfer;
use crate::error::Result;
use crate::h5;
use crate::h5::id::Id;

/// Plans kept by a file: enough for the decompositions a model alternates between (its
/// 2-D and 3-D variables, a few grids).
const KEPT: usize = 4;

/// What a plan was made for: a call's blocks (as given, in the handle's order) on an array
/// of `dims` (storage order) with elements of `elem_size` bytes.
pub struct PlanKey {
    pub dims: Vec<u64>,
    pub elem_size: usize,
    pub blocks: BlockList,
}

/// A call's transfers, and each one's file selection once made.
pub struct Planned {
    pub transfers: Vec<Transfer>,
    selections: Vec<OnceLock<Id>>,
}

impl Planned {
    pub fn new(transfers: Vec<Transfer>) -> Planned {
        let selections = transfers.iter().map(|_| OnceLock::new()).collect();
        Planned {
            transfers,
            selections,
        }
    }

    /// The selection of transfer `i` in a dataset whose dataspace is `file_space` (one of
    /// the dims the plan was made for), made on first use.
    pub fn selection(&self, i: usize, file_space: &Id) -> Result<&Id> {
        if let Some(selected) = self.selections[i].get() {
            return Ok(selected);
        }
        let selected = match &self.transfers[i].pieces[..] {
            [one] => h5::space::select_block(file_space, &one.offset, &one.count)?,
            pieces => {
                let blocks: Vec<(&[u64], &[u64])> = (pieces.iter())
                    .map(|p| (&p.offset[..], &p.count[..]))
                    .collect();
                h5::space::select_blocks(file_space, &blocks)?
            }
        };
        Ok(self.selections[i].get_or_init(|| selected))
    }
}

/// The last [`KEPT`] plans, the most recent first.
#[derive(Default)]
pub struct RecentPlans(Mutex<Vec<(PlanKey, Arc<Planned>)>>);

impl RecentPlans {
    /// The plan made for `blocks` of `elem_size` bytes on `dims`, if it is one of the
    /// last; it becomes the most recent.
    pub fn find(&self, dims: &[u64], elem_size: usize, blocks: &BlockList) -> Option<Arc<Planned>> {
        let mut plans = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let at = plans
            .iter()
            .position(|(k, _)| k.dims == dims && k.elem_size == elem_size && k.blocks == *blocks)?;
        let entry = plans.remove(at);
        let planned = Arc::clone(&entry.1);
        plans.insert(0, entry);
        Some(planned)
    }

    /// Keep `planned`, made for `key`, as the most recent; the oldest goes beyond
    /// [`KEPT`].
    pub fn keep(&self, key: PlanKey, planned: Arc<Planned>) {
        let mut plans = self.0.lock().unwrap_or_else(|e| e.into_inner());
        plans.insert(0, (key, planned));
        plans.truncate(KEPT);
    }
}

impl std::fmt::Debug for RecentPlans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plans = self.0.lock().unwrap_or_else(|e| e.into_inner());
        write!(f, "RecentPlans({} kept)", plans.len())
    }
}
