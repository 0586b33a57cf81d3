//! Subfiled darrays (`DAH5_DARRAY_SUBFILED`): the blocks of the ranks of each node in an
//! HDF5 file of that node's own, written by those ranks only (no lock shared with another
//! node; `core::node_subfile`), and in the main file a virtual dataset (VDS, HDF5 1.10) that
//! maps every block to its dataset in its node's subfile, with the block table. Every HDF5
//! reader reads the VDS as one array, opening the subfiles relative to the main file's
//! directory. dah5 reads the subfiles itself, each reader opening only those its block
//! touches: parallel HDF5 does not read virtual datasets ("parallel reads not supported on
//! virtual datasets", 1.10 to 1.14).
//!
//! On disk, for the darray `/grp/temp` of `out.h5` written by 4 ranks on 2 nodes:
//!
//! | file                          | holds                                                 |
//! |-------------------------------|-------------------------------------------------------|
//! | `out.h5`                      | the VDS `/grp/temp`, its block table, and the attributes |
//! |                               | `dah5_subfiles` = `"out.h5.d/grp~temp"`, `dah5_subfiles_id`, |
//! |                               | `dah5_subfile_nodes` = 2 (the number of node subfiles) |
//! | `out.h5.d/grp~temp.node0.h5`  | the blocks of the ranks of node 0 (the node of rank 0) |
//! |                               | as the datasets `/block0`, `/block1`, each with the same |
//! |                               | `dah5_subfiles_id`                                    |
//! | `out.h5.d/grp~temp.node1.h5`  | `/block2`, `/block3`; nodes are numbered by their lowest |
//! |                               | rank; an empty block has no dataset, a node of empty  |
//! |                               | blocks no file                                        |
//!
//! Which block is in which subfile, dah5 reads from the VDS's own mappings. A darray of a
//! dah5 before subfiles per node (no `dah5_subfile_nodes`) has a file per rank,
//! `out.h5.d/grp~temp.<rank>.h5` with the dataset `/block`, and reads as before.
//!
//! `dah5_complete` is 1 only once every subfile was written and closed: at the end of
//! `dah5_darray_write`, or at the dataset's close after `dah5_darray_create`. dah5 refuses
//! to read a subfiled darray that is not complete, and a missing or truncated subfile is an
//! error naming it, never fill values. `dah5_subfiles_id` (uint64) ties the subfiles to the
//! write that made them: a number drawn for each write, by rank 0, sent with the blocks.
//! A subfile of another write (an earlier run's, put back beside the main file) is refused
//! with `DAH5_ERR_FILE_CHANGED` naming it, where it would have mixed old values with new.
//! A darray written without the id (dah5 before it) reads as before; `dah5 info` says so.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::core::attr::{AttrValue, write_u64, write_value};
use crate::core::block_table::{BlockTable, read_scalar};
use crate::core::collective;
use crate::core::file::FileShared;
use crate::core::names::absolute;
use crate::core::node_subfile::{NodeBlocks, NodeSubfile, dataset_name};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::file_name;
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::Id;
use crate::mpi::comm::Node;

/// The darray's attribute naming its subfiles: node k's is `<value>.node<k>.h5` (a file
/// per rank before: block i's was `<value>.<i>.h5`), relative to the main file's directory.
pub(crate) const PREFIX_ATTR: &str = "dah5_subfiles";

pub(crate) use crate::core::node_subfile::ID_ATTR;

/// The darray's attribute giving the number of node subfiles: its presence says the
/// subfiles are a node's each (absent: a file per rank, by a dah5 before).
pub(crate) const NODES_ATTR: &str = "dah5_subfile_nodes";

/// The dataset holding the block in each subfile of a file per rank.
const RANK_SOURCE: &str = "block";

/// A subfiled darray's subfiles, and this rank's node's while the darray is written.
#[derive(Debug)]
pub struct Subfiles {
    /// The main file's directory, which `prefix` is relative to.
    base: PathBuf,
    prefix: String,
    /// The id of the write that made them (none: written by a dah5 without ids).
    id: Option<u64>,
    /// The node of each block (one subfile per node); None: one subfile per block.
    nodes: Option<Vec<u32>>,
    /// From `dah5_darray_create` until the dataset's close: this rank's subfile.
    writing: Option<Writing>,
}

