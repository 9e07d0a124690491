#!/usr/bin/env python3
"""Run MQSim on the scaled inputs of this folder and keep its figures in mqsim-results.json.

For every experiment of derived.json, every scenario K of its sweep and every workload
(flow-1 alone, flow-2 alone, both together), MQSim runs once, as its own process, on a
workload file holding that one scenario (MQSim resets its whole state between the scenarios of
a file, so this is the same run; --verify-split checks it). Its per-flow output
(`Host.IO_Flow`: IOPS, End_to_End_Request_Delay, Device_Response_Time, counts) is kept, and for
`together` the slowdown of each flow (its response time together / alone in the same scenario
K) and the fairness (min slowdown / max slowdown) are computed. A run is killed after
--timeout seconds (default 300) and recorded as such.

Usage: python3 run_mqsim.py [--mqsim /tmp/sluice-mqsim-build/MQSim] [--only backend,qfs16]
                            [--scenarios 1,8] [--timeout 300] [--timed-reps 3] [--verify-split]
"""
import argparse
import datetime
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = ("flow-1", "flow-2", "together")
FLOWS_OF = {"flow-1": ("flow-1",), "flow-2": ("flow-2",), "together": ("flow-1", "flow-2")}
HEADER = '<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n%s\n</MQSim_IO_Scenarios>\n'
# the run the acceptance times: the first backend-contention flow-1 scenario, scaled
TIMED = ("backend", "flow-1", 1)


def scenarios_of(path):
    with open(path, encoding="ascii") as f:
        return re.findall(r"<IO_Scenario>.*?</IO_Scenario>", f.read(), flags=re.S)


def parse_output(path):
    """Per-flow figures of one MQSim output file, in flow order (No_0, No_1, ...), and FTL counters."""
    root = ET.parse(path).getroot()
    flows = []
    for fl in root.iter("Host.IO_Flow"):
        v = {c.tag: (c.text or "").strip() for c in fl}
        count = int(v["Request_Count"])
        iops = float(v["IOPS"])
        flows.append({
            "name": v["Name"],
            "iops": iops,
            "response_us": int(v["End_to_End_Request_Delay"]),
            "device_response_us": int(v["Device_Response_Time"]),
            "min_response_us": int(v["Min_End_to_End_Request_Delay"]),
            "max_response_us": int(v["Max_End_to_End_Request_Delay"]),
            "requests": count,
            "reads": int(v["Read_Request_Count"]),
            "writes": int(v["Write_Request_Count"]),
            "bytes": float(v["Bytes_Transferred"]),
            "simulated_s": count / iops if iops > 0 else None,
        })
    ftl = root.find("SSDDevice/SSDDevice.FTL")
    keep = ("Issued_Flash_Read_CMD", "Issued_Flash_Program_CMD", "Issued_Flash_Erase_CMD", "Total_GC_Executions",
            "CMT_Hits", "CMT_Misses")
    device = {k: int(ftl.get(k)) for k in keep if ftl is not None and ftl.get(k) is not None}
    return flows, device


def run_one(binary, exp_dir, cfg, scenario_xml, timeout, out_name="wl"):
    """One MQSim process on one scenario; returns (record, output path or None, temp dir)."""
    tmp = tempfile.mkdtemp(prefix="sluice-mqsim-run-")
    shutil.copyfile(cfg, os.path.join(tmp, "ssdconfig.xml"))
    with open(os.path.join(tmp, out_name + ".xml"), "w", encoding="ascii") as f:
        f.write(scenario_xml)
    traces = os.path.join(exp_dir, "traces")
    if os.path.isdir(traces):
        os.symlink(traces, os.path.join(tmp, "traces"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    rec = {}
    try:
        r = subprocess.run([binary, "-i", "ssdconfig.xml", "-w", out_name + ".xml"], cwd=tmp,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        rec["status"] = "ok" if r.returncode == 0 else "exit %d" % r.returncode
        if r.returncode != 0:
            err = (r.stderr.strip() or r.stdout.strip()).splitlines()
            rec["error"] = err[-1][:200] if err else ""
        served = re.findall(r"total requests generated: (\d+) total requests serviced:(\d+)", r.stdout)
        rec["generated_serviced"] = [[int(a), int(b)] for a, b in served]
    except subprocess.TimeoutExpired:
        rec["status"] = "killed after %d s" % timeout
    rec["wall_s"] = round(time.perf_counter() - t0, 3)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec["cpu_s"] = round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 3)
    outs = sorted(f for f in os.listdir(tmp) if re.match(re.escape(out_name) + r"_scenario_\d+\.xml$", f))
    return rec, [os.path.join(tmp, f) for f in outs], tmp


def run_workload(binary, exp, exp_dir, cfg, wl, k, scen_xml, timeout):
    rec, outs, tmp = run_one(binary, exp_dir, cfg, HEADER % scen_xml, timeout)
    try:
        if outs:  # MQSim writes its output before it exits, even when it dies afterwards
            flows, device = parse_output(outs[0])
            names = FLOWS_OF[wl]
            if len(flows) != len(names):
                rec["error"] = "expected %d flows, MQSim reported %d" % (len(names), len(flows))
            rec["flows"] = {n: f for n, f in zip(names, flows)}
            rec["device"] = device
            stuck = [g - s for g, s in rec.get("generated_serviced", [])]
            if any(stuck):
                rec["unserviced"] = stuck
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%-9s K=%d %-8s %-18s %6.2f s  %s" % (exp, k, wl, rec["status"], rec["wall_s"], "  ".join(
        "%s: %.0f IOPS %d us" % (n, f["iops"], f["response_us"]) for n, f in rec.get("flows", {}).items())),
          flush=True)
    return rec


