//! Property tests over argument validation and hyperslab arithmetic: random shapes and
//! blocks, many of them absurd (extents near 2^64, wrapping offsets, zeros), must never
//! panic or overflow (debug builds check overflow), and every rejection is an error value.
//! A small deterministic generator keeps the runs reproducible without extra crates.

use crate::core::block_table::BlockTable;
use crate::core::darray::partition;
use crate::core::layout::{self, LayoutRequest, UNLIMITED};
use crate::core::runs::for_each_run;
use crate::core::shape::{Order, byte_len, check_block, check_dims, element_count};
use crate::core::split;

/// xorshift64*: deterministic, good enough to wander over the input space.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Mostly small numbers, sometimes zero, sometimes huge.
    fn extent(&mut self) -> u64 {
        match self.next() % 8 {
            0 => 0,
            1 => u64::MAX - self.next() % 4,
            2 => 1 << (self.next() % 64),
            _ => self.next() % 7 + 1,
        }
    }

    fn vector(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.extent()).collect()
    }
}

const ROUNDS: usize = 20_000;

#[test]
fn validation_never_panics_and_accepted_blocks_are_inside() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for _ in 0..ROUNDS {
        let ndims = (random.next() % 4 + 1) as usize;
        let dims = random.vector(ndims);
        let (offset, count) = (random.vector(ndims), random.vector(ndims));
        let elem = [1usize, 2, 4, 8, 16][(random.next() % 5) as usize];
        let _ = check_dims(&dims, elem);
        let _ = byte_len(&count, elem, "count");
        if check_block(&dims, &offset, &count).is_ok() {
            for d in 0..ndims {
                assert!(
                    offset[d]
                        .checked_add(count[d])
                        .is_some_and(|end| end <= dims[d])
                );
            }
        }
        let request = LayoutRequest {
            chunk: random
                .next()
                .is_multiple_of(3)
                .then(|| random.vector(ndims)),
            max_dims: random.next().is_multiple_of(3).then(|| {
                let mut max = random.vector(ndims);
                max[0] = UNLIMITED;
                max
            }),
            deflate_level: (random.next() % 12) as u32,
            shuffle: random.next().is_multiple_of(2),
        };
        let _ = layout::decide(&dims, elem, &request, Some(&count));
    }
}

#[test]
fn pieces_and_runs_of_valid_blocks_cover_them_exactly() {
    let mut random = Random(0x1234_5678_9abc_def1);
    for _ in 0..ROUNDS {
        let ndims = (random.next() % 4 + 1) as usize;
        let dims: Vec<u64> = (0..ndims).map(|_| random.next() % 9 + 1).collect();
        let offset: Vec<u64> = dims.iter().map(|&n| random.next() % n).collect();
        let count: Vec<u64> = dims
            .iter()
            .zip(&offset)
            .map(|(&n, &o)| random.next() % (n - o + 1))
            .collect();
        check_block(&dims, &offset, &count).expect("generated inside");
        let elem = 8;
        let bytes = element_count(&count).unwrap() * elem;
        let max_piece = random.next() % 200 + 1;
        let pieces = split::plan(&offset, &count, elem as usize, max_piece);
        let covered: u64 = pieces
            .iter()
            .map(|p| element_count(&p.count).unwrap())
            .sum();
        assert_eq!(covered * elem, bytes, "pieces of {offset:?} {count:?}");
        let mut run_bytes = 0;
        for_each_run(&dims, &offset, &count, elem, |start, len| {
            assert!(start + len <= element_count(&dims).unwrap() * elem);
            run_bytes += len;
            Ok(())
        })
        .unwrap();
        assert_eq!(run_bytes, bytes);
        for nranks in 1..5 {
            for rank in 0..nranks {
                let (o, c) = partition(&dims, rank, nranks);
                check_block(&dims, &o, &c).expect("partitions are inside");
            }
        }
    }
}

#[test]
fn block_tables_of_random_blocks_are_validated_without_panics() {
    let mut random = Random(0x0bad_cafe_dead_beef);
    for _ in 0..ROUNDS / 10 {
        let ndims = (random.next() % 3 + 1) as usize;
        let dims = random.vector(ndims);
        let nblocks = (random.next() % 5 + 1) as usize;
        let offsets = (0..nblocks).map(|_| random.vector(ndims)).collect();
        let counts = (0..nblocks).map(|_| random.vector(ndims)).collect();
        let _ = BlockTable::validate(&dims, offsets, counts, None, Order::Fortran);
    }
    // Disjoint in-bounds blocks whose volumes add up past 2^64 (dims whose product
    // overflows): the coverage sum saturates instead of overflowing.
    let dims = [1u64 << 63, 4];
    let offsets = vec![vec![0, 0], vec![0, 3]];
    let counts = vec![vec![1 << 63, 3], vec![1 << 63, 1]];
    let table = BlockTable::validate(&dims, offsets, counts, None, Order::C).unwrap();
    assert!(!table.complete);
}
