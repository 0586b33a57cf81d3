//! Moving one rank's blocks between its buffer and the dataset: one block
//! (`dah5_write_block`) or many in one call (`dah5_write_blocks`), each call as few HDF5
//! transfers as `core::transfer_plan` allows, each of one selection.

use std::sync::Arc;

use crate::core::collective::{Agreed, Args, Collective};
use crate::core::convert;
use crate::core::dataset::Dataset;
use crate::core::disk_space;
use crate::core::overlap::{find_overlap, spans_disjoint};
use crate::core::raw_data::{self, Place};
use crate::core::recent_plans::{PlanKey, Planned};
use crate::core::runs::{byte_span, for_each_run};
use crate::core::shape::{BlockList, blocks_byte_len, check_block};
use crate::core::split::max_piece_bytes;
use crate::core::subfiles::{SubfiledRead, Subfiles};
use crate::core::transfer_plan::{self, Transfer};
use crate::core::write_behind::Job;
use crate::dtype::{Class, Dtype};
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::lent::Lent;
use crate::mpi::agree::{agree, decode_failure, failure_word};

/// The caller's memory: read from by a write, written to by a read.
pub enum Buffer<'a> {
    Source(&'a [u8]),
    Sink(&'a mut [u8]),
}

impl Buffer<'_> {
    /// Bytes the buffer holds (or has room for).
    pub fn size(&self) -> usize {
        match self {
            Buffer::Source(b) => b.len(),
            Buffer::Sink(b) => b.len(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Write,
    Read,
}

/// One rank's blocks of one call: where they are, what its memory holds.
pub struct BlockRequest<'a> {
    /// Each block's offset and count, in the file handle's order; its elements follow the
    /// previous block's in `buffer`.
    pub blocks: BlockList,
    pub mem_dtype: Dtype,
    /// Let HDF5 convert between `mem_dtype` and the dataset's dtype (values that do not
    /// fit are refused, see `core::convert`). Without it, differing dtypes are an error.
    pub convert: bool,
    /// Every rank takes part (with an empty block where it has nothing to move).
    pub collective: bool,
    pub buffer: Buffer<'a>,
    /// A write's source (the same bytes as `buffer`) lent beyond the call: the write goes
    /// on behind the caller (`DAH5_ASYNC`, `core::write_behind`).
    pub lent: Option<Lent>,
}

impl BlockRequest<'_> {
    fn direction(&self) -> Direction {
        match self.buffer {
            Buffer::Source(_) => Direction::Write,
            Buffer::Sink(_) => Direction::Read,
        }
    }
}

/// A transfer's property list: the dataset's own, or one made for this transfer.
enum List<'a> {
    Shared(&'a h5::id::Id),
    Refusing(h5::id::Id),
}

impl List<'_> {
    fn id(&self) -> &h5::id::Id {
        match self {
            List::Shared(id) => id,
            List::Refusing(id) => id,
        }
    }
}

/// The blocks planned as HDF5 transfers, ready to move.
struct Plan<'a> {
    planned: Arc<Planned>,
    mem_dtype: Dtype,
    buffer: Buffer<'a>,
}

/// `dah5_write_block` (`WRITE`) or `dah5_read_block`, or with `MANY` `dah5_write_blocks`
/// or `dah5_read_blocks`: one rank's blocks, collective or independent. Its check plans
/// the transfers it makes.
pub struct BlockTransfer<'a, const WRITE: bool, const MANY: bool> {
    request: BlockRequest<'a>,
    planned: Option<Arc<Planned>>,
}

pub type WriteBlock<'a> = BlockTransfer<'a, true, false>;
pub type ReadBlock<'a> = BlockTransfer<'a, false, false>;
pub type WriteBlocks<'a> = BlockTransfer<'a, true, true>;
pub type ReadBlocks<'a> = BlockTransfer<'a, false, true>;

impl<'a, const WRITE: bool, const MANY: bool> BlockTransfer<'a, WRITE, MANY> {
    pub fn new(request: BlockRequest<'a>) -> Self {
        BlockTransfer {
            request,
            planned: None,
        }
    }
}

