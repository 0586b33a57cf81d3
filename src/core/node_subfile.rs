//! One node's subfile of a subfiled darray (`core::subfiles`): one HDF5 file for the ranks
//! of a node, made, flushed and closed by them together through parallel HDF5 on the
//! node's communicator. It holds one contiguous dataset per non-empty block of the node,
//! `/block<rank>`, made in rank order by every rank of the node (also a rank whose block is
//! empty); each rank then writes its own dataset alone (an independent transfer, HDF5
//! converting the memory type as for any write). So a darray makes one file per node, not
//! one per rank: a metadata server takes one create per node.
//!
//! Measured against one rank of the node gathering the node's blocks through shared memory
//! and writing them alone: docs/benchmarks.md ("Subfile per node").

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::core::file::FileShared;
use crate::core::layout::Layout;
use crate::dtype::Dtype;
use crate::error::Result;
use crate::h5;
use crate::h5::id::Id;
use crate::mpi::comm::{Comm, Node};

/// Every rank's node, numbered by its lowest rank (node 0 holds rank 0), and this rank's
/// node communicator (collective over `comm`). `ranks_per_node`: the test knob
/// `DAH5_TEST_RANKS_PER_NODE` (`core::environment`).
pub(crate) fn nodes_of_ranks(comm: &Comm, ranks_per_node: Option<u32>) -> Result<(Vec<u32>, Node)> {
    let (node, lowest) = comm.node(ranks_per_node)?;
    let lowest_of_rank = comm.allgather(&[lowest])?;
    let mut lowests = lowest_of_rank.clone();
    lowests.sort_unstable();
    lowests.dedup();
    let numbered = lowest_of_rank
        .iter()
        .map(|l| lowests.partition_point(|x| x < l) as u32)
        .collect();
    Ok((numbered, node))
}

/// The id of the write that made a darray's subfiles, on the darray and on each block.
pub(crate) const ID_ATTR: &str = "dah5_subfiles_id";

/// The dataset of block `block` in its node's subfile.
pub(crate) fn dataset_name(block: usize) -> String {
    format!("block{block}")
}

/// A node's subfile, open on every rank of the node.
#[derive(Debug)]
pub(crate) struct NodeSubfile {
    // Dropped in this order: the datasets before their file.
    /// The node's datasets, one per non-empty block, in rank order.
    datasets: Vec<Id>,
    file: Id,
    /// This rank's block: its dataset's index in `datasets`, and its place in the darray
    /// (storage order); None for an empty block.
    own: Option<OwnBlock>,
    path: PathBuf,
    /// The main file, whose flush puts this subfile on storage too.
    main: Arc<FileShared>,
    /// How this rank writes its block: independently, or, where MPI-IO says writes are
    /// not visible at once, collectively (HDF5 refuses independent writes there; this rank
    /// is then its node's only one: `File::create_subfiled`).
    dxpl: Id,
}

#[derive(Debug)]
pub(crate) struct OwnBlock {
    index: usize,
    rank: usize,
    pub offset: Vec<u64>,
    pub count: Vec<u64>,
}

/// What a node's subfile holds: the node's non-empty blocks (rank, count) in rank order,
/// this rank's own block (rank, offset, count) if it is one of them, the element type and
/// the write id.
pub(crate) struct NodeBlocks<'a> {
    pub blocks: Vec<(usize, &'a [u64])>,
    pub own: Option<(usize, &'a [u64], &'a [u64])>,
    pub dtype: Dtype,
    pub id: Option<u64>,
}

impl NodeSubfile {
    /// Create the subfile at `path` with an empty dataset for each of `what.blocks`
    /// (collective over `node`: every rank of the node, in the same order). Once the file
    /// is made it is returned, with how making its datasets went: a rank whose part failed
    /// keeps the file open all the same, so that it closes it when the other ranks of the
    /// node do (a close is collective too), after the call's error is settled.
    pub(crate) fn create(
        node: &Node,
        path: &Path,
        what: NodeBlocks<'_>,
        main: &Arc<FileShared>,
    ) -> Result<(NodeSubfile, Result<()>)> {
        let text = path.to_string_lossy();
        let info = crate::mpi::info::Info::new(&Default::default())?;
        let fapl = h5::plist::node_file_access(node.raw(), &info, main.file_locking)?;
        let file = h5::file::create(&text, true, &fapl)?;
        main.subfiles.opened(path, file.raw());
        // From here on, dropping `subfile` closes it and tells the main file.
        let mut subfile = NodeSubfile {
            datasets: Vec::with_capacity(what.blocks.len()),
            file,
            own: None,
            path: path.to_path_buf(),
            main: main.clone(),
            dxpl: h5::plist::transfer(node.alone() && !main.writes_visible_at_once)?,
        };
        let made = subfile.make_datasets(&what);
        let made = made.and_then(|()| subfile.reserve(what.dtype));
        Ok((subfile, made))
    }

