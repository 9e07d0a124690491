//! Fuzzing of the importers in `cargo test`, bounded in time: no dmClock
//! configuration, Seastar io_tester job or io_properties file, fio job
//! file, or MQSim workload file makes its reader panic, every refusal is one line, and what they
//! accept is written as a scenario, read back and run briefly. Inputs are
//! the shipped files with one number replaced by an awkward one, and
//! generated files of the formats' own keys with awkward values (and, for
//! YAML, nested lists and maps). `fuzz/` has the cargo-fuzz targets
//! (`dmclock`, `seastar`, `mqsim`, `fio`) for long runs.

mod fuzzing;

use std::time::Instant;

use fuzzing::*;
use proptest::prelude::*;
use proptest::sample::Index;
use sluice_runtime::import::fio::{plan, FioOptions, JobFile, Target};
use sluice_runtime::import::{dmclock, seastar, Imported};
use sluice_runtime::{Error, Scenario};

fn import_data(file: &str) -> String {
    read(root().join("data/import").join(file))
}

/// A refusal: one non-empty line.
fn one_line(e: &Error) -> Result<(), TestCaseError> {
    let m = e.to_string();
    prop_assert!(!m.contains('\n') && !m.trim().is_empty(), "{m:?}");
    Ok(())
}

/// What `sluice import` does with an import: write it as a scenario file
/// and read that back; and what `sim` does: build it and run it.
fn use_import(result: sluice_runtime::Result<Imported>) -> Result<(), TestCaseError> {
    match result {
        Err(e) => one_line(&e)?,
        Ok(imported) => {
            if let Ok(toml) = imported.to_toml("fuzz") {
                let _ = Scenario::parse("imported.toml", &toml);
            }
            if let Ok(s) = imported.scenario.build() {
                run_briefly(s);
            }
        }
    }
    Ok(())
}

/// A value for a key: mostly a plausible one, so that imports get far.
fn qty() -> impl Strategy<Value = String> {
    prop_oneof![
        5 => (0u32..300).prop_map(|x| x.to_string()),
        2 => (0u32..300, 1u32..100).prop_map(|(a, b)| format!("{a}.{b}")),
        1 => num(),
    ]
}

// ---------------------------------------------------------------------------
// dmClock

const GLOBAL_KEYS: &[&str] = &[
    "client_groups",
    "server_groups",
    "server_random_selection",
    "server_soft_limit",
];

const CLIENT_KEYS: &[&str] = &[
    "client_count",
    "client_wait",
    "client_total_ops",
    "client_server_select_range",
    "client_iops_goal",
    "client_outstanding_ops",
    "client_reservation",
    "client_limit",
    "client_weight",
    "client_req_cost",
];

const SERVER_KEYS: &[&str] = &["server_count", "server_iops", "server_threads"];

/// A value for a dmClock key: true or false for the switches.
fn dmclock_value(key: &str) -> BoxedStrategy<String> {
    if key.starts_with("server_") && !key.ends_with('s') && key != "server_count" {
        prop_oneof![
            4 => prop::sample::select(&["true", "false", "1", "0"][..]).prop_map(str::to_string),
            1 => prop::sample::select(&["yes", "2", ""][..]).prop_map(str::to_string),
        ]
        .boxed()
    } else {
        qty().boxed()
    }
}

/// A section of a dmClock configuration: its header, then keys of its
/// kind (now and then another kind's, a comment or junk).
fn dmclock_section() -> impl Strategy<Value = String> {
    let header = prop_oneof![
        1 => Just(("[global]".to_string(), GLOBAL_KEYS)),
        3 => (0u32..4).prop_map(|n| (format!("[client.{n}]"), CLIENT_KEYS)),
        1 => (0u32..2).prop_map(|n| (format!("[server.{n}]"), SERVER_KEYS)),
        1 => prop::sample::select(&["[client.999]", "[client.1000]", "[client.-1]", "[client.]", "[x]", "["][..])
            .prop_map(|h| (h.to_string(), CLIENT_KEYS)),
    ];
    header.prop_flat_map(|(header, keys)| {
        let line = prop_oneof![
            12 => prop::sample::select(keys).prop_flat_map(|k| dmclock_value(k).prop_map(move |v| format!("{k} = {v}"))),
            1 => prop::sample::select(&["colour = red", "# c", "; c", "", "= =", "x", "client_count = 1 # c"][..])
                .prop_map(str::to_string),
        ];
        prop::collection::vec(line, 0..8).prop_map(move |lines| format!("{header}\n{}", lines.join("\n")))
    })
}

