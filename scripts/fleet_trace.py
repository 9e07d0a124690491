#!/usr/bin/env python3
"""Write a synthetic Alibaba-format block trace for fleet runs.

`device_id,opcode,offset,length,timestamp` lines (bytes, microseconds), as
Alibaba's 2020 block traces: VOLUMES volumes whose popularity falls as 1/rank
(a few busy volumes, many quiet ones), REQUESTS requests with exponential gaps
of 300 µs on average, 70% reads, 4-64 KiB, offsets over 16 GiB.

    python3 scripts/fleet_trace.py OUT.csv [--volumes 1000] [--requests 10000000] [--seed 11]
"""
import argparse
import bisect
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--volumes", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    r = random.Random(a.seed)
    weights = [1.0 / (v + 1) for v in range(a.volumes)]
    tot = sum(weights)
    cum, acc = [], 0.0
    for w in weights:
        acc += w / tot
        cum.append(acc)
    t = 1600000000000000
    with open(a.out, "x") as f:
        buf = []
        for _ in range(a.requests):
            t += int(r.expovariate(1 / 300.0))
            v = min(bisect.bisect(cum, r.random()), a.volumes - 1)
            buf.append("%d,%s,%d,%d,%d\n" % (v, "R" if r.random() < 0.7 else "W",
                                              r.randrange(0, 1 << 34) // 4096 * 4096,
                                              4096 * r.choice((1, 1, 2, 4, 16)), t))
            if len(buf) >= 100_000:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))


if __name__ == "__main__":
    main()
