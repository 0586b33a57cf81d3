//! The agreement's words through shared memory, when every rank of a file's communicator
//! runs on one node. A message between two ranks of one node took 1.1–1.6 µs through Open
//! MPI 4 on the development VM, and a write a rank reads from shared memory 0.2–0.5 µs;
//! every collective call pays one exchange.
//!
//! The board is one shared-memory segment (POSIX `shm_open`, unlinked as soon as every
//! rank has mapped it, so nothing is left behind). Each rank posts its words of an
//! agreement in a slot of its own and reads every other rank's slot: one write and
//! size − 1 reads that do not wait for each other, where messages take log2(size) rounds
//! one after the other. Every rank reads the same words, so every rank decides the same;
//! and a rank may post its words and go on without reading (`agree::agree_later`): the
//! others find them, and it reads theirs at its next call.
//!
//! A slot is the agreement's words and number, written after the words (release) and read
//! before them (acquire), and a short text of what the call is (for the message of a
//! mismatch with a rank that went on). Two slots a rank, by the agreement's parity: a rank
//! posts agreement N + 2 only after it read every rank's words of N + 1, which a rank posts
//! only after it read every rank's words of N, so a slot is never overwritten before every
//! rank read it. Tearing it down is local (`munmap`): no collective call at close, which
//! could hang when the ranks are out of step.

use std::ffi::{CStr, CString};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

/// Environment variable: `off` makes the agreements go through MPI messages also when all
/// ranks share a node (read at each file's open; off on one rank is off on all).
pub(crate) const SHARED_MEMORY_ENV: &str = "DAH5_SHARED_MEMORY";

/// The words of one agreement a rank posts (`agree`: a header and the operation's value).
pub(crate) const WORDS: usize = 6;
pub(crate) type Words = [u64; WORDS];

/// Bytes of text a slot holds (longer texts are cut).
const TEXT_BYTES: usize = 184;

/// One rank's words of one agreement, on cache lines of its own.
#[repr(C, align(64))]
struct Slot {
    /// The agreement's number + 1 (0: never written).
    number: AtomicU64,
    words: [AtomicU64; WORDS],
    /// 1 when the rank went on without reading the others' words.
    went_on: AtomicU64,
    /// The text's length, then its bytes, eight to a word.
    text_len: AtomicU64,
    text: [AtomicU64; TEXT_BYTES / 8],
}

/// What a rank posted.
pub struct Posted {
    pub words: Words,
    /// It went on without reading the others' words (`agree::agree_later`).
    pub went_on: bool,
}

/// A shared-memory board of the ranks of one communicator on one node.
#[derive(Debug)]
pub struct Board {
    base: NonNull<Slot>,
    len: usize,
    /// The node has fewer CPUs than the board has ranks: a rank waiting for another gives
    /// its CPU up at once, as the other may need it to arrive.
    pub crowded: bool,
}

// SAFETY: the mapping is shared memory that any thread may touch; all access goes through
// atomics.
unsafe impl Send for Board {}
// SAFETY: as above.
unsafe impl Sync for Board {}

impl Board {
    /// Make the segment `name` (zeroed) for `ranks` ranks and map it: rank 0's part of
    /// setting a board up (`Comm::attach_board`). `None` when it cannot be made here.
    pub fn create(name: &CStr, ranks: usize, crowded: bool) -> Option<Board> {
        let len = Board::bytes(ranks);
        map(name, len, true).map(|base| Board { base, len, crowded })
    }

    /// Map the segment `name` that rank 0 made for `ranks` ranks.
    pub fn join(name: &CStr, ranks: usize, crowded: bool) -> Option<Board> {
        let len = Board::bytes(ranks);
        map(name, len, false).map(|base| Board { base, len, crowded })
    }

    /// Two slots a rank.
    fn bytes(ranks: usize) -> usize {
        ranks * 2 * std::mem::size_of::<Slot>()
    }

    fn slot(&self, rank: i32, number: u64) -> &Slot {
        let index = rank as usize * 2 + (number % 2) as usize;
        // SAFETY: `index` is within the mapping (rank < size), which lives as long as
        // `self`; a Slot is all atomics, valid for any bytes (zero at first).
        unsafe { &*self.base.as_ptr().add(index) }
    }

