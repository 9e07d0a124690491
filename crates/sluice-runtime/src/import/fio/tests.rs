//! Tests of planning: job files into scenarios and notes (runs through
//! the simulator are in `tests/fio.rs`).

use std::path::Path;

use sluice_workload::Pattern;

use super::*;

/// `jobs` of the file `file` planned for a simulation under `scheduler`.
fn scenario(file: &str, path: &Path, jobs: &[Job], scheduler: &str) -> Result<Plan> {
    plan_for(file, path, jobs, scheduler, Target::default())
}

/// `jobs` planned for `target`.
fn plan_for(
    file: &str,
    path: &Path,
    jobs: &[Job],
    scheduler: &str,
    target: Target,
) -> Result<Plan> {
    let file = JobFile {
        name: file.to_string(),
        stem: path.file_stem().unwrap().to_string_lossy().into_owned(),
        jobs: jobs.to_vec(),
    };
    let options = FioOptions {
        scheduler: Some(scheduler.to_string()),
        target,
        max_duration_s: None,
    };
    super::plan(&file, &options)
}

/// A job file's text (file `t`, `t.fio`) planned for a simulation under
/// noop.
fn planned(text: &str) -> Result<Plan> {
    let jobs = jobfile::parse("t", text)?;
    scenario("t", Path::new("t.fio"), &jobs, "noop")
}

/// The error planning a job file's text fails with (reading it must not).
fn refusal(text: &str) -> String {
    let jobs = jobfile::parse("t", text).unwrap();
    match scenario("t", Path::new("t.fio"), &jobs, "noop") {
        Ok(_) => panic!("{text:?} was planned"),
        Err(e) => e.to_string(),
    }
}

/// The first group's scenario and jobs of a job file's text.
fn plan(text: &str) -> Result<(Scenario, Vec<JobInfo>)> {
    let g = &planned(text)?.groups[0];
    Ok((g.scenario(&FioOptions::default())?, g.jobs.clone()))
}

#[test]
fn each_job_and_copy_is_a_flow_with_its_options() {
    let text = "[global]\nsize=64m\nruntime=2\ntime_based\nioengine=libaio\n[r]\nrw=randread\nbs=4k\niodepth=4\nnumjobs=2\n[w]\nrw=write\nbs=128k\n";
    let (s, infos) = plan(text).unwrap();
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
fn bad_values_are_errors_naming_the_line() {
    for (text, what) in [
        ("[a]\nrw=trim\nsize=1g\n", "line 2: rw=trim"),
        ("[a]\nrw=sideways\nsize=1g\n", "line 2: rw=sideways"),
        ("[a]\nsize=1g\nbs=0\n", "request size"),
        ("[a]\nsize=1g\nzonemode=zbd\n", "line 3: zonemode=zbd"),
        (
            "[a]\nsize=1g\nfrobnicate=1\n",
            "line 3: option 'frobnicate'",
        ),
        (
            "[a]\nsize=1g\nrwmixread=170\nrw=randrw\n",
            "line 3: rwmixread=170",
        ),
        ("[a]\nsize=1g\ntime_based\n", "time_based needs runtime"),
        ("[a]\nsize=1g\niodepth=0\n", "line 3: iodepth=0"),
        (
            "[a]\nsize=1g\nruntime=0.0000001\n",
            "line 3: runtime=0.0000001",
        ),
        (
            "[a]\nsize=1g\nthinktime=20000s\n",
            "line 3: thinktime=20000s",
        ),
        ("[a]\nsize=1g\nrate_iops=1e300\n", "line 3: rate_iops=1e300"),
    ] {
        let e = refusal(text);
        assert!(e.contains(what), "{text:?}: {e}");
    }
}

#[test]
fn samples_are_dropped_only_past_the_memory_bound() {
    let plan = |text: &str| plan(text).unwrap().0;
    assert!(samples_fit(&plan("[a]\nsize=1m\nruntime=60\nnumjobs=64\n")));
    // 4096 jobs for an hour: 7,200 samples each is too many.
    assert!(!samples_fit(&plan("[a]\nsize=1m\nnumjobs=4096\n")));
}

/// Issue 24, defect 15: `[j1]` and `[j11]` with numjobs = 20 both made a
/// clone `j110`; fio accepts the file, so sluice must too.
#[test]
fn clones_of_j1_and_j11_have_distinct_names() {
    let text =
        "[global]\nrw=randread\nbs=4k\nsize=16m\nruntime=1\ntime_based\nnumjobs=20\n[j1]\n[j11]\n";
    let (s, infos) = plan(text).unwrap();
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
        assert!(!e.chars().any(crate::names::unsafe_char), "{e:?}");
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
        assert!(!e.chars().any(crate::names::unsafe_char), "{e:?}");
    }
}

