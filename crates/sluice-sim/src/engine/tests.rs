//! Tests of the simulator engine: the loop around the driver.

use super::*;
use sluice::policy::Noop;
use sluice::{Capabilities, Decision, DeviceView, FlowConfig, FlowId, Request, Service};
use sluice_runtime::report::Perf;
use std::cell::RefCell;
use std::rc::Rc;

fn scenario(flows: &str, extra: &str) -> Scenario {
    let text = format!(
        "name = \"t\"\nseed = 5\nduration_s = 20\nwarmup_s = 2\n{extra}\n[device]\npreset = \"maxtor-stm332061\"\n\n[scheduler]\nname = \"noop\"\n{flows}"
    );
    Scenario::parse("t.toml", &text).unwrap()
}

const ONE_SEQ: &str = "[[flow]]\nname = \"r\"\npattern = \"seq-read\"\n";

/// Idle deadlines the policy set, and the instants it was woken at.
#[derive(Default)]
struct Calls {
    deadlines: Vec<Instant>,
    woken: Vec<Instant>,
}

/// FIFO that idles 5 ms before every dispatch, through the one time
/// channel, and logs its deadlines and wake-ups.
struct Idler {
    inner: Noop,
    until: Option<Instant>,
    ready: bool,
    calls: Rc<RefCell<Calls>>,
}

impl Scheduler for Idler {
    fn name(&self) -> &str {
        "idler"
    }
    fn add(&mut self, now: Instant, r: Request) {
        self.inner.add(now, r)
    }
    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        self.inner.merge(now, old, merged)
    }
    fn dispatch(&mut self, now: Instant, dev: &dyn DeviceView) -> Decision {
        if self.inner.queued() == 0 {
            return Decision::Nothing;
        }
        if std::mem::take(&mut self.ready) {
            return self.inner.dispatch(now, dev);
        }
        if self.until.is_none() {
            let t = now + Duration::from_millis(5);
            self.until = Some(t);
            self.calls.borrow_mut().deadlines.push(t);
        }
        Decision::Idle
    }
    fn complete(&mut self, now: Instant, r: &Request, s: &Service) {
        self.inner.complete(now, r, s)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.until
    }
    fn handle_timeout(&mut self, now: Instant) {
        self.calls.borrow_mut().woken.push(now);
        self.until = None;
        self.ready = true;
    }
    fn queued(&self) -> usize {
        self.inner.queued()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::idling_if(true)
    }
}

#[test]
fn the_driver_calls_back_exactly_when_idling_ends() {
    let calls = Rc::new(RefCell::new(Calls::default()));
    let policy = Idler {
        inner: Noop::default(),
        until: None,
        ready: false,
        calls: calls.clone(),
    };
    let s = scenario(ONE_SEQ, "");
    let r = Simulation::with_policy(&s, Box::new(policy)).unwrap().run();
    assert!(r.aggregate.requests > 100);
    let calls = calls.borrow();
    assert!(!calls.deadlines.is_empty());
    // Woken at every deadline, and only then (the last may be past the end).
    let n = calls.woken.len();
    assert!(n + 1 >= calls.deadlines.len() && n <= calls.deadlines.len());
    assert_eq!(calls.woken[..], calls.deadlines[..n]);
    // Every request waited its 5 ms before dispatch, then was served.
    assert!(r.flows[0].lat_ms.p50 > 5.0, "{}", r.flows[0].lat_ms.p50);
}

#[test]
fn one_sync_reader_keeps_the_disk_busy_and_is_charged_for_it() {
    let r = simulate(&scenario(ONE_SEQ, "")).unwrap();
    let f = &r.flows[0];
    // Measured window is 18 s; the disk never idles for a greedy reader.
    assert!((f.disk_time_s - 18.0).abs() < 0.1, "{}", f.disk_time_s);
    assert_eq!(f.requests, r.aggregate.requests);
    assert!((r.aggregate.mb_s - f.mb_s).abs() < 1e-9);
}

