"""sluice from Python: simulate disk schedulers, run them on real I/O,
reproduce the papers, read other tools' configurations, and sweep
scenarios x seeds on Ray.

A *scenario* is a path to a scenario file (TOML) or a dict with the same
keys, everywhere. Every result is the dict the ``sluice`` command prints
with ``--json``; ``frame`` and ``request_log`` give pandas DataFrames.

>>> import sluice
>>> r = sluice.sim({"name": "x", "duration_s": 2, "device": {"preset": "maxtor-stm332061"},
...                 "scheduler": {"name": "bfq"}, "flow": [{"name": "r", "pattern": "rand-read"}]})
>>> r["schema"], [f["name"] for f in r["flows"]]
('sluice.sim/1', ['r'])
"""

from __future__ import annotations

import io
import json
import os
import warnings
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Union, cast

from . import _native
from ._native import SluiceError

if TYPE_CHECKING:
    import pandas

__all__ = [
    "sim", "run", "repro", "sweep", "frame", "compare", "policies", "fio", "import_config",
    "report", "validate", "request_log", "fleet", "SluiceError", "Scenario", "Result", "Drawable",
]

#: A scenario: a scenario file's path, or a dict with a scenario file's keys
#: (``{"name": ..., "duration_s": ..., "device": {...}, "scheduler": {...},
#: "flow": [{...}]}``; relative paths in a dict resolve against the current
#: directory).
Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]

#: A result: the JSON object the ``sluice`` command prints, as a dict
#: (``sluice.sim/1``, ``sluice.run/1``, ``sluice.repro/1``, ...).
Result = dict[str, Any]


def _drop_none(v: Any) -> Any:
    """A dict without None values (a scenario file has no null)."""
    if isinstance(v, Mapping):
        return {k: _drop_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, (list, tuple)):
        return [_drop_none(x) for x in v]
    return v


def _one(text: str) -> Result:
    """A result from the native module's JSON."""
    return cast(Result, json.loads(text))


def _many(text: str) -> list[Result]:
    """A list of results from the native module's JSON."""
    return cast("list[Result]", json.loads(text))


def _plain(v: Any) -> Any:
    """A value JSON has no type for, as the scenario means it: a path as
    text, a NumPy number as a Python one."""
    if isinstance(v, os.PathLike):
        return os.fsdecode(v)
    if hasattr(v, "item") and callable(v.item):
        return v.item()
    raise TypeError("%r (a %s) is no scenario value" % (v, type(v).__name__))


def _source(scenario: Scenario) -> dict[str, str]:
    """The native functions' arguments for a scenario: its path, or its
    dict as JSON (read straight into the scenario builder)."""
    if isinstance(scenario, Mapping):
        try:
            return {"json_text": json.dumps(_drop_none(scenario), default=_plain, allow_nan=False)}
        except (TypeError, ValueError) as e:
            raise SluiceError("<dict>: %s" % e) from None
    try:
        return {"path": os.fsdecode(scenario)}
    except TypeError:
        raise SluiceError("a scenario is a path or a dict, not %s" % type(scenario).__name__) from None


def _path(p: Union[str, "os.PathLike[str]", None]) -> Optional[str]:
    return None if p is None else os.fsdecode(p)


def sim(scenario: Scenario, seed: Optional[int] = None, scheduler: Optional[str] = None,
        timeline_ms: Optional[int] = None) -> Result:
    """Simulate a scenario; returns the ``sluice.sim/1`` dict (what
    ``sluice sim FILE --json`` prints).

    ``seed`` and ``scheduler`` override the scenario's, as the CLI's
    ``--seed`` and ``--scheduler`` do (a new policy starts from its default
    parameters); ``timeline_ms`` adds each flow's throughput over time in
    bins of that many milliseconds, as ``--timeline`` does. Raises
    SluiceError with a one-line message on bad input.

    >>> import sluice
    >>> s = {"name": "two", "duration_s": 2, "device": {"preset": "maxtor-stm332061"},
    ...      "scheduler": {"name": "bfq"}, "flow": [{"name": "r", "count": 2, "pattern": "rand-read"}]}
    >>> r = sluice.sim(s, seed=2, timeline_ms=500)
    >>> r["seed"], len(r["flows"]), len(r["timeline"]["flows"]["r0"])
    (2, 2, 4)
    """
    return _simulate(_source(scenario), seed, scheduler, timeline_ms)