/// What `dah5 info` finds of a darray's subfiles.
pub struct Survey {
    /// How many subfiles there are (an empty block is in none).
    pub files: usize,
    /// The blocks whose subfile is not there (HDF5's readers show fill values instead).
    pub missing: Vec<usize>,
    /// The blocks whose subfile is of another write of the darray.
    pub foreign: Vec<usize>,
}

#[derive(Debug)]
struct Writing {
    /// None for a node whose blocks are all empty.
    node: Option<NodeSubfile>,
    /// A write to the subfile failed: the close then does not mark the darray complete.
    failed: Cell<bool>,
}

/// A read of a subfiled darray: the region (storage order) and how its elements come to
/// memory.
pub(crate) struct SubfiledRead<'a> {
    pub offset: &'a [u64],
    pub count: &'a [u64],
    pub mem_type: &'a Id,
    pub dxpl: &'a Id,
    /// Whether HDF5 locks the subfiles it opens (`FileShared::file_locking`).
    pub file_locking: bool,
}

/// The subfiles' names in the file name of a dataset path: '/' becomes '~', letters,
/// digits, '.', '_' and '-' stay, every other byte is `+XX` (so no two paths meet).
fn stem(name: &str) -> String {
    absolute(name)[1..]
        .bytes()
        .map(|b| match b {
            b'/' => "~".to_string(),
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'_' | b'-' => (b as char).to_string(),
            _ => format!("+{b:02X}"),
        })
        .collect()
}

fn is_empty(count: &[u64]) -> bool {
    count.contains(&0)
}

impl Subfiles {
    /// Whether this rank's subfile is being written: the dataset's close then settles the
    /// darray on every rank ([`Subfiles::finish`]).
    pub(crate) fn writing(&self) -> bool {
        self.writing.is_some()
    }

    /// The subfiles of a new darray `name` in the main file `main`, of the write `id`:
    /// `<main>.d/<stem>`, block i on node `nodes[i]`.
    pub(crate) fn new(main: &str, name: &str, id: u64, nodes: Vec<u32>) -> Subfiles {
        let file_name = Path::new(file_name::os_path(main)).file_name();
        let file_name = file_name.unwrap_or_default().to_string_lossy();
        Subfiles {
            base: file_name::directory_of(main).to_path_buf(),
            prefix: format!("{file_name}.d/{}", stem(name)),
            id: Some(id),
            nodes: Some(nodes),
            writing: None,
        }
    }

    /// Block `block`'s subfile, relative to the main file's directory (as the VDS names it).
    fn relative(&self, block: usize) -> String {
        match &self.nodes {
            Some(nodes) => {
                let node = nodes.get(block).copied().unwrap_or(u32::MAX);
                format!("{}.node{node}.h5", self.prefix)
            }
            None => format!("{}.{block}.h5", self.prefix),
        }
    }

    /// Block `block`'s dataset in its subfile.
    fn source(&self, block: usize) -> String {
        match self.nodes {
            Some(_) => dataset_name(block),
            None => RANK_SOURCE.to_string(),
        }
    }

    /// The subfiles' names, relative to the main file's directory (`dah5 info`).
    pub fn pattern(&self) -> String {
        match self.nodes {
            Some(_) => format!("{}.nodeNODE.h5 (one a node)", self.prefix),
            None => format!("{}.RANK.h5 (one a rank)", self.prefix),
        }
    }

    /// Block `block`'s subfile as this process opens it.
    fn path(&self, block: usize) -> PathBuf {
        self.base.join(self.relative(block))
    }

