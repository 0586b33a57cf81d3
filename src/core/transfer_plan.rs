//! A rank's blocks of one call, planned as HDF5 transfers: each transfer one selection of
//! many blocks, and the caller's bytes in the order HDF5 moves them.
//!
//! HDF5 maps a contiguous memory buffer onto a union of hyperslabs in the file's row-major
//! order, not block after block. The caller's buffer holds the blocks one after another,
//! so where the blocks' rows interleave in the file (2-D tiles side by side) or the blocks
//! come in another order than the file's (a climate model's run list), the bytes are
//! copied once into a buffer in file order (a write) or out of one (a read). Blocks that
//! already follow each other in the file are moved straight from the caller's buffer.
//!
//! A transfer moves at most the largest piece of one MPI-IO call (`core::split`); larger
//! blocks are cut first.

use crate::core::shape::{byte_len, position};
use crate::core::split::{self, Piece};
use crate::error::Result;

/// One HDF5 transfer: its pieces in file order, and where their bytes are.
#[derive(Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Sorted by their first element in the file; disjoint.
    pub pieces: Vec<Piece>,
    /// Bytes the pieces hold together.
    pub bytes: usize,
    /// The caller's buffer holds the pieces back to back, in file order, from the first
    /// piece's byte offset: no copy is needed.
    pub in_place: bool,
    /// Otherwise, the runs of the caller's buffer in file order: (byte offset, length).
    pub rows: Vec<(usize, usize)>,
}

fn first(dims: &[u64], piece: &Piece) -> u128 {
    position(dims, piece.offset.iter().copied())
}

fn last(dims: &[u64], piece: &Piece) -> u128 {
    position(
        dims,
        piece
            .offset
            .iter()
            .zip(&piece.count)
            .map(|(o, c)| o + c - 1),
    )
}

/// Plan the transfers of `blocks` (offset, count in storage order; in bounds, disjoint) of
/// an array of `dims`, whose `elem_size`-byte elements are packed block after block in the
/// caller's buffer. At most `max_bytes` a transfer (but at least one element).
pub fn plan(
    dims: &[u64],
    blocks: &[(Vec<u64>, Vec<u64>)],
    elem_size: usize,
    max_bytes: u64,
) -> Result<Vec<Transfer>> {
    let mut pieces = Vec::new();
    let mut base = 0usize;
    for (offset, count) in blocks {
        for mut piece in split::plan(offset, count, elem_size, max_bytes) {
            piece.byte_offset += base;
            pieces.push(piece);
        }
        base += byte_len(count, elem_size, "count")?;
    }
    // (One piece, the one-block call's usual case, needs no sort nor its keys' allocation.)
    if pieces.len() > 1 {
        pieces.sort_by_cached_key(|p| first(dims, p));
    }
    let mut transfers: Vec<Transfer> = Vec::new();
    for piece in pieces {
        let bytes = byte_len(&piece.count, elem_size, "piece")?;
        match transfers.last_mut() {
            Some(t) if (t.bytes + bytes) as u64 <= max_bytes => {
                let previous = &t.pieces[t.pieces.len() - 1];
                let follows = previous.byte_offset + byte_len(&previous.count, elem_size, "piece")?
                    == piece.byte_offset
                    && last(dims, previous) < first(dims, &piece);
                t.in_place &= follows;
                t.bytes += bytes;
                t.pieces.push(piece);
            }
            _ => transfers.push(Transfer {
                pieces: vec![piece],
                bytes,
                in_place: true,
                rows: Vec::new(),
            }),
        }
    }
    for t in transfers.iter_mut().filter(|t| !t.in_place) {
        t.rows = rows(dims, t, elem_size);
    }
    Ok(transfers)
}

/// One row of a piece: `len` bytes at `from` in the caller's buffer, starting at element
/// `at` of the file.
struct Row {
    at: u128,
    from: usize,
    len: usize,
}

