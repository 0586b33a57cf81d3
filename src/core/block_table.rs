//! The decomposition recorded with a distributed array (its block table): checked in
//! O(P log P), written, and read back, in schema 2 (what dah5 writes) and schema 1 (what
//! dah5 0.1 wrote). Everything is in HDF5's C order whatever the writer's order, one row
//! per rank of the writing communicator (a rank with nothing has a zero count).
//!
//! Schema 2: scalar attributes on the darray, which every reader (netCDF-C included) can
//! show, and the rows in a dataset of their own, which has no size limit and stays out of
//! the way (netCDF and xarray list the reserved group only when asked for it):
//!
//! | on the darray         | type          | value                                    |
//! |-----------------------|---------------|------------------------------------------|
//! | `dah5_darray_version` | uint32 scalar | 2                                        |
//! | `dah5_writer_order`   | UTF-8 string  | `"C"` or `"F"`                           |
//! | `dah5_nblocks`        | uint64 scalar | number of blocks (rows)                  |
//! | `dah5_complete`       | uint8 scalar  | 1 if the blocks cover the whole array    |
//! | `dah5_block_table`    | UTF-8 string  | absolute path of the table dataset       |
//!
//! The table dataset, `/dah5_blocks/<the darray's path>`: uint64 (nblocks, 2, ndims),
//! `[i, 0, :]` block i's offset, `[i, 1, :]` its count; attribute `dah5_table_of` names the
//! darray.
//!
//! Schema 1 (read only): the same scalars with version 1 and no `dah5_block_table`, and the
//! rows as 2-D attributes `dah5_block_offsets` and `dah5_block_counts`, uint64
//! (nblocks, ndims). netCDF-C cannot open a file with 2-D attributes, and attributes stop at
//! 64 KiB (8,000 ranks of a 1-D array), hence schema 2.

use std::cell::OnceCell;

use crate::core::attr::{AttrValue, write_value};
use crate::core::file::FileShared;
use crate::core::layout::Layout;
use crate::core::names::{self, TABLES_GROUP, Wanted, absolute};
use crate::core::overlap::find_overlap;
use crate::core::shape::{Order, byte_len, check_block, element_count};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::Id;

pub(crate) const SCHEMA_VERSION: u32 = 2;

/// Where the table of the darray `name` (a path from the root) is kept.
pub fn table_path(name: &str) -> String {
    format!("{TABLES_GROUP}{}", absolute(name))
}

/// Blocks as (offsets, counts), one row of ndims values per block.
pub type Blocks = (Vec<Vec<u64>>, Vec<Vec<u64>>);

/// One block per writing rank, in storage (C) order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockTable {
    pub offsets: Vec<Vec<u64>>,
    pub counts: Vec<Vec<u64>>,
    /// Whether the blocks cover the whole array.
    pub complete: bool,
}

fn is_empty(count: &[u64]) -> bool {
    count.contains(&0)
}

/// Who writes a block table's rows, and how.
#[derive(Clone, Copy)]
pub(crate) struct RowWriter {
    /// This rank writes them (one rank of a parallel file does).
    pub this_rank: bool,
    /// In a collective transfer that every rank joins (with nothing but the writer), where
    /// MPI-IO needs it (`FileShared::writes_visible_at_once`); else in an independent one.
    pub collective: bool,
}

impl RowWriter {
    /// Who writes the rows of `file`'s block tables: rank 0, collectively where MPI-IO
    /// does not make writes visible at once.
    pub(crate) fn of(file: &FileShared) -> RowWriter {
        RowWriter {
            this_rank: file.comm.rank() == 0,
            collective: !file.writes_visible_at_once,
        }
    }

    /// A serial file's one process. (A function: cbindgen would put an associated
    /// constant, and so this type, into dah5.h.)
    pub(crate) fn alone() -> RowWriter {
        RowWriter {
            this_rank: true,
            collective: false,
        }
    }
}

