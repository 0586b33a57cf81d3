"""Turn the CSV of bench.c and h5py_bench.py into a markdown table, the targets, and a PNG.

    report.py OUTDIR RESULTS.csv [MEMORY.txt [SELECTION.csv]]
    report.py --behind OUTDIR BEHIND.csv      (writes behind compute alone: behind.md, behind.png)

Round 0 of every (protocol, method) is a warm-up and is dropped. Every timed operation comes
with the largest fraction of its time any rank spent waiting for a CPU (`waited`). A round
counts only where that stayed below QUIET for both sides of a comparison: on a busy machine
the run queue, not the code, decides the time (at load 10-28, 60-80% of a write was spent
waiting, and the same binary's ratios ranged from 0.64 to 1.21). A ratio is the median over
those undisturbed rounds of (baseline time / method time) in the same round, shown with how
many rounds it used; with none, the table says the machine was too busy to measure it. The
targets also show the median's 95% confidence interval, from the spread of those rounds: on
a shared VM one round's ratio of two new-file writes varies by ±50%, and a target whose goal
lies inside the interval is marked "within noise" (met or not, this run cannot tell).
Baselines: mpiio_ind for bench.c's independent methods, mpiio_coll for its collective ones,
mpi4py_ind for h5py's, raw_hdf5 for the metadata loops and for h5bench's VPIC-IO kernel (raw
HDF5 set up as h5bench sets it up), posix_per_rank (a file per rank, pwrite or pread) for
subfiled darrays; for the many-block patterns of blocks.c (blocks_*), raw HDF5 writing the
same selection in one H5Dwrite, in the same transfer mode. Writes behind compute
(write_behind.c's "behind" rows, 13 fields): dah5 with DAH5_ASYNC against dah5 synchronous in
the same round, as an overlap, (T sync - T async) / (T sync - compute): the share of the
synchronous run's I/O time that the asynchronous one hid behind compute; h5bench's own
kernel's times beside them.
"""
import collections
import math
import os
import platform
import statistics
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GIB = 2**30
QUIET = 0.05  # at most this fraction of an operation's time spent waiting for a CPU


def load(path):
    """{(protocol, method): {round: (seconds, waited)}}, {protocol: bytes or count}."""
    times = collections.defaultdict(dict)
    sizes = {}
    for line in open(path):
        parts = line.strip().split(",")
        if len(parts) != 6 or not parts[2].isdigit():
            continue
        protocol, method, rnd, seconds, size, waited = parts
        if rnd == "0":
            continue
        times[(protocol, method)][int(rnd)] = (float(seconds), float(waited))
        sizes[protocol] = int(size)
    return times, sizes


def quiet_rounds(times, *keys):
    """The rounds in which every one of `keys` ran undisturbed, and all rounds they share."""
    runs = [times.get(k, {}) for k in keys]
    common = set.intersection(*(set(r) for r in runs)) if runs else set()
    quiet = {r for r in common if all(run[r][1] <= QUIET for run in runs)}
    return sorted(quiet), sorted(common)


# A ratio: the median (None when no round could be used), the rounds used and the rounds
# the two sides share, and the median's 95% confidence interval (low, high).
Ratio = collections.namedtuple("Ratio", "value used shared low high")


def median_ratio(ratios, shared):
    """The Ratio of per-round `ratios`. The interval is distribution-free: the order
    statistics around the median that bracket it with 95% confidence (normal approximation
    to the binomial; for 10 rounds the 2nd and 9th)."""
    if not ratios:
        return Ratio(None, 0, shared, None, None)
    xs = sorted(ratios)
    n = len(xs)
    half = 0.98 * math.sqrt(n)  # 1.96 standard deviations of Binomial(n, 1/2), halved
    low = xs[max(1, round(n / 2 - half)) - 1]
    high = xs[min(n, round(n / 2 + 1 + half)) - 1]
    return Ratio(statistics.median(xs), n, shared, low, high)


def ratio(times, protocol, method, base):
    """Base time / method time, round by round, over the undisturbed rounds."""
    a, b = times.get((protocol, method), {}), times.get((protocol, base), {})
    quiet, common = quiet_rounds(times, (protocol, method), (protocol, base))
    return median_ratio([b[r][0] / a[r][0] for r in quiet], len(common))


def ranks_of(protocol):
    """The rank count in a protocol named like readback_p3, or None."""
    head, _, n = protocol.rpartition("_p")
    return int(n) if head and n.isdigit() else None


def oversubscribed(protocol):
    n = ranks_of(protocol)
    return n is not None and n > os.cpu_count()


def ratio_oversubscribed(times, protocol, method, base):
    """For more ranks than cores no round is undisturbed, and both sides wait alike: the
    median over all the rounds they share."""
    a, b = times.get((protocol, method), {}), times.get((protocol, base), {})
    common = sorted(set(a) & set(b))
    return median_ratio([b[r][0] / a[r][0] for r in common], len(common))