def _simulate(job: dict[str, str], seed: Optional[int], scheduler: Optional[str],
              timeline_ms: Optional[int]) -> Result:
    """One simulation of a job (see ``_job``); the task a sweep sends."""
    out = _native.sim_json(seed=seed, scheduler=scheduler, timeline_ms=timeline_ms, **job)
    return _one(out)


def _job(scenario: Scenario) -> dict[str, str]:
    """A scenario as a sweep sends it: its text, named by an absolute path
    whose folder relative paths in it resolve against, so a task gives the
    same result in any directory and, when the files it names are there
    too, on any machine of a cluster."""
    if isinstance(scenario, Mapping):
        return dict(_source(scenario), name=os.path.join(os.getcwd(), "<dict>"))
    path = os.path.abspath(_source(scenario)["path"])
    try:
        return {"toml_text": _native.read_text(path, "scenario"), "name": path}
    except SluiceError:
        return {"path": path}  # the task reports it as the CLI would


def run(scenario: Scenario, dir: Union[str, "os.PathLike[str]", None] = None,
        device: Union[str, "os.PathLike[str]", None] = None, allow_writes: bool = False,
        queue_depth: Optional[int] = None, duration_s: Optional[float] = None, verify: bool = False,
        keep: bool = False, timeline_ms: Optional[int] = None) -> Result:
    """Run a scenario for real, as ``sluice run`` does: its flows on real
    files through io_uring (a fresh folder in the current directory, or in
    ``dir``; removed afterwards unless ``keep``), or on the block device
    ``device`` (writers only with ``allow_writes``), under the same policy
    code as ``sim``. ``queue_depth``, ``duration_s``, ``verify`` and
    ``timeline_ms`` are the CLI's ``--queue-depth``, ``--duration``,
    ``--verify`` and ``--timeline``. Blocks for the run's duration; returns
    the ``sluice.run/1`` dict; raises SluiceError on bad input or a failed
    run.

    >>> import sluice, tempfile
    >>> s = {"name": "real", "duration_s": 0.5, "scheduler": {"name": "bfq"},
    ...      "flow": [{"name": "r", "pattern": "seq-read", "file_gib": 0.01}]}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     r = sluice.run(s, dir=d)
    >>> r["schema"], r["flows"][0]["name"]
    ('sluice.run/1', 'r')
    """
    out = _native.run_json(dir=_path(dir), device=_path(device), allow_writes=allow_writes,
                           queue_depth=queue_depth, duration_s=duration_s, verify=verify,
                           keep=keep, timeline_ms=timeline_ms, **_source(scenario))
    return _one(out)


def repro(paper: str, quick: bool = False) -> Result:
    """Run a paper's experiments (``"bfq"``, ``"yfq"``, ``"vios"``,
    ``"dor"`` or ``"all"``); returns the ``sluice.repro/1`` dict, the
    paper's numbers beside ours (``quick``: shorter runs, as ``--quick``).

    >>> import sluice
    >>> r = sluice.repro("vios", quick=True)
    >>> row = r["experiments"][0]["rows"][0]
    >>> sorted(row)
    ['metric', 'ours', 'paper', 'scheduler', 'unit', 'workload']
    """
    return _one(_native.repro_json(paper, quick))


def compare(scenario: Scenario, seed: Optional[int] = None) -> list[Result]:
    """The scenario under every policy, as ``sluice compare --json`` runs
    it: one ``sluice.sim/1`` dict per policy, in ``policies()`` order. The
    scenario's own policy keeps its ``[scheduler]`` parameters; the others
    start from their defaults. ``seed`` overrides the scenario's.

    >>> import sluice
    >>> s = {"name": "c", "duration_s": 1, "device": {"preset": "maxtor-stm332061"},
    ...      "scheduler": {"name": "bfq"}, "flow": [{"name": "r", "pattern": "rand-read"}]}
    >>> runs = sluice.compare(s)
    >>> [r["scheduler"] for r in runs][:3]
    ['noop', 'clook', 'sstf']
    """
    return _many(_native.compare_json(seed=seed, **_source(scenario)))


