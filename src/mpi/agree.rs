//! Collective agreement: before a collective call touches HDF5, every rank learns whether all
//! ranks made the same call with the same arguments and whether any rank rejected its
//! arguments locally. One reduction (MAX) of six `u64`s does it: through a shared-memory
//! board when all ranks share a node (`board`), where a rank may also post its words and go
//! on ([`agree_later`]), else by recursive doubling over point-to-point messages (see
//! [`reduce_within_timeout`]):
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
use crate::mpi::board::{Board, Posted, WORDS, Words};
use crate::mpi::comm::Comm;
use crate::mpi::digest::{Args, explain, rank_list};
use crate::mpi::lifecycle::ensure_active;
use crate::mpi::roll_call;
use crate::mpi::status::check;
use crate::mpi::timeout::TIMEOUT_ENV;

/// The words before the operation's value; every reduction has the same length, whatever
/// the call, as MPI requires of ranks that may be in different calls.
const HEADER: usize = WORDS - 1;

/// Agree on `operation`: `local` is this rank's arguments that must match, or its local
/// error. Returns the maximum of `value` over all ranks.
pub fn agree(
    comm: &Comm,
    operation: &str,
    local: std::result::Result<Args<'_>, &Error>,
    value: u64,
) -> Result<u64> {
    agree_if_ready(comm, operation, local, value, true).map(|max| max.unwrap_or_default())
}

/// The low half of the failure word of a rank that is not `ready` (above every error
/// kind's ordinal).
const NOT_READY: u64 = 0xffff_ffff;

