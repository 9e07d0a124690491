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
    with pytest.raises(sluice.SluiceError, match="--dir"):
        sluice.run(REAL, dir=tmp_path / "missing")
    with pytest.raises(sluice.SluiceError, match="queue-depth"):
        sluice.run(REAL, dir=tmp_path, queue_depth=0)


def test_repro_has_the_paper_beside_ours():
    r = sluice.repro("vios", quick=True)
    assert r["schema"] == "sluice.repro/1"
    rows = [row for e in r["experiments"] for row in e["rows"]]
    assert any(row["paper"] is not None for row in rows)


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