def policies() -> list[dict[str, Any]]:
    """Every policy a scenario may name, with its parameters, as ``sluice
    list`` prints them: ``{"name", "summary", "params": [{"name", "type",
    "default", "doc", "note", ...}]}``; ``type`` is ``"bool"``, ``"int"``,
    ``"float"`` (both with ``min`` and ``max``) or ``"choice"`` (with
    ``options``).

    >>> import sluice
    >>> bfq = next(p for p in sluice.policies() if p["name"] == "bfq+")
    >>> raising = next(q for q in bfq["params"] if q["name"] == "raising_mb")
    >>> raising["default"] == 24, raising["doc"] != ""
    (True, True)
    """
    return _many(_native.policies_json())


def validate(disk: str, trace: Union[str, "os.PathLike[str]"]) -> Result:
    """Replay a DiskSim validation trace (``R|W Hit block count
    measured_us interarrival_us`` lines) against a drive model, a preset
    name or a ``.diskspecs`` file, and score it with DiskSim's demerit
    (RMS distance between the response-time distributions of model and
    drive, ms); returns the ``sluice.validate/1`` dict, as ``sluice
    validate --json``.

    >>> import sluice
    >>> v = sluice.validate("ibm-dnes-309170w", "data/traces/ibm18es-validate-head.trace")
    >>> v["schema"], v["requests"], v["demerit_ms"] >= 0
    ('sluice.validate/1', 200, True)
    """
    return _one(_native.validate_json(disk, os.fsdecode(trace)))


def import_config(kind: str, path: Union[str, "os.PathLike[str]"],
                  io_properties: Union[str, "os.PathLike[str]", None] = None, shards: int = 1,
                  duration_s: float = 10.0) -> dict[str, Any]:
    """Another scheduler's own test configuration as a scenario dict, as
    ``sluice import`` reads it (the dict ``sim``, ``run`` and ``compare``
    take): ``kind="dmclock"`` reads dmClock's simulator configuration
    (``path``: its ``.conf``); ``kind="seastar"`` reads Seastar's io_tester
    job file (``path``) with its ``io_properties`` file, io_tester's
    ``--smp`` as ``shards`` and ``--duration`` as ``duration_s``. What was
    approximated comes as one UserWarning.

    >>> import sluice, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     s = sluice.import_config("dmclock", "data/import/dmc_sim_example.conf")
    >>> s["scheduler"]["name"], len(sluice.sim(s)["flows"]) > 0
    ('mclock', True)
    """
    out = _one(_native.import_json(kind, os.fsdecode(path), _path(io_properties), shards,
                                    duration_s))
    if out["notes"]:
        warnings.warn("sluice.import_config(%r, %r) approximates: %s" % (
            kind, os.fsdecode(path), "; ".join(out["notes"])), UserWarning, stacklevel=2)
    return cast("dict[str, Any]", out["scenario"])


def fio(jobfile: Union[str, "os.PathLike[str]"], scheduler: Optional[str] = None,
        device: Optional[str] = None, max_duration_s: Optional[float] = None) -> Result:
    """Simulate a fio job file and return fio's own JSON layout (``"fio
    version"``, ``"jobs"``: one per job with its ``"read"`` and ``"write"``
    statistics, ...), as ``sluice fio FILE --output-format json`` prints it,
    so tools written for fio read it. ``scheduler`` is the policy between
    the jobs and the drive (default ``"noop"``); ``device`` a preset's name
    or a ``.diskspecs`` file (default the BFQ paper's disk,
    ``maxtor-stm332061``); ``max_duration_s`` cuts each group of jobs short
    (a quick look at long jobs).

    >>> import sluice, tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     job = os.path.join(d, "rand.fio")
    ...     with open(job, "w") as f:
    ...         _ = f.write("[rand]\\nrw=randread\\nbs=4k\\nsize=64m\\nruntime=2\\n")
    ...     out = sluice.fio(job, scheduler="bfq")
    >>> [j["jobname"] for j in out["jobs"]], out["jobs"][0]["read"]["iops"] > 0
    (['rand'], True)
    """
    return _one(_native.fio_json(os.fsdecode(jobfile), scheduler, device, max_duration_s))


