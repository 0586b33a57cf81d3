//! `dah5 merge IN OUT`: a file with subfiled darrays (or any file of dah5's arrays) copied
//! into one ordinary HDF5 file, for archives and transfers: every dataset contiguous, with
//! its attributes, its dimension names and its block table. Run under `mpiexec`: every rank
//! of MPI_COMM_WORLD copies a balanced part of each dataset (`core::darray::partition`),
//! reading subfiled darrays straight from their subfiles and writing independently, so the
//! data moves at file-per-process speed; the metadata calls are collective and agreed, as
//! in every dah5 program. Every group is copied with its attributes, an empty one too. A
//! failed merge removes OUT.

use crate::core::block::{BlockRequest, Buffer, ReadBlock, WriteBlock};
use crate::core::block_table::{BlockTable, RowWriter};
use crate::core::collective;
use crate::core::darray::partition;
use crate::core::dataset::{CreateDataset, Dataset, DatasetRequest, OpenDataset};
use crate::core::dimension_names::{SetDimNames, is_dimension_only};
use crate::core::file::{
    Access, CloseFile, File, FileCall, FileOptions, FileRequest, checks_from_env,
    file_sync_from_env,
};
use crate::core::group::CreateGroup;
use crate::core::names::TABLES_GROUP;
use crate::core::shape::BlockList;
use crate::core::shape::{Order, byte_len, data_bytes};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::file_name;
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::Id;
use crate::mpi;

/// What a merge copied.
pub struct Merged {
    /// This process's rank in MPI_COMM_WORLD (rank 0 reports).
    pub rank: i32,
    pub ranks: i32,
    pub datasets: usize,
    /// Data bytes of the datasets copied (by all ranks together).
    pub bytes: u64,
}

/// The most one rank moves in one read and write: a rank's part of a dataset larger than
/// this is copied in several steps, so the merge's memory stays bounded.
const STEP_BYTES: u64 = 64 << 20;

/// A transfer of the block `offset, count` of `dtype`.
fn block<'a>(
    (offset, count): (&[u64], &[u64]),
    dtype: Dtype,
    collective: bool,
    buffer: Buffer<'a>,
) -> BlockRequest<'a> {
    BlockRequest {
        blocks: BlockList::one(offset.to_vec(), count.to_vec()),
        mem_dtype: dtype,
        convert: false,
        collective,
        buffer,
        lent: None,
    }
}

/// Attributes a merge does not copy as they are: dah5 writes its block table anew, and the
/// dimension scales' references are made anew by naming the dimensions.
const NOT_COPIED: [&str; 11] = [
    "dah5_darray_version",
    "dah5_writer_order",
    "dah5_nblocks",
    "dah5_complete",
    "dah5_block_table",
    crate::core::subfiles::PREFIX_ATTR,
    crate::core::subfiles::NODES_ATTR,
    "DIMENSION_LIST",
    "REFERENCE_LIST",
    "_Netcdf4Dimid",
    "_Netcdf4Coordinates",
];

/// Merge `input` into the new file `output` on MPI_COMM_WORLD (MPI started here if the
/// process has not started it, and then finalized).
pub fn run(input: &str, output: &str) -> Result<Merged> {
    let started = mpi::start()?;
    let merged = merge(mpi::world_handle(), input, output);
    if started {
        mpi::finish();
    }
    merged
}

fn request(path: &str, access: Access) -> FileRequest {
    FileRequest {
        path: path.to_string(),
        access,
        order: Order::C,
        options: FileOptions {
            tuning: Default::default(),
            hints: Default::default(),
            atomic: false,
            checks: checks_from_env(),
            file_sync: file_sync_from_env(),
        },
    }
}

fn close(mut file: File, datasets: Vec<Dataset>) -> Result<()> {
    let agreed = collective::run(&mut file, Ok(CloseFile))?;
    file.close(agreed, datasets)
}

