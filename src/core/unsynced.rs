//! The subfiles a rank wrote through one file since its last flush, which the flush puts
//! on storage with the file (kept in `FileShared`; filled by `core::subfiles`).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::error::{Error, Result};
use crate::h5;
use crate::h5::id::{Id, hid_t};

/// This rank's subfiles written through one main file since its last `dah5_file_flush`,
/// which puts them on storage with the main file: HDF5 never fsyncs, so
/// without this a subfiled darray would not be durable after a flush (open ones are flushed
/// by HDF5 first, then each is fsynced).
#[derive(Debug, Default)]
pub struct Unsynced(Mutex<Vec<(PathBuf, Option<hid_t>)>>);

impl Unsynced {
    fn entries(&self) -> MutexGuard<'_, Vec<(PathBuf, Option<hid_t>)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn opened(&self, path: &Path, file: hid_t) {
        self.entries().push((path.to_path_buf(), Some(file)));
    }

    pub(crate) fn closed(&self, path: &Path) {
        for entry in self.entries().iter_mut().filter(|(p, _)| p == path) {
            entry.1 = None;
        }
    }

    /// Flush the open subfiles and fsync every one; the closed ones are then forgotten.
    pub(crate) fn sync(&self) -> Result<()> {
        let mut entries = self.entries();
        // Every one is flushed, also after one failed: a node's subfile is flushed by
        // every rank of the node together (collective), in the order they were opened.
        let mut first_error = Ok(());
        for (path, file) in entries.iter() {
            let synced = file
                .map_or(Ok(()), |raw| h5::file::flush(&Id::borrowed(raw)))
                .and_then(|()| {
                    std::fs::File::open(path)
                        .and_then(|f| f.sync_all())
                        .map_err(|e| Error::io(&e, "fsync"))
                });
            let synced = synced.map_err(|e| e.context(format_args!("subfile {}", path.display())));
            first_error = first_error.and(synced);
        }
        entries.retain(|(_, file)| file.is_some());
        first_error
    }
}
