#!/usr/bin/env python3
"""Report of one or more `clcompute bench --json` files: a Markdown table per device on stdout
(the tables of docs/performance.md) and, with -o, a PNG of every kernel row's GB/s beside the
device's copy bandwidth: one panel per device, bars for device-buffer and host-to-host
throughput, a dashed line at the copy limit. Files of the same device make one panel: a later file's rows replace
an earlier file's rows of the same kernel, variant and size (a re-run of one kernel after a change),
and the panel's title names every date. A device behind a bus (pcie_gbps in its file) gets a
second panel: host-to-host GB/s from ordinary and from pinned (clc_host_alloc) memory beside the
bus's pinned limit, and its table says each as a fraction of it. Needs matplotlib (Debian: python3-matplotlib); exits 0
with a note when it is absent.

    bench/report.py docs/perf/h200.json docs/perf/pocl2.json -o docs/perf/bandwidth.png
"""
import argparse
import json
import sys


def label(row):
    return f"{row['kernel']} {row['variant']}\n{row['size']}"


def bus(run):
    """The pinned host-to-device GB/s of a device behind a bus, else None."""
    pcie = run.get("pcie_gbps")
    if not pcie or run["device"].get("unified_memory"):
        return None
    return pcie["pinned_up"]


def pinned_gbps(row):
    """Host-to-host GB/s with the data in clc_host_alloc memory, where the row measured it."""
    ms = row.get("h2h_pinned_ms")
    return row["bytes"] / ms * 1e-6 if ms else None


def print_table(run):
    d = run["device"]
    dates = ", ".join(sorted(set(run["dates"])))
    print(f"{d['name']} ({d['platform']}, driver {d['driver']}), {dates}: copy bandwidth "
          f"{run['copy_gbps']:.1f} GB/s; first call with an empty / a warm cache: "
          + ", ".join(f"{f['kernel']} {f['cold_ms']:.1f} / {f['warm_ms']:.1f} ms"
                      for f in run["first_call"] if not f["status"]))
    limit = bus(run)
    if limit:
        p = run["pcie_gbps"]
        print(f"PCIe: pinned {p['pinned_up']:.1f} GB/s to the device, {p['pinned_down']:.1f} "
              f"back; pageable {p['pageable_up']:.1f} and {p['pageable_down']:.1f}; \"of bus\": "
              f"host-to-host GB/s against pinned to the device")
    if run.get("environment"):  # runs before 2026-12-07 did not record these
        print("Environment: " + ", ".join(f"{k}={v}" for k, v in run["environment"].items()))
    if run.get("tuned"):
        source = {"stored": "from the cache"}
        print("Variants: " + "; ".join(
            f"{t['family']} {t['variant']} ({source.get(t['source'], t['source'])})"
            for t in run["tuned"]))
    print()
    extra = " | h2h of bus | h2h pinned ms | pinned of bus" if limit else ""
    print("| kernel | variant | size | device ms | device GB/s | of copy | host-to-host ms "
          f"| h2h GB/s{extra} | serial C ms | device vs C | h2h vs C |")
    print("|" + " --- |" * (11 + (3 if limit else 0)))
    for r in run["rows"]:
        if r["status"]:
            print(f"| {r['kernel']} | {r['variant']} | {r['size']} | {r['status']} |")
            continue
        cells = ""
        if limit:
            pin = pinned_gbps(r)
            cells = (f" | {100 * r['h2h_gbps'] / limit:.0f}% | "
                     + (f"{r['h2h_pinned_ms']:.3f} | {100 * pin / limit:.0f}%" if pin else " | "))
        print(f"| {r['kernel']} | {r['variant']} | {r['size']} | {r['device_ms']:.3f} "
              f"| {r['device_gbps']:.1f} | {100 * r['of_copy']:.0f}% | {r['h2h_ms']:.3f} "
              f"| {r['h2h_gbps']:.1f}{cells} | {r['serial_ms']:.3f} | {r['device_speedup']:.1f}x "
              f"| {r['h2h_speedup']:.2f}x |")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="+", help="output of clcompute bench --json")
    parser.add_argument("-o", "--output", help="PNG to write")
    args = parser.parse_args()

    runs = []  # one per device, in order of first appearance
    for path in args.json:
        try:
            with open(path) as f:
                run = json.load(f)
            run["device"]["name"], run["rows"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"report.py: {path}: not the output of `clcompute bench --json` ({e})",
                  file=sys.stderr)
            return 2
        same = [r for r in runs if r["device"]["name"] == run["device"]["name"]]
        if not same:
            run["dates"] = [run["date"]]
            runs.append(run)
            continue
        merged = same[0]
        fresh = {(r["kernel"], r["variant"], r["size"]): r for r in run["rows"]}
        merged["rows"] = [fresh.pop((r["kernel"], r["variant"], r["size"]), r)
                          for r in merged["rows"]] + list(fresh.values())
        merged["dates"].append(run["date"])
        merged["pcie_gbps"] = run.get("pcie_gbps") or merged.get("pcie_gbps")
    for run in runs:
        print_table(run)
    if not args.output:
        return 0
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:  # optional, like the peers
        print(f"plot skipped: {e}", file=sys.stderr)
        return 0
    panels = [p for run in runs for p in ([(run, False), (run, True)] if bus(run) else
                                          [(run, False)])]
    fig, axes = plt.subplots(len(panels), 1, figsize=(14, 4.8 * len(panels)), squeeze=False)
    for ax, (run, host) in zip(axes[:, 0], panels):
        rows = [r for r in run["rows"] if not r["status"]]
        d = run["device"]
        dates = ", ".join(sorted(set(run["dates"])))
        x = range(len(rows))
        ax.set_xticks(list(x))
        ax.set_xticklabels([label(r) for r in rows], rotation=90, fontsize=7)
        ax.set_ylabel("GB/s")
        if host:  # a GPU's host-to-host bars are invisible beside its TB/s: their own panel
            limit = bus(run)
            ax.bar([i - 0.2 for i in x], [r["h2h_gbps"] for r in rows], width=0.4,
                   label="host to host, ordinary memory")
            # Rows without a pinned figure (older files, clouds) get no bar rather than a zero.
            ax.bar([i + 0.2 for i in x], [pinned_gbps(r) or float("nan") for r in rows], width=0.4,
                   label="host to host, clc_host_alloc memory")
            ax.axhline(limit, color="black", linestyle="--",
                       label=f"pinned PCIe to the device {limit:.1f} GB/s")
            ax.set_title(f"{d['name']}, host to host against the bus, {dates}")
            ax.legend(fontsize=8, loc="upper left")
            continue
        dev = [r["device_gbps"] for r in rows]
        h2h = [r["h2h_gbps"] for r in rows]
        ax.bar([i - 0.2 for i in x], dev, width=0.4, label="device buffers")
        ax.bar([i + 0.2 for i in x], h2h, width=0.4, label="host to host")
        ax.axhline(run["copy_gbps"], color="black", linestyle="--",
                   label=f"copy bandwidth {run['copy_gbps']:.0f} GB/s")
        ax.set_title(f"{d['name']} ({d['platform']}, driver {d['driver']}), {dates}")
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
