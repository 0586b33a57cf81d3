//! The registry of live handles. A handle given to C is never a pointer to memory: it is a
//! token (kind tag, slot index, generation) dressed as a pointer. Looking it up checks all
//! three, so a closed, stale, foreign or made-up handle is `DAH5_ERR_INVALID_HANDLE`, never
//! undefined behaviour. The registry is locked only to find a value; each value has a
//! lock of its own for the calls on it (see [`Shared`]).

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::core::dataset::Dataset;
use crate::core::file::File;
use crate::core::process;
use crate::core::without_mpi::Direct;
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};

/// An open file (opaque). Made by `dah5_file_create` / `dah5_file_open`.
pub struct dah5_file {
    _opaque: [u8; 0],
}

/// An open dataset (opaque). Made by `dah5_dataset_create` / `dah5_dataset_open`.
pub struct dah5_dataset {
    _opaque: [u8; 0],
}

/// A dataset open in direct mode (opaque). Made by `dah5_direct_open`.
pub struct dah5_direct {
    _opaque: [u8; 0],
}

/// A registry token as the opaque pointer C sees. It is never dereferenced.
pub(crate) fn handle_ptr<T>(token: u64) -> *mut T {
    std::ptr::without_provenance_mut(token as usize)
}

#[cfg(not(target_pointer_width = "64"))]
compile_error!("dah5 handles are 64-bit tokens; only 64-bit targets are supported");

const FILE_TAG: u64 = 0xd;
const DATASET_TAG: u64 = 0xa;
const DIRECT_TAG: u64 = 0xb;

struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Values of one kind, addressed by tokens.
struct Slots<T> {
    tag: u64,
    kind: &'static str,
    slots: Vec<Slot<T>>,
    /// The empty slots, so that an insert takes one without a scan (a program may hold
    /// thousands of datasets open).
    free: Vec<usize>,
}

impl<T> Slots<T> {
    const fn new(tag: u64, kind: &'static str) -> Self {
        Slots {
            tag,
            kind,
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    fn insert(&mut self, value: T) -> u64 {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    value: None,
                });
                self.slots.len() - 1
            }
        };
        let slot = &mut self.slots[index];
        slot.generation = slot.generation.wrapping_add(1);
        slot.value = Some(value);
        let generation = slot.generation;
        self.token(index, generation)
    }

    /// The token of slot `index` at `generation`: kind tag, index + 1, generation.
    fn token(&self, index: usize, generation: u32) -> u64 {
        self.tag << 60 | ((index as u64 + 1) << 32) | u64::from(generation)
    }

    fn index(&self, token: u64) -> Result<usize> {
        let invalid = || {
            Error::new(
                ErrorKind::InvalidHandle,
                format!(
                    "{:#x} is not an open {} handle (closed, stale, of another kind, or never \
                     a handle)",
                    token, self.kind
                ),
            )
        };
        if token >> 60 != self.tag {
            return Err(invalid());
        }
        let index = ((token >> 32) & 0x0fff_ffff) as usize;
        let generation = token as u32;
        match index
            .checked_sub(1)
            .and_then(|i| self.slots.get(i).map(|s| (i, s)))
        {
            Some((i, slot)) if slot.generation == generation && slot.value.is_some() => Ok(i),
            _ => Err(invalid()),
        }
    }

    fn get(&self, token: u64) -> Result<&T> {
        let i = self.index(token)?;
        Ok(self.slots[i].value.as_ref().expect("checked by index"))
    }

    fn tokens(&self) -> Vec<u64> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.value.is_some())
            .map(|(i, s)| self.token(i, s.generation))
            .collect()
    }

    fn get_mut(&mut self, token: u64) -> Result<&mut T> {
        let i = self.index(token)?;
        Ok(self.slots[i].value.as_mut().expect("checked by index"))
    }

    fn remove(&mut self, token: u64) -> Result<T> {
        let i = self.index(token)?;
        Ok(self.take(i).expect("checked by index"))
    }

    /// Empty slot `i`, returning what it held.
    fn take(&mut self, i: usize) -> Option<T> {
        let value = self.slots[i].value.take();
        if value.is_some() {
            self.free.push(i);
        }
        value
    }
}

/// A registered value, shared with the calls that use it: the registry's lock is held only
/// to find it, the value's own lock for the call, so that calls on different files (from
/// different threads) do not wait for each other. `None` once closed: a call that found it
/// just before finds it gone.
pub type Shared<T> = Arc<Mutex<Option<T>>>;

/// The value of a [`Shared`], locked for one call.
pub struct Held<'a, T>(MutexGuard<'a, Option<T>>);

impl<T> Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.as_ref().expect("checked by hold")
    }
}

