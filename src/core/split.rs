//! Splitting one block into pieces that each fit one MPI-IO call.
//!
//! HDF5 1.10's MPI-IO driver passes byte counts to MPI as `int`, so a transfer over 2 GiB fails
//! ("can't convert from size to size_i"). A block is cut along its slowest dimension that
//! makes pieces small enough; every piece is contiguous in the caller's buffer, so no copy is
//! needed: a piece is a pointer offset plus a hyperslab.

use crate::error::{Error, Result};

/// Default largest piece: 1 GiB, well under the 2 GiB - 1 that MPI's `int` count allows.
const DEFAULT_MAX_PIECE_BYTES: u64 = 1 << 30;

/// Environment variable that lowers the largest piece of one MPI-IO call (tests use it to
/// exercise splitting with small data).
const MAX_PIECE_ENV: &str = "DAH5_MAX_PIECE_BYTES";

/// The largest piece of one MPI-IO call: [`DEFAULT_MAX_PIECE_BYTES`], or what
/// `DAH5_MAX_PIECE_BYTES` says.
pub(crate) fn max_piece_bytes() -> Result<u64> {
    match crate::os::setting(MAX_PIECE_ENV)? {
        None => Ok(DEFAULT_MAX_PIECE_BYTES),
        Some(text) => text.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
            Error::invalid(format!(
                "{MAX_PIECE_ENV}={text:?} is not a positive number of bytes (the most one \
                     MPI-IO call moves); set one, or unset it for the default"
            ))
        }),
    }
}

/// One contiguous run of the caller's buffer and the hyperslab of the block it lands in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Start of the piece, in dataset coordinates (storage order).
    pub offset: Vec<u64>,
    pub count: Vec<u64>,
    /// Where the piece starts in the caller's buffer.
    pub byte_offset: usize,
}

/// Cut the block `offset, count` (storage order, row-major buffer) of `elem_size`-byte
/// elements into pieces of at most `max_piece_bytes` (at least one element). An empty block
/// has no pieces.
pub fn plan(offset: &[u64], count: &[u64], elem_size: usize, max_piece_bytes: u64) -> Vec<Piece> {
    if count.contains(&0) {
        return Vec::new();
    }
    let max = max_piece_bytes.max(elem_size as u64);
    let ndims = count.len();
    // slab[d]: bytes of one index step along dimension d (everything inside it).
    let mut slab = vec![elem_size as u64; ndims];
    for d in (0..ndims.saturating_sub(1)).rev() {
        slab[d] = slab[d + 1].saturating_mul(count[d + 1]);
    }
    let whole = slab[0].saturating_mul(count[0]);
    if whole <= max {
        return vec![Piece {
            offset: offset.to_vec(),
            count: count.to_vec(),
            byte_offset: 0,
        }];
    }
    // The outermost dimension whose single slab fits; it exists because slab[ndims-1] = elem.
    let split = (0..ndims).find(|&d| slab[d] <= max).unwrap_or(ndims - 1);
    let step = max / slab[split];

    let mut pieces = Vec::new();
    // Walk every index of the dimensions before `split` (row-major), then `split` by `step`.
    let mut outer = vec![0u64; split];
    loop {
        let mut start = 0;
        while start < count[split] {
            let n = step.min(count[split] - start);
            let mut piece_offset = offset.to_vec();
            let mut piece_count = count.to_vec();
            for d in 0..split {
                piece_offset[d] += outer[d];
                piece_count[d] = 1;
            }
            piece_offset[split] += start;
            piece_count[split] = n;
            let byte_offset: u64 = outer
                .iter()
                .enumerate()
                .map(|(d, &i)| i * slab[d])
                .sum::<u64>()
                + start * slab[split];
            pieces.push(Piece {
                offset: piece_offset,
                count: piece_count,
                byte_offset: byte_offset as usize,
            });
            start += n;
        }
        // Advance the outer odometer; done when it rolls over.
        let mut d = split;
        loop {
            if d == 0 {
                return pieces;
            }
            d -= 1;
            outer[d] += 1;
            if outer[d] < count[d] {
                break;
            }
            outer[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of the block is covered exactly once, each piece is contiguous in the
    /// buffer at its byte offset, and no piece exceeds the limit.
    fn check_cover(offset: &[u64], count: &[u64], elem: usize, max: u64) -> usize {
        let pieces = plan(offset, count, elem, max);
        let total: u64 = count.iter().product();
        let mut seen = vec![false; total as usize];
        for p in &pieces {
            let n: u64 = p.count.iter().product();
            assert!(n * elem as u64 <= max.max(elem as u64));
            // Row-major position inside the block of the piece's first element.
            let mut linear = 0u64;
            for d in 0..count.len() {
                linear = linear * count[d] + (p.offset[d] - offset[d]);
            }
            assert_eq!(p.byte_offset as u64, linear * elem as u64);
            for k in 0..n {
                let i = (linear + k) as usize;
                assert!(!seen[i], "element {i} covered twice");
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|&s| s), "some element not covered");
        pieces.len()
    }

    #[test]
    fn small_block_is_one_piece() {
        assert_eq!(check_cover(&[3, 4], &[5, 6], 8, 1 << 30), 1);
    }

    #[test]
    fn empty_block_has_no_pieces() {
        assert!(plan(&[0, 0], &[4, 0], 8, 64).is_empty());
    }

    #[test]
    fn splits_rows_then_inner_dimensions() {
        // 10 rows of 6 doubles = 48 bytes a row; 100-byte pieces hold 2 rows.
        assert_eq!(check_cover(&[2, 1], &[10, 6], 8, 100), 5);
        // A row larger than the limit splits inside rows: 3 doubles a piece.
        assert_eq!(check_cover(&[0, 0, 0], &[3, 4, 7], 8, 24), 3 * 4 * 3);
        // Limit below one element still moves one element a piece.
        assert_eq!(check_cover(&[1], &[5], 8, 3), 5);
        check_cover(&[7, 0, 2, 1], &[3, 2, 5, 9], 4, 52);
    }
}