#[test]
fn disk_time_is_split_among_requests_in_flight() {
    let flows = "[[flow]]\nname = \"r\"\ncount = 4\npattern = \"rand-read\"\n";
    let s = scenario(flows, "");
    let mut deep = s.clone();
    deep.device.queue_depth = 4;
    for sc in [s, deep] {
        let r = simulate(&sc).unwrap();
        let total: f64 = r.flows.iter().map(|f| f.disk_time_s).sum();
        // Never more than the wall of the measured window (18 s), and
        // close to it: four greedy readers keep the device busy.
        assert!(total <= 18.0 + 0.05 && total > 17.5, "{total}");
    }
}

#[test]
fn warmup_excludes_early_completions() {
    let mut a = scenario(ONE_SEQ, "");
    a.warmup = Duration::ZERO;
    let b = scenario(ONE_SEQ, "");
    let (ra, rb) = (simulate(&a).unwrap(), simulate(&b).unwrap());
    assert!(ra.aggregate.requests > rb.aggregate.requests);
    // Same rate either way for a steady stream.
    assert!((ra.aggregate.mb_s - rb.aggregate.mb_s).abs() / rb.aggregate.mb_s < 0.02);
}

#[test]
fn finite_flows_report_done_time_and_end_the_run() {
    let flows = "[[flow]]\nname = \"r\"\npattern = \"rand-read\"\nrequests = 200\nstart_s = 1\n";
    let mut s = scenario(flows, "");
    s.warmup = Duration::ZERO;
    let r = simulate(&s).unwrap();
    let done = r.flows[0].done_s.unwrap();
    assert_eq!(r.flows[0].requests, 200);
    assert!(
        (r.sim_time_s - 1.0 - done).abs() < 1e-9,
        "{} {}",
        r.sim_time_s,
        done
    );
    // 200 random reads at roughly 8 ms each.
    assert!(done > 0.8 && done < 3.0, "{done}");
}

#[test]
fn same_seed_same_report_other_seed_other_report() {
    let flows = "[[flow]]\nname = \"r\"\ncount = 3\npattern = \"rand-read\"\n";
    let s = scenario(flows, "");
    let strip = |mut r: SimReport| {
        r.perf = Perf {
            events: r.perf.events,
            wall_s: 0.0,
            requests_per_wall_s: 0.0,
        };
        r
    };
    let a = strip(simulate(&s).unwrap());
    let b = strip(simulate(&s).unwrap());
    assert_eq!(a, b);
    let mut other = s.clone();
    other.seed = 6;
    assert_ne!(a, strip(simulate(&other).unwrap()));
}

#[test]
fn think_time_slows_a_reader_down() {
    let fast = simulate(&scenario(ONE_SEQ, "")).unwrap();
    let slow = simulate(&scenario(&format!("{ONE_SEQ}think_ms = 10\n"), "")).unwrap();
    // 128 KiB every (about 1.5 + 10) ms.
    assert!(
        slow.aggregate.mb_s < fast.aggregate.mb_s / 4.0,
        "{}",
        slow.aggregate.mb_s
    );
    assert!(slow.aggregate.mb_s > 8.0, "{}", slow.aggregate.mb_s);
}

#[test]
fn async_writers_keep_up_to_their_cap_in_flight() {
    let run = |outstanding: u32| {
        let flows = format!(
            "[[flow]]\nname = \"w\"\npattern = \"rand-write\"\noutstanding = {outstanding}\n"
        );
        let mut s = scenario(&flows, "");
        s.device.queue_depth = 8;
        s.device.write_cache = Some(false);
        simulate(&s).unwrap()
    };
    let (one, three) = (run(1), run(3));
    assert!(one.aggregate.write_mb_s > 0.0 && one.aggregate.read_mb_s == 0.0);
    // Three queued writes let the drive pick the nearest (SATF), and
    // each waits behind the others.
    assert!(three.aggregate.iops > 1.1 * one.aggregate.iops);
    assert!(three.flows[0].lat_ms.mean > 1.5 * one.flows[0].lat_ms.mean);
}

#[test]
fn paced_writers_issue_one_write_per_think_time() {
    let flows = "[[flow]]\nname = \"w\"\npattern = \"rand-write\"\nthink_ms = 20\n";
    let r = simulate(&scenario(flows, "")).unwrap();
    // 18 s measured at one write per 20 ms: 900 writes, from the cache.
    let n = r.flows[0].requests;
    assert!((895..=905).contains(&n), "{n}");
    assert!(r.flows[0].lat_ms.mean < 1.0, "{}", r.flows[0].lat_ms.mean);
}