fn merge(comm: i32, input: &str, output: &str) -> Result<Merged> {
    let mut from = File::open(
        comm,
        Ok(FileCall::<false>::new(request(
            input,
            Access::Open { writable: false },
        ))),
    )?;
    let create = request(output, Access::Create { truncate: false });
    let mut to = match File::open(comm, Ok(FileCall::<true>::new(create))) {
        Ok(to) => to,
        Err(e) => {
            let _ = close(from, Vec::new());
            return Err(e);
        }
    };
    let comm = from.shared.comm.clone();
    let (rank, ranks) = (comm.rank(), comm.size());
    let mut copied = Vec::new();
    let outcome = copy_everything(&mut from, &mut to, &mut copied);
    // The datasets' sizes, known on every rank: no communication after the closes, which a
    // rank that failed alone would never join.
    let bytes = copied
        .iter()
        .map(|d| data_bytes(&d.storage_dims, d.dtype().size()))
        .sum();
    let datasets = copied.len();
    let closed = close(to, copied);
    let outcome = outcome.and(closed).and(close(from, Vec::new()));
    if let Err(e) = outcome {
        if rank == 0 {
            let _ = std::fs::remove_file(file_name::os_path(output));
        }
        return Err(e.context(format_args!("dah5 merge {input} {output} (removed)")));
    }
    Ok(Merged {
        rank,
        ranks,
        datasets,
        bytes,
    })
}

/// Copy every group, empty ones too, with its attributes, then every dataset (but
/// dimension-only scales, which naming the dimensions makes again) with its data and
/// attributes, the root's attributes, then name the dimensions. `copied` gets each new
/// dataset, open.
fn copy_everything(from: &mut File, to: &mut File, copied: &mut Vec<Dataset>) -> Result<()> {
    copy_attributes(&from.id, &to.id, ".", false)?;
    // Groups first, parents before what they hold: a dataset's create makes the groups
    // above it, but not a group that holds no dataset.
    let contents = h5::group::contents(&from.id, "/", TABLES_GROUP)?;
    for group in &contents.groups {
        collective::run(to, Ok(CreateGroup(group)))?;
        copy_attributes(&from.id, &to.id, group, false)?;
    }
    let mut names = Vec::new();
    for path in &contents.datasets {
        let mut source = collective::run(from, Ok(OpenDataset(path.clone()))).map_err(|e| {
            e.context(format_args!(
                "dah5 merge copies arrays of dah5's dtypes only"
            ))
        })?;
        if is_dimension_only(&source.id)? {
            source.close()?;
            continue;
        }
        let target = copy_dataset(from, to, &mut source, path)?;
        names.push(dimension_names(&source, path)?);
        source.close()?;
        copied.push(target);
    }
    for (target, names) in copied.iter_mut().zip(names) {
        if let Some(names) = names {
            collective::run(target, Ok(SetDimNames::new(names)))?;
        }
    }
    Ok(())
}

/// One dataset: created contiguous in `to`, its data copied in parts (each rank its
/// partition, in steps of at most `STEP_BYTES`), its attributes, and its block table.
fn copy_dataset(from: &File, to: &mut File, source: &mut Dataset, path: &str) -> Result<Dataset> {
    let request = DatasetRequest {
        name: path.into(),
        dtype: source.dtype(),
        dims: source.dims().into(),
        options: Default::default(),
    };
    let create = CreateDataset::checked(to, request);
    let mut target = collective::run(to, create)?;
    let comm = from.shared.comm.clone();
    let size = source.dtype().size();
    let (rank, ranks) = (comm.rank() as u64, comm.size() as u64);
    let dims = source.dims();
    let bytes_of = |count: &[u64]| byte_len(count, size, "count").map(|n| n as u64);
    let (offset, count) = partition(&dims, rank, ranks);
    // Where MPI-IO does not make writes visible at once, every write is collective: then
    // every rank takes as many steps as the rank with the most (known on every rank).
    let collective = !target.file.writes_visible_at_once;
    let steps = if collective {
        (0..ranks).try_fold(1, |most, r| {
            let bytes = bytes_of(&partition(&dims, r, ranks).1)?;
            Ok::<_, Error>(most.max(bytes.div_ceil(STEP_BYTES)))
        })?
    } else {
        bytes_of(&count)?.div_ceil(STEP_BYTES).max(1)
    };
    let dtype = source.dtype();
    let copied = (0..steps).try_for_each(|step| {
        let (within, count) = partition(&count, step, steps);
        let offset: Vec<u64> = offset.iter().zip(&within).map(|(a, b)| a + b).collect();
        let mut buf = vec![0u8; byte_len(&count, size, "count")?];
        let read = block((&offset, &count), dtype, false, Buffer::Sink(&mut buf));
        collective::run_alone(source, Ok(ReadBlock::new(read)))?;
        let write = WriteBlock::new(block(
            (&offset, &count),
            dtype,
            collective,
            Buffer::Source(&buf),
        ));
        collective::run_either(collective, &mut target, Ok(write))
    });
    collective::settle(&comm, "dah5 merge", "copying the data", copied, |_| {
        format!("copying {path:?} failed on another rank (its message says why)")
    })
    .map_err(|e| e.context(format_args!("dataset {path:?}")))?;
    copy_attributes(
        &source.id,
        &target.id,
        ".",
        h5::scale::is_scale(&source.id)?,
    )?;
    if let Some(recorded) = &source.blocks {
        let table = recorded.table(&source.id, &source.storage_dims)?;
        let table = BlockTable {
            // A copy is whole where the source was whole (a subfiled one: all written).
            complete: recorded.complete,
            ..table.clone()
        };
        let writer = match h5::attr::text(&source.id, "dah5_writer_order")?.as_deref() {
            Some(b"F") => Order::Fortran,
            _ => Order::C,
        };
        table.write(&to.id, path, writer, RowWriter::of(&to.shared))?;
    }
    Ok(target)
}

