//! Distributed arrays: one dataset written by every rank at once, with the decomposition
//! recorded in the file, checked before anything is written, and balanced partitions for
//! reading it back on any number of ranks.
//!
//! The block table itself (its check, its place in the file) is `core::block_table`; a
//! subfiled darray's subfiles are `core::subfiles`.

use std::hash::BuildHasher;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::core::block::{BlockRequest, Buffer, WriteBlock, WriteBlocks};
use crate::core::block_table::{BlockTable, Blocks, Recorded, RowWriter, TableSummary, table_path};
use crate::core::collective::{self, Agreed, Args, Collective, GatherTo};
use crate::core::dataset::{Dataset, DatasetOptions, DatasetRequest};
use crate::core::fault;
use crate::core::file::File;
use crate::core::node_subfile::nodes_of_ranks;
use crate::core::shape::{BlockList, blocks_byte_len, element_count};
use crate::core::subfiles::Subfiles;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::id::Id;

/// Rank `rank` of `nranks`'s part of an array of `dims` (storage order): the slowest
/// dimension with at least `nranks` elements (else the largest) is cut into nearly equal
/// pieces, the others are whole. Cutting the slowest dimension gives each rank one
/// contiguous range of the file; some ranks get nothing when the array is small.
pub fn partition(dims: &[u64], rank: u64, nranks: u64) -> (Vec<u64>, Vec<u64>) {
    let split = dims.iter().position(|&n| n >= nranks).unwrap_or_else(|| {
        (0..dims.len())
            .max_by_key(|&d| (dims[d], usize::MAX - d))
            .unwrap_or(0)
    });
    let mut offset = vec![0; dims.len()];
    let mut count = dims.to_vec();
    let n = dims[split] as u128;
    let (start, end) = (
        n * rank as u128 / nranks as u128,
        n * (rank as u128 + 1) / nranks as u128,
    );
    offset[split] = start as u64;
    count[split] = (end - start) as u64;
    (offset, count)
}

/// Everything a rank says in `dah5_darray_write` (or, without data, `dah5_darray_create`;
/// with many blocks, `dah5_darray_write_blocks` and `dah5_darray_create_blocks`).
pub struct DarrayRequest<'a> {
    pub dataset: DatasetRequest,
    /// This rank's blocks, (offset, count) in the handle's order; one for
    /// `dah5_darray_write`.
    pub blocks: BlockList,
    /// The blocks one after another; None for `dah5_darray_create`.
    pub data: Option<&'a [u8]>,
    /// Allow blocks that leave parts of the array unwritten.
    pub partial: bool,
    /// Collective data transfer (always so for compressed datasets).
    pub collective: bool,
    /// Each node's blocks in a file of the node's own behind a virtual dataset
    /// (`core::subfiles`).
    pub subfiled: bool,
}

/// A darray call: with its data or not (`dah5_darray_create`: the ranks then write with
/// `dah5_write_block`), one block a rank or `MANY` (the table records each block's rank).
pub struct Darray<'a, const DATA: bool, const MANY: bool>(pub DarrayRequest<'a>);

pub type WriteDarray<'a> = Darray<'a, true, false>;
pub type CreateDarray<'a> = Darray<'a, false, false>;
pub type WriteDarrayBlocks<'a> = Darray<'a, true, true>;
pub type CreateDarrayBlocks<'a> = Darray<'a, false, true>;

impl Dataset {
    /// The block table in the file handle's order: (offsets, counts), one row per block.
    pub fn block_table(&self) -> Result<Blocks> {
        let table = self.recorded_table()?;
        let order = self.file.order;
        let rows = |rows: &[Vec<u64>]| rows.iter().map(|r| order.to_storage(r)).collect();
        Ok((rows(&table.offsets), rows(&table.counts)))
    }

    /// The rank that wrote each block of the table.
    pub fn block_ranks(&self) -> Result<Vec<u32>> {
        let table = self.recorded_table()?;
        Ok((0..table.offsets.len())
            .map(|row| table.rank_of(row))
            .collect())
    }

