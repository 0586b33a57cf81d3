//! Writes behind the caller (`DAH5_ASYNC`): a write of a contiguous dataset returns once it
//! is checked and its runs are known, and one thread per file moves the bytes with `pwrite`
//! at the file offsets fixed then (`core::raw_data`), straight from the caller's buffer,
//! while the caller computes. That thread never calls HDF5 or MPI, so neither needs to be
//! thread-safe (no `MPI_THREAD_MULTIPLE`). MPI's `MPI_File_iwrite_at` does progress here
//! (glibc's AIO thread, bench/iwrite_progress.c), but not on HDF5's file handle, whose view
//! HDF5 sets for its transfers while such a request would be outstanding (MPI forbids it).
//!
//! What waits, and for what: [`WriteBehind::wait`] for every write this rank started on
//! the file (`dah5_file_wait`, and before a flush or close agrees, so that a flush or close
//! finds every rank's writes done); [`WriteBehind::wait_for`] for the writes whose bytes
//! meet a range (a read or a synchronous write of that range, which must see, or land
//! after, the bytes in flight). Nothing else waits: a dataset created or closed, an
//! attribute written, go on while the data moves. The first failure is kept (a failed
//! write is sticky, as a synchronous one), said by every later wait.

use std::fs::OpenOptions;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::error::{Error, ErrorKind, Result};
use crate::file_name;
use crate::lent::Lent;
use crate::os;

/// The most bytes one `pwrite` of a write behind moves. A buffered write holds the file's
/// inode lock for its whole length (ext4), and a dataset create on rank 0 waits for that
/// lock in its `fallocate` (`core::disk_space` reserves the new dataset's blocks): in
/// pieces, the create gets in between two of them instead of after the whole run.
const PIECE: usize = 1 << 20;

/// One started write: the caller's bytes, and where in the file they go.
pub struct Job {
    /// The caller's buffer, lent until the write is waited for.
    buffer: Lent,
    /// (file offset, length) of each run, in the order of the buffer's bytes.
    runs: Vec<(u64, u64)>,
    /// From the first byte written to the last.
    span: Range<u64>,
    /// Named in a failure's message.
    dataset: String,
}

