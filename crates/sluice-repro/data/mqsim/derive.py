#!/usr/bin/env python3
"""Derive the scaled MQSim inputs kept in this folder from MQSim's shipped files.

MQSim's FAST'18 configurations describe a 512 GiB-raw drive preconditioned to 75-89% full;
as shipped they take hours here. This script makes them small enough to run in seconds
while keeping every other parameter as MQSim ships it:

  * `Block_No_Per_Plane` is divided by 16 (2048 -> 128) in every ssdconfig;
  * every `Stop_Time` above the cap (default 10 simulated seconds) is lowered to the cap
    (the data-cache sweep ships 100 s for scenarios 2-6; everything else ships 10 s);
  * the data-cache configuration ships `<Caching_Mechanism>SIMPLE`, with which MQSim stops
    ("The specified caching mode is not not support in simple cache manager!"): it is set to
    ADVANCED, as in MQSim's other configurations;
  * the data-cache configuration is the only one shipped with `<Enabled_Preconditioning>true`;
    with it MQSim does not finish here: at blocks per plane / 16 every run stalls with a few
    requests outstanding for ever (5,410 requests in 10 simulated s) and then dies (SIGSEGV, or
    "Requesting a free block from an empty pool!" with both flows); / 8 and / 4 stall the same
    way. It is set to false, as in the three other fast18 configurations;
  * two shipped workload files are not well-formed XML: the backend-contention flow-1 file holds
    an unresolved git merge conflict (MQSim aborts on it with rapidxml's "expected ="), and the
    data-cache flow-1 file closes `Generated_Aligned_Addresses` as `</<Generated_...>`
    (rapidxml tolerates it). The conflict keeps the well-formed side (both sides carry the same
    values); the stray `<` is dropped. No value changes.

Experiments (ids used by `sluice repro mqsim`):
  backend    fast18/backend-contention       8 scenarios
  datacache  fast18/data-cache-contention    6 scenarios
  qfs16      fast18/queue-fetch-size, ssdconfig-queue-fetch-size=16.xml    6 scenarios
  qfs1024    fast18/queue-fetch-size, ssdconfig-queue-fetch-size=1024.xml  6 scenarios
  wsrch      traces/wsrch-small.trace alone (flow-1), traces/tpcc-small.trace alone (flow-2),
             both at once (together), on the top-level ssdconfig.xml; the trace flows'
             parameters are those of the shipped workload.xml's trace scenario (tpcc-small).

Each experiment folder gets `ssdconfig.xml`, `flow-1.xml`, `flow-2.xml`, `together.xml`;
`derived.json` lists them with their sources. Usage:

  python3 derive.py [--mqsim /tmp/sluice-mqsim-build] [--out DIR] [--block-divisor 16]
                    [--stop-time-cap-ns 10000000000]
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

FAST18 = {
    "backend": ("fast18/backend-contention", "ssdconfig-backend-contention.xml", "workload-backend-contention"),
    "datacache": ("fast18/data-cache-contention", "ssdconfig-datacache-contention.xml", "workload-datacache-contention"),
    "qfs16": ("fast18/queue-fetch-size", "ssdconfig-queue-fetch-size=16.xml", "workload-queue-fetch-size"),
    "qfs1024": ("fast18/queue-fetch-size", "ssdconfig-queue-fetch-size=1024.xml", "workload-queue-fetch-size"),
}
WORKLOADS = {"flow-1": "-flow-1.xml", "flow-2": "-flow-2.xml", "together": "-flow-1-flow-2.xml"}
TRACES = {"flow-1": "wsrch-small.trace", "flow-2": "tpcc-small.trace"}

CONFLICT = re.compile(r"^<<<<<<< [^\n]*\n.*?^=======\n(.*?)^>>>>>>> [^\n]*\n", re.S | re.M)
STRAY_CLOSE = re.compile(r"</<(\w+)>")


def read(path):
    with open(path, encoding="ascii") as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def sub_count(pattern, repl, text, changes, what):
    new, n = re.subn(pattern, repl, text)
    if n:
        changes.append("%s (%d)" % (what, n))
    return new


def repair_xml(text, changes):
    """Resolve merge-conflict blocks to their second side and drop stray '<' in closing tags."""
    text = sub_count(CONFLICT, lambda m: m.group(1), text, changes, "merge conflict resolved to its well-formed side")
    text = sub_count(STRAY_CLOSE, r"</\1>", text, changes, "stray '<' dropped from a closing tag")
    if "<<<<<<<" in text or ">>>>>>>" in text:
        sys.exit("derive.py: an unresolved merge conflict is left")
    return text


def scale_config(text, divisor, changes):
    def blocks(m):
        old = int(m.group(1))
        if old % divisor:
            sys.exit("derive.py: Block_No_Per_Plane %d is not a multiple of %d" % (old, divisor))
        changes.append("Block_No_Per_Plane %d -> %d" % (old, old // divisor))
        return "<Block_No_Per_Plane>%d<" % (old // divisor)

    text, n = re.subn(r"<Block_No_Per_Plane>(\d+)<", blocks, text)
    if n != 1:
        sys.exit("derive.py: expected one Block_No_Per_Plane, found %d" % n)
    text = sub_count(r"<Caching_Mechanism>SIMPLE<", "<Caching_Mechanism>ADVANCED<", text, changes,
                     "Caching_Mechanism SIMPLE -> ADVANCED")
    text = sub_count(r"<Enabled_Preconditioning>true<", "<Enabled_Preconditioning>false<", text, changes,
                     "Enabled_Preconditioning true -> false")
    return text


def cap_stop_time(text, cap, changes):
    def stop(m):
        old = int(m.group(1))
        if old > cap:
            changes.append("Stop_Time %d -> %d" % (old, cap))
            return "<Stop_Time>%d<" % cap
        return m.group(0)

    return re.sub(r"<Stop_Time>(\d+)<", stop, text)


def collapse_changes(changes):
    """'Stop_Time a -> b' repeated n times becomes one entry with a count."""
    out, seen = [], {}
    for c in changes:
        seen[c] = seen.get(c, 0) + 1
    for c, n in seen.items():
        out.append(c if n == 1 else "%s (x%d)" % (c, n))
    return out


def trace_flow(trace):
    return """		<IO_Flow_Parameter_Set_Trace_Based>
			<Priority_Class>HIGH</Priority_Class>
			<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
			<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs>
			<Chip_IDs>0,1,2,3</Chip_IDs>
			<Die_IDs>0,1</Die_IDs>
			<Plane_IDs>0,1</Plane_IDs>
			<Initial_Occupancy_Percentage>70</Initial_Occupancy_Percentage>
			<File_Path>traces/%s</File_Path>
			<Percentage_To_Be_Executed>100</Percentage_To_Be_Executed>
			<Relay_Count>1</Relay_Count>
			<Time_Unit>NANOSECOND</Time_Unit>
		</IO_Flow_Parameter_Set_Trace_Based>