proptest! {
    #![proptest_config(config(128))]

    /// The shipped dmClock example with one number made awkward.
    #[test]
    fn dmclock_import_of_awkward_numbers_never_panics(which in any::<Index>(), by in value()) {
        let text = mutate(&import_data("dmc_sim_example.conf"), which, &by);
        let start = Instant::now();
        use_import(dmclock::import(&text))?;
        prop_assert!(start.elapsed() < CASE_LIMIT);
    }

    /// Generated configurations: sections in any order, repeated or
    /// missing, keys with awkward values, comments and junk.
    #[test]
    fn generated_dmclock_configs_never_panic(
        sections in prop::collection::vec(dmclock_section(), 0..6),
        crlf in any::<bool>(),
    ) {
        let text = sections.join("\n").replace('\n', if crlf { "\r\n" } else { "\n" });
        let start = Instant::now();
        use_import(dmclock::import(&text))?;
        prop_assert!(start.elapsed() < CASE_LIMIT);
    }
}

// ---------------------------------------------------------------------------
// Seastar

/// A YAML value, generated: a scalar, a list or a map of io_tester's keys.
#[derive(Clone, Debug)]
enum Yaml {
    Scalar(String),
    List(Vec<Yaml>),
    Map(std::collections::BTreeMap<&'static str, Yaml>),
}

const SEASTAR_KEYS: &[&str] = &[
    "name",
    "type",
    "shards",
    "data_size",
    "shard_info",
    "parallelism",
    "reqsize",
    "shares",
    "batch",
    "rps",
    "think_time",
    "think_after",
    "limit",
    "bandwidth",
    "class",
    "options",
    "pause_distribution",
    "sleep_type",
    "disks",
    "read_iops",
    "read_bandwidth",
    "write_iops",
    "write_bandwidth",
];

fn yaml_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => qty(),
        2 => (qty(), prop::sample::select(&["kB", "MB", "GB", "B", "ms", "us", "ns", "s"][..]))
            .prop_map(|(n, u)| format!("{n}{u}")),
        2 => prop::sample::select(&["seqread", "randread", "randwrite", "overwrite", "append", "cpu",
            "unlink", "all", "poisson", "uniform", "steady", "~", "''", "a", "-"][..])
            .prop_map(str::to_string),
    ]
}

fn yaml_value() -> impl Strategy<Value = Yaml> {
    yaml_scalar()
        .prop_map(Yaml::Scalar)
        .prop_recursive(6, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Yaml::List),
                prop::collection::btree_map(prop::sample::select(SEASTAR_KEYS), inner, 0..6)
                    .prop_map(Yaml::Map),
            ]
        })
}

/// `v` in YAML's flow style (`[a, b]`, `{k: v}`).
fn flow(v: &Yaml) -> String {
    match v {
        Yaml::Scalar(s) => s.clone(),
        Yaml::List(items) => format!(
            "[{}]",
            items.iter().map(flow).collect::<Vec<_>>().join(", ")
        ),
        Yaml::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A number for a key that takes one: mostly plausible.
fn count() -> impl Strategy<Value = String> {
    prop_oneof![12 => (1u32..300).prop_map(|n| n.to_string()), 1 => qty()]
}

/// A job's keys, each with a value of its kind (mostly), then now and
/// then any key with any value (nested lists and maps among them).
fn job_keys(
    keys: &'static [(&'static str, &'static [&'static str])],
) -> impl Strategy<Value = Vec<(String, String)>> {
    let known = keys
        .iter()
        .map(|&(k, units)| {
            let value = if units.is_empty() {
                count().boxed()
            } else {
                (count(), prop::sample::select(units))
                    .prop_map(|(n, u)| format!("{n}{u}"))
                    .boxed()
            };
            prop::option::weighted(0.4, value.prop_map(move |v| (k.to_string(), v)))
        })
        .collect::<Vec<_>>();
    let any_key = prop::option::weighted(
        0.1,
        (prop::sample::select(SEASTAR_KEYS), yaml_value())
            .prop_map(|(k, v)| (k.to_string(), flow(&v))),
    );
    (known, any_key).prop_map(|(known, any_key)| {
        let mut out: Vec<(String, String)> = known.into_iter().flatten().collect();
        if let Some((k, v)) = any_key {
            // A key given twice is YAML's refusal, not the importer's.
            out.retain(|(seen, _)| *seen != k);
            out.push((k, v));
        }
        out
    })
}

