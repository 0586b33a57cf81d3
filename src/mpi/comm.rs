//! The library's own communicator for a file: a dup of the caller's, returning errors.

use mpi_sys::{
    MPI_Allgather, MPI_Allreduce, MPI_Barrier, MPI_Bcast, MPI_Comm, MPI_Comm_dup, MPI_Comm_free,
    MPI_Comm_get_errhandler, MPI_Comm_rank, MPI_Comm_set_errhandler, MPI_Comm_size, MPI_Errhandler,
    MPI_Errhandler_free, MPI_Gatherv, RSMPI_COMM_NULL, RSMPI_COMM_SELF, RSMPI_COMM_WORLD,
    RSMPI_Comm_f2c, RSMPI_ERRORS_RETURN, RSMPI_MAX, RSMPI_UINT8_T, RSMPI_UINT64_T,
};

use crate::error::{Error, Result};
use crate::mpi::board::{self, Board, SHARED_MEMORY_ENV};
use crate::mpi::lifecycle::is_active;
use crate::mpi::status::check;

/// A duplicate of the caller's communicator. dah5's own messages (the agreement reductions)
/// travel on it, so they can never match the caller's messages, and its error handler
/// returns errors instead of aborting the job.
#[derive(Debug)]
pub struct Comm {
    raw: MPI_Comm,
    rank: i32,
    size: i32,
    /// A collective call on it timed out: a request is still pending on it, so no other
    /// collective call may use it.
    broken: std::sync::atomic::AtomicBool,
    /// How long its collective calls wait for every rank (`DAH5_COLLECTIVE_TIMEOUT`, read
    /// when the file is opened); `None`: for ever.
    timeout: Option<std::time::Duration>,
    /// When it was made ([`crate::os::coarse_clock`]), and when (µs after that) a
    /// collective call last looked for other ranks' roll-call notes (see
    /// [`Comm::time_to_look`]).
    made: std::time::Duration,
    last_look_micros: std::sync::atomic::AtomicU64,
    /// How many agreements were made on it (their messages' tags, their board slots).
    agreements: std::sync::atomic::AtomicU64,
    /// The agreements' shared-memory board, when all ranks are on one node (attached
    /// after the file's open).
    board: std::sync::OnceLock<Board>,
    /// [`Comm::attach_board`] ran (it runs once, at the first agreed call).
    board_asked: std::sync::atomic::AtomicBool,
    /// Held for a collective call from the C API: the calls of one communicator are made
    /// one at a time (threads that share a file take turns; their agreements would
    /// otherwise interleave).
    calls: std::sync::Mutex<()>,
}

// SAFETY: an MPI_Comm is a handle, which MPI allows threads to share (concurrent calls need
// MPI_THREAD_MULTIPLE, see docs/c-api.md#threads); dah5 makes one collective call on it at
// a time (`calls`).
unsafe impl Send for Comm {}
// SAFETY: as above; shared references only read the handle value.
unsafe impl Sync for Comm {}