""" % trace


def trace_workload(traces):
    body = "".join(trace_flow(t) for t in traces)
    return '<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n\t<IO_Scenario>\n%s\t</IO_Scenario>\n</MQSim_IO_Scenarios>\n' % body


def scenario_count(text):
    return len(re.findall(r"<IO_Scenario>", text))


def mqsim_commit(mqsim):
    """The commit of the checkout, or the one recorded by `git archive` (none), or None."""
    try:
        r = subprocess.run(["git", "-C", mqsim, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
        if r.returncode == 0:
            return r.stdout.strip()
    except OSError:
        pass
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mqsim", default="/tmp/sluice-mqsim-build", help="MQSim checkout (its files as shipped)")
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--block-divisor", type=int, default=16)
    ap.add_argument("--stop-time-cap-ns", type=int, default=10_000_000_000)
    ap.add_argument("--commit", default=None, help="MQSim commit to record when --mqsim is not a git checkout")
    a = ap.parse_args()

    manifest = {
        "mqsim_commit": a.commit or mqsim_commit(a.mqsim),
        "block_divisor": a.block_divisor,
        "stop_time_cap_ns": a.stop_time_cap_ns,
        "experiments": {},
    }
    for exp, (folder, cfg_name, wl_prefix) in FAST18.items():
        src_dir = os.path.join(a.mqsim, folder)
        entry = {"files": {}}
        changes = []
        text = scale_config(repair_xml(read(os.path.join(src_dir, cfg_name)), changes), a.block_divisor, changes)
        write(os.path.join(a.out, exp, "ssdconfig.xml"), text)
        entry["files"]["ssdconfig"] = {"path": "%s/ssdconfig.xml" % exp, "source": "%s/%s" % (folder, cfg_name),
                                       "source_sha256": sha256(os.path.join(src_dir, cfg_name)),
                                       "changes": collapse_changes(changes)}
        counts = set()
        for wl, suffix in WORKLOADS.items():
            src = os.path.join(src_dir, wl_prefix + suffix)
            changes = []
            text = cap_stop_time(repair_xml(read(src), changes), a.stop_time_cap_ns, changes)
            counts.add(scenario_count(text))
            write(os.path.join(a.out, exp, wl + ".xml"), text)
            entry["files"][wl] = {"path": "%s/%s.xml" % (exp, wl), "source": "%s/%s" % (folder, wl_prefix + suffix),
                                  "source_sha256": sha256(src), "changes": collapse_changes(changes)}
        if len(counts) != 1:
            sys.exit("derive.py: %s: the workload files hold different numbers of scenarios %s" % (exp, sorted(counts)))
        entry["scenarios"] = counts.pop()
        manifest["experiments"][exp] = entry

    # wsrch: the shipped traces on the top-level ssdconfig.xml
    entry = {"files": {}, "scenarios": 1}
    changes = []
    text = scale_config(read(os.path.join(a.mqsim, "ssdconfig.xml")), a.block_divisor, changes)
    write(os.path.join(a.out, "wsrch", "ssdconfig.xml"), text)
    entry["files"]["ssdconfig"] = {"path": "wsrch/ssdconfig.xml", "source": "ssdconfig.xml",
                                   "source_sha256": sha256(os.path.join(a.mqsim, "ssdconfig.xml")),
                                   "changes": collapse_changes(changes)}
    for wl, traces in (("flow-1", [TRACES["flow-1"]]), ("flow-2", [TRACES["flow-2"]]),
                       ("together", [TRACES["flow-1"], TRACES["flow-2"]])):
        write(os.path.join(a.out, "wsrch", wl + ".xml"), trace_workload(traces))
        entry["files"][wl] = {"path": "wsrch/%s.xml" % wl,
                              "source": "written by derive.py: trace flow(s) %s with the parameters of workload.xml's "
                                        "trace scenario" % " + ".join(traces)}
    for t in TRACES.values():
        src = os.path.join(a.mqsim, "traces", t)
        dst = os.path.join(a.out, "wsrch", "traces", t)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        entry["files"]["trace:" + t] = {"path": "wsrch/traces/%s" % t, "source": "traces/%s" % t,
                                        "source_sha256": sha256(src), "changes": []}
    manifest["experiments"]["wsrch"] = entry

    write(os.path.join(a.out, "derived.json"), json.dumps(manifest, indent=1) + "\n")
    for exp, e in manifest["experiments"].items():
        print("%-9s %d scenario(s): %s" % (exp, e["scenarios"], "; ".join(
            "%s: %s" % (k, ", ".join(v["changes"]) or "as shipped" if "changes" in v else "written") for k, v in e["files"].items()
            if not k.startswith("trace:"))))


if __name__ == "__main__":
    main()