const SHARD_INFO: &[(&str, &[&str])] = &[
    ("reqsize", &["kB", "kB", "MB", "", "B"]),
    ("shares", &[]),
    ("rps", &[]),
    ("batch", &[]),
    ("think_time", &["ms", "us", "s", "ns", ""]),
    ("limit", &[]),
    ("bandwidth", &["MB", "kB", "GB"]),
];

const JOB: &[(&str, &[&str])] = &[("data_size", &["MB", "GB", "kB"])];

/// A job: its name and type, its keys and `shard_info`'s (`parallelism`
/// among them, mostly).
fn seastar_job() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["a", "b", "a", "", "x\u{202e}y"][..]),
        prop_oneof![
            12 => prop::sample::select(&["seqread", "randread", "randwrite", "overwrite", "append"][..]),
            1 => prop::sample::select(&["cpu", "unlink", "fly"][..]),
        ],
        prop::option::weighted(0.3, prop::sample::select(&["all", "[0]", "[0, 1, 1]", "[]", "7", "x"][..])),
        job_keys(JOB),
        prop::option::weighted(0.95, count()),
        job_keys(SHARD_INFO),
    )
        .prop_map(|(name, ty, shards, keys, parallelism, info)| {
            let mut job = format!("- name: \"{name}\"\n  type: {ty}\n");
            if let Some(s) = shards {
                job.push_str(&format!("  shards: {s}\n"));
            }
            for (k, v) in keys {
                job.push_str(&format!("  {k}: {v}\n"));
            }
            job.push_str("  shard_info:\n");
            if let Some(p) = &parallelism {
                job.push_str(&format!("    parallelism: {p}\n"));
            }
            for (k, v) in info.iter().filter(|(k, _)| k != "parallelism" || parallelism.is_none()) {
                job.push_str(&format!("    {k}: {v}\n"));
            }
            job
        })
}

/// A disk's rate: mostly a plausible one.
fn rate() -> impl Strategy<Value = String> {
    prop_oneof![
        9 => (1u32..100_000).prop_map(|n| n.to_string()),
        1 => qty(),
        1 => yaml_scalar(),
    ]
}

/// An io_properties file: a list of disks (the first with a read rate,
/// mostly) with generated rates.
fn io_properties() -> impl Strategy<Value = String> {
    let disk = (
        prop::option::weighted(
            0.95,
            (
                prop::sample::select(&["read_iops", "read_bandwidth"][..]),
                rate(),
            ),
        ),
        prop::collection::btree_map(
            prop::sample::select(
                &[
                    "read_iops",
                    "read_bandwidth",
                    "write_iops",
                    "write_bandwidth",
                    "duplex",
                ][..],
            ),
            rate(),
            0..4,
        ),
    )
        .prop_map(|(read, mut keys)| {
            if let Some((k, v)) = read {
                keys.insert(k, v);
            }
            let mut out = "- mountpoint: /dev\n".to_string();
            for (k, v) in keys {
                out.push_str(&format!("  {k}: {v}\n"));
            }
            out
        });
    prop_oneof![
        19 => prop::collection::vec(disk, 1..3).prop_map(|d| format!("disks:\n{}", d.concat())),
        1 => Just("disks:\n".to_string()),
    ]
}

/// `--shards` and `--duration`: plausible or awkward.
fn seastar_options() -> impl Strategy<Value = seastar::Options> {
    (
        prop_oneof![14 => 1u32..5, 1 => prop::sample::select(&[0, 1024, 1025, u32::MAX][..])],
        prop_oneof![3 => (1u32..20).prop_map(f64::from), 1 => any::<f64>(),
            1 => prop::sample::select(&[0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300, 1e300][..])],
    )
        .prop_map(|(shards, duration_s)| seastar::Options { shards, duration_s })
}