def seconds(times, protocol, method):
    """(median seconds over undisturbed rounds, or over all when none was, and whether the
    figure is from undisturbed rounds); (None, False) when not measured."""
    runs = times.get((protocol, method))
    if not runs:
        return None, False
    quiet = [s for s, w in runs.values() if w <= QUIET]
    if quiet:
        return statistics.median(quiet), True
    return statistics.median(s for s, _ in runs.values()), False


def shown_ratio(r, digits=2, interval=False):
    if not r.shared:
        return "–"
    if r.value is None:
        return f"machine too busy (0/{r.shared} rounds undisturbed)"
    rounds = f"{r.used}/{r.shared} rounds"
    if interval:
        rounds += f"; 95%: {r.low:.{digits}f}–{r.high:.{digits}f}"
    return f"{r.value:.{digits}f} ({rounds})"


def baseline_of(method):
    if method == "dah5_subfiled":
        return "posix_per_rank"
    if method.startswith("h5py") or method.startswith("mpi4py"):
        return "mpi4py_ind"
    if method.endswith("_coll"):
        return "mpiio_coll"
    return "mpiio_ind"


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    fs = subprocess.run(["df", "-T", "."], capture_output=True, text=True).stdout.splitlines()
    fs = fs[-1].split()[1] if len(fs) > 1 else "?"
    load = open("/proc/loadavg").read().split()[:3]
    return (f"{platform.node()}: {os.cpu_count()} cores ({cpu}), {platform.system()} "
            f"{platform.release()}, file system {fs}, load average {' '.join(load)} at the end")


def disturbed_share(times):
    """How many of all timed operations waited for a CPU more than QUIET."""
    all_runs = [w for runs in times.values() for _, w in runs.values()]
    return sum(w > QUIET for w in all_runs), len(all_runs)


def bandwidth_table(times, sizes):
    lines = []
    for protocol in ("overwrite", "new", "fsync", "read"):
        methods = [m for (p, m) in times if p == protocol]
        if not methods:
            continue
        size = sizes[protocol]
        lines += [f"\n**{protocol}** ({size / GIB:.2f} GiB in all)\n",
                  "| method | median s | GiB/s | × raw MPI-IO, same pattern, undisturbed rounds |",
                  "|---|---|---|---|"]
        for method in sorted(methods, key=lambda m: seconds(times, protocol, m)[0]):
            s, quiet = seconds(times, protocol, method)
            base = baseline_of(method)
            shown = "baseline" if method == base else shown_ratio(ratio(times, protocol, method, base))
            mark = "" if quiet else " (busy)"
            lines.append(f"| {method} | {s:.4f}{mark} | {size / s / GIB:.2f} | {shown} |")
    return lines


def targets(times, sizes):
    rows = []

    def add(what, measured, goal):
        # Three decimals: with two, 0.948 against a goal of 0.95 read "0.95 ... NOT met".
        shown = shown_ratio(measured, digits=3, interval=True)
        if not measured.shared:
            rows.append(f"| {what} | not measured | ≥ {goal} | – |")
        elif measured.value is None:
            rows.append(f"| {what} | {shown} | ≥ {goal} | not measurable |")
        else:
            met = "met" if measured.value >= goal else "NOT met"
            if measured.low < goal <= measured.high:
                met += " (within noise)"
            rows.append(f"| {what} | {shown} | ≥ {goal} | {met} |")

    for protocol in ("overwrite", "new", "fsync", "read"):
        call = "read" if protocol == "read" else "write"
        for mode, base, name in (("ind", "mpiio_ind", f"MPI_File_{call}_at"),
                                 ("coll", "mpiio_coll", f"MPI_File_{call}_at_all")):
            add(f"dah5_{mode} vs {name}, {protocol}", ratio(times, protocol, f"dah5_{mode}", base), 0.97)
    add("dah5_ind vs naive gather-to-root, new file", ratio(times, "new", "dah5_ind", "naive_gather"), 3.0)
    for protocol in ("overwrite", "read"):
        add(f"dah5_direct (no MPI) vs posix pwrite/pread, {protocol}",
            ratio(times, protocol, "dah5_direct", "posix_pwrite"), 0.95)
    for protocol in ("new", "fsync"):
        add(f"subfiled darray write vs a file per rank with pwrite, {protocol}",
            ratio(times, protocol, "dah5_subfiled", "posix_per_rank"), 0.9)
    for p in sorted({p for (p, _) in times if p.startswith("readback_p")}):
        n = ranks_of(p)
        if oversubscribed(p):
            add(f"subfiled darray read back on {n} ranks (oversubscribed: {os.cpu_count()} cores, "
                "all rounds) vs pread of the same bytes",
                ratio_oversubscribed(times, p, "dah5_subfiled", "posix_per_rank"), 0.9)
        else:
            add(f"subfiled darray read back on {n} ranks vs pread of the same bytes",
                ratio(times, p, "dah5_subfiled", "posix_per_rank"), 0.9)
    for p in VPIC:
        if p in sizes:
            add(f"VPIC-IO (h5bench's kernel) {p.replace('vpic_', '').replace('_', ', ')}: dah5 defaults vs "
                "raw HDF5 as h5bench", ratio(times, p, "dah5", "raw_hdf5"), 0.97)
    for p in BLOCKS:
        if p not in sizes:
            continue
        label = BLOCKS[p]
        for mode in ("ind", "coll"):
            add(f"dah5_write_blocks {mode} vs raw HDF5 (the same selection, one H5Dwrite), {label}",
                ratio(times, p, f"dah5_{mode}", f"raw_hdf5_{mode}"), 0.97)
        if p == "blocks_e3sm":
            add(f"dah5_write_blocks vs a loop of dah5_write_block, {label}",
                ratio(times, p, "dah5_ind", "dah5_loop"), 10)
    create, _ = seconds(times, "create", "dah5_dataset_create")
    write, _ = seconds(times, "create", "dah5_write")
    if create is not None and write:
        share = 100 * create / write
        rows.append(f"| dataset create time / write time (512 MiB) | {share:.2f}% | < 5% | {'met' if share < 5 else 'NOT met'} |")
    for count in sorted({int(p.split("_")[1]) for (p, _) in times if p.startswith("metadata_")}):
        p = f"metadata_{count}"
        add(f"{count} datasets + attribute: dah5 rate vs the raw C HDF5 loop",
            ratio(times, p, "dah5", "raw_hdf5"), 0.85)
        add(f"{count} datasets + attribute: dah5 with DAH5_NO_CHECKS vs the raw C loop",
            ratio(times, p, "dah5_nochecks", "raw_hdf5"), 0.95)
        d, _ = seconds(times, p, "dah5")
        h, _ = seconds(times, p, "h5py")
        rows.append(f"| {count} datasets + attribute: dah5 rate vs h5py mpio (medians, separate processes) | "
                    + (f"{h / d:.2f} | ≥ 3 | {'met' if h / d >= 3 else 'NOT met'} |" if d and h else "not measured | ≥ 3 | – |"))
    return ["| target | measured: median ratio (undisturbed rounds used; its 95% confidence interval) | goal | |",
            "|---|---|---|---|"] + rows


