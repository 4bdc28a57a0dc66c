#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The scaling plot of bench/run_bench.py --scaling: member-images/s and peak resident memory
against the number of members, one line per batch size, ours solid and the peer dashed.
    python bench/plot_scaling.py scaling-points.json scaling.png   (scripts/bench-venv.sh's python)
"""
import json, re, sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main(points_file, png):
    with open(points_file) as f:
        points = json.load(f)
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


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_scaling.py POINTS.json OUT.png")
    main(*sys.argv[1:])
