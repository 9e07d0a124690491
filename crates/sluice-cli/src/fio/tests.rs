//! Tests of `mod.rs`.

use super::*;

#[test]
fn each_job_and_copy_is_a_flow_with_its_options() {
    let text = "[global]\nsize=64m\nruntime=2\ntime_based\n[r]\nrw=randread\nbs=4k\niodepth=4\nnumjobs=2\n[w]\nrw=write\nbs=128k\n";
    let jobs = jobfile::parse("t", text).unwrap();
    let (b, infos, _) = scenario("t", Path::new("t.fio"), &jobs, "noop").unwrap();
    let s = b.preset(DEFAULT_PRESET).build().unwrap();
    assert_eq!(s.flows.len(), 3);
    assert_eq!(
        (s.flows[0].name.as_str(), s.flows[1].name.as_str()),
        ("r#0", "r#1")
    );
    assert_eq!(s.flows[0].request_sectors, 8);
    assert_eq!(s.flows[0].outstanding, 4);
    assert_eq!(s.flows[2].pattern(), Pattern::SeqWrite);
    assert_eq!(s.flows[2].requests, None);
    assert_eq!(s.duration.as_secs_f64(), 2.0);
    let names: Vec<_> = infos.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, vec!["r", "r", "w"]);
    assert_eq!(
        (infos[0].bs, infos[2].bs, infos[2].write),
        (4096, 128 << 10, true)
    );
    // A job's own options, not the globals it inherits.
    assert_eq!(infos[2].options[0], ("rw".to_string(), "write".to_string()));
}

#[test]
fn without_time_based_a_job_ends_when_its_size_is_done() {
    let r = simulate_text("[a]\nrw=read\nbs=128k\nsize=4m\n").unwrap();
    assert_eq!(r.flows[0].requests, 32);
    assert_eq!(r.flows[0].bytes, 4 << 20);
}

#[test]
fn bad_values_are_errors_naming_the_line() {
    for (text, what) in [
        ("[a]\nrw=randrw\nsize=1g\n", "line 2: rw=randrw"),
        ("[a]\nrw=read\n", "needs size="),
        ("[a]\nsize=1g\nbs=512\n", "multiple of 1k"),
        ("[a]\nsize=1g\ndirect=0\n", "line 3: direct=0"),
        ("[a]\nsize=1g\ntime_based\n", "time_based needs runtime"),
        (
            "[a]\nsize=1g\nruntime=1\n[b]\nsize=1g\nruntime=2\n",
            "one runtime",
        ),
        ("[a]\nsize=1g\niodepth=0\n", "line 3: iodepth=0"),
        ("[a]\nsize=1g\nramp_time=1\n", "line 3: ramp_time=1"),
        ("[a]\nsize=1g\nruntime=0.0000001\n", "line 3: runtime=0.0000001"),
        ("[a]\nsize=1g\nthinktime=20000s\n", "line 3: thinktime=20000s"),
        ("[a]\nsize=1g\nrate_iops=1e300\n", "line 3: rate_iops=1e300"),
        (
            "[a]\nsize=1g\nruntime=1\ntime_based\nramp_time=1\n[b]\nsize=1g\nruntime=1\ntime_based\n",
            "one ramp_time",
        ),
    ] {
        let jobs = jobfile::parse("t", text).unwrap();
        let e = scenario("t", Path::new("t.fio"), &jobs, "noop")
            .err()
            .map(|e| format!("{e:#}"));
        assert!(
            e.as_deref().is_some_and(|e| e.contains(what)),
            "{text:?}: {e:?}"
        );
    }
}

#[test]
fn ramp_time_runs_before_the_measured_runtime() {
    let r =
        simulate_text("[a]\nrw=randread\nbs=4k\nsize=1g\nruntime=2\nramp_time=500ms\ntime_based\n")
            .unwrap();
    assert_eq!((r.measured_from_s, r.sim_time_s), (0.5, 2.5));
    let iops = r.flows[0].requests as f64 / 2.0;
    assert!((50.0..200.0).contains(&iops), "{iops}");
}

#[test]
fn samples_are_dropped_only_past_the_memory_bound() {
    let plan = |text: &str| {
        let jobs = jobfile::parse("t", text).unwrap();
        let (b, _, _) = scenario("t", Path::new("t.fio"), &jobs, "noop").unwrap();
        b.preset(DEFAULT_PRESET).build().unwrap()
    };
    assert!(samples_fit(&plan("[a]\nsize=1m\nruntime=60\nnumjobs=64\n")));
    // 4096 jobs for an hour: 7,200 samples each is too many.
    assert!(!samples_fit(&plan("[a]\nsize=1m\nnumjobs=4096\n")));
}