def subfiled_table(times, sizes):
    """Subfiled darrays against a file per rank and against dah5's shared-file darray."""
    lines = ["| operation | dah5_subfiled s | file per rank (POSIX) s | × file per rank | "
             "shared-file dah5_darray s | subfiled × shared file |", "|---|---|---|---|---|---|"]
    readbacks = sorted({p for (p, _) in times if p.startswith("readback_p")})
    for p in ["new", "fsync"] + readbacks:
        sub, quiet = seconds(times, p, "dah5_subfiled")
        if sub is None:
            continue
        fpp, _ = seconds(times, p, "posix_per_rank")
        shared, _ = seconds(times, p, "dah5_darray")
        label = f"write, {p}"
        fpp_ratio = ratio(times, p, "dah5_subfiled", "posix_per_rank")
        if p in readbacks:
            label = f"read back on {ranks_of(p)} ranks"
            if oversubscribed(p):
                label += f" (oversubscribed: {os.cpu_count()} cores; all rounds)"
                fpp_ratio = ratio_oversubscribed(times, p, "dah5_subfiled", "posix_per_rank")
                sub = statistics.median(t for t, _ in times[(p, "dah5_subfiled")].values())
                fpp = statistics.median(t for t, _ in times[(p, "posix_per_rank")].values())
                quiet = True
        lines.append(f"| {label} | {sub:.4f}{'' if quiet else ' (busy)'} | "
                     + (f"{fpp:.4f}" if fpp else "–") + " | " + shown_ratio(fpp_ratio) + " | "
                     + (f"{shared:.4f} | " + shown_ratio(ratio(times, p, "dah5_subfiled", "dah5_darray"))
                        if shared else "– | –") + " |")
    return lines if len(lines) > 2 else []


def metadata_table(times):
    lines = ["| operation | dah5 s | dah5, no checks s | raw C HDF5 s | h5py mpio s |", "|---|---|---|---|---|"]
    for p in sorted({p for (p, _) in times if p.startswith(("metadata_", "open_close_"))}):
        cells = [seconds(times, p, m) for m in ("dah5", "dah5_nochecks", "raw_hdf5", "h5py")]
        shown = [f"{s:.4f}" + ("" if quiet else " (busy)") if s else "–" for s, quiet in cells]
        lines.append(f"| {p.replace('_', ' ')} | " + " | ".join(shown) + " |")
    return lines


BLOCKS = {"blocks_cyclic": "block-cyclic", "blocks_e3sm": "E3SM F-case map", "blocks_one": "one block a rank"}
BLOCKS_METHODS = (("dah5_ind", "dah5 write_blocks ind"), ("dah5_coll", "dah5 write_blocks coll"),
                  ("dah5_darray", "dah5 darray_write_blocks"), ("dah5_loop", "dah5 write_block loop"),
                  ("raw_hdf5_ind", "raw HDF5 ind"), ("raw_hdf5_coll", "raw HDF5 coll"),
                  ("raw_hdf5_ind_per_var", "raw HDF5 ind, selection a variable"),
                  ("pnetcdf", "PnetCDF put_varn_all"), ("netcdf4_ind", "netCDF-4 ind, vara a block"),
                  ("netcdf4_coll", "netCDF-4 coll, vara a block"))