    /// The recorded block table (its rows read on first use).
    fn recorded_table(&self) -> Result<&BlockTable> {
        self.file.check_unchanged()?;
        let recorded = self.blocks.as_ref().ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!(
                    "dataset {:?} has no block table (it was not written by \
                     dah5_darray_write or dah5_darray_write_blocks); use \
                     dah5_darray_partition to split it",
                    self.name()
                ),
            )
        })?;
        recorded.table(&self.id, &self.storage_dims)
    }

    /// Rank `rank` of `nranks`'s balanced block (see [`partition`]), in the handle's order.
    pub fn partition(&self, rank: u64, nranks: u64) -> (Vec<u64>, Vec<u64>) {
        let order = self.file.order;
        let (offset, count) = partition(&self.storage_dims, rank, nranks);
        (order.to_storage(&offset), order.to_storage(&count))
    }
}

/// Gather and check every rank's blocks, create the dataset, record the table, write the
/// data. Nothing is created when any check fails, and every rank gets the same error.
impl<const DATA: bool, const MANY: bool> Collective for Darray<'_, DATA, MANY> {
    const NAME: &'static str = match (DATA, MANY) {
        (true, false) => "dah5_darray_write",
        (false, false) => "dah5_darray_create",
        (true, true) => "dah5_darray_write_blocks",
        (false, true) => "dah5_darray_create_blocks",
    };
    type Target = File;
    type Output = Dataset;

    fn check(self, file: &File) -> Result<Self> {
        self.0.checked(file, MANY).map(Darray)
    }

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        self.0.args_of(file, Self::NAME)
    }

    fn words(&self, file: &File) -> Option<(Vec<u64>, GatherTo)> {
        // Rank 0 checks the blocks and writes the table; the other ranks hold their own
        // blocks only. A subfiled darray's virtual dataset maps every block in the
        // creation property list that H5Dcreate (collective) takes alike on every rank:
        // its blocks (one a rank) go to every rank.
        let to = match self.0.subfiled {
            true => GatherTo::EveryRank,
            false => GatherTo::RankZero,
        };
        Some((self.0.words_of(file), to))
    }

    fn act(self, file: &mut File, agreed: Agreed) -> Result<Dataset> {
        self.0.create(file, Self::NAME, MANY, &agreed.gathered)
    }
}

