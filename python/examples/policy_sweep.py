"""Notebook-style: sweep five policies x three seeds over ten random
readers, on Ray when it is installed, and plot throughput and tail latency.

    python3 python/examples/policy_sweep.py     # from the repository root
"""
import os

import sluice

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POLICIES = ["noop", "clook", "cfq", "bfq", "bfq+"]
SEEDS = [1, 2, 3]

# %% One scenario per policy: the same workload, a different [scheduler].
base = {
    "name": "10r-rand", "duration_s": 30, "warmup_s": 5,
    "device": {"preset": "maxtor-stm332061"},
    "flow": [{"name": "reader", "count": 10, "pattern": "rand-read", "request_kib": 4}],
}
scenarios = [dict(base, scheduler={"name": p}) for p in POLICIES]

# %% Every (policy, seed) as a Ray task; results come back in input order.
runs = sluice.sweep(scenarios, seeds=SEEDS)
df = sluice.frame(runs)

# %% Per policy: aggregate MB/s and the worst p99 per run, mean over seeds.
per_run = df.groupby(["scheduler", "seed"]).agg(mb_s=("mb_s", "sum"), p99_ms=("lat_p99_ms", "max"))
summary = per_run.groupby("scheduler").mean().reindex(POLICIES)
print(summary.round(3).to_string())

# %% A plot, if matplotlib is there.
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    summary["mb_s"].plot.bar(ax=a, title="aggregate MB/s (mean of 3 seeds)")
    summary["p99_ms"].plot.bar(ax=b, title="worst flow p99 latency (ms)")
    fig.tight_layout()
    fig.savefig("policy_sweep.png")
    print("wrote policy_sweep.png")
except ImportError:
    print("(pip install matplotlib for the plot)")