/// The names of the dataset's dimensions, when every one has a dimension scale in its own
/// group (as netCDF and `dah5_dataset_set_dim_names` make them); a coordinate variable
/// (a scale itself) names its one dimension after itself.
fn dimension_names(source: &Dataset, path: &str) -> Result<Option<Vec<String>>> {
    let group = &path[..path.rfind('/').unwrap_or(0)];
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    if source.ndims() == 1 && h5::scale::is_scale(&source.id)? {
        return Ok(Some(vec![base(path)]));
    }
    let mut names = Vec::new();
    for d in 0..source.ndims() {
        match h5::scale::attached(&source.id, d)?.first() {
            Some(scale) if scale[..scale.rfind('/').unwrap_or(0)] == *group => {
                names.push(base(scale))
            }
            _ => return Ok(None),
        }
    }
    Ok(Some(names))
}

/// Copy the attributes of the object `object` of `from` to the same object of `to`, but
/// [`NOT_COPIED`] and (for a dimension scale) its CLASS and NAME (collective).
fn copy_attributes(from: &Id, to: &Id, object: &str, is_scale: bool) -> Result<()> {
    let source = h5::group::open_object(from, object)?;
    let scalar = h5::space::scalar()?;
    for name in h5::attr::names(&source)? {
        let skipped = NOT_COPIED.contains(&name.as_str())
            || (is_scale && (name == "CLASS" || name == "NAME"));
        if skipped {
            continue;
        }
        let at = |file| Place {
            file,
            object: ".",
            name: &name,
        };
        let opened = h5::attr::open(&at(&source), false)?;
        let target = Place {
            file: to,
            object,
            name: &name,
        };
        let copied = match h5::types::string_kind(opened.file_type.raw())? {
            Some(None) if opened.dims.is_empty() => {
                let text = opened.read_text(None)?;
                let text = String::from_utf8_lossy(&text);
                let value = crate::core::attr::AttrValue::Text(&text);
                crate::core::attr::write_value(&target, &value, &scalar)
            }
            Some(None) => Err(Error::new(
                ErrorKind::TypeMismatch,
                "an array of variable-length strings, which dah5 merge does not copy",
            )),
            _ => {
                let (memory, size) = h5::types::native_of(&opened.file_type)?;
                let mut buf = vec![0u8; byte_len(&opened.dims, size, "attribute")?];
                opened.read(&memory, &mut buf)?;
                let array;
                let space = if opened.dims.is_empty() {
                    &scalar
                } else {
                    array = h5::space::simple(&opened.dims)?;
                    &array
                };
                h5::attr::write(
                    &target,
                    &opened.file_type,
                    &memory,
                    space,
                    buf.as_ptr().cast(),
                )
            }
        };
        opened.close()?;
        copied.map_err(|e| e.context(format_args!("attribute {name:?} of {object:?}")))?;
    }
    source.close()
}