# The ratios of the many-block table: (column, method, baseline); baseline time / method time.
BLOCKS_RATIOS = (("dah5 ind × raw HDF5 ind", "dah5_ind", "raw_hdf5_ind"),
                 ("dah5 coll × raw HDF5 coll", "dah5_coll", "raw_hdf5_coll"),
                 ("dah5 ind × raw HDF5 ind, selection a variable", "dah5_ind", "raw_hdf5_ind_per_var"),
                 ("write_blocks × write_block loop", "dah5_ind", "dah5_loop"),
                 ("dah5 coll × PnetCDF", "dah5_coll", "pnetcdf"),
                 ("dah5 ind × netCDF-4 ind", "dah5_ind", "netcdf4_ind"),
                 ("dah5 coll × netCDF-4 coll", "dah5_coll", "netcdf4_coll"))


def blocks_descriptions(path):
    """The "# protocol,what" lines blocks.c prints before its rows."""
    found = {}
    for line in open(path):
        if line.startswith("# blocks_"):
            protocol, _, what = line[2:].strip().partition(",")
            found[protocol] = what
    return found


def blocks_tables(times, sizes, descriptions):
    """Many blocks a rank: each method's median seconds per pattern, then the ratios."""
    patterns = [p for p in BLOCKS if p in sizes]
    if not patterns:
        return []
    lines = [f"- **{BLOCKS[p]}** (`{p}`): {descriptions.get(p, '')}; {sizes[p] / 2**20:.1f} MiB a write"
             for p in patterns]
    lines += ["", "A write is file create to close, a new file each time. Median seconds (undisturbed rounds):", "",
              "| method | " + " | ".join(BLOCKS[p] for p in patterns) + " |",
              "|---|" + "---|" * len(patterns)]
    for method, label in BLOCKS_METHODS:
        cells = []
        for p in patterns:
            s, quiet = seconds(times, p, method)
            cells.append("–" if s is None else f"{s:.4f}{'' if quiet else ' (busy)'}")
        if any(c != "–" for c in cells):
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "Ratios (the other's time / dah5's, per round, median over undisturbed rounds; above 1: dah5 faster):", "",
              "| pattern | " + " | ".join(c for c, _, _ in BLOCKS_RATIOS) + " |",
              "|---|" + "---|" * len(BLOCKS_RATIOS)]
    for p in patterns:
        lines.append(f"| {BLOCKS[p]} | " + " | ".join(shown_ratio(ratio(times, p, m, b)) for _, m, b in BLOCKS_RATIOS) + " |")
    return lines


def selection_table(path):
    """bench/selection.c's rows: seconds to build the union of N blocks, by HDF5 version."""
    rows = [line.strip().split(",") for line in open(path) if line.startswith("selection,")]
    if not rows:
        return []
    cells = collections.defaultdict(dict)
    sizes = sorted({int(r[5]) for r in rows})
    for _, version, shape, order, way, n, secs, done in rows:
        shown = f"{float(secs) * 1000:.3g} ms"
        if int(done) < int(n):
            shown = f"> {float(secs):.0f} s (stopped after {int(done):,} blocks)"
        cells[(version, shape, order, way)][int(n)] = shown
    lines = ["| HDF5 | blocks | order | way | " + " | ".join(f"N = {n:,}" for n in sizes) + " |",
             "|---|---|---|---|" + "---|" * len(sizes)]
    for (version, shape, order, way), by_n in cells.items():
        what = "1-D one-element runs" if shape == "runs" else "2-D 8×8 tiles"
        how = "H5Sselect_hyperslab OR loop" if way == "or_loop" else "H5Scombine_select by halves"
        lines.append(f"| {version} | {what} | {order} | {how} | " + " | ".join(by_n.get(n, "–") for n in sizes) + " |")
    return lines


VPIC = ("vpic_write_ind", "vpic_write_coll", "vpic_read_ind", "vpic_read_coll")
VPIC_METHODS = (("dah5", "dah5, defaults"), ("dah5_align1", "dah5, alignment 1"),
                ("raw_hdf5", "raw HDF5 as h5bench"), ("raw_hdf5_align1m", "raw HDF5, h5bench ALIGN=YES 1 MiB"))


