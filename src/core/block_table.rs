//! The decomposition recorded with a distributed array (its block table): checked in
//! O(B log B) for B blocks, written, and read back, in schema 2 (what `dah5_darray_write`
//! writes: one row per rank of the writing communicator, a rank with nothing has a zero
//! count), schema 3 (what `dah5_darray_write_blocks` writes: any number of rows per rank,
//! each with its rank) and schema 1 (what dah5 0.1 wrote). Everything is in HDF5's C order
//! whatever the writer's order.
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
//! Schema 3: the same, version 3, and the table dataset uint64 (nblocks, 3, ndims) with
//! `[i, 2, 0]` the rank that wrote block i (`[i, 2, 1:]` are 0); rows in rank order. A
//! dah5 that reads schema 2 only refuses it by its version.
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
use crate::core::overlap::{find_overlap, spans_disjoint};
use crate::core::shape::{Order, byte_len, check_block, element_count, u64s};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::Id;

/// The schema of one block a rank (`dah5_darray_write`), and of blocks with their ranks.
pub(crate) const SCHEMA_VERSION: u32 = 2;
pub(crate) const SCHEMA_WITH_RANKS: u32 = 3;

/// Where the table of the darray `name` (a path from the root) is kept.
pub fn table_path(name: &str) -> String {
    format!("{TABLES_GROUP}{}", absolute(name))
}

/// Blocks as (offsets, counts), one row of ndims values per block.
pub type Blocks = (Vec<Vec<u64>>, Vec<Vec<u64>>);