/// [`agree`], from a rank that may not be `ready` to act yet (another of its threads is in
/// a collective call: `h5::Section`). `Ok(None)` on every rank when any rank was not
/// ready and none rejected its arguments before it (a lower rank): nothing is done, and the
/// ranks make the agreement again.
pub fn agree_if_ready(
    comm: &Comm,
    operation: &str,
    local: std::result::Result<Args<'_>, &Error>,
    value: u64,
    ready: bool,
) -> Result<Option<u64>> {
    ensure_active()?;
    let (digest, failure) = match &local {
        Ok(_) if !ready => (0, failure_word_of(comm, NOT_READY)),
        Ok(args) => (args.digest(), 0),
        Err(e) => (0, failure_word(comm, e.kind)),
    };
    let entered = now_micros();
    let send = [digest, !digest, failure, entered, !entered, value];
    let said = [b"call\t".as_slice(), operation.as_bytes(), b"\n"];
    let reduced = reduce_within_timeout(comm, operation, send, &said)?;
    let recv = reduced.max;
    if let Some(limit) = comm.timeout() {
        check_spread(comm, operation, recv[3] - !recv[4], limit)?;
    }
    if let Some(mismatch) = mismatch_with_one_gone_on(comm, operation, &reduced) {
        return Err(match local {
            // This rank's own mismatch says more: the close it went on from did not match
            // either (`core::closing`).
            Err(own) if own.kind == ErrorKind::CollectiveMismatch => own.clone(),
            _ => mismatch,
        });
    }
    if recv[2] != 0 {
        if recv[2] & 0xffff_ffff == NOT_READY {
            return Ok(None);
        }
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
    Ok(Some(recv[HEADER]))
}

/// An agreement this rank posted its words to and went on from ([`agree_later`]).
#[derive(Debug)]
pub struct Later {
    number: u64,
    operation: &'static str,
}

/// Agree on `args` without waiting for the other ranks: post this rank's words and go on.
/// The other ranks find them when they make their call (a different call gets
/// `DAH5_ERR_COLLECTIVE_MISMATCH` at once), and this rank reads theirs at its next
/// collective call on `comm`, with [`complete_later`], before anything else. When every
/// rank had already posted, it reads them now: `Ok(None)` when all agreed, the mismatch
/// when not. `said` is what the call is, in [`Args::describe`]'s form, for the others'
/// messages. Through MPI messages (no board) a rank cannot leave its words behind: then it
/// agrees now.
pub fn agree_later(
    comm: &Comm,
    operation: &'static str,
    args: &Args,
    said: &[&[u8]],
) -> Result<Option<Later>> {
    let Some(board) = comm.board() else {
        return agree(comm, operation, Ok(args.clone()), 0).map(|_| None);
    };
    ensure_active()?;
    refuse_out_of_step(comm, operation)?;
    let number = comm.next_agreement();
    let digest = args.digest();
    // No entry time (0 in both its words, which the maximum ignores): nobody waits for a
    // rank that goes on, so nobody gives up on it (`check_spread`).
    let send = [digest, !digest, 0, 0, 0, 0];
    board.post(comm.rank(), number, &send, true, said);
    let later = Later { number, operation };
    if (0..comm.size()).all(|rank| board.read(rank, number).is_some()) {
        return complete_later(comm, later).map(|()| None);
    }
    Ok(Some(later))
}

/// Complete `later` ([`agree_later`]): wait for every rank's words (within the timeout)
/// and fail, as every rank does, when they differ.
pub fn complete_later(comm: &Comm, later: Later) -> Result<()> {
    let operation = later.operation;
    // A `Later` is made on a board only, which stays for the communicator's life.
    let Some(board) = comm.board() else {
        return Ok(());
    };
    let mut patience = Patience::new(comm, operation);
    let reduced = gather_from_board(board, comm, later.number, &mut patience)?;
    match mismatch_with_one_gone_on(comm, operation, &reduced) {
        Some(mismatch) => Err(mismatch),
        None => Ok(()),
    }
}

/// When a rank went on from this agreement ([`agree_later`]), the ranks agree only if
/// every rank did, with the same arguments; otherwise it is a mismatch on every rank (the
/// ranks that went on cannot join the exchange of texts: the board's texts say what each
/// call was).
fn mismatch_with_one_gone_on(comm: &Comm, operation: &str, reduced: &Reduced) -> Option<Error> {
    let all_agree = reduced.max[0] == !reduced.max[1];
    if reduced.gone_on == 0 || (reduced.gone_on == comm.size() && all_agree) {
        return None;
    }
    let board = comm.board()?;
    let said: Vec<String> = (0..comm.size())
        .map(|rank| board.text(rank, reduced.number))
        .collect();
    let detail = explain(&said).unwrap_or_else(|| "the arguments differ".to_string());
    Some(Error::new(
        ErrorKind::CollectiveMismatch,
        format!(
            "{operation}: {detail}. Every rank must make the same collective calls in the \
             same order with the same arguments (dah5_dataset_close returns at once and is \
             checked against the other ranks' calls as they make them); nothing was done on \
             any rank"
        ),
    ))
}

/// How often a waiting rank looks for another rank's note that it gave up.
const NOTE_LOOK_INTERVAL: Duration = Duration::from_micros(200);
/// How often a collective call looks for such a note before its reduction: a probe
/// (1.7 µs with Open MPI 4) costs more than a reduction on the shared-memory board, and a
/// note missed here is found while the call waits, or by the entry times after it.
const NOTE_LOOK_BEFORE_INTERVAL: Duration = Duration::from_millis(1);
/// How long the ranks that timed out listen for each other afterwards.
const ROLL_CALL_GRACE: Duration = Duration::from_secs(5);

/// What a reduction gives a rank: the maximum of every word over the ranks, the number of
/// the agreement, and how many ranks went on without waiting for it ([`agree_later`]).
struct Reduced {
    max: Words,
    number: u64,
    gone_on: i32,
}

/// The element-wise maximum of `send` over the ranks, waiting at most the timeout. A rank
/// that never makes the call would otherwise leave the others waiting forever. After a
/// timeout the communicator is marked broken, so every later collective call on it fails at
/// once; the other ranks learn it from the timed-out rank's roll-call note (see
/// `roll_call`), before and while they wait in their own reductions, or from the entry
/// times after them (`check_spread`), so theirs fail at once too. `said` is what the call
/// is, for a rank that went on (on the board only).
///
/// On one node the words go through the communicator's shared-memory board (`board`).
/// Elsewhere, recursive doubling over point-to-point messages (Isend/Irecv), not
/// `MPI_Iallreduce`: with Open MPI 4 a non-blocking collective took 2.4 µs for six words
/// between two ranks and the exchange 1.2 µs (MPICH: 2.1 and 0.7), and this is paid by
/// every collective call. Every message (board slot) of one agreement carries the
/// communicator's agreement number, so a message of a call some rank skipped never matches
/// another call's. With the timeout off the same exchange waits for ever (all ranks must
/// use the same algorithm).
fn reduce_within_timeout(
    comm: &Comm,
    operation: &str,
    send: Words,
    said: &[&[u8]],
) -> Result<Reduced> {
    refuse_out_of_step(comm, operation)?;
    let number = comm.next_agreement();
    let mut patience = Patience::new(comm, operation);
    // A rank that arrives after the others gave up on this very call may still complete
    // it (their words were sent): the entry times tell it (`check_spread`).
    match comm.board() {
        Some(board) => {
            board.post(comm.rank(), number, &send, false, said);
            gather_from_board(board, comm, number, &mut patience)
        }
        None => Ok(Reduced {
            max: doubling(comm, number, send, &mut patience)?,
            number,
            gone_on: 0,
        }),
    }
}

/// Recursive doubling over MPI messages.
fn doubling(comm: &Comm, number: u64, send: Words, patience: &mut Patience) -> Result<Words> {
    let tag = tag_of(number);
    let mut step = |to, from, words| exchange(comm, (to, from, tag), words, patience);
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
    Ok(max)
}

/// The tag of agreement `number`'s messages: 16384 + the number mod 16384 (every MPI allows
/// tags up to 32767; the roll call's tag is below 16384).
fn tag_of(number: u64) -> i32 {
    AGREEMENT_TAGS + (number % AGREEMENT_TAGS as u64) as i32
}
const AGREEMENT_TAGS: i32 = 16384;

fn fold(a: Words, b: Words) -> Words {
    std::array::from_fn(|i| a[i].max(b[i]))
}

/// How long a rank waiting on the board polls before it also yields its CPU at every look
/// (the rank it waits for may need that CPU). Yielding at once is much slower where another
/// program keeps the core busy: the yield gives that program the CPU for a whole time slice
/// (docs/benchmarks.md, "A busy core"), unless the node has fewer CPUs than ranks
/// (`Board::crowded`).
const SPIN_BEFORE_YIELDING: Duration = Duration::from_micros(20);

/// Every rank's words of agreement `number` from the board, folded, waiting for each rank
/// that has not posted them yet.
fn gather_from_board(
    board: &Board,
    comm: &Comm,
    number: u64,
    patience: &mut Patience,
) -> Result<Reduced> {
    let mut reduced = Reduced {
        max: [0; WORDS],
        number,
        gone_on: 0,
    };
    for rank in 0..comm.size() {
        let posted = wait_on_board(board, rank, number, patience)?;
        reduced.max = fold(reduced.max, posted.words);
        reduced.gone_on += posted.went_on as i32;
    }
    Ok(reduced)
}

/// Rank `from`'s words of agreement `number`, waiting for them within `patience`.
fn wait_on_board(board: &Board, from: i32, number: u64, patience: &mut Patience) -> Result<Posted> {
    let mut polls = 0u32;
    loop {
        if let Some(posted) = board.read(from, number) {
            return Ok(posted);
        }
        polls = polls.wrapping_add(1);
        if !polls.is_multiple_of(64) {
            std::hint::spin_loop();
            continue;
        }
        if board.crowded || patience.waited() > SPIN_BEFORE_YIELDING {
            std::thread::yield_now();
        }
        patience.check()?;
    }
}

/// One step of the exchange through MPI: send `words` to `to` and receive a rank's words
/// from `from` (either may be absent), with `tag`. Returns what was received (or `words`
/// when nothing was).
fn exchange(
    comm: &Comm,
    (to, from, tag): (Option<i32>, Option<i32>, i32),
    words: Words,
    patience: &mut Patience,
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
    let (_, received) = *wait(&mut requests, buffers, patience)?;
    Ok(received)
}

/// A waiting rank's limits: the timeout since the wait began, and another rank's note that
/// it gave up (which ends the wait as the timeout would: the call can no longer complete
/// everywhere).
struct Patience<'a> {
    comm: &'a Comm,
    operation: &'a str,
    /// When the wait began: read at the first look, not when the call began, as most
    /// agreements complete before (the clock costs more than a read on the board).
    started: Option<Instant>,
    limit: Duration,
    last_look: Option<Instant>,
}

