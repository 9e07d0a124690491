//! "Virtual I/O Scheduler: A Scheduler of Schedulers for Performance
//! Virtualization" (VEE 2007): disk-time fairness between two application
//! classes with different request sizes or seek behaviour, performance
//! isolation, and VIOS(P) on a queueing drive.

use super::{row, Experiment, Jobs};
use crate::claims;
use sluice_runtime::scenario::Pattern;
use sluice_runtime::Result;
use sluice_runtime::{FlowBuilder, ScenarioBuilder, SimReport};

mod stated;

/// Program 1 reads files 5, 6 and 7 (§5.1.2).
const PROGRAM1: [u32; 3] = [5, 6, 7];

/// Program 2's files for a seek distance of `d` million sectors: files 8-10
/// next to Program 1 for 1M; otherwise the first file, the last one `d`
/// files on, and one half way (the paper: "files 1 and 64" for 64M).
fn program2(d: u32) -> [u32; 3] {
    if d <= 1 {
        [8, 9, 10]
    } else {
        [1, 1 + d / 2, d]
    }
}

/// 1M sectors of 512 B in GiB: the paper's file size and seek unit.
const MSECT_GIB: f64 = 0.5;
const RAPTOR: &str = "wd-raptor-150";

/// A scenario's settings before its device and flows: the scheduler and
/// one class per name (20 ms quantum, FCFS inside).
fn head(name: &str, sched: &str, classes: &[&str]) -> ScenarioBuilder {
    let mut s = ScenarioBuilder::new(name, 3000.0)
        .seed(1)
        .warmup_s(0.0)
        .scheduler(sched);
    for c in classes {
        s = s.class(*c, 20.0, "noop");
    }
    s
}

/// A tiobench-like application: `threads` threads, each reading `n` random
/// blocks of `kib` from its own 512 MiB file, files from `offset_gib`.
fn tiobench(app: &str, threads: u32, n: u64, kib: u32, offset_gib: f64) -> FlowBuilder {
    FlowBuilder::new(format!("{app}.t"), Pattern::RandRead)
        .class(app)
        .count(threads)
        .request_kib(kib)
        .file_gib(0.5)
        .offset_gib(offset_gib)
        .requests(n)
}

/// A scenario with Program 1/2 of §5.1.2 added: three threads, each
/// reading a third of its own 512 MiB file sequentially. The disk holds 64
/// such files of 1M sectors (file k starts at (k-1)M); `files` are the
/// 1-based file numbers.
fn program(s: ScenarioBuilder, app: &str, files: [u32; 3], requests: u64) -> ScenarioBuilder {
    program_at(s, app, files, requests, 0)
}

/// [`program`] with every file moved on by a few sectors (less than one
/// track), drawn from `placement` (0: none, the literal placement).
fn program_at(
    mut s: ScenarioBuilder,
    app: &str,
    files: [u32; 3],
    requests: u64,
    placement: u64,
) -> ScenarioBuilder {
    for (k, file) in files.iter().enumerate() {
        let off = f64::from(file - 1) * MSECT_GIB + sub_track_shift(placement, *file) * SECTOR_GIB;
        s = s.flow(
            FlowBuilder::new(format!("{app}.t{k}"), Pattern::SeqRead)
                .class(app)
                .request_kib(64)
                .file_gib(0.5)
                .offset_gib(off)
                .requests(requests),
        );
    }
    s
}

/// One 512-byte sector in GiB.
const SECTOR_GIB: f64 = 512.0 / (1u64 << 30) as f64;

/// How many sectors (0..1024, about one outer track of the wd-raptor-150:
/// 984 sectors) file `file` starts after its 1M boundary in placement
/// `placement`; 0 for placement 0. A fixed hash (SplitMix64's finalizer),
/// so every run places the files alike.
fn sub_track_shift(placement: u64, file: u32) -> f64 {
    if placement == 0 {
        return 0.0;
    }
    let mut z = placement
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(u64::from(file));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % 1024) as f64
}

/// Placements of §5.3's run beyond the literal one (`seek_placement`).
const PLACEMENTS: u64 = 10;

