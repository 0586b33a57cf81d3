//! The one shape of every collective call. Raw parallel HDF5 hangs or corrupts the file
//! when ranks make different metadata calls; dah5 makes every collective call a
//! [`Collective`] and runs it with [`run`], which holds to these rules:
//!
//! 1. **check** what this rank can check alone. Nothing is changed and nothing is sent
//!    yet, and a failure does not return early: it goes into the agreement;
//! 2. **agree**: one reduction tells every rank whether all ranks made this call with
//!    the same arguments and whether any rank's check failed (`mpi::agree`). On any
//!    failure every rank returns the same error kind, and HDF5 has not been touched;
//! 3. **act**: only now is HDF5 called, on every rank alike.
//!
//! A call on a file first completes the agreement of this rank's last `dah5_dataset_close`,
//! which did not wait for it; the datasets agreed closed are closed between agree and act
//! (`core::closing`).
//!
//! The handle a call acts on is looked up before all this (by the C shim): a rank that
//! passes a handle it does not hold has no communicator to agree over.
//!
//! Adding a collective call: a request type with `impl Collective` next to what it acts
//! on, and a C shim that parses the arguments into it (see `CONTRIBUTING.md`).

use std::sync::Arc;

use crate::core::closing::HeldCloses;
use crate::core::shape::u64s;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
pub use crate::h5::Section;
use crate::mpi::agree::{agree, agree_if_ready};
use crate::mpi::comm::Comm;
pub use crate::mpi::digest::Args;

/// Something a collective call acts on: the ranks of its communicator make the call.
pub trait Members {
    fn comm(&self) -> &Arc<Comm>;

    /// Whether its collective calls are agreed on (`DAH5_NO_CHECKS` turns it off).
    fn checked(&self) -> bool {
        true
    }

    /// The file whose held dataset closes the agreement covers; none before a file is
    /// open.
    fn file(&self) -> Option<&dyn HeldCloses> {
        None
    }
}

/// A rank's request of a collective call: its arguments, parsed.
pub trait Collective: Sized {
    /// The C function's name: compared by the agreement and said in every message.
    const NAME: &'static str;
    /// What the call acts on (a file, a dataset, or the communicator of a file to open).
    type Target: Members;
    type Output;

    /// What this rank can check alone, before the agreement: no HDF5 call that changes
    /// anything, no communication. By default nothing.
    fn check(self, _target: &Self::Target) -> Result<Self> {
        Ok(self)
    }

    /// The arguments every rank must pass alike, by name (named in a mismatch's message),
    /// with what the call acts on.
    fn args<'a>(&'a self, target: &'a Self::Target) -> Args<'a>;

    /// Whether `act` needs the maximum of [`Collective::local_max`] over the ranks (then
    /// it is reduced even with the checks off).
    const NEEDS_MAX: bool = false;

    /// A number whose maximum over all ranks `act` is given (e.g. the most pieces any rank
    /// transfers). By default 0.
    fn local_max(&self, _target: &Self::Target) -> u64 {
        0
    }

    /// What this rank gives rank 0 or every rank, gathered by the step after the agreement
    /// and before `act` (a darray's blocks; ranks may give different numbers of words).
    /// None by default.
    fn words(&self, _target: &Self::Target) -> Option<(Vec<u64>, GatherTo)> {
        None
    }

    /// The call itself, once every rank agreed.
    fn act(self, target: &mut Self::Target, agreed: Agreed) -> Result<Self::Output>;
}

/// Where a call's [`Collective::words`] go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatherTo {
    /// Rank 0 alone (`MPI_Gatherv`): the other ranks hold no more than their own words.
    RankZero,
    /// Every rank (gathered on rank 0, then broadcast): each holds every rank's words.
    EveryRank,
}

/// What the step gives a call's action.
pub struct Agreed {
    /// The maximum of [`Collective::local_max`] over the ranks (this rank's own in a call
    /// made alone, or with the checks off when the call does not need it).
    pub max: u64,
    /// Every rank's [`Collective::words`], by rank, on the ranks they went to; empty
    /// elsewhere, and where the call has none.
    pub gathered: Vec<Vec<u64>>,
}

