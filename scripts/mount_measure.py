#!/usr/bin/env python3
"""The measurements of docs/mount.md, each a median of alternated runs.

    sudo python3 scripts/mount_measure.py [--rounds 3] [--only overhead,weights,startup]

Needs root, /dev/fuse, loop devices, mkfs.ext4, fio and Debian's /usr/bin/python3.11, and a release
build (target/release/sluice). Prints one JSON object per measurement.

- overhead: fio (--direct=1, io_uring, 5 s) on a 1 GiB file on the disk under /tmp, through
  `sluice mount --scheduler noop --queue-depth 32` and directly, alternated pairs.
- weights: on an emulated maxtor-stm332061 (sluice emulate, loop device with scheduler none, ext4),
  copies of dd named rda (weight 100) and rdb (weight 300) read 400 MB files through the mount for
  20 s; rdb's share of the bytes read while both were active (from --log-requests), under bfq, yfq
  and mclock.
- startup: on the same drive, cold caches, a Python start-up importing standard-library modules
  from a copy of the library on the drive, idle and under ten sequential readers: through the
  mount with bfq+ and noop, and under the kernel's bfq and none without it.
"""
import argparse
import csv
import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, "target", "release", "sluice")
PY = "/usr/bin/python3.11"
IMPORTS = "import json, email, http.client, xml.dom.minidom, sqlite3, decimal, asyncio"


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=True, capture_output=True, text=True, **kw)


