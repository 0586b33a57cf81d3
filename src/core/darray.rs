//! Distributed arrays: one dataset written by every rank at once, with the decomposition
//! recorded in the file, checked before anything is written, and balanced partitions for
//! reading it back on any number of ranks.
//!
//! The block table is stored as attributes of the dataset (schema version 1), all in HDF5's
//! C order whatever the writer's order, one row per rank of the writing communicator (a
//! rank with nothing has a zero count):
//!
//! | attribute            | type                     | value                         |
//! |----------------------|--------------------------|-------------------------------|
//! | `dah5_darray_version`| uint32 scalar            | 1                             |
//! | `dah5_writer_order`  | UTF-8 string             | `"C"` or `"F"`                |
//! | `dah5_nblocks`       | uint64 scalar            | number of blocks (rows)       |
//! | `dah5_block_offsets` | uint64 (nblocks, ndims)  | each block's start            |
//! | `dah5_block_counts`  | uint64 (nblocks, ndims)  | each block's extents          |
//! | `dah5_complete`      | uint8 scalar             | 1 if the blocks cover it all  |

use crate::core::attr::{AttrValue, write_value};
use crate::core::block::{BlockRequest, Buffer, WriteBlock};
use crate::core::collective::{self, Args, Collective};
use crate::core::dataset::{Dataset, DatasetRequest};
use crate::core::fault;
use crate::core::file::File;
use crate::core::shape::{Order, byte_len, check_block, element_count};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::Id;

pub const SCHEMA_VERSION: u32 = 1;

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

/// Whether two non-empty blocks share an element.
fn overlap(a: (&[u64], &[u64]), b: (&[u64], &[u64])) -> bool {
    (0..a.0.len()).all(|d| a.0[d].max(b.0[d]) < (a.0[d] + a.1[d]).min(b.0[d] + b.1[d]))
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
        for rank in 0..offsets.len() {
            if !is_empty(&counts[rank]) {
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
        }
        let nonempty: Vec<usize> = (0..offsets.len())
            .filter(|&r| !is_empty(&counts[r]))
            .collect();
        for (i, &a) in nonempty.iter().enumerate() {
            for &b in &nonempty[i + 1..] {
                if overlap((&offsets[a], &counts[a]), (&offsets[b], &counts[b])) {
                    return Err(Error::invalid(format!(
                        "{} and {} overlap: every element must have one writer",
                        show(a),
                        show(b)
                    )));
                }
            }
        }
        // In bounds and disjoint: they cover the array iff their sizes add up to it.
        let covered = nonempty
            .iter()
            .map(|&r| element_count(&counts[r]).unwrap_or(u64::MAX))
            .fold(0u64, u64::saturating_add);
        let complete = Some(covered) == element_count(dims);
        Ok(BlockTable {
            offsets,
            counts,
            complete,
        })
    }

    fn covered(&self) -> u64 {
        self.counts
            .iter()
            .filter(|c| !is_empty(c))
            .map(|c| element_count(c).unwrap_or(u64::MAX))
            .fold(0u64, u64::saturating_add)
    }

    /// The largest extent of any block in each dimension: the chunk that gives a regular
    /// decomposition one chunk per block.
    pub fn largest_block(&self) -> Vec<u64> {
        let ndims = self.counts.first().map_or(0, Vec::len);
        (0..ndims)
            .map(|d| self.counts.iter().map(|c| c[d]).max().unwrap_or(1))
            .collect()
    }

    fn flat(rows: &[Vec<u64>]) -> Vec<u8> {
        rows.iter()
            .flatten()
            .flat_map(|v| v.to_ne_bytes())
            .collect()
    }

    /// Record the table on dataset `name` (collective in a parallel file).
    pub(crate) fn write(&self, file: &Id, name: &str, order: Order) -> Result<()> {
        let numbers = |dtype, shape, data| AttrValue::Numbers { dtype, shape, data };
        let rows = vec![self.offsets.len() as u64, self.largest_block().len() as u64];
        let (offsets, counts) = (Self::flat(&self.offsets), Self::flat(&self.counts));
        let writer = order.letter();
        let (version, nblocks) = (SCHEMA_VERSION.to_ne_bytes(), rows[0].to_ne_bytes());
        let complete = [self.complete as u8];
        let attributes = [
            (
                "dah5_darray_version",
                numbers(Dtype::Uint32, vec![], &version),
            ),
            ("dah5_writer_order", AttrValue::Text(writer)),
            ("dah5_nblocks", numbers(Dtype::Uint64, vec![], &nblocks)),
            (
                "dah5_block_offsets",
                numbers(Dtype::Uint64, rows.clone(), &offsets),
            ),
            (
                "dah5_block_counts",
                numbers(Dtype::Uint64, rows.clone(), &counts),
            ),
            ("dah5_complete", numbers(Dtype::Uint8, vec![], &complete)),
        ];
        let scalar = h5::space::scalar()?;
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

    /// The table recorded on an open dataset of `ndims` dims, if any (collective: it is
    /// read when the dataset is opened).
    pub fn read(dataset: &Id, ndims: usize) -> Result<Option<BlockTable>> {
        let place = |attr| Place {
            file: dataset,
            object: ".",
            name: attr,
        };
        if !h5::attr::exists(&place("dah5_block_offsets"), false)? {
            return Ok(None);
        }
        let bad = |what: String| {
            Error::new(
                ErrorKind::TypeMismatch,
                format!("its dah5 block table is malformed: {what}"),
            )
        };
        let read_rows = |attr| -> Result<Vec<Vec<u64>>> {
            let opened = h5::attr::open(&place(attr), false)?;
            if opened.dims.len() != 2 || opened.dims[1] != ndims as u64 {
                return Err(bad(format!("{attr} has shape {:?}", opened.dims)));
            }
            let mut bytes = vec![0u8; byte_len(&opened.dims, 8, attr)?];
            opened.read(&h5::types::native(Dtype::Uint64)?, &mut bytes)?;
            opened.close()?;
            let values: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|b| u64::from_ne_bytes(b.try_into().unwrap_or_default()))
                .collect();
            Ok(values.chunks(ndims.max(1)).map(<[u64]>::to_vec).collect())
        };
        let offsets = read_rows("dah5_block_offsets")?;
        let counts = read_rows("dah5_block_counts")?;
        if offsets.len() != counts.len() {
            return Err(bad(
                "offsets and counts have different numbers of rows".into()
            ));
        }
        let mut table = BlockTable {
            offsets,
            counts,
            complete: false,
        };
        let dims = h5::space::extents(&h5::dataset::space(dataset)?)?.0;
        table.complete = element_count(&dims) == Some(table.covered());
        Ok(Some(table))
    }
}