impl DarrayRequest<'_> {
    fn checked(self, file: &File, many: bool) -> Result<Self> {
        file.check_create(&self.dataset)?;
        let dataset = self.dataset;
        let needed = blocks_byte_len(&self.blocks, dataset.dtype.size(), "count")?;
        match self.data {
            Some(data) if data.len() != needed => {
                return Err(Error::invalid(format!(
                    "buf holds {} bytes but the {} {needed}",
                    data.len(),
                    if many { "blocks need" } else { "block needs" }
                )));
            }
            _ => {}
        }
        if self.subfiled && many {
            return Err(Error::invalid(format!(
                "dataset {:?}: a subfiled darray holds one block a rank, each in its rank's \
                 subfile: write it with dah5_darray_write (or dah5_darray_create), or drop \
                 DAH5_DARRAY_SUBFILED",
                dataset.name
            )));
        }
        if self.subfiled && (dataset.options != DatasetOptions::default() || self.partial) {
            return Err(Error::invalid(format!(
                "dataset {:?}: a subfiled darray is contiguous, fixed-size and whole: \
                 DAH5_DARRAY_SUBFILED takes no chunks, compression, max dims, zero fill or \
                 DAH5_DARRAY_PARTIAL",
                dataset.name
            )));
        }
        Ok(DarrayRequest { dataset, ..self })
    }

    fn args_of<'a>(&'a self, file: &'a File, name: &'static str) -> Args<'a> {
        self.dataset
            .args(file, name)
            .number("flags.partial", self.partial as u64)
            .number("flags.collective", self.collective as u64)
            .number("flags.subfiled", self.subfiled as u64)
    }

    /// What this rank gives rank 0 (a subfiled darray: every rank): its blocks (each its
    /// offset then its count, storage order) and, for a subfiled darray, an id for this
    /// write (rank 0's is taken).
    fn words_of(&self, file: &File) -> Vec<u64> {
        let order = file.order();
        let write_id = if self.subfiled { new_write_id() } else { 0 };
        let blocks = (self.blocks.iter())
            .flat_map(|(offset, count)| [order.to_storage(offset), order.to_storage(count)]);
        blocks.chain([vec![write_id]]).collect::<Vec<_>>().concat()
    }

    /// Make the darray, given every rank's [`DarrayRequest::words_of`] (on rank 0, or, when
    /// subfiled, on every rank); `many`: the table records each block's rank.
    fn create(
        self,
        file: &mut File,
        call: &'static str,
        many: bool,
        gathered: &[Vec<u64>],
    ) -> Result<Dataset> {
        if self.subfiled {
            // Every rank has every block (`words`): each checks them and needs the table.
            let (table, write_id) = file.table_of(&self, many, gathered)?;
            return file.create_subfiled(self, table, write_id, call);
        }
        let (summary, table) = file.table_on_rank_zero(&self, many, gathered)?;
        file.claim_table_room(call, &self.dataset.name, &summary)?;
        let layout = file.layout_of(&self.dataset, summary.largest.as_deref())?;
        let name = self.dataset.name.clone();
        let mut dataset = file.create_agreed(self.dataset, &layout)?;
        // From here on, a step that fails on any rank takes the dataset out again on every
        // rank: the call leaves nothing behind (not a dataset without its table or data).
        let rank = file.shared.comm.rank();
        let rows = RowWriter::of(&file.shared);
        let table_written = summary
            .write(
                &file.id,
                &name,
                file.order(),
                table.as_ref(),
                rows.collective,
            )
            .and_then(|()| fault::check("darray_table", rank));
        let take_out = |dataset: &mut Dataset, e| file.take_out_darray(dataset.take_id(), &name, e);
        file.settle_or_undo(call, "the block table", table_written, |e| {
            take_out(&mut dataset, e)
        })?;
        if let Some(data) = self.data {
            let collective =
                self.collective || dataset.filtered || !file.shared.writes_visible_at_once;
            let blocks = BlockRequest {
                blocks: self.blocks,
                mem_dtype: dataset.dtype(),
                convert: false,
                collective,
                buffer: Buffer::Source(data),
                lent: None,
            };
            let data_written = if many {
                collective::run_either(collective, &mut dataset, Ok(WriteBlocks::new(blocks)))
            } else {
                collective::run_either(collective, &mut dataset, Ok(WriteBlock::new(blocks)))
            };
            let data_written = data_written.and_then(|()| fault::check("darray_data", rank));
            file.settle_or_undo(call, "the data", data_written, |e| {
                take_out(&mut dataset, e)
            })?;
        }
        let recorded = match table {
            Some(table) => Recorded::held(table),
            None => Recorded::written_elsewhere(&summary, &name),
        };
        dataset.blocks = Some(Box::new(recorded));
        Ok(dataset)
    }
}

/// A number no other write of a darray has: a hash of the time and the process, keyed
/// with the random keys of the standard library's hash maps.
fn new_write_id() -> u64 {
    let now = std::time::SystemTime::now();
    std::hash::RandomState::new().hash_one((now, std::process::id()))
}

impl File {
    /// Every rank's blocks, from what each gave (`gathered`), checked against the dims, and
    /// the id of this write of a subfiled darray (`core::subfiles`): rank 0's. `many`: the
    /// table records each block's rank (else row i is rank i's one block).
    fn table_of(
        &self,
        request: &DarrayRequest<'_>,
        many: bool,
        gathered: &[Vec<u64>],
    ) -> Result<(BlockTable, u64)> {
        let order = self.order();
        let ndims = request.dataset.dims.len();
        let (mut offsets, mut counts, mut ranks) = (Vec::new(), Vec::new(), Vec::new());
        for (rank, words) in gathered.iter().enumerate() {
            let blocks = &words[..words.len() - 1];
            // (ndims ≥ 1: the C shim checked it.)
            for block in blocks.chunks(2 * ndims) {
                offsets.push(block[..ndims].to_vec());
                counts.push(block[ndims..2 * ndims].to_vec());
                ranks.push(rank as u32);
            }
        }
        let ranks = many.then_some(ranks);
        let dims = order.to_storage(&request.dataset.dims);
        let name = &request.dataset.name;
        let table = BlockTable::validate(&dims, offsets, counts, ranks, order)
            .map_err(|e| e.context(format_args!("dataset {name:?}")))?;
        if !table.complete && !request.partial {
            return Err(Error::invalid(format!(
                "dataset {name:?}: the blocks cover {} of the {} elements; pass \
                 DAH5_DARRAY_PARTIAL to write a partial array. Nothing was written",
                table.covered(),
                element_count(&dims).unwrap_or(0)
            )));
        }
        let write_id = gathered[0].last().copied().unwrap_or_default();
        Ok((table, write_id))
    }

