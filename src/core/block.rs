//! Moving one rank's block between its buffer and the dataset.

use crate::core::collective::{Agreed, Args, Collective};
use crate::core::convert;
use crate::core::dataset::Dataset;
use crate::core::disk_space;
use crate::core::shape::{byte_len, check_block};
use crate::core::split::{self, Piece, max_piece_bytes};
use crate::core::subfiles::{SubfiledRead, Subfiles};
use crate::dtype::{Class, Dtype};
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
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

/// One rank's block: where it is (in the file handle's order), what its memory holds.
pub struct BlockRequest<'a> {
    pub offset: Vec<u64>,
    pub count: Vec<u64>,
    pub mem_dtype: Dtype,
    /// Let HDF5 convert between `mem_dtype` and the dataset's dtype (values that do not
    /// fit are refused, see `core::convert`). Without it, differing dtypes are an error.
    pub convert: bool,
    /// Every rank takes part (with an empty block where it has nothing to move).
    pub collective: bool,
    pub buffer: Buffer<'a>,
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

/// A block cut into pieces, ready to move.
struct Plan<'a> {
    pieces: Vec<Piece>,
    mem_dtype: Dtype,
    buffer: Buffer<'a>,
}

/// `dah5_write_block` (`WRITE`) or `dah5_read_block`: one rank's block, collective or
/// independent. Its check cuts it into the pieces it moves.
pub struct BlockTransfer<'a, const WRITE: bool> {
    request: BlockRequest<'a>,
    pieces: Vec<Piece>,
}

pub type WriteBlock<'a> = BlockTransfer<'a, true>;
pub type ReadBlock<'a> = BlockTransfer<'a, false>;

impl<'a, const WRITE: bool> BlockTransfer<'a, WRITE> {
    pub fn new(request: BlockRequest<'a>) -> Self {
        BlockTransfer {
            request,
            pieces: Vec::new(),
        }
    }
}

impl<const WRITE: bool> Collective for BlockTransfer<'_, WRITE> {
    const NAME: &'static str = if WRITE {
        "dah5_write_block"
    } else {
        "dah5_read_block"
    };
    const NEEDS_MAX: bool = true;
    type Target = Dataset;
    type Output = ();

    fn check(self, dataset: &Dataset) -> Result<Self> {
        dataset.check_block(&self.request)?;
        let pieces = dataset.pieces(&self.request)?;
        Ok(BlockTransfer { pieces, ..self })
    }

    fn args<'a>(&'a self, dataset: &'a Dataset) -> Args<'a> {
        dataset
            .args(Self::NAME)
            .text("mem_dtype", self.request.mem_dtype.name())
    }

    fn local_max(&self, _dataset: &Dataset) -> u64 {
        self.pieces.len() as u64
    }

    fn act(self, dataset: &mut Dataset, agreed: Agreed) -> Result<()> {
        dataset.transfer(self.request, self.pieces, agreed.max as usize)
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
        let dims = self.dims();
        check_block(&dims, &request.offset, &request.count)
            .map_err(|e| e.context(format_args!("dataset {:?} dims {dims:?}", self.name())))?;
        let expected = byte_len(&request.count, mem.size(), "count")?;
        let actual = request.buffer.size();
        if actual != expected {
            return Err(Error::invalid(format!(
                "buf holds {actual} bytes but the block needs {expected}"
            )));
        }
        match (&request.buffer, mem != stored) {
            (Buffer::Source(bytes), true) => {
                convert::check_values_fit(mem, stored, bytes, self.name())
            }
            (Buffer::Source(_), false) => Ok(()),
            (Buffer::Sink(_), _) => self.file.check_unchanged(),
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

    /// The block in storage order, cut into the pieces of one MPI-IO call each.
    fn pieces(&self, request: &BlockRequest<'_>) -> Result<Vec<Piece>> {
        let order = self.file.order;
        Ok(split::plan(
            &order.to_storage(&request.offset),
            &order.to_storage(&request.count),
            request.mem_dtype.size(),
            max_piece_bytes()?,
        ))
    }

    /// Move the block ([`Dataset::transfer_once`]); a collective read that converts is
    /// then settled, so that a value one rank's memory type cannot hold fails every rank.
    fn transfer(&self, request: BlockRequest<'_>, pieces: Vec<Piece>, calls: usize) -> Result<()> {
        let mem_dtype = request.mem_dtype;
        let settled = request.collective
            && request.direction() == Direction::Read
            && mem_dtype != self.dtype();
        let outcome = self.transfer_once(request, pieces, calls);
        if settled {
            self.settle_read(outcome, mem_dtype)
        } else {
            outcome
        }
    }

    /// Write or read the block in `calls` HDF5 transfers: one per piece, then (collective
    /// only) empty ones until this rank has taken part in as many as the rank with the
    /// most pieces. A failed write is remembered by the file.
    fn transfer_once(
        &self,
        request: BlockRequest<'_>,
        pieces: Vec<Piece>,
        calls: usize,
    ) -> Result<()> {
        let direction = request.direction();
        if let Some(subfiles) = &self.subfiles {
            return self.transfer_subfiled(subfiles, request);
        }
        let plan = Plan {
            pieces,
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

    /// A subfiled darray's transfer: to this rank's subfile, or from the subfiles the
    /// block touches (`core::subfiles`).
    fn transfer_subfiled(&self, subfiles: &Subfiles, request: BlockRequest<'_>) -> Result<()> {
        let order = self.file.order;
        let (offset, count) = (
            order.to_storage(&request.offset),
            order.to_storage(&request.count),
        );
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

    fn run(&self, mut plan: Plan<'_>, collective: bool, calls: usize) -> Result<()> {
        if calls == 0 {
            return Ok(());
        }
        let mem_type = h5::types::native(plan.mem_dtype)?;
        let file_space = h5::dataset::space(&self.id)?;
        // Writes were checked value by value (`check_block`); a read that converts stops at
        // a stored value that the memory type cannot hold, with a list of its own.
        let reading = matches!(plan.buffer, Buffer::Sink(_));
        let list = self.list_for(reading, plan.mem_dtype, collective)?;
        let dxpl = list.id();
        let mut first_error = None;
        for call in 0..calls {
            let piece = plan.pieces.get(call);
            // After a failure a collective transfer still takes part (with nothing), so the
            // other ranks are not left waiting.
            let piece = if first_error.is_some() { None } else { piece };
            let result = (|| {
                let (selected, mem_space, range) = match piece {
                    Some(p) => {
                        let len = byte_len(&p.count, plan.mem_dtype.size(), "piece")?;
                        (
                            h5::space::select_block(&file_space, &p.offset, &p.count)?,
                            h5::space::simple(&p.count)?,
                            p.byte_offset..p.byte_offset + len,
                        )
                    }
                    None => (
                        h5::space::select_none(&file_space)?,
                        h5::space::select_none(&file_space)?,
                        0..0,
                    ),
                };
                let transfer = h5::dataset::TransferIds {
                    dataset: &self.id,
                    mem_type: &mem_type,
                    mem_space: &mem_space,
                    file_space: &selected,
                    dxpl,
                };
                match &mut plan.buffer {
                    Buffer::Source(b) => h5::dataset::write(&transfer, &b[range]),
                    Buffer::Sink(b) => h5::dataset::read(&transfer, &mut b[range]),
                }
            })();
            if let Err(e) = result {
                first_error.get_or_insert(e);
                if !collective {
                    break;
                }
            }
        }
        match first_error {
            Some(e) => Err(self.refused_or(e, &list, plan.mem_dtype)),
            None => Ok(()),
        }
    }
}