/// Issue 24, defect 10: only a job with neither time_based nor a runtime
/// is measured against its size (fio too stops a job at its runtime).
#[test]
fn size_is_checked_only_where_sluices_own_limit_stops_a_job() {
    let plan = |text: &str| plan(text).unwrap().1;
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
    let (s, infos) = plan(text).unwrap();
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["a", "a#job2#0", "a#job2#1"]);
    assert!(infos.iter().all(|i| i.name == "a"));
}

#[test]
fn inline_comments_are_stripped() {
    let (s, _) = plan("[j]\nrw=randread  # a comment\nbs=8k ; another\nsize=64m\n").unwrap();
    assert_eq!(s.flows[0].pattern(), Pattern::RandRead);
    assert_eq!(s.flows[0].request_sectors, 16);
}

#[test]
fn include_reads_a_file_beside_the_job_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("common.fio"),
        "[global]\nbs=16k\nsize=32m\n",
    )
    .unwrap();
    let main = dir.path().join("main.fio");
    let text = "include common.fio\n[j]\nrw=read\n";
    let jobs = jobfile::parse(&main.display().to_string(), text).unwrap();
    assert_eq!(jobs[0].get("bs").map(|v| v.0), Some("16k"));
    let e = jobfile::parse(&main.display().to_string(), "include nope.fio\n[j]\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1: include nope.fio"), "{e}");
}

#[test]
fn fio_include_reads_through_the_bounded_reader() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.fio").display().to_string();
    for (bad, says) in sluice_input::testkit::refused(dir.path(), sluice_input::Kind::FioJob) {
        let text = format!("include {}\n[j]\nrw=read\n", bad.display());
        let e = jobfile::parse(&main, &text).unwrap_err().to_string();
        assert!(e.contains(says) && e.contains("line 1: include"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let e = jobfile::parse(&main, "include /dev/null\n[j]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("is a character device, not a regular file"),
        "{e}"
    );
}

#[test]
fn fio_include_fan_out_is_bounded() {
    // 6 files, each including the next 20 times: 20^6 reads unbounded
    // (within the depth limit).
    let dir = tempfile::tempdir().unwrap();
    for level in 0..6 {
        let next = format!("include l{}.fio\n", level + 1).repeat(20);
        std::fs::write(dir.path().join(format!("l{level}.fio")), next).unwrap();
    }
    std::fs::write(dir.path().join("l6.fio"), "[global]\nbs=4k\n").unwrap();
    let main = dir.path().join("main.fio").display().to_string();
    let e = jobfile::parse(&main, "include l0.fio\n[j]\nrw=read\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 100 includes in all"), "{e}");
    // Bytes too: a 9 MiB include read twice passes a job file's 16 MiB.
    let big = dir.path().join("big.fio");
    std::fs::write(&big, "; a comment line\n".repeat(9 << 16)).unwrap();
    let e = jobfile::parse(&main, "include big.fio\ninclude big.fio\n[j]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 2: include big.fio: the job file and its includes hold more than 16 MiB"),
        "{e}"
    );
}