/// After the agreement: the communicator's first agreed call attaches its board
/// (`Comm::attach_board`), the words are gathered, and the call acts.
#[inline]
fn act_agreed<C: Collective>(request: C, target: &mut C::Target, max: u64) -> Result<C::Output> {
    target.comm().attach_board()?;
    let gathered = match request.words(target) {
        Some((words, GatherTo::RankZero)) => target.comm().gather_any(&words)?,
        Some((words, GatherTo::EveryRank)) => target.comm().allgather_any(&words)?,
        None => Vec::new(),
    };
    request.act(target, Agreed { max, gathered })
}

/// Run a collective call: check → agree → act. `request` is this rank's parsed arguments,
/// or why they could not be parsed (it takes part in the agreement all the same).
pub fn run<C: Collective>(target: &mut C::Target, request: Result<C>) -> Result<C::Output> {
    run_in_section(target, request).map(|(output, _section)| output)
}

/// [`run`], keeping HDF5's collective section for what the caller does next on every rank
/// alike (a close's HDF5 calls after its agreement).
pub fn run_in_section<C: Collective>(
    target: &mut C::Target,
    request: Result<C>,
) -> Result<(C::Output, h5::Section)> {
    let request = request.and_then(|r| r.check(target));
    if !target.checked() {
        let section = h5::enter_section();
        return run_unchecked(target, request?).map(|output| (output, section));
    }
    let request = settle_closes(target)?.and(request);
    let local_max = request.as_ref().map_or(0, |r| r.local_max(target));
    // Every rank acts holding HDF5's collective section, or none does: a rank whose other
    // thread holds it says it is not ready, and all make the agreement again after a
    // random pause. One thread (the usual case) always gets it at once.
    let mut attempt = 0;
    let (max, section) = loop {
        let section = h5::try_enter_section();
        let args = request.as_ref().map(|r| r.args(target));
        let agreed = agree_if_ready(target.comm(), C::NAME, args, local_max, section.is_some())?;
        // Every rank is told the same: the agreement held when every rank was ready.
        if let (Some(max), Some(section)) = (agreed, section) {
            break (max, section);
        }
        // (The section, if this rank took it, was let go with the tuple.)
        pause_before_trying_again(attempt);
        attempt += 1;
    };
    if let Some(file) = target.file() {
        file.finish_closes();
    }
    act_agreed(request?, target, max).map(|output| (output, section))
}

/// Before a collective call on `target`'s file: check this rank's last dataset close
/// (`core::closing`). When it did not match, the inner error is the call's own, so that the
/// call fails on every rank; after a timeout nothing can be agreed, and the outer error
/// returns at once.
pub fn settle_closes(target: &impl Members) -> Result<Result<()>> {
    match target.file().map(|f| f.closes().settle(target.comm())) {
        Some(Err(e)) if target.comm().is_broken() => Err(e),
        Some(settled) => Ok(settled),
        None => Ok(Ok(())),
    }
}

/// Wait a random time, longer after each attempt (up to some 5 ms), so that two threads
/// whose collective calls keep finding each other in the section on different ranks
/// stop meeting.
fn pause_before_trying_again(attempt: u32) {
    use std::hash::{BuildHasher, Hasher};
    // A new RandomState each call draws new keys: a cheap random number.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(attempt);
    let limit_micros = 20u64 << attempt.min(8);
    std::thread::sleep(std::time::Duration::from_micros(
        hasher.finish() % limit_micros,
    ));
}

/// A collective call with the checks off: check → act, and the maximum `act` needs from one
/// plain reduction. A rank whose check failed has returned its error alone.
fn run_unchecked<C: Collective>(target: &mut C::Target, request: C) -> Result<C::Output> {
    let local_max = request.local_max(target);
    let max = if C::NEEDS_MAX {
        target.comm().max(local_max)?
    } else {
        local_max
    };
    act_agreed(request, target, max)
}

