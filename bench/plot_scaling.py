#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The scaling plots of bench/run_bench.py.
--scaling (CPU): member-images/s and peak resident memory against the number of members, one
line per batch size, ours solid and the peer dashed.
--gpu (points with a "precision"): for one precision (--precision, default the first), a
column per batch size, member-images/s above and peak GPU memory below, one line per side.
    python bench/plot_scaling.py scaling-points.json scaling.png   (scripts/bench-venv.sh's python)
    python bench/plot_scaling.py gpu-points.json gpu-fp32.png --precision fp32 --title "..."
"""
import argparse, json, math, re, textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def cpu_plot(points, png):
    sides = list(dict.fromkeys(p["side"] for p in points))
    batches = sorted({p["batch"] for p in points})
    colours = dict(zip(batches, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
    figure, (speed, memory) = plt.subplots(1, 2, figsize=(11, 4.2))
    for side, style in zip(sides, ("-", "--")):
        for batch in batches:
            line = sorted((p for p in points if p["side"] == side and p["batch"] == batch), key=lambda p: p["members"])
            members = [p["members"] for p in line]
            label = f"{re.split(r'[,(]', side)[0].strip()}, batch {batch}"
            speed.plot(members, [p["images_per_second"] for p in line], style, marker="o", color=colours[batch],
                       label=label)
            memory.plot(members, [p["peak_rss_mb"] for p in line], style, marker="o", color=colours[batch], label=label)
    for axis, title in ((speed, "member-images / s"), (memory, "peak resident memory (MB)")):
        axis.set_xscale("log", base=2)
        axis.set_xticks([1, 2, 4, 8], ["1", "2", "4", "8"])
        axis.set_xlabel("members")
        axis.set_title(title)
        axis.grid(alpha=0.3)
        axis.set_ylim(bottom=0)
    speed.legend(fontsize=7)
    figure.suptitle(f"CNN on Fashion-MNIST, CPU: {sides[0]} (solid) and {sides[-1]} (dashed)", fontsize=9)
    figure.tight_layout()
    figure.savefig(png, dpi=110)


def gpu_plot(points, png, precision, title):
    precision = precision or points[0]["precision"]
    points = [p for p in points if p["precision"] == precision]
    if not points:
        raise SystemExit(f"plot_scaling.py: no point in precision {precision}")
    sides = list(dict.fromkeys(p["side"] for p in points))
    batches = sorted({p["batch"] for p in points})
    ticks = sorted({p["members"] for p in points})
    figure, axes = plt.subplots(2, len(batches), figsize=(max(6.0, 4.3 * len(batches)), 7), squeeze=False)
    styles = ("-", "--", "-.", ":")
    for column, batch in enumerate(batches):
        speed, memory = axes[0][column], axes[1][column]
        for k, side in enumerate(sides):
            line = sorted((p for p in points if p["side"] == side and p["batch"] == batch), key=lambda p: p["members"])
            if not line:
                continue
            members = [p["members"] for p in line]
            look = dict(linestyle=styles[k % len(styles)], marker="o", color=f"C{k}", label=side)
            speed.plot(members, [p["images_per_second"] for p in line], **look)
            memory.plot(members, [math.nan if p.get("peak_gpu_memory_mb") is None else p["peak_gpu_memory_mb"]
                                  for p in line], **look)
        for axis, what in ((speed, "member-images / s"), (memory, "peak GPU memory (MiB)")):
            axis.set_xscale("log", base=2)
            axis.set_xticks(ticks, [str(t) for t in ticks])
            axis.set_xlabel("members")
            axis.set_title(f"batch {batch}: {what}", fontsize=9)
            axis.grid(alpha=0.3)
            axis.set_ylim(bottom=0)
    axes[0][0].legend(fontsize=7)
    title = title or f"CNN on Fashion-MNIST, one GPU, {precision}"
    figure.suptitle(textwrap.fill(title, int(14 * figure.get_figwidth())), fontsize=9)
    figure.tight_layout()
    figure.savefig(png, dpi=110)


def main():
    p = argparse.ArgumentParser(description="run_bench.py's scaling plot")
    p.add_argument("points", help="the points' JSON")
    p.add_argument("png")
    p.add_argument("--precision", help="--gpu points: the precision to plot (default: the first)")
    p.add_argument("--title")
    a = p.parse_args()
    with open(a.points) as f:
        points = json.load(f)
    if points and "precision" in points[0]:
        gpu_plot(points, a.png, a.precision, a.title)
    else:
        cpu_plot(points, a.png)


if __name__ == "__main__":
    main()
