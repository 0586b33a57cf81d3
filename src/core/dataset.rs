//! Datasets: collective create, open and close; local queries.

use std::sync::Arc;

use crate::core::block_table::Recorded;
use crate::core::closing::{CloseWithFile, HeldCloses};
use crate::core::collective::{self, Agreed, Args, Collective, Members};
use crate::core::disk_space;
use crate::core::file::{File, FileShared};
use crate::core::layout::{self, Layout, LayoutRequest};
use crate::core::names::{self, Wanted};
use crate::core::shape::{check_dims, check_ndims, data_bytes};
use crate::core::subfiles::Subfiles;
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::id::Id;
use crate::inline_storage::{Dims, Name};
use crate::mpi::agree::{Later, agree_later};
use crate::mpi::comm::Comm;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatasetOptions {
    /// Write zeros over the whole dataset at creation (off by default: it costs a full
    /// write, and most arrays are written whole anyway).
    pub fill_with_zeros: bool,
    /// Chunking, compression, maximum dims: in the file handle's order.
    pub layout: LayoutRequest,
}

/// Everything a rank says when it creates a dataset.
#[derive(Clone, Debug)]
pub struct DatasetRequest {
    /// Path inside the file; intermediate groups are created.
    pub name: Name,
    pub dtype: Dtype,
    /// In the file handle's order.
    pub dims: Dims,
    pub options: DatasetOptions,
}

impl DatasetRequest {
    /// Everything that must be the same on every rank.
    pub(crate) fn args<'a>(&'a self, file: &'a File, name: &'static str) -> Args<'a> {
        let layout = &self.options.layout;
        file.args(name)
            .text("name", &*self.name)
            .text("dtype", self.dtype.name())
            .numbers("dims", &self.dims)
            .numbers("options.chunk", layout.chunk.as_deref().unwrap_or_default())
            .numbers(
                "options.max_dims",
                layout.max_dims.as_deref().unwrap_or_default(),
            )
            .number("options.deflate_level", layout.deflate_level as u64)
            .number("options.shuffle", layout.shuffle as u64)
            .number("options.fill_zeros", self.options.fill_with_zeros as u64)
    }
}

#[derive(Debug)]
pub struct Dataset {
    pub(crate) file: Arc<FileShared>,
    pub(crate) id: Id,
    name: Name,
    dtype: Dtype,
    /// In storage (C) order.
    pub(crate) storage_dims: Dims,
    /// Maximum extents in storage order; `None`: `storage_dims` (it cannot grow). See
    /// [`Dataset::max_storage_dims`]. (Boxed: few datasets can grow, and a dataset of at most
    /// 128 bytes is moved without a call to memcpy.)
    max_storage_dims: Option<Box<[u64]>>,
    /// Filters (compression) on: parallel HDF5 then writes only collectively.
    pub(crate) filtered: bool,
    /// The decomposition recorded by `dah5_darray_write`, if any. (Boxed, as `subfiles`:
    /// a plain dataset stays small, and moving it cheap.)
    pub(crate) blocks: Option<Box<Recorded>>,
    /// Where a subfiled darray's blocks are (`core::subfiles`).
    pub(crate) subfiles: Option<Box<Subfiles>>,
}

impl File {
    /// The layout of `request` in storage order, following `block` (storage order) when the
    /// library picks the chunk.
    pub(crate) fn layout_of(
        &self,
        request: &DatasetRequest,
        block: Option<&[u64]>,
    ) -> Result<Layout> {
        if request.options.layout.is_plain() {
            return Ok(Layout::contiguous());
        }
        let order = self.order();
        let storage = LayoutRequest {
            chunk: request
                .options
                .layout
                .chunk
                .as_deref()
                .map(|c| order.to_storage(c)),
            max_dims: request
                .options
                .layout
                .max_dims
                .as_deref()
                .map(|m| order.to_storage(m)),
            ..request.options.layout.clone()
        };
        layout::decide(
            &order.as_storage(&request.dims),
            request.dtype.size(),
            &storage,
            block,
        )
    }

