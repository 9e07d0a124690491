"""Tests of the Python package (run with pytest after `pip install ./python`)."""
import json
import os
import pickle
import shutil
import subprocess
import sys
import types

import pytest

import sluice

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "scenarios", "1r-seq.toml")

SMALL = {
    "name": "small", "seed": 3, "duration_s": 2, "warmup_s": 0,
    "device": {"preset": "maxtor-stm332061"},
    "scheduler": {"name": "bfq"},
    "flow": [{"name": "r", "count": 2, "pattern": "rand-read", "request_kib": 4, "weight": None}],
}


def test_sim_of_a_file_is_deterministic():
    a, b = sluice.sim(SCENARIO), sluice.sim(SCENARIO)
    assert a["schema"] == "sluice.sim/1"
    a.pop("perf"), b.pop("perf")
    assert a == b
    assert a["flows"][0]["bytes"] > 0


def test_sim_matches_the_cli_when_built():
    built = [os.path.join(ROOT, "target", kind, "sluice") for kind in ("release", "debug")]
    exe = next((p for p in built if os.path.exists(p)), shutil.which("sluice"))
    if not exe:
        pytest.skip("the sluice binary is not built (cargo build)")
    cli = json.loads(subprocess.run([exe, "sim", SCENARIO, "--json"], capture_output=True, text=True, check=True).stdout)
    ours = sluice.sim(SCENARIO)
    assert [f["bytes"] for f in ours["flows"]] == [f["bytes"] for f in cli["flows"]]


def test_a_dict_is_a_scenario_and_overrides_apply():
    r = sluice.sim(SMALL)
    assert [f["name"] for f in r["flows"]] == ["r0", "r1"]
    assert r["seed"] == 3 and r["scheduler"] == "bfq"
    other = sluice.sim(SMALL, seed=4, scheduler="noop")
    assert other["seed"] == 4 and other["scheduler"] == "noop"
    assert other["flows"][0]["requests"] != r["flows"][0]["requests"] or other["flows"] != r["flows"]


def test_bad_input_raises_sluice_error_with_the_message():
    with pytest.raises(sluice.SluiceError, match="weight must be 1..=1000"):
        sluice.sim(dict(SMALL, flow=[{"name": "r", "pattern": "rand-read", "weight": 0}]))
    with pytest.raises(sluice.SluiceError, match="no-such-file"):
        sluice.sim("no-such-file.toml")
    with pytest.raises(sluice.SluiceError, match="unknown policy"):
        sluice.sim(SMALL, scheduler="nope")


def test_the_error_pickles_as_sluice_sluice_error():
    e = pickle.loads(pickle.dumps(sluice.SluiceError("a.toml: bad")))
    assert isinstance(e, sluice.SluiceError) and str(e) == "a.toml: bad"


REAL = {
    "name": "real", "seed": 1, "duration_s": 1, "device": {"preset": "maxtor-stm332061"},
    "scheduler": {"name": "bfq"},
    "flow": [{"name": "r", "pattern": "seq-read", "request_kib": 128, "file_gib": 0.01},
             {"name": "w", "pattern": "seq-write", "request_kib": 128, "file_gib": 0.01}],
}


def test_run_does_real_io_in_the_given_folder_and_leaves_it_empty(tmp_path):
    r = sluice.run(REAL, dir=tmp_path, verify=True)
    assert r["schema"] == "sluice.run/1"
    assert r["aggregate"]["requests"] > 0
    assert {f["name"] for f in r["flows"]} == {"r", "w"}
    assert r["engine"]["verify_errors"] == 0 and r["engine"]["verified_blocks"] > 0
    assert os.listdir(tmp_path) == []


def test_run_refuses_what_the_cli_refuses(tmp_path):
    # The library names its options as run's keywords are named.
    with pytest.raises(sluice.SluiceError, match="`dir` .*missing: no such directory"):
        sluice.run(REAL, dir=tmp_path / "missing")
    with pytest.raises(sluice.SluiceError, match="`queue_depth` must be"):
        sluice.run(REAL, dir=tmp_path, queue_depth=0)