/// The blocks of a darray, in storage (C) order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockTable {
    pub offsets: Vec<Vec<u64>>,
    pub counts: Vec<Vec<u64>>,
    /// The rank of each block, in rank order (schema 3); None: block i is rank i's.
    pub ranks: Option<Vec<u32>>,
    /// The array's number of dimensions (a table may have no rows).
    pub ndims: usize,
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
        ranks: Option<Vec<u32>>,
        order: Order,
    ) -> Result<BlockTable> {
        let show = |row: usize| {
            let (offset, count) = (
                order.to_storage(&offsets[row]),
                order.to_storage(&counts[row]),
            );
            match &ranks {
                None => format!("rank {row}'s block offset {offset:?} count {count:?}"),
                Some(ranks) => {
                    let rank = ranks[row];
                    let first = ranks.partition_point(|&r| r < rank);
                    let block = row - first;
                    format!("rank {rank}'s block {block} (offset {offset:?} count {count:?})")
                }
            }
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
        let spans = nonempty.iter().map(|&r| (&offsets[r][..], &counts[r][..]));
        let overlap = match spans_disjoint(dims, spans) {
            true => None,
            false => find_overlap(&offsets, &counts, &nonempty),
        };
        if let Some((a, b)) = overlap {
            return Err(Error::invalid(format!(
                "{} and {} overlap: every element must have one writer",
                show(a),
                show(b)
            )));
        }
        let mut table = BlockTable {
            offsets,
            counts,
            ranks,
            ndims: dims.len(),
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
        self.ndims
    }

    /// The largest extent of any block in each dimension: the chunk that gives a regular
    /// decomposition one chunk per block. None for a table without blocks.
    pub fn largest_block(&self) -> Option<Vec<u64>> {
        if self.offsets.is_empty() {
            return None;
        }
        Some(self.largest_extents())
    }

    fn largest_extents(&self) -> Vec<u64> {
        (0..self.ndims())
            .map(|d| self.counts.iter().map(|c| c[d]).max().unwrap_or(1))
            .collect()
    }

    /// The rows as the table dataset holds them: per block, its offset then its count,
    /// then (schema 3) its rank and zeros.
    fn rows(&self) -> Vec<u8> {
        let ndims = self.ndims();
        let width = width_of(self.schema()) as usize;
        let mut words = Vec::with_capacity(self.offsets.len() * width * ndims);
        for (i, (offset, count)) in self.offsets.iter().zip(&self.counts).enumerate() {
            words.extend(offset.iter().chain(count));
            if let Some(ranks) = &self.ranks {
                words.push(ranks[i] as u64);
                words.extend(std::iter::repeat_n(0, ndims - 1));
            }
        }
        words.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    /// The schema the table is written in.
    fn schema(&self) -> u32 {
        schema_of(self.ranks.is_some())
    }

    /// What every rank of the writing communicator needs of the table: the rows aside.
    pub fn summary(&self) -> TableSummary {
        TableSummary {
            nblocks: self.offsets.len() as u64,
            ndims: self.ndims,
            with_ranks: self.ranks.is_some(),
            complete: self.complete,
            largest: self.largest_block(),
        }
    }

    /// The rank that wrote row `row`.
    pub fn rank_of(&self, row: usize) -> u32 {
        self.ranks.as_ref().map_or(row as u32, |ranks| ranks[row])
    }

    /// Record the table of the darray `name` in schema 2 or 3 (collective in a parallel
    /// file: every rank makes the metadata calls; one rank writes the table's rows, as
    /// `rows` says).
    pub(crate) fn write(&self, file: &Id, name: &str, order: Order, rows: RowWriter) -> Result<()> {
        let mine = rows.this_rank.then_some(self);
        self.summary()
            .write(file, name, order, mine, rows.collective)
    }
}

/// What every rank of a darray's communicator knows of its checked table, the rows aside:
/// all that the calls around the rows need (the dataset's layout, the room the table takes,
/// the metadata every rank writes). The rank that checked the table sends it to the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSummary {
    pub nblocks: u64,
    pub ndims: usize,
    /// Each block's rank is recorded (schema 3).
    pub with_ranks: bool,
    pub complete: bool,
    /// [`BlockTable::largest_block`].
    pub largest: Option<Vec<u64>>,
}

impl TableSummary {
    fn schema(&self) -> u32 {
        schema_of(self.with_ranks)
    }

    /// Bytes of the table's rows in the file.
    pub fn stored_bytes(&self) -> u64 {
        let words = self.nblocks * width_of(self.schema()) * self.ndims as u64;
        words.saturating_mul(8)
    }

    /// As words, to send: nblocks, ndims, with_ranks, complete, then the largest extents.
    pub fn to_words(&self) -> Vec<u64> {
        let head = [
            self.nblocks,
            self.ndims as u64,
            self.with_ranks as u64,
            self.complete as u64,
        ];
        head.into_iter()
            .chain(self.largest.iter().flatten().copied())
            .collect()
    }

    /// What [`TableSummary::to_words`] sent.
    pub fn from_words(words: &[u64]) -> Result<TableSummary> {
        let [nblocks, ndims, with_ranks, complete, largest @ ..] = words else {
            return Err(Error::new(
                ErrorKind::Mpi,
                format!("a block table's summary came as {} words", words.len()),
            ));
        };
        Ok(TableSummary {
            nblocks: *nblocks,
            ndims: *ndims as usize,
            with_ranks: *with_ranks != 0,
            complete: *complete != 0,
            largest: (!largest.is_empty()).then(|| largest.to_vec()),
        })
    }

    /// [`BlockTable::write`] where `rows` is this rank's table (the one rank that writes
    /// the rows) or None (the others, which make the same metadata calls).
    pub(crate) fn write(
        &self,
        file: &Id,
        name: &str,
        order: Order,
        rows: Option<&BlockTable>,
        collective: bool,
    ) -> Result<()> {
        let ndims = self.ndims as u64;
        let nblocks = self.nblocks;
        let path = table_path(name);
        let u64s = h5::types::native(Dtype::Uint64)?;
        let width = width_of(self.schema());
        let table = h5::dataset::create(
            file,
            &path,
            &u64s,
            &h5::space::simple(&[nblocks, width, ndims])?,
            &h5::plist::link_create()?,
            &h5::plist::dataset_create(&Layout::contiguous(), false)?,
        )
        .map_err(|e| {
            names::explain(file, &path, Wanted::New, false, e)
                .context(format_args!("block table {path:?}"))
        })?;
        let mine = rows.map(BlockTable::rows);
        if collective {
            h5::dataset::write_whole_collectively(&table, &u64s, mine.as_deref())?;
        } else if let Some(mine) = mine.filter(|_| nblocks > 0) {
            h5::dataset::write_whole(&table, &u64s, &mine)?;
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
        let (version, count) = (self.schema().to_ne_bytes(), nblocks.to_ne_bytes());
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
/// (schema 2 or 3, opened from a file, or made by another rank) where to read it when
/// first asked.
#[derive(Debug)]
pub struct Recorded {
    /// The schema it was recorded in (1, 2 or 3).
    pub schema: u32,
    pub nblocks: u64,
    pub complete: bool,
    /// Schema 2's or 3's table dataset, read independently when the rows are first asked
    /// for.
    stored: Option<String>,
    table: OnceCell<BlockTable>,
}

/// The schema of a table that records each block's rank (3) or not (2).
fn schema_of(with_ranks: bool) -> u32 {
    match with_ranks {
        false => SCHEMA_VERSION,
        true => SCHEMA_WITH_RANKS,
    }
}

/// Rows of ndims words a block takes in the table dataset of `schema` (2 or 3).
fn width_of(schema: u32) -> u64 {
    if schema == SCHEMA_WITH_RANKS { 3 } else { 2 }
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
            schema: table.schema(),
            nblocks: table.offsets.len() as u64,
            complete: table.complete,
            stored: None,
            table: OnceCell::from(table),
        }
    }

    /// The table of the darray `name` as a rank that did not write its rows knows it: the
    /// rows are read from the file when first asked for, as for a darray opened.
    pub fn written_elsewhere(summary: &TableSummary, name: &str) -> Recorded {
        Recorded {
            schema: summary.schema(),
            nblocks: summary.nblocks,
            complete: summary.complete,
            stored: Some(table_path(name)),
            table: OnceCell::new(),
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
            2 => read_stored(dataset, dims, SCHEMA_VERSION).map(Some),
            3 => read_stored(dataset, dims, SCHEMA_WITH_RANKS).map(Some),
            other => Err(malformed(format!(
                "dah5_darray_version is {other}; this dah5 reads 1, 2 and 3"
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
        let width = width_of(self.schema);
        let shape = [self.nblocks, width, ndims as u64];
        let mut bytes = vec![0u8; byte_len(&shape, 8, "block table")?];
        h5::dataset::read_whole(&stored, &h5::types::native(Dtype::Uint64)?, &mut bytes)?;
        stored.close()?;
        let (mut offsets, mut counts, mut ranks) = (Vec::new(), Vec::new(), Vec::new());
        for row in u64s(&bytes).chunks(width as usize * ndims.max(1)) {
            offsets.push(row[..ndims].to_vec());
            counts.push(row[ndims..2 * ndims].to_vec());
            if let Some(&rank) = row.get(2 * ndims) {
                ranks.push(u32::try_from(rank).map_err(|_| {
                    malformed(format!("{path:?} names rank {rank}, which no MPI rank is"))
                })?);
            }
        }
        let table = BlockTable {
            offsets,
            counts,
            ranks: (self.schema == SCHEMA_WITH_RANKS).then_some(ranks),
            ndims,
            complete: self.complete,
        };
        Ok(self.table.get_or_init(|| table))
    }
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

/// Schema 2 or 3: the table dataset's path and shape, and the complete flag; the rows
/// stay in the file until asked for.
fn read_stored(dataset: &Id, dims: &[u64], schema: u32) -> Result<Recorded> {
    let path = h5::attr::text(dataset, "dah5_block_table")?
        .ok_or_else(|| malformed(format!("schema {schema} without dah5_block_table")))?;
    let path =
        String::from_utf8(path).map_err(|_| malformed("dah5_block_table is not UTF-8".into()))?;
    let table = h5::dataset::open(dataset, &path)
        .map_err(|e| malformed(format!("its table dataset {path:?}: {}", e.message)))?;
    let (shape, _) = h5::space::extents(&h5::dataset::space(&table)?)?;
    table.close()?;
    if shape.len() != 3 || shape[1] != width_of(schema) || shape[2] != dims.len() as u64 {
        return Err(malformed(format!("{path:?} has shape {shape:?}")));
    }
    Ok(Recorded {
        schema,
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
        ranks: None,
        ndims,
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
        let table = BlockTable::validate(&dims, offsets, counts, None, Order::C).unwrap();
        assert!(table.complete);
        assert_eq!(table.largest_block(), Some(vec![2, 3]));
    }

    #[test]
    fn overlaps_gaps_and_out_of_bounds_are_found() {
        let dims = [4, 6];
        let overlap = BlockTable::validate(
            &dims,
            rows(&[&[0, 0], &[1, 2]]),
            rows(&[&[2, 3], &[3, 4]]),
            None,
            Order::C,
        )
        .unwrap_err();
        assert!(
            overlap.message.contains("rank 0's block")
                && overlap.message.contains("rank 1's block")
        );
        assert!(overlap.message.contains("overlap"));
        let out = BlockTable::validate(
            &dims,
            rows(&[&[3, 0]]),
            rows(&[&[2, 6]]),
            None,
            Order::Fortran,
        )
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
            None,
            Order::C,
        )
        .unwrap();
        assert!(!gap.complete);
        assert_eq!(gap.covered(), 12);
    }

    #[test]
    fn blocks_of_many_per_rank_are_named_by_rank_and_index() {
        // Rank 0 has blocks 0 and 1, rank 2 (rank 1 has none) block 0, which meets
        // rank 0's block 1.
        let offsets = rows(&[&[0, 0], &[2, 0], &[2, 3]]);
        let counts = rows(&[&[2, 6], &[1, 4], &[1, 3]]);
        let ranks = Some(vec![0, 0, 2]);
        let err = BlockTable::validate(&[4, 6], offsets, counts, ranks, Order::C).unwrap_err();
        assert!(
            err.message.contains(
                "rank 0's block 1 (offset [2, 0] count [1, 4]) and rank 2's block 0 \
                 (offset [2, 3] count [1, 3]) overlap"
            ),
            "{}",
            err.message
        );
        let offsets = rows(&[&[0, 0], &[2, 0], &[3, 0]]);
        let counts = rows(&[&[2, 6], &[1, 6], &[1, 6]]);
        let table =
            BlockTable::validate(&[4, 6], offsets, counts, Some(vec![0, 0, 2]), Order::C).unwrap();
        assert!(table.complete);
        assert_eq!((table.rank_of(1), table.rank_of(2)), (0, 2));
        assert_eq!(table.schema(), SCHEMA_WITH_RANKS);
        // Three u64 rows per block: offset, count, then the rank and zeros.
        assert_eq!(u64s(&table.rows())[12..18], [3, 0, 1, 6, 2, 0]);
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
        let table =
            BlockTable::validate(&dims, offsets.clone(), counts.clone(), None, Order::C).unwrap();
        assert!(table.complete);
        // Block 77777 shifted by one along the last dim meets its neighbour 77778 (and
        // leaves a gap).
        let mut moved = offsets;
        moved[77777][2] += 1;
        let err = BlockTable::validate(&dims, moved, counts, None, Order::C).unwrap_err();
        assert!(
            err.message.contains("rank 77777's block") && err.message.contains("rank 77778's"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_summary_travels_as_words_and_sizes_the_stored_rows() {
        let offsets = rows(&[&[0, 0], &[2, 0], &[3, 0]]);
        let counts = rows(&[&[2, 6], &[1, 4], &[1, 6]]);
        let table =
            BlockTable::validate(&[4, 6], offsets, counts, Some(vec![0, 0, 2]), Order::C).unwrap();
        let summary = table.summary();
        assert_eq!(summary.largest, Some(vec![2, 6]));
        assert_eq!(
            TableSummary::from_words(&summary.to_words()),
            Ok(summary.clone())
        );
        assert_eq!(summary.stored_bytes(), table.rows().len() as u64);
        let empty = BlockTable::validate(&[4], vec![], vec![], None, Order::C).unwrap();
        let words = empty.summary().to_words();
        assert_eq!(TableSummary::from_words(&words).unwrap().largest, None);
        assert!(TableSummary::from_words(&words[..3]).is_err());
    }

    #[test]
    fn table_paths_mirror_the_darray_path() {
        assert_eq!(table_path("t"), "/dah5_blocks/t");
        assert_eq!(table_path("/g/t"), "/dah5_blocks/g/t");
    }
}