    /// Put this rank's `words` of agreement `number` on the board, with `text` (its pieces
    /// one after the other) saying what the call is; `went_on` when the rank does not wait
    /// for the others' words.
    pub fn post(&self, rank: i32, number: u64, words: &Words, went_on: bool, text: &[&[u8]]) {
        let slot = self.slot(rank, number);
        for (cell, &w) in slot.words.iter().zip(words) {
            cell.store(w, Ordering::Relaxed);
        }
        slot.went_on.store(went_on as u64, Ordering::Relaxed);
        // Gathered piece by piece, then stored a word at a time (a byte at a time cost a
        // third of an agreement's instructions).
        let mut bytes = [0u8; TEXT_BYTES];
        let mut len = 0;
        for piece in text {
            let n = piece.len().min(TEXT_BYTES - len);
            bytes[len..len + n].copy_from_slice(&piece[..n]);
            len += n;
        }
        for (cell, word) in slot
            .text
            .iter()
            .zip(bytes[..len.next_multiple_of(8)].chunks(8))
        {
            let word: [u8; 8] = word.try_into().unwrap_or_default();
            cell.store(u64::from_le_bytes(word), Ordering::Relaxed);
        }
        slot.text_len.store(len as u64, Ordering::Relaxed);
        slot.number.store(number + 1, Ordering::Release);
    }

    /// Rank `from`'s words of agreement `number`, once posted.
    pub fn read(&self, from: i32, number: u64) -> Option<Posted> {
        let slot = self.slot(from, number);
        if slot.number.load(Ordering::Acquire) != number + 1 {
            return None;
        }
        Some(Posted {
            words: std::array::from_fn(|i| slot.words[i].load(Ordering::Relaxed)),
            went_on: slot.went_on.load(Ordering::Relaxed) != 0,
        })
    }

    /// The text rank `from` posted with agreement `number` (once [`Board::read`] found it).
    pub fn text(&self, from: i32, number: u64) -> String {
        let slot = self.slot(from, number);
        let len = (slot.text_len.load(Ordering::Relaxed) as usize).min(TEXT_BYTES);
        let bytes: Vec<u8> = slot
            .text
            .iter()
            .flat_map(|cell| cell.load(Ordering::Relaxed).to_le_bytes())
            .take(len)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `create` or `join`, unmapped once.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

/// This process's id and a number for each segment it makes: with rank 0's, a name no
/// other segment has ([`segment_name`]).
pub fn segment_id() -> [u64; 2] {
    static MADE: AtomicU64 = AtomicU64::new(0);
    [
        std::process::id() as u64,
        MADE.fetch_add(1, Ordering::Relaxed),
    ]
}

/// The segment's name, from rank 0's [`segment_id`] (the first two of `all`).
pub fn segment_name(all: &[u64]) -> CString {
    let name = format!("/dah5-{}-{}", all[0], all[1]);
    CString::new(name).expect("no NUL in a formatted name")
}

/// Remove the segment's name once every rank has mapped it (the mappings stay).
pub fn unlink(name: &CStr) {
    // SAFETY: a valid NUL-terminated name.
    unsafe { libc::shm_unlink(name.as_ptr()) };
}

/// Map the segment `name` of `len` bytes, making it (zeroed) when `create`.
fn map(name: &CStr, len: usize, create: bool) -> Option<NonNull<Slot>> {
    let flags = if create {
        libc::O_CREAT | libc::O_EXCL | libc::O_RDWR
    } else {
        libc::O_RDWR
    };
    // SAFETY: a valid NUL-terminated name; the descriptor is closed below.
    let fd = unsafe { libc::shm_open(name.as_ptr(), flags, 0o600) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is an open shared-memory object; a new one reads as zeros.
    let sized = !create || unsafe { libc::ftruncate(fd, len as libc::off_t) } == 0;
    let addr = if sized {
        // SAFETY: a new shared mapping of `len` bytes of `fd`; checked below.
        unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        }
    } else {
        libc::MAP_FAILED
    };
    // SAFETY: `fd` is open; the mapping keeps the memory.
    unsafe { libc::close(fd) };
    if addr == libc::MAP_FAILED {
        if create {
            // SAFETY: a valid NUL-terminated name.
            unsafe { libc::shm_unlink(name.as_ptr()) };
        }
        return None;
    }
    NonNull::new(addr.cast())
}