    /// Check what one rank can check alone before a dataset is created; its layout when the
    /// library picks no chunk after the blocks (see [`File::layout_of`]).
    pub(crate) fn check_create(&self, request: &DatasetRequest) -> Result<Layout> {
        self.shared.check_writable()?;
        names::check_new_dataset(&request.name)?;
        check_dims(&request.dims, request.dtype.size())?;
        let layout = self.layout_of(request, None)?;
        let bytes = data_bytes(&request.dims, request.dtype.size());
        let reserved_at_create = layout.is_contiguous() && disk_space::worth_reserving(bytes);
        let unreserved = if reserved_at_create { 0 } else { bytes };
        self.claim_room(|| format!("dataset {:?}", request.name), bytes, unreserved)?;
        Ok(layout)
    }

    /// Create a dataset all ranks agreed on (collective).
    pub(crate) fn create_agreed(
        &self,
        request: DatasetRequest,
        layout: &Layout,
    ) -> Result<Dataset> {
        let DatasetRequest {
            name,
            dtype,
            dims,
            options,
        } = request;
        let storage_dims = self.order().into_storage(dims);
        let special;
        let dcpl = if layout.is_contiguous() && !options.fill_with_zeros {
            &self.lists.contiguous
        } else {
            special = h5::plist::dataset_create(layout, options.fill_with_zeros)?;
            &special
        };
        let max_storage_dims = layout.max_dims.as_deref().map(Box::from);
        let mut dataset = self.create_with(name, dtype, storage_dims, max_storage_dims, dcpl)?;
        dataset.filtered = layout.filtered();
        let bytes = data_bytes(&dataset.storage_dims, dataset.dtype.size());
        if layout.is_contiguous() && disk_space::worth_reserving(bytes) {
            self.reserve(&mut dataset, bytes)?;
        }
        Ok(dataset)
    }

    /// Create the dataset `name` all ranks agreed on, of `storage_dims` up to
    /// `max_storage_dims` (`None`: fixed), with the creation list `dcpl` (collective).
    pub(crate) fn create_with(
        &self,
        name: Name,
        dtype: Dtype,
        storage_dims: Dims,
        max_storage_dims: Option<Box<[u64]>>,
        dcpl: &Id,
    ) -> Result<Dataset> {
        let file_type = h5::types::native(dtype)?;
        let max = max_storage_dims.as_deref().unwrap_or(&storage_dims);
        let space = self.dataspace(&storage_dims, max)?;
        // Intermediate groups only for a path: HDF5 checks each component otherwise.
        let plain = Id::borrowed(h5::plist::DEFAULT);
        let lcpl = if name.contains('/') {
            &self.lists.lcpl
        } else {
            &plain
        };
        let id =
            h5::dataset::create(&self.id, &name, &file_type, &space, lcpl, dcpl).map_err(|e| {
                let e = e.context(format_args!("dataset {name:?}"));
                let e = names::explain(&self.id, &name, Wanted::New, false, e);
                self.shared.metadata_failure(e)
            })?;
        Ok(Dataset::listed(Dataset {
            file: self.shared.clone(),
            id,
            name,
            dtype,
            storage_dims,
            max_storage_dims,
            filtered: false,
            blocks: None,
            subfiles: None,
        }))
    }

    /// Remove the dataset `name` that this collective call created, after `cause` failed it
    /// on every rank, and return `cause`: a failed call leaves nothing behind. Both steps
    /// run on every rank, whatever the first one said, as they are collective.
    pub(crate) fn take_out(&self, id: h5::id::Id, name: &str, cause: Error) -> Error {
        let closed = id.close();
        let unlinked = h5::dataset::unlink(&self.id, name);
        match closed.and(unlinked) {
            Ok(()) => cause,
            Err(cleanup) => Error::new(
                cause.kind,
                format!(
                    "{}; removing the dataset again failed too: {}",
                    cause.message, cleanup.message
                ),
            ),
        }
    }