#: What ``report`` draws: a result dict, a list of them (a ``compare``
#: array: one section, the policies side by side), a request log
#: (``request_log``'s DataFrame), or a path to a result (JSON) or log (CSV).
Drawable = Union[Mapping[str, Any], Sequence[Mapping[str, Any]], "pandas.DataFrame", str, "os.PathLike[str]"]


def report(results: Union[Drawable, Sequence[Drawable]], path: Union[str, "os.PathLike[str]"]) -> None:
    """Write the HTML page ``sluice report`` draws (self-contained: inline
    SVG and CSS) to ``path``, replacing a file there: per run, its flows'
    table, finite flows' times, latency CDFs, throughput over time (for a
    run with ``timeline_ms``) and shares against weights; per ``compare``
    list, the policies side by side; per ``repro`` experiment, the paper's
    numbers beside ours; per request log, the order the disk served the
    flows. ``results`` is one of those or a list of them (so a ``compare``
    list given as ``results`` is one section per run; in a list of its own,
    one section side by side). Raises SluiceError on a result it cannot
    read.

    >>> import sluice, tempfile, os
    >>> s = {"name": "rep", "duration_s": 2, "device": {"preset": "maxtor-stm332061"},
    ...      "scheduler": {"name": "bfq"}, "flow": [{"name": "r", "count": 2, "pattern": "rand-read"}]}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     page = os.path.join(d, "report.html")
    ...     sluice.report([sluice.sim(s, timeline_ms=500), [sluice.sim(s, scheduler="noop")],
    ...                    sluice.request_log(s)], page)
    ...     html = open(page, encoding="utf-8").read()
    >>> html.startswith("<!DOCTYPE html>"), "<svg" in html
    (True, True)
    """
    one = isinstance(results, (Mapping, str, os.PathLike)) or hasattr(results, "to_csv")
    items: Sequence[Any] = [results] if one else results  # type: ignore[assignment]
    sources = [_report_source(i, item) for i, item in enumerate(items, 1)]
    html = _native.report_html(sources)
    with open(path, "w", encoding="utf-8") as f:
        f.write(html)


def _report_source(i: int, item: Any) -> tuple[str, str]:
    """(name, text) of one thing to draw, the name as the page shows it."""
    if isinstance(item, (str, os.PathLike)):
        name = os.fsdecode(item)
        return name, _native.read_text(name, "request-log" if name.endswith(".csv") else "report")
    if hasattr(item, "to_csv"):
        return "request-log-%d.csv" % i, item.to_csv(index=False)
    if isinstance(item, Mapping):
        what = item.get("scenario") or item.get("paper") or item.get("schema") or "result"
        extra = item.get("scheduler")
        name = "%s (%s)" % (what, extra) if isinstance(extra, str) else str(what)
    elif isinstance(item, (list, tuple)) and all(isinstance(r, Mapping) for r in item):
        name = "compare %s" % (item[0].get("scenario") if item else "")
    else:
        raise SluiceError("sluice.report draws result dicts, lists of them, request logs and files, not %s"
                          % type(item).__name__)
    if name.endswith(".csv"):
        name += " (JSON)"  # the report takes a name ending in .csv for a log
    return "%d. %s" % (i, name), json.dumps(item)


def request_log(scenario: Scenario, seed: Optional[int] = None,
                scheduler: Optional[str] = None) -> "pandas.DataFrame":
    """Simulate a scenario and return every completed request, one row
    each in completion order, with the columns of the CSV ``sluice sim
    --log-requests`` writes: ``flow`` (its name; ``(writeback)`` for the
    page cache's), ``thread``, ``dir`` (``R``/``W``), ``sync`` (0/1),
    ``sector``, ``sectors``, ``arrival_ms``, ``dispatched_ms`` and
    ``completed_ms``. ``seed`` and ``scheduler`` as for ``sim``.

    >>> import sluice
    >>> s = {"name": "log", "duration_s": 1, "device": {"preset": "maxtor-stm332061"},
    ...      "scheduler": {"name": "bfq"}, "flow": [{"name": "r", "count": 2, "pattern": "rand-read"}]}
    >>> df = sluice.request_log(s)
    >>> sorted(set(df["flow"])), bool((df["completed_ms"] >= df["dispatched_ms"]).all())
    (['r0', 'r1'], True)
    """
    pd = _pandas("request_log")
    csv = _native.request_log_csv(seed=seed, scheduler=scheduler, **_source(scenario))
    # Flow names are text, whatever they look like ("1", "NA").
    return pd.read_csv(io.StringIO(csv), dtype={"flow": str, "dir": str}, keep_default_na=False)


