#!/usr/bin/env python3
"""Print the performance tables the docs quote, from criterion's own
estimates (its medians) left under target/criterion by the two benches:

    cargo bench -p sluice --bench per_request -- --quick
    cargo bench -p sluice-uring --bench engine -- engine-4096-flows
    python3 scripts/bench_tables.py [--criterion target/criterion]

Table 1: ns per request (add + dispatch + complete through the Driver) for
every policy at 16, 256 and 4,096 flows, and the growth from 256 to 4,096.
Table 2: the engine's CPU cost per request over a bare io_uring ring at
4,096 flows: (policy's batch time - the ring's) / requests in a batch.
Missing benches are left out; nothing is run here.
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOWS = 4096


def median_ns(base, *parts):
    path = os.path.join(base, *parts, "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"]
    except (OSError, KeyError, ValueError):
        return None


def fmt(ns):
    if ns is None:
        return "-"
    return "%.2f µs" % (ns / 1e3) if ns >= 1000 else "%.0f ns" % ns


def policy_table(base):
    names = sorted(d for d in os.listdir(base)
                   if os.path.isdir(os.path.join(base, d)) and median_ns(base, d, "4096") is not None)
    if not names:
        return
    print("| policy | 16 flows | 256 flows | 4,096 flows | 4,096 / 256 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for n in names:
        a, b, c = (median_ns(base, n, str(k)) for k in (16, 256, 4096))
        growth = "%.2f" % (c / b) if b and c else "-"
        print("| %s | %s | %s | %s | %s |" % (n, fmt(a), fmt(b), fmt(c), growth))


def engine_table(base):
    group = os.path.join(base, "engine-4096-flows")
    if not os.path.isdir(group):
        return
    print()
    print("| per flow per batch | bare ring per request | policy | engine + policy per request | over the ring |")
    print("| ---: | ---: | --- | ---: | ---: |")
    for k in (1, 4):
        per = "%d-per-flow" % k
        n = FLOWS * k
        raw = median_ns(group, "raw-io_uring", per)
        for policy in sorted(os.listdir(group)):
            if policy == "raw-io_uring" or policy == "report":
                continue
            t = median_ns(group, policy, per)
            if t is None or raw is None:
                continue
            print("| %d | %s | %s | %s | %s |" % (k, fmt(raw / n), policy, fmt(t / n), fmt((t - raw) / n)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--criterion", default=os.path.join(ROOT, "target", "criterion"),
                    help="criterion's output folder (default: target/criterion)")
    a = ap.parse_args()
    if not os.path.isdir(a.criterion):
        sys.exit("%s: no criterion output; run the benches first" % a.criterion)
    policy_table(a.criterion)
    engine_table(a.criterion)


if __name__ == "__main__":
    main()