impl Job {
    /// A write of `dataset`'s runs from `buffer`, which holds the runs' bytes one after
    /// another. Runs that follow each other in the file are merged.
    pub fn new(dataset: &str, buffer: Lent, runs: impl IntoIterator<Item = (u64, u64)>) -> Job {
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (at, len) in runs {
            match merged.last_mut() {
                Some((start, prev)) if *start + *prev == at => *prev += len,
                _ => merged.push((at, len)),
            }
        }
        let start = merged.iter().map(|&(at, _)| at).min().unwrap_or(0);
        let end = merged.iter().map(|&(at, len)| at + len).max().unwrap_or(0);
        Job {
            buffer,
            runs: merged,
            span: start..end,
            dataset: dataset.to_string(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Write the runs, holding a lock on their span: MPI-IO's data sieving and two-phase
    /// writes read a range, fill in their bytes and write it back, under an fcntl lock
    /// (ROMIO); the lock keeps them from writing back bytes this write has not made yet,
    /// on any rank, this one's included (it is this open's, `os::lock_open_file_range`). On
    /// a file system without record locks the write goes on without, as MPI-IO's do there.
    fn write(&self, file: &std::fs::File) -> Result<()> {
        let (start, len) = (self.span.start, self.span.end - self.span.start);
        let locked = os::lock_open_file_range(file, true, start, len).is_ok();
        let written = self.write_runs(file);
        if locked {
            let _ = os::lock_open_file_range(file, false, start, len);
        }
        written
    }

    /// Each run in pieces of at most [`PIECE`] bytes.
    fn write_runs(&self, file: &std::fs::File) -> Result<()> {
        let pieces = self.runs.iter().flat_map(|&(at, len)| {
            (0..len)
                .step_by(PIECE)
                .map(move |from| (at + from, (len - from).min(PIECE as u64)))
        });
        let mut bytes = self.buffer.bytes();
        for (at, len) in pieces {
            let (piece, rest) = bytes.split_at(len as usize);
            bytes = rest;
            file.write_all_at(piece, at).map_err(|e| {
                Error::io(
                    &e,
                    format_args!(
                        "a write behind (DAH5_ASYNC) of dataset {:?}, {len} bytes at file \
                         offset {at}, failed after its call returned",
                        self.dataset
                    ),
                )
            })?;
        }
        Ok(())
    }
}

/// A file's writes behind: the thread that moves them, those in flight, the first failure.
#[derive(Debug, Default)]
pub struct WriteBehind {
    shared: Arc<Shared>,
    writer: Mutex<Option<Writer>>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    /// Told whenever a write ends.
    ended: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// The writes started and not ended: a number each, and its span.
    in_flight: Vec<(u64, Range<u64>)>,
    started: u64,
    failure: Option<Error>,
}

/// The thread of one file's writes, and its queue.
#[derive(Debug)]
struct Writer {
    jobs: Sender<(u64, Job)>,
    thread: JoinHandle<()>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait until `done` holds (it holds once the writes in flight end).
    fn wait_until(&self, done: impl Fn(&State) -> bool) -> MutexGuard<'_, State> {
        let mut state = self.state();
        while !done(&state) {
            state = self.ended.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state
    }

    /// The writer thread: each job in turn (so writes of the same bytes land in the order
    /// they were started), until the queue closes.
    fn serve(&self, file: std::fs::File, jobs: Receiver<(u64, Job)>) {
        for (number, job) in jobs {
            let outcome =
                catch_unwind(AssertUnwindSafe(|| job.write(&file))).unwrap_or_else(|_| {
                    Err(Error::new(
                        ErrorKind::Panic,
                        format!("a write behind of dataset {:?} panicked", job.dataset),
                    ))
                });
            // The caller's buffer is let go before the write is seen to end.
            drop(job);
            let mut state = self.state();
            state.in_flight.retain(|(n, _)| *n != number);
            if let Err(e) = outcome {
                state.failure.get_or_insert(e);
            }
            drop(state);
            self.ended.notify_all();
        }
    }
}

impl WriteBehind {
    /// Start `job` on the writer thread of the file `path` (opened, and the thread started,
    /// at the first write behind).
    pub fn start(&self, path: &str, job: Job) -> Result<()> {
        if job.is_empty() {
            return Ok(());
        }
        let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let jobs = match &mut *writer {
            Some(started) => &started.jobs,
            None => &writer.insert(self.spawn(path)?).jobs,
        };
        let number = {
            let mut state = self.shared.state();
            state.started += 1;
            let number = state.started;
            state.in_flight.push((number, job.span.clone()));
            number
        };
        jobs.send((number, job)).map_err(|_| {
            self.shared.state().in_flight.retain(|(n, _)| *n != number);
            Error::new(ErrorKind::Panic, "the write-behind thread is gone")
        })
    }

    fn spawn(&self, path: &str) -> Result<Writer> {
        let os_path = file_name::os_path(path);
        let file = OpenOptions::new()
            .write(true)
            .open(os_path)
            .map_err(|e| Error::io(&e, format_args!("open {os_path:?} for writes behind")))?;
        let (jobs, queue) = channel();
        let shared = Arc::clone(&self.shared);
        let thread = std::thread::Builder::new()
            .name("dah5-write-behind".to_string())
            .spawn(move || shared.serve(file, queue))
            .map_err(|e| Error::io(&e, "start the write-behind thread"))?;
        Ok(Writer { jobs, thread })
    }

    /// Wait for every write started on the file; the first failure of any, if one failed.
    pub fn wait(&self) -> Result<()> {
        let state = self.shared.wait_until(|s| s.in_flight.is_empty());
        state.failure.clone().map_or(Ok(()), Err)
    }

    /// Wait for the writes whose bytes meet `span` (file offsets).
    pub fn wait_for(&self, span: &Range<u64>) {
        let meets = |r: &Range<u64>| r.start < span.end && span.start < r.end;
        drop(
            self.shared
                .wait_until(|s| !s.in_flight.iter().any(|(_, r)| meets(r))),
        );
    }

    /// Whether writes are in flight now (then a transfer asks [`WriteBehind::wait_for`]).
    pub fn busy(&self) -> bool {
        !self.shared.state().in_flight.is_empty()
    }

    /// The first write that failed, if any.
    pub fn failure(&self) -> Option<Error> {
        self.shared.state().failure.clone()
    }

    /// Wait for every write, then end the thread (at the file's close).
    pub fn finish(&self) -> Result<()> {
        let waited = self.wait();
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(Writer { jobs, thread }) = writer {
            drop(jobs);
            let _ = thread.join();
        }
        waited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static BYTES: [u8; 10] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

    #[test]
    fn runs_that_follow_each_other_in_the_file_are_merged_and_the_span_covers_them() {
        let job = Job::new("x", BYTES[..].into(), [(100, 2), (102, 3), (200, 5)]);
        assert_eq!(job.runs, vec![(100, 5), (200, 5)]);
        assert_eq!(job.span, 100..205);
        assert!(Job::new("x", BYTES[..0].into(), []).is_empty());
    }

    #[test]
    fn the_runs_land_at_their_offsets_once_waited_for_and_a_failure_is_kept() {
        let dir = std::env::temp_dir().join(format!("dah5-write-behind-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, [0xffu8; 16]).unwrap();
        let path = path.to_str().unwrap();
        let behind = WriteBehind::default();
        behind
            .start(path, Job::new("x", BYTES[..4].into(), [(2, 1), (8, 3)]))
            .unwrap();
        behind
            .start(path, Job::new("x", BYTES[4..6].into(), [(9, 2)]))
            .unwrap();
        behind.wait_for(&(0..1));
        behind.wait().unwrap();
        assert!(!behind.busy());
        let got = std::fs::read(path).unwrap();
        assert_eq!(
            &got[..12],
            &[255, 255, 0, 255, 255, 255, 255, 255, 1, 4, 5, 255]
        );
        // A run past what a file may hold fails on the thread, and is said from then on.
        let far = Job::new("y", BYTES[..1].into(), [(u64::MAX - 8, 1)]);
        behind.start(path, far).unwrap();
        let failed = behind.wait().unwrap_err();
        assert!(failed.message.contains("dataset \"y\""), "{failed}");
        assert_eq!(behind.failure().map(|e| e.kind), Some(failed.kind));
        assert!(behind.finish().is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
