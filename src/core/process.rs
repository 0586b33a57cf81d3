//! The process the library runs in, as the C API asks about it: whether MPI and HDF5 can be
//! used, this rank for messages, the libraries' versions, and what HDF5 does at exit.

pub use crate::h5::closes_files_at_exit as hdf5_closes_files_at_exit;
pub use crate::mpi::finalize::finalize_began;
pub use crate::mpi::{check_abi, ensure_active, world_rank};

/// A line naming the running dah5, HDF5 and MPI libraries, e.g.
/// `"dah5 0.1.0; HDF5 1.10.8; Open MPI v4.1.4"`.
pub fn versions() -> String {
    // HDF5 is not touched (it would call MPI) when dah5's MPI is not the program's.
    let hdf5 = match check_abi() {
        Ok(()) => crate::h5::library_version().unwrap_or_else(|_| "unknown".to_string()),
        Err(_) => "not loaded (MPI library mismatch)".to_string(),
    };
    format!(
        "dah5 {}; HDF5 {hdf5}; {}",
        env!("CARGO_PKG_VERSION"),
        crate::mpi::library_version()
    )
}
