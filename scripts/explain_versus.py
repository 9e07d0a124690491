#!/usr/bin/env python3
"""Why two engines of `sluice versus` differ: statistics of request logs.

    sluice versus SCENARIO --preset NAME --log-requests /tmp/v --json > v.json
    python3 scripts/explain_versus.py /tmp/v.*.csv [--flow xterm]

For each log (each run of it: a log of several runs starts again from time
0), it prints what the head-to-head documentation quotes:
  - slots: runs of consecutive dispatches from one flow (dispatch order),
    their mean length in requests and the most common length in sectors
    (a scheduler's budget shows as a fixed slot size);
  - in flight: how many requests were dispatched and not completed when
    each request was dispatched (what the device below the scheduler held);
  - seeks: the share of dispatches whose sector does not follow the
    previous dispatch's end (each costs the drive a seek);
  - for --flow (a start-up): its requests' mean wait from arrival to
    dispatch, and how many other flows' requests were dispatched while it
    waited.
Reads CSV only; writes nothing."""
import bisect
import csv
import statistics
import sys
from collections import Counter


def runs_of(path):
    """The log's runs: lists of rows, cut where times start again."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("arrival_ms", "dispatched_ms", "completed_ms"):
            r[k] = float(r[k])
        r["sector"], r["sectors"] = int(r["sector"]), int(r["sectors"])
    parts, cur, top = [], [], None
    for r in rows:
        if top is not None and r["completed_ms"] < top - 5000:
            parts.append(cur)
            cur, top = [], None
        cur.append(r)
        top = r["completed_ms"] if top is None else max(top, r["completed_ms"])
    if cur:
        parts.append(cur)
    return parts


def explain(rows, flow):
    rows = sorted(rows, key=lambda r: (r["dispatched_ms"], r["completed_ms"]))
    slots, cur = [], None
    for r in rows:
        if cur and cur[0] == r["flow"]:
            cur[1] += 1
            cur[2] += r["sectors"]
        else:
            if cur:
                slots.append(cur)
            cur = [r["flow"], 1, r["sectors"]]
    if cur:
        slots.append(cur)
    reader_slots = [s for s in slots if s[0] != flow]
    common = Counter(s[2] for s in reader_slots).most_common(1)
    # In flight at each dispatch (the request itself included).
    events = sorted([(r["dispatched_ms"], 1) for r in rows] + [(r["completed_ms"], -1) for r in rows],
                    key=lambda e: (e[0], e[1]))
    depth, at_dispatch = 0, []
    for _, d in events:
        depth += d
        if d == 1:
            at_dispatch.append(depth)
    seeks = sum(1 for a, b in zip(rows, rows[1:]) if b["sector"] != a["sector"] + a["sectors"]
                or b["flow"] != a["flow"])
    out = {
        "requests": len(rows),
        "slot_mean": statistics.mean(s[1] for s in slots),
        "slot_sectors_mode": common[0] if common else None,
        "in_flight_mean": statistics.mean(at_dispatch),
        "in_flight_max": max(at_dispatch),
        "seek_share": seeks / max(len(rows) - 1, 1),
    }
    mine = [r for r in rows if r["flow"] == flow]
    if mine:
        waits = [r["dispatched_ms"] - r["arrival_ms"] for r in mine]
        disp = [r["dispatched_ms"] for r in rows]
        own = sorted(r["dispatched_ms"] for r in mine)
        others = 0
        for r in mine:
            a, d = r["arrival_ms"], r["dispatched_ms"]
            between = bisect.bisect_left(disp, d) - bisect.bisect_left(disp, a)
            others += between - (bisect.bisect_left(own, d) - bisect.bisect_left(own, a))
        out.update({
            "flow_requests": len(mine),
            "flow_wait_ms_mean": statistics.mean(waits),
            "flow_others_between_mean": others / len(mine),
            "flow_span_s": (max(r["completed_ms"] for r in mine) - min(r["arrival_ms"] for r in mine)) / 1000,
        })
    return out


def main(argv):
    flow = "xterm"
    if "--flow" in argv:
        i = argv.index("--flow")
        flow = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if not argv:
        sys.exit(__doc__)
    for path in argv:
        for k, rows in enumerate(runs_of(path)):
            e = explain(rows, flow)
            line = ("%s run %d: %d requests; slots mean %.1f requests, most common %s sectors; "
                    "in flight at dispatch mean %.2f max %d; seeks %.0f%%" % (
                        path, k + 1, e["requests"], e["slot_mean"], e["slot_sectors_mode"],
                        e["in_flight_mean"], e["in_flight_max"], 100 * e["seek_share"]))
            if "flow_requests" in e:
                line += "; %s: %d requests over %.2f s, wait %.1f ms, %.1f other requests dispatched per wait" % (
                    flow, e["flow_requests"], e["flow_span_s"], e["flow_wait_ms_mean"],
                    e["flow_others_between_mean"])
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
