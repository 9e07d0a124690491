"""sluice from Python: simulate disk schedulers, reproduce the papers, and
sweep scenarios x seeds on Ray.

    import sluice
    r = sluice.sim("scenarios/10r-rand.toml")          # the CLI's sim --json, as a dict
    runs = sluice.sweep(["a.toml", "b.toml"], seeds=[1, 2, 3])   # Ray tasks
    df = sluice.frame(runs)                             # one row per flow per run

Every result is the dict the `sluice` command prints with --json.
"""

import json
import os
import warnings

from . import _native
from ._native import SluiceError

__all__ = ["sim", "run", "repro", "sweep", "frame", "SluiceError"]


def _drop_none(v):
    """A dict without None values (TOML has no null)."""
    if isinstance(v, dict):
        return {k: _drop_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_drop_none(x) for x in v]
    return v


def _dict_toml(scenario):
    """A scenario dict as TOML text (SluiceError if it cannot be one)."""
    return _native.toml_of_json(json.dumps(_drop_none(scenario)))


def sim(scenario, seed=None, scheduler=None, timeline_ms=None):
    """Simulate a scenario: a path to a scenario file (TOML) or a dict with
    the same keys (``{"name": ..., "device": {...}, "flow": [{...}]}``;
    relative paths in it resolve against the current directory).
    ``seed`` and ``scheduler`` override the scenario's, as the CLI's
    ``--seed`` and ``--scheduler`` do; ``timeline_ms`` adds the timeline
    ``--timeline`` does. Returns the ``sluice.sim/1`` dict; raises
    SluiceError on bad input."""
    if isinstance(scenario, dict):
        job = {"toml_text": _dict_toml(scenario)}
    else:
        job = {"path": os.fspath(scenario)}
    return _run(job, seed, scheduler, timeline_ms)


def _run(job, seed, scheduler, timeline_ms):
    """One simulation of a job (see ``_job``); the task a sweep sends."""
    out = _native.sim_json(seed=seed, scheduler=scheduler, timeline_ms=timeline_ms, **job)
    return json.loads(out)


def _job(scenario):
    """A scenario as a sweep sends it: its TOML text, named by an absolute
    path whose folder relative paths in it resolve against, so a task gives
    the same result in any directory and, when the files it names are
    there too, on any machine of a cluster."""
    if isinstance(scenario, dict):
        return {"toml_text": _dict_toml(scenario), "name": os.path.join(os.getcwd(), "<dict>")}
    path = os.path.abspath(os.fspath(scenario))
    try:
        with open(path, encoding="utf-8") as f:
            return {"toml_text": f.read(), "name": path}
    except (OSError, UnicodeDecodeError):
        return {"path": path}  # the task reports it as the CLI would


def run(scenario, dir=None, device=None, allow_writes=False, queue_depth=None,
        duration_s=None, verify=False, keep=False, timeline_ms=None):
    """Run a scenario for real, as ``sluice run`` does: its flows on real
    files through io_uring (a fresh folder in the current directory, or in
    ``dir``; removed afterwards unless ``keep``), or on the block device
    ``device`` (writers only with ``allow_writes``), under the same policy
    code as ``sim``. ``scenario`` is a path or a dict (as for ``sim``).
    ``queue_depth``, ``duration_s``, ``verify`` and ``timeline_ms`` are the
    CLI's ``--queue-depth``, ``--duration``, ``--verify`` and
    ``--timeline``. Blocks for the run's duration; returns the
    ``sluice.run/1`` dict; raises SluiceError on bad input or a failed
    run."""
    if isinstance(scenario, dict):
        job = {"toml_text": _dict_toml(scenario)}
    else:
        job = {"path": os.fspath(scenario)}
    fs = lambda p: None if p is None else os.fspath(p)
    out = _native.run_json(dir=fs(dir), device=fs(device), allow_writes=allow_writes,
                           queue_depth=queue_depth, duration_s=duration_s, verify=verify,
                           keep=keep, timeline_ms=timeline_ms, **job)
    return json.loads(out)


def repro(paper, quick=False):
    """Run a paper's experiments (``bfq``, ``yfq``, ``vios``, ``dor`` or
    ``all``); returns the ``sluice.repro/1`` dict, the paper's numbers
    beside ours."""
    return json.loads(_native.repro_json(paper, quick))


