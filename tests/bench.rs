//! The benchmark keeps working: `bench/run.sh` at tiny sizes produces its table, its
//! targets and its plot. (No timing is asserted: these machines are shared and noisy.)

mod common;

use common::*;

#[test]
fn the_bench_runs_at_tiny_sizes_and_writes_its_table_and_plot() {
    let dir = scratch("bench");
    let (data, out) = (dir.join("data"), dir.join("out"));
    let profile = lib_dir().file_name().unwrap().to_str().unwrap().to_string();
    let env = [
        ("DAH5_BENCH_MIB", "1"),
        ("DAH5_BENCH_ROUNDS", "1"),
        ("DAH5_BENCH_SHORT_ROUNDS", "2"),
        ("DAH5_BENCH_SCALING", "1 2"),
        ("DAH5_BENCH_METADATA", "10"),
        ("DAH5_BENCH_MEMORY_MIB", "1"),
        ("DAH5_BENCH_CREATE_MIB", "2"),
        ("DAH5_BENCH_RANK_SERIES", "1 3"),
        ("DAH5_BENCH_SERIES_MIB", "1"),
        ("DAH5_BENCH_SERIES_COUNT", "10"),
        ("DAH5_BENCH_VPIC_PARTICLES", "1000"),
        ("DAH5_BENCH_VPIC_STEPS", "3"),
        ("DAH5_BENCH_BLOCKS_N", "256"),
        ("DAH5_BENCH_BLOCKS_B", "32"),
        ("DAH5_BENCH_BLOCKS_E3SM_VARS", "1"),
        ("DAH5_BENCH_SELECTION_LIMIT", "1"),
        ("DAH5_BENCH_SELECTION_SIZES", "10 100"),
        ("DAH5_BENCH_BEHIND_PARTICLES", "1000"),
        ("DAH5_BENCH_BEHIND_STEPS", "3"),
        ("DAH5_BENCH_PROFILE", profile.as_str()),
        ("DAH5_BENCH_DIR", data.to_str().unwrap()),
        ("DAH5_BENCH_OUT", out.to_str().unwrap()),
    ];
    let job = run_script("bench/run.sh", &env, 600);
    assert!(
        job.success,
        "bench/run.sh failed:\n{}\n{}",
        job.stdout, job.stderr
    );
    let table = std::fs::read_to_string(out.join("bench.md")).expect("bench.md");
    for needle in [
        "#### Bandwidth",
        "| dah5_ind |",
        "| dah5_darray |",
        "| dah5_direct |",
        "dah5_direct (no MPI) vs posix",
        "| mpiio_ind | ",
        "| h5py_coll |",
        "| naive_gather |",
        "| dah5_subfiled |",
        "| posix_per_rank |",
        "#### Subfiled darrays",
        "subfiled darray read back on 3 ranks",
        "| naive_sequential |",
        "| memcpy |",
        "metadata 10",
        "#### Memory",
        "#### Targets",
        "dah5_ind vs naive gather-to-root",
        "dah5 with DAH5_NO_CHECKS vs the raw C loop",
        "rounds; 95%: ",
        "timed operations waited for a CPU more than 5% of their time",
        "#### h5bench's VPIC-IO kernel",
        "| write, ind | ",
        "| read, coll | ",
        "VPIC-IO (h5bench's kernel) write, coll: dah5 defaults vs raw HDF5 as h5bench",
        "#### Many blocks a rank",
        "| dah5 write_block loop | ",
        "| raw HDF5 coll | ",
        "| E3SM F-case map | ",
        "dah5_write_blocks coll vs raw HDF5 (the same selection, one H5Dwrite), block-cyclic",
        "dah5_write_blocks vs a loop of dah5_write_block, E3SM F-case map",
        "#### Building a selection of N blocks",
        "H5Scombine_select by halves",
        "#### Writes behind compute (`bench/write_behind.c`)",
        "#### Growth with the number of ranks",
        "| 1 | ",
        "| 3 ",
    ] {
        assert!(
            table.contains(needle),
            "{needle:?} missing from bench.md:\n{table}"
        );
    }
    assert_eq!(
        job.stdout.matches("#### Targets").count(),
        1,
        "{}",
        job.stdout
    );
    let png = std::fs::read(out.join("bench.png")).expect("bench.png");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "not a PNG plot"
    );
}