proptest! {
    #![proptest_config(config(128))]

    /// The shipped job file and io properties with one number made awkward.
    #[test]
    fn seastar_import_of_awkward_numbers_never_panics(
        in_properties in any::<bool>(),
        which in any::<Index>(),
        by in value(),
        opts in seastar_options(),
    ) {
        let (mut conf, mut io) = (import_data("tau_nemesis.yaml"), import_data("i4i.2xlarge.yaml"));
        if in_properties {
            io = mutate(&io, which, &by);
        } else {
            conf = mutate(&conf, which, &by);
        }
        let start = Instant::now();
        use_import(seastar::import(&conf, &io, &opts))?;
        prop_assert!(start.elapsed() < CASE_LIMIT);
    }

    /// Generated job files and io properties: io_tester's keys anywhere,
    /// with awkward values, nested lists and maps.
    #[test]
    fn generated_seastar_jobs_never_panic(
        jobs in prop::collection::vec(seastar_job(), 1..4),
        io in io_properties(),
        opts in seastar_options(),
    ) {
        let start = Instant::now();
        use_import(seastar::import(&jobs.concat(), &io, &opts))?;
        prop_assert!(start.elapsed() < CASE_LIMIT);
    }
}

// ---------------------------------------------------------------------------
// fio

/// Parse, plan and run `text` as `sluice fio` does (briefly, in the
/// simulator), and plan it for a real target: refusals in one line.
fn run_job_file(text: &str) -> Result<(), TestCaseError> {
    let file = match JobFile::parse("/nonexistent-sluice-fuzz/job.fio".as_ref(), text) {
        Ok(f) => f,
        Err(e) => return one_line(&e),
    };
    let real = FioOptions {
        target: Target::Real,
        ..FioOptions::default()
    };
    if let Ok(p) = plan(&file, &real) {
        for g in &p.groups {
            if let Err(e) = g.scenario(&real) {
                one_line(&e)?;
            }
        }
    }
    let options = FioOptions {
        max_duration_s: Some(0.05),
        ..FioOptions::default()
    };
    let p = match plan(&file, &options) {
        Ok(p) => p,
        Err(e) => return one_line(&e),
    };
    let large = |s: &Scenario| {
        s.flows.len() > 64
            || s.flows
                .iter()
                .map(|f| u64::from(f.outstanding))
                .sum::<u64>()
                > 4096
    };
    if p.groups.len() > 8
        || p.groups
            .iter()
            .any(|g| g.scenario(&options).map_or(true, |s| large(&s)))
    {
        return Ok(());
    }
    let simulate = |s: &Scenario, bin: Option<sluice::Duration>| {
        let sim = sluice_sim::Simulation::new(s)?;
        Ok::<_, Error>(match bin {
            Some(b) => sim.with_timeline(b).run(),
            None => sim.run(),
        })
    };
    match p.run(&options, simulate) {
        Ok(results) => {
            let _ = results.json();
            let _ = results.text("fuzz");
        }
        Err(e) => one_line(&e)?,
    }
    Ok(())
}

fn fio_files() -> Vec<String> {
    let dir = root().join("scenarios/fio");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "the shipped job files are there");
    names.into_iter().map(read).collect()
}

/// A size with a unit (or a wrong one).
fn fio_size() -> impl Strategy<Value = String> {
    (
        qty(),
        prop::sample::select(&["", "k", "m", "g", "t", "p", "kib", "KB", "MiB", "%", "x"][..]),
    )
        .prop_map(|(n, u)| format!("{n}{u}"))
}

