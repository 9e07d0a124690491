#!/usr/bin/env python3
"""Time `sluice validate` against DiskSim 4.0 on one 50,000-request trace.

    python3 scripts/versus_disksim.py --disksim PATH/TO/disksim [--valid DIR]
        [--sluice target/release/sluice] [--pairs 5] [--requests 50000]

DiskSim is not built here: bring a binary built with optimisation on (-O2),
and its `valid/` folder (default: `../valid` beside the binary), which holds
`ibm18es.parv` and the files it names (`statdefs`, the drive's model).

The trace is random 4 KiB requests (66% reads) over the IBM DNES-309170W
(`ibm18es`, 17,916,240 sectors) with exponential think times of mean 8 ms,
drawn from a fixed seed: the same trace every run. Both programs replay it
closed loop on the same drive description, one request at a time.

The two run in turn, DiskSim then sluice, `--pairs` times, each as a whole
process. Printed: each program's wall-clock median and its CPU (user + sys)
median, and the median of the per-pair ratios DiskSim / sluice. Quote the
median ratio; on a shared machine the spread says how far to trust it.
"""
import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTORS = 17916240  # ibm18es


def write_trace(path, n):
    """DiskSim's validate format: R|W Hit block count measured_us think_us."""
    rnd = random.Random(1)
    with open(path, "w") as f:
        for _ in range(n):
            op = "R" if rnd.random() < 0.66 else "W"
            block = rnd.randrange(0, SECTORS - 64) // 8 * 8
            f.write("%s Hit %10d %3d %12.5f %12.5f\n" % (op, block, 8, 10000.0, rnd.expovariate(1 / 8000.0)))


def timed(cmd, cwd):
    """Wall and CPU seconds of one whole run; exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("%s failed (exit %d): %s" % (cmd[0], r.returncode, r.stderr.strip()[-300:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--disksim", required=True, help="a DiskSim 4.0 binary built with -O2")
    ap.add_argument("--valid", help="DiskSim's valid/ folder (default: ../valid beside the binary)")
    ap.add_argument("--sluice", default=os.path.join(ROOT, "target", "release", "sluice"),
                    help="the sluice binary (default: target/release/sluice; build it with cargo build --release)")
    ap.add_argument("--pairs", type=int, default=5, help="alternated runs of each (at least 5)")
    ap.add_argument("--requests", type=int, default=50000, help="trace length")
    a = ap.parse_args()
    if a.pairs < 5:
        sys.exit("--pairs: at least 5")
    if not 1 <= a.requests <= 10_000_000:
        sys.exit("--requests: 1 to 10,000,000")
    valid = a.valid or os.path.join(os.path.dirname(os.path.abspath(a.disksim)), "..", "valid")
    parv = os.path.join(valid, "ibm18es.parv")
    for path, what in ((a.disksim, "--disksim"), (a.sluice, "--sluice")):
        if not os.access(path, os.X_OK):
            sys.exit("%s: %s is not an executable file" % (what, path))
    if not os.path.isfile(parv):
        sys.exit("--valid: %s has no ibm18es.parv" % valid)

    with tempfile.TemporaryDirectory(prefix="sluice-vs-disksim-") as tmp:
        trace = os.path.join(tmp, "t.trace")
        write_trace(trace, a.requests)
        disksim = [os.path.abspath(a.disksim), "ibm18es.parv", os.path.join(tmp, "d.outv"), "validate", trace, "0"]
        sluice = [os.path.abspath(a.sluice), "validate", "--disk", os.path.abspath(parv), "--trace", trace, "--json"]
        # One untimed run of each: files into the page cache.
        timed(disksim, valid)
        timed(sluice, ROOT)
        d_wall, d_cpu, s_wall, s_cpu = [], [], [], []
        for i in range(a.pairs):
            w, c = timed(disksim, valid)
            d_wall.append(w)
            d_cpu.append(c)
            w, c = timed(sluice, ROOT)
            s_wall.append(w)
            s_cpu.append(c)
            print("pair %d: DiskSim %.3f s, sluice %.4f s" % (i + 1, d_wall[-1], s_wall[-1]), file=sys.stderr)

    med = statistics.median
    wall_ratio = med(d / s for d, s in zip(d_wall, s_wall))
    cpu_ratio = med(d / s for d, s in zip(d_cpu, s_cpu) if s > 0) if any(s_cpu) else float("nan")
    print("%d requests on ibm18es, %d alternated pairs, whole process" % (a.requests, a.pairs))
    print("DiskSim  wall median %.3f s  (min %.3f, max %.3f); cpu median %.3f s"
          % (med(d_wall), min(d_wall), max(d_wall), med(d_cpu)))
    print("sluice   wall median %.4f s (min %.4f, max %.4f); cpu median %.4f s"
          % (med(s_wall), min(s_wall), max(s_wall), med(s_cpu)))
    print("ratio    wall %.0fx (median of pairs); cpu %.0fx" % (wall_ratio, cpu_ratio))


if __name__ == "__main__":
    main()