impl<'a> Patience<'a> {
    fn new(comm: &'a Comm, operation: &'a str) -> Patience<'a> {
        Patience {
            comm,
            operation,
            started: None,
            limit: comm.timeout().unwrap_or(Duration::MAX),
            last_look: None,
        }
    }

    fn waited(&mut self) -> Duration {
        self.started.get_or_insert_with(Instant::now).elapsed()
    }

    /// Whether the wait may go on. Looks for notes every NOTE_LOOK_INTERVAL, not at every
    /// call: a probe costs as much as a test. When it may not, the communicator is marked
    /// broken and the error names the ranks that never arrived.
    fn check(&mut self) -> Result<()> {
        let now = Instant::now();
        let started = *self.started.get_or_insert(now);
        let last_look = *self.last_look.get_or_insert(now);
        if now - last_look < NOTE_LOOK_INTERVAL {
            return Ok(());
        }
        self.last_look = Some(now);
        if now - started > self.limit || roll_call::gave_up(self.comm)?.is_some() {
            self.comm.mark_broken();
            return Err(timed_out(self.comm, self.operation, self.limit));
        }
        Ok(())
    }
}

/// Wait for the nonblocking `requests`, whose buffers are `buffers`, within `patience`.
/// Gives the buffers back when they completed. When they cannot (the limit passed, or
/// another rank gave up on an earlier call), the buffers are leaked on purpose: MPI cannot
/// cancel a collective, and a late message may still land in a receive buffer.
fn wait<B>(requests: &mut [MPI_Request], buffers: B, patience: &mut Patience) -> Result<B> {
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
        if let Err(e) = patience.check() {
            std::mem::forget(buffers);
            return Err(e);
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
    // At most once per NOTE_LOOK_BEFORE_INTERVAL: a probe costs more than the reduction
    // it guards. A note that came in since is found while this call waits (then as a
    // timeout).
    if !comm.time_to_look(NOTE_LOOK_BEFORE_INTERVAL) {
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
        &mut [request],
        (mine, lengths),
        &mut Patience::new(comm, operation),
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
        &mut [request],
        (bytes, all, lengths, displacements),
        &mut Patience::new(comm, operation),
    )?;
    Ok(lengths
        .iter()
        .zip(&displacements)
        .map(|(&n, &at)| String::from_utf8_lossy(&all[at as usize..(at + n) as usize]).into())
        .collect())
}

/// The wall clock in microseconds, to the kernel's tick (the ranks of a job, also on
/// different nodes, share it to within milliseconds; the spread it measures is compared
/// with a timeout of seconds).
fn now_micros() -> u64 {
    crate::os::coarse_wall_clock().as_micros() as u64
}

/// Fail when the ranks entered the call further apart than 3/4 of the timeout. A rank that
/// came after the others gave up still completes the reduction (their parts are in it), and
/// their notes may not have reached it yet (MPICH over UCX connects a pair only on first
/// use): the spread tells it, and every rank that completes the reduction, the same. A rank
/// that gave up waited the whole timeout, so the spread every completer sees is more than
/// the timeout less the time completion took to reach it; the quarter left is room for that
/// delay and for the clocks of different nodes.
fn check_spread(comm: &Comm, operation: &str, spread_micros: u64, limit: Duration) -> Result<()> {
    // 4 × spread <= 3 × limit, in integers (cheaper than floating-point durations).
    if spread_micros.saturating_mul(4) <= (limit.as_micros() as u64).saturating_mul(3) {
        return Ok(());
    }
    let spread = Duration::from_micros(spread_micros);
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
    failure_word_of(comm, kind.ordinal())
}

fn failure_word_of(comm: &Comm, code: u64) -> u64 {
    ((comm.size() - comm.rank()) as u64) << 32 | code
}

/// The rank and kind a nonzero [`failure_word`] stands for.
pub fn decode_failure(comm: &Comm, word: u64) -> (i32, ErrorKind) {
    let rank = comm.size() - (word >> 32) as i32;
    (rank, ErrorKind::from_ordinal(word & 0xffff_ffff))
}
