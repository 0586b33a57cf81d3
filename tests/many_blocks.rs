//! `dah5_write_blocks` and `dah5_read_blocks` end to end: tests/c/many_blocks.c on 1–4 ranks
//! in C and Fortran order (block-cyclic tiles independent and collective, scrambled 1-D
//! runs, one rank's slabs with nblocks = 0 elsewhere, the refusals), every element then
//! checked by h5py; the same with transfers cut small (`DAH5_MAX_PIECE_BYTES`), so that one
//! call makes several transfers, copied in file order and not.

mod common;

use common::*;

/// Run many_blocks.c on `ranks` ranks in `order` and check every dataset with h5py.
fn run_and_check(ranks: u32, order: &str, env: &[(&str, &str)]) {
    let exe = build_c(&["tests/c/many_blocks.c"], "many_blocks");
    let dir = scratch(&format!("many_blocks_{ranks}_{order}_{}", env.len()));
    let out = mpiexec_ok(ranks, &exe, &[".", order], env, &dir);
    assert!(out.contains(" 0 failures"), "{out}");
    let file = format!("many_blocks_{order}.h5");
    let runs: u64 = (0..40 * ranks as u64).map(|r| 1 + r % 4).sum();
    h5py_pattern(&dir, &file, "tiles_ind", "float64", &[18, 20]);
    h5py_pattern(&dir, &file, "tiles_coll", "float64", &[18, 20]);
    h5py_pattern(&dir, &file, "tiles_again", "float64", &[18, 20]);
    h5py_pattern(&dir, &file, "runs", "float64", &[runs]);
    h5py_pattern(&dir, &file, "cube", "float64", &[4, 3, 5]);
}

#[test]
fn many_blocks_on_1_to_4_ranks_in_c_and_fortran_order() {
    for ranks in 1..=4 {
        for order in ["c", "f"] {
            run_and_check(ranks, order, &[]);
        }
    }
}

#[test]
fn many_blocks_cut_into_several_transfers() {
    // 3 tiles' worth (360 bytes) a transfer: several per call, some tiles cut.
    run_and_check(2, "c", &[("DAH5_MAX_PIECE_BYTES", "300")]);
    run_and_check(3, "f", &[("DAH5_MAX_PIECE_BYTES", "64")]);
}
