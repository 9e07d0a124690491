#!/usr/bin/env python3
"""Time MQSim and sluice on the same scaled FAST'18 run, whole process, in
alternated pairs, and print the medians and the median ratio.

The run: MQSim's fast18/backend-contention configuration with
Block_No_Per_Plane / 16 (as crates/sluice-repro/data/mqsim/derive.py scales
it) and the first scenario of its flow-1 workload (10 simulated seconds,
about 217,000 requests), imported for sluice with `sluice import mqsim`.

Usage: python3 scripts/versus_mqsim.py [--mqsim DIR] [--pairs N]
  DIR: an MQSim build (its Makefile's output, with fast18/ beside the
  binary), default /tmp/sluice-mqsim-build. Build sluice first
  (cargo build --release)."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mqsim", default="/tmp/sluice-mqsim-build")
    ap.add_argument("--pairs", type=int, default=5)
    a = ap.parse_args()
    binary = os.path.join(a.mqsim, "MQSim")
    sluice = os.path.join(ROOT, "target", "release", "sluice")
    for p in (binary, sluice):
        if not os.access(p, os.X_OK):
            sys.exit("no executable %s" % p)
    src = os.path.join(a.mqsim, "fast18", "backend-contention")
    work = tempfile.mkdtemp(prefix="sluice-vs-mqsim-")
    try:
        with open(os.path.join(src, "ssdconfig-backend-contention.xml")) as f:
            config = re.sub(r"<Block_No_Per_Plane>(\d+)<",
                            lambda m: "<Block_No_Per_Plane>%d<" % (int(m.group(1)) // 16), f.read())
        with open(os.path.join(work, "cfg.xml"), "w") as f:
            f.write(config)
        with open(os.path.join(src, "workload-backend-contention-flow-1.xml")) as f:
            first = re.findall(r"<IO_Scenario>.*?</IO_Scenario>", f.read(), flags=re.S)[0]
        with open(os.path.join(work, "wl.xml"), "w") as f:
            f.write('<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n%s\n'
                    '</MQSim_IO_Scenarios>\n' % first)
        subprocess.run([sluice, "import", "mqsim", "wl.xml", "--ssdconfig", "cfg.xml", "-o", "b.toml"],
                       cwd=work, check=True, capture_output=True)
        ms, ss = [], []
        for _ in range(a.pairs):
            t0 = time.perf_counter()
            subprocess.run([binary, "-i", "cfg.xml", "-w", "wl.xml"], cwd=work, stdin=subprocess.DEVNULL,
                           capture_output=True, check=True)
            t1 = time.perf_counter()
            subprocess.run([sluice, "sim", "b.toml", "--json"], cwd=work, capture_output=True, check=True)
            t2 = time.perf_counter()
            ms.append(t1 - t0)
            ss.append(t2 - t1)
        ratios = [m / s for m, s in zip(ms, ss)]
        print("MQSim %.3f s, sluice %.3f s (medians of %d alternated pairs), ratio x%.1f (pairs %s)" % (
            statistics.median(ms), statistics.median(ss), a.pairs, statistics.median(ratios),
            ", ".join("%.1f" % r for r in ratios)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
