//! dah5: many MPI processes write and read one distributed array in one HDF5 dataset.
//!
//! Layers, and data flows one way: [`ffi`] (the C ABI) → [`core`] (safe Rust: files,
//! datasets, blocks) → `h5` (the HDF5 boundary) and `mpi` (communicators, agreement).
//! See `README.md` for the semantics and `include/dah5.h` for the C API.

#![deny(clippy::undocumented_unsafe_blocks)]
#![allow(non_camel_case_types)]

pub mod core;
pub mod ffi;
mod h5;
mod mpi;
