#!/usr/bin/env bash
# The dah5 benchmark (`make bench`): bandwidth of dah5 against raw MPI-IO, POSIX, h5py and the
# naive ways, metadata rate, memory, and a plot. Prints the markdown table and writes
# $OUT/bench.md and $OUT/bench.png.
#
# Settings (environment): DAH5_BENCH_RANKS (2), DAH5_BENCH_MIB per rank (256),
# DAH5_BENCH_ROUNDS (11, plus a warm-up: a stall, which the CPU wait does not show, hits
# either side of a round at random, and a median of few rounds follows it; the targets show
# each median's 95% confidence interval), DAH5_BENCH_SHORT_ROUNDS (55: overwrite and read,
# copies to and from the page cache of tens of milliseconds, whose per-round ratio varies by
# ±6-13% here (standard deviation), against ±30-80% for new files and fsync; cheap rounds
# buy a median good to about ±0.02),
# DAH5_BENCH_METADATA_ROUNDS (63, for 10,000 datasets and up, ten times as many for 1000;
# h5py's loops 63: one round's ratio varies by 0.10-0.30 (standard deviation) here, so the
# median of 63 rounds is only good to about ±0.02-0.04; with 21 rounds the no-checks
# median of one binary ranged over 0.94-1.03 from run to run, with 63 over 0.92-0.96),
# DAH5_BENCH_DIR for the data files
# (build/bench-data; put it on the file system you care about), DAH5_BENCH_OUT (build/bench),
# DAH5_BENCH_SCALING (MiB per rank for the scaling plot: "1 4 16 64 256 1024"),
# DAH5_BENCH_METADATA ("1000 10000"), DAH5_BENCH_MEMORY_MIB (1024), DAH5_BENCH_RANK_SERIES
# (rank counts for the growth table: "1 2 4 8 16"; beyond the cores they are oversubscribed
# and labelled so), DAH5_BENCH_SERIES_MIB (MiB a rank of its darray writes: 16),
# DAH5_BENCH_SERIES_COUNT (datasets of its metadata loops: 1000), DAH5_BENCH_READERS (ranks
# that read the subfiled darray back: 3), DAH5_BENCH_VPIC_PARTICLES (h5bench's VPIC-IO kernel:
# particles a rank, 4194304 as its sample), DAH5_BENCH_VPIC_STEPS (5), DAH5_BENCH_VPIC_ROUNDS
# (DAH5_BENCH_ROUNDS); many blocks a rank (bench/blocks.c): DAH5_BENCH_BLOCKS_N (the N x N
# matrix of the block-cyclic and one-block patterns: 8192), DAH5_BENCH_BLOCKS_B (its B x B
# blocks: 64), DAH5_BENCH_BLOCKS_E3SM_VARS (variables of E3SM's F-case map: 8),
# DAH5_BENCH_BLOCKS_ROUNDS (DAH5_BENCH_ROUNDS), DAH5_BENCH_BLOCKS_METHODS (a comma-separated
# subset of blocks.c's methods: all), DAH5_BENCH_SELECTION_LIMIT (seconds after which
# bench/selection.c stops an OR loop building a selection: 10), DAH5_BENCH_SELECTION_SIZES
# (its numbers of blocks: "10 1000 100000"); writes behind compute (bench/write_behind.c,
# h5bench's VPIC-IO pattern with compute between the steps, dah5 synchronous and with
# DAH5_ASYNC): DAH5_BENCH_BEHIND_PARTICLES (a rank: 2097152), DAH5_BENCH_BEHIND_STEPS (5),
# DAH5_BENCH_BEHIND_ROUNDS (DAH5_BENCH_ROUNDS), DAH5_BENCH_BEHIND_FACTORS (the compute a step
# in units of a step's synchronous write time, measured first in the same run: "0 0.5 1 2"),
# DAH5_BENCH_BEHIND_COMPUTE (sleep, as h5bench's emulated compute, or spin: a busy loop on
# every core), DAH5_BENCH_BEHIND_ORDER (h5bench: a step's 8 creates, then its 8 writes, the
# datasets closed two steps later, as h5bench; each: create, write, close a variable after
# the other), DAH5_BENCH_H5BENCH (the path of an h5bench_write built with this MPI and HDF5:
# then h5bench's own kernel runs side by side with the same compute each round, independent
# data, as its sample sync-write-1d-contig-contig otherwise; unset: dah5 alone).
# DAH5_BENCH_ONLY=behind runs that phase alone: $OUT/behind.csv, behind.md and behind.png.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
dah5_test_deps