impl BlockTable {
    /// Check a gathered table against `dims` (all in storage order): every block inside,
    /// no two overlapping. Errors name the ranks and blocks in the writer's `order`.
    pub fn validate(
        dims: &[u64],
        offsets: Vec<Vec<u64>>,
        counts: Vec<Vec<u64>>,
        order: Order,
    ) -> Result<BlockTable> {
        let show = |rank: usize| {
            format!(
                "rank {rank}'s block offset {:?} count {:?}",
                order.to_storage(&offsets[rank]),
                order.to_storage(&counts[rank])
            )
        };
        let nonempty: Vec<usize> = (0..offsets.len())
            .filter(|&r| !is_empty(&counts[r]))
            .collect();
        for &rank in &nonempty {
            check_block(dims, &offsets[rank], &counts[rank]).map_err(|e| {
                Error::new(
                    ErrorKind::OutOfBounds,
                    format!(
                        "{} reaches outside dims {:?}: {}",
                        show(rank),
                        order.to_storage(dims),
                        e.message
                    ),
                )
            })?;
        }
        if let Some((a, b)) = find_overlap(&offsets, &counts, &nonempty) {
            return Err(Error::invalid(format!(
                "{} and {} overlap: every element must have one writer",
                show(a),
                show(b)
            )));
        }
        let mut table = BlockTable {
            offsets,
            counts,
            complete: false,
        };
        // In bounds and disjoint: they cover the array iff their sizes add up to it.
        table.complete = Some(table.covered()) == element_count(dims);
        Ok(table)
    }

    /// The elements the blocks hold together (saturating).
    pub fn covered(&self) -> u64 {
        self.counts
            .iter()
            .filter(|c| !is_empty(c))
            .map(|c| element_count(c).unwrap_or(u64::MAX))
            .fold(0u64, u64::saturating_add)
    }

    fn ndims(&self) -> usize {
        self.counts.first().map_or(0, Vec::len)
    }

    /// The largest extent of any block in each dimension: the chunk that gives a regular
    /// decomposition one chunk per block.
    pub fn largest_block(&self) -> Vec<u64> {
        (0..self.ndims())
            .map(|d| self.counts.iter().map(|c| c[d]).max().unwrap_or(1))
            .collect()
    }

    /// The rows as the table dataset holds them: per block, its offset then its count.
    fn rows(&self) -> Vec<u8> {
        self.offsets
            .iter()
            .zip(&self.counts)
            .flat_map(|(o, c)| o.iter().chain(c))
            .flat_map(|v| v.to_ne_bytes())
            .collect()
    }

    /// Record the table of the darray `name` in schema 2 (collective in a parallel file:
    /// every rank makes the metadata calls; one rank writes the table's rows, as `rows`
    /// says).
    pub(crate) fn write(&self, file: &Id, name: &str, order: Order, rows: RowWriter) -> Result<()> {
        let ndims = self.ndims() as u64;
        let nblocks = self.offsets.len() as u64;
        let path = table_path(name);
        let u64s = h5::types::native(Dtype::Uint64)?;
        let table = h5::dataset::create(
            file,
            &path,
            &u64s,
            &h5::space::simple(&[nblocks, 2, ndims])?,
            &h5::plist::link_create()?,
            &h5::plist::dataset_create(&Layout::contiguous(), false)?,
        )
        .map_err(|e| {
            names::explain(file, &path, Wanted::New, false, e)
                .context(format_args!("block table {path:?}"))
        })?;
        if rows.collective {
            let mine = rows.this_rank.then(|| self.rows());
            h5::dataset::write_whole_collectively(&table, &u64s, mine.as_deref())?;
        } else if rows.this_rank && nblocks > 0 {
            h5::dataset::write_whole(&table, &u64s, &self.rows())?;
        }
        let scalar = h5::space::scalar()?;
        write_value(
            &Place {
                file: &table,
                object: ".",
                name: "dah5_table_of",
            },
            &AttrValue::Text(&absolute(name)),
            &scalar,
        )?;
        table.close()?;
        let numbers = |dtype, data| AttrValue::Numbers {
            dtype,
            shape: vec![],
            data,
        };
        let (version, count) = (SCHEMA_VERSION.to_ne_bytes(), nblocks.to_ne_bytes());
        let complete = [self.complete as u8];
        let attributes = [
            ("dah5_darray_version", numbers(Dtype::Uint32, &version)),
            ("dah5_writer_order", AttrValue::Text(order.letter())),
            ("dah5_nblocks", numbers(Dtype::Uint64, &count)),
            ("dah5_complete", numbers(Dtype::Uint8, &complete)),
            ("dah5_block_table", AttrValue::Text(&path)),
        ];
        for (attr, value) in &attributes {
            let place = Place {
                file,
                object: name,
                name: attr,
            };
            write_value(&place, value, &scalar)?;
        }
        Ok(())
    }
}

/// A darray's recorded decomposition, as a dataset handle knows it: the whole table, or
/// (schema 2, opened from a file) where to read it when first asked.
#[derive(Debug)]
pub struct Recorded {
    /// The schema it was recorded in (1 or 2).
    pub schema: u32,
    pub nblocks: u64,
    pub complete: bool,
    /// Schema 2's table dataset, read independently when the rows are first asked for.
    stored: Option<String>,
    table: OnceCell<BlockTable>,
}