#[test]
fn environment_and_fio_variables_are_substituted() {
    std::env::set_var("SLUICE_FIO_TEST_BS", "64k");
    let jobs = jobfile::parse(
        "t",
        "[j]\nbs=${SLUICE_FIO_TEST_BS}\nsize=$pagesize\nnumjobs=$ncpus\nio_size=$mb_memory\n",
    )
    .unwrap();
    assert_eq!(jobs[0].get("bs").map(|v| v.0), Some("64k"));
    assert_eq!(jobs[0].get("size").map(|v| v.0), Some("4096"));
    assert!(jobs[0].get("numjobs").unwrap().0.parse::<u32>().unwrap() >= 1);
    assert!(jobs[0].get("io_size").unwrap().0.parse::<u64>().unwrap() >= 1);
    // An unset variable is refused with its line, after the engine check.
    assert_eq!(
        refusal("[j]\nbs=${SLUICE_FIO_TEST_UNSET_VAR}\n"),
        "t: line 2: '${SLUICE_FIO_TEST_UNSET_VAR}' is not set in the environment"
    );
    let e = refusal("[j]\nbs=${SLUICE_FIO_TEST_UNSET_VAR}\nioengine=net\n");
    assert!(e.contains("line 3: ioengine=net"), "{e}");
}

#[test]
fn sizes_follow_fios_suffixes_and_kb_base() {
    let z = |v: &str, si: bool| jobfile::size_in("t", "size", v, 1, si).unwrap();
    assert_eq!(z("1k", false), 1024);
    assert_eq!(z("1KiB", false), 1024);
    assert_eq!(z("1kb", false), 1024);
    assert_eq!(z("2p", false), 2 << 50);
    assert_eq!(z("1.5m", false), 3 << 19);
    assert_eq!(z("1k", true), 1000);
    assert_eq!(z("1kb", true), 1000);
    assert_eq!(z("1KiB", true), 1024);
    assert_eq!(z("4M", true), 4_000_000);
}

#[test]
fn command_line_jobs_start_at_each_name() {
    let args: Vec<String> = [
        "--bs=8k",
        "--name=a",
        "--rw=randread",
        "--size=8m",
        "--name=b",
        "--size=4m",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let jobs = jobfile::parse_args(&args).unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(jobs[1].get("bs").map(|v| v.0), Some("8k"));
    assert_eq!(jobs[1].get("rw"), None);
    assert!(jobfile::parse_args(&["x".to_string()]).is_err());
}

#[test]
fn randrw_reports_the_mix_as_its_read_share() {
    let (s, infos) = plan("[j]\nrw=randrw\nrwmixread=70\nbs=4k\nsize=64m\n").unwrap();
    assert_eq!(s.flows[0].pattern(), Pattern::Pool);
    assert_eq!(infos[0].read_fraction, Some(0.7));
    let (_, infos) = plan("[j]\nrw=rw\nrwmixwrite=20\nsize=64m\n").unwrap();
    assert!((infos[0].read_fraction.unwrap() - 0.8).abs() < 1e-9);
}

#[test]
fn numjobs_copies_share_the_jobs_name() {
    let (s, infos) = plan("[global]\nsize=8m\n[w]\nrw=write\nnumjobs=3\n").unwrap();
    assert_eq!(s.flows.len(), 3);
    assert!(infos.iter().all(|i| i.name == "w" && i.write));
}

#[test]
fn stonewall_starts_a_group_that_runs_after_the_one_before() {
    let text = "[global]\nsize=8m\n[a]\nrw=read\n[b]\nrw=write\n[c]\nstonewall\nrw=randread\nruntime=1\n[d]\nnew_group\n";
    let jobs = jobfile::parse("t", text).unwrap();
    let groups = scenario("t", Path::new("t.fio"), &jobs, "noop")
        .unwrap()
        .groups;
    // stonewall runs c after a and b; d's new_group is a reporting group
    // of its own that runs beside c (as fio runs it).
    let sizes: Vec<usize> = groups.iter().map(|g| g.jobs.len()).collect();
    assert_eq!(sizes, [2, 2]);
    let ids: Vec<u32> = groups
        .iter()
        .flat_map(|g| g.jobs.iter().map(|i| i.group))
        .collect();
    assert_eq!(ids, [0, 0, 1, 2]);
}

#[test]
fn engines_set_the_depth_and_non_block_engines_are_refused() {
    let (s, _) = plan("[j]\nioengine=psync\niodepth=32\nsize=8m\n").unwrap();
    assert_eq!(s.flows[0].outstanding, 1);
    let (s, _) = plan("[j]\nioengine=libaio\niodepth=32\nsize=8m\n").unwrap();
    assert_eq!(s.flows[0].outstanding, 32);
    let jobs = jobfile::parse("t.fio", "[j]\nsize=8m\nverify=crc32c\nioengine=net\n").unwrap();
    let e = scenario("t.fio", Path::new("t.fio"), &jobs, "noop")
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.starts_with("t.fio: line 4: ioengine=net") && !e.contains('\n') && e.len() <= 200,
        "{e}"
    );
}