ranks=${DAH5_BENCH_RANKS:-2}
mib=${DAH5_BENCH_MIB:-256}
rounds=${DAH5_BENCH_ROUNDS:-11}
short_rounds=${DAH5_BENCH_SHORT_ROUNDS:-55}
metadata_rounds=${DAH5_BENCH_METADATA_ROUNDS:-63}
data=${DAH5_BENCH_DIR:-$BUILD/bench-data}
out=${DAH5_BENCH_OUT:-$BUILD/bench}
scaling=${DAH5_BENCH_SCALING:-1 4 16 64 256 1024}
metadata=${DAH5_BENCH_METADATA:-1000 10000}
memory_mib=${DAH5_BENCH_MEMORY_MIB:-1024}
create_mib=${DAH5_BENCH_CREATE_MIB:-512}
rank_series=${DAH5_BENCH_RANK_SERIES:-1 2 4 8 16}
series_mib=${DAH5_BENCH_SERIES_MIB:-16}
series_count=${DAH5_BENCH_SERIES_COUNT:-1000}
readers=${DAH5_BENCH_READERS:-3}
vpic_particles=${DAH5_BENCH_VPIC_PARTICLES:-4194304}
vpic_steps=${DAH5_BENCH_VPIC_STEPS:-5}
vpic_rounds=${DAH5_BENCH_VPIC_ROUNDS:-$rounds}
blocks_n=${DAH5_BENCH_BLOCKS_N:-8192}
blocks_b=${DAH5_BENCH_BLOCKS_B:-64}
blocks_e3sm_vars=${DAH5_BENCH_BLOCKS_E3SM_VARS:-8}
blocks_rounds=${DAH5_BENCH_BLOCKS_ROUNDS:-$rounds}
selection_limit=${DAH5_BENCH_SELECTION_LIMIT:-10}
selection_sizes=${DAH5_BENCH_SELECTION_SIZES:-10 1000 100000}
behind_particles=${DAH5_BENCH_BEHIND_PARTICLES:-2097152}
behind_steps=${DAH5_BENCH_BEHIND_STEPS:-5}
behind_rounds=${DAH5_BENCH_BEHIND_ROUNDS:-$rounds}
behind_factors=${DAH5_BENCH_BEHIND_FACTORS:-0 0.5 1 2}
behind_compute=${DAH5_BENCH_BEHIND_COMPUTE:-sleep}
behind_order=${DAH5_BENCH_BEHIND_ORDER:-h5bench}
h5bench=${DAH5_BENCH_H5BENCH:-}
only=${DAH5_BENCH_ONLY:-}
case $only in
'' | behind) ;;
*)
    echo "dah5 bench: DAH5_BENCH_ONLY is empty (every phase) or behind, not '$only'" >&2
    exit 2
    ;;
esac
if [[ -n $h5bench && ! -x $h5bench ]]; then
    echo "dah5 bench: DAH5_BENCH_H5BENCH=$h5bench is not an executable" >&2
    exit 2
fi

profile=${DAH5_BENCH_PROFILE:-release}
bench=$BUILD/bench-$profile/bench
blocks=$BUILD/bench-$profile/blocks
selection=$BUILD/bench-$profile/selection
write_behind=$BUILD/bench-$profile/write_behind
if [[ $only == behind ]]; then
    make --no-print-directory -s "$write_behind" CARGO="cargo -q" PROFILE="$profile"
else
    make --no-print-directory -s "$bench" "$blocks" "$selection" "$write_behind" CARGO="cargo -q" \
        PROFILE="$profile"