    /// Reserve the file system space of a new contiguous dataset (collective): rank 0
    /// reserves its byte range, and every rank learns whether that worked; where it did
    /// not, the dataset is taken out again on every rank.
    fn reserve(&self, dataset: &mut Dataset, bytes: u64) -> Result<()> {
        let comm = &self.shared.comm;
        let (id, name) = (&dataset.id, &*dataset.name.clone());
        // Rank 0 alone asks where the data is and reserves it; every outcome, an error
        // included, is settled, so no rank is left waiting.
        let reserved = if comm.rank() == 0 {
            h5::dataset::storage(id).and_then(|storage| match storage.offset {
                Some(offset) => disk_space::reserve(&self.shared.path, name, offset, bytes)
                    .inspect(|()| self.shared.room.reserved_at(offset, bytes)),
                None => Ok(()),
            })
        } else {
            Ok(())
        };
        let path = &self.shared.path;
        let elsewhere = |kind| {
            if kind == ErrorKind::NoSpace {
                format!(
                    "dataset {name:?} needs {bytes} bytes but the file system of {path:?} \
                     cannot hold them (rank 0 could not reserve them); the dataset was not \
                     created"
                )
            } else {
                format!(
                    "rank 0 could not reserve the space of dataset {name:?} (its message says \
                     why); the dataset was not created"
                )
            }
        };
        let undo = |e| self.take_out(dataset.take_id(), name, e);
        collective::settle_or_undo(
            comm,
            CreateDataset::NAME,
            "reserve",
            reserved,
            elsewhere,
            undo,
        )
    }
}

/// `dah5_dataset_create`: a rank's request to create a dataset, checked (see
/// [`CreateDataset::checked`]).
pub struct CreateDataset {
    request: DatasetRequest,
    layout: Layout,
}

impl CreateDataset {
    /// `request` checked by what this rank can check alone ([`File::check_create`]): made
    /// here rather than in [`Collective::check`], as the check decides the layout `act`
    /// creates. A failure takes part in the agreement as any check's does.
    pub fn checked(file: &File, request: DatasetRequest) -> Result<CreateDataset> {
        let layout = file.check_create(&request)?;
        Ok(CreateDataset { request, layout })
    }
}

impl Collective for CreateDataset {
    const NAME: &'static str = "dah5_dataset_create";
    type Target = File;
    type Output = Dataset;

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        self.request.args(file, Self::NAME)
    }

    fn act(self, file: &mut File, _: Agreed) -> Result<Dataset> {
        file.create_agreed(self.request, &self.layout)
    }
}

/// `dah5_dataset_open`: open an existing dataset by name.
pub struct OpenDataset(pub String);

impl Collective for OpenDataset {
    const NAME: &'static str = "dah5_dataset_open";
    type Target = File;
    type Output = Dataset;

    fn check(self, file: &File) -> Result<Self> {
        names::check_dataset(&self.0)?;
        file.shared.check_unchanged()?;
        Ok(self)
    }

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        file.args(Self::NAME).text("name", &self.0)
    }

    fn act(self, file: &mut File, _: Agreed) -> Result<Dataset> {
        let name = self.0;
        let context = |e: Error| e.context(format_args!("dataset {name:?}"));
        let id = h5::dataset::open(&file.id, &name)
            .map_err(|e| names::explain(&file.id, &name, Wanted::Dataset, false, context(e)))?;
        let file_type = h5::dataset::file_type(&id)?;
        let dtype = h5::types::dtype_of(file_type.raw()).map_err(context)?;
        let (storage_dims, max) = h5::space::extents(&h5::dataset::space(&id)?)?;
        let max_storage_dims = (max != storage_dims).then(|| max.into());
        check_ndims(storage_dims.len()).map_err(|e| {
            Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "dataset {name:?} is not an array dah5 can read: {}",
                    e.message
                ),
            )
        })?;
        let filtered = h5::plist::has_filters(&h5::dataset::create_plist(&id)?)?;
        let blocks = Recorded::read(&id, &storage_dims).map_err(context)?;
        let subfiles = match blocks {
            Some(_) => Subfiles::read(&id, &file.shared.path).map_err(context)?,
            None => None,
        };
        let (blocks, subfiles) = (blocks.map(Box::new), subfiles.map(Box::new));
        Ok(Dataset::listed(Dataset {
            file: file.shared.clone(),
            id,
            name: name.as_str().into(),
            dtype,
            storage_dims: storage_dims.into(),
            max_storage_dims,
            filtered,
            blocks,
            subfiles,
        }))
    }
}

impl Members for Dataset {
    fn comm(&self) -> &Arc<Comm> {
        &self.file.comm
    }

    fn file(&self) -> Option<&dyn HeldCloses> {
        Some(&*self.file)
    }

    fn checked(&self) -> bool {
        self.file.checked
    }
}

