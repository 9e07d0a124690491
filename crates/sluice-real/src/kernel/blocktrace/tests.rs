use super::*;

// Lines captured from this kernel (6.18) on a loop device: `dd` O_DIRECT
// reads under none (no insert) and bfq, O_DIRECT|O_SYNC and O_DSYNC 4 KiB
// writes (a flush after each, and the write's data-less completion after
// it), buffered readahead.
const INSERT_BFQ: &str = "              dd-5581    [001] d..1.   289.337462: block_rq_insert: 7,0 RS 131072 () 0 + 256 be,0,4 [dd]";
const ISSUE: &str = "              dd-5574    [000] .....   289.251067: block_rq_issue: 7,0 RS 131072 () 0 + 256 be,0,4 [dd]";
const COMPLETE: &str = "     ksoftirqd/1-22      [001] ..s..   289.256130: block_rq_complete: 7,0 RS () 0 + 256 be,0,4 [0]";
const WRITE_ISSUE: &str = "              dd-5583    [001] .....   289.342266: block_rq_issue: 7,0 WS 4096 () 8 + 8 be,0,4 [dd]";
const FLUSH_ISSUE: &str = "    kworker/1:1H-44      [001] .....   289.341722: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [kworker/1:1H]";
const FLUSH_COMPLETE: &str = "     ksoftirqd/1-22      [001] ..s..   289.342178: block_rq_complete: 7,0 FF () 18446744073709551615 + 0 none,0,0 [0]";
const WRITE_END: &str = "     ksoftirqd/1-22      [001] d.s1.   289.342180: block_rq_complete: 7,0 WS () 0 + 0 be,0,4 [0]";
const READAHEAD: &str = "              dd-5587    [000] .....   289.354448: block_rq_issue: 7,0 RA 1310720 () 2560 + 2560 be,0,4 [dd]";
const FROM_ANOTHER_TASK: &str = "           rustc-6139    [001] ..s..   315.668704: block_rq_complete: 7,0 RS () 0 + 256 be,0,4 [0]";

#[test]
fn parse_line_reads_the_kernels_lines() {
    let e = parse_line(ISSUE).unwrap();
    assert_eq!(
        e,
        BlockEvent {
            kind: EventKind::Issue,
            time_ns: 289_251_067_000,
            write: false,
            sector: 0,
            sectors: 256,
            pid: 5574,
            comm: "dd".into(),
        }
    );
    let e = parse_line(INSERT_BFQ).unwrap();
    assert_eq!(
        (e.kind, e.pid, e.time_ns),
        (EventKind::Insert, 5581, 289_337_462_000)
    );
    let e = parse_line(COMPLETE).unwrap();
    assert_eq!(e.kind, EventKind::Complete);
    assert_eq!((e.pid, e.comm.as_str()), (22, "ksoftirqd/1"));
    assert_eq!((e.sector, e.sectors, e.write), (0, 256, false));
    let e = parse_line(WRITE_ISSUE).unwrap();
    assert_eq!((e.write, e.sector, e.sectors), (true, 8, 8));
    let e = parse_line(WRITE_END).unwrap();
    assert_eq!((e.kind, e.write, e.sectors), (EventKind::Complete, true, 0));
    let e = parse_line(READAHEAD).unwrap();
    assert_eq!((e.write, e.sector, e.sectors), (false, 2560, 2560));
    assert_eq!(parse_line(FROM_ANOTHER_TASK).unwrap().comm, "rustc");
}

