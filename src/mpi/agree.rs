//! Collective agreement: before a collective call touches HDF5, every rank learns whether all
//! ranks made the same call with the same arguments and whether any rank rejected its
//! arguments locally. One reduction (MAX) of six `u64`s does it, exchanged by recursive
//! doubling over point-to-point messages (see [`reduce_within_timeout`]):
//!
//! - `digest` and `!digest`: their maxima are `max(d)` and `!min(d)`, equal iff all digests
//!   are equal;
//! - a failure word `(size - rank) << 32 | kind`, so the maximum names the lowest failing rank
//!   and its error kind;
//! - the time each rank entered the call, as `t` and `!t`: their maxima give the spread
//!   between the first and the last rank (see [`check_spread`]);
//! - one value the operation wants the maximum of (e.g. the number of pieces of a
//!   collective transfer, or a failure remembered by a file), for free; 0 when it has none.
//!
//! Raw parallel HDF5 hangs or corrupts the file when ranks disagree; here every rank returns
//! the same error kind and nothing is done.

use std::time::{Duration, Instant};

use mpi_sys::{
    MPI_Iallgather, MPI_Iallgatherv, MPI_Irecv, MPI_Isend, MPI_Request, MPI_Testall, RSMPI_INT32_T,
    RSMPI_REQUEST_NULL, RSMPI_STATUSES_IGNORE, RSMPI_UINT8_T, RSMPI_UINT64_T,
};

use crate::error::{Error, ErrorKind, Result};
use crate::mpi::comm::Comm;
use crate::mpi::digest::{Args, explain, rank_list};
use crate::mpi::{check, ensure_active, roll_call};

/// The words before the operation's value; every reduction has the same length, whatever
/// the call, as MPI requires of ranks that may be in different calls.
const HEADER: usize = 5;
const WORDS: usize = HEADER + 1;
type Words = [u64; WORDS];

/// Agree on `operation`: `local` is this rank's arguments that must match, or its local
/// error. Returns the maximum of `value` over all ranks.
pub fn agree(
    comm: &Comm,
    operation: &str,
    local: std::result::Result<Args<'_>, &Error>,
    value: u64,
) -> Result<u64> {
    ensure_active()?;
    let (digest, failure) = match &local {
        Ok(args) => (args.digest(), 0),
        Err(e) => (0, failure_word(comm, e.kind)),
    };
    let entered = now_micros();
    let send = [digest, !digest, failure, entered, !entered, value];
    let recv = reduce_within_timeout(comm, operation, send)?;
    if let Some(limit) = comm.timeout() {
        check_spread(comm, operation, recv[3] - !recv[4], limit)?;
    }

    if recv[2] != 0 {
        let (failed_rank, kind) = decode_failure(comm, recv[2]);
        return Err(match local {
            Err(own) if failed_rank == comm.rank() => own.clone(),
            Err(own) => Error::new(
                kind,
                format!(
                    "{}; rank {failed_rank} also rejected its arguments, and its status is \
                     the one every rank returns",
                    own.message
                ),
            ),
            Ok(_) => Error::new(
                kind,
                format!(
                    "rank {failed_rank} rejected its arguments to this collective call of \
                     {operation} (its error message says why); nothing was done on any rank"
                ),
            ),
        });
    }
    if recv[0] != !recv[1] {
        // Every rank saw the same reduction, so every rank is here: one more exchange, of
        // each rank's arguments as text, says which differ on which ranks. (Bounded by the
        // timeout all the same: a rank that went on would leave it waiting.)
        let what = match &local {
            Ok(args) => exchange_text(comm, operation, &args.describe())?,
            Err(_) => Vec::new(),
        };
        let detail = explain(&what).unwrap_or_else(|| "the arguments differ".to_string());
        return Err(Error::new(
            ErrorKind::CollectiveMismatch,
            format!(
                "{operation}: {detail}. Every rank must make the same collective calls in the \
                 same order with the same arguments; nothing was done on any rank"
            ),
        ));
    }
    Ok(recv[HEADER])
}

/// Environment variable: seconds a collective call waits for the other ranks (default 60);
/// 0 turns the timeout off.
pub const TIMEOUT_ENV: &str = "DAH5_COLLECTIVE_TIMEOUT";
const DEFAULT_TIMEOUT_SECONDS: f64 = 60.0;
/// How often a waiting rank looks for another rank's note that it gave up.
const NOTE_LOOK_INTERVAL: Duration = Duration::from_micros(200);
/// How long the ranks that timed out listen for each other afterwards.
const ROLL_CALL_GRACE: Duration = Duration::from_secs(5);