def interference(scen):
    """Slowdown of each flow together against alone, and min/max fairness, when all three ran."""
    tog = scen.get("together", {}).get("flows")
    if not tog:
        return
    slow = {}
    for n, f in tog.items():
        alone = scen.get(n, {}).get("flows", {}).get(n)
        if alone and alone["response_us"] > 0 and scen[n]["status"] == "ok" and scen["together"]["status"] == "ok":
            slow[n] = f["response_us"] / alone["response_us"]
            f["slowdown"] = round(slow[n], 4)
    if len(slow) == len(tog) and len(slow) > 1:
        scen["together"]["fairness"] = round(min(slow.values()) / max(slow.values()), 4)


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version(),
            "load_avg_at_start": [round(x, 2) for x in os.getloadavg()]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mqsim", default="/tmp/sluice-mqsim-build/MQSim", help="the MQSim binary")
    ap.add_argument("--only", default="", help="comma-separated experiment ids (default all)")
    ap.add_argument("--scenarios", default="", help="comma-separated scenario numbers K, from 1 (default all)")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--timed-reps", type=int, default=3, help="extra timed runs of the run the acceptance times")
    ap.add_argument("--verify-split", action="store_true",
                    help="also run backend flow-2's whole file in one process and compare with the split runs")
    ap.add_argument("--out", default=os.path.join(HERE, "mqsim-results.json"))
    ap.add_argument("--table", action="store_true", help="print the summary table of --out and run nothing")
    ap.add_argument("--rows-only", action="store_true", help="recompute the `rows` of --out and run nothing")
    a = ap.parse_args()
    if a.table or a.rows_only:
        with open(a.out) as f:
            result = json.load(f)
        if a.table:
            print_table(result)
        else:
            result["rows"] = paper_rows(result)
            write_result(a.out, result)
        return
    with open(os.path.join(HERE, "derived.json")) as f:
        derived = json.load(f)
    only = [e for e in a.only.split(",") if e] or list(derived["experiments"])
    pick = {int(k) for k in a.scenarios.split(",") if k}

    started = datetime.datetime.now(datetime.timezone.utc)
    result = {
        "about": "MQSim's own figures on the scaled inputs of this folder (see README.md)",
        "mqsim_commit": derived["mqsim_commit"],
        "date": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": "python3 run_mqsim.py " + " ".join(sys.argv[1:]),
        "mqsim_binary": a.mqsim,
        "machine": machine(),
        "response_field": "End_to_End_Request_Delay (integer microseconds, as MQSim writes it)",
        "iops_field": "IOPS (requests generated / simulated time at the end of the run)",
        "timeout_s": a.timeout,
        "experiments": {},
    }
    t_all = time.perf_counter()
    for exp in only:
        info = derived["experiments"][exp]
        files = {k: os.path.join(HERE, v["path"]) for k, v in info["files"].items()}
        exp_dir = os.path.join(HERE, exp)
        per_wl = {wl: scenarios_of(files[wl]) for wl in WORKLOADS}
        n = info["scenarios"]
        ks = [k for k in range(1, n + 1) if not pick or k in pick]
        out = {"scenarios_in_file": n, "last_scenario": n, "scenarios_run": ks, "files": {
            k: v["path"] for k, v in info["files"].items()}, "by_scenario": {}}
        for k in ks:
            scen = {}
            for wl in WORKLOADS:
                scen[wl] = run_workload(a.mqsim, exp, exp_dir, files["ssdconfig"], wl, k, per_wl[wl][k - 1], a.timeout)
            interference(scen)
            out["by_scenario"][str(k)] = scen
        result["experiments"][exp] = out

    exp, wl, k = TIMED
    if a.timed_reps and exp in derived["experiments"]:
        info = derived["experiments"][exp]
        one = HEADER % scenarios_of(os.path.join(HERE, info["files"][wl]["path"]))[k - 1]
        walls = []
        for _ in range(a.timed_reps):
            rec, _outs, tmp = run_one(a.mqsim, os.path.join(HERE, exp), os.path.join(HERE, info["files"]["ssdconfig"]["path"]),
                                      one, a.timeout)
            shutil.rmtree(tmp, ignore_errors=True)
            walls.append(rec["wall_s"])
        result["acceptance_timed_run"] = {
            "experiment": exp, "workload": wl, "scenario": k, "wall_s_each": walls,
            "wall_s_median": statistics.median(walls),
            "requests": result["experiments"].get(exp, {}).get("by_scenario", {}).get(str(k), {}).get(wl, {}).get(
                "flows", {}).get(wl, {}).get("requests"),
        }
        print("timed run %s %s K=%d: %s s" % (exp, wl, k, walls), flush=True)

    if a.verify_split:
        result["split_check"] = verify_split(a, derived, result)
    result["total_wall_s"] = round(time.perf_counter() - t_all, 1)
    result["rows"] = paper_rows(result)
    write_result(a.out, result)
    print("wrote %s (%.0f s)" % (a.out, result["total_wall_s"]))