def sweep(scenarios: Iterable[Scenario], seeds: Optional[Sequence[int]] = None,
          scheduler: Optional[str] = None, address: Optional[str] = None,
          timeline_ms: Optional[int] = None) -> list[Result]:
    """Simulate every (scenario, seed) pair, each as a Ray task: a local Ray
    by default, or the cluster at ``address`` (``"auto"``, ``"ray://..."``;
    its workers need this package installed). ``seeds=None`` runs each
    scenario with its own seed. Returns the ``sluice.sim/1`` dicts in input
    order (scenario-major, then seed). Without Ray installed it runs them
    here, one after another, with a RuntimeWarning.

    >>> import sluice
    >>> s = {"name": "s", "duration_s": 1, "device": {"preset": "maxtor-stm332061"},
    ...      "scheduler": {"name": "bfq"}, "flow": [{"name": "r", "pattern": "rand-read"}]}
    >>> [r["seed"] for r in sluice.sweep([s], seeds=[1, 2])]
    [1, 2]
    """
    jobs = [_job(s) for s in scenarios]
    pairs = [(j, seed) for j in jobs for seed in (seeds if seeds is not None else [None])]
    try:
        import ray

        ray.remote  # a folder named ray on the path (Ray's own /tmp/ray) is not Ray
    except (ImportError, AttributeError):
        warnings.warn("sluice.sweep: Ray is not installed (pip install ray); running the "
                      "%d runs here, one after another" % len(pairs), RuntimeWarning, stacklevel=2)
        return [_simulate(j, seed, scheduler, timeline_ms) for j, seed in pairs]
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False}
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


def fleet(scenario: Scenario, address: Optional[str] = None, workers: Optional[int] = None) -> Result:
    """Replay a fleet scenario (a ``[fleet]`` table: a trace's volumes
    placed on nodes) and return the ``sluice.fleet/1`` dict that ``sluice
    fleet FILE --json`` prints.

    Without ``address`` the nodes run here, on ``workers`` threads (default:
    the machine's cores). With ``address`` (``"auto"``, ``"ray://..."`` or
    ``"HOST:PORT"``) the trace is read and placed here, and each node runs
    as one Ray task of that cluster (its workers need this package
    installed; only the node's requests travel, not the trace file). The
    volumes and nodes are the same whatever runs them; only ``perf``
    differs. A progress line on stderr (when it is a terminal) counts the
    nodes done.

    >>> import sluice
    >>> r = sluice.fleet("scenarios/fleet/alibaba-sample.toml", workers=2)
    >>> r["schema"], len(r["nodes"]), sum(v["requests"] for v in r["volumes"])
    ('sluice.fleet/1', 2, 24)
    """
    src = _fleet_source(scenario)
    if address is None:
        r = _one(_native.fleet_json(workers=workers, **src))
        r["perf"]["peak_rss_mib"] = r["perf"]["worker_peak_rss_mib"] = _peak_rss_mib()
        return r
    try:
        import ray

        ray.remote  # a folder named ray on the path (Ray's own /tmp/ray) is not Ray
    except (ImportError, AttributeError):
        raise SluiceError("sluice.fleet(address=%r): Ray is not installed (pip install ray)"
                          % address) from None
    import time

    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    summary, jobs = _native.fleet_plan(**src)
    start = time.perf_counter()
    task = ray.remote(_fleet_task)
    pending = [task.remote(j) for j in jobs]
    del jobs  # the object store holds them now
    index = {ref: i for i, ref in enumerate(pending)}
    results: list[Optional[str]] = [None] * len(pending)
    progress = _Progress("fleet", len(pending))
    worker_rss = 0.0
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            out, rss = ray.get(ref)
            if out.startswith(_FAILED):
                raise SluiceError(out[len(_FAILED) + 1:])
            results[index[ref]] = out
            worker_rss = max(worker_rss, rss)
        progress.set(len(results) - len(pending))
    progress.close()
    wall = time.perf_counter() - start
    done = [r for r in results if r is not None]
    return _one(_native.fleet_merge(summary, done, wall, "ray", len(done), _peak_rss_mib(), worker_rss))


