"""Types of ``sluice._native``, the package's native module (Rust, PyO3).

Each function returns text the ``sluice`` command would print: the JSON of
a report, or the request log's CSV. ``sluice/__init__.py`` parses it; use
the functions there. A scenario is given as exactly one of ``path`` (a
file), ``json_text`` (a dict's JSON) or, for ``sim_json``, ``toml_text`` (a
file's text); ``name`` names the text in errors and relative paths in it
resolve against its folder."""

from typing import Optional

class SluiceError(Exception):
    """Bad input to sluice (one line: file, key, what was expected)."""

def sim_json(
    path: Optional[str] = None,
    json_text: Optional[str] = None,
    toml_text: Optional[str] = None,
    name: Optional[str] = None,
    seed: Optional[int] = None,
    scheduler: Optional[str] = None,
    timeline_ms: Optional[int] = None,
) -> str:
    """Simulate a scenario; ``sluice.sim/1`` JSON."""

def compare_json(
    path: Optional[str] = None,
    json_text: Optional[str] = None,
    name: Optional[str] = None,
    seed: Optional[int] = None,
) -> str:
    """The scenario under every policy; a JSON array of ``sluice.sim/1``."""

def request_log_csv(
    path: Optional[str] = None,
    json_text: Optional[str] = None,
    name: Optional[str] = None,
    seed: Optional[int] = None,
    scheduler: Optional[str] = None,
) -> str:
    """Simulate a scenario; its request log as CSV, header first."""

def validate_json(disk: str, trace: str) -> str:
    """Score a drive model (preset or .diskspecs) on a DiskSim trace;
    ``sluice.validate/1`` JSON."""

def repro_json(paper: str, quick: bool = False) -> str:
    """Reproduce a paper's experiments; ``sluice.repro/1`` JSON."""

def run_json(
    path: Optional[str] = None,
    json_text: Optional[str] = None,
    name: Optional[str] = None,
    dir: Optional[str] = None,
    device: Optional[str] = None,
    allow_writes: bool = False,
    queue_depth: Optional[int] = None,
    duration_s: Optional[float] = None,
    verify: bool = False,
    keep: bool = False,
    timeline_ms: Optional[int] = None,
) -> str:
    """Run a scenario on real I/O; ``sluice.run/1`` JSON."""

def policies_json() -> str:
    """Every policy with its parameter table, as JSON."""

def import_json(
    kind: str,
    path: str,
    io_properties: Optional[str] = None,
    shards: int = 1,
    duration_s: float = 10.0,
) -> str:
    """A scenario from dmClock's or Seastar's configuration:
    ``{"scenario": {...}, "notes": [...]}`` as JSON."""

def fio_json(
    path: str,
    scheduler: Optional[str] = None,
    device: Optional[str] = None,
    max_duration_s: Optional[float] = None,
) -> str:
    """Simulate a fio job file; fio's JSON layout."""

def report_html(sources: list[tuple[str, str]]) -> str:
    """The HTML report of (name, text) sources: JSON results or request-log
    CSVs."""
def read_text(path: str, kind: str) -> str: ...

def fleet_json(
    path: Optional[str] = None,
    json_text: Optional[str] = None,
    name: Optional[str] = None,
    workers: Optional[int] = None,
) -> str:
    """Run a fleet scenario on local threads; ``sluice.fleet/1`` JSON."""

def fleet_plan(
    path: Optional[str] = None,
    json_text: Optional[str] = None,
    name: Optional[str] = None,
) -> tuple[str, list[bytes]]:
    """A fleet cut into jobs: the summary's JSON and one job's bytes per node."""

def fleet_node(job: bytes) -> str:
    """Run one node's job; its result's JSON."""

def fleet_merge(
    summary: str,
    results: list[str],
    wall_s: float,
    runner: str,
    workers: int,
    peak_rss_mib: float = 0.0,
    worker_peak_rss_mib: float = 0.0,
) -> str:
    """Merge the nodes' results as the CLI does; ``sluice.fleet/1`` JSON."""