def test_repro_has_the_paper_beside_ours():
    r = sluice.repro("vios", quick=True)
    assert r["schema"] == "sluice.repro/1"
    rows = [row for e in r["experiments"] for row in e["rows"]]
    assert any(row["paper"] is not None for row in rows)
    # Each claim of the paper, held or not; one not held says why.
    claims = r["claims"]
    assert len(claims) >= 4
    for c in claims:
        assert {"experiment", "statement", "ours", "paper", "held", "why"} <= set(c)
        assert c["held"] or c["why"]


def test_sweep_without_ray_runs_here_in_order(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    with pytest.warns(RuntimeWarning, match="Ray is not installed"):
        runs = sluice.sweep([SMALL], seeds=[1, 2])
    assert [r["seed"] for r in runs] == [1, 2]


def test_a_module_named_ray_that_is_not_ray_is_no_ray(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", types.ModuleType("ray"))  # e.g. the folder /tmp/ray
    with pytest.warns(RuntimeWarning, match="Ray is not installed"):
        assert len(sluice.sweep([SMALL], seeds=[1])) == 1


def test_sweep_keeps_each_scenarios_own_seed_unless_given(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.warns(RuntimeWarning):
        own = sluice.sweep([SMALL, dict(SMALL, seed=5)])
    assert [r["seed"] for r in own] == [3, 5]
    assert own[0]["flows"] == sluice.sim(SMALL)["flows"]


def local_ray():
    ray = pytest.importorskip("ray")
    if not hasattr(ray, "remote"):
        pytest.skip("the ray on sys.path is a folder, not Ray")
    # A local Ray cluster otherwise writes an auth token to ~/.ray, after
    # which `ray start --head` clusters refuse their own nodes (Ray 2.60).
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    return ray


# A dict naming a trace relative to the repository root.
TRACE = {
    "name": "trace", "seed": 1, "duration_s": 10, "warmup_s": 0,
    "device": {"preset": "maxtor-stm332061"}, "scheduler": {"name": "bfq"},
    "flow": [{"name": "app", "pattern": "trace", "trace": "data/traces/app.blkparse",
              "format": "blkparse", "timing": "afap", "outstanding": 4}],
}


def test_a_dicts_paths_resolve_where_the_sweep_was_called(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    here = sluice.sim(TRACE)
    assert here["flows"][0]["requests"] > 0
    monkeypatch.chdir(tmp_path)
    with pytest.raises(sluice.SluiceError, match="app.blkparse"):
        sluice.sim(TRACE)  # relative to the current directory, now elsewhere
    ray = local_ray()
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False, num_cpus=2)  # workers stay in tmp_path
    monkeypatch.chdir(ROOT)
    runs = sluice.sweep([TRACE, os.path.join("scenarios", "trace-blkparse.toml")], seeds=[1])
    assert runs[0]["flows"][0]["bytes"] == here["flows"][0]["bytes"]
    assert runs[1]["flows"][0]["bytes"] == here["flows"][0]["bytes"]


def test_sweep_on_ray_is_in_input_order_and_bad_input_is_a_sluice_error():
    ray = local_ray()
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False, num_cpus=2)
    runs = sluice.sweep([SMALL, dict(SMALL, scheduler={"name": "noop"})], seeds=[2, 1])
    assert [(r["scheduler"], r["seed"]) for r in runs] == [("bfq", 2), ("bfq", 1), ("noop", 2), ("noop", 1)]
    assert runs[1]["flows"] == sluice.sim(SMALL, seed=1)["flows"]
    with pytest.raises(sluice.SluiceError, match="weight must be 1..=1000"):
        sluice.sweep([dict(SMALL, flow=[{"name": "r", "pattern": "rand-read", "weight": 0}])], seeds=[1])


def test_frame_has_a_row_per_flow_per_run():
    pd = pytest.importorskip("pandas")
    runs = [sluice.sim(SMALL, seed=s) for s in (1, 2)]
    df = sluice.frame(runs)
    assert isinstance(df, pd.DataFrame)
    assert len(df) == 4
    assert list(df["seed"]) == [1, 1, 2, 2]
    assert (df["bytes"] > 0).all()


def test_frame_reads_every_result_kind_or_says_why_not():
    pytest.importorskip("pandas")
    sim = sluice.sim(SMALL, seed=1)
    versus = {"schema": "sluice.versus/1", "runs": [
        {"engine": "sim", "scheduler": "bfq", "run": 1, "result": sim},
        {"engine": "kernel", "scheduler": "bfq", "run": 1, "result": sim}]}
    df = sluice.frame(versus)
    assert list(df["engine"]) == ["sim", "sim", "kernel", "kernel"]
    repro = {"schema": "sluice.repro/1", "experiments": [
        {"paper": "bfq", "id": "x", "title": "t", "rows": [
            {"scheduler": "bfq", "workload": "w", "metric": "m", "unit": "s", "ours": 1.0, "paper": 2.0}]}]}
    df = sluice.frame(repro)
    assert (df["ours"].tolist(), df["paper_value"].tolist()) == ([1.0], [2.0])
    with pytest.raises(ValueError, match="schema 'nonsense'"):
        sluice.frame({"schema": "nonsense"})
    with pytest.raises(ValueError, match="not int"):
        sluice.frame(3)


# A dict of one reader and a start-up (the xterm trace built in).
STARTUP = {
    "name": "startup", "seed": 1, "duration_s": 3, "device": {"preset": "maxtor-stm332061"},
    "scheduler": {"name": "bfq"},
    "flow": [{"name": "r", "pattern": "seq-read"},
             {"name": "app", "pattern": "startup", "trace": "xterm", "start_s": 1},
             {"name": "v", "pattern": "video", "clip_s": 1}],
}


def test_a_dict_is_read_as_the_same_scenario_file(tmp_path):
    toml = tmp_path / "small.toml"
    toml.write_text('name = "small"\nseed = 3\nduration_s = 2\nwarmup_s = 0\n'
                    '[device]\npreset = "maxtor-stm332061"\n[scheduler]\nname = "bfq"\ntimeout_ms = 5\n'
                    '[[flow]]\nname = "r"\ncount = 2\npattern = "rand-read"\nrequest_kib = 4\n')
    as_dict = dict(SMALL, scheduler={"name": "bfq", "timeout_ms": 5})
    a, b = sluice.sim(as_dict), sluice.sim(toml)
    a.pop("perf"), b.pop("perf")
    assert a == b
    assert a["flows"] != sluice.sim(SMALL)["flows"]  # the parameter reached the policy


def test_a_dicts_unknown_key_is_named_in_the_error():
    with pytest.raises(sluice.SluiceError, match="<dict>: unknown field `wieght`"):
        sluice.sim(dict(SMALL, flow=[{"name": "r", "pattern": "rand-read", "wieght": 3}]))
    with pytest.raises(sluice.SluiceError, match="a path or a dict, not int"):
        sluice.sim(3)


def test_a_dict_may_hold_paths_and_numpy_numbers():
    import pathlib
    np = pytest.importorskip("numpy")
    trace = dict(TRACE, flow=[dict(TRACE["flow"][0], trace=pathlib.Path(ROOT) / "data" / "traces" / "app.blkparse",
                                   outstanding=np.int64(4))])
    r = sluice.sim(dict(trace, seed=np.int64(2)))
    assert r["seed"] == 2 and r["flows"][0]["requests"] > 0
    with pytest.raises(sluice.SluiceError, match="<dict>: .*set.* is no scenario value"):
        sluice.sim(dict(SMALL, seed={1}))


def test_compare_runs_every_policy_and_keeps_its_own_parameters():
    tuned = dict(SMALL, scheduler={"name": "bfq", "timeout_ms": 5})
    runs = sluice.compare(tuned, seed=2)
    names = [p["name"] for p in sluice.policies()]
    assert [r["scheduler"] for r in runs] == names and len(runs) >= 10
    assert all(r["seed"] == 2 for r in runs)
    own = runs[names.index("bfq")]["flows"]
    assert own == sluice.sim(tuned, seed=2)["flows"] != sluice.sim(SMALL, seed=2)["flows"]
    assert runs[names.index("noop")]["flows"] == sluice.sim(SMALL, seed=2, scheduler="noop")["flows"]


def test_policies_list_every_parameter_with_its_default_and_doc():
    ps = sluice.policies()
    assert len(ps) >= 15 and len({p["name"] for p in ps}) == len(ps)
    bfq = next(p for p in ps if p["name"] == "bfq+")
    assert bfq["summary"] and len(bfq["params"]) >= 20
    assert all(q["doc"] and "default" in q and q["type"] in ("bool", "int", "float", "choice") for q in bfq["params"])
    for q in bfq["params"]:
        if q["type"] in ("int", "float"):
            assert q["min"] <= q["default"] <= q["max"], q
        if q["type"] == "choice":
            assert q["default"] in q["options"], q
    # Every default is accepted back as the scenario's parameter.
    defaults = {q["name"]: q["default"] for q in bfq["params"]}
    assert sluice.sim(dict(SMALL, scheduler=dict(defaults, name="bfq+")))["scheduler"] == "bfq+"


def test_validate_scores_a_preset_and_names_a_bad_disk():
    v = sluice.validate("ibm-dnes-309170w", os.path.join(ROOT, "data", "traces", "ibm18es-validate-head.trace"))
    assert v["schema"] == "sluice.validate/1" and v["requests"] > 0 and v["demerit_ms"] >= 0
    with pytest.raises(sluice.SluiceError, match="neither a preset"):
        sluice.validate("no-such-disk", os.path.join(ROOT, "data", "traces", "ibm18es-validate-head.trace"))
    with pytest.raises(sluice.SluiceError, match="missing.trace"):
        sluice.validate("ibm-dnes-309170w", "missing.trace")


def test_import_config_gives_a_dict_sim_takes(tmp_path):
    with pytest.warns(UserWarning, match="approximates"):
        s = sluice.import_config("dmclock", os.path.join(ROOT, "data", "import", "dmc_sim_example.conf"))
    assert s["scheduler"]["name"] == "mclock" and s["flow"]
    r = sluice.sim(s)
    assert [f["name"] for f in r["flows"]][:1] == ["client0"] and r["aggregate"]["requests"] > 0
    with pytest.warns(UserWarning):
        t = sluice.import_config("seastar", os.path.join(ROOT, "data", "import", "tau_nemesis.yaml"),
                                 io_properties=os.path.join(ROOT, "data", "import", "i4i.2xlarge.yaml"),
                                 duration_s=0.5)
    assert t["duration_s"] == 0.5 and sluice.sim(t)["flows"]
    with pytest.raises(sluice.SluiceError, match="needs io_properties"):
        sluice.import_config("seastar", os.path.join(ROOT, "data", "import", "tau_nemesis.yaml"))
    with pytest.raises(sluice.SluiceError, match="\"dmclock\" or \"seastar\""):
        sluice.import_config("fio", "x")
    with pytest.raises(sluice.SluiceError, match="nothing.conf"):
        sluice.import_config("dmclock", tmp_path / "nothing.conf")


def test_request_log_is_the_csvs_rows():
    pytest.importorskip("pandas")
    df = sluice.request_log(STARTUP, seed=2)
    assert list(df.columns) == ["flow", "thread", "dir", "sync", "sector", "sectors",
                                "arrival_ms", "dispatched_ms", "completed_ms"]
    r = sluice.sim(STARTUP, seed=2)
    assert len(df) == r["aggregate"]["requests"] > 100
    assert df.groupby("flow").size().to_dict() == {f["name"]: f["requests"] for f in r["flows"]}
    assert (df["arrival_ms"] <= df["dispatched_ms"]).all() and (df["dispatched_ms"] <= df["completed_ms"]).all()


def test_request_log_keeps_a_flow_name_that_looks_like_a_number():
    pytest.importorskip("pandas")
    df = sluice.request_log(dict(SMALL, flow=[{"name": "NA", "pattern": "rand-read"},
                                              {"name": "1,5", "pattern": "rand-read"}]))
    assert set(df["flow"]) == {"NA", "1,5"}


def test_frame_has_every_column_of_a_flow_and_the_timeline():
    pytest.importorskip("pandas")
    r = sluice.sim(STARTUP, timeline_ms=500)
    df = sluice.frame(r)
    flow_keys = {k for f in r["flows"] for k in f} - {"name", "lat_ms"}
    assert flow_keys <= set(df.columns), flow_keys - set(df.columns)
    for col in ("lat_mean_ms", "lat_p99_ms", "lat_cdf_ms", "over_1s", "startups", "startup_s", "frames",
                "frames_dropped", "timeline_mb_s", "timeline_interval_s", "aggregate_mb_s",
                "aggregate_timeline_mb_s", "sim_time_s"):
        assert col in df.columns, col
    app = df[df["flow"] == "app"].iloc[0]
    assert app["startups"] == 1 and app["startup_s"] > 0
    assert app["timeline_mb_s"] == r["timeline"]["flows"]["app"]
    assert df[df["flow"] == "v"].iloc[0]["frames"] > 0


def test_the_package_is_typed():
    import inspect
    pkg = os.path.dirname(sluice.__file__)
    assert os.path.exists(os.path.join(pkg, "py.typed")) and os.path.exists(os.path.join(pkg, "_native.pyi"))
    for name in ("sim", "run", "repro", "sweep", "frame", "compare", "policies", "import_config",
                 "validate", "request_log", "fio", "report"):
        sig = inspect.signature(getattr(sluice, name))
        assert sig.return_annotation is not inspect.Signature.empty, name
        assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values()), name


def test_the_pyi_names_every_native_function():
    import ast
    import sluice._native as native
    pkg = os.path.dirname(sluice.__file__)
    with open(os.path.join(pkg, "_native.pyi"), encoding="utf-8") as f:
        stub = {n.name for n in ast.parse(f.read()).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    public = {n for n in dir(native) if not n.startswith("_")}
    assert stub == public


def test_every_docstring_example_runs(monkeypatch):
    import doctest
    monkeypatch.chdir(ROOT)  # the examples name files from the repository's root
    monkeypatch.setitem(sys.modules, "ray", None)  # sweep's example runs here, not on a Ray
    with pytest.warns(RuntimeWarning):
        result = doctest.testmod(sluice, optionflags=doctest.ELLIPSIS, raise_on_error=False)
    assert result.attempted >= 12 and result.failed == 0, result


def test_docs_python_md_names_every_function():
    with open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8") as f:
        doc = f.read()
    import inspect
    functions = [n for n in sluice.__all__ if inspect.isfunction(getattr(sluice, n))]
    assert len(functions) >= 12
    missing = [n for n in functions if "`%s(" % n not in doc and "sluice.%s(" % n not in doc]
    assert not missing, missing


def test_the_package_type_checks_under_mypy_strict():
    api = pytest.importorskip("mypy.api")
    # -p: the installed package, as a user's mypy finds it (through py.typed).
    out, err, status = api.run(["--strict", "--ignore-missing-imports", "--no-incremental", "-p", "sluice"])
    assert status == 0, out + err


def test_fio_gives_fios_json_layout_and_names_a_bad_file(tmp_path):
    job = tmp_path / "two.fio"
    job.write_text("[global]\nbs=4k\nsize=64m\nruntime=2\n[reader]\nrw=randread\n[writer]\nrw=randwrite\n")
    out = sluice.fio(job, scheduler="bfq")
    assert list(out)[:3] == ["fio version", "global options", "jobs"]
    assert [j["jobname"] for j in out["jobs"]] == ["reader", "writer"]
    assert out["jobs"][0]["read"]["io_bytes"] > 0 and out["jobs"][1]["write"]["io_bytes"] > 0
    assert [j["read"]["io_bytes"] for j in sluice.fio(job, scheduler="bfq")["jobs"]] == \
        [j["read"]["io_bytes"] for j in out["jobs"]]
    assert sluice.fio(job, max_duration_s=0.5)["jobs"][0]["read"]["io_bytes"] < out["jobs"][0]["read"]["io_bytes"]
    with pytest.raises(sluice.SluiceError, match="missing.fio"):
        sluice.fio(tmp_path / "missing.fio")


def test_files_python_reads_go_through_the_bounded_reader(tmp_path):
    """Issue 43: a report's file and a sweep's scenario were read with
    Python's open(): a FIFO hung, /dev/zero filled the memory."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for bad in (fifo, "/dev/zero", tmp_path):
        with pytest.raises(sluice.SluiceError, match="not a regular file"):
            sluice.report([bad], tmp_path / "r.html")
    assert sluice._job(str(fifo)) == {"path": str(fifo)}


def test_report_writes_the_page_of_results_logs_and_files(tmp_path):
    pytest.importorskip("pandas")
    run = sluice.sim(STARTUP, timeline_ms=500)
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(sluice.sim(SMALL)))
    page = tmp_path / "r.html"
    page.write_text("old")
    sluice.report([run, sluice.compare(SMALL), sluice.request_log(SMALL), saved], page)
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and len(html) > 10000
    assert "1. startup (bfq)" in html and "request-log-3.csv" in html and str(saved) in html
    sluice.report(run, page)  # one result, not in a list
    assert "2. " not in page.read_text(encoding="utf-8").split("</p>")[0]
    with pytest.raises(sluice.SluiceError):
        sluice.report([{"schema": "sluice.sim/1", "flows": "nonsense"}], tmp_path / "bad.html")
    with pytest.raises(sluice.SluiceError, match="not int"):
        sluice.report([3], tmp_path / "bad.html")


FLEET = os.path.join(ROOT, "scenarios", "fleet", "alibaba-sample.toml")


def _no_perf(r):
    return {k: v for k, v in r.items() if k != "perf"}


def test_fleet_on_threads_is_the_same_whatever_the_workers():
    one = sluice.fleet(FLEET, workers=1)
    two = sluice.fleet(FLEET, workers=2)
    assert one["schema"] == "sluice.fleet/1"
    assert _no_perf(one) == _no_perf(two)
    assert sum(v["requests"] for v in one["volumes"]) == 24
    assert [n["node"] for n in one["nodes"]] == [0, 1]
    assert one["perf"]["peak_rss_mib"] > 0


def test_fleet_of_a_dict_and_its_errors(monkeypatch):
    monkeypatch.chdir(os.path.join(ROOT, "scenarios", "fleet"))
    d = {"name": "f", "duration_s": 100, "device": {"preset": "ssd-sata"}, "scheduler": {"name": "noop"},
         "fleet": {"trace": "../../data/traces/alibaba-sample.csv", "format": "alibaba", "nodes": 3,
                   "placement": "round-robin"}}
    r = sluice.fleet(d)
    assert [v["node"] for v in r["volumes"]] == [0, 1, 2]
    with pytest.raises(sluice.SluiceError, match="nodes must be"):
        sluice.fleet(dict(d, fleet=dict(d["fleet"], nodes=0)))
    with pytest.raises(sluice.SluiceError, match="no \\[fleet\\] table"):
        sluice.fleet(SCENARIO)


def test_fleet_on_ray_gives_the_threads_volumes():
    ray = local_ray()
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False, num_cpus=2)
    here = sluice.fleet(FLEET)
    there = sluice.fleet(FLEET, address="auto")
    assert there["perf"]["runner"] == "ray"
    assert _no_perf(there) == _no_perf(here)
