#!/usr/bin/env python3
"""Simulated requests per wall second and peak memory, 256 flows against 65,536.

    python3 scripts/scale_flows.py [--sluice target/release/sluice]
        [--policies yfq,bfq+,mclock] [--rounds 5] [--flows 256,65536]

Each run is `sluice sim` of N random 4 KiB readers on `ssd-sata` for 60
simulated seconds (file_gib = 0.001 each, seed 1): the same scenario as the
performance acceptance check, whose request stream is the same whatever N.
The runs alternate (every policy and flow count once a round), and the
figures printed are medians over the rounds: the simulator's own
`perf.requests_per_wall_s` (the event loop and the report's measurements,
not reading the scenario or writing JSON) and the peak resident memory of
the whole process (`/usr/bin/time -f %M`). The ratio is the largest flow
count's rate over the smallest's, per policy.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCENARIO = """name = "scale"
seed = 1
duration_s = 60
warmup_s = 0
[device]
preset = "ssd-sata"
[scheduler]
name = "%s"
[[flow]]
name = "r"
count = %d
pattern = "rand-read"
request_kib = 4
file_gib = 0.001
"""


def run(exe, path):
    """(requests per wall second, peak RSS MiB) of one `sim`."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", exe, "sim", path, "--json"],
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        sys.exit("sluice sim %s failed: %s" % (path, r.stderr.strip()[-300:]))
    rss_mib = int(r.stderr.strip().splitlines()[-1]) / 1024.0
    return json.loads(r.stdout)["perf"]["requests_per_wall_s"], rss_mib


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sluice", default=os.path.join(ROOT, "target", "release", "sluice"))
    ap.add_argument("--policies", default="yfq,bfq+,mclock")
    ap.add_argument("--flows", default="256,65536")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("--rounds: at least 1")
    policies = a.policies.split(",")
    flows = [int(n) for n in a.flows.split(",")]
    tmp = tempfile.mkdtemp(prefix="sluice-scale-")
    paths = {}
    for p in policies:
        for n in flows:
            paths[p, n] = os.path.join(tmp, "%s-%d.toml" % (p.replace("+", "plus"), n))
            with open(paths[p, n], "w") as f:
                f.write(SCENARIO % (p, n))
    rate = {k: [] for k in paths}
    rss = {k: [] for k in paths}
    for _ in range(a.rounds):
        for k, path in paths.items():
            r, m = run(a.sluice, path)
            rate[k].append(r)
            rss[k].append(m)
    print("%d rounds, medians; random 4 KiB readers on ssd-sata, 60 simulated seconds" % a.rounds)
    print("%-8s %8s %16s %10s" % ("policy", "flows", "requests/wall s", "peak MiB"))
    for p in policies:
        for n in flows:
            print("%-8s %8d %16.0f %10.0f" % (p, n, statistics.median(rate[p, n]), statistics.median(rss[p, n])))
        lo, hi = flows[0], flows[-1]
        ratios = [b / s for s, b in zip(rate[p, lo], rate[p, hi])]
        print("%-8s %d / %d flows: x%.2f (median of the rounds' ratios)" % (p, hi, lo, statistics.median(ratios)))


if __name__ == "__main__":
    main()