impl<const WRITE: bool, const MANY: bool> Collective for BlockTransfer<'_, WRITE, MANY> {
    const NAME: &'static str = match (WRITE, MANY) {
        (true, false) => "dah5_write_block",
        (false, false) => "dah5_read_block",
        (true, true) => "dah5_write_blocks",
        (false, true) => "dah5_read_blocks",
    };
    const NEEDS_MAX: bool = true;
    type Target = Dataset;
    type Output = ();

    fn check(self, dataset: &Dataset) -> Result<Self> {
        dataset.check_block(&self.request)?;
        let planned = Some(dataset.plan(&self.request, MANY)?);
        Ok(BlockTransfer { planned, ..self })
    }

    fn args<'a>(&'a self, dataset: &'a Dataset) -> Args<'a> {
        dataset
            .args(Self::NAME)
            .text("mem_dtype", self.request.mem_dtype.name())
    }

    fn local_max(&self, _dataset: &Dataset) -> u64 {
        self.planned
            .as_ref()
            .map_or(0, |p| p.transfers.len() as u64)
    }

    fn act(self, dataset: &mut Dataset, agreed: Agreed) -> Result<()> {
        // (`check` planned it: `act` runs only after it succeeded.)
        let planned = self
            .planned
            .unwrap_or_else(|| Arc::new(Planned::new(Vec::new())));
        dataset.transfer(self.request, planned, agreed.max as usize)
    }
}

/// Whether HDF5 can convert between the two dtypes at all (numbers to numbers, complex to
/// complex).
fn convertible(a: Dtype, b: Dtype) -> bool {
    (a.class() == Class::Complex) == (b.class() == Class::Complex)
}

