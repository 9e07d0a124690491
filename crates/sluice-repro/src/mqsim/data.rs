//! MQSim's files as `sluice repro mqsim` runs them, built into the binary
//! so it runs anywhere: the scaled FAST'18 configurations and workloads and
//! the `wsrch` traces (`data/mqsim/`, made by its `derive.py`), and
//! MQSim's own figures (`mqsim-results.json`, made by `run_mqsim.py`).

/// One experiment's files.
pub(crate) struct Files {
    /// Experiment id (`backend`, ...).
    pub id: &'static str,
    /// What it shows, in one line.
    pub title: &'static str,
    /// MQSim's device configuration (`ssdconfig.xml`).
    pub ssdconfig: &'static str,
    /// The workload files of flow 1 alone, flow 2 alone and both, in that
    /// order ([`super::layout::RUNS`]).
    pub workloads: [&'static str; 3],
    /// Scenarios in each workload file (the sweep; the last is the
    /// heaviest contention).
    pub scenarios: usize,
    /// Trace files the workloads name, (path relative to the workload
    /// file, contents).
    pub traces: &'static [(&'static str, &'static [u8])],
}

macro_rules! dir {
    ($d:literal, $f:literal) => {
        include_str!(concat!("../../data/mqsim/", $d, "/", $f))
    };
}

macro_rules! files {
    ($id:literal, $title:literal, $n:literal, $traces:expr) => {
        Files {
            id: $id,
            title: $title,
            ssdconfig: dir!($id, "ssdconfig.xml"),
            workloads: [
                dir!($id, "flow-1.xml"),
                dir!($id, "flow-2.xml"),
                dir!($id, "together.xml"),
            ],
            scenarios: $n,
            traces: $traces,
        }
    };
}

/// The `wsrch` experiment's traces, as its workload files name them.
const WSRCH_TRACES: &[(&str, &[u8])] = &[
    (
        "traces/wsrch-small.trace",
        include_bytes!("../../data/mqsim/wsrch/traces/wsrch-small.trace"),
    ),
    (
        "traces/tpcc-small.trace",
        include_bytes!("../../data/mqsim/wsrch/traces/tpcc-small.trace"),
    ),
];

/// The experiments that run MQSim's files, in the order they print.
pub(crate) const EXPERIMENTS: [Files; 5] = [
    files!(
        "backend",
        "flash back-end contention (FAST'18 fast18/backend-contention): flow 2 queues more reads each scenario",
        8,
        &[]
    ),
    files!(
        "datacache",
        "DRAM data-cache contention (fast18/data-cache-contention): flow 2's writes outgrow the cache",
        6,
        &[]
    ),
    files!(
        "qfs16",
        "NVMe queue fetch size 16 (fast18/queue-fetch-size): flow 2 queues more reads each scenario",
        6,
        &[]
    ),
    files!(
        "qfs1024",
        "NVMe queue fetch size 1024 (fast18/queue-fetch-size): flow 2 queues more reads each scenario",
        6,
        &[]
    ),
    files!(
        "wsrch",
        "MQSim's shipped traces: wsrch-small (flow 1) and tpcc-small (flow 2)",
        1,
        WSRCH_TRACES
    ),
];

/// MQSim's figures, measured here (`data/mqsim/README.md` says how).
pub(crate) const MQSIM_RESULTS: &str = include_str!("../../data/mqsim/mqsim-results.json");
