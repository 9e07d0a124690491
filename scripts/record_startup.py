#!/usr/bin/env python3
"""Record an application's cold start-up I/O as a start-up trace.

Runs COMMAND the way the S suite's comm_startup_lat.sh does (a new session,
page cache dropped, the command timed by /usr/bin/time), records the block
layer's queued bios with ftrace (blktrace's ioctl is refused on some virtual
disks; the block_bio_queue tracepoint is the same event as blkparse's Q),
and prints the requests of the command's own processes (those /usr/bin/time
forked, and theirs) in the 10-column format of data/README.md. Root only;
it reads nothing from and writes nothing to any device.

    sudo python3 scripts/record_startup.py "bash -c exit" > bash.trace
"""
import os
import re
import subprocess
import sys
import tempfile

TRACING = "/sys/kernel/debug/tracing"
EVENTS = ("block/block_bio_queue", "sched/sched_process_fork")
BIO = re.compile(r"^\s*(\S+)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): block_bio_queue: "
                 r"(\d+),(\d+) (\w+) (\d+) \+ (\d+)")
FORK = re.compile(r"sched_process_fork: comm=\S+ pid=(\d+) child_comm=\S+ child_pid=(\d+)")


def put(name, value):
    with open(os.path.join(TRACING, name), "w") as f:
        f.write(value)


def action(rwbs):
    """The trace's action for a bio's RWBS flags, or None to leave it out."""
    if rwbs.startswith("R"):
        if "M" in rwbs:
            return "RM"
        return "RA" if "A" in rwbs else "R"
    if rwbs.startswith("W") and "S" in rwbs:
        return "WS"
    return None  # flushes, discards, asynchronous write-back


def record(command):
    if not os.path.isdir(TRACING):
        subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"], check=True)
    put("tracing_on", "0")
    put("trace", "")
    put("buffer_size_kb", "16384")
    for e in EVENTS:
        put("events/%s/enable" % e, "1")
    with tempfile.NamedTemporaryFile("r") as root:
        put("tracing_on", "1")
        timed = subprocess.run(
            ["setsid", "bash", "-c",
             "echo $$ > %s; echo 3 > /proc/sys/vm/drop_caches; exec /usr/bin/time -f %%e %s"
             % (root.name, command)],
            capture_output=True, text=True)
        put("tracing_on", "0")
        root_pid = root.read().strip()
    for e in EVENTS:
        put("events/%s/enable" % e, "0")
    with open(os.path.join(TRACING, "trace")) as f:
        text = f.read()
    put("trace", "")
    return root_pid, text, timed.stderr.strip().splitlines()[-1]


def convert(root_pid, text, device):
    """The command's requests (descendants of the timing process)."""
    tree, reqs = {root_pid}, []
    for line in text.splitlines():
        m = FORK.search(line)
        if m and m.group(1) in tree:
            tree.add(m.group(2))
            continue
        m = BIO.match(line)
        # The timing process itself (the root) is not the command.
        if not m or m.group(2) == root_pid or m.group(2) not in tree or "%s,%s" % (m.group(4), m.group(5)) != device:
            continue
        act = action(m.group(6))
        if act:
            reqs.append((m.group(1), m.group(2), float(m.group(3)), act, int(m.group(7)), int(m.group(8))))
    out, prev_t, prev_end, run = [], None, None, 0
    t0 = reqs[0][2] if reqs else 0.0
    names = {}
    for comm, pid, t, act, sector, n in reqs:
        # A thread keeps the name it had at its first request (a child is
        # still called after its parent until it execs).
        name = names.setdefault(pid, "%s-%s" % (comm, pid))
        gap = 0.0 if prev_t is None else t - prev_t
        dist = 0 if prev_end is None else sector - prev_end
        seq = prev_end is not None and dist == 0
        # Sectors read so far in the current sequential run.
        run = run + out[-1][2] if seq else 0
        out.append((name, gap, n, sector, "Seq" if seq else "Rand", dist, run, act, t - t0,
                    "START" if not out else "C"))
        prev_t, prev_end = t, sector + n
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: record_startup.py COMMAND [MAJOR,MINOR of the disk holding it]")
    if os.geteuid() != 0:
        sys.exit("record_startup.py: needs root (it drops the page cache and uses ftrace)")
    command = sys.argv[1]
    device = sys.argv[2] if len(sys.argv) == 3 else None
    if device is None:
        st = os.stat(subprocess.run(["which", command.split()[0]], capture_output=True,
                                    text=True, check=True).stdout.strip())
        device = "%d,%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    root_pid, text, took = record(command)
    rows = convert(root_pid, text, device)
    if not rows:
        sys.exit("record_startup.py: %r issued no block I/O on %s (was it cached?)" % (command, device))
    sectors = sum(r[2] for r in rows)
    print("# %s: %d requests, %d sectors, /usr/bin/time %s s" % (command, len(rows), sectors, took),
          file=sys.stderr)
    for r in rows:
        print("%s %.6f %d %d %s %d %d %s %.6f %s" % r)


if __name__ == "__main__":
    main()