def drop_caches():
    subprocess.run("sync", shell=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def mounted(src, mnt, *args):
    p = subprocess.Popen([EXE, "mount", src, mnt] + list(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(150):
        if os.path.ismount(mnt):
            return p
        if p.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit("sluice mount %s %s did not mount" % (src, mnt))


def unmount(mnt, p):
    subprocess.run(["umount", mnt])
    p.wait(timeout=60)


def overhead(work, rounds):
    src, mnt = os.path.join(work, "ov-src"), os.path.join(work, "ov-mnt")
    os.makedirs(src)
    os.makedirs(mnt)
    big = os.path.join(src, "big")
    sh(["fio", "--name=w", "--filename=" + big, "--size=1g", "--rw=write", "--bs=1m", "--direct=1"])
    drop_caches()
    p = mounted(src, mnt, "--scheduler", "noop", "--queue-depth", "32")
    try:
        for label, rw, bs, qd in (("4k-rand-qd1", "randread", "4k", 1), ("4k-rand-qd32", "randread", "4k", 32),
                                  ("1m-seq-qd4", "read", "1m", 4)):
            got = {"direct": [], "mount": []}
            for r in range(rounds):
                order = (("direct", src), ("mount", mnt))
                for where, root in (order if r % 2 == 0 else order[::-1]):
                    out = sh(["fio", "--name=o", "--filename=" + os.path.join(root, "big"), "--rw=" + rw, "--bs=" + bs,
                              "--iodepth=%d" % qd, "--ioengine=io_uring", "--direct=1", "--runtime=5", "--time_based",
                              "--output-format=json"]).stdout
                    got[where].append(json.loads(out)["jobs"][0]["read"]["iops"])
            d, m = statistics.median(got["direct"]), statistics.median(got["mount"])
            print(json.dumps({"overhead": label, "direct_iops": round(d), "mount_iops": round(m),
                              "ratio": round(m / d, 2), "runs": got}), flush=True)
    finally:
        unmount(mnt, p)


class Drive:
    """An emulated maxtor-stm332061 with ext4, ten 400 MB files and a copy of Python's library."""

    def __init__(self, work):
        self.work = work
        self.emu_dir, self.disk = os.path.join(work, "emu"), os.path.join(work, "disk")
        os.makedirs(self.emu_dir)
        os.makedirs(self.disk)
        self.emu = subprocess.Popen([EXE, "emulate", "--preset", "maxtor-stm332061", "--size-gib", "24", "--mount",
                                     self.emu_dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        img = os.path.join(self.emu_dir, "disk.img")
        for _ in range(150):
            if os.path.exists(img):
                break
            time.sleep(0.1)
        self.loop = sh(["losetup", "--find", "--show", "--direct-io=on", img]).stdout.strip()
        self.name = os.path.basename(self.loop)
        self.scheduler("none")
        with open("/sys/block/%s/queue/rotational" % self.name, "w") as f:
            f.write("1")
        sh(["mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", self.loop])
        sh(["mount", self.loop, self.disk])
        for i in range(10):
            sh(["dd", "if=/dev/zero", "of=%s/r%d" % (self.disk, i), "bs=1M", "count=400", "oflag=direct"])
        os.makedirs(os.path.join(self.disk, "py", "lib"))
        sh(["cp", "-a", "/usr/lib/python3.11", os.path.join(self.disk, "py", "lib", "python3.11")])
        subprocess.run("sync", shell=True)

    def scheduler(self, name):
        with open("/sys/block/%s/queue/scheduler" % self.name, "w") as f:
            f.write(name)

    def close(self):
        subprocess.run(["umount", self.disk])
        subprocess.run(["losetup", "-d", self.loop])
        self.emu.send_signal(signal.SIGTERM)
        self.emu.wait(timeout=60)


def share_while_both_read(log):
    """rdb's share of the bytes completed before the first reader's last completion."""
    rows = list(csv.DictReader(open(log)))
    last = {}
    for r in rows:
        last[r["flow"][:3]] = max(last.get(r["flow"][:3], 0.0), float(r["completed_ms"]))
    end = min(last.values())
    by = {}
    for r in rows:
        if float(r["completed_ms"]) <= end:
            by[r["flow"][:3]] = by.get(r["flow"][:3], 0) + int(r["sectors"]) * 512
    return by.get("rdb", 0) / sum(by.values()), end / 1000.0, sum(by.values())


def weights(drive, rounds):
    mnt = os.path.join(drive.work, "mnt")
    os.makedirs(mnt, exist_ok=True)
    bindir = os.path.join(drive.work, "bin")
    os.makedirs(bindir, exist_ok=True)
    for b in ("rda", "rdb"):
        shutil.copy("/usr/bin/dd", os.path.join(bindir, b))
    got = {}
    for r in range(rounds):
        for pol in ("bfq", "yfq", "mclock"):
            cfg, log = os.path.join(drive.work, "w.toml"), os.path.join(drive.work, "w-%s-%d.csv" % (pol, r))
            with open(cfg, "w") as f:
                f.write('[scheduler]\nname = "%s"\n[[class]]\nmatch = { comm = "rda" }\nweight = 100\n'
                        '[[class]]\nmatch = { comm = "rdb" }\nweight = 300\n' % pol)
            drop_caches()
            p = mounted(drive.disk, mnt, "--config", cfg, "--log-requests", log)
            rs = [subprocess.Popen([os.path.join(bindir, b), "if=%s/r%d" % (mnt, i), "of=/dev/null", "bs=128k"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i, b in ((1, "rda"), (8, "rdb"))]
            time.sleep(20)
            for x in rs:
                x.kill()
                x.wait()
            unmount(mnt, p)
            share, both_s, both_bytes = share_while_both_read(log)
            got.setdefault(pol, []).append((round(share, 3), round(both_s, 1), round(both_bytes / 1e6 / both_s, 1)))
    for pol, v in got.items():
        print(json.dumps({"weights": pol, "share_median": statistics.median(x[0] for x in v),
                          "runs (share, both active s, MB/s)": v}), flush=True)


def startup_time(root, loaded):
    drop_caches()
    readers = []
    if loaded:
        readers = [subprocess.Popen(["dd", "if=%s/r%d" % (root, i), "of=/dev/null", "bs=128k"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(10)]
        time.sleep(4)
    t0 = time.monotonic()
    r = subprocess.run([PY, "-S", "-c", IMPORTS], env={"PYTHONHOME": os.path.join(root, "py"), "PATH": "/usr/bin:/bin"},
                       capture_output=True, timeout=300)
    t = time.monotonic() - t0
    for x in readers:
        x.kill()
        x.wait()
    if r.returncode != 0:
        raise SystemExit("python failed: %s" % r.stderr[-200:])
    return t


def startup(drive, rounds):
    mnt = os.path.join(drive.work, "mnt")
    os.makedirs(mnt, exist_ok=True)
    res = {}
    for _ in range(rounds):
        for sched in ("bfq", "none"):
            drive.scheduler(sched)
            for loaded in (False, True):
                res.setdefault("kernel %s %s" % (sched, "loaded" if loaded else "idle"), []).append(
                    startup_time(drive.disk, loaded))
        drive.scheduler("none")
        for pol in ("bfq+", "noop"):
            p = mounted(drive.disk, mnt, "--scheduler", pol)
            try:
                for loaded in (False, True):
                    res.setdefault("mount %s %s" % (pol, "loaded" if loaded else "idle"), []).append(
                        startup_time(mnt, loaded))
            finally:
                unmount(mnt, p)
    print(json.dumps({"startup_median_s": {k: round(statistics.median(v), 3) for k, v in res.items()},
                      "runs": res}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="overhead,weights,startup")
    args = ap.parse_args()
    only = set(args.only.split(","))
    work = tempfile.mkdtemp(prefix="sluice-mount-measure-", dir="/tmp")
    try:
        if "overhead" in only:
            overhead(work, args.rounds)
        if only & {"weights", "startup"}:
            drive = Drive(work)
            try:
                if "weights" in only:
                    weights(drive, args.rounds)
                if "startup" in only:
                    startup(drive, args.rounds)
            finally:
                drive.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