/// Noop that logs which flows it was told about.
struct Registry {
    inner: Noop,
    events: Rc<RefCell<Vec<(bool, u32)>>>,
    seen: Rc<RefCell<Vec<u32>>>,
}

impl Scheduler for Registry {
    fn name(&self) -> &str {
        "registry"
    }
    fn add_flow(&mut self, _now: Instant, flow: FlowId, _c: &FlowConfig) {
        self.events.borrow_mut().push((true, flow.0));
    }
    fn remove_flow(&mut self, _now: Instant, flow: FlowId) {
        self.events.borrow_mut().push((false, flow.0));
    }
    fn add(&mut self, now: Instant, r: Request) {
        self.seen.borrow_mut().push(r.flow.0);
        self.inner.add(now, r)
    }
    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        self.inner.merge(now, old, merged)
    }
    fn dispatch(&mut self, now: Instant, dev: &dyn DeviceView) -> Decision {
        self.inner.dispatch(now, dev)
    }
    fn complete(&mut self, now: Instant, r: &Request, s: &Service) {
        self.inner.complete(now, r, s)
    }
    fn queued(&self) -> usize {
        self.inner.queued()
    }
}

#[test]
fn each_start_up_run_is_a_new_process() {
    let flows =
        "[[flow]]\nname = \"x\"\npattern = \"startup\"\ntrace = \"xterm\"\nruns = 2\npause_s = 1\n";
    let mut s = scenario(flows, "stop_after_finite = true");
    s.warmup = Duration::ZERO;
    s.duration = Duration::from_secs(60);
    let events = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::new(RefCell::new(Vec::new()));
    let policy = Registry {
        inner: Noop::default(),
        events: events.clone(),
        seen: seen.clone(),
    };
    let r = Simulation::with_policy(&s, Box::new(policy)).unwrap().run();
    assert_eq!(r.flows[0].startups, Some(2));
    // xterm has two threads: flows 0 and 1 first, then 2 and 3 after
    // 0 and 1 were removed.
    let ev = events.borrow();
    assert_eq!(
        *ev,
        vec![
            (true, 0),
            (true, 1),
            (false, 0),
            (false, 1),
            (true, 2),
            (true, 3)
        ]
    );
    let seen = seen.borrow();
    let half = seen.len() / 2;
    assert!(seen[..half].iter().all(|&f| f < 2));
    assert!(seen[half..].iter().all(|&f| f >= 2));
}

#[test]
fn the_request_log_holds_every_completion_in_order() {
    let flows = "[[flow]]\nname = \"r\"\ncount = 3\npattern = \"rand-read\"\n";
    let mut s = scenario(flows, "");
    s.warmup = Duration::ZERO;
    let (r, log) = Simulation::new(&s).unwrap().with_request_log().run_logged();
    assert_eq!(log.len() as u64, r.aggregate.requests);
    for x in &log {
        assert!(x.arrival <= x.dispatched && x.dispatched < x.completed);
        assert!(x.flow < 3 && !x.write && x.sectors == 8);
    }
    assert!(log.windows(2).all(|w| w[0].completed <= w[1].completed));
    let line = log[0].csv("r0");
    assert_eq!(
        line.split(',').count(),
        RequestRecord::CSV_HEADER.split(',').count()
    );
    // Without asking, no log.
    assert!(Simulation::new(&s).unwrap().run_logged().1.is_empty());
}

#[test]
fn the_timeline_bins_add_up_to_each_flows_bytes() {
    // Warm-up (2 s) ends on a bin boundary, so the bins after it hold
    // exactly the bytes the flow is credited with.
    let flows = "[[flow]]\nname = \"seq\"\npattern = \"seq-read\"\n\n[[flow]]\nname = \"rand\"\npattern = \"rand-read\"\nweight = 300\n";
    let s = scenario(flows, "");
    let r = Simulation::new(&s)
        .unwrap()
        .with_timeline(Duration::from_millis(500))
        .run();
    let t = r.timeline.expect("asked for a timeline");
    assert_eq!(t.interval_s, 0.5);
    assert_eq!(t.flows.0.len(), 2);
    for (f, (name, series)) in r.flows.iter().zip(&t.flows.0) {
        assert_eq!(&f.name, name);
        // 20 s of run in 0.5 s bins.
        assert_eq!(series.len(), 40, "{name}");
        let after_warmup: f64 = series[4..].iter().map(|mb_s| mb_s * 0.5 * 1e6).sum();
        assert!(f.bytes > 0, "{name}");
        assert!(
            (after_warmup - f.bytes as f64).abs() < 1.0,
            "{name}: bins {after_warmup} against {} bytes",
            f.bytes
        );
    }
    // Without asking, no timeline.
    assert!(Simulation::new(&s).unwrap().run().timeline.is_none());
}