fi
dah5_check_linked_hdf5 "$CARGO_TARGET_DIR/$profile/libdah5.so"
mkdir -p "$data" "$out"
results=$out/results.csv
[[ $only == behind ]] || : > "$results"
# Each phase under a timeout, with its duration on stderr.
run() {
    on "$ranks" "$@"
}
on() {
    local n=$1 start=$SECONDS
    shift
    timeout 1200 "$DAH5_MPIEXEC" -n "$n" "$@"
    echo "  $(basename "$1") ${2:-} ${3:-} on $n ranks: $((SECONDS - start)) s" >&2
}
py=$DAH5_MPI_PYTHON

# Seconds during which some task of the machine waited for a CPU so far (PSI; 0 without).
cpu_pressure() {
    awk '/^some/ { sub("total=", "", $5); printf "%.6f\n", $5 / 1e6; found = 1 }
        END { if (!found) print 0 }' /proc/pressure/cpu 2>/dev/null || echo 0
}

# h5bench's own write kernel (DAH5_BENCH_H5BENCH) in round $1 with compute factor $2 x the
# step write time $3: its sample sync-write-1d-contig-contig with this phase's particles,
# steps and compute (in microseconds; it sleeps between steps), independent data as dah5's
# writes behind compute. A row as write_behind.c's, from its printed timings: T is its
# "Observed completion time" (file create to close, compute included), FLUSH its H5Fflush
# and H5Fclose; the main thread's and the process's CPU wait are not known (nan); the
# machine's is PSI around the whole mpiexec.
behind_h5bench() {
    local round=$1 factor=$2 step_write=$3 us cfg=$out/h5bench-behind.cfg log=$out/h5bench-behind.log
    local p0 p1
    us=$(awk -v f="$factor" -v w="$step_write" 'BEGIN { printf "%d", f * w * 1e6 + 0.5 }')
    cat > "$cfg" <<EOF
MEM_PATTERN=CONTIG
FILE_PATTERN=CONTIG
TIMESTEPS=$behind_steps
DELAYED_CLOSE_TIMESTEPS=2
COLLECTIVE_DATA=NO
COLLECTIVE_METADATA=YES
EMULATED_COMPUTE_TIME_PER_TIMESTEP=$us us
NUM_DIMS=1
DIM_1=$behind_particles
DIM_2=1
DIM_3=1
EOF
    rm -f "$data/h5bench_behind.h5"
    sync
    p0=$(cpu_pressure)
    timeout 1200 "$DAH5_MPIEXEC" -n "$ranks" "$h5bench" "$cfg" "$data/h5bench_behind.h5" > "$log" 2>&1 ||
        { tail -n 20 "$log" >&2; return 1; }
    p1=$(cpu_pressure)
    awk -v factor="$factor" -v round="$round" -v us="$us" -v steps="$behind_steps" -v p0="$p0" -v p1="$p1" \
        -v bytes=$((behind_particles * 32 * behind_steps * ranks)) '
        /^Observed completion time:/ { t = $4 }
        /^H5Fflush\(\) time:/ { flush += $3 }
        /^H5Fclose\(\) time:/ { flush += $3 }
        END {
            if (t == "") { print "h5bench printed no completion time" > "/dev/stderr"; exit 1 }
            c = us / 1e6
            printf "behind,h5bench_sync,%s,%d,%.6f,%.6f,%.6f,0,%.6f,nan,nan,%.4f,%d\n", factor, round, t, c,
                t - (steps - 1) * c, flush, p1 - p0, bytes
        }' "$log"
    rm -f "$data/h5bench_behind.h5"
}