#[test]
fn buffered_jobs_go_through_the_page_cache_and_notes_say_what_was_ignored() {
    let text = "[j]\nrw=write\nsize=8m\ndirect=0\nverify=crc32c\nbsrange=4k-12k\n";
    let jobs = jobfile::parse("t", text).unwrap();
    let p = scenario("t", Path::new("t.fio"), &jobs, "noop").unwrap();
    let s = p.groups[0].scenario(&FioOptions::default()).unwrap();
    assert!(!s.flows[0].direct);
    assert_eq!(p.ignored, ["verify"]);
    assert!(p.notes[0].starts_with("bsrange=4k-12k"), "{:?}", p.notes);
}

#[test]
fn random_distribution_skews_random_jobs_as_fio_does() {
    use sluice_workload::Distribution;
    let zipf = Distribution::Zipf {
        theta: 1.2,
        center: None,
    };
    let (s, _) = plan("[j]\nrw=randread\nrandom_distribution=zipf:1.2\nsize=64m\n").unwrap();
    assert_eq!(s.flows[0].distribution, zipf);
    let (s, _) = plan("[j]\nrw=randrw\nrandom_distribution=zipf:1.2,pareto\nsize=64m\n").unwrap();
    assert_eq!(s.flows[0].distribution, zipf);
    let (s, _) = plan("[j]\nrw=randwrite\nrandom_distribution=pareto:0.3:0.5\nsize=64m\n").unwrap();
    assert_eq!(
        s.flows[0].distribution,
        Distribution::Pareto {
            h: 0.3,
            center: Some(0.5)
        }
    );
    // A sequential job has no random offsets to skew (fio ignores it).
    let (s, _) = plan("[j]\nrw=read\nrandom_distribution=zipf:1.2\nsize=64m\n").unwrap();
    assert_eq!(s.flows[0].distribution, Distribution::Uniform);
    let (s, _) = plan("[j]\nrw=randread\nsize=8m\nrandom_distribution=zoned:60/10:40/\n").unwrap();
    assert_eq!(
        s.flows[0].distribution,
        Distribution::Zoned(vec![(60.0, 10.0), (40.0, 90.0)])
    );
    // zoned_abs: sizes as shares of the job's size (1m of 4m: 25%).
    let (s, _) =
        plan("[j]\nrw=randread\nsize=4m\nrandom_distribution=zoned_abs:70/1m:30/3m\n").unwrap();
    assert_eq!(
        s.flows[0].distribution,
        Distribution::Zoned(vec![(70.0, 25.0), (30.0, 75.0)])
    );
    let notes = planned("[j]\nrw=randread\nsize=8m\nrandom_distribution=sequence:2,0,1\n")
        .unwrap()
        .notes;
    assert!(notes
        .iter()
        .any(|n| n.starts_with("random_distribution=sequence")));
    let e = refusal("[j]\nrw=randread\nsize=8m\nrandom_distribution=zipf:1\n");
    assert!(
        e.starts_with("t: line 4: random_distribution=zipf:1: zipf's theta") && !e.contains('\n'),
        "{e}"
    );
}