    /// The subfiles recorded on an open darray of the file `main`, if it is subfiled.
    pub fn read(dataset: &Id, main: &str) -> Result<Option<Subfiles>> {
        let Some(prefix) = h5::attr::text(dataset, PREFIX_ATTR)? else {
            return Ok(None);
        };
        let prefix = String::from_utf8(prefix).map_err(|_| {
            Error::new(
                ErrorKind::TypeMismatch,
                format!("its {PREFIX_ATTR} attribute is not UTF-8"),
            )
        })?;
        let place = Place {
            file: dataset,
            object: ".",
            name: NODES_ATTR,
        };
        let nodes = if h5::attr::exists(&place, false)? {
            Some(nodes_of_blocks(dataset, &prefix)?)
        } else {
            None
        };
        Ok(Some(Subfiles {
            base: file_name::directory_of(main).to_path_buf(),
            prefix,
            id: read_id(dataset)?,
            nodes,
            writing: None,
        }))
    }

    /// Whether the subfiles are tied to the write that made them (`ID_ATTR`).
    pub fn tied(&self) -> bool {
        self.id.is_some()
    }

    /// The subfiles of the blocks of `table` as they are (`dah5 info`).
    pub fn survey(&self, table: &BlockTable) -> Result<Survey> {
        let blocks: Vec<usize> = (0..table.counts.len())
            .filter(|&b| !is_empty(&table.counts[b]))
            .collect();
        let files: std::collections::BTreeSet<String> =
            blocks.iter().map(|&b| self.relative(b)).collect();
        let (present, missing): (Vec<usize>, Vec<usize>) =
            blocks.iter().partition(|&&b| self.path(b).is_file());
        let fapl = h5::plist::serial_file_access(true)?;
        let foreign = present
            .into_iter()
            .filter(|&b| {
                self.open_block(b, &fapl)
                    .is_err_and(|e| e.kind == ErrorKind::FileChanged)
            })
            .collect();
        Ok(Survey {
            files: files.len(),
            missing,
            foreign,
        })
    }

    /// Block `block`'s subfile opened for reading with `fapl`: the block's dataset, then
    /// the file, refused (`FILE_CHANGED`) when it is of another write of the darray.
    fn open_block(&self, block: usize, fapl: &Id) -> Result<(Id, Id)> {
        let file = h5::file::open(&self.path(block).to_string_lossy(), false, fapl)?;
        let source = h5::dataset::open(&file, &self.source(block))?;
        let Some(id) = self.id else {
            return Ok((source, file));
        };
        match read_id(&source)? {
            Some(theirs) if theirs == id => Ok((source, file)),
            theirs => Err(Error::new(
                ErrorKind::FileChanged,
                format!(
                    "it is of another write of the darray: it holds {}, the main file says \
                     {id:#x} (a subfile of another write, an earlier run's, was put in its \
                     place), so nothing was read from it. Write the darray again, or put its \
                     own subfile back",
                    theirs.map_or("no write id".to_string(), |t| format!(
                        "the write id {t:#x}"
                    ))
                ),
            )),
        }
    }
}

/// The write id on `object` (a darray, or a subfile's block), if it has one.
fn read_id(object: &Id) -> Result<Option<u64>> {
    let place = Place {
        file: object,
        object: ".",
        name: ID_ATTR,
    };
    if !h5::attr::exists(&place, false)? {
        return Ok(None);
    }
    read_scalar(object, ID_ATTR).map(Some)
}

/// The node of each block, from the mappings of the virtual dataset `dataset` whose
/// subfiles are `<prefix>.node<k>.h5` (blocks with no mapping, the empty ones, get none).
fn nodes_of_blocks(dataset: &Id, prefix: &str) -> Result<Vec<u32>> {
    let sources = h5::plist::virtual_sources(&h5::dataset::create_plist(dataset)?)?;
    let mut nodes = Vec::new();
    for (file, source) in &sources {
        let block = source
            .strip_prefix("block")
            .and_then(|b| b.parse::<usize>().ok());
        let node = (file.strip_prefix(prefix)).and_then(|f| {
            f.strip_prefix(".node")?
                .strip_suffix(".h5")?
                .parse::<u32>()
                .ok()
        });
        let (Some(block), Some(node)) = (block, node) else {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "its virtual dataset maps {file:?} {source:?}, not a block of a node's \
                     subfile {prefix}.node<k>.h5 as its {NODES_ATTR} attribute says"
                ),
            ));
        };
        if nodes.len() <= block {
            nodes.resize(block + 1, u32::MAX);
        }
        nodes[block] = node;
    }
    Ok(nodes)
}

