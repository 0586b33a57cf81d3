//! Datasets: collective create, open and close; local queries.

use std::sync::Arc;

use crate::core::digest::Digest;
use crate::core::dtype::Dtype;
use crate::core::error::{Error, ErrorKind, Result};
use crate::core::file::{File, FileShared};
use crate::core::shape::{check_dims, check_ndims};
use crate::h5;
use crate::h5::id::Id;
use crate::mpi::agree::agree;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatasetOptions {
    /// Write zeros over the whole dataset at creation (off by default: it costs a full
    /// write, and most arrays are written whole anyway).
    pub fill_with_zeros: bool,
}

/// Everything a rank says when it creates a dataset.
#[derive(Clone, Debug)]
pub struct DatasetRequest {
    /// Path inside the file; intermediate groups are created.
    pub name: String,
    pub dtype: Dtype,
    /// In the file handle's order.
    pub dims: Vec<u64>,
    pub options: DatasetOptions,
}

#[derive(Debug)]
pub struct Dataset {
    pub(crate) file: Arc<FileShared>,
    pub(crate) id: Id,
    name: String,
    dtype: Dtype,
    /// In storage (C) order.
    pub(crate) storage_dims: Vec<u64>,
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.ends_with('/') {
        return Err(Error::invalid(format!(
            "name {name:?} is not a dataset name: it must be non-empty and not end in '/'"
        )));
    }
    Ok(())
}

impl File {
    fn check_writable(&self) -> Result<()> {
        if !self.shared.writable {
            return Err(Error::new(
                ErrorKind::ReadOnly,
                format!(
                    "the file {:?} was opened read-only (DAH5_RDONLY)",
                    self.shared.path
                ),
            ));
        }
        Ok(())
    }

    /// Create a dataset (collective). `request` is this rank's arguments, or the reason
    /// they are invalid here.
    pub fn create_dataset(&self, request: Result<DatasetRequest>) -> Result<Dataset> {
        let op = "dah5_dataset_create";
        let request = request.and_then(|r| {
            self.check_writable()?;
            check_name(&r.name)?;
            check_dims(&r.dims, r.dtype.size())?;
            Ok(r)
        });
        let digest = request.as_ref().map(|r| {
            Digest::of(op)
                .bytes(r.name.as_bytes())
                .bytes(r.dtype.name().as_bytes())
                .u64s(&r.dims)
                .u64(r.options.fill_with_zeros as u64)
                .value()
        });
        agree(&self.shared.comm, op, digest, &[])?;
        let request = request?;

        let storage_dims = self.order().to_storage(&request.dims);
        let file_type = h5::types::native(request.dtype)?;
        let space = h5::space::simple(&storage_dims)?;
        let lcpl = h5::plist::link_create()?;
        let dcpl = h5::plist::dataset_create(request.options.fill_with_zeros)?;
        let id = h5::dataset::create(&self.id, &request.name, &file_type, &space, &lcpl, &dcpl)
            .map_err(|e| e.context(format_args!("dataset {:?}", request.name)))?;
        Ok(Dataset {
            file: self.shared.clone(),
            id,
            name: request.name,
            dtype: request.dtype,
            storage_dims,
        })
    }

    /// Open an existing dataset (collective).
    pub fn open_dataset(&self, name: Result<String>) -> Result<Dataset> {
        let op = "dah5_dataset_open";
        let name = name.and_then(|n| check_name(&n).map(|_| n));
        let digest = name
            .as_ref()
            .map(|n| Digest::of(op).bytes(n.as_bytes()).value());
        agree(&self.shared.comm, op, digest, &[])?;
        let name = name?;
        let context = |e: Error| e.context(format_args!("dataset {name:?}"));
        let id = h5::dataset::open(&self.id, &name).map_err(context)?;
        let file_type = h5::dataset::file_type(&id)?;
        let dtype = h5::types::dtype_of(file_type.raw()).map_err(context)?;
        let storage_dims = h5::space::dims(&h5::dataset::space(&id)?)?;
        check_ndims(storage_dims.len()).map_err(|e| {
            Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "dataset {name:?} is not an array dah5 can read: {}",
                    e.message
                ),
            )
        })?;
        Ok(Dataset {
            file: self.shared.clone(),
            id,
            name,
            dtype,
            storage_dims,
        })
    }
}

impl Dataset {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    pub fn ndims(&self) -> usize {
        self.storage_dims.len()
    }

    /// Dims in the file handle's order.
    pub fn dims(&self) -> Vec<u64> {
        self.file.order.to_storage(&self.storage_dims)
    }

    /// The agreement step of a close (collective); nothing is closed when it fails.
    pub fn agree_to_close(&self) -> Result<()> {
        let op = "dah5_dataset_close";
        let digest = Digest::of(op).bytes(self.name.as_bytes()).value();
        agree(&self.file.comm, op, Ok(digest), &[]).map(|_| ())
    }

    pub fn close(self) -> Result<()> {
        self.id.close()
    }
}