#[test]
fn fsync_every_n_writes_waits_for_them() {
    let (s, _) =
        plan("[j]\nrw=randwrite\nioengine=libaio\niodepth=16\ndirect=1\nfsync=8\nsize=64m\n")
            .unwrap();
    assert_eq!(s.flows[0].fsync_every, Some(8));
    let (s, _) = plan("[j]\nrw=write\nfdatasync=4\nsize=64m\n").unwrap();
    assert_eq!(s.flows[0].fsync_every, Some(4));
    let (s, _) = plan("[j]\nrw=write\nfsync=0\nsize=64m\n").unwrap();
    assert_eq!(s.flows[0].fsync_every, None);
    let (s, _) = plan("[j]\nrw=read\nfsync=4\nsize=64m\n").unwrap();
    assert_eq!(s.flows[0].fsync_every, None);
    let e = refusal("[j]\nrw=write\nsize=8m\nfsync=often\n");
    assert!(e.starts_with("t: line 4: fsync=often"), "{e}");
}

#[test]
fn without_direct_jobs_are_buffered_as_fios_default_except_under_run() {
    let (s, _) = plan("[j]\nrw=randread\nsize=64m\n").unwrap();
    assert!(!s.flows[0].direct);
    let (s, _) = plan("[j]\nrw=randread\nsize=64m\nbuffered=0\n").unwrap();
    assert!(s.flows[0].direct);
    let (s, _) = plan("[j]\nrw=randread\nsize=64m\ndirect=1\nbuffered=1\n").unwrap();
    assert!(s.flows[0].direct);
    let (s, _) = plan("[j]\nrw=randrw\nsize=64m\n").unwrap();
    assert!(!s.flows[0].direct);
    // Engines around the page cache (NVMe pass-through, DDN IME) are direct.
    for e in ["io_uring_cmd", "ime_psync"] {
        let (s, _) = plan(&format!("[j]\nrw=read\nsize=64m\nioengine={e}\n")).unwrap();
        assert!(s.flows[0].direct, "{e}");
    }
    // The real engine does O_DIRECT only, and the output says so.
    let jobs = jobfile::parse("t", "[j]\nrw=randread\nsize=64m\n").unwrap();
    let real = FioOptions {
        target: Target::Real,
        ..Default::default()
    };
    let p = plan_for("t", Path::new("t.fio"), &jobs, "noop", Target::Real).unwrap();
    let s = p.groups[0].scenario(&real).unwrap();
    assert!(s.flows[0].direct);
    assert!(
        p.notes.iter().any(|n| n.contains("O_DIRECT")),
        "{:?}",
        p.notes
    );
    let notes = scenario("t", Path::new("t.fio"), &jobs, "noop")
        .unwrap()
        .notes;
    assert!(!notes.iter().any(|n| n.starts_with("direct")));
}

#[test]
fn jobs_are_named_after_their_section_as_fio_names_them() {
    // fio 3.33 on this file reports file1, file1, renamed, file1.
    let text = "[global]\nname=glob\nsize=1m\n[file1]\nnumjobs=2\n[file2]\nname=renamed\n[file1]\n";
    let (s, infos) = plan(text).unwrap();
    let names: Vec<_> = infos.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["file1", "file1", "renamed", "file1"]);
    let flows: Vec<_> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(flows, ["file1#0", "file1#1", "renamed", "file1#job2"]);
}

#[test]
fn nrfiles_are_files_of_one_job_served_as_file_service_type_says() {
    use sluice_workload::FileService;
    let (s, _) = plan("[j]\nrw=read\nbs=128k\nnrfiles=4\nfilesize=16m\ndirect=1\n").unwrap();
    assert_eq!(
        (s.flows[0].files, s.flows[0].file_service),
        (4, FileService::RoundRobin(1))
    );
    assert_eq!(s.flows[0].file_sectors, 64 << 11);
    let (s, _) =
        plan("[j]\nrw=randread\nnrfiles=4\nsize=64m\nfile_service_type=sequential\n").unwrap();
    assert_eq!(s.flows[0].file_service, FileService::Sequential);
    let (s, _) =
        plan("[j]\nrw=randread\nnrfiles=4\nsize=64m\nfile_service_type=roundrobin:3\n").unwrap();
    assert_eq!(s.flows[0].file_service, FileService::RoundRobin(3));
    let e = refusal("[j]\nrw=read\nsize=8m\nnrfiles=2\nfile_service_type=odd\n");
    assert!(e.starts_with("t: line 5: file_service_type=odd"), "{e}");
}