/// Why a subfile could not be used, with its path.
fn about(path: &Path, e: Error) -> Error {
    e.context(format_args!("subfile {}", path.display()))
}

impl Subfiles {
    /// Ready this rank for [`Subfiles::make_own`]: the subfiles' directory made. Local.
    pub(crate) fn prepare_own(&self, rank: usize) -> Result<()> {
        let path = self.path(rank);
        let made = crate::core::fault::check("subfile", rank as i32).and_then(|()| {
            let dir = path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(&e, format_args!("creating {}", dir.display())))
        });
        made.map_err(|e| about(&path, e))
    }

    /// The subfile of this rank's node (collective over `node`, the ranks of this rank's
    /// node, after [`Subfiles::prepare_own`] worked on every rank), with this rank's block
    /// (rank `rank` of `table`, storage order): written whole and closed when `data` is
    /// given (`dah5_darray_write`), else left open for `dah5_write_block` until the
    /// dataset's close (`dah5_darray_create`).
    pub(crate) fn make_own(
        &mut self,
        node: &Node,
        main: &Arc<FileShared>,
        rank: usize,
        dtype: Dtype,
        table: &BlockTable,
        data: Option<&[u8]>,
    ) -> Result<()> {
        let nodes = self.nodes.as_deref().unwrap_or_default();
        let blocks: Vec<(usize, &[u64])> = (0..table.counts.len())
            .filter(|&b| nodes.get(b) == nodes.get(rank) && !is_empty(&table.counts[b]))
            .map(|b| (b, table.counts[b].as_slice()))
            .collect();
        let own = (
            table.offsets[rank].as_slice(),
            table.counts[rank].as_slice(),
        );
        let what = NodeBlocks {
            own: (!is_empty(own.1)).then_some((rank, own.0, own.1)),
            blocks,
            dtype,
            id: self.id,
        };
        let path = self.path(rank);
        let (subfile, made) = if what.blocks.is_empty() {
            (None, Ok(()))
        } else {
            let (subfile, made) =
                NodeSubfile::create(node, &path, what, main).map_err(|e| about(&path, e))?;
            (Some(subfile), made)
        };
        match (data, subfile) {
            (Some(data), Some(subfile)) => {
                let written = made.and_then(|()| subfile.write(own.0, own.1, dtype, data));
                // Every rank of the node closes, also one whose part failed.
                written.and(subfile.close()).map_err(|e| about(&path, e))
            }
            (Some(_), None) => Ok(()),
            (None, node) => {
                // Kept also where this rank's part failed: the undo then closes it on every
                // rank of the node together.
                self.writing = Some(Writing {
                    node,
                    failed: Cell::new(false),
                });
                made.map_err(|e| about(&path, e))
            }
        }
    }

    /// Undo [`Subfiles::make_own`] after the call failed on some rank (every rank of the
    /// node undoes): close and remove this rank's node's subfile (if it was made).
    pub(crate) fn discard_own(&mut self, rank: usize) {
        self.writing = None;
        let _ = std::fs::remove_file(self.path(rank));
    }

    /// The virtual layout of a darray of `dims` (storage order) with the blocks of `table`,
    /// each mapped to its subfile.
    pub(crate) fn virtual_layout(&self, dims: &[u64], table: &BlockTable) -> Result<Id> {
        let space = h5::space::simple(dims)?;
        let names: Vec<(String, String)> = (0..table.offsets.len())
            .map(|i| (self.relative(i), self.source(i)))
            .collect();
        let blocks = table.offsets.iter().zip(&table.counts).zip(&names);
        h5::plist::virtual_dataset(
            &space,
            blocks.filter(|((_, count), _)| !is_empty(count)).map(
                |((offset, count), (file_name, source))| h5::plist::VirtualMap {
                    offset,
                    count,
                    file_name,
                    source,
                },
            ),
        )
    }

    /// Record the subfiles of the blocks of `table` on the darray `dataset` (collective:
    /// attribute writes).
    pub(crate) fn record(&self, dataset: &Id, table: &BlockTable, scalar: &Id) -> Result<()> {
        let place = Place {
            file: dataset,
            object: ".",
            name: PREFIX_ATTR,
        };
        write_value(&place, &AttrValue::Text(&self.prefix), scalar)?;
        let files: std::collections::BTreeSet<String> = (0..table.counts.len())
            .filter(|&b| !is_empty(&table.counts[b]))
            .map(|b| self.relative(b))
            .collect();
        write_u64(dataset, NODES_ATTR, files.len() as u64, scalar)?;
        match self.id {
            Some(id) => write_u64(dataset, ID_ATTR, id, scalar),
            None => Ok(()),
        }
    }
}