def vpic_table(times, sizes):
    """h5bench's VPIC-IO kernel: each method's median seconds and its speed against raw HDF5
    set up as h5bench sets it up."""
    protocols = [p for p in VPIC if p in sizes]
    if not protocols:
        return []
    lines = [f"{sizes[protocols[0]] / GIB:.2f} GiB a run (8 variables × steps × ranks); a write "
             "is file create to close, with h5bench's H5Fflush (an fsync through MPI-IO) and "
             "dah5_file_flush; a read opens the file just written (page cache).", "",
             "| kernel | " + " | ".join(f"{label} s (× raw HDF5)" for _, label in VPIC_METHODS) + " |",
             "|---|" + "---|" * len(VPIC_METHODS)]
    for p in protocols:
        cells = []
        for method, _ in VPIC_METHODS:
            s, quiet = seconds(times, p, method)
            if s is None:
                cells.append("–")
                continue
            shown = "baseline" if method == "raw_hdf5" else shown_ratio(ratio(times, p, method, "raw_hdf5"))
            cells.append(f"{s:.3f}{'' if quiet else ' (busy)'} ({shown})")
        lines.append(f"| {p.replace('vpic_', '').replace('_', ', ')} | " + " | ".join(cells) + " |")
    return lines


# ---- Writes behind compute (bench/write_behind.c; h5bench's kernel through run.sh) ----

BEHIND_MODES = (("dah5_sync", "dah5 sync"), ("dah5_async", "dah5 DAH5_ASYNC"), ("h5bench_sync", "h5bench SYNC"))
BEHIND_OVERLAP_GOAL = 0.9  # when the compute is at least the write time (factor >= 1)
BEHIND_ZERO_GOAL = 0.97  # async against sync with no compute


def load_behind(path):
    """write_behind.c's rows (13 fields, "behind,..."), round 0 (the warm-up) dropped:
    {(mode, factor): {round: row}}, and the "# behind_..." notes {key: text}."""
    rows = collections.defaultdict(dict)
    notes = {}
    fields = ("t", "compute", "io", "wait", "flush", "waited", "process_waited", "machine_waited")
    for line in open(path):
        if line.startswith("# behind_"):
            key, _, text = line[2:].strip().partition(",")
            notes[key] = text
            continue
        parts = line.strip().split(",")
        if len(parts) != 13 or parts[0] != "behind" or parts[1] == "measure" or parts[3] == "0":
            continue
        row = dict(zip(fields, map(float, parts[4:12])))
        row["bytes"] = int(parts[12])
        rows[(parts[1], float(parts[2]))][int(parts[3])] = row
    return rows, notes


def behind_steps(notes):
    """The steps of a run, from its "# behind_config" note (5, h5bench's sample, if none)."""
    for part in notes.get("behind_config", "").split(","):
        if part.strip().endswith(" steps"):
            return int(part.split()[0])
    return 5


