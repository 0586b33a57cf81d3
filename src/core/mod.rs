//! Safe Rust core: files, datasets and blocks, with every rule of the library (bounds,
//! order, dtypes, collective agreement) and no knowledge of C pointers.

#![deny(unsafe_code)]

pub mod alignment;
pub mod attr;
pub mod block;
pub mod block_table;
pub mod closing;
pub mod collective;
pub mod convert;
pub mod darray;
pub mod dataset;
pub mod dimension_names;
pub mod disk_space;
pub mod environment;
pub mod extend;
pub mod fault;
pub mod file;
pub mod group;
pub mod layout;
pub mod names;
pub mod node_subfile;
pub mod overlap;
pub mod process;
#[cfg(test)]
mod properties;
pub mod raw_data;
pub mod recent_plans;
pub mod runs;
pub mod shape;
pub mod split;
pub mod stamp;
pub mod subfiles;
pub mod transfer_plan;
pub mod unsynced;
pub mod without_mpi;
pub mod write_behind;
pub mod writer_lock;