def _peak_rss_mib() -> float:
    """This process's peak resident memory, MiB (0 where unknown)."""
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    except (ImportError, OSError):
        return 0.0


def _fleet_source(scenario: Scenario) -> dict[str, str]:
    """A fleet scenario for the native functions: a path, or a dict's JSON
    named after the current directory (where its relative paths resolve)."""
    src = _source(scenario)
    if "json_text" in src:
        src["name"] = os.path.join(os.getcwd(), "<dict>")
    return src


def _fleet_task(job: bytes) -> tuple[str, float]:
    """One node of a fleet on a Ray worker: its result's JSON, or the
    one-line error after a marker (a plain SluiceError for the caller, not
    Ray's wrapped traceback); and the worker's peak memory, MiB."""
    try:
        out = _native.fleet_node(job)
    except SluiceError as e:
        out = "%s %s" % (_FAILED, e)
    return out, _peak_rss_mib()


class _Progress:
    """``label: k/N nodes`` on stderr, redrawn in place, when stderr is a
    terminal (results are the same either way)."""

    def __init__(self, label: str, total: int) -> None:
        import sys

        self.label, self.total = label, total
        self.out = sys.stderr
        self.tty = hasattr(self.out, "isatty") and self.out.isatty()

    def set(self, done: int) -> None:
        if self.tty:
            self.out.write("\r%s: %d/%d nodes" % (self.label, done, self.total))
            self.out.flush()

    def close(self) -> None:
        if self.tty:
            self.out.write("\n")


def _task(job: dict[str, str], seed: Optional[int], scheduler: Optional[str],
          timeline_ms: Optional[int]) -> Result:
    """``_simulate`` on a Ray worker. Bad input comes back as a value, so
    the caller gets a plain SluiceError with the one-line message, not
    Ray's wrapped traceback (which ``except SluiceError`` would not
    catch)."""
    try:
        return _simulate(job, seed, scheduler, timeline_ms)
    except SluiceError as e:
        return {_FAILED: str(e)}


def _pandas(caller: str) -> Any:
    try:
        import pandas
    except ImportError as e:
        raise ImportError("sluice.%s needs pandas (pip install pandas)" % caller) from e
    return pandas


def _flatten(key: str, value: Any, out: dict[str, Any]) -> None:
    """``value`` under column ``key``; a dict's entries each under a column
    of their own, joined with ``_`` and keeping a ``_ms``/``_s`` unit last
    (``lat_ms: {"p99": ...}`` is ``lat_p99_ms``). Lists stay one cell."""
    if not isinstance(value, Mapping):
        out[key] = value
        return
    for unit in ("_ms", "_s"):
        if key.endswith(unit):
            stem = key[: -len(unit)]
            for k, v in value.items():
                _flatten("%s_%s%s" % (stem, k, unit), v, out)
            return
    for k, v in value.items():
        _flatten("%s_%s" % (key, k) if key else k, v, out)


# Run-level keys that lead each row, in this order.
_LEAD = ("scenario", "scheduler", "device", "seed")


def _flow_rows(r: Mapping[str, Any], extra: Optional[Mapping[str, Any]] = None) -> list[dict[str, Any]]:
    """One dict per flow of a sluice.sim/1 or sluice.run/1 result: the
    run's identity, then every key of the flow (``name`` as ``flow``), its
    throughput timeline when the run has one (``timeline_mb_s``, a list),
    then every other key of the run (``aggregate_mb_s``, ...; the run's
    total timeline as ``aggregate_timeline_mb_s``)."""
    lead = {k: r.get(k) for k in _LEAD}
    rest: dict[str, Any] = {}
    timeline = r.get("timeline") or {}
    for k, v in r.items():
        if k in _LEAD or k in ("schema", "flows", "timeline"):
            continue
        _flatten("aggregate_timeline_mb_s" if k == "timeline_mb_s" else k, v, rest)
    if timeline:
        rest["timeline_interval_s"] = timeline.get("interval_s")
    rows = []
    for f in r.get("flows", []):
        row = dict(lead)
        if extra:
            row.update(extra)
        row["flow"] = f.get("name")
        for k, v in f.items():
            if k != "name":
                _flatten(k, v, row)
        if timeline:
            row["timeline_mb_s"] = (timeline.get("flows") or {}).get(f.get("name"))
        for k, v in rest.items():
            row.setdefault(k, v)
        rows.append(row)
    return rows