def behind_summary(rows, factor, steps):
    """Per factor: each mode's medians over all its rounds, and from them async's speed-up
    and the overlap. A stall of the VM's disk (1-4 s, either mode, at random, for a quarter
    of the runs here) decides a round's ratio on its own, so the figures compare the two
    modes' medians, not round by round; the per-round overlap's median is shown beside."""
    out = {"factor": factor}
    for mode, _ in BEHIND_MODES:
        runs = rows.get((mode, factor), {})
        if runs:
            out[mode] = {k: statistics.median(r[k] for r in runs.values())
                         for k in ("t", "compute", "io", "wait", "flush", "waited", "process_waited",
                                   "machine_waited")}
            out[mode]["rounds"] = len(runs)
            out[mode]["quiet"] = sum(not r["waited"] > QUIET for r in runs.values())
            # The fastest quarter: the time without a stall, where stalls hit a third of runs.
            ts = sorted(r["t"] for r in runs.values())
            out[mode]["t_q25"] = ts[(len(ts) - 1) // 4]
            # The steps alone: T less the compute and the flush and close.
            out[mode]["steps"] = statistics.median(r["io"] - r["flush"] for r in runs.values())
    sync, asyn = out.get("dah5_sync"), out.get("dah5_async")
    if sync and asyn:
        out["speedup"] = sync["t"] / asyn["t"]
        out["overlap"] = (sync["t"] - asyn["t"]) / sync["io"]
        # What a write behind the next step's compute can hide at most: the steps before the
        # last ((steps - 1) / steps of the sync run's I/O without its flush and close).
        out["ceiling"] = (steps - 1) / steps * (sync["io"] - sync["flush"]) / sync["io"]
        a, b = rows[("dah5_sync", factor)], rows[("dah5_async", factor)]
        common = sorted(set(a) & set(b))
        out["overlap_rounds"] = statistics.median((a[r]["t"] - b[r]["t"]) / a[r]["io"] for r in common)
        compute = sync["compute"] * (steps - 1)
        out["overlap_q25"] = (sync["t_q25"] - asyn["t_q25"]) / (sync["t_q25"] - compute)
        # The async flush also completes the last step's writes: what it takes beyond the
        # sync flush counts against the async steps.
        out["overlap_steps"] = (sync["steps"] - asyn["steps"] - (asyn["flush"] - sync["flush"])) / sync["steps"]
    h5b = out.get("h5bench_sync")
    if h5b and sync:
        out["h5bench_ratio"] = h5b["t"] / sync["t"]
    return out


def behind_table(rows, notes):
    """The writes-behind table: per compute factor, the median T of each mode, async's
    speed-up, the overlap, and the CPU waits; then the goals."""
    factors = sorted({f for (_, f) in rows})
    if not factors:
        return []
    config = notes.get("behind_config", "")
    sums = [behind_summary(rows, f, behind_steps(notes)) for f in factors]
    lines = [f"{config}; a step's synchronous write (the measure runs): {float(notes.get('behind_step_write', 'nan')):.4f} s. "
             "T: file create to close, compute included, median seconds over all rounds; overlap = "
             "(T sync − T async) / (T sync − compute) from those medians (the median of the per-round "
             "overlaps, and the overlap of each mode's fastest quarter of rounds, in parentheses: a stall of "
             "the VM's disk adds 0.5-2 s to a third of the runs of either mode at random); at most: the share "
             "of the sync run's I/O written before a compute (all steps but the last, without the flush and "
             "close); steps' overlap: the time saved against the sync steps alone (T less the compute and less "
             "the flush and close; medians of each part, what the async flush takes beyond the sync one "
             f"charged to the async steps), at most about {behind_steps(notes) - 1}/{behind_steps(notes)}: "
             "no compute follows the last step. CPU wait: medians of the largest "
             "fraction of T a rank's main thread waited, of the seconds all threads of a rank waited, and of "
             "the seconds some task of the machine waited (PSI; h5bench's around its whole mpiexec); "
             f"undisturbed: the rounds whose main threads waited at most {QUIET:.0%} (sync/async).", "",
             "| compute a step | dah5 sync T | dah5 async T | h5bench T (× dah5 sync) | sync ÷ async | "
             "overlap (per round; fastest quarter) | at most | steps' overlap | async: in dah5_file_wait / flush+close | "
             "CPU wait: main thread (sync/async); all threads s; machine s | rounds (undisturbed) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in sums:
        f = s["factor"]
        sync, asyn, h5b = s.get("dah5_sync"), s.get("dah5_async"), s.get("h5bench_sync")
        compute = (sync or asyn or h5b or {}).get("compute", 0)
        cells = [f"{f:g}× ({compute:.3f} s)",
                 f"{sync['t']:.3f}" if sync else "–",
                 f"{asyn['t']:.3f}" if asyn else "–",
                 (f"{h5b['t']:.3f}" + (f" ({s['h5bench_ratio']:.2f}×)" if "h5bench_ratio" in s else "")) if h5b else "–",
                 f"{s['speedup']:.3f}" if "speedup" in s else "–",
                 f"{s['overlap']:.2f} ({s['overlap_rounds']:.2f}; {s['overlap_q25']:.2f})" if "overlap" in s else "–",
                 f"{s['ceiling']:.2f}" if "ceiling" in s else "–",
                 f"{s['overlap_steps']:.2f}" if "overlap" in s else "–",
                 f"{asyn['wait']:.3f} / {asyn['flush']:.3f}" if asyn else "–"]
        waits = []
        if sync:
            waits.append(f"{sync['waited']:.1%}/" + (f"{asyn['waited']:.1%}" if asyn else "–"))
            waits.append(f"{sync['process_waited']:.3f}/" + (f"{asyn['process_waited']:.3f}" if asyn else "–"))
            waits.append(f"{sync['machine_waited']:.3f}/" + (f"{asyn['machine_waited']:.3f}" if asyn else "–")
                         + (f" (h5bench {h5b['machine_waited']:.3f})" if h5b else ""))
        cells.append("; ".join(waits) if waits else "–")
        cells.append(f"{sync['rounds']} ({sync['quiet']}/{asyn['quiet']})" if sync and asyn else "–")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "| goal | measured | |", "|---|---|---|"]
    for s in sums:
        if "overlap" not in s:
            continue
        if s["factor"] == 0:
            met = "met" if s["speedup"] >= BEHIND_ZERO_GOAL else "NOT met"
            lines.append(f"| no compute: async T ≤ sync T / {BEHIND_ZERO_GOAL} (sync ÷ async ≥ {BEHIND_ZERO_GOAL}) | "
                         f"{s['speedup']:.3f} | {met} |")
        elif s["factor"] >= 1:
            met = "met" if s["overlap"] >= BEHIND_OVERLAP_GOAL else "NOT met"
            if s.get("ceiling", 1) < BEHIND_OVERLAP_GOAL:
                met += f" (at most {s['ceiling']:.2f} in this pattern)"
            lines.append(f"| compute {s['factor']:g}× the write: overlap ≥ {BEHIND_OVERLAP_GOAL} | {s['overlap']:.2f} | {met} |")
    return lines


def behind_plot(rows, notes, out):
    """Total time by compute factor per mode, and the overlap against the goal."""
    factors = sorted({f for (_, f) in rows})
    if not factors:
        return
    fig, axes = plt.subplots(1, 2, figsize=(12, 6))
    ax = axes[0]
    sums = [behind_summary(rows, f, behind_steps(notes)) for f in factors]
    for i, (mode, label) in enumerate(BEHIND_MODES):
        xs = [s["factor"] for s in sums if mode in s]
        if xs:
            color = f"C{i}"
            ax.plot(xs, [s[mode]["t"] for s in sums if mode in s], marker="o", color=color, label=f"{label}, median")
            ax.plot(xs, [s[mode]["t_q25"] for s in sums if mode in s], marker=".", linestyle=":", color=color,
                    label=f"{label}, fastest quarter")
    ax.set_xlabel("compute a step (× a step's sync write)")
    ax.set_ylabel("T: file create to close, s")
    ax.set_title("VPIC-IO with compute between steps")
    ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    ax = axes[1]
    xs = [s["factor"] for s in sums if "overlap" in s]
    if xs:
        ax.plot(xs, [s["overlap"] for s in sums if "overlap" in s], marker="o", label="overlap, DAH5_ASYNC (medians)")
        ax.plot(xs, [s["overlap_q25"] for s in sums if "overlap" in s], marker=".", label="overlap (fastest quarters)")
        ax.plot(xs, [s["overlap_steps"] for s in sums if "overlap" in s], marker="x", label="steps' overlap (no flush)")
        ax.plot(xs, [s["ceiling"] for s in sums if "overlap" in s], linestyle=":", label="at most (all steps but the last)")
    ax.axhline(BEHIND_OVERLAP_GOAL, color="gray", linestyle="--", label=f"goal {BEHIND_OVERLAP_GOAL} (compute ≥ write)")
    ax.set_xlabel("compute a step (× a step's sync write)")
    ax.set_ylabel("(T sync − T async) / (T sync − compute)")
    ax.set_title("share of the write hidden")
    ax.set_ylim(min(-0.05, ax.get_ylim()[0]), 1.05)
    ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    fig.suptitle(notes.get("behind_config", ""), fontsize="small")
    fig.tight_layout()
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    fig.savefig(out, dpi=80)


def behind_main(out, path):
    rows, notes = load_behind(path)
    md = ["### Writes behind compute", "", f"One machine's figures: {machine()}. Run on "
          f"{subprocess.run(['date', '-u', '+%Y-%m-%d %H:%M UTC'], capture_output=True, text=True).stdout.strip()}.", ""]
    md += behind_table(rows, notes) or ["no rows of write_behind.c"]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "behind.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    behind_plot(rows, notes, os.path.join(out, "behind.png"))
    print("\n".join(md))
    print(f"\nwrote {out}/behind.md and {out}/behind.png")


def ranks_table(times, sizes):
    """Cost growth with the number of ranks: metadata rate and darray write time."""
    meta = sorted({p for (p, _) in times if p.startswith("ranks_metadata_")}, key=ranks_of)
    darray = {ranks_of(p): p for (p, _) in times if p.startswith("ranks_darray_")}
    if not meta and not darray:
        return []
    cores = os.cpu_count()
    lines = ["| ranks | datasets/s dah5 | datasets/s raw HDF5 | × raw | darray write s | MPI-IO write s | × MPI-IO |",
             "|---|---|---|---|---|---|---|"]
    for p in meta:
        n = ranks_of(p)
        count = sizes[p]
        d, _ = seconds(times, p, "dah5")
        raw, _ = seconds(times, p, "raw_hdf5")
        r = ratio(times, p, "dah5", "raw_hdf5")
        dp = darray.get(n)
        dw, _ = seconds(times, dp, "dah5_darray") if dp else (None, False)
        mw, _ = seconds(times, dp, "mpiio_ind") if dp else (None, False)
        rd = ratio(times, dp, "dah5_darray", "mpiio_ind") if dp else Ratio(None, 0, 0, None, None)
        label = f"{n} (oversubscribed: {cores} cores)" if n > cores else str(n)
        lines.append(f"| {label} | {count / d:.0f} | {count / raw:.0f} | {shown_ratio(r)} | "
                     + (f"{dw:.4f} | {mw:.4f} | {shown_ratio(rd)} |" if dw and mw else "– | – | – |"))
    return lines


def plot(times, sizes, out):
    protocols = [p for p in ("overwrite", "new", "fsync", "read") if p in sizes]
    protocols += sorted(p for p in sizes if p.startswith("readback_p"))
    scaling = sorted({p for (p, _) in times if p.startswith("scaling_")},
                     key=lambda p: int(p.split("_")[1].rstrip("MiB")))
    vpic = [p for p in VPIC if p in sizes]
    blocks = [p for p in BLOCKS if p in sizes]
    panels = len(protocols) + 1 + (1 if vpic else 0) + (1 if blocks else 0)
    fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 5))
    for ax, protocol in zip(axes, protocols):
        methods = sorted(m for (p, m) in times if p == protocol)
        values = [sizes[protocol] / seconds(times, protocol, m)[0] / GIB for m in methods]
        colors = ["tab:blue" if m.startswith("dah5") else "tab:gray" if m.startswith(("mpiio", "mpi4py", "posix", "memcpy")) else "tab:orange" for m in methods]
        ax.barh(methods, values, color=colors)
        ax.set_title(protocol)
        ax.set_xlabel("GiB/s (median)")
    if vpic:
        ax = axes[len(protocols) + 1]
        width = 0.8 / len(VPIC_METHODS)
        for i, (method, label) in enumerate(VPIC_METHODS):
            values = [sizes[p] / seconds(times, p, method)[0] / GIB if (p, method) in times else 0 for p in vpic]
            ax.barh([k + i * width for k in range(len(vpic))], values, height=width, label=label)
        ax.set_yticks([k + 0.4 - width / 2 for k in range(len(vpic))])
        ax.set_yticklabels([p.replace("vpic_", "") for p in vpic])
        ax.set_xlabel("GiB/s (median)")
        ax.set_title("h5bench VPIC-IO kernel")
        ax.legend(fontsize="small")
    if blocks:
        ax = axes[-1]
        present = [(m, label) for m, label in BLOCKS_METHODS if any((p, m) in times for p in blocks)]
        width = 0.8 / len(present)
        for i, (method, label) in enumerate(present):
            values = [sizes[p] / seconds(times, p, method)[0] / GIB if (p, method) in times else 0 for p in blocks]
            ax.barh([k + i * width for k in range(len(blocks))], values, height=width, label=label)
        ax.set_yticks([k + 0.4 - width / 2 for k in range(len(blocks))])
        ax.set_yticklabels([BLOCKS[p] for p in blocks])
        ax.set_xscale("log")
        ax.set_xlabel("GiB/s (median), log scale")
        ax.set_title("many blocks a rank")
        ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    ax = axes[len(protocols)]
    for method in ("dah5_ind", "mpiio_ind"):
        xs = [int(p.split("_")[1].rstrip("MiB")) for p in scaling if (p, method) in times]
        ys = [sizes[p] / seconds(times, p, method)[0] / GIB for p in scaling if (p, method) in times]
        ax.plot(xs, ys, marker="o", label=method)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("block per rank (MiB)")
    ax.set_ylabel("GiB/s, overwrite")
    ax.set_title("scaling with block size")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=80)