#[test]
fn parse_line_skips_flushes_and_what_is_not_a_request_event() {
    assert_eq!(parse_line(FLUSH_ISSUE), None);
    assert_eq!(parse_line(FLUSH_COMPLETE), None);
    for junk in [
        "",
        "# tracer: nop",
        "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
        "CPU:1 [LOST 12 EVENTS]",
        "              dd-5574    [000] .....   289.251067: block_bio_queue: 7,0 R 0 + 256 [dd]",
        "              dd-5574    [000] .....   289.251067: block_rq_issue:",
        "              dd-5574    [000] .....   289.251067: block_rq_issue: 7,0 RS 131072 (",
        "              dd-5574    [000] .....   x.251067: block_rq_issue: 7,0 RS 131072 () 0 + 256 be,0,4 [dd]",
        "              dd-x    [000] .....   289.251067: block_rq_issue: 7,0 RS 131072 () 0 + 256 be,0,4 [dd]",
        ": block_rq_issue: : block_rq_",
        "é: block_rq_complete: é",
    ] {
        assert_eq!(parse_line(junk), None, "{junk:?}");
    }
    // Every cut of a real line is refused or read, never a panic.
    for line in [ISSUE, COMPLETE, WRITE_END, INSERT_BFQ] {
        for cut in 0..line.len() {
            let _ = parse_line(&line[..cut]);
            let _ = parse_line(&line[cut..]);
        }
    }
}

#[test]
fn parse_line_takes_names_with_spaces_and_other_rwbs() {
    let l = "  my worker-2-77    [001] .....   12.000001: block_rq_issue: 259,3 FWFS 4096 () 100 + 8 be,0,4 [my worker-2]";
    let e = parse_line(l).unwrap();
    assert_eq!((e.pid, e.comm.as_str(), e.write), (77, "my worker-2", true));
    assert_eq!(e.time_ns, 12_000_001_000);
    let passthrough =
        "  nvme-9    [000] .....   1.5: block_rq_issue: 259,0 R 512 (02 00 00) 7 + 1 be,0,4 [nvme]";
    let e = parse_line(passthrough).unwrap();
    assert_eq!((e.sector, e.sectors, e.time_ns), (7, 1, 1_500_000_000));
    // Kernels before the priority field.
    let old = "  dd-9    [000] .....   1.000002: block_rq_complete: 8,0 W () 64 + 8 [0]";
    assert_eq!(parse_line(old).unwrap().sector, 64);
    assert_eq!(direction("RA"), Some(false));
    assert_eq!(direction("WFS"), Some(true));
    assert_eq!(direction("D"), None);
    assert_eq!(direction("N"), None);
}

#[test]
fn lost_events_count_overruns_and_drops() {
    let stats = "entries: 5\noverrun: 3\ncommit overrun: 9\nbytes: 360\n\
                 oldest event ts:   289.251067\nnow ts:   289.477406\ndropped events: 2\nread events: 0\n";
    assert_eq!(lost_in_stats(stats), 5);
    assert_eq!(lost_in_stats("garbage"), 0);
}

#[test]
fn buffers_shrink_on_large_machines() {
    assert_eq!(buffer_kb(2), 8 * 1024);
    assert_eq!(buffer_kb(0), 8 * 1024);
    assert_eq!(buffer_kb(256), 2 * 1024);
    assert_eq!(buffer_kb(4096), 1024);
}

#[test]
fn the_first_tracefs_mount_is_found() {
    let m = "sysfs /sys sysfs rw 0 0\ntracefs /sys/kernel/debug/my\\040trace tracefs rw 0 0\n";
    assert_eq!(
        tracefs_mount(m),
        Some(PathBuf::from("/sys/kernel/debug/my trace"))
    );
    assert_eq!(tracefs_mount("sysfs /sys sysfs rw 0 0\n"), None);
}

fn ev(kind: EventKind, time_us: u64, write: bool, sector: u64, sectors: u32) -> BlockEvent {
    BlockEvent {
        kind,
        time_ns: time_us * 1000,
        write,
        sector,
        sectors,
        pid: 1,
        comm: "t".into(),
    }
}

fn req(write: bool, sector: u64, sectors: u32, from_us: u64, to_us: u64) -> AppRequest {
    AppRequest {
        write,
        sector,
        sectors,
        submitted_ns: from_us * 1000,
        returned_ns: to_us * 1000,
    }
}

use EventKind::{Complete, Insert, Issue};