impl Dataset {
    /// What one rank can check of its block alone.
    fn check_block(&self, request: &BlockRequest<'_>) -> Result<()> {
        let direction = request.direction();
        if direction == Direction::Write && self.filtered && !request.collective {
            return Err(Error::invalid(format!(
                "dataset {:?} is compressed, and parallel HDF5 writes compressed datasets only \
                 collectively: pass DAH5_COLLECTIVE (every rank calls, ranks with nothing pass \
                 a zero count)",
                self.name()
            )));
        }
        if direction == Direction::Write {
            self.file.check_writable()?;
            if !request.collective && self.subfiles.is_none() && !self.file.writes_visible_at_once {
                return Err(self.no_independent_writes());
            }
        }
        let (mem, stored) = (request.mem_dtype, self.dtype());
        if mem != stored && !request.convert {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "mem_dtype {} differs from the dtype {} of dataset {:?}; pass DAH5_CONVERT \
                     to let HDF5 convert (values that do not fit are refused)",
                    mem.name(),
                    stored.name(),
                    self.name()
                ),
            ));
        }
        if !convertible(mem, stored) {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "mem_dtype {} cannot be converted to the dtype {} of dataset {:?}",
                    mem.name(),
                    stored.name(),
                    self.name()
                ),
            ));
        }
        let expected = blocks_byte_len(&request.blocks, mem.size(), "count")?;
        let actual = request.buffer.size();
        if actual != expected {
            let what = match request.blocks.len() {
                1 => "the block needs",
                _ => "the blocks need",
            };
            return Err(Error::invalid(format!(
                "buf holds {actual} bytes but {what} {expected}"
            )));
        }
        match (&request.buffer, mem != stored) {
            _ if request.lent.is_some() => self.check_behind(request),
            (Buffer::Source(bytes), true) => {
                convert::check_values_fit(mem, stored, bytes, self.name())
            }
            (Buffer::Source(_), false) => Ok(()),
            (Buffer::Sink(_), _) => self.file.check_unchanged(),
        }
    }

    /// What a write behind (`DAH5_ASYNC`) needs beyond a write's checks: this rank alone,
    /// the caller's bytes as they are, and a dataset whose elements sit at one place in the
    /// file (`core::raw_data`), as a subfiled darray's do not.
    fn check_behind(&self, request: &BlockRequest<'_>) -> Result<()> {
        let refuse = |why: &str| {
            Err(Error::invalid(format!(
                "DAH5_ASYNC: dataset {:?} {why}; write it without DAH5_ASYNC",
                self.name()
            )))
        };
        if request.collective {
            return refuse(
                "is written collectively (DAH5_COLLECTIVE): a write behind is this rank's alone",
            );
        }
        if request.mem_dtype != self.dtype() {
            return refuse(&format!(
                "holds {}, and a write behind moves the caller's bytes as they are, without \
                 conversion (mem_dtype is {})",
                self.dtype().name(),
                request.mem_dtype.name()
            ));
        }
        if self.subfiles.is_some() {
            return refuse("is a subfiled darray");
        }
        match raw_data::place(&self.id)? {
            Place::At { .. } => Ok(()),
            Place::Unfit(why) => refuse(why),
        }
    }

    /// Every block inside the dataset, no two overlapping (a selection holds each element
    /// once). A block of many is named by its index.
    fn check_bounds(&self, blocks: &BlockList) -> Result<()> {
        let dims = self.dims();
        let show = |i: usize| {
            let (offset, count) = blocks.get(i);
            format!("block {i} (offset {offset:?} count {count:?})")
        };
        // An empty block is legal anywhere (as in a darray's table): nothing to check.
        let nonempty = |(_, (_, count)): &(usize, (&[u64], &[u64]))| !count.contains(&0);
        for (i, (offset, count)) in blocks.iter().enumerate().filter(nonempty) {
            check_block(&dims, offset, count).map_err(|e| {
                let e = e.context(format_args!("dataset {:?} dims {dims:?}", self.name()));
                match blocks.len() {
                    1 => e,
                    _ => e.context(show(i)),
                }
            })?;
        }
        if self.subfiles.is_some() && blocks.len() > 1 {
            return Err(Error::invalid(format!(
                "dataset {:?} is a subfiled darray: each rank moves at most one block a call \
                 (dah5_write_block, dah5_read_block), not {}",
                self.name(),
                blocks.len()
            )));
        }
        if blocks.len() < 2 {
            return Ok(());
        }
        let nonempty: Vec<usize> = (0..blocks.len())
            .filter(|&i| !blocks.get(i).1.contains(&0))
            .collect();
        let nonempty_blocks = nonempty.iter().map(|&i| blocks.get(i));
        if spans_disjoint(&dims, nonempty_blocks) {
            return Ok(());
        }
        let (offsets, counts): (Vec<Vec<u64>>, Vec<Vec<u64>>) = (blocks.iter())
            .map(|(o, c)| (o.to_vec(), c.to_vec()))
            .unzip();
        match find_overlap(&offsets, &counts, &nonempty) {
            Some((a, b)) => Err(Error::invalid(format!(
                "dataset {:?}: {} and {} overlap: each element can be moved once a call",
                self.name(),
                show(a),
                show(b)
            ))),
            None => Ok(()),
        }
    }

    /// Why an independent write is refused where MPI-IO does not make writes visible at
    /// once: HDF5 1.14 and 2.x would refuse it with a message of its internals, HDF5 1.10
    /// would let other ranks read stale data.
    fn no_independent_writes(&self) -> Error {
        Error::new(
            ErrorKind::Unsupported,
            format!(
                "dataset {:?}: the file system of {:?} does not make one rank's writes \
                 visible to the others at once (MPI-IO says romio_visibility_immediate=false, \
                 as on NFS, or HDF5_DO_MPI_FILE_SYNC=1 says so), so parallel HDF5 writes data there only collectively: pass \
                 DAH5_COLLECTIVE (every rank calls, ranks with nothing pass a zero count), \
                 or write the whole array with dah5_darray_write. Nothing was written",
                self.name(),
                self.file.path
            ),
        )
    }

    /// The blocks checked against the dims and planned as transfers
    /// (`core::transfer_plan`); a call of `many` blocks takes the plan of a recent call of
    /// the same blocks on the same dims (`core::recent_plans`), and leaves its own.
    fn plan(&self, request: &BlockRequest<'_>, many: bool) -> Result<Arc<Planned>> {
        let size = request.mem_dtype.size();
        let kept = many && self.subfiles.is_none();
        let recent = &self.file.recent_plans;
        let dims = &self.storage_dims;
        if let Some(planned) = kept
            .then(|| recent.find(dims, size, &request.blocks))
            .flatten()
        {
            return Ok(planned);
        }
        self.check_bounds(&request.blocks)?;
        let order = self.file.order;
        let blocks: Vec<_> = (request.blocks.iter())
            .map(|(offset, count)| (order.to_storage(offset), order.to_storage(count)))
            .collect();
        let transfers = transfer_plan::plan(&self.storage_dims, &blocks, size, max_piece_bytes()?)?;
        let planned = Arc::new(Planned::new(transfers));
        if kept {
            let key = PlanKey {
                dims: dims.to_vec(),
                elem_size: size,
                blocks: request.blocks.clone(),
            };
            recent.keep(key, Arc::clone(&planned));
        }
        Ok(planned)
    }

    /// Move the blocks ([`Dataset::transfer_once`]); a collective read that converts is
    /// then settled, so that a value one rank's memory type cannot hold fails every rank.
    fn transfer(
        &self,
        request: BlockRequest<'_>,
        planned: Arc<Planned>,
        calls: usize,
    ) -> Result<()> {
        let mem_dtype = request.mem_dtype;
        let settled = request.collective
            && request.direction() == Direction::Read
            && mem_dtype != self.dtype();
        let outcome = self.transfer_once(request, planned, calls);
        if settled {
            self.settle_read(outcome, mem_dtype)
        } else {
            outcome
        }
    }

    /// Write or read the blocks in `calls` HDF5 transfers: the planned ones, then
    /// (collective only) empty ones until this rank has taken part in as many as the rank
    /// with the most. A failed write is remembered by the file.
    fn transfer_once(
        &self,
        request: BlockRequest<'_>,
        planned: Arc<Planned>,
        calls: usize,
    ) -> Result<()> {
        let direction = request.direction();
        if let Some(subfiles) = &self.subfiles {
            return self.transfer_subfiled(subfiles, request);
        }
        // A write behind the caller, unless the file is in atomic mode: there a write must
        // be seen by other ranks once its call returns, which only a write made now can.
        if let Some(lent) = request.lent
            && !self.file.atomic()
        {
            return self.write_behind(&request.blocks, lent);
        }
        self.wait_for_writes_behind(&request.blocks)?;
        let plan = Plan {
            planned,
            mem_dtype: request.mem_dtype,
            buffer: request.buffer,
        };
        self.run(plan, request.collective, calls)
            .map_err(|e| match direction {
                Direction::Write => {
                    let e = disk_space::classify(e, &self.file.path);
                    self.file.record_failure(&e);
                    e
                }
                Direction::Read => e,
            })
    }

    /// The transfer property list of independent or collective transfers, the file's
    /// (`FileShared::transfer_lists`).
    fn transfer_list(&self, collective: bool) -> Result<&h5::id::Id> {
        let list = &self.file.transfer_lists[collective as usize];
        if let Some(dxpl) = list.get() {
            return Ok(dxpl);
        }
        let dxpl = h5::plist::transfer(collective)?;
        Ok(list.get_or_init(|| dxpl))
    }

    /// The transfer list of a transfer: the dataset's own, or for a read that converts, a
    /// new one that stops at a stored value the memory type cannot hold.
    fn list_for(&self, reading: bool, mem_dtype: Dtype, collective: bool) -> Result<List<'_>> {
        if !reading || mem_dtype == self.dtype() {
            return self.transfer_list(collective).map(List::Shared);
        }
        let refusing = h5::plist::transfer(collective)?;
        let (from, to) = (self.dtype().component(), mem_dtype.component());
        h5::plist::refuse_out_of_range(&refusing, from, to)?;
        Ok(List::Refusing(refusing))
    }

    /// A failed transfer's error: a refused conversion says so.
    fn refused_or(&self, e: Error, list: &List<'_>, mem_dtype: Dtype) -> Error {
        let refused = h5::plist::conversion_refused();
        match (list, refused) {
            (List::Refusing(_), Some(value)) => Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "dataset {:?} holds {value}, which mem_dtype {} cannot hold (HDF5 would \
                     put another value in its place), so the read stopped and buf is partly \
                     filled; read it as {}, the dataset's dtype",
                    self.name(),
                    mem_dtype.name(),
                    self.dtype().name()
                ),
            ),
            _ => e,
        }
    }

    /// After a collective read that converts, whose values can fail on some ranks only:
    /// every rank learns the outcome of the lowest failing rank, and returns its status.
    fn settle_read(&self, outcome: Result<()>, mem_dtype: Dtype) -> Result<()> {
        let comm = &self.file.comm;
        let word = outcome
            .as_ref()
            .map_or_else(|e| failure_word(comm, e.kind), |()| 0);
        let args = self.args(ReadBlock::NAME).text("step", "converted");
        let failed = agree(comm, ReadBlock::NAME, Ok(args), word)?;
        if failed == 0 || outcome.is_err() {
            return outcome;
        }
        let (rank, kind) = decode_failure(comm, failed);
        let what = if kind == ErrorKind::TypeMismatch {
            format!(
                "holds a value that mem_dtype {} cannot hold",
                mem_dtype.name()
            )
        } else {
            "could not be read".to_string()
        };
        Err(Error::new(
            kind,
            format!(
                "the block of rank {rank} of dataset {:?} {what} (its message says which), so \
                 this collective read fails on every rank; this rank's block was read whole",
                self.name()
            ),
        ))
    }

    /// Start a write behind the caller of `blocks` from `buffer` (`core::write_behind`):
    /// the runs of each block at the file offsets of the dataset's data.
    fn write_behind(&self, blocks: &BlockList, buffer: Lent) -> Result<()> {
        // (`check_behind` found the dataset has its place.)
        let Some(base) = h5::dataset::data_offset(&self.id)? else {
            return Err(Error::new(ErrorKind::Panic, "checked as writable behind"));
        };
        let (order, elem) = (self.file.order, self.dtype().size() as u64);
        let mut runs = Vec::new();
        for (offset, count) in blocks.iter() {
            let (offset, count) = (order.to_storage(offset), order.to_storage(count));
            for_each_run(&self.storage_dims, &offset, &count, elem, |at, len| {
                runs.push((base + at, len));
                Ok(())
            })?;
        }
        let job = Job::new(self.name(), buffer, runs);
        self.file.behind.start(&self.file.path, job)
    }

    /// Before a transfer of `blocks` through HDF5: wait for this rank's writes behind that
    /// meet the span from the blocks' first byte to their last, which the transfer must
    /// see (a read) or land after (a write). The whole span, not each block's: MPI-IO's
    /// data sieving reads and writes back the bytes between the blocks too.
    fn wait_for_writes_behind(&self, blocks: &BlockList) -> Result<()> {
        let behind = &self.file.behind;
        if !behind.busy() {
            return Ok(());
        }
        // Writes behind go only to contiguous datasets, which have this offset.
        let Some(base) = h5::dataset::data_offset(&self.id)? else {
            return Ok(());
        };
        let (order, elem) = (self.file.order, self.dtype().size() as u64);
        let spans = blocks.iter().filter_map(|(offset, count)| {
            let (offset, count) = (order.to_storage(offset), order.to_storage(count));
            byte_span(&self.storage_dims, &offset, &count, elem)
        });
        let hull = spans.reduce(|a, b| a.start.min(b.start)..a.end.max(b.end));
        if let Some(hull) = hull {
            behind.wait_for(&(base + hull.start..base + hull.end));
        }
        Ok(())
    }

    /// A subfiled darray's transfer: to this rank's subfile, or from the subfiles the
    /// block touches (`core::subfiles`).
    fn transfer_subfiled(&self, subfiles: &Subfiles, request: BlockRequest<'_>) -> Result<()> {
        let order = self.file.order;
        // At most one block: `check_bounds` refuses more.
        if request.blocks.is_empty() {
            return Ok(());
        }
        let (offset, count) = request.blocks.get(0);
        let (offset, count) = (order.to_storage(offset), order.to_storage(count));
        let mem_dtype = request.mem_dtype;
        match request.buffer {
            Buffer::Source(data) => {
                subfiles.write_own(&self.file, self.name(), &offset, &count, mem_dtype, data)
            }
            Buffer::Sink(buf) => {
                let recorded = self.blocks.as_ref().filter(|r| r.complete);
                let Some(recorded) = recorded else {
                    return Err(Error::invalid(format!(
                        "subfiled darray {:?} is not complete (dah5_complete = 0): it is still \
                         being written (close it first), or a writer failed; its subfiles are \
                         not read",
                        self.name()
                    )));
                };
                let table = recorded.table(&self.id, &self.storage_dims)?;
                let mem_type = h5::types::native(mem_dtype)?;
                let list = self.list_for(true, mem_dtype, false)?;
                let read = SubfiledRead {
                    offset: &offset,
                    count: &count,
                    mem_type: &mem_type,
                    dxpl: list.id(),
                    file_locking: self.file.file_locking,
                };
                subfiles
                    .read_blocks(table, self.name(), read, buf)
                    .map_err(|e| self.refused_or(e, &list, mem_dtype))
            }
        }
    }

    fn run(&self, plan: Plan<'_>, collective: bool, calls: usize) -> Result<()> {
        if calls == 0 {
            return Ok(());
        }
        let Plan {
            planned,
            mem_dtype,
            mut buffer,
        } = plan;
        let mem_type = h5::types::native(mem_dtype)?;
        let file_space = h5::dataset::space(&self.id)?;
        // Writes were checked value by value (`check_block`); a read that converts stops at
        // a stored value that the memory type cannot hold, with a list of its own.
        let reading = matches!(buffer, Buffer::Sink(_));
        let list = self.list_for(reading, mem_dtype, collective)?;
        let types = MemTypes {
            mem_type: &mem_type,
            dxpl: list.id(),
        };
        let mut first_error = None;
        for call in 0..calls {
            // After a failure a collective transfer still takes part (with nothing), so the
            // other ranks are not left waiting.
            let result = if call < planned.transfers.len() && first_error.is_none() {
                let selected = planned.selection(call, &file_space);
                let transfer = &planned.transfers[call];
                selected.and_then(|selected| {
                    let sizes = (mem_dtype.size(), &types);
                    self.move_one(transfer, selected, sizes, &mut buffer)
                })
            } else {
                self.move_nothing(&file_space, &mut buffer, &types)
            };
            if let Err(e) = result {
                first_error.get_or_insert(e);
                if !collective {
                    break;
                }
            }
        }
        match first_error {
            Some(e) => Err(self.refused_or(e, &list, mem_dtype)),
            None => Ok(()),
        }
    }

    /// One planned transfer: its blocks selected at once (`selected`), its bytes straight
    /// from (or to) the caller's buffer, or through a copy in file order
    /// (`core::transfer_plan`).
    fn move_one(
        &self,
        transfer: &Transfer,
        selected: &h5::id::Id,
        (elem_size, types): (usize, &MemTypes<'_>),
        buffer: &mut Buffer<'_>,
    ) -> Result<()> {
        let mem_space = match &transfer.pieces[..] {
            [one] => h5::space::simple(&one.count)?,
            _ => h5::space::simple(&[(transfer.bytes / elem_size) as u64])?,
        };
        let ids = types.ids(&self.id, &mem_space, selected);
        let start = transfer.pieces[0].byte_offset;
        let range = start..start + transfer.bytes;
        match buffer {
            Buffer::Source(b) if transfer.in_place => h5::dataset::write(&ids, &b[range]),
            Buffer::Source(b) => {
                let staged = transfer_plan::gather(transfer, b);
                h5::dataset::write(&ids, &staged)
            }
            Buffer::Sink(b) if transfer.in_place => h5::dataset::read(&ids, &mut b[range]),
            Buffer::Sink(b) => {
                let mut staged = vec![0u8; transfer.bytes];
                h5::dataset::read(&ids, &mut staged)?;
                transfer_plan::scatter(transfer, &staged, b);
                Ok(())
            }
        }
    }

    /// A collective transfer's share of a rank with nothing (left) to move.
    fn move_nothing(
        &self,
        file_space: &h5::id::Id,
        buffer: &mut Buffer<'_>,
        types: &MemTypes<'_>,
    ) -> Result<()> {
        let (file_none, mem_none) = (
            h5::space::select_none(file_space)?,
            h5::space::select_none(file_space)?,
        );
        let ids = types.ids(&self.id, &mem_none, &file_none);
        match buffer {
            Buffer::Source(b) => h5::dataset::write(&ids, &b[..0]),
            Buffer::Sink(b) => h5::dataset::read(&ids, &mut b[..0]),
        }
    }
}

/// What every transfer of one call shares: the memory type and the transfer list.
struct MemTypes<'a> {
    mem_type: &'a h5::id::Id,
    dxpl: &'a h5::id::Id,
}

impl<'a> MemTypes<'a> {
    fn ids(
        &self,
        dataset: &'a h5::id::Id,
        mem_space: &'a h5::id::Id,
        file_space: &'a h5::id::Id,
    ) -> h5::dataset::TransferIds<'a> {
        h5::dataset::TransferIds {
            dataset,
            mem_type: self.mem_type,
            mem_space,
            file_space,
            dxpl: self.dxpl,
        }
    }
}
