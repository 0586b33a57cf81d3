//! A block's bytes in a row-major file: the contiguous runs they make, and the span from
//! its first byte to its last. Pure arithmetic; direct mode and writes behind
//! (`DAH5_ASYNC`) move blocks with `pwrite` at these offsets.

use std::ops::Range;

use crate::error::Result;

/// Call `f(byte offset, byte length)` for each contiguous run of the block `offset, count`
/// (storage order) of an array of `dims` with `elem`-byte elements, in file order: the
/// block's bytes in C order are the runs one after another. Dimensions after the last one
/// the block does not span completely are folded into each run.
pub fn for_each_run(
    dims: &[u64],
    offset: &[u64],
    count: &[u64],
    elem: u64,
    mut f: impl FnMut(u64, u64) -> Result<()>,
) -> Result<()> {
    if count.contains(&0) {
        return Ok(());
    }
    let n = dims.len();
    // strides[d]: elements between consecutive indices of dimension d.
    let mut strides = vec![1u64; n];
    for d in (0..n.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    // The last dimension the block does not span whole; everything after it is one run.
    let split = (0..n)
        .rev()
        .find(|&d| offset[d] != 0 || count[d] != dims[d])
        .unwrap_or(0);
    let run = count[split] * strides[split] * elem;
    let mut index = vec![0u64; split]; // position within the block in dims 0..split
    loop {
        let element: u64 = (0..split)
            .map(|d| (offset[d] + index[d]) * strides[d])
            .sum::<u64>()
            + offset[split] * strides[split];
        f(element * elem, run)?;
        // Next index, last dimension fastest.
        let mut d = split;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            index[d] += 1;
            if index[d] < count[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// The bytes from the first to the last of the block `offset, count` (storage order) of an
/// array of `dims` with `elem`-byte elements, relative to element 0; `None` for an empty
/// block. Every run of [`for_each_run`] lies inside it.
pub fn byte_span(dims: &[u64], offset: &[u64], count: &[u64], elem: u64) -> Option<Range<u64>> {
    if count.contains(&0) {
        return None;
    }
    let linear = |index: &mut dyn Iterator<Item = u64>| {
        dims.iter()
            .zip(index)
            .fold(0u64, |at, (&dim, i)| at * dim + i)
    };
    let first = linear(&mut offset.iter().copied());
    let last = linear(&mut offset.iter().zip(count).map(|(&o, &c)| o + c - 1));
    Some(first * elem..(last + 1) * elem)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(dims: &[u64], offset: &[u64], count: &[u64]) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for_each_run(dims, offset, count, 8, |o, l| {
            out.push((o, l));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn whole_rows_are_one_run_and_partial_rows_one_run_each() {
        // Rows 2..5 of (6, 4): one run of 3 * 4 elements at element 8.
        assert_eq!(runs(&[6, 4], &[2, 0], &[3, 4]), vec![(64, 96)]);
        // Columns 1..3 of rows 2..4: one run per row.
        assert_eq!(runs(&[6, 4], &[2, 1], &[2, 2]), vec![(72, 16), (104, 16)]);
        // The whole array.
        assert_eq!(runs(&[2, 3], &[0, 0], &[2, 3]), vec![(0, 48)]);
        // 3-D: planes are whole, rows partial in dim 1.
        assert_eq!(
            runs(&[2, 4, 3], &[1, 1, 0], &[1, 2, 3]),
            vec![((12 + 3) * 8, 48)]
        );
        assert_eq!(
            runs(&[2, 4, 3], &[0, 0, 1], &[2, 1, 1]),
            vec![(8, 8), (104, 8)]
        );
        assert!(runs(&[4], &[1], &[0]).is_empty());
    }

    #[test]
    fn runs_cover_the_block_in_order() {
        let (dims, offset, count) = ([5u64, 4, 3], [1u64, 1, 1], [3u64, 2, 2]);
        let mut elements = Vec::new();
        for_each_run(&dims, &offset, &count, 1, |o, l| {
            elements.extend(o..o + l);
            Ok(())
        })
        .unwrap();
        let mut expected = Vec::new();
        for i in 1..4 {
            for j in 1..3 {
                for k in 1..3 {
                    expected.push(i * 12 + j * 3 + k);
                }
            }
        }
        assert_eq!(elements, expected);
    }

    #[test]
    fn the_span_runs_from_the_first_byte_to_the_last() {
        assert_eq!(byte_span(&[6, 4], &[2, 1], &[2, 2], 8), Some(72..120));
        assert_eq!(byte_span(&[10], &[3], &[4], 4), Some(12..28));
        assert_eq!(byte_span(&[6, 4], &[2, 1], &[0, 2], 8), None);
        let (dims, offset, count) = ([5u64, 4, 3], [1u64, 1, 1], [3u64, 2, 2]);
        let span = byte_span(&dims, &offset, &count, 2).unwrap();
        for_each_run(&dims, &offset, &count, 2, |o, l| {
            assert!(span.start <= o && o + l <= span.end);
            Ok(())
        })
        .unwrap();
    }
}