fn flows_of<'a>(
    r: &'a SimReport,
    app: &'a str,
) -> impl Iterator<Item = &'a sluice_runtime::report::FlowReport> + 'a {
    r.flows
        .iter()
        .filter(move |f| f.name.starts_with(&format!("{app}.")))
}

/// When the last thread of `app` finished.
fn done(r: &SimReport, app: &str) -> f64 {
    flows_of(r, app)
        .map(|f| f.done_s.unwrap_or(r.sim_time_s))
        .fold(0.0, f64::max)
}

/// Disk-time shares of app1 and app2 while both ran.
fn shares(r: &SimReport, bin_s: f64) -> (f64, f64) {
    let until = ((done(r, "app1").min(done(r, "app2"))) / bin_s).floor() as usize;
    let sum = |app: &str| -> f64 {
        flows_of(r, app)
            .map(|f| {
                f.disk_timeline_s
                    .as_deref()
                    .unwrap_or(&[])
                    .iter()
                    .take(until)
                    .sum::<f64>()
            })
            .sum()
    };
    let (a, b) = (sum("app1"), sum("app2"));
    let t = (a + b).max(f64::MIN_POSITIVE);
    (a / t, b / t)
}

/// Mean disk time per request of `app`, in ms.
fn ms_per_request(r: &SimReport, app: &str) -> f64 {
    let (t, n) =
        flows_of(r, app).fold((0.0, 0u64), |(t, n), f| (t + f.disk_time_s, n + f.requests));
    1e3 * t / n.max(1) as f64
}

/// How much later Program 2 (app2) finished than Program 1, in % of
/// Program 1's time.
fn lag_pct(r: &SimReport) -> f64 {
    100.0 * (done(r, "app2") / done(r, "app1") - 1.0)
}

fn mb_s(r: &SimReport, app: &str) -> f64 {
    let bytes: u64 = flows_of(r, app).map(|f| f.bytes).sum();
    bytes as f64 / 1e6 / done(r, app).max(1e-9)
}

/// The §7 case study's workload: 32 tiobench threads in one class.
const TCQ_W: &str = "32x1000-rand4k";
/// The same with each thread in a class of its own.
const TCQ_W_PER_THREAD: &str = "32x1000-rand4k-class-per-thread";

/// §7's case study: 32 threads, each reading `n` random 4 KiB blocks of its
/// own 512 MiB file, on a drive that queues 32 commands and serves them
/// SATF. The threads form one class, or one class each.
fn tcq_scenario(sched: &str, class_per_thread: bool, n: u64) -> ScenarioBuilder {
    let classes: Vec<String> = if class_per_thread {
        (0..32).map(|i| format!("t{i}")).collect()
    } else {
        vec!["tiobench".to_string()]
    };
    let class_refs: Vec<&str> = classes.iter().map(|c| c.as_str()).collect();
    let w = if class_per_thread {
        TCQ_W_PER_THREAD
    } else {
        TCQ_W
    };
    let mut t = head(w, sched, &class_refs)
        .preset(RAPTOR)
        .queue_depth(32)
        .internal("satf");
    for i in 0..32 {
        let c = &classes[if class_per_thread { i } else { 0 }];
        t = t.flow(
            FlowBuilder::new(format!("t{i}.t"), Pattern::RandRead)
                .class(c.as_str())
                .request_kib(4)
                .file_gib(0.5)
                .offset_gib(i as f64 * 0.5)
                .requests(n),
        );
    }
    t
}

/// What `--quick` shortens.
pub(super) const QUICK: &str = "150 random reads per tiobench thread instead of 1000, programs of 500 reads instead of 2730, 200 reads per TCQ thread instead of 1000";