def main():
    if sys.argv[1] == "--behind":
        behind_main(sys.argv[2], sys.argv[3])
        return
    out, results = sys.argv[1], sys.argv[2]
    memory = open(sys.argv[3]).read().strip() if len(sys.argv) > 3 else ""
    selection = selection_table(sys.argv[4]) if len(sys.argv) > 4 else []
    times, sizes = load(results)
    config = os.environ.get("DAH5_BENCH_CONFIG", "")
    busy, total = disturbed_share(times)
    md = [f"### dah5 benchmark ({config})", "",
          f"One machine's figures: {machine()}. Run on {subprocess.run(['date', '-u', '+%Y-%m-%d %H:%M UTC'], capture_output=True, text=True).stdout.strip()}.",
          "Reads come from the page cache (the files were just written); `sync` runs before every op.",
          f"{busy} of {total} timed operations waited for a CPU more than {QUIET:.0%} of their time and are left out of the ratios"
          + (" (WARNING: the machine was too busy for most figures; rerun it quiet)" if busy > total / 2 else "") + ".", ""]
    md += ["#### Bandwidth"] + bandwidth_table(times, sizes)
    subfiled = subfiled_table(times, sizes)
    if subfiled:
        md += ["", "#### Subfiled darrays (a file per rank behind a virtual dataset)", ""] + subfiled
    md += ["", "#### Metadata (median of the undisturbed rounds)", ""] + metadata_table(times)
    vpic = vpic_table(times, sizes)
    if vpic:
        md += ["", "#### h5bench's VPIC-IO kernel (median of the undisturbed rounds)", ""] + vpic
    many = blocks_tables(times, sizes, blocks_descriptions(results))
    if many:
        md += ["", "#### Many blocks a rank (`bench/blocks.c`)", ""] + many
    if selection:
        md += ["", "#### Building a selection of N blocks (`bench/selection.c`, one process)", ""] + selection
    behind_rows, behind_notes = load_behind(results)
    behind = behind_table(behind_rows, behind_notes)
    if behind:
        md += ["", "#### Writes behind compute (`bench/write_behind.c`)", ""] + behind
        behind_plot(behind_rows, behind_notes, os.path.join(out, "behind.png"))
    ranks = ranks_table(times, sizes)
    if ranks:
        md += ["", "#### Growth with the number of ranks", ""] + ranks
    if memory:
        md += ["", "#### Memory (peak RSS above the process with its buffer allocated)", "", "```", memory, "```"]
    md += ["", "#### Targets", ""] + targets(times, sizes)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    plot(times, sizes, os.path.join(out, "bench.png"))
    print("\n".join(md))
    print(f"\nwrote {out}/bench.md and {out}/bench.png")


if __name__ == "__main__":
    main()