    /// [`File::table_of`] on rank 0 alone, which holds every rank's blocks: its verdict
    /// told to every rank (one broadcast), so that all return the same error, or all go on
    /// with the table's summary; rank 0 also keeps the table. (A panic there is its verdict
    /// too: the other ranks wait in the broadcast.)
    fn table_on_rank_zero(
        &self,
        request: &DarrayRequest<'_>,
        many: bool,
        gathered: &[Vec<u64>],
    ) -> Result<(TableSummary, Option<BlockTable>)> {
        let check = || {
            catch_unwind(AssertUnwindSafe(|| self.table_of(request, many, gathered)))
                .unwrap_or_else(|_| {
                    Err(Error::new(
                        ErrorKind::Panic,
                        "checking the blocks on rank 0 panicked",
                    ))
                })
        };
        let checked = (self.shared.comm.rank() == 0).then(check);
        let (outcome, table) = match checked {
            Some(Ok((table, _))) => (Some(Ok(table.summary().to_words())), Some(table)),
            Some(Err(e)) => (Some(Err(e)), None),
            None => (None, None),
        };
        let words = collective::told_by_rank_zero(&self.shared.comm, outcome)?;
        Ok((TableSummary::from_words(&words)?, table))
    }

    /// Room for the block table of the darray `name` (rank 0 writes its rows alone, and a
    /// write that fails there would leave the ranks' HDF5 out of step: `H5Fclose` then
    /// waits for ever), agreed by every rank: `NO_SPACE` on all of them where it does not
    /// fit.
    fn claim_table_room(&self, call: &str, name: &str, table: &TableSummary) -> Result<()> {
        let what = || format!("the block table of {name:?} ({} blocks)", table.nblocks);
        let claimed = self.claim_room(what, table.stored_bytes(), 0);
        let elsewhere = |_| {
            format!(
                "another rank found no room for {} (its message says why); nothing was created",
                what()
            )
        };
        collective::settle(
            &self.shared.comm,
            call,
            "room for the block table",
            claimed,
            elsewhere,
        )
    }

    /// [`File::take_out`] for a darray: its table dataset goes too, with the groups of
    /// `/dah5_blocks` that held nothing else (collective; every rank sees the same links).
    pub(crate) fn take_out_darray(&self, id: Id, name: &str, cause: Error) -> Error {
        let cause = self.take_out(id, name, cause);
        let mut path = table_path(name);
        // The table may not have been made (its create is what failed): then there is
        // nothing to unlink, and the groups are checked all the same.
        let _ = h5::dataset::unlink(&self.id, &path);
        while let Some(cut) = path.rfind('/').filter(|&cut| cut > 0) {
            path.truncate(cut);
            match h5::group::link_count(&self.id, &path) {
                Ok(0) => {
                    if let Err(e) = h5::dataset::unlink(&self.id, &path) {
                        return cause
                            .context(format_args!("(removing {path:?} failed: {})", e.message));
                    }
                }
                _ => break,
            }
        }
        cause
    }