impl<T> DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.as_mut().expect("checked by hold")
    }
}

impl<T> Held<'_, T> {
    /// Take the value out (to close it): from now on its handle is closed to other threads.
    pub fn take(mut self) -> T {
        self.0.take().expect("checked by hold")
    }
}

/// Lock `shared` for a call (waiting for a call on it in another thread to end); a value
/// closed meanwhile is `DAH5_ERR_INVALID_HANDLE`, as its handle would be.
pub fn hold<T: Handle>(shared: &Shared<T::Value>) -> Result<Held<'_, T::Value>> {
    let guard = shared.lock().unwrap_or_else(|e| e.into_inner());
    if guard.is_none() {
        return Err(Error::new(
            ErrorKind::InvalidHandle,
            format!("the {} was closed (by another thread)", T::PARAMETER),
        ));
    }
    Ok(Held(guard))
}

/// Take a removed value out of its [`Shared`] (waiting for a call on it to end).
pub fn take<T>(shared: &Shared<T>) -> Option<T> {
    shared.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// What the local queries of a dataset answer from, without its lock: they never wait for
/// a collective call on it in another thread.
#[derive(Clone, Debug)]
pub struct Facts {
    pub dtype: Dtype,
    /// In the file handle's order.
    pub dims: Vec<u64>,
}

struct DatasetEntry {
    file: u64,
    /// Creation order, the same on every rank: a file's open datasets close in it.
    sequence: u64,
    facts: Facts,
    dataset: Shared<Dataset>,
}

pub struct Registry {
    files: Slots<Shared<File>>,
    datasets: Slots<DatasetEntry>,
    directs: Slots<Shared<Direct>>,
    next_sequence: u64,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    files: Slots::new(FILE_TAG, "dah5_file"),
    datasets: Slots::new(DATASET_TAG, "dah5_dataset"),
    directs: Slots::new(DIRECT_TAG, "dah5_direct"),
    next_sequence: 0,
});