def _repro_rows(r: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One dict per experiment row of a sluice.repro/1 result: the
    experiment's keys (``id`` as ``experiment``), then the row's (the
    paper's number as ``paper_value``)."""
    rows = []
    for e in r.get("experiments", []):
        head: dict[str, Any] = {}
        for k, v in e.items():
            if k != "rows":
                _flatten("experiment" if k == "id" else k, v, head)
        for row in e.get("rows", []):
            out = dict(head)
            for k, v in row.items():
                _flatten("paper_value" if k == "paper" else k, v, out)
            rows.append(out)
    return rows


def frame(results: Union[Result, Sequence[Result]]) -> "pandas.DataFrame":
    """Flatten results into a pandas DataFrame with every column they have.

    - sim and run results (``sluice.sim/1``, ``sluice.run/1``, a dict or a
      list of them, as ``sim``, ``run``, ``sweep`` and ``compare`` give):
      one row per flow per run. Columns: the run's ``scenario``,
      ``scheduler``, ``device`` and ``seed``; ``flow`` (its name) and every
      key the flow has (``requests``, ``mb_s``, ``over_1s``, ``done_s``,
      ``startup_s``, ``startups``, ``frames``, ``frames_dropped``, ...;
      nested objects flattened: ``lat_ms`` gives ``lat_mean_ms``,
      ``lat_p99_ms``, ``lat_cdf_ms``, ...); with a timeline, the flow's
      ``timeline_mb_s`` (a list per cell) and ``timeline_interval_s``; then
      the run's other keys (``aggregate_mb_s``, ``sim_time_s``, ...). A
      column a flow does not have is None (start-up columns of a reader);
    - ``sluice.repro/1`` (``repro``): one row per experiment row, ours
      beside the paper's (``ours``, ``paper_value``);
    - ``sluice.versus/1``: one row per flow per run, with its ``engine``
      and ``run``.

    Anything else raises ValueError saying what it got.

    >>> import sluice
    >>> s = {"name": "f", "duration_s": 3, "device": {"preset": "maxtor-stm332061"},
    ...      "scheduler": {"name": "bfq"}, "flow": [{"name": "r", "pattern": "seq-read"},
    ...      {"name": "app", "pattern": "startup", "trace": "xterm", "start_s": 1}]}
    >>> df = sluice.frame(sluice.sim(s))
    >>> list(df["flow"]), df["startup_s"].notna().tolist(), "lat_p99_ms" in df
    (['r', 'app'], [False, True], True)
    """
    pd = _pandas("frame")
    if isinstance(results, Mapping):
        results = [results]
    if not isinstance(results, (list, tuple)):
        raise ValueError("sluice.frame takes a result dict or a list of them, not %s" % type(results).__name__)
    rows: list[dict[str, Any]] = []
    for r in results:
        if not isinstance(r, Mapping):
            raise ValueError("sluice.frame: a result is a dict, not %s" % type(r).__name__)
        schema = r.get("schema")
        if schema in ("sluice.sim/1", "sluice.run/1") or (schema is None and "flows" in r):
            rows.extend(_flow_rows(r))
        elif schema == "sluice.repro/1":
            rows.extend(_repro_rows(r))
        elif schema == "sluice.versus/1":
            for one in r.get("runs", []):
                rows.extend(_flow_rows(one.get("result") or {},
                                       {"engine": one.get("engine"), "run": one.get("run")}))
        else:
            raise ValueError("sluice.frame: no table for a result with schema %r (it reads sluice.sim/1, "
                             "sluice.run/1, sluice.repro/1 and sluice.versus/1)" % (schema,))
    return pd.DataFrame(rows)
