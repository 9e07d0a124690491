#!/usr/bin/env python3
"""Print the README's result tables from `sluice repro all --json` output.

    cargo run --release -- repro all --json > /tmp/repro.json
    python3 scripts/readme_results.py /tmp/repro.json

Every number comes from the JSON; paste the output over the tables of the
README's "Results" section. The prose around them is written by hand."""
import json
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    # Experiment ids are unique across the papers.
    return {e["id"]: e["rows"] for e in data["experiments"]}


def value(rows, scheduler, workload, metric, field="ours"):
    for r in rows:
        if r["scheduler"] == scheduler and r["workload"] == workload and r["metric"] == metric:
            return r[field]
    return None


def fmt(x, digits=2):
    return "-" if x is None else "%.*f" % (digits, x)


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def bfq(exps):
    thr = exps["throughput"]
    scheds = ["bfq+", "bfq", "cfq"]
    print("Aggregate throughput, long benchmark (MB/s, ours / paper):\n")
    print(table(["workload"] + scheds, [
        [w] + ["%s / %s" % (fmt(value(thr, s, w, "aggregate")), fmt(value(thr, s, w, "aggregate", "paper"), 1)) for s in scheds]
        for w in ("10r-seq", "10r-rand", "5r5w-seq", "5r5w-rand")]))
    st, vid = exps["startup"], exps["video"]
    po = "bfq+ raised_timeout=false raised_idle_factor=1"
    short = "bfq+ (§3.3 literal)"
    cols = [("bash", s) for s in ("bfq+", "bfq", "cfq")] + \
        [("xterm", s) for s in ("bfq+", "bfq", "cfq", po)] + [("gnometerm", s) for s in ("bfq+", "bfq", "cfq", po)]
    label = lambda s: short if s == po else s
    head = ["workload"] + ["%s %s" % (a, label(s)) for a, s in cols] + \
        ["video bfq+", "video cfq", "video " + short]
    rows = []
    for w in ("idle", "10r-seq", "10r-rand", "5r5w-seq", "5r5w-rand"):
        r = [w] + [fmt(value(st, s, w, a)) for a, s in cols]
        r += [fmt(value(vid, s, w, "drop_rate"), 1) for s in ("bfq+", "cfq", po)]
        rows.append(r)
    print("\nStart-up time (s) and video drop rate (%%); %s = `%s`:\n" % (short, po))
    print(table(head, rows))
    for w in ("idle, think", "10r-seq, think"):
        print("\n%s: xterm %s" % (w, ", ".join("%s %s s" % (s, fmt(value(st, s, w, "xterm"))) for s in ("bfq+", "bfq", "cfq"))))
    for w in ("idle, recorded", "10r-seq, recorded"):
        print("\n%s: xterm bfq+ %s s" % (w, fmt(value(st, "bfq+", w, "xterm"))))
    ncq = exps["ncq"]
    scheds = ("bfq+", "bfq+ hw_tag_detection=false", "bfq+ hw_tag_detection=false raised_ncq_idling=false",
              "bfq+ raised_ncq_idling=false ncq_seq_idling=false", "bfq", "cfq", "noop")
    names = {"bfq+ hw_tag_detection=false": "bfq+ static", "bfq+ hw_tag_detection=false raised_ncq_idling=false": "bfq+ seq-only",
             "bfq+ raised_ncq_idling=false ncq_seq_idling=false": "bfq+ none"}
    apps = ("bash", "xterm", "gnometerm", "aggregate")
    print("\nWith NCQ, start-up time (s) and long-benchmark MB/s; bfq+ static = `hw_tag_detection=false` (every deep drive queues), bfq+ seq-only = also `raised_ncq_idling=false`, bfq+ none = `raised_ncq_idling=false ncq_seq_idling=false` (§5.1 read literally):\n")
    print(table(["scheduler"] + ["%s %s" % (w, a) for a in apps for w in ("10r-seq", "5r5w-rand")], [
        [names.get(s, s)] + [fmt(value(ncq, s, w, a)) for a in apps for w in ("10r-seq", "5r5w-rand")]
        for s in scheds]))
    lay = exps.get("layout")
    if lay:
        gaps = [r["workload"] for r in lay if r["scheduler"] == "bfq+/cfq"]
        print("\nLayout, 10r-seq (MB/s and BFQ+/CFQ):\n")
        print(table(["files"] + ["bfq+", "cfq", "ratio"], [
            [g.replace("10r-seq, ", "")] + [fmt(value(lay, "bfq+", g, "aggregate")), fmt(value(lay, "cfq", g, "aggregate")),
                                           fmt(value(lay, "bfq+/cfq", g, "ratio"))] for g in gaps]))
    wt = exps["weights"]
    print("\nWeights: " + "; ".join("%s %s" % (s, "/".join(fmt(value(wt, s, "3r-seq-w100:200:300", "share_r%d" % i), 3) for i in range(3)))
                                   for s in ("bfq", "bfq+")))
    ab = exps["ablation"]
    names = ["bfq+"] + ["bfq+ %s=false" % k for k in ("low_latency", "peak_rate_lpf", "budget_rules", "fairness_rules", "write_throt", "raised_timeout")] + ["bfq+ raised_idle_factor=1"]
    print("\nAblation (start-up s, aggregate MB/s):\n")
    cols = [(w, m) for w in ("10r-seq", "5r5w-seq") for m in ("bash", "xterm", "aggregate")] + [("10r-seq, think", m) for m in ("bash", "xterm")]
    print(table(["scheduler"] + ["%s %s" % c for c in cols], [
        [n] + [fmt(value(ab, n, w, m)) for w, m in cols] for n in names]))
    bufs = [r for r in vid if r["metric"].startswith("drop_rate@buffer=")]
    if bufs:
        depths = sorted({int(r["metric"].split("=")[1]) for r in bufs})
        print("\nVideo drop rate (%) by player buffer (frames):\n")
        print(table(["scheduler", "workload"] + [str(d) for d in depths], [
            [s, w] + [fmt(value(vid, s, w, "drop_rate@buffer=%d" % d), 1) for d in depths]
            for s in ("bfq+", "cfq") for w in ("10r-seq", "10r-rand", "5r5w-seq", "5r5w-rand")]))


def yfq(exps):
    b = exps.get("batching")
    if not b:
        return
    print("\nYFQ aggregate KB/s, 8 random readers:\n")
    scheds = sorted({r["scheduler"] for r in b}, key=lambda s: (s.startswith("bsd"), len(s), s))
    print(table(["scheduler", "64 KB", "8 KB"], [
        [s, fmt(value(b, s, "64k-8tasks", "aggregate_kb_s"), 0), fmt(value(b, s, "8k-8tasks", "aggregate_kb_s"), 0)] for s in scheds]))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: readme_results.py REPRO_ALL.json")
    e = load(sys.argv[1])
    bfq(e)
    yfq(e)