    /// Every rank learns whether writing `what` worked on all ranks (in the call `call`);
    /// where it did not, every rank runs `undo`, which takes out what the call made.
    pub(crate) fn settle_or_undo(
        &self,
        call: &str,
        what: &str,
        outcome: Result<()>,
        undo: impl FnOnce(Error) -> Error,
    ) -> Result<()> {
        let outcome = outcome.map_err(|own| own.context(format_args!("writing {what}")));
        let elsewhere = |_| {
            format!(
                "writing {what} failed on another rank (its message says why), so the \
                     dataset was taken out again on every rank"
            )
        };
        collective::settle_or_undo(&self.shared.comm, call, what, outcome, elsewhere, undo)
    }

    /// The rest of `dah5_darray_write` (or `call`) with `DAH5_DARRAY_SUBFILED`, once the
    /// blocks are checked: every rank its subfile, then (all made) the virtual dataset and
    /// the table. A step that fails on any rank undoes all of them on every rank.
    pub(crate) fn create_subfiled(
        &mut self,
        request: DarrayRequest<'_>,
        mut table: BlockTable,
        write_id: u64,
        call: &'static str,
    ) -> Result<Dataset> {
        let rank = self.shared.comm.rank() as usize;
        let name = request.dataset.name.clone();
        // Where MPI-IO says writes are not visible at once (NFS), HDF5 refuses independent
        // writes, and a node's ranks could fill their subfile only by collective writes,
        // one dataset after another: there each rank has a subfile of its own, which it
        // writes collectively alone (`NodeSubfile::write`), also in `dah5_write_block`.
        let per_node = match self.shared.writes_visible_at_once {
            true => crate::core::environment::test_ranks_per_node()?,
            false => Some(1),
        };
        let (nodes, node) = nodes_of_ranks(&self.shared.comm, per_node)?;
        let mut subfiles = Subfiles::new(&self.shared.path, &name, write_id, nodes);
        let ready = subfiles.prepare_own(rank);
        self.settle_or_undo(call, "the subfiles", ready, |e| e)?;
        let dtype = request.dataset.dtype;
        let made = subfiles.make_own(&node, &self.shared, rank, dtype, &table, request.data);
        self.settle_or_undo(call, "the subfiles", made, |e| {
            subfiles.discard_own(rank);
            e
        })?;
        let storage_dims = self.order().to_storage(&request.dataset.dims);
        let created = subfiles
            .virtual_layout(&storage_dims, &table)
            .and_then(|vds| {
                let dataset = request.dataset;
                self.create_with(dataset.name, dataset.dtype, storage_dims.into(), None, &vds)
            });
        let mut dataset = match created {
            Ok(dataset) => dataset,
            Err(e) => {
                subfiles.discard_own(rank);
                return Err(e);
            }
        };
        // Complete once every subfile is written: now for dah5_darray_write, at the close
        // for dah5_darray_create.
        table.complete = !subfiles.writing();
        let recorded = table
            .write(&self.id, &name, self.order(), RowWriter::of(&self.shared))
            .and_then(|()| subfiles.record(&dataset.id, &table, &self.lists.scalar))
            .and_then(|()| crate::core::fault::check("darray_table", rank as i32));
        self.settle_or_undo(call, "the block table", recorded, |e| {
            subfiles.discard_own(rank);
            self.take_out_darray(dataset.take_id(), &name, e)
        })?;
        dataset.blocks = Some(Box::new(Recorded::held(table)));
        dataset.subfiles = Some(Box::new(subfiles));
        Ok(dataset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::shape::check_block;

    #[test]
    fn partitions_are_balanced_and_cover_the_array() {
        for (dims, nranks) in [
            (vec![10u64, 3], 3u64),
            (vec![2, 7], 3),
            (vec![1, 1], 4),
            (vec![5], 5),
        ] {
            let mut total = 0;
            for rank in 0..nranks {
                let (offset, count) = partition(&dims, rank, nranks);
                check_block(&dims, &offset, &count).unwrap();
                total += element_count(&count).unwrap();
            }
            assert_eq!(Some(total), element_count(&dims), "{dims:?} on {nranks}");
        }
        // The slowest dimension with enough elements is cut.
        assert_eq!(partition(&[10, 3], 1, 3), (vec![3, 0], vec![3, 3]));
        assert_eq!(partition(&[2, 7], 2, 3), (vec![0, 4], vec![2, 3]));
    }
}