/// One line of a job file: a section, an option with a generated value,
/// a comment or junk.
fn fio_line() -> impl Strategy<Value = String> {
    let time = (
        qty(),
        prop::sample::select(&["", "us", "ms", "s", "m", "h", "d"][..]),
    )
        .prop_map(|(n, u)| format!("{n}{u}"));
    prop_oneof![
        3 => prop::sample::select(&["[global]", "[a]", "[b]", "[a]", "; c", "# c", "stonewall", "new_group",
            "time_based", "group_reporting", "direct=0", "buffered=1", "kb_base=1000", "bs=$pagesize"][..])
            .prop_map(str::to_string),
        1 => prop::sample::select(&["[]", "[", "${HOME}", "=x", "zonemode=zbd"][..]).prop_map(str::to_string),
        2 => (prop::sample::select(&["rw", "readwrite"][..]),
            prop::sample::select(&["read", "write", "randread", "randwrite", "rw", "randrw", "readwrite",
                "trim", "randtrimwrite", "read:4k", "randread:-1", "x"][..]))
            .prop_map(|(k, v)| format!("{k}={v}")),
        4 => (prop::sample::select(&["bs", "size", "filesize", "io_size", "offset", "rate", "blocksize"][..]), fio_size())
            .prop_map(|(k, v)| format!("{k}={v}")),
        2 => (prop::sample::select(&["bsrange", "filesize", "bs"][..]), fio_size(), fio_size())
            .prop_map(|(k, a, b)| format!("{k}={a}-{b}")),
        1 => prop::collection::vec((fio_size(), qty()), 1..4)
            .prop_map(|v| format!("bssplit={}", v.iter().map(|(s, p)| format!("{s}/{p}")).collect::<Vec<_>>().join(":"))),
        2 => (prop::sample::select(&["runtime", "ramp_time", "startdelay", "thinktime", "timeout"][..]), time)
            .prop_map(|(k, v)| format!("{k}={v}")),
        4 => (prop::sample::select(&["iodepth", "numjobs", "nrfiles", "rate_iops", "rwmixread", "rwmixwrite",
            "number_ios", "loops", "thinktime_blocks", "fsync", "prio", "random_distribution"][..]), qty())
            .prop_map(|(k, v)| format!("{k}={v}")),
    ]
}

proptest! {
    #![proptest_config(config(64))]

    /// The shipped job files with one number made awkward.
    #[test]
    fn fio_job_files_with_awkward_numbers_never_panic(file in any::<Index>(), which in any::<Index>(), by in value()) {
        let files = fio_files();
        let text = mutate(&files[file.index(files.len())], which, &by);
        let start = Instant::now();
        run_job_file(&text)?;
        prop_assert!(start.elapsed() < CASE_LIMIT);
    }

    /// Generated job files: sections and options in any order, awkward
    /// sizes, times, ranges and splits.
    #[test]
    fn generated_fio_job_files_never_panic(lines in prop::collection::vec(fio_line(), 0..20)) {
        let text = format!("[j]\n{}", lines.join("\n"));
        let start = Instant::now();
        run_job_file(&text)?;
        prop_assert!(start.elapsed() < CASE_LIMIT);
    }
}

// ---------------------------------------------------------------------------
// MQSim

/// An MQSim import, used as `sluice import mqsim` and `sim` use it: the
/// scenario written and read back, built on the configuration it was
/// imported for and run briefly; refusals in one line.
fn use_mqsim_import(
    result: sluice_runtime::Result<Imported>,
    config: &sluice_device::mqsim::SsdConfig,
) -> Result<(), TestCaseError> {
    match result {
        Err(e) => one_line(&e)?,
        Ok(imported) => {
            if let Ok(toml) = imported.to_toml("fuzz") {
                let _ = Scenario::parse("imported.toml", &toml);
            }
            let model = sluice_device::Model::Flash(Box::new(
                sluice_device::flash::FlashSpec::from_mqsim("fuzz", config.clone()),
            ));
            let dir = root().join("crates/sluice-repro/data/mqsim/wsrch");
            if let Ok(s) = imported.scenario.build_with_model(&dir, model) {
                run_briefly(s);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    /// The shipped MQSim workload files (the data-cache pair, whose
    /// scenarios are hot/cold writers, and the trace pair) with one number
    /// made awkward, on their device configuration.
    #[test]
    fn mqsim_import_of_awkward_numbers_never_panics(
        traces in any::<bool>(),
        in_config in any::<bool>(),
        which in any::<Index>(),
        by in value(),
        scenario in 0usize..8,
    ) {
        use sluice_device::mqsim::SsdConfig;
        use sluice_runtime::import::mqsim::import_text;
        let dir = root().join("crates/sluice-repro/data/mqsim").join(if traces { "wsrch" } else { "datacache" });
        let mut workload = read(dir.join("together.xml"));
        let mut config_text = read(dir.join("ssdconfig.xml"));
        if in_config {
            config_text = mutate(&config_text, which, &by);
        } else {
            workload = mutate(&workload, which, &by);
        }
        let Ok(config) = SsdConfig::parse("ssdconfig.xml", &config_text) else {
            return Ok(());
        };
        let start = Instant::now();
        let result = import_text(&workload, "fuzz", config.clone(), "ssdconfig.xml", scenario, Some(&dir));
        use_mqsim_import(result, &config)?;
        prop_assert!(start.elapsed() < CASE_LIMIT);
    }
}