/// The registry, locked. Held only to find, add or remove a value: never while waiting
/// for another lock or another rank.
pub fn registry() -> MutexGuard<'static, Registry> {
    // A panic caught at the boundary may have poisoned the lock; the registry itself is
    // always consistent between statements, so carry on.
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// The registry if no thread holds it now (for the exit hook, which must not wait).
pub fn try_registry() -> Option<MutexGuard<'static, Registry>> {
    match REGISTRY.try_lock() {
        Ok(guard) => Some(guard),
        Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// A C handle type: the parameter name it goes by, and what it stands for.
pub trait Handle {
    type Value;
    /// The name of the parameter in messages (`file is NULL ...`).
    const PARAMETER: &'static str;
    /// Whether what it stands for lives only while MPI runs: after `MPI_Finalize` such a
    /// handle, open or not, is `DAH5_ERR_MPI_NOT_INITIALIZED` (direct mode needs no MPI).
    const NEEDS_MPI: bool = true;
    fn get(registry: &Registry, token: u64) -> Result<&Shared<Self::Value>>;
}

impl Handle for dah5_file {
    type Value = File;
    const PARAMETER: &'static str = "file";
    fn get(registry: &Registry, token: u64) -> Result<&Shared<File>> {
        registry.files.get(token)
    }
}

impl Handle for dah5_dataset {
    type Value = Dataset;
    const PARAMETER: &'static str = "dataset";
    fn get(registry: &Registry, token: u64) -> Result<&Shared<Dataset>> {
        registry.datasets.get(token).map(|e| &e.dataset)
    }
}

impl Handle for dah5_direct {
    type Value = Direct;
    const PARAMETER: &'static str = "direct";
    const NEEDS_MPI: bool = false;
    fn get(registry: &Registry, token: u64) -> Result<&Shared<Direct>> {
        registry.directs.get(token)
    }
}

/// The token a handle argument carries; NULL is an error naming the parameter.
pub fn token<H: Handle>(handle: *const H) -> Result<u64> {
    if handle.is_null() {
        return Err(Error::null(H::PARAMETER));
    }
    Ok(handle.addr() as u64)
}

/// The token of a handle argument that can be looked up now: not NULL, and MPI running if
/// the handle needs it (the finalize hook closed what was left open, and MPI is gone).
fn live_token<H: Handle>(handle: *const H) -> Result<u64> {
    let token = token(handle)?;
    if H::NEEDS_MPI {
        process::ensure_active()?;
    }
    Ok(token)
}

/// What the handle argument `handle` stands for, shared (the registry held only to find it).
pub fn shared<H: Handle>(handle: *const H) -> Result<Shared<H::Value>> {
    let token = live_token(handle)?;
    H::get(&registry(), token).cloned()
}

impl Registry {
    pub fn insert_file(&mut self, file: File) -> u64 {
        self.files.insert(Arc::new(Mutex::new(Some(file))))
    }

    /// The tokens of every open file, in slot order.
    pub fn file_tokens(&self) -> Vec<u64> {
        self.files.tokens()
    }

    /// The datasets of the file `token` open now, in creation order (the same on every
    /// rank: a file's open datasets close in it).
    pub fn datasets_of(&self, token: u64) -> Vec<Shared<Dataset>> {
        let mut entries: Vec<&DatasetEntry> = (self.datasets.slots.iter())
            .filter_map(|slot| slot.value.as_ref())
            .filter(|e| e.file == token)
            .collect();
        entries.sort_by_key(|e| e.sequence);
        entries.into_iter().map(|e| e.dataset.clone()).collect()
    }

    /// Remove a file and every dataset of it.
    pub fn remove_file(&mut self, token: u64) -> Result<()> {
        self.files.remove(token)?;
        for i in 0..self.datasets.slots.len() {
            if self.datasets.slots[i]
                .value
                .as_ref()
                .is_some_and(|e| e.file == token)
            {
                self.datasets.take(i);
            }
        }
        Ok(())
    }

    /// Register a new dataset of the file `file` and return its handle.
    pub fn insert_dataset(&mut self, file: u64, dataset: Dataset) -> *mut dah5_dataset {
        self.next_sequence += 1;
        let facts = Facts {
            dtype: dataset.dtype(),
            dims: dataset.dims(),
        };
        let token = self.datasets.insert(DatasetEntry {
            file,
            sequence: self.next_sequence,
            facts,
            dataset: Arc::new(Mutex::new(Some(dataset))),
        });
        handle_ptr(token)
    }

    /// The dataset's [`Facts`].
    pub fn facts(&self, handle: *const dah5_dataset) -> Result<&Facts> {
        self.datasets.get(live_token(handle)?).map(|e| &e.facts)
    }

    /// Its dims changed (an extend): what its local queries answer from now.
    pub fn set_dims(&mut self, handle: *const dah5_dataset, dims: Vec<u64>) -> Result<()> {
        self.datasets.get_mut(token(handle)?)?.facts.dims = dims;
        Ok(())
    }

    pub fn remove_dataset(&mut self, token: u64) -> Result<Shared<Dataset>> {
        self.datasets.remove(token).map(|e| e.dataset)
    }

    pub fn insert_direct(&mut self, direct: Direct) -> u64 {
        self.directs.insert(Arc::new(Mutex::new(Some(direct))))
    }

    pub fn remove_direct(&mut self, token: u64) -> Result<Shared<Direct>> {
        self.directs.remove(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_foreign_and_made_up_tokens_are_rejected() {
        let mut slots: Slots<&str> = Slots::new(FILE_TAG, "test");
        let a = slots.insert("a");
        assert_eq!(*slots.get(a).unwrap(), "a");
        assert_eq!(slots.remove(a).unwrap(), "a");
        assert_eq!(
            slots.get(a).unwrap_err().kind,
            ErrorKind::InvalidHandle,
            "closed"
        );
        let b = slots.insert("b");
        assert_ne!(a, b, "a reused slot gets a new generation");
        assert_eq!(slots.slots.len(), 1, "the freed slot is reused");
        assert!(slots.get(a).is_err(), "stale token of a reused slot");
        assert!(slots.get(b).is_ok());
        let other: Slots<&str> = Slots::new(DATASET_TAG, "other");
        assert!(other.get(b).is_err(), "a token of another kind");
        for made_up in [0, 1, 0xdead_beef, u64::MAX, FILE_TAG << 60] {
            assert!(slots.get(made_up).is_err(), "{made_up:#x}");
        }
    }

    #[test]
    fn emptied_slots_are_taken_again_before_new_ones() {
        let mut slots: Slots<u32> = Slots::new(DATASET_TAG, "test");
        let tokens: Vec<u64> = (0..3).map(|v| slots.insert(v)).collect();
        assert_eq!(slots.remove(tokens[1]).unwrap(), 1);
        let again = slots.insert(7);
        assert_eq!(slots.slots.len(), 3);
        assert_eq!(*slots.get(again).unwrap(), 7);
        for token in [tokens[0], tokens[2], again] {
            slots.remove(token).unwrap();
        }
        assert!(slots.take(0).is_none(), "an empty slot is not freed twice");
        let fresh: Vec<u64> = (0..4).map(|v| slots.insert(v)).collect();
        assert_eq!(slots.slots.len(), 4, "three reused, one new");
        for (v, token) in fresh.into_iter().enumerate() {
            assert_eq!(*slots.get(token).unwrap(), v as u32);
        }
    }
}