/// Rank `rank` of `nranks`'s part of an array of `dims` (storage order): the slowest
/// dimension with at least `nranks` elements (else the largest) is cut into nearly equal
/// pieces, the others are whole. Cutting the slowest dimension gives each rank one
/// contiguous range of the file; some ranks get nothing when the array is small.
pub fn partition(dims: &[u64], rank: u64, nranks: u64) -> (Vec<u64>, Vec<u64>) {
    let split = dims.iter().position(|&n| n >= nranks).unwrap_or_else(|| {
        (0..dims.len())
            .max_by_key(|&d| (dims[d], usize::MAX - d))
            .unwrap_or(0)
    });
    let mut offset = vec![0; dims.len()];
    let mut count = dims.to_vec();
    let n = dims[split] as u128;
    let (start, end) = (
        n * rank as u128 / nranks as u128,
        n * (rank as u128 + 1) / nranks as u128,
    );
    offset[split] = start as u64;
    count[split] = (end - start) as u64;
    (offset, count)
}

/// Everything a rank says in `dah5_darray_write`. Offsets and counts in the handle's order.
pub struct DarrayRequest<'a> {
    pub dataset: DatasetRequest,
    pub offset: Vec<u64>,
    pub count: Vec<u64>,
    pub data: &'a [u8],
    /// Allow blocks that leave parts of the array unwritten.
    pub partial: bool,
    /// Collective data transfer (always so for compressed datasets).
    pub collective: bool,
}

impl Dataset {
    /// The block table in the file handle's order: (offsets, counts), one row per block.
    pub fn block_table(&self) -> Result<Blocks> {
        let table = self.blocks.as_ref().ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!(
                    "dataset {:?} has no block table (it was not written by \
                     dah5_darray_write); use dah5_darray_partition to split it",
                    self.name()
                ),
            )
        })?;
        let order = self.file.order;
        let rows = |rows: &[Vec<u64>]| rows.iter().map(|r| order.to_storage(r)).collect();
        Ok((rows(&table.offsets), rows(&table.counts)))
    }

    /// Rank `rank` of `nranks`'s balanced block (see [`partition`]), in the handle's order.
    pub fn partition(&self, rank: u64, nranks: u64) -> (Vec<u64>, Vec<u64>) {
        let order = self.file.order;
        let (offset, count) = partition(&self.storage_dims, rank, nranks);
        (order.to_storage(&offset), order.to_storage(&count))
    }
}

