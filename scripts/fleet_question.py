#!/usr/bin/env python3
"""Which policy gives the quietest volumes of a fleet the smallest tail?

Runs `sluice fleet` on one trace under noop, bfq, mclock with a reservation
per volume and seastar-fq, on the HDD preset and the SSD preset, writes each
`sluice.fleet/1` result to OUTDIR, and prints a Markdown table of the p99.9
latency of the quietest 10% of volumes (fewest requests; ties in the
report's volume order): its median and its largest, beside all volumes'.

    python3 scripts/fleet_question.py TRACE FORMAT NODES OUTDIR [--sluice PATH]
        [--reservation-iops 2] [--workers 2] [--speed X] [--devices hdd,ssd]

Example (the generated fleet of docs/fleet.md):
    python3 scripts/fleet_trace.py /tmp/f10m.csv
    python3 scripts/fleet_question.py /tmp/f10m.csv alibaba 40 /tmp/fleet-answer
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

POLICIES = ["noop", "bfq", "mclock", "seastar-fq"]
# The HDD of the BFQ paper's third system (no NCQ: one command at a time)
# and a SATA SSD with its 32 NCQ slots in use.
DEVICES = [("hdd", "maxtor-stm332061", 1), ("ssd", "ssd-sata", 32)]


def quietest(volumes, fraction=0.1):
    """The quietest `fraction` of volumes (at least one), fewest requests
    first, ties in report order."""
    order = sorted(range(len(volumes)), key=lambda i: (volumes[i]["requests"], i))
    n = max(1, math.ceil(fraction * len(volumes)))
    return [volumes[i] for i in order[:n]]


def median(xs):
    xs = sorted(xs)
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("format")
    ap.add_argument("nodes", type=int)
    ap.add_argument("outdir")
    ap.add_argument("--sluice", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "sluice"))
    ap.add_argument("--reservation-iops", type=float, default=2.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--speed", type=float, default=1.0, help="replay the trace this many times faster")
    ap.add_argument("--devices", default="hdd,ssd", help="which of hdd, ssd")
    a = ap.parse_args()
    devices = [d for d in DEVICES if d[0] in a.devices.split(",")]
    os.makedirs(a.outdir, exist_ok=True)
    trace = os.path.abspath(a.trace)
    rows = []
    for dev, preset, depth in devices:
        for policy in POLICIES:
            name = "%s-%s" % (dev, policy)
            out = os.path.join(a.outdir, name + ".json")
            if not os.path.exists(out):
                sc = os.path.join(a.outdir, name + ".toml")
                extra = "reservation_iops = %g\n" % a.reservation_iops if policy == "mclock" else ""
                if a.speed != 1.0:
                    extra += "speed = %g\n" % a.speed
                with open(sc, "w") as f:
                    f.write('name = "%s"\nseed = 1\nduration_s = 1000000\nwarmup_s = 0\n'
                            '[device]\npreset = "%s"\nqueue_depth = %d\n[scheduler]\nname = "%s"\n'
                            '[fleet]\ntrace = "%s"\nformat = "%s"\nnodes = %d\nplacement = "hash"\n%s'
                            % (name, preset, depth, policy, trace, a.format, a.nodes, extra))
                t = time.time()
                r = subprocess.run([a.sluice, "fleet", sc, "--json", "--workers", str(a.workers)],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit("%s: %s" % (name, r.stderr.strip()))
                with open(out, "w") as f:
                    f.write(r.stdout)
                print("%s: %.1f s" % (name, time.time() - t), file=sys.stderr)
            with open(out) as f:
                j = json.load(f)
            q = quietest(j["volumes"])
            rows.append((dev, policy, len(q), median([v["p999_ms"] for v in q]), max(v["p999_ms"] for v in q),
                         median([v["p999_ms"] for v in j["volumes"]]), max(v["p999_ms"] for v in j["volumes"]),
                         sum(n["utilisation"] for n in j["nodes"]) / len(j["nodes"])))
    print("| device | policy | quietest volumes | their p99.9, median (ms) | their p99.9, largest (ms) "
          "| all volumes' p99.9, median (ms) | largest (ms) | mean node utilisation |")
    print("|---|---|---|---|---|---|---|---|")
    for dev, policy, n, qm, qx, am, ax, u in rows:
        print("| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.0f%% |" % (dev, policy, n, qm, qx, am, ax, 100 * u))
    for dev, _, _ in devices:
        mine = [r for r in rows if r[0] == dev]
        best = min(r[3] for r in mine)
        tied = [r[1] for r in mine if r[3] == best]
        print("\n%s: smallest median p99.9 of the quietest 10%%: %s (%.3f ms)" % (dev, " = ".join(tied), best))


if __name__ == "__main__":
    main()