def write_result(path, result):
    with open(path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=False)
        f.write("\n")


def paper_rows(result):
    """The figures in the row layout of `sluice repro mqsim` (the `paper` column, scheduler noop):
    workload `flow-1` / `flow-2` / `together` for the last scenario of the sweep, `<workload>@K` for
    each other scenario K; metrics `iops@flow-N`, `response_us@flow-N`, `slowdown@flow-N` and
    `fairness` (the last two on `together` only). Runs MQSim did not finish give no rows."""
    rows = []
    for exp, e in result["experiments"].items():
        last = e["last_scenario"]
        for k, scen in sorted(e["by_scenario"].items(), key=lambda kv: int(kv[0])):
            for wl in WORKLOADS:
                rec = scen.get(wl, {})
                if rec.get("status") != "ok":
                    continue
                name = wl if int(k) == last else "%s@%s" % (wl, k)
                row = lambda metric, value: rows.append(  # noqa: E731
                    {"experiment": exp, "scheduler": "noop", "workload": name, "metric": metric, "paper": value})
                for n, f in rec.get("flows", {}).items():
                    row("iops@" + n, f["iops"])
                    row("response_us@" + n, f["response_us"])
                    if "slowdown" in f:
                        row("slowdown@" + n, f["slowdown"])
                if "fairness" in rec:
                    row("fairness", rec["fairness"])
    return rows


def print_table(result):
    """A markdown table: per experiment and scenario, each flow's IOPS and response time alone and
    together, its slowdown, and the fairness."""
    print("| exp | K | flow | IOPS alone | resp. alone (us) | IOPS together | resp. together (us) | slowdown | fairness |")
    print("|---|---|---|---|---|---|---|---|---|")
    for exp, e in result["experiments"].items():
        for k, scen in e["by_scenario"].items():
            tog = scen.get("together", {})
            for n in ("flow-1", "flow-2"):
                alone = scen.get(n, {}).get("flows", {}).get(n)
                both = tog.get("flows", {}).get(n)
                cell = lambda f, key, fmt: fmt % f[key] if f and f.get(key) is not None else "-"  # noqa: E731
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    exp, k, n, cell(alone, "iops", "%.0f"), cell(alone, "response_us", "%d"), cell(both, "iops", "%.0f"),
                    cell(both, "response_us", "%d"), cell(both, "slowdown", "%.2f"),
                    ("%.2f" % tog["fairness"]) if n == "flow-1" and "fairness" in tog else ""))


def verify_split(a, derived, result):
    """Run backend flow-2's whole file (all its scenarios) in one MQSim process and compare each
    scenario's figures with those of the one-scenario runs."""
    info = derived["experiments"]["backend"]
    with open(os.path.join(HERE, info["files"]["flow-2"]["path"]), encoding="ascii") as f:
        whole = f.read()
    rec, outs, tmp = run_one(a.mqsim, os.path.join(HERE, "backend"), os.path.join(HERE, info["files"]["ssdconfig"]["path"]),
                             whole, a.timeout * 8)
    rows, same = [], True
    try:
        for path in outs:
            k = int(re.search(r"_scenario_(\d+)\.xml$", path).group(1))
            f = parse_output(path)[0][0]
            split = result["experiments"].get("backend", {}).get("by_scenario", {}).get(str(k), {}).get(
                "flow-2", {}).get("flows", {}).get("flow-2")
            fig = [f["requests"], f["response_us"]]
            alone = [split["requests"], split["response_us"]] if split else None
            same = same and alone == fig
            rows.append({"scenario": k, "whole_file": fig, "one_scenario_run": alone})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("split check: %s" % ("identical" if same else "DIFFERENT"), flush=True)
    return {"workload": "backend/flow-2.xml", "status": rec["status"], "wall_s": rec["wall_s"],
            "identical": same and bool(rows), "requests_and_response_us": rows}


if __name__ == "__main__":
    main()
