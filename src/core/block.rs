//! Moving one rank's block between its buffer and the dataset.

use crate::core::convert;
use crate::core::dataset::Dataset;
use crate::core::shape::{byte_len, check_block};
use crate::core::space;
use crate::core::split::{self, DEFAULT_MAX_PIECE_BYTES, Piece};
use crate::dtype::{Class, Dtype};
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::mpi::agree::agree;
use crate::mpi::digest::Args;

/// Environment variable that lowers the largest piece of one MPI-IO call (tests use it to
/// exercise splitting with small data).
pub const MAX_PIECE_ENV: &str = "DAH5_MAX_PIECE_BYTES";

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

impl Direction {
    fn operation(self) -> &'static str {
        match self {
            Direction::Write => "dah5_write_block",
            Direction::Read => "dah5_read_block",
        }
    }
}

/// One rank's block: where it is (in the file handle's order), what its memory holds.
pub struct BlockRequest<'a> {
    pub offset: Vec<u64>,
    pub count: Vec<u64>,
    pub mem_dtype: Dtype,
    /// Let HDF5 convert between `mem_dtype` and the dataset's dtype (values that do not
    /// fit are refused, see `core::convert`). Without it, differing dtypes are an error.
    pub convert: bool,
    pub buffer: Buffer<'a>,
}

/// The block in storage order, cut into pieces.
struct Plan<'a> {
    pieces: Vec<Piece>,
    mem_dtype: Dtype,
    buffer: Buffer<'a>,
}

fn max_piece_bytes() -> Result<u64> {
    match std::env::var(MAX_PIECE_ENV) {
        Err(_) => Ok(DEFAULT_MAX_PIECE_BYTES),
        Ok(text) => text
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "{MAX_PIECE_ENV}={text:?} is not a positive number of bytes"
                ))
            }),
    }
}

/// Whether HDF5 can convert between the two dtypes at all (numbers to numbers, complex to
/// complex).
fn convertible(a: Dtype, b: Dtype) -> bool {
    (a.class() == Class::Complex) == (b.class() == Class::Complex)
}

impl Dataset {
    fn plan<'a>(
        &self,
        direction: Direction,
        collective: bool,
        request: BlockRequest<'a>,
    ) -> Result<Plan<'a>> {
        if direction == Direction::Write && self.filtered && !collective {
            return Err(Error::invalid(format!(
                "dataset {:?} is compressed, and parallel HDF5 writes compressed datasets only \
                 collectively: pass DAH5_COLLECTIVE (every rank calls, ranks with nothing pass \
                 a zero count)",
                self.name()
            )));
        }
        if direction == Direction::Write && !self.file.writable {
            return Err(Error::new(
                ErrorKind::ReadOnly,
                format!(
                    "dataset {:?}: the file {:?} was opened read-only (DAH5_RDONLY)",
                    self.name(),
                    self.file.path
                ),
            ));
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
        if let (Buffer::Source(bytes), true) = (&request.buffer, mem != stored) {
            convert::check_values_fit(mem, stored, bytes, self.name())?;
        }
        let order = self.file.order;
        let pieces = split::plan(
            &order.to_storage(&request.offset),
            &order.to_storage(&request.count),
            mem.size(),
            max_piece_bytes()?,
        );
        Ok(Plan {
            pieces,
            mem_dtype: mem,
            buffer: request.buffer,
        })
    }

    /// Write or read one block. Independent unless `collective`; a collective transfer is
    /// called by every rank (with an empty block where a rank has nothing to move).
    pub fn transfer_block(
        &self,
        direction: Direction,
        collective: bool,
        request: Result<BlockRequest<'_>>,
    ) -> Result<()> {
        let op = direction.operation();
        let plan = request.and_then(|r| self.plan(direction, collective, r));
        let calls = if collective {
            let args = plan.as_ref().map(|p| {
                Args::of(op)
                    .text("dataset", self.name())
                    .text("mem_dtype", p.mem_dtype.name())
            });
            let local_calls = plan.as_ref().map_or(0, |p| p.pieces.len() as u64);
            agree(&self.file.comm, op, args, &[local_calls])?[0] as usize
        } else {
            plan.as_ref().map_or(0, |p| p.pieces.len())
        };
        let plan = plan?;
        self.run(plan, collective, calls)
            .map_err(|e| match direction {
                Direction::Write => {
                    let e = space::classify(e, &self.file.path);
                    self.file.record_failure(&e);
                    e
                }
                Direction::Read => e,
            })
    }

    /// Make `calls` HDF5 transfers: one per piece, then (collective only) empty ones until
    /// this rank has taken part in as many as the rank with the most pieces.
    fn run(&self, mut plan: Plan<'_>, collective: bool, calls: usize) -> Result<()> {
        if calls == 0 {
            return Ok(());
        }
        let mem_type = h5::types::native(plan.mem_dtype)?;
        let file_space = h5::dataset::space(&self.id)?;
        let dxpl = h5::plist::transfer(collective)?;
        // Writes were checked value by value (`plan`); a read that converts stops at a
        // stored value that the memory type cannot hold.
        let stored = self.dtype();
        let refusing = matches!(plan.buffer, Buffer::Sink(_)) && plan.mem_dtype != stored;
        if refusing {
            let into_integer = matches!(
                plan.mem_dtype.class(),
                Class::SignedInt | Class::UnsignedInt
            );
            h5::plist::refuse_out_of_range(&dxpl, into_integer)?;
        }
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
                let transfer = h5::dataset::Transfer {
                    dataset: &self.id,
                    mem_type: &mem_type,
                    mem_space: &mem_space,
                    file_space: &selected,
                    dxpl: &dxpl,
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
            Some(_) if refusing && h5::plist::conversion_refused() => Err(Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "dataset {:?} holds a value that does not fit mem_dtype {}: HDF5 would \
                     clamp it, so the read stopped (buf is partly filled)",
                    self.name(),
                    plan.mem_dtype.name()
                ),
            )),
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