impl Comm {
    /// Dup the communicator whose Fortran handle is `handle` (collective over it).
    pub fn from_fortran(handle: i32) -> Result<Comm> {
        let invalid = || {
            Error::invalid(format!(
                "comm = {handle} is not a valid communicator (Fortran handle); pass \
                 MPI_Comm_c2f(comm) from C, the integer from Fortran"
            ))
        };
        // SAFETY: MPI is active (checked by the caller). f2c is a lookup in Open MPI (an
        // unknown handle gives MPI_COMM_NULL or NULL) and a cast in MPICH (no check at all).
        let user = unsafe { RSMPI_Comm_f2c(handle) };
        // SAFETY: reading an MPI predefined handle.
        if user == unsafe { RSMPI_COMM_NULL } || all_zero_bytes(&user) {
            return Err(invalid());
        }
        // A local call on the handle validates it: MPI reports an invalid communicator
        // argument on the handler of MPI_COMM_WORLD or MPI_COMM_SELF (MPI-3, MPI-4), which
        // would end the job by default, so both return errors for the duration.
        let mut size = 0;
        // SAFETY: `size` is a live out-parameter; a bad `user` is reported, not used.
        let code = errors_returned(|| unsafe { MPI_Comm_size(user, &mut size) })?;
        if code != 0 || size < 1 {
            return Err(invalid());
        }
        // SAFETY: RSMPI_COMM_NULL is a valid placeholder, overwritten by MPI_Comm_dup.
        let mut raw = unsafe { RSMPI_COMM_NULL };
        // SAFETY: `user` is a valid communicator; `raw` receives the duplicate.
        check("MPI_Comm_dup", unsafe { MPI_Comm_dup(user, &mut raw) })?;
        let mut comm = Comm {
            raw,
            rank: 0,
            size: 0,
            broken: std::sync::atomic::AtomicBool::new(false),
            timeout: crate::mpi::timeout::timeout_from_env(),
            made: crate::os::coarse_clock(),
            last_look_micros: std::sync::atomic::AtomicU64::new(0),
            agreements: std::sync::atomic::AtomicU64::new(0),
            board: std::sync::OnceLock::new(),
            board_asked: std::sync::atomic::AtomicBool::new(false),
            calls: std::sync::Mutex::new(()),
        };
        // SAFETY: `comm.raw` is our valid communicator; the predefined handler is static.
        check("MPI_Comm_set_errhandler", unsafe {
            MPI_Comm_set_errhandler(comm.raw, RSMPI_ERRORS_RETURN)
        })?;
        // SAFETY: `comm.raw` is valid; the out-pointer is a field of a live struct.
        check("MPI_Comm_rank", unsafe {
            MPI_Comm_rank(comm.raw, &mut comm.rank)
        })?;
        // SAFETY: as above.
        check("MPI_Comm_size", unsafe {
            MPI_Comm_size(comm.raw, &mut comm.size)
        })?;
        Ok(comm)
    }