#[test]
fn attach_matches_a_request_to_its_issue_and_completion() {
    let events = [
        ev(Insert, 10, false, 0, 256),
        ev(Issue, 11, false, 0, 256),
        ev(Complete, 20, false, 0, 256),
        // The same sectors read again later, and written meanwhile.
        ev(Issue, 25, true, 0, 256),
        ev(Complete, 30, true, 0, 256),
        ev(Issue, 41, false, 0, 256),
        ev(Complete, 50, false, 0, 256),
    ];
    let got = attach(
        &[
            req(false, 0, 256, 9, 21),
            req(false, 0, 256, 40, 51),
            req(true, 0, 256, 24, 31),
        ],
        &events,
    );
    assert_eq!(
        got,
        vec![
            Some((11_000, 20_000)),
            Some((41_000, 50_000)),
            Some((25_000, 30_000))
        ]
    );
}

#[test]
fn attach_gives_a_merged_requests_times_to_all_it_served() {
    // Three 8-sector reads merged into one 24-sector device request.
    let events = [
        ev(Issue, 15, false, 100, 24),
        ev(Complete, 30, false, 100, 24),
    ];
    let got = attach(
        &[
            req(false, 100, 8, 10, 31),
            req(false, 108, 8, 11, 31),
            req(false, 116, 8, 12, 32),
        ],
        &events,
    );
    assert_eq!(got, vec![Some((15_000, 30_000)); 3]);
}

#[test]
fn attach_takes_the_last_completion_of_a_split_request() {
    // One 1 MiB read split into 2560 + 2560 + 1024... here 3 pieces.
    let events = [
        ev(Issue, 5, false, 0, 256),
        ev(Issue, 6, false, 256, 256),
        ev(Issue, 7, false, 512, 128),
        ev(Complete, 20, false, 0, 256),
        ev(Complete, 25, false, 512, 128),
        ev(Complete, 22, false, 256, 256),
    ];
    let got = attach(&[req(false, 0, 640, 4, 26)], &events);
    assert_eq!(got, vec![Some((5_000, 25_000))]);
}

#[test]
fn attach_finds_nothing_outside_the_window_or_the_direction() {
    let events = [
        ev(Issue, 5, false, 0, 8),
        ev(Complete, 6, false, 0, 8),
        ev(Issue, 50, false, 8, 8),
        ev(Complete, 60, false, 8, 8),
        // Issued but never completed in the trace.
        ev(Issue, 70, false, 16, 8),
    ];
    let got = attach(
        &[
            // Issued before the syscall started: someone else's read.
            req(false, 0, 8, 10, 20),
            // Issued after it returned.
            req(false, 8, 8, 10, 40),
            // A write where only reads were traced.
            req(true, 0, 8, 1, 100),
            // Sectors nothing covered.
            req(false, 1000, 8, 1, 100),
            req(false, 16, 8, 69, 80),
        ],
        &events,
    );
    assert_eq!(got, vec![None; 5]);
    assert!(attach(&[], &events).is_empty());
    assert_eq!(attach(&[req(false, 0, 8, 0, 9)], &[]), vec![None]);
}

#[test]
fn attach_allows_for_the_traces_microseconds() {
    // Issued at 10.400 µs, printed as 10 µs: before the syscall's 10.300.
    let events = [ev(Issue, 10, false, 0, 8), ev(Complete, 12, false, 0, 8)];
    let r = AppRequest {
        write: false,
        sector: 0,
        sectors: 8,
        submitted_ns: 10_300,
        returned_ns: 12_900,
    };
    assert_eq!(attach(&[r], &events), vec![Some((10_000, 12_000))]);
}

#[test]
fn attach_picks_the_earliest_issue_after_each_submission() {
    // Many reads of the same sector, each its own request: each app request
    // is served by the first issue after it started.
    let mut events = Vec::new();
    let mut reqs = Vec::new();
    for k in 0..1000u64 {
        let t = 100 * k;
        events.push(ev(Issue, t + 2, false, 64, 8));
        events.push(ev(Complete, t + 50, false, 64, 8));
        reqs.push(req(false, 64, 8, t + 1, t + 51));
    }
    let got = attach(&reqs, &events);
    for (k, g) in got.iter().enumerate() {
        let t = 100 * k as u64;
        assert_eq!(*g, Some(((t + 2) * 1000, (t + 50) * 1000)), "{k}");
    }
}