fn malformed(what: String) -> Error {
    Error::new(
        ErrorKind::TypeMismatch,
        format!("its dah5 block table is malformed: {what}"),
    )
}

impl Recorded {
    /// A table this process holds whole (it just wrote it).
    pub fn held(table: BlockTable) -> Recorded {
        Recorded {
            schema: SCHEMA_VERSION,
            nblocks: table.offsets.len() as u64,
            complete: table.complete,
            stored: None,
            table: OnceCell::from(table),
        }
    }

    /// The decomposition recorded on an open darray of `dims` (storage order), if any
    /// (collective: every rank opening the dataset reads the same metadata). A dataset that
    /// is not a darray costs one attribute lookup. Schema 2's rows are only checked for
    /// their shape here; schema 1's are read whole.
    pub fn read(dataset: &Id, dims: &[u64]) -> Result<Option<Recorded>> {
        let version = Place {
            file: dataset,
            object: ".",
            name: "dah5_darray_version",
        };
        if !h5::attr::exists(&version, false)? {
            return Ok(None);
        }
        match read_scalar(dataset, "dah5_darray_version")? {
            1 => read_schema1(dataset, dims).map(|table| {
                Some(Recorded {
                    schema: 1,
                    ..Recorded::held(table)
                })
            }),
            2 => read_schema2(dataset, dims).map(Some),
            other => Err(malformed(format!(
                "dah5_darray_version is {other}; this dah5 reads 1 and 2"
            ))),
        }
    }

    /// Every block (reading schema 2's rows on first use, on this rank alone).
    pub fn table(&self, dataset: &Id, dims: &[u64]) -> Result<&BlockTable> {
        if let Some(table) = self.table.get() {
            return Ok(table);
        }
        let path = self.stored.as_deref().unwrap_or_default();
        let stored = h5::dataset::open_independent(dataset, path)?;
        let ndims = dims.len();
        let mut bytes = vec![0u8; byte_len(&[self.nblocks, 2, ndims as u64], 8, "block table")?];
        h5::dataset::read_whole(&stored, &h5::types::native(Dtype::Uint64)?, &mut bytes)?;
        stored.close()?;
        let (offsets, counts) = u64s(&bytes)
            .chunks(2 * ndims.max(1))
            .map(|row| (row[..ndims].to_vec(), row[ndims..].to_vec()))
            .unzip();
        let table = BlockTable {
            offsets,
            counts,
            complete: self.complete,
        };
        Ok(self.table.get_or_init(|| table))
    }
}

/// Native-endian u64s from their bytes.
fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|b| u64::from_ne_bytes(b.try_into().unwrap_or_default()))
        .collect()
}

/// The uint64-convertible scalar attribute `name` of the open object `object`.
pub(crate) fn read_scalar(object: &Id, name: &str) -> Result<u64> {
    let place = Place {
        file: object,
        object: ".",
        name,
    };
    let opened = h5::attr::open(&place, false)?;
    let mut bytes = [0u8; 8];
    opened.read(&h5::types::native(Dtype::Uint64)?, &mut bytes)?;
    opened.close()?;
    Ok(u64::from_ne_bytes(bytes))
}

/// Schema 2: the table dataset's path and shape, and the complete flag; the rows stay in
/// the file until asked for.
fn read_schema2(dataset: &Id, dims: &[u64]) -> Result<Recorded> {
    let path = h5::attr::text(dataset, "dah5_block_table")?
        .ok_or_else(|| malformed("schema 2 without dah5_block_table".into()))?;
    let path =
        String::from_utf8(path).map_err(|_| malformed("dah5_block_table is not UTF-8".into()))?;
    let table = h5::dataset::open(dataset, &path)
        .map_err(|e| malformed(format!("its table dataset {path:?}: {}", e.message)))?;
    let (shape, _) = h5::space::extents(&h5::dataset::space(&table)?)?;
    table.close()?;
    if shape.len() != 3 || shape[1] != 2 || shape[2] != dims.len() as u64 {
        return Err(malformed(format!("{path:?} has shape {shape:?}")));
    }
    Ok(Recorded {
        schema: 2,
        nblocks: shape[0],
        complete: read_scalar(dataset, "dah5_complete")? != 0,
        stored: Some(path),
        table: OnceCell::new(),
    })
}

