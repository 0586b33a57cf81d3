//! After a collective call timed out: which ranks never arrived?
//!
//! A pending agreement cannot say who has joined it (a rank waits for one partner at a
//! time). So every rank that timed out sends a note to every other rank on the file's
//! communicator (a dah5-private dup, so the notes can never match the caller's messages),
//! and listens for the others' notes for a grace period. A rank that sent none was not
//! waiting in a collective call of dah5 on this communicator: it skipped the call or is
//! stuck elsewhere (a rank waiting in another dah5 call times out too, and sends its notes).
//!
//! The notes also tell the ranks that did *not* time out that the file's collective calls
//! are out of step: nobody receives a note meant for them, so [`gave_up`] finds it in every
//! later collective call of theirs (and the agreement then fails at once instead of
//! matching a stale reduction or waiting for a rank that has gone on).

use std::time::{Duration, Instant};

use mpi_sys::{
    MPI_Iprobe, MPI_Isend, MPI_Recv, MPI_Request, MPI_Request_free, MPI_Status, RSMPI_ANY_SOURCE,
    RSMPI_REQUEST_NULL, RSMPI_UINT8_T,
};

use crate::error::Result;
use crate::mpi::comm::Comm;
use crate::mpi::status::check;

/// A tag no other dah5 message uses (the agreements' tags start at 16384).
const ROLL_CALL_TAG: i32 = 0x0da5;

/// The note's content does not matter, only its sender; a static lives as long as the
/// sends, which are never waited for.
static NOTE: u8 = 1;

/// A rank that gave up on a collective call of this communicator (its roll-call note is
/// waiting here), if any. Local and cheap: one `MPI_Iprobe`.
pub fn gave_up(comm: &Comm) -> Result<Option<i32>> {
    let mut flag = 0;
    // SAFETY: an all-zero MPI_Status is a valid value for MPI to overwrite.
    let mut status: MPI_Status = unsafe { std::mem::zeroed() };
    // SAFETY: `comm` is valid; `flag` and `status` are live out-parameters.
    check("MPI_Iprobe", unsafe {
        MPI_Iprobe(
            RSMPI_ANY_SOURCE,
            ROLL_CALL_TAG,
            comm.raw(),
            &mut flag,
            &mut status,
        )
    })?;
    Ok((flag != 0).then_some(status.MPI_SOURCE))
}

/// The ranks (other than this one) from which no note came within `grace`, ascending.
pub fn absent_ranks(comm: &Comm, grace: Duration) -> Result<Vec<usize>> {
    let size = comm.size() as usize;
    for rank in (0..comm.size()).filter(|&r| r != comm.rank()) {
        // SAFETY: reading the MPI_REQUEST_NULL constant.
        let mut request: MPI_Request = unsafe { RSMPI_REQUEST_NULL };
        // SAFETY: one byte from a static; `comm` is valid; `request` receives the handle.
        check("MPI_Isend", unsafe {
            MPI_Isend(
                (&raw const NOTE).cast(),
                1,
                RSMPI_UINT8_T,
                rank,
                ROLL_CALL_TAG,
                comm.raw(),
                &mut request,
            )
        })?;
        // An absent rank may never receive the note: let MPI finish the send on its own.
        // SAFETY: `request` is the active send above.
        check("MPI_Request_free", unsafe {
            MPI_Request_free(&mut request)
        })?;
    }
    let mut heard = vec![false; size];
    heard[comm.rank() as usize] = true;
    let start = Instant::now();
    while heard.iter().any(|&h| !h) && start.elapsed() < grace {
        let Some(source) = gave_up(comm)? else {
            std::thread::sleep(Duration::from_millis(1));
            continue;
        };
        let mut note = 0u8;
        // SAFETY: an all-zero MPI_Status is a valid value for MPI to overwrite.
        let mut status: MPI_Status = unsafe { std::mem::zeroed() };
        // SAFETY: receives the one probed byte into `note`.
        check("MPI_Recv", unsafe {
            MPI_Recv(
                (&raw mut note).cast(),
                1,
                RSMPI_UINT8_T,
                source,
                ROLL_CALL_TAG,
                comm.raw(),
                &mut status,
            )
        })?;
        heard[source as usize] = true;
    }
    Ok((0..size).filter(|&r| !heard[r]).collect())
}