#[test]
fn rate_iops_caps_a_job() {
    let r = simulate_text(
        "[a]\nrw=randread\nbs=4k\nsize=1g\nruntime=5\ntime_based\niodepth=8\nrate_iops=20\n",
    )
    .unwrap();
    let iops = r.flows[0].requests as f64 / 5.0;
    assert!((19.0..=21.0).contains(&iops), "{iops}");
}

/// Issue 24, defect 15: `[j1]` and `[j11]` with numjobs = 20 both made a
/// clone `j110`; fio accepts the file, so sluice must too.
#[test]
fn clones_of_j1_and_j11_have_distinct_names() {
    let text =
        "[global]\nrw=randread\nbs=4k\nsize=16m\nruntime=1\ntime_based\nnumjobs=20\n[j1]\n[j11]\n";
    let jobs = jobfile::parse("t", text).unwrap();
    let (b, infos, _) = scenario("t", Path::new("t.fio"), &jobs, "noop").unwrap();
    let s = b.preset(DEFAULT_PRESET).build().unwrap();
    assert_eq!(s.flows.len(), 40);
    assert_eq!(infos.len(), 40);
    assert_eq!(s.flows[10].name, "j1#10");
    assert_eq!(s.flows[20].name, "j11#0");
    assert!(infos[..20].iter().all(|i| i.name == "j1"));
}

/// Issue 24, defect 11: a job name with a control or bidi character is
/// refused with its line, shown escaped (when the file is read, and again
/// when its jobs become flows).
#[test]
fn job_names_with_control_or_bidi_characters_are_refused() {
    for name in ["a\u{1b}[2Jb", "evil\u{202e}cod", "x\u{7}"] {
        let text = format!("[ok]\nsize=1m\n[{name}]\nsize=1m\n");
        let e = jobfile::parse("t.fio", &text).unwrap_err().to_string();
        assert!(e.starts_with("t.fio: line 3: "), "{e}");
        assert!(!e.chars().any(sluice_runtime::names::unsafe_char), "{e:?}");
        let job = jobfile::Job {
            name: name.to_string(),
            line: 3,
            options: vec![("size".into(), "1m".into(), 4)],
            inherited: 0,
        };
        let e = scenario("t.fio", Path::new("t.fio"), &[job], "noop")
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("t.fio: line 3: job 0: the name \""), "{e}");
        assert!(!e.chars().any(sluice_runtime::names::unsafe_char), "{e:?}");
    }
}

/// Issue 24, defect 10: only a job with neither time_based nor a runtime
/// is measured against its size (fio too stops a job at its runtime).
#[test]
fn size_is_checked_only_where_sluices_own_limit_stops_a_job() {
    let plan = |text: &str| {
        let jobs = jobfile::parse("t", text).unwrap();
        scenario("t", Path::new("t.fio"), &jobs, "noop").unwrap().1
    };
    assert_eq!(
        plan("[j]\nrw=read\nbs=1k\nsize=100g\n")[0].size_done_at,
        Some(100 << 30)
    );
    assert_eq!(
        plan("[j]\nbs=3k\nsize=10k\n")[0].size_done_at,
        Some(9 << 10)
    );
    assert_eq!(plan("[j]\nsize=1g\nruntime=5\n")[0].size_done_at, None);
    assert_eq!(
        plan("[j]\nsize=1g\nruntime=5\ntime_based\n")[0].size_done_at,
        None
    );
}

/// fio runs two jobs of one name (reporting both under it); sluice said
/// "flow name 'a' is used twice".
#[test]
fn two_jobs_of_one_name_both_run() {
    let text =
        "[global]\nrw=randread\nbs=4k\nsize=16m\nruntime=1\ntime_based\n[a]\n[a]\nnumjobs=2\n";
    let jobs = jobfile::parse("t", text).unwrap();
    let (b, infos, _) = scenario("t", Path::new("t.fio"), &jobs, "noop").unwrap();
    let s = b.preset(DEFAULT_PRESET).build().unwrap();
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["a", "a#job2#0", "a#job2#1"]);
    assert!(infos.iter().all(|i| i.name == "a"));
}
