"""Turn the CSV of bench.c and h5py_bench.py into a markdown table, the targets, and a PNG.

    report.py OUTDIR RESULTS.csv [MEMORY.txt]

Round 0 of every (protocol, method) is a warm-up and is dropped. A method's ratio is the
median over rounds of (baseline time / method time) in the same round: bandwidth relative
to the raw MPI-IO baseline of the same pattern (above 1: faster). Baselines: mpiio_ind for
bench.c's independent methods, mpiio_coll for its collective ones, mpi4py_ind for h5py's.
"""
import collections
import os
import platform
import statistics
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GIB = 2**30


def load(path):
    times = collections.defaultdict(dict)  # (protocol, method) -> {round: seconds}
    sizes = {}
    for line in open(path):
        parts = line.strip().split(",")
        if len(parts) != 5 or not parts[2].isdigit():
            continue
        protocol, method, rnd, seconds, size = parts
        if rnd == "0":
            continue
        times[(protocol, method)][int(rnd)] = float(seconds)
        sizes[protocol] = int(size)
    return times, sizes


def baseline_of(method):
    if method.startswith("h5py") or method.startswith("mpi4py"):
        return "mpi4py_ind"
    if method.endswith("_coll"):
        return "mpiio_coll"
    return "mpiio_ind"


def ratio(times, protocol, method, base):
    """Median over rounds of base time / method time, or None."""
    a, b = times.get((protocol, method), {}), times.get((protocol, base), {})
    common = sorted(set(a) & set(b))
    if not common:
        return None
    return statistics.median(b[r] / a[r] for r in common)


def best_ratio(times, protocol, method, base):
    """Best base time / best method time: less sensitive to a noisy neighbour than the
    median of per-round ratios, shown beside it."""
    a, b = times.get((protocol, method)), times.get((protocol, base))
    return min(b.values()) / min(a.values()) if a and b else None


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
    return f"{platform.node()}: {os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}, file system {fs}"


def bandwidth_table(times, sizes):
    lines = []
    for protocol in ("overwrite", "new", "fsync", "read"):
        methods = [m for (p, m) in times if p == protocol]
        if not methods:
            continue
        size = sizes[protocol]
        lines += [f"\n**{protocol}** ({size / GIB:.2f} GiB in all)\n",
                  "| method | median s | min – max s | GiB/s | × raw MPI-IO (same pattern) |",
                  "|---|---|---|---|---|"]
        for method in sorted(methods, key=lambda m: -size / statistics.median(times[(protocol, m)].values())):
            ts = list(times[(protocol, method)].values())
            r = ratio(times, protocol, method, baseline_of(method))
            shown = f"{r:.2f} (vs {baseline_of(method)})" if r is not None and method != baseline_of(method) else "baseline" if method == baseline_of(method) else "–"
            lines.append(f"| {method} | {statistics.median(ts):.4f} | {min(ts):.4f} – {max(ts):.4f} | "
                         f"{size / statistics.median(ts) / GIB:.2f} | {shown} |")
    return lines


def median(times, protocol, method):
    values = times.get((protocol, method))
    return statistics.median(values.values()) if values else None