impl Dataset {
    /// The dataset in an agreement's arguments.
    pub(crate) fn args(&self, name: &'static str) -> Args<'_> {
        Args::of(name)
            .text("file", &self.file.path)
            .text("dataset", &*self.name)
    }

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

    /// Maximum dims in the file handle's order (`UNLIMITED` where unbounded).
    pub fn max_dims(&self) -> Vec<u64> {
        self.file.order.to_storage(self.max_storage_dims())
    }

    /// Maximum extents in storage order (`storage_dims` unless it can grow).
    pub(crate) fn max_storage_dims(&self) -> &[u64] {
        self.max_storage_dims
            .as_deref()
            .unwrap_or(&self.storage_dims)
    }

    /// Listed as open in its file (see `FileShared::list`) until dropped.
    fn listed(dataset: Dataset) -> Dataset {
        dataset.file.list(&dataset.name, dataset.id.raw());
        dataset
    }

    /// The dataset's id, taken out of it (the dataset is then closed as far as dah5 is
    /// concerned; the id is the caller's to close).
    pub(crate) fn take_id(&mut self) -> Id {
        self.file.unlist(self.id.raw());
        std::mem::replace(&mut self.id, Id::borrowed(-1))
    }

    /// `dah5_dataset_close`'s agreement when it does not agree alone
    /// ([`Dataset::closes_alone`]): this rank's words posted without waiting for the other
    /// ranks' (`core::closing`). An error leaves the dataset open: nothing was done.
    pub fn agree_on_close(&mut self) -> Result<Option<Later>> {
        if let Err(e) = collective::settle_closes(self)? {
            // The rank's last close did not match: this close is the call that says so on
            // every rank.
            return collective::run(self, Err::<CloseDataset, _>(e)).map(|()| None);
        }
        let said = [
            b"call\tdah5_dataset_close\ndataset\t\"".as_slice(),
            self.name.as_bytes(),
            b"\"\n",
        ];
        let args = self.args(CloseDataset::NAME);
        agree_later(&self.file.comm, CloseDataset::NAME, &args, &said)
    }

    /// After [`Dataset::agree_on_close`]: the dataset's HDF5 id is held until the next
    /// agreed call on the file (`core::closing`).
    pub fn close_held(mut self, later: Option<Later>) {
        let (file, name) = (self.file.clone(), self.name.to_string());
        file.closes().hold(name, self.take_id(), later);
    }

    /// Whether `dah5_dataset_close` agrees on its own: with the checks off (then nothing is
    /// agreed) or when the close has collective work (a subfiled darray being written).
    /// The same on every rank: both were agreed when the file and the dataset were made.
    pub fn closes_alone(&self) -> bool {
        !self.file.checked || self.subfiles.as_ref().is_some_and(|s| s.writing())
    }

    /// Close (collective for a subfiled darray being written: see [`Subfiles::finish`];
    /// its error comes first, the handle is closed all the same).
    pub fn close(mut self) -> Result<()> {
        let finished = self.finish_subfiles();
        let closed = self.take_id().close();
        finished.and(closed)
    }

    fn finish_subfiles(&mut self) -> Result<()> {
        let Some(subfiles) = self.subfiles.as_mut() else {
            return Ok(());
        };
        if subfiles.finish(&self.file, &self.id, &self.name)?
            && let Some(recorded) = self.blocks.as_mut()
        {
            recorded.complete = true;
        }
        Ok(())
    }
}

impl CloseWithFile for Dataset {
    fn close(self) -> Result<()> {
        Dataset::close(self)
    }
}

impl Drop for Dataset {
    fn drop(&mut self) {
        // A dataset whose id was taken out ([`Dataset::take_id`], as every close does) is
        // off the list already.
        if self.id.raw() >= 0 {
            self.file.unlist(self.id.raw());
        }
    }
}

/// `dah5_dataset_close`, its agreement; nothing is closed when it fails, then
/// [`Dataset::close`] closes.
pub struct CloseDataset;

impl Collective for CloseDataset {
    const NAME: &'static str = "dah5_dataset_close";
    type Target = Dataset;
    type Output = ();

    fn args<'a>(&'a self, dataset: &'a Dataset) -> Args<'a> {
        dataset.args(Self::NAME)
    }

    fn act(self, _dataset: &mut Dataset, _: Agreed) -> Result<()> {
        Ok(())
    }
}