    /// Its turn for one collective call (see the field `calls`).
    pub fn one_call_at_a_time(&self) -> std::sync::MutexGuard<'_, ()> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn raw(&self) -> MPI_Comm {
        self.raw
    }

    pub fn rank(&self) -> i32 {
        self.rank
    }

    pub fn size(&self) -> i32 {
        self.size
    }

    /// How long a collective call waits for every rank; `None`: for ever.
    pub fn timeout(&self) -> Option<std::time::Duration> {
        self.timeout
    }

    /// The number of the next agreement (0, 1, ...).
    pub fn next_agreement(&self) -> u64 {
        self.agreements
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Collective, after the first agreement (all ranks are here; later calls return at
    /// once): from then on the agreements go through a shared-memory board (see `board`)
    /// when every rank is on one node and every rank could map it, else through MPI
    /// messages on every rank.
    #[inline]
    pub fn attach_board(&self) -> Result<()> {
        use std::sync::atomic::Ordering::Relaxed;
        // The calls of a communicator are made one at a time (`one_call_at_a_time`).
        if self.board_asked.load(Relaxed) {
            return Ok(());
        }
        self.board_asked.store(true, Relaxed);
        self.attach_board_now()
    }

    fn attach_board_now(&self) -> Result<()> {
        if self.size() < 2 {
            return Ok(());
        }
        // Off on any rank is off on all: the ranks must exchange the same way.
        let off = crate::os::switched_off(SHARED_MEMORY_ENV);
        if self.max(off as u64)? != 0 || !self.on_one_node()? {
            return Ok(());
        }
        let ranks = self.size() as usize;
        let crowded = ranks > crate::os::online_cpus();
        // Rank 0 names and makes the segment; the others map it by that name.
        let name = board::segment_name(&self.allgather(&board::segment_id())?);
        let first = self.rank() == 0;
        let made = if first {
            Board::create(&name, ranks, crowded)
        } else {
            None
        };
        let rank_0_made = self.max((first && made.is_none()) as u64)? == 0;
        let board = match made {
            Some(b) => Some(b),
            None if rank_0_made && !first => Board::join(&name, ranks, crowded),
            None => None,
        };
        let everywhere = self.max(board.is_none() as u64)? == 0;
        if first && rank_0_made {
            // Every rank that could map it has: the name is no longer needed.
            board::unlink(&name);
        }
        if let Some(board) = board.filter(|_| everywhere) {
            let _ = self.board.set(board);
        }
        Ok(())
    }

    /// Whether every rank is on this node (collective).
    fn on_one_node(&self) -> Result<bool> {
        let node = self.split_shared()?;
        // The same answer on every rank: the node's ranks are all of them, or not for anyone.
        Ok(node.size == self.size())
    }

    /// The ranks of this communicator that share this node's memory
    /// (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`), in rank order (collective).
    fn split_shared(&self) -> Result<Node> {
        use mpi_sys::MPI_Comm_split_type;
        // SAFETY: a placeholder MPI overwrites.
        let mut raw = unsafe { RSMPI_COMM_NULL };
        // SAFETY: the communicator is valid; `raw` receives the ranks of this node, ordered
        // by their rank here (the key).
        check("MPI_Comm_split_type", unsafe {
            MPI_Comm_split_type(
                self.raw(),
                mpi_sys::RSMPI_COMM_TYPE_SHARED,
                self.rank,
                mpi_sys::RSMPI_INFO_NULL,
                &mut raw,
            )
        })?;
        Node::of(raw)
    }

    /// This rank's node: the ranks of this communicator on it, in rank order, cut into
    /// groups of `ranks_per_node` where given (tests make many nodes of one that way),
    /// and the lowest rank of the node in this communicator (collective).
    pub fn node(&self, ranks_per_node: Option<u32>) -> Result<(Node, u64)> {
        use mpi_sys::{MPI_Comm_split, RSMPI_MIN};
        let mut node = self.split_shared()?;
        if let Some(per_node) = ranks_per_node {
            let mut raw = node.raw;
            // SAFETY: `node` is valid; `raw` receives the ranks of this rank's group (its
            // color), ordered by their rank on the node (the key).
            check("MPI_Comm_split", unsafe {
                MPI_Comm_split(node.raw, node.rank / per_node as i32, node.rank, &mut raw)
            })?;
            node = Node::of(raw)?;
        }
        // SAFETY: reading an MPI predefined handle.
        let lowest = reduce(node.raw, self.rank as u64, unsafe { RSMPI_MIN })?;
        Ok((node, lowest))
    }

    pub fn board(&self) -> Option<&Board> {
        self.board.get()
    }

    /// Whether `interval` has passed since the last call that returned true (the first
    /// call returns true).
    pub fn time_to_look(&self, interval: std::time::Duration) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let now = (crate::os::coarse_clock() - self.made).as_micros() as u64 + 1;
        let last = self.last_look_micros.load(Relaxed);
        if last != 0 && now - last < interval.as_micros() as u64 {
            return false;
        }
        self.last_look_micros.store(now, Relaxed);
        true
    }

    /// Whether a collective call on this communicator timed out (see `agree`).
    pub fn is_broken(&self) -> bool {
        self.broken.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn mark_broken(&self) {
        self.broken
            .store(true, std::sync::atomic::Ordering::Relaxed)
    }
}

/// Run the MPI call `call` with MPI_COMM_WORLD's and MPI_COMM_SELF's error handlers set to
/// return errors, then put the caller's handlers back (also those already changed when a
/// later step fails); returns the call's code.
fn errors_returned(call: impl FnOnce() -> i32) -> Result<i32> {
    // SAFETY: reading predefined handles.
    let predefined = unsafe { [RSMPI_COMM_WORLD, RSMPI_COMM_SELF] };
    let mut saved: Vec<(MPI_Comm, MPI_Errhandler)> = Vec::with_capacity(predefined.len());
    let mut swapped = Ok(());
    for comm in predefined {
        // SAFETY: an all-zero handle is a placeholder that MPI overwrites.
        let mut handler: MPI_Errhandler = unsafe { std::mem::zeroed() };
        // SAFETY: `comm` is predefined and valid; `handler` is a live out-parameter.
        swapped = check("MPI_Comm_get_errhandler", unsafe {
            MPI_Comm_get_errhandler(comm, &mut handler)
        });
        if swapped.is_err() {
            break;
        }
        saved.push((comm, handler));
        // SAFETY: as above; the predefined handler is static.
        swapped = check("MPI_Comm_set_errhandler", unsafe {
            MPI_Comm_set_errhandler(comm, RSMPI_ERRORS_RETURN)
        });
        if swapped.is_err() {
            break;
        }
    }
    let code = swapped.map(|()| call());
    for (comm, mut handler) in saved {
        // SAFETY: restores the handler read above, then releases our reference to it.
        unsafe {
            MPI_Comm_set_errhandler(comm, handler);
            MPI_Errhandler_free(&mut handler);
        }
    }
    code
}

/// Whether a handle value is all zero bytes: a NULL pointer where handles are pointers (Open
/// MPI), the never-valid 0 where they are integers (MPICH).
fn all_zero_bytes<T: Copy>(value: &T) -> bool {
    // SAFETY: only used on MPI handles (a pointer or an integer): initialized, no padding.
    let bytes = unsafe {
        std::slice::from_raw_parts((value as *const T).cast::<u8>(), std::mem::size_of::<T>())
    };
    bytes.iter().all(|&b| b == 0)
}

impl Comm {
    pub fn barrier(&self) -> Result<()> {
        // SAFETY: `self.raw` is a valid communicator.
        check("MPI_Barrier", unsafe { MPI_Barrier(self.raw) })
    }

    /// Every rank's `values` (all ranks pass the same number), in rank order.
    pub fn allgather(&self, values: &[u64]) -> Result<Vec<u64>> {
        let mut all = vec![0u64; values.len() * self.size() as usize];
        // SAFETY: `values` has `values.len()` u64s and `all` room for that many per rank.
        check("MPI_Allgather", unsafe {
            MPI_Allgather(
                values.as_ptr().cast(),
                values.len() as i32,
                RSMPI_UINT64_T,
                all.as_mut_ptr().cast(),
                values.len() as i32,
                RSMPI_UINT64_T,
                self.raw,
            )
        })?;
        Ok(all)
    }

    /// Every rank's `values` (any number each), by rank: gathered on rank 0, then
    /// broadcast.
    pub fn allgather_any(&self, values: &[u64]) -> Result<Vec<Vec<u64>>> {
        self.gather_by_rank(values, true)
    }

    /// Every rank's `values` (any number each), by rank, on rank 0; empty on the other
    /// ranks, which hold no more than their own and the numbers.
    pub fn gather_any(&self, values: &[u64]) -> Result<Vec<Vec<u64>>> {
        self.gather_by_rank(values, false)
    }

    /// Every rank's `values`, by rank, on rank 0 (`MPI_Gatherv`) and, `everywhere`, on
    /// every rank (then `MPI_Bcast`). The numbers are gathered on every rank first, so that
    /// all find the same sizes (and the same error where they are too many).
    fn gather_by_rank(&self, values: &[u64], everywhere: bool) -> Result<Vec<Vec<u64>>> {
        let lens = self.allgather(&[values.len() as u64])?;
        let (counts, displs, total) = displacements(&lens)?;
        let receives = everywhere || self.rank() == 0;
        let mut all = vec![0u64; if receives { total } else { 0 }];
        // SAFETY: `values` has `values.len()` u64s; on rank 0 `all` has room for every
        // rank's count at its displacement (`counts` and `displs` have one entry per
        // rank); elsewhere MPI does not read them.
        check("MPI_Gatherv", unsafe {
            MPI_Gatherv(
                values.as_ptr().cast(),
                values.len() as i32,
                RSMPI_UINT64_T,
                all.as_mut_ptr().cast(),
                counts.as_ptr(),
                displs.as_ptr(),
                RSMPI_UINT64_T,
                0,
                self.raw,
            )
        })?;
        if everywhere {
            // SAFETY: `all` holds `total` u64s on every rank (`displacements` checked that
            // they fit an i32).
            check("MPI_Bcast", unsafe {
                MPI_Bcast(
                    all.as_mut_ptr().cast(),
                    total as i32,
                    RSMPI_UINT64_T,
                    0,
                    self.raw,
                )
            })?;
        }
        Ok(match receives {
            true => split_by_rank(&all, &counts, &displs),
            false => Vec::new(),
        })
    }

    /// Rank 0's `bytes`, on every rank (what the others pass is not read): their number
    /// first, then the bytes (`MPI_Bcast`).
    pub fn broadcast(&self, bytes: &[u8]) -> Result<Vec<u8>> {
        let mut len = bytes.len() as u64;
        // SAFETY: one u64, the same type on every rank; `self.raw` is valid.
        check("MPI_Bcast", unsafe {
            MPI_Bcast((&raw mut len).cast(), 1, RSMPI_UINT64_T, 0, self.raw)
        })?;
        let mut all = if self.rank() == 0 {
            bytes.to_vec()
        } else {
            vec![0u8; len as usize]
        };
        let count = i32::try_from(len).map_err(|_| too_many_numbers(len))?;
        // SAFETY: `all` holds `count` bytes on every rank (rank 0's own, the others' room).
        check("MPI_Bcast", unsafe {
            MPI_Bcast(all.as_mut_ptr().cast(), count, RSMPI_UINT8_T, 0, self.raw)
        })?;
        Ok(all)
    }

    /// The maximum of `value` over the ranks (a blocking `MPI_Allreduce`).
    pub fn max(&self, value: u64) -> Result<u64> {
        // SAFETY: reading an MPI predefined handle.
        reduce(self.raw, value, unsafe { RSMPI_MAX })
    }
}

/// The counts and displacements of a `…gatherv` of `lens` numbers a rank, and their total;
/// an error where they are more than one MPI call moves.
fn displacements(lens: &[u64]) -> Result<(Vec<i32>, Vec<i32>, usize)> {
    let mut displs = Vec::with_capacity(lens.len());
    let mut total = 0i32;
    for &len in lens {
        displs.push(total);
        total = i32::try_from(len)
            .ok()
            .and_then(|len| total.checked_add(len))
            .ok_or_else(|| too_many_numbers(lens.iter().sum()))?;
    }
    let counts = lens.iter().map(|&len| len as i32).collect();
    Ok((counts, displs, total as usize))
}

#[cold]
fn too_many_numbers(total: u64) -> Error {
    Error::invalid(format!(
        "the ranks give {total} numbers in all, more than one MPI call moves"
    ))
}

/// What a `…gatherv` received (`all`), cut into each rank's numbers.
fn split_by_rank(all: &[u64], counts: &[i32], displs: &[i32]) -> Vec<Vec<u64>> {
    let starts = displs.iter().map(|&d| d as usize);
    starts
        .zip(counts)
        .map(|(start, &len)| all[start..start + len as usize].to_vec())
        .collect()
}

impl Drop for Comm {
    fn drop(&mut self) {
        // After MPI_Finalize the communicator is gone with MPI; freeing it would be an error.
        // A broken one still has a pending collective request; freeing it could hang.
        if is_active() && !self.is_broken() {
            // SAFETY: `self.raw` is our own dup, freed exactly once.
            unsafe { MPI_Comm_free(&mut self.raw) };
        }
    }
}

/// The ranks of a communicator on one node ([`Comm::node`]), a communicator of their own
/// whose errors are returned; freed when dropped.
#[derive(Debug)]
pub struct Node {
    raw: MPI_Comm,
    rank: i32,
    size: i32,
}

impl Node {
    fn of(mut raw: MPI_Comm) -> Result<Node> {
        let (mut rank, mut size) = (0, 0);
        // SAFETY: `raw` is the communicator just made; the out-pointers are live locals.
        let made = check("MPI_Comm_set_errhandler", unsafe {
            MPI_Comm_set_errhandler(raw, RSMPI_ERRORS_RETURN)
        })
        // SAFETY: as above.
        .and_then(|()| check("MPI_Comm_rank", unsafe { MPI_Comm_rank(raw, &mut rank) }))
        // SAFETY: as above.
        .and_then(|()| check("MPI_Comm_size", unsafe { MPI_Comm_size(raw, &mut size) }));
        if let Err(e) = made {
            // SAFETY: `raw` is ours, freed once.
            unsafe { MPI_Comm_free(&mut raw) };
            return Err(e);
        }
        Ok(Node { raw, rank, size })
    }

    pub fn raw(&self) -> MPI_Comm {
        self.raw
    }

    /// Whether this rank is the node's only one.
    pub fn alone(&self) -> bool {
        self.size == 1
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if is_active() {
            // SAFETY: `self.raw` is our own communicator, freed exactly once.
            unsafe { MPI_Comm_free(&mut self.raw) };
        }
    }
}

/// `value` reduced with `op` over the ranks of `comm` (a blocking `MPI_Allreduce`).
fn reduce(comm: MPI_Comm, value: u64, op: mpi_sys::MPI_Op) -> Result<u64> {
    let mut reduced = 0u64;
    // SAFETY: one u64 each way, matching MPI_UINT64_T; `comm` is valid.
    check("MPI_Allreduce", unsafe {
        MPI_Allreduce(
            (&raw const value).cast(),
            (&raw mut reduced).cast(),
            1,
            RSMPI_UINT64_T,
            op,
            comm,
        )
    })?;
    Ok(reduced)
}