/// Every experiment of the paper.
pub(super) fn experiments(opts: &super::Options) -> Result<Vec<Experiment>> {
    let quick = opts.quick;
    let n = if quick { 150 } else { 1000 };
    // A program reads a third of a 512 MiB file per thread in 64 KiB reads.
    let prog_reqs = if quick { 500 } else { 512 * 1024 / 3 / 64 };
    let scheds = ["vios", "fq-rr"];
    let mut jobs = Jobs::new(Some(100));
    let two = ["app1", "app2"];
    let mut reqsize = Vec::new();
    let mut seek = Vec::new();
    let mut iso_size = Vec::new();
    let mut iso_seek = Vec::new();
    let mut alone = Vec::new();
    for s in scheds {
        let t = head("4k-vs-256k", s, &two)
            .preset(RAPTOR)
            .flow(tiobench("app1", 8, n, 4, 0.0))
            .flow(tiobench("app2", 8, n, 256, 4.0));
        reqsize.push((s, jobs.add(t)));
        let t = head("1M-vs-64M", s, &two).preset(RAPTOR);
        let t = program(t, "app1", PROGRAM1, prog_reqs);
        let t = program(t, "app2", program2(64), prog_reqs);
        seek.push((s, jobs.add(t)));
        for kib in [4, 16, 32, 64, 128, 256, 512] {
            let t = head(&format!("app2-{kib}k"), s, &two)
                .preset(RAPTOR)
                .flow(tiobench("app1", 8, n, 4, 0.0))
                .flow(tiobench("app2", 8, n, kib, 4.0));
            iso_size.push((s, format!("app2-{kib}k"), jobs.add(t)));
        }
        for d in [1, 16, 32, 64] {
            let t = head(&format!("app2-{d}M"), s, &two).preset(RAPTOR);
            let t = program(t, "app1", PROGRAM1, prog_reqs);
            let t = program(t, "app2", program2(d), prog_reqs);
            iso_seek.push((s, format!("app2-{d}M"), jobs.add(t)));
        }
        let t = head("app1-alone", s, &two)
            .preset(RAPTOR)
            .flow(tiobench("app1", 8, n, 4, 0.0));
        let p = program(
            head("program1-alone", s, &two).preset(RAPTOR),
            "app1",
            PROGRAM1,
            prog_reqs,
        );
        alone.push((s, jobs.add(t), jobs.add(p)));
    }
    // §5.3 again, each run with the files moved on by less than a track, and
    // each program alone (literal placement).
    let mut placed = Vec::new();
    for k in 1..=PLACEMENTS {
        let t = head("1M-vs-64M", "vios", &two).preset(RAPTOR);
        let t = program_at(t, "app1", PROGRAM1, prog_reqs, k);
        let t = program_at(t, "app2", program2(64), prog_reqs, k);
        placed.push(jobs.add(t));
    }
    let p2_alone = jobs.add(program(
        head("program2-alone", "vios", &two).preset(RAPTOR),
        "app2",
        program2(64),
        prog_reqs,
    ));
    // §7: 32 threads x 1000 random 4 KB reads on a queueing drive. The
    // threads are one tiobench process, so one class (see `tcq`); the
    // class-per-thread reading runs beside it for vios and vios-p.
    let tcq_n = if quick { 200 } else { 1000 };
    let mut tcq = Vec::new();
    for s in ["vios", "vios-p", "noop", "deadline", "cfq"] {
        tcq.push((s, TCQ_W, jobs.add(tcq_scenario(s, false, tcq_n))));
    }
    for s in ["vios", "vios-p"] {
        tcq.push((s, TCQ_W_PER_THREAD, jobs.add(tcq_scenario(s, true, tcq_n))));
    }

    let res = jobs.run(opts)?;
    let bin = 0.1;
    let mut out = Vec::new();
    let mut pair = |id: &str, title: &str, notes: &str, workload: &str, list: &[(&str, usize)]| {
        let mut rows = Vec::new();
        for (s, i) in list {
            let r = &res[*i];
            let (a, b) = shares(r, bin);
            let fair = (*s == "vios").then_some(0.5);
            rows.push(row(s, workload, "disk_share_app1", "fraction", a, fair));
            rows.push(row(s, workload, "disk_share_app2", "fraction", b, fair));
            rows.push(row(s, workload, "mb_s_app1", "MB/s", mb_s(r, "app1"), None));
            rows.push(row(s, workload, "mb_s_app2", "MB/s", mb_s(r, "app2"), None));
            rows.push(row(s, workload, "app1_done_s", "s", done(r, "app1"), None));
            rows.push(row(s, workload, "app2_done_s", "s", done(r, "app2"), None));
            if id == "seek" {
                // §5.3: Program 1 done at about 170 s, Program 2 about 30 s
                // later.
                let paper = (*s == "vios").then_some(100.0 * 30.0 / 170.0);
                rows.push(row(s, workload, "app2_lag_pct", "%", lag_pct(r), paper));
                rows.push(row(
                    s,
                    workload,
                    "app1_ms_per_req",
                    "ms",
                    ms_per_request(r, "app1"),
                    None,
                ));
                rows.push(row(
                    s,
                    workload,
                    "app2_ms_per_req",
                    "ms",
                    ms_per_request(r, "app2"),
                    None,
                ));
            }
        }
        out.push(super::experiment("vios", id, title, notes, rows));
    };
    pair(
        "reqsize",
        "Disk-time shares: 4 KB against 256 KB requests (wd-raptor-150)",
        &format!("Two classes of 8 tiobench-like threads, {n} random reads each, quantum 20 ms, FCFS inside a class. Paper (Fig. 2): about 50% of the disk time each under VIOS."),
        "4k-vs-256k",
        &reqsize,
    );
    pair(
        "seek",
        "Disk-time shares: 1M against 64M sector seeks (wd-raptor-150)",
        "Programs 1 and 2: three threads each reading a third of their 512 MiB file in 64 KiB reads; 64 files of 1M sectors on the disk, Program 1 on files 5-7, Program 2 on files 1, 33 and 64. Paper (Fig. 3): about 50% each; Program 1 done at about 170 s, Program 2 about 30 s later.",
        "1M-vs-64M",
        &seek,
    );
    // Isolation: app1's time against each app2 variant, and app1 alone
    // (`alone` index 1: tiobench app1, 2: Program 1).
    let isolation = |list: &[(&str, String, usize)], which: usize| {
        let mut rows = Vec::new();
        for (s, w, i) in list {
            let r = &res[*i];
            let solo = alone
                .iter()
                .find(|a| a.0 == *s)
                .map(|a| if which == 1 { a.1 } else { a.2 });
            let solo = solo.expect("every scheduler has its alone runs");
            rows.push(row(s, w, "app1_done_s", "s", done(r, "app1"), None));
            rows.push(row(s, w, "app2_done_s", "s", done(r, "app2"), None));
            rows.push(row(
                s,
                w,
                "app1_alone_s",
                "s",
                done(&res[solo], "app1"),
                None,
            ));
        }
        rows
    };
    for (id, title, notes, set, which) in [
        (
            "isolation_size",
            "Isolation: app1 (4 KB) against app2 of growing request size",
            "Paper (Fig. 4): app1's time does not change with app2's request size under VIOS.",
            &iso_size,
            1,
        ),
        (
            "isolation_seek",
            "Isolation: Program 1 (1M) against Program 2 of growing seek distance",
            "Paper (Fig. 5): Program 1's time does not change with Program 2's seek distance under VIOS.",
            &iso_seek,
            2,
        ),
    ] {
        out.push(super::experiment("vios", id, title, notes, isolation(set, which)));
    }
    // Program 2's lag against where exactly the files lie.
    let mut rows = Vec::new();
    let p1_alone = alone.iter().find(|a| a.0 == "vios").map(|a| a.2);
    let p1_alone = &res[p1_alone.expect("vios has its alone runs")];
    let p2_alone = &res[p2_alone];
    for (app, r) in [("app1", p1_alone), ("app2", p2_alone)] {
        let w = "alone";
        rows.push(row(
            "vios",
            w,
            &format!("{app}_done_s"),
            "s",
            done(r, app),
            None,
        ));
        rows.push(row(
            "vios",
            w,
            &format!("{app}_ms_per_req"),
            "ms",
            ms_per_request(r, app),
            None,
        ));
    }
    let lags: Vec<f64> = placed.iter().map(|&i| lag_pct(&res[i])).collect();
    for (k, &i) in placed.iter().enumerate() {
        let r = &res[i];
        let w = format!("placement-{}", k + 1);
        rows.push(row("vios", &w, "app1_done_s", "s", done(r, "app1"), None));
        rows.push(row("vios", &w, "app2_done_s", "s", done(r, "app2"), None));
        rows.push(row("vios", &w, "app2_lag_pct", "%", lags[k], None));
    }
    let w = format!("{PLACEMENTS}-placements");
    let paper = Some(100.0 * 30.0 / 170.0);
    let lo = lags.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = lags.iter().cloned().fold(0.0, f64::max);
    let mean = lags.iter().sum::<f64>() / lags.len().max(1) as f64;
    rows.push(row("vios", &w, "app2_lag_min_pct", "%", lo, None));
    rows.push(row("vios", &w, "app2_lag_mean_pct", "%", mean, paper));
    rows.push(row("vios", &w, "app2_lag_max_pct", "%", hi, None));
    out.push(super::experiment(
        "vios",
        "seek_placement",
        "Program 2's lag behind Program 1 against the files' exact sectors (vios, wd-raptor-150)",
        &format!("The 1M-vs-64M run with each of the six files moved on from its 1M-sector boundary by 0-1023 sectors (less than an outer track; a fixed hash per placement), {PLACEMENTS} placements; and each program alone at the literal placement. The three threads of a program advance in lockstep, so the rotational wait after each short seek repeats: where the files start within a track sets Program 1's cost per request. Paper (§5.3): Program 2 about 30 s after Program 1's 170 s."),
        rows,
    ));
    let mut rows = Vec::new();
    for (s, w, i) in &tcq {
        let r = &res[*i];
        let reqs: u64 = r.flows.iter().map(|f| f.requests).sum();
        let avg = r
            .flows
            .iter()
            .map(|f| f.lat_ms.mean * f.requests as f64)
            .sum::<f64>()
            / reqs.max(1) as f64;
        let max = r.flows.iter().map(|f| f.lat_ms.max).fold(0.0, f64::max);
        let slow: u64 = r.flows.iter().map(|f| f.over_1s).sum();
        let dones: Vec<f64> = r
            .flows
            .iter()
            .map(|f| f.done_s.unwrap_or(r.sim_time_s))
            .collect();
        rows.push(row(s, w, "avg_lat_ms", "ms", avg, None));
        rows.push(row(s, w, "max_lat_ms", "ms", max, None));
        rows.push(row(
            s,
            w,
            "pct_over_1s",
            "%",
            100.0 * slow as f64 / reqs.max(1) as f64,
            // Fig. 6 as the text reads it: none for VIOS(P), about 5% for
            // Deadline and Noop; no figure for the others.
            match (*s, *w) {
                ("vios-p", TCQ_W) => Some(0.0),
                ("noop" | "deadline", _) => Some(5.0),
                _ => None,
            },
        ));
        rows.push(row(
            s,
            w,
            "first_done_s",
            "s",
            dones.iter().cloned().fold(f64::INFINITY, f64::min),
            None,
        ));
        rows.push(row(
            s,
            w,
            "last_done_s",
            "s",
            dones.iter().cloned().fold(0.0, f64::max),
            None,
        ));
        if *s == "vios-p" {
            // How often VIOS(P)'s sector budget, not an empty class or the
            // quantum, ended a turn.
            let st = |k: &str| r.policy_stats.get(k).copied().unwrap_or(0.0);
            let turns = st("turns_quantum") + st("turns_emptied") + st("turns_budget");
            let pct = 100.0 * st("turns_budget") / turns.max(1.0);
            rows.push(row(s, w, "turns_ended_by_budget_pct", "%", pct, None));
        }
    }
    out.push(super::experiment(
        "vios",
        "tcq",
        "32 threads on a queueing drive (wd-raptor-150, depth 32, SATF)",
        &format!("32 threads x {tcq_n} random 4 KiB reads{}, each thread on its own 512 MiB file. The threads are one tiobench process, and VIOS was built on Linux 2.6.10's CFQ, whose queues are per process (thread group): one class of 32 threads under vios and vios-p ({TCQ_W}); {TCQ_W_PER_THREAD} gives each thread its own class instead. Paper (Fig. 6): VIOS(P) has no request over 1 s; Deadline and Noop about 5%; VIOS fairest.", if quick { " (--quick: the workloads keep the paper's label, 32x1000)" } else { "" }),
        rows,
    ));
    Ok(out)
}

/// The paper's claims: those its text and figures state ([`stated`]), and
/// the orders its numbers make ([`claims::order_claims`]).
pub(super) fn claims(exps: &[super::Experiment]) -> Vec<claims::Claim> {
    claims::with_orders(stated::claims(&claims::Figures(exps)), exps, &|_, _, _| {
        None
    })
}