impl Subfiles {
    /// A subfiled darray's part of `dah5_write_block`: the block must lie inside this rank's
    /// own block, and goes to its subfile (offset and count in storage order).
    pub(crate) fn write_own(
        &self,
        main: &FileShared,
        darray: &str,
        offset: &[u64],
        count: &[u64],
        mem_dtype: Dtype,
        data: &[u8],
    ) -> Result<()> {
        let writing = self.writing.as_ref().ok_or_else(|| {
            Error::invalid(format!(
                "dataset {:?} is a subfiled darray written whole by dah5_darray_write: its \
                 subfiles are closed. To write a subfiled darray in steps, create it with \
                 dah5_darray_create",
                darray
            ))
        })?;
        if is_empty(count) {
            return Ok(());
        }
        let order = main.order;
        let own_block = writing.node.as_ref().and_then(NodeSubfile::own);
        let inside = own_block.filter(|own| {
            (0..offset.len()).all(|d| {
                own.offset[d] <= offset[d] && offset[d] + count[d] <= own.offset[d] + own.count[d]
            })
        });
        let (Some(_), Some(node)) = (inside, &writing.node) else {
            let own = own_block.map_or_else(
                || "an empty block".to_string(),
                |own| {
                    format!(
                        "offset {:?} count {:?}",
                        order.to_storage(&own.offset),
                        order.to_storage(&own.count)
                    )
                },
            );
            return Err(Error::new(
                ErrorKind::OutOfBounds,
                format!(
                    "dataset {:?} is subfiled: each rank writes only inside its own block, \
                     and this rank's is {own}; the block offset {:?} count {:?} is not inside \
                     it",
                    darray,
                    order.to_storage(offset),
                    order.to_storage(count)
                ),
            ));
        };
        let path = self.path(main.comm.rank() as usize);
        node.write(offset, count, mem_dtype, data)
            .map_err(|e| about(&path, e))
            .inspect_err(|e| {
                writing.failed.set(true);
                main.record_failure(e);
            })
    }

    /// A subfiled darray's part of `dah5_read_block`, once it is complete: every block of
    /// `table` the region touches is read from its subfile into its place in `buf` (C order
    /// of the region's count). `read.dxpl` converts, or refuses, as for any read.
    pub(crate) fn read_blocks(
        &self,
        table: &BlockTable,
        darray: &str,
        read: SubfiledRead<'_>,
        buf: &mut [u8],
    ) -> Result<()> {
        let SubfiledRead {
            offset,
            count,
            mem_type,
            dxpl,
            file_locking,
        } = read;
        if is_empty(count) {
            return Ok(());
        }
        let mem_space = h5::space::simple(count)?;
        let fapl = h5::plist::serial_file_access(file_locking)?;
        for (block, (b_offset, b_count)) in table.offsets.iter().zip(&table.counts).enumerate() {
            let (lo, hi): (Vec<u64>, Vec<u64>) = (0..count.len())
                .map(|d| {
                    let lo = offset[d].max(b_offset[d]);
                    let hi = (offset[d] + count[d]).min(b_offset[d] + b_count[d]);
                    (lo, hi.max(lo))
                })
                .unzip();
            let extent: Vec<u64> = hi.iter().zip(&lo).map(|(h, l)| h - l).collect();
            if is_empty(&extent) {
                continue;
            }
            let path = self.path(block);
            let read = (|| {
                let (source, file) = self.open_block(block, &fapl)?;
                let space = h5::dataset::space(&source)?;
                let (stored, _) = h5::space::extents(&space)?;
                if stored != *b_count {
                    return Err(Error::new(
                        ErrorKind::TypeMismatch,
                        format!("its block has extents {stored:?}, the table says {b_count:?}"),
                    ));
                }
                let within = |from: &[u64]| -> Vec<u64> {
                    lo.iter().zip(from).map(|(l, f)| l - f).collect()
                };
                let transfer = h5::dataset::TransferIds {
                    dataset: &source,
                    mem_type,
                    mem_space: &h5::space::select_block(&mem_space, &within(offset), &extent)?,
                    file_space: &h5::space::select_block(&space, &within(b_offset), &extent)?,
                    dxpl,
                };
                h5::dataset::read(&transfer, buf)?;
                source.close()?;
                file.close()
            })();
            read.map_err(|e| {
                about(&path, e).context(format_args!(
                    "reading block {block} of subfiled darray {darray:?}"
                ))
            })?;
        }
        Ok(())
    }