def targets(times):
    rows = []

    def add(what, value, goal, unit="×", best=None):
        also = f" (best/best {best:.2f}{unit})" if best is not None else ""
        if value is None:
            rows.append(f"| {what} | not measured | ≥ {goal}{unit} | – |")
        else:
            rows.append(f"| {what} | {value:.2f}{unit}{also} | ≥ {goal}{unit} | {'met' if value >= goal else 'NOT met'} |")

    for protocol in ("overwrite", "fsync", "read"):
        call = "read" if protocol == "read" else "write"
        for mode, base, name in (("ind", "mpiio_ind", f"MPI_File_{call}_at"),
                                 ("coll", "mpiio_coll", f"MPI_File_{call}_at_all")):
            add(f"dah5_{mode} vs {name}, {protocol}", ratio(times, protocol, f"dah5_{mode}", base),
                0.95, best=best_ratio(times, protocol, f"dah5_{mode}", base))
    for protocol in ("overwrite", "new", "fsync", "read"):
        for mode in ("ind", "coll"):
            d, h = median(times, protocol, f"dah5_{mode}"), median(times, protocol, f"h5py_{mode}")
            add(f"dah5_{mode} vs h5py_{mode}, {protocol} (medians)", h / d if d and h else None, 1.0)
    add("dah5_ind vs naive gather-to-root, new file", ratio(times, "new", "dah5_ind", "naive_gather"), 3.0)
    for protocol in ("overwrite", "read"):
        add(f"dah5_direct (no MPI) vs posix pwrite/pread, {protocol}",
            ratio(times, protocol, "dah5_direct", "posix_pwrite"), 0.95,
            best=best_ratio(times, protocol, "dah5_direct", "posix_pwrite"))
    create, write = median(times, "create", "dah5_dataset_create"), median(times, "create", "dah5_write")
    if create is not None and write:
        share = 100 * create / write
        rows.append(f"| dataset create time / write time (512 MiB) | {share:.2f}% | < 5% | {'met' if share < 5 else 'NOT met'} |")
    for count in (1000, 10000):
        p = f"metadata_{count}"
        d, h, raw = median(times, p, "dah5"), median(times, p, "h5py"), median(times, p, "raw_hdf5")
        add(f"{count} datasets + attribute: dah5 rate vs h5py mpio", h / d if d and h else None, 2.0)
        add(f"{count} datasets + attribute: dah5 rate vs raw C HDF5 loop", raw / d if d and raw else None, 0.9)
    return ["| target | measured (median of per-round ratios) | goal | |", "|---|---|---|---|"] + rows


def metadata_table(times):
    lines = ["| operation | dah5 s | raw C HDF5 s | h5py mpio s |", "|---|---|---|---|"]
    for p in sorted({p for (p, _) in times if p.startswith(("metadata_", "open_close_"))}):
        cells = [median(times, p, m) for m in ("dah5", "raw_hdf5", "h5py")]
        lines.append(f"| {p.replace('_', ' ')} | " + " | ".join(f"{c:.4f}" if c else "–" for c in cells) + " |")
    return lines


def plot(times, sizes, out):
    protocols = [p for p in ("overwrite", "new", "fsync", "read") if p in sizes]
    scaling = sorted({p for (p, _) in times if p.startswith("scaling_")},
                     key=lambda p: int(p.split("_")[1].rstrip("MiB")))
    fig, axes = plt.subplots(1, len(protocols) + 1, figsize=(5 * (len(protocols) + 1), 5))
    for ax, protocol in zip(axes, protocols):
        methods = sorted(m for (p, m) in times if p == protocol)
        values = [sizes[protocol] / median(times, protocol, m) / GIB for m in methods]
        colors = ["tab:blue" if m.startswith("dah5") else "tab:gray" if m.startswith(("mpiio", "mpi4py", "posix", "memcpy")) else "tab:orange" for m in methods]
        ax.barh(methods, values, color=colors)
        ax.set_title(protocol)
        ax.set_xlabel("GiB/s (median)")
    ax = axes[-1]
    for method in ("dah5_ind", "mpiio_ind"):
        xs = [int(p.split("_")[1].rstrip("MiB")) for p in scaling if (p, method) in times]
        ys = [sizes[p] / median(times, p, method) / GIB for p in scaling if (p, method) in times]
        ax.plot(xs, ys, marker="o", label=method)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("block per rank (MiB)")
    ax.set_ylabel("GiB/s, overwrite")
    ax.set_title("scaling with block size")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=80)


def main():
    out, results = sys.argv[1], sys.argv[2]
    memory = open(sys.argv[3]).read().strip() if len(sys.argv) > 3 else ""
    times, sizes = load(results)
    config = os.environ.get("DAH5_BENCH_CONFIG", "")
    md = [f"### dah5 benchmark ({config})", "",
          f"One machine's figures: {machine()}. Run on {subprocess.run(['date', '-u', '+%Y-%m-%d %H:%M UTC'], capture_output=True, text=True).stdout.strip()}.",
          "Reads come from the page cache (the files were just written); `sync` runs before every op.", ""]
    md += ["#### Bandwidth"] + bandwidth_table(times, sizes)
    md += ["", "#### Metadata (median of 3)", ""] + metadata_table(times)
    if memory:
        md += ["", "#### Memory (peak RSS above the process with its buffer allocated)", "", "```", memory, "```"]
    md += ["", "#### Targets", ""] + targets(times)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    plot(times, sizes, os.path.join(out, "bench.png"))
    print("\n".join(md))
    print(f"\nwrote {out}/bench.md and {out}/bench.png")


if __name__ == "__main__":
    main()