# Writes behind compute (issue 32): a step's synchronous write time first, then each round
# dah5 sync and DAH5_ASYNC for every compute factor (write_behind.c, shuffled), then
# h5bench's kernel with the same compute times; rows appended to $1.
behind() {
    local step_write round factor
    step_write=$(on "$ranks" "$write_behind" "$data" measure "$behind_particles" "$behind_steps" \
        $((behind_rounds < 3 ? behind_rounds : 3)) "$behind_order" |
        tee -a "$1" | sed -n 's/^# behind_step_write,//p')
    echo "  writes behind compute: a step's write $step_write s; compute $behind_compute, order $behind_order, factors $behind_factors" >&2
    echo "# behind_config,$ranks ranks,$behind_particles particles a rank,$behind_steps steps,compute $behind_compute,order $behind_order" >> "$1"
    for ((round = 0; round <= behind_rounds; round++)); do
        # shellcheck disable=SC2086  # word splitting of the factor list is wanted
        on "$ranks" "$write_behind" "$data" round "$behind_particles" "$behind_steps" "$round" \
            "$behind_compute" "$behind_order" "$step_write" $behind_factors >> "$1"
        if [[ -n $h5bench && $behind_compute == sleep && $behind_order == h5bench ]]; then
            for factor in $behind_factors; do
                behind_h5bench "$round" "$factor" "$step_write" >> "$1"
            done
        fi
    done
}

if [[ $only == behind ]]; then
    echo "dah5 bench: writes behind compute alone: $ranks ranks, data in $data" >&2
    : > "$out/behind.csv"
    behind "$out/behind.csv"
    rm -rf "$data"/*.h5
    "$py" bench/report.py --behind "$out" "$out/behind.csv"
    exit
fi

echo "dah5 bench: $ranks ranks, $mib MiB a rank, $rounds rounds ($short_rounds of overwrite and read; +1 warm-up), data in $data" >&2
run "$bench" bandwidth "$data" "$mib" "$rounds" "$short_rounds" >> "$results"
# What bandwidth left (its last subfiled darray and file-per-process files), read back.
on "$readers" "$bench" readback "$data" "$rounds" >> "$results"
run "$py" bench/h5py_bench.py bandwidth "$data" "$mib" "$rounds" "$short_rounds" >> "$results"
# shellcheck disable=SC2086  # word splitting of the size lists is wanted
run "$bench" scaling "$data" 1 $scaling >> "$results"
run "$bench" create "$data" "$create_mib" 3 >> "$results"
run "$bench" vpic "$data" "$vpic_particles" "$vpic_steps" "$vpic_rounds" >> "$results"
# Many blocks a rank (issue 31): block-cyclic, E3SM's F-case map, one block a rank (the
# control); then the construction of a selection of many blocks, on one process.
run "$blocks" "$data" cyclic "$blocks_rounds" "$blocks_n" "$blocks_b" >> "$results"
run "$blocks" "$data" e3sm "$blocks_rounds" "$blocks_e3sm_vars" >> "$results"
run "$blocks" "$data" one "$blocks_rounds" "$blocks_n" >> "$results"
behind "$results"
# shellcheck disable=SC2086
timeout 1200 "$selection" "$selection_limit" $selection_sizes > "$out/selection.csv"
for count in $metadata; do
    # A ratio's precision is its rounds': as many rounds for fewer datasets as fill the time
    # of 10,000 datasets' rounds, at most ten times as many (0.03 s a round of 1000 here).
    scale=$((10000 / count))
    scale=$((scale < 1 ? 1 : scale > 10 ? 10 : scale))
    run "$bench" metadata "$data" "$count" "$((metadata_rounds * scale))" >> "$results"
    run "$py" bench/h5py_bench.py metadata "$data" "$count" "$metadata_rounds" >> "$results"
done
for n in $rank_series; do
    on "$n" "$bench" metadata "$data" "$series_count" "$rounds" ranks >> "$results"
    on "$n" "$bench" darray "$data" "$series_mib" "$rounds" >> "$results"
done
run "$bench" memory "$data" "$memory_mib" > "$out/memory.txt"
rm -rf "$data"/*.h5 "$data"/*.bin "$data"/*.h5.d

DAH5_BENCH_CONFIG="$ranks ranks, $mib MiB a rank, float64, $rounds rounds ($short_rounds of overwrite and read, $metadata_rounds of metadata, more for fewer datasets)" \
    "$py" bench/report.py "$out" "$results" "$out/memory.txt" "$out/selection.csv"