    /// The datasets of `what.blocks` (collective over the node).
    fn make_datasets(&mut self, what: &NodeBlocks<'_>) -> Result<()> {
        let file_type = h5::types::native(what.dtype)?;
        let dcpl = h5::plist::dataset_create(&Layout::contiguous(), false)?;
        let (lcpl, scalar) = (Id::borrowed(h5::plist::DEFAULT), h5::space::scalar()?);
        for &(rank, count) in &what.blocks {
            let space = h5::space::simple(count)?;
            let name = dataset_name(rank);
            let dataset = h5::dataset::create(&self.file, &name, &file_type, &space, &lcpl, &dcpl)?;
            if let Some(id) = what.id {
                crate::core::attr::write_u64(&dataset, ID_ATTR, id, &scalar)?;
            }
            if what.own.is_some_and(|(own, ..)| own == rank) {
                self.own = what.own.map(|(_, offset, count)| OwnBlock {
                    index: self.datasets.len(),
                    rank,
                    offset: offset.to_vec(),
                    count: count.to_vec(),
                });
            }
            self.datasets.push(dataset);
        }
        Ok(())
    }

    /// Reserve this rank's block on storage, as a shared-file dataset is
    /// (`core::disk_space`): a full disk is said now, and the write into reserved blocks
    /// is faster (docs/benchmarks.md). Local.
    fn reserve(&self, dtype: Dtype) -> Result<()> {
        let Some(own) = &self.own else {
            return Ok(());
        };
        let bytes = crate::core::shape::data_bytes(&own.count, dtype.size());
        let dataset = &self.datasets[own.index];
        if crate::core::disk_space::worth_reserving(bytes)
            && let Some(offset) = h5::dataset::storage(dataset)?.offset
        {
            let (path, name) = (self.path.to_string_lossy(), dataset_name(own.rank));
            crate::core::disk_space::reserve(&path, &name, offset, bytes)?;
        }
        Ok(())
    }

    /// This rank's block, if it has one.
    pub(crate) fn own(&self) -> Option<&OwnBlock> {
        self.own.as_ref()
    }

    /// Write `data` (C order, storage `count`) at `offset` of the darray, inside this
    /// rank's block (the caller checked). Local.
    pub(crate) fn write(
        &self,
        offset: &[u64],
        count: &[u64],
        mem_dtype: Dtype,
        data: &[u8],
    ) -> Result<()> {
        let Some(own) = &self.own else {
            return Ok(());
        };
        let local: Vec<u64> = offset.iter().zip(&own.offset).map(|(o, b)| o - b).collect();
        let dataset = &self.datasets[own.index];
        let space = h5::dataset::space(dataset)?;
        let transfer = h5::dataset::TransferIds {
            dataset,
            mem_type: &h5::types::native(mem_dtype)?,
            mem_space: &h5::space::simple(count)?,
            file_space: &h5::space::select_block(&space, &local, count)?,
            dxpl: &self.dxpl,
        };
        h5::dataset::write(&transfer, data)
    }

    /// Close the datasets and the file (collective over the node); the first error is
    /// returned, everything is closed all the same.
    pub(crate) fn close(mut self) -> Result<()> {
        let mut closed = Ok(());
        for dataset in std::mem::take(&mut self.datasets) {
            closed = closed.and(dataset.close());
        }
        let file = std::mem::replace(&mut self.file, Id::borrowed(-1)).close();
        closed.and(file)
    }
}

impl Drop for NodeSubfile {
    fn drop(&mut self) {
        self.main.subfiles.closed(&self.path);
    }
}
