//! dah5: many MPI processes write and read one distributed array in one HDF5 dataset.
//!
//! Layers; each imports only the ones below it:
//!
//! | layer       | what it is                                                     | unsafe |
//! |-------------|----------------------------------------------------------------|--------|
//! | [`ffi`]     | the C ABI: thin `extern "C"` shims, handles, status codes      | yes    |
//! | [`info_command`] | `dah5 info` (src/bin/dah5.rs): a file described, read alone     | no     |
//! | [`core`]    | files, datasets, blocks, every rule; one [`core::collective`] step | no  |
//! | `h5`, `mpi` | the HDF5 and MPI boundaries (`h5` uses `mpi` for its hints)     | yes    |
//! | `os`        | the few system calls dah5 makes itself                          | yes    |
//! | [`inline_storage`] | a dataset's dims and name held without a heap block           | one block |
//! | [`lent`]    | a write's buffer the C caller lends past the call (`DAH5_ASYNC`) | one block |
//! | [`error`], [`dtype`] | vocabulary every layer shares                           | no     |
//!
//! Check them with `grep -rn 'crate::\(core\|ffi\)' src/h5 src/mpi src/os.rs src/inline_storage.rs src/lent.rs` (prints
//! nothing) and `grep -rn 'crate::ffi' src/core` (nothing); `ffi` reaches `h5` and `mpi`
//! only through `core`, and no two files of a folder import each other (`tests/layers.rs`);
//! `core` is `#![deny(unsafe_code)]`. See `CONTRIBUTING.md` for how a call goes through the layers,
//! `docs/` for the semantics and `include/dah5.h` for the C API.

#![deny(clippy::undocumented_unsafe_blocks)]
#![allow(non_camel_case_types)]

pub mod core;
pub mod dtype;
pub mod error;
pub mod ffi;
mod file_name;
mod h5;
pub mod info_command;
pub mod inline_storage;
pub mod lent;
pub mod merge;
mod mpi;
mod os;