/// Run a call one rank makes alone (an independent transfer): check → act.
pub fn run_alone<C: Collective>(target: &mut C::Target, request: Result<C>) -> Result<C::Output> {
    let request = request.and_then(|r| r.check(target))?;
    let max = request.local_max(target);
    let gathered = Vec::new();
    request.act(target, Agreed { max, gathered })
}

/// Run a transfer collectively (agreed, [`run`]) or on this rank alone ([`run_alone`]).
pub fn run_either<C: Collective>(
    collective: bool,
    target: &mut C::Target,
    request: Result<C>,
) -> Result<C::Output> {
    if collective {
        run(target, request)
    } else {
        run_alone(target, request)
    }
}

/// Inside an agreed call's action: every rank learns whether `step` worked on all ranks,
/// so that all go on, or all undo, together. Returns this rank's own error, or, when only
/// other ranks failed, an error of the lowest failing rank's kind saying `elsewhere(kind)`.
pub fn settle(
    comm: &Comm,
    name: &str,
    step: &str,
    outcome: Result<()>,
    elsewhere: impl FnOnce(ErrorKind) -> String,
) -> Result<()> {
    settle_max(comm, name, step, outcome.map(|()| 0), elsewhere).map(|_| ())
}

/// [`settle`] of a step after which the call cannot stand half done: where it failed on any
/// rank, every rank runs `undo` (given the error to report, it returns it, with what the
/// undo could not do said too) before returning. The step and its rollback, said at once.
pub fn settle_or_undo(
    comm: &Comm,
    name: &str,
    step: &str,
    outcome: Result<()>,
    elsewhere: impl FnOnce(ErrorKind) -> String,
    undo: impl FnOnce(Error) -> Error,
) -> Result<()> {
    settle(comm, name, step, outcome, elsewhere).map_err(undo)
}

/// [`settle`] of a step that yields a number on each rank: on success, the largest.
pub fn settle_max(
    comm: &Comm,
    name: &str,
    step: &str,
    outcome: Result<u64>,
    elsewhere: impl FnOnce(ErrorKind) -> String,
) -> Result<u64> {
    let args = outcome.as_ref().map(|_| Args::of(name).text("step", step));
    let value = *outcome.as_ref().unwrap_or(&0);
    agree(comm, name, args, value).map_err(|agreed| match outcome {
        Err(own) => own,
        Ok(_) if agreed.kind.is_collective() => agreed,
        Ok(_) => Error::new(agreed.kind, elsewhere(agreed.kind)),
    })
}

/// Inside an action: what rank 0 alone found (`outcome` there; the other ranks pass None),
/// told to every rank, so that all go on with the same words or return the same error,
/// its kind and its whole message (one broadcast).
pub fn told_by_rank_zero(comm: &Comm, outcome: Option<Result<Vec<u64>>>) -> Result<Vec<u64>> {
    // The first word: 0 for words, else 1 + the error kind's ordinal, then the message.
    let said = match outcome {
        Some(Ok(words)) => [0]
            .into_iter()
            .chain(words)
            .flat_map(u64::to_ne_bytes)
            .collect(),
        Some(Err(e)) => (1 + e.kind.ordinal())
            .to_ne_bytes()
            .into_iter()
            .chain(e.message.bytes())
            .collect(),
        None => Vec::new(),
    };
    let heard = comm.broadcast(&said)?;
    let (first, rest) = heard.split_at_checked(8).ok_or_else(|| {
        Error::new(
            ErrorKind::Mpi,
            "rank 0 sent nothing where its verdict was awaited",
        )
    })?;
    match u64::from_ne_bytes(first.try_into().unwrap_or_default()) {
        0 => Ok(u64s(rest)),
        kind => Err(Error::new(
            ErrorKind::from_ordinal(kind - 1),
            String::from_utf8_lossy(rest),
        )),
    }
}

impl Members for Arc<Comm> {
    fn comm(&self) -> &Arc<Comm> {
        self
    }
}