/// osmodel.py's `buffered-writes`: five sequential readers and five
/// buffered sequential writers (one write() in flight each) under bfq+.
const BUFFERED: &str = r#"name = "5r5w-seq-buffered"
seed = 1
duration_s = 60
warmup_s = 10
[device]
preset = "maxtor-stm332061"
queue_depth = 1
max_request_kib = 1024
[scheduler]
name = "bfq+"
[[flow]]
name = "r"
count = 5
pattern = "seq-read"
request_kib = 128
file_gib = 5
[[flow]]
name = "w"
count = 5
pattern = "seq-write"
request_kib = 128
file_gib = 5
outstanding = 1
direct = false
"#;

#[test]
fn buffered_writers_block_now_and_then_and_writeback_goes_out_in_long_runs() {
    let s = Scenario::parse("b.toml", BUFFERED).unwrap();
    let sim = Simulation::new(&s).unwrap().with_request_log();
    let (report, log) = sim.run_logged();
    // The flusher is no flow of the report; the writers' bytes are
    // theirs, and so is their writeback (asynchronous).
    assert_eq!(report.flows.len(), 10);
    let writes: Vec<&RequestRecord> = log.iter().filter(|r| r.write).collect();
    assert!(!writes.is_empty());
    assert!(writes
        .iter()
        .all(|r| report.flows[r.flow as usize].name.starts_with('w') && !r.sync));
    let mean_kib =
        writes.iter().map(|r| u64::from(r.sectors)).sum::<u64>() as f64 / writes.len() as f64 / 2.0;
    assert!(
        mean_kib >= 512.0,
        "writes to the drive average {mean_kib} KiB"
    );
    for f in report.flows.iter().filter(|f| f.name.starts_with('w')) {
        let (p50, p99) = (f.lat_ms.p50, f.lat_ms.p99);
        assert!(
            p99 >= 10.0 * p50 && p99 >= 20.0,
            "{}: p50 {p50} ms, p99 {p99} ms",
            f.name
        );
        assert!(f.mb_s > 0.0, "{}: nothing written", f.name);
    }
}

#[test]
fn a_buffered_read_of_cached_data_does_not_reach_the_disk() {
    // A writer, then a reader of the same file: what the reader asks
    // for the writer left in the cache.
    let flows = "[[flow]]\nname = \"w\"\npattern = \"seq-write\"\nfile_gib = 0.01\nrequests = 40\noutstanding = 1\ndirect = false\n\
                 [[flow]]\nname = \"r\"\npattern = \"seq-read\"\noffset_gib = 0\nfile_gib = 0.01\nrequests = 20\nstart_s = 3\ndirect = false\n";
    let s = scenario(flows, "");
    let (report, log) = Simulation::new(&s).unwrap().with_request_log().run_logged();
    assert!(
        log.iter().all(|r| r.write),
        "a read reached the disk: {log:?}"
    );
    let r = &report.flows[1];
    assert_eq!(r.requests, 20);
    assert!(
        r.lat_ms.p99 < 1.0,
        "hits at memory speed: {} ms",
        r.lat_ms.p99
    );
}

#[test]
fn an_os_table_changes_nothing_for_direct_flows() {
    let plain = scenario(ONE_SEQ, "");
    let with_os = scenario(ONE_SEQ, "[os]\nmemory_mib = 64\ndirty_ratio = 50\n");
    let (a, la) = Simulation::new(&plain)
        .unwrap()
        .with_request_log()
        .run_logged();
    let (b, lb) = Simulation::new(&with_os)
        .unwrap()
        .with_request_log()
        .run_logged();
    assert_eq!(la, lb);
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.perf.events, b.perf.events);
}