def sweep(scenarios, seeds=None, scheduler=None, address=None, timeline_ms=None):
    """Simulate every (scenario, seed) pair, each as a Ray task: a local Ray
    by default, or the cluster at ``address`` (``"auto"``, ``"ray://..."``;
    its workers need this package installed). ``seeds=None`` runs each
    scenario with its own seed. Returns the results in input order
    (scenario-major, then seed). Without Ray installed it runs them here,
    one after another, with a warning."""
    jobs = [_job(s) for s in scenarios]
    pairs = [(j, seed) for j in jobs for seed in (seeds if seeds is not None else [None])]
    try:
        import ray

        ray.remote  # a folder named ray on the path (Ray's own /tmp/ray) is not Ray
    except (ImportError, AttributeError):
        warnings.warn("sluice.sweep: Ray is not installed (pip install ray); running the "
                      "%d runs here, one after another" % len(pairs), RuntimeWarning, stacklevel=2)
        return [_run(j, seed, scheduler, timeline_ms) for j, seed in pairs]
    if not ray.is_initialized():
        kwargs = {"ignore_reinit_error": True, "log_to_driver": False}
        if address is None:
            kwargs["include_dashboard"] = False
        ray.init(address=address, **kwargs)
    task = ray.remote(_task)
    runs = ray.get([task.remote(j, seed, scheduler, timeline_ms) for j, seed in pairs])
    for r in runs:
        if _FAILED in r:
            raise SluiceError(r[_FAILED])
    return runs


_FAILED = "sluice_error"


def _task(job, seed, scheduler, timeline_ms):
    """``_run`` on a Ray worker. Bad input comes back as a value, so the
    caller gets a plain SluiceError with the one-line message, not Ray's
    wrapped traceback (which ``except SluiceError`` would not catch)."""
    try:
        return _run(job, seed, scheduler, timeline_ms)
    except SluiceError as e:
        return {_FAILED: str(e)}


def _flow_rows(r, extra=None):
    """One dict per flow of a sluice.sim/1 or sluice.run/1 result."""
    rows = []
    for f in r.get("flows", []):
        lat = f.get("lat_ms") or {}
        row = {
            "scenario": r.get("scenario"),
            "scheduler": r.get("scheduler"),
            "device": r.get("device"),
            "seed": r.get("seed"),
            "flow": f.get("name"),
            "weight": f.get("weight"),
            "requests": f.get("requests"),
            "bytes": f.get("bytes"),
            "mb_s": f.get("mb_s"),
            "disk_time_s": f.get("disk_time_s"),
            "lat_mean_ms": lat.get("mean"),
            "lat_p50_ms": lat.get("p50"),
            "lat_p95_ms": lat.get("p95"),
            "lat_p99_ms": lat.get("p99"),
            "lat_max_ms": lat.get("max"),
            "done_s": f.get("done_s"),
            "startup_s": f.get("startup_s"),
            "frames_dropped": f.get("frames_dropped"),
        }
        if extra:
            row.update(extra)
        rows.append(row)
    return rows


def frame(results):
    """Flatten results into a pandas DataFrame.

    - sim and run results (``sluice.sim/1``, ``sluice.run/1``, a dict or a
      list of them, as ``sim``, ``sweep`` and ``compare`` give): one row per
      flow per run, with the run's scenario, scheduler, device and seed;
    - ``sluice.repro/1`` (``repro``): one row per experiment row, ours
      beside the paper's;
    - ``sluice.versus/1``: one row per flow per run, with its engine and run.

    Anything else raises ValueError saying what it got."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("sluice.frame needs pandas (pip install pandas)") from e
    if isinstance(results, dict):
        results = [results]
    if not isinstance(results, (list, tuple)):
        raise ValueError("sluice.frame takes a result dict or a list of them, not %s" % type(results).__name__)
    rows = []
    for r in results:
        if not isinstance(r, dict):
            raise ValueError("sluice.frame: a result is a dict, not %s" % type(r).__name__)
        schema = r.get("schema")
        if schema in ("sluice.sim/1", "sluice.run/1") or (schema is None and "flows" in r):
            rows.extend(_flow_rows(r))
        elif schema == "sluice.repro/1":
            for e in r.get("experiments", []):
                for row in e.get("rows", []):
                    rows.append({"paper": e.get("paper"), "experiment": e.get("id"), "title": e.get("title"),
                                 "scheduler": row.get("scheduler"), "workload": row.get("workload"),
                                 "metric": row.get("metric"), "unit": row.get("unit"),
                                 "ours": row.get("ours"), "paper_value": row.get("paper")})
        elif schema == "sluice.versus/1":
            for run in r.get("runs", []):
                rows.extend(_flow_rows(run.get("result") or {},
                                       {"engine": run.get("engine"), "run": run.get("run")}))
        else:
            raise ValueError("sluice.frame: no table for a result with schema %r (it reads sluice.sim/1, "
                             "sluice.run/1, sluice.repro/1 and sluice.versus/1)" % (schema,))
    return pd.DataFrame(rows)