/// Whether the test runs as root.
fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn tracefs_mounted() -> bool {
    fs::read_to_string("/proc/self/mounts").is_ok_and(|m| tracefs_mount(&m).is_some())
}

#[test]
fn start_refuses_what_is_not_a_block_device() {
    let state = tempfile::tempdir().unwrap();
    let journal = Arc::new(Journal::begin_in(state.path(), "test").unwrap());
    let file = state.path().join("not-a-device");
    File::create(&file).unwrap();
    // Refused before anything is mounted or made (whether root or not).
    let e = BlockTrace::start(&file, &journal).err().unwrap();
    assert!(e.is::<Refused>(), "{e:#}");
}

fn sluice_instances() -> Vec<String> {
    ["/sys/kernel/tracing/instances"]
        .iter()
        .filter_map(|d| fs::read_dir(d).ok())
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("sluice-{}", std::process::id())))
        .collect()
}

#[test]
fn a_trace_of_twenty_direct_reads_on_a_loop_device() {
    if !root() {
        eprintln!("skipped: tracing the block layer needs root");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let img = work.path().join("disk.img");
    File::create(&img).unwrap().set_len(64 << 20).unwrap();
    let dev = match crate::testkit::Loop::over(&img, true) {
        Ok(dev) => dev,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let state = tempfile::tempdir().unwrap();
    let journal = Arc::new(Journal::begin_in(state.path(), "test").unwrap());
    let mounted_before = tracefs_mounted();
    // Dropped unfinished (an error path): undone all the same.
    drop(BlockTrace::start(Path::new(&dev.dev), &journal));
    assert_eq!(tracefs_mounted(), mounted_before);
    let trace = match BlockTrace::start(Path::new(&dev.dev), &journal) {
        Ok(t) => t,
        Err(e) if e.is::<Refused>() => {
            eprintln!("skipped: {e}");
            return;
        }
        Err(e) => panic!("{e:#}"),
    };
    assert_eq!(sluice_instances().len(), 1, "the instance is there");
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&dev.dev)
        .unwrap();
    const LEN: usize = 128 << 10;
    let mut buf = vec![0u8; LEN + 4096];
    let off = buf.as_ptr().align_offset(4096);
    let mut reqs = Vec::new();
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) };
    for i in 0..20u64 {
        let at = i * 2 * LEN as u64; // every other 128 KiB: no merging
        let t0 = now_ns();
        std::os::unix::fs::FileExt::read_exact_at(&f, &mut buf[off..off + LEN], at).unwrap();
        let t1 = now_ns();
        reqs.push(AppRequest {
            write: false,
            sector: at / 512,
            sectors: (LEN / 512) as u32,
            submitted_ns: t0,
            returned_ns: t1,
        });
    }
    drop(f);
    let traced = trace.finish().unwrap();
    assert_eq!(tracefs_mounted(), mounted_before, "tracefs as it was");
    assert_eq!(
        sluice_instances(),
        Vec::<String>::new(),
        "the instance is gone"
    );
    assert_eq!(traced.lost, 0);
    let of = |k: EventKind| -> Vec<&BlockEvent> {
        traced.events.iter().filter(|e| e.kind == k).collect()
    };
    let (issues, completes) = (of(Issue), of(Complete));
    assert_eq!(issues.len(), 20, "{:?}", traced.events);
    assert_eq!(completes.len(), 20, "{:?}", traced.events);
    for (i, r) in reqs.iter().enumerate() {
        for e in [issues[i], completes[i]] {
            assert_eq!((e.sector, e.sectors, e.write), (r.sector, r.sectors, false));
            assert!(
                e.time_ns + GRAIN_NS > r.submitted_ns && e.time_ns <= r.returned_ns,
                "{e:?} outside {r:?}"
            );
        }
        // Under `none` the reading thread issues its own request.
        assert_eq!(i64::from(issues[i].pid), tid, "{:?}", issues[i]);
    }
    let got = attach(&reqs, &traced.events);
    assert!(got.iter().all(Option::is_some), "{got:?}");
    assert!(
        traced
            .events
            .windows(2)
            .all(|w| w[0].time_ns <= w[1].time_ns),
        "time order"
    );
}