    /// Close the subfile this rank writes (from `dah5_darray_create`) and, when every rank
    /// wrote and closed its own, mark the darray `darray` of `main` complete: true then
    /// (collective; false at once where no subfile is being written).
    pub(crate) fn finish(&mut self, main: &FileShared, darray: &Id, name: &str) -> Result<bool> {
        let Some(writing) = self.writing.take() else {
            return Ok(false);
        };
        let failed = writing.failed.get();
        let rank = main.comm.rank();
        let closed = writing
            .node
            .map_or(Ok(()), NodeSubfile::close)
            .and_then(|()| crate::core::fault::check("subfile_close", rank));
        let outcome = match (closed, failed) {
            (Err(e), _) => Err(e.context(format_args!("closing this rank's subfile"))),
            (Ok(()), true) => Err(Error::new(
                ErrorKind::Io,
                "a write to this rank's subfile failed earlier (that call's error said why)",
            )),
            (Ok(()), false) => Ok(()),
        };
        let outcome = outcome.map_err(|e| {
            e.context(format_args!(
                "subfiled darray {name:?} stays marked incomplete (dah5_complete = 0)"
            ))
        });
        collective::settle(
            &main.comm,
            "dah5_dataset_close",
            "the subfiles",
            outcome,
            |_| {
                format!(
                    "another rank's subfile of darray {name:?} was not written (its message says \
                 why), so the darray stays marked incomplete (dah5_complete = 0)"
                )
            },
        )?;
        let complete = [1u8];
        let place = Place {
            file: darray,
            object: ".",
            name: "dah5_complete",
        };
        let value = AttrValue::Numbers {
            dtype: Dtype::Uint8,
            shape: vec![],
            data: &complete,
        };
        write_value(&place, &value, &h5::space::scalar()?)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subfile_names_keep_paths_apart_and_sit_beside_the_main_file() {
        assert_eq!(stem("/grp/temp"), "grp~temp");
        assert_eq!(stem("a~b"), "a+7Eb");
        assert_ne!(stem("/a/b"), stem("/a~b"));
        assert_eq!(stem("t 1%"), "t+201+25");
        let subfiles = Subfiles::new("/scratch/run/out.h5", "grp/temp", 1, vec![0, 0, 1, 1]);
        assert_eq!(subfiles.relative(3), "out.h5.d/grp~temp.node1.h5");
        assert_eq!(subfiles.source(3), "block3");
        assert_eq!(
            subfiles.path(2),
            PathBuf::from("/scratch/run/out.h5.d/grp~temp.node1.h5")
        );
        assert_eq!(
            Subfiles::new("out.h5", "x", 1, vec![0]).path(0),
            PathBuf::from("./out.h5.d/x.node0.h5")
        );
        // A file per rank, as a dah5 before subfiles per node wrote them.
        let per_rank = Subfiles {
            nodes: None,
            ..Subfiles::new("out.h5", "x", 1, vec![])
        };
        assert_eq!(per_rank.relative(3), "out.h5.d/x.3.h5");
        assert_eq!(per_rank.source(3), "block");
    }
}