/// `dah5_darray_write`: gather and check every rank's block, create the dataset, record
/// the table, write the data. Nothing is created when any check fails, and every rank gets
/// the same error.
impl Collective for DarrayRequest<'_> {
    const NAME: &'static str = "dah5_darray_write";
    type Target = File;
    type Output = Dataset;

    fn check(self, file: &File) -> Result<Self> {
        let dataset = file.check_create(self.dataset)?;
        let ndims = dataset.dims.len();
        if self.offset.len() != ndims || self.count.len() != ndims {
            return Err(Error::invalid(format!(
                "offset and count need {ndims} entries, like dims"
            )));
        }
        let needed = byte_len(&self.count, dataset.dtype.size(), "count")?;
        if self.data.len() != needed {
            return Err(Error::invalid(format!(
                "buf holds {} bytes but the block needs {needed}",
                self.data.len()
            )));
        }
        Ok(DarrayRequest { dataset, ..self })
    }

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        self.dataset
            .args(file, Self::NAME)
            .number("flags.partial", self.partial as u64)
            .number("flags.collective", self.collective as u64)
    }

    fn act(self, file: &mut File, _: u64) -> Result<Dataset> {
        let table = file.gather_blocks(&self)?;
        let layout = file.layout_of(&self.dataset, Some(&table.largest_block()))?;
        let name = self.dataset.name.clone();
        let mut dataset = file.create_agreed(self.dataset, &layout)?;
        // From here on, a step that fails on any rank takes the dataset out again on every
        // rank: the call leaves nothing behind (not a dataset without its table or data).
        let rank = file.shared.comm.rank();
        let table_written = table
            .write(&file.id, &name, file.order())
            .and_then(|()| fault::check("darray_table", rank));
        if let Err(e) = file.settle("the block table", table_written) {
            return Err(file.take_out(dataset.take_id(), &name, e));
        }
        let collective = self.collective || dataset.filtered;
        let block = Ok(WriteBlock::new(BlockRequest {
            offset: self.offset,
            count: self.count,
            mem_dtype: dataset.dtype(),
            convert: false,
            collective,
            buffer: Buffer::Source(self.data),
        }));
        let data_written = if collective {
            collective::run(&mut dataset, block)
        } else {
            collective::run_alone(&mut dataset, block)
        };
        let data_written = data_written.and_then(|()| fault::check("darray_data", rank));
        if let Err(e) = file.settle("the data", data_written) {
            return Err(file.take_out(dataset.take_id(), &name, e));
        }
        dataset.blocks = Some(table);
        Ok(dataset)
    }
}

impl File {
    /// Every rank's block, gathered and checked against the dims (collective).
    fn gather_blocks(&self, request: &DarrayRequest<'_>) -> Result<BlockTable> {
        let order = self.order();
        let ndims = request.dataset.dims.len();
        let mine: Vec<u64> = [
            order.to_storage(&request.offset),
            order.to_storage(&request.count),
        ]
        .concat();
        let all = self.shared.comm.allgather(&mine)?;
        let (offsets, counts) = all
            .chunks(2 * ndims)
            .map(|row| (row[..ndims].to_vec(), row[ndims..].to_vec()))
            .unzip();
        let dims = order.to_storage(&request.dataset.dims);
        let name = &request.dataset.name;
        let table = BlockTable::validate(&dims, offsets, counts, order)
            .map_err(|e| e.context(format_args!("dataset {name:?}")))?;
        if !table.complete && !request.partial {
            return Err(Error::invalid(format!(
                "dataset {name:?}: the blocks cover {} of the {} elements; pass \
                 DAH5_DARRAY_PARTIAL to write a partial array. Nothing was written",
                table.covered(),
                element_count(&dims).unwrap_or(0)
            )));
        }
        Ok(table)
    }

    /// Every rank learns whether writing `what` worked on all ranks.
    fn settle(&self, what: &str, outcome: Result<()>) -> Result<()> {
        let outcome = outcome.map_err(|own| own.context(format_args!("writing {what}")));
        collective::settle(
            &self.shared.comm,
            DarrayRequest::NAME,
            what,
            outcome,
            |_| {
                format!(
                    "writing {what} failed on another rank (its message says why), so the \
                     dataset was taken out again on every rank"
                )
            },
        )
    }
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

    #[test]
    fn partitions_are_balanced_and_cover_the_array() {
        for (dims, nranks) in [
            (vec![10u64, 3], 3u64),
            (vec![2, 7], 3),
            (vec![1, 1], 4),
            (vec![5], 5),
        ] {
            let mut total = 0;
            for rank in 0..nranks {
                let (offset, count) = partition(&dims, rank, nranks);
                check_block(&dims, &offset, &count).unwrap();
                total += element_count(&count).unwrap();
            }
            assert_eq!(Some(total), element_count(&dims), "{dims:?} on {nranks}");
        }
        // The slowest dimension with enough elements is cut.
        assert_eq!(partition(&[10, 3], 1, 3), (vec![3, 0], vec![3, 3]));
        assert_eq!(partition(&[2, 7], 2, 3), (vec![0, 4], vec![2, 3]));
    }
}