/// Every row of the transfer's pieces, in file order, as (byte offset, length) in the
/// caller's buffer. A row is the longest run a piece
/// holds contiguously in the file: its last dimension, and the ones before it while the
/// piece spans them whole.
fn rows(dims: &[u64], transfer: &Transfer, elem_size: usize) -> Vec<(usize, usize)> {
    let mut rows = Vec::new();
    for piece in &transfer.pieces {
        // Dimensions `run..` make one row: all of them but the first are whole.
        let mut run = dims.len().saturating_sub(1);
        while run > 0 && piece.count[run] == dims[run] {
            run -= 1;
        }
        let len = piece.count[run..].iter().product::<u64>() as usize * elem_size;
        let nrows: u64 = piece.count[..run].iter().product();
        let mut index = vec![0u64; run];
        for k in 0..nrows as usize {
            let start = (piece.offset.iter().enumerate())
                .map(|(d, &o)| if d < run { o + index[d] } else { o });
            rows.push(Row {
                at: position(dims, start),
                from: piece.byte_offset + k * len,
                len,
            });
            // The next row: an odometer over the dimensions before `run`.
            for d in (0..run).rev() {
                index[d] += 1;
                if index[d] < piece.count[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
    rows.sort_unstable_by_key(|r| r.at);
    rows.into_iter().map(|r| (r.from, r.len)).collect()
}

/// The transfer's bytes in file order, copied out of the caller's `buffer` (a write that
/// is not [`Transfer::in_place`]).
pub fn gather(transfer: &Transfer, buffer: &[u8]) -> Vec<u8> {
    let mut staged = Vec::with_capacity(transfer.bytes);
    for &(from, len) in &transfer.rows {
        staged.extend_from_slice(&buffer[from..from + len]);
    }
    staged
}

/// Copy `staged`, the transfer's bytes in file order, into the caller's `buffer` (a read
/// that is not [`Transfer::in_place`]).
pub fn scatter(transfer: &Transfer, staged: &[u8], buffer: &mut [u8]) {
    let mut at = 0;
    for &(from, len) in &transfer.rows {
        buffer[from..from + len].copy_from_slice(&staged[at..at + len]);
        at += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Elements numbered by their file position, packed block after block as a caller
    /// would (u32 each).
    fn packed(dims: &[u64], blocks: &[(Vec<u64>, Vec<u64>)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for (offset, count) in blocks {
            let n: u64 = count.iter().product();
            for k in 0..n {
                // Row-major index k inside the block, then its file position.
                let mut rest = k;
                let mut index = vec![0u64; count.len()];
                for d in (0..count.len()).rev() {
                    index[d] = offset[d] + rest % count[d];
                    rest /= count[d];
                }
                let at = position(dims, index.into_iter()) as u32;
                bytes.extend_from_slice(&at.to_ne_bytes());
            }
        }
        bytes
    }

    fn numbers(bytes: &[u8]) -> Vec<u32> {
        (bytes.chunks_exact(4))
            .map(|b| u32::from_ne_bytes(b.try_into().unwrap()))
            .collect()
    }

    /// Every transfer's bytes come out in increasing file position, and scatter puts them
    /// back where they came from.
    fn check(dims: &[u64], blocks: &[(Vec<u64>, Vec<u64>)], max: u64) -> Vec<Transfer> {
        let buffer = packed(dims, blocks);
        let transfers = plan(dims, blocks, 4, max).unwrap();
        let mut back = vec![0u8; buffer.len()];
        let mut moved = 0;
        for t in &transfers {
            let staged = if t.in_place {
                let start = t.pieces[0].byte_offset;
                buffer[start..start + t.bytes].to_vec()
            } else {
                gather(t, &buffer)
            };
            let values = numbers(&staged);
            assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
            assert!(t.bytes as u64 <= max.max(4));
            if t.in_place {
                let start = t.pieces[0].byte_offset;
                back[start..start + t.bytes].copy_from_slice(&staged);
            } else {
                scatter(t, &staged, &mut back);
            }
            moved += t.bytes;
        }
        assert_eq!(moved, buffer.len());
        assert_eq!(back, buffer);
        transfers
    }

    #[test]
    fn tiles_side_by_side_are_staged_in_file_order() {
        // A 4×6 array of 2×3 tiles, given column of tiles first.
        let tile = |i: u64, j: u64| (vec![2 * i, 3 * j], vec![2, 3]);
        let blocks = vec![tile(0, 0), tile(1, 0), tile(0, 1), tile(1, 1)];
        let transfers = check(&[4, 6], &blocks, 1 << 20);
        assert_eq!(transfers.len(), 1);
        assert!(!transfers[0].in_place);
    }

    #[test]
    fn blocks_that_follow_each_other_move_in_place() {
        let blocks = vec![(vec![0, 0], vec![2, 6]), (vec![2, 0], vec![1, 6])];
        assert!(check(&[4, 6], &blocks, 1 << 20)[0].in_place);
        let runs = vec![(vec![1], vec![2]), (vec![5], vec![3])];
        assert!(check(&[10], &runs, 1 << 20)[0].in_place);
        // The same runs given the other way round are copied.
        let reversed = vec![(vec![5], vec![3]), (vec![1], vec![2])];
        assert!(!check(&[10], &reversed, 1 << 20)[0].in_place);
    }

    #[test]
    fn runs_in_no_order_and_large_blocks_split_into_several_transfers() {
        // 1-D runs of a scrambled list, at most 40 bytes (10 elements) a transfer.
        let mut state = 7u64;
        let mut starts: Vec<u64> = (0..50).map(|i| i * 4).collect();
        for i in (1..starts.len()).rev() {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            starts.swap(i, (state >> 33) as usize % (i + 1));
        }
        let runs: Vec<_> = starts.iter().map(|&s| (vec![s], vec![1 + s % 3])).collect();
        assert!(check(&[200], &runs, 40).len() > 1);
        // A 3-D block over the limit, beside a small one: cut, every piece moved once.
        let blocks = vec![
            (vec![1, 0, 0], vec![3, 4, 5]),
            (vec![0, 0, 0], vec![1, 4, 5]),
            (vec![0, 4, 1], vec![4, 2, 2]),
        ];
        check(&[4, 6, 5], &blocks, 48);
        check(&[4, 6, 5], &blocks, 1 << 20);
    }
}