/// The timeout the environment asks for, or `None` when it is off: then the agreement is a
/// blocking `MPI_Allreduce`. Read once per file, when its communicator is made
/// ([`Comm::timeout`]): reading the environment costs more than a small agreement.
pub fn timeout_from_env() -> Option<Duration> {
    let seconds = std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|&s| s >= 0.0 && s.is_finite())
        .unwrap_or(DEFAULT_TIMEOUT_SECONDS);
    (seconds > 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The element-wise maximum of `send` over the ranks, waiting at most the timeout. A rank
/// that never makes the call would otherwise leave the others waiting forever. After a
/// timeout the communicator is marked broken, so every later collective call on it fails at
/// once; the other ranks learn it from the timed-out rank's roll-call note (see
/// `roll_call`), before and while they wait in their own reductions, or from the entry
/// times after them (`check_spread`), so theirs fail at once too.
///
/// Recursive doubling over point-to-point messages (Isend/Irecv), not `MPI_Iallreduce`:
/// with Open MPI 4 a non-blocking collective took 2.4 µs for six words between two ranks
/// and the exchange 1.2 µs (MPICH: 2.1 and 0.7), and this is paid by every collective
/// call. Every message of one agreement carries the communicator's next agreement tag, so
/// a message of a call some rank skipped never matches another call's. With the timeout
/// off the same exchange waits for ever (all ranks must use the same algorithm).
fn reduce_within_timeout(comm: &Comm, operation: &str, send: Words) -> Result<Words> {
    refuse_out_of_step(comm, operation)?;
    let started = Instant::now();
    let limit = comm.timeout().unwrap_or(Duration::MAX);
    let tag = comm.next_agreement_tag();
    let step = |to: Option<i32>, from: Option<i32>, words: Words| {
        exchange(comm, operation, (to, from, tag), words, (started, limit))
    };
    let (rank, size) = (comm.rank(), comm.size());
    // The largest power of two up to the size: the ranks above it hand their words to a
    // rank below it first and get the result back last.
    let below = 1i32 << (31 - size.leading_zeros());
    if rank >= below {
        let partner = rank - below;
        step(Some(partner), None, send)?;
        return step(None, Some(partner), send);
    }
    let mut max = send;
    let extra = rank + below;
    if extra < size {
        max = fold(max, step(None, Some(extra), max)?);
    }
    let mut mask = 1;
    while mask < below {
        let partner = rank ^ mask;
        max = fold(max, step(Some(partner), Some(partner), max)?);
        mask <<= 1;
    }
    if extra < size {
        step(Some(extra), None, max)?;
    }
    // A rank that arrives after the others gave up on this very call may still complete
    // it (their messages were sent): the entry times tell it (`check_spread`).
    Ok(max)
}

fn fold(a: Words, b: Words) -> Words {
    std::array::from_fn(|i| a[i].max(b[i]))
}

/// One step of the exchange: send `words` to `to` and receive a rank's words from `from`
/// (either may be absent), with `tag`; bounded by the agreement's start and limit. Returns
/// what was received (or `words` when nothing was).
fn exchange(
    comm: &Comm,
    operation: &str,
    (to, from, tag): (Option<i32>, Option<i32>, i32),
    words: Words,
    (started, limit): (Instant, Duration),
) -> Result<Words> {
    // On the heap: `wait` leaks them if the step never completes.
    let mut buffers = Box::new((words, words));
    // SAFETY: reading the MPI_REQUEST_NULL constant.
    let mut requests: [MPI_Request; 2] = unsafe { [RSMPI_REQUEST_NULL; 2] };
    if let Some(from) = from {
        // SAFETY: the receive buffer holds WORDS u64s, matching MPI_UINT64_T; `comm` is
        // valid; the boxed buffer stays put until the request completes or is leaked.
        check("MPI_Irecv", unsafe {
            MPI_Irecv(
                buffers.1.as_mut_ptr().cast(),
                WORDS as i32,
                RSMPI_UINT64_T,
                from,
                tag,
                comm.raw(),
                &mut requests[0],
            )
        })?;
    }
    if let Some(to) = to {
        // SAFETY: as above, for the send buffer.
        check("MPI_Isend", unsafe {
            MPI_Isend(
                buffers.0.as_ptr().cast(),
                WORDS as i32,
                RSMPI_UINT64_T,
                to,
                tag,
                comm.raw(),
                &mut requests[1],
            )
        })?;
    }
    let (_, received) = *wait(comm, operation, &mut requests, started, limit, buffers)?;
    Ok(received)
}

/// Wait for the nonblocking `requests` of `operation`, whose buffers are `buffers`, until
/// `limit` after `started`. Gives the buffers back when they completed. When they cannot
/// (the limit passed, or another rank gave up on an earlier call), the communicator is
/// marked broken and the buffers are leaked on purpose: MPI cannot cancel a collective, and
/// a late message may still land in a receive buffer.
fn wait<B>(
    comm: &Comm,
    operation: &str,
    requests: &mut [MPI_Request],
    started: Instant,
    limit: Duration,
    buffers: B,
) -> Result<B> {
    let mut last_look = Instant::now();
    loop {
        let mut done = 0;
        // SAFETY: `requests` are pending or null requests; the statuses are ignored.
        check("MPI_Testall", unsafe {
            MPI_Testall(
                requests.len() as i32,
                requests.as_mut_ptr(),
                &mut done,
                RSMPI_STATUSES_IGNORE,
            )
        })?;
        if done != 0 {
            return Ok(buffers);
        }
        // Another rank giving up on this call (its note) ends the wait as the timeout
        // would: the call can no longer complete everywhere. Looked for every
        // NOTE_LOOK_INTERVAL, not at every test: a probe costs as much as the test.
        let now = Instant::now();
        if now - last_look < NOTE_LOOK_INTERVAL {
            continue;
        }
        last_look = now;
        if now - started > limit || roll_call::gave_up(comm)?.is_some() {
            comm.mark_broken();
            std::mem::forget(buffers);
            return Err(timed_out(comm, operation, limit));
        }
    }
}

/// Fail at once when this file's collective calls are out of step: an earlier call timed
/// out here, or another rank gave up on one (its roll-call note is waiting).
fn refuse_out_of_step(comm: &Comm, operation: &str) -> Result<()> {
    if comm.is_broken() {
        return Err(Error::new(
            ErrorKind::CollectiveTimeout,
            format!(
                "{operation}: an earlier collective call on this file timed out, so its \
                 collective calls are out of step and fail at once on every rank; return \
                 the error, or end the job (MPI_Abort)"
            ),
        ));
    }
    // At most once per NOTE_LOOK_INTERVAL: a probe costs more than the reduction it
    // guards (MPI_Iprobe took 1.7 µs of a 4.3 µs agreement with Open MPI 4). A note that
    // came in since is found while this call waits (then as a timeout).
    if !comm.time_to_look(NOTE_LOOK_INTERVAL) {
        return Ok(());
    }
    if let Some(rank) = roll_call::gave_up(comm)? {
        comm.mark_broken();
        return Err(gave_up_error(operation, rank));
    }
    Ok(())
}

fn gave_up_error(operation: &str, rank: i32) -> Error {
    Error::new(
        ErrorKind::CollectiveTimeout,
        format!(
            "{operation}: rank {rank} gave up waiting for the other ranks in a collective call \
             on this file ({TIMEOUT_ENV}): a rank skipped a collective call or is stuck, so \
             the file's collective calls are out of step and fail at once on every rank. \
             What was flushed is safe; return the error, or end the job (MPI_Abort)"
        ),
    )
}

/// Every rank's `text`, in rank order (for the message of a mismatch), waiting at most the
/// timeout for each of its two exchanges.
fn exchange_text(comm: &Comm, operation: &str, text: &str) -> Result<Vec<String>> {
    let limit = comm.timeout().unwrap_or(Duration::MAX);
    let size = comm.size() as usize;
    let mine = vec![text.len() as i32];
    let mut lengths = vec![0i32; size];
    // SAFETY: reading the MPI_REQUEST_NULL constant.
    let mut request: MPI_Request = unsafe { RSMPI_REQUEST_NULL };
    // SAFETY: one int from each rank into `lengths` (room for `size`); buffers outlive the
    // request or are leaked by `wait`.
    check("MPI_Iallgather", unsafe {
        MPI_Iallgather(
            mine.as_ptr().cast(),
            1,
            RSMPI_INT32_T,
            lengths.as_mut_ptr().cast(),
            1,
            RSMPI_INT32_T,
            comm.raw(),
            &mut request,
        )
    })?;
    let (_, lengths) = wait(
        comm,
        operation,
        &mut [request],
        Instant::now(),
        limit,
        (mine, lengths),
    )?;
    let displacements: Vec<i32> = lengths
        .iter()
        .scan(0, |at, &n| {
            let start = *at;
            *at += n;
            Some(start)
        })
        .collect();
    let total = lengths.iter().sum::<i32>() as usize;
    let bytes = text.as_bytes().to_vec();
    let mut all = vec![0u8; total];
    // SAFETY: reading the MPI_REQUEST_NULL constant.
    let mut request: MPI_Request = unsafe { RSMPI_REQUEST_NULL };
    // SAFETY: `bytes` has its length; `all`, `lengths` and `displacements` describe `total`
    // bytes split by rank, as every rank computed them from the same lengths; all buffers
    // outlive the request or are leaked by `wait`.
    check("MPI_Iallgatherv", unsafe {
        MPI_Iallgatherv(
            bytes.as_ptr().cast(),
            bytes.len() as i32,
            RSMPI_UINT8_T,
            all.as_mut_ptr().cast(),
            lengths.as_ptr(),
            displacements.as_ptr(),
            RSMPI_UINT8_T,
            comm.raw(),
            &mut request,
        )
    })?;
    let (_, all, lengths, displacements) = wait(
        comm,
        operation,
        &mut [request],
        Instant::now(),
        limit,
        (bytes, all, lengths, displacements),
    )?;
    Ok(lengths
        .iter()
        .zip(&displacements)
        .map(|(&n, &at)| String::from_utf8_lossy(&all[at as usize..(at + n) as usize]).into())
        .collect())
}

/// The wall clock in microseconds (the ranks of a job, also on different nodes, share it
/// to within milliseconds).
fn now_micros() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// Fail when the ranks entered the call further apart than 3/4 of the timeout. A rank that
/// came after the others gave up still completes the reduction (their parts are in it), and
/// their notes may not have reached it yet (MPICH over UCX connects a pair only on first
/// use): the spread tells it, and every rank that completes the reduction, the same. A rank
/// that gave up waited the whole timeout, so the spread every completer sees is more than
/// the timeout less the time completion took to reach it; the quarter left is room for that
/// delay and for the clocks of different nodes.
fn check_spread(comm: &Comm, operation: &str, spread_micros: u64, limit: Duration) -> Result<()> {
    let spread = Duration::from_micros(spread_micros);
    if spread <= limit.mul_f64(0.75) {
        return Ok(());
    }
    comm.mark_broken();
    Err(Error::new(
        ErrorKind::CollectiveTimeout,
        format!(
            "{operation}: the ranks entered this collective call {:.1} s apart, more than 3/4 \
             of {TIMEOUT_ENV} ({:.0} s): the first ones gave up waiting, or would have, so \
             the call is abandoned on every rank, and the file's collective calls are out of \
             step from now on and fail at once; return the error, or end the job \
             (MPI_Abort)",
            spread.as_secs_f64(),
            limit.as_secs_f64()
        ),
    ))
}

/// The error of a timed-out call, naming the ranks that never arrived (a roll call of the
/// ranks that timed out, for up to [`ROLL_CALL_GRACE`] more).
fn timed_out(comm: &Comm, operation: &str, limit: Duration) -> Error {
    let who = match roll_call::absent_ranks(comm, limit.min(ROLL_CALL_GRACE)) {
        Ok(absent) if absent.is_empty() => {
            "every rank answered the roll call after it, so one arrived late".to_string()
        }
        Ok(absent) => format!("{} never arrived", rank_list(&absent)),
        Err(e) => format!("the roll call after it failed: {}", e.message),
    };
    Error::new(
        ErrorKind::CollectiveTimeout,
        format!(
            "{operation}: waited {:.0} s ({TIMEOUT_ENV}) for every rank of the file's \
             communicator to make this collective call: {who} (it skipped the call or is \
             stuck). The file's collective calls are out of step from now on and fail at once \
             on every rank: return the error, or end the job (MPI_Abort)",
            limit.as_secs_f64()
        ),
    )
}

/// A rank's failure as a nonzero word whose maximum over ranks is the lowest failing rank.
pub fn failure_word(comm: &Comm, kind: ErrorKind) -> u64 {
    ((comm.size() - comm.rank()) as u64) << 32 | kind.ordinal()
}

/// The rank and kind a nonzero [`failure_word`] stands for.
pub fn decode_failure(comm: &Comm, word: u64) -> (i32, ErrorKind) {
    let rank = comm.size() - (word >> 32) as i32;
    (rank, ErrorKind::from_ordinal(word & 0xffff_ffff))
}