/// Schema 1's 2-D attributes, read whole.
fn read_schema1(dataset: &Id, dims: &[u64]) -> Result<BlockTable> {
    let ndims = dims.len();
    let read_rows = |attr| -> Result<Vec<Vec<u64>>> {
        let place = Place {
            file: dataset,
            object: ".",
            name: attr,
        };
        let opened = h5::attr::open(&place, false)?;
        if opened.dims.len() != 2 || opened.dims[1] != ndims as u64 {
            return Err(malformed(format!("{attr} has shape {:?}", opened.dims)));
        }
        let mut bytes = vec![0u8; byte_len(&opened.dims, 8, attr)?];
        opened.read(&h5::types::native(Dtype::Uint64)?, &mut bytes)?;
        opened.close()?;
        Ok(u64s(&bytes)
            .chunks(ndims.max(1))
            .map(<[u64]>::to_vec)
            .collect())
    };
    let offsets = read_rows("dah5_block_offsets")?;
    let counts = read_rows("dah5_block_counts")?;
    if offsets.len() != counts.len() {
        return Err(malformed(
            "offsets and counts have different numbers of rows".into(),
        ));
    }
    let mut table = BlockTable {
        offsets,
        counts,
        complete: false,
    };
    table.complete = element_count(dims) == Some(table.covered());
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[&[u64]]) -> Vec<Vec<u64>> {
        v.iter().map(|r| r.to_vec()).collect()
    }

    #[test]
    fn a_2d_decomposition_validates_and_covers() {
        let dims = [4, 6];
        let offsets = rows(&[&[0, 0], &[0, 3], &[2, 0], &[2, 3]]);
        let counts = rows(&[&[2, 3], &[2, 3], &[2, 3], &[2, 3]]);
        let table = BlockTable::validate(&dims, offsets, counts, Order::C).unwrap();
        assert!(table.complete);
        assert_eq!(table.largest_block(), vec![2, 3]);
    }

    #[test]
    fn overlaps_gaps_and_out_of_bounds_are_found() {
        let dims = [4, 6];
        let overlap = BlockTable::validate(
            &dims,
            rows(&[&[0, 0], &[1, 2]]),
            rows(&[&[2, 3], &[3, 4]]),
            Order::C,
        )
        .unwrap_err();
        assert!(
            overlap.message.contains("rank 0's block")
                && overlap.message.contains("rank 1's block")
        );
        assert!(overlap.message.contains("overlap"));
        let out = BlockTable::validate(&dims, rows(&[&[3, 0]]), rows(&[&[2, 6]]), Order::Fortran)
            .unwrap_err();
        assert_eq!(out.kind, ErrorKind::OutOfBounds);
        // Reported in the writer's (Fortran) order.
        assert!(
            out.message.contains("offset [0, 3] count [6, 2]"),
            "{}",
            out.message
        );
        let gap = BlockTable::validate(
            &dims,
            rows(&[&[0, 0], &[0, 0]]),
            rows(&[&[2, 6], &[0, 6]]),
            Order::C,
        )
        .unwrap();
        assert!(!gap.complete);
        assert_eq!(gap.covered(), 12);
    }

    /// A px × py × pz grid of equal blocks over an array of (px·b, py·b, pz·b).
    fn grid(p: [u64; 3], b: u64) -> (Vec<u64>, Vec<Vec<u64>>, Vec<Vec<u64>>) {
        let mut offsets = Vec::new();
        for i in 0..p[0] {
            for j in 0..p[1] {
                for k in 0..p[2] {
                    offsets.push(vec![i * b, j * b, k * b]);
                }
            }
        }
        let counts = vec![vec![b; 3]; offsets.len()];
        (p.iter().map(|n| n * b).collect(), offsets, counts)
    }

    #[test]
    fn a_100000_block_grid_validates_and_one_moved_block_is_named() {
        let (dims, offsets, counts) = grid([50, 40, 50], 3);
        let table = BlockTable::validate(&dims, offsets.clone(), counts.clone(), Order::C).unwrap();
        assert!(table.complete);
        // Block 77777 shifted by one along the last dim meets its neighbour 77778 (and
        // leaves a gap).
        let mut moved = offsets;
        moved[77777][2] += 1;
        let err = BlockTable::validate(&dims, moved, counts, Order::C).unwrap_err();
        assert!(
            err.message.contains("rank 77777's block") && err.message.contains("rank 77778's"),
            "{}",
            err.message
        );
    }

    #[test]
    fn table_paths_mirror_the_darray_path() {
        assert_eq!(table_path("t"), "/dah5_blocks/t");
        assert_eq!(table_path("/g/t"), "/dah5_blocks/g/t");
    }
}
