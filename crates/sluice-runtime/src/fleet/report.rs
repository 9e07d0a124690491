//! What a fleet reports (`sluice.fleet/1`): a row per volume and per node,
//! put together in the same order whatever ran the nodes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{FleetPlan, NodeJob};
use crate::report::SimReport;

/// One volume's figures over its node's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VolumeRow {
    /// The volume's name, as the trace gives it.
    pub volume: String,
    /// Its node.
    pub node: u32,
    /// Requests completed.
    pub requests: u64,
    /// Bytes read and written.
    pub bytes: u64,
    /// Median latency, ms.
    pub p50_ms: f64,
    /// 99th-percentile latency, ms.
    pub p99_ms: f64,
    /// 99.9th-percentile latency, ms.
    pub p999_ms: f64,
    /// Largest latency, ms.
    pub max_ms: f64,
    /// Throughput over the node's run, MB/s.
    pub mb_s: f64,
}

/// One node's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeRow {
    /// The node, 0-based.
    pub node: u32,
    /// How many volumes it holds.
    pub volumes: u32,
    /// Requests completed.
    pub requests: u64,
    /// Its device's busy time (some request in it) over the run.
    pub utilisation: f64,
    /// Throughput of all its volumes, MB/s.
    pub mb_s: f64,
    /// Simulated seconds until its last volume was done.
    pub sim_time_s: f64,
    /// The policy's own counters.
    pub policy_stats: BTreeMap<String, f64>,
}

/// What one node's run gives back: the node's row and its volumes' rows,
/// in the node's volume order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeResult {
    /// The node's figures.
    pub node: NodeRow,
    /// Its volumes' figures.
    pub volumes: Vec<VolumeRow>,
}

impl NodeResult {
    /// The result of `job`, from its simulation's report (None: a node
    /// given no volume).
    pub fn of(job: &NodeJob, report: Option<&SimReport>) -> NodeResult {
        let Some(r) = report else {
            return NodeResult {
                node: NodeRow {
                    node: job.node,
                    volumes: 0,
                    requests: 0,
                    utilisation: 0.0,
                    mb_s: 0.0,
                    sim_time_s: 0.0,
                    policy_stats: BTreeMap::new(),
                },
                volumes: Vec::new(),
            };
        };
        let window = r.sim_time_s - r.measured_from_s;
        let busy: f64 = r.flows.iter().map(|f| f.disk_time_s).sum();
        let volumes = r
            .flows
            .iter()
            .map(|f| {
                let at = |p: f64| {
                    f.lat_ms
                        .cdf
                        .iter()
                        .find(|c| c[0] == p)
                        .map_or(0.0, |c| c[1])
                };
                VolumeRow {
                    volume: f.name.clone(),
                    node: job.node,
                    requests: f.requests,
                    bytes: f.bytes,
                    p50_ms: f.lat_ms.p50,
                    p99_ms: f.lat_ms.p99,
                    p999_ms: at(99.9),
                    max_ms: f.lat_ms.max,
                    mb_s: f.mb_s,
                }
            })
            .collect();
        NodeResult {
            node: NodeRow {
                node: job.node,
                volumes: r.flows.len() as u32,
                requests: r.aggregate.requests,
                utilisation: if window > 0.0 { busy / window } else { 0.0 },
                mb_s: r.aggregate.mb_s,
                sim_time_s: r.sim_time_s,
                policy_stats: r.policy_stats.clone(),
            },
            volumes,
        }
    }
}

/// How the volumes were placed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementReport {
    /// `hash`, `round-robin` or `given`.
    pub policy: String,
    /// How many nodes.
    pub nodes: u32,
    /// How many volumes.
    pub volumes: u32,
}

/// A fleet's report: `sluice.fleet/1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetReport {
    /// `sluice.fleet/1`.
    pub schema: String,
    /// The scenario's name.
    pub scenario: String,
    /// The policy every node ran.
    pub scheduler: String,
    /// The seed.
    pub seed: u64,
    /// How the volumes were placed.
    pub placement: PlacementReport,
    /// Every volume, in the order the trace names them first.
    pub volumes: Vec<VolumeRow>,
    /// Every node, by number.
    pub nodes: Vec<NodeRow>,
    /// How it ran (the only part that differs from run to run).
    pub perf: FleetPerf,
}

/// How a fleet ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetPerf {
    /// Wall time, s.
    pub wall_s: f64,
    /// What ran the nodes: `threads` or `ray`.
    pub runner: String,
    /// Workers (threads), or Ray tasks.
    pub workers: u32,
    /// Peak resident memory of the process that read the trace and merged
    /// the results, MiB (0: not measured).
    #[serde(default)]
    pub peak_rss_mib: f64,
    /// Peak resident memory of the largest process that ran nodes, MiB
    /// (threads: the same process; 0: not measured).
    #[serde(default)]
    pub worker_peak_rss_mib: f64,
}

/// Put the nodes' results together, volumes in the plan's order; `perf`
/// says how they ran. The same results give the same report, whatever
/// order they came in.
pub fn merge(plan: &FleetSummary, mut results: Vec<NodeResult>, perf: FleetPerf) -> FleetReport {
    results.sort_by_key(|r| r.node.node);
    let index: std::collections::HashMap<&str, usize> = plan
        .volumes
        .iter()
        .enumerate()
        .map(|(i, v)| (v.as_str(), i))
        .collect();
    let mut volumes: Vec<VolumeRow> = results
        .iter()
        .flat_map(|r| r.volumes.iter().cloned())
        .collect();
    volumes.sort_by_key(|v| index.get(v.volume.as_str()).copied().unwrap_or(usize::MAX));
    FleetReport {
        schema: "sluice.fleet/1".into(),
        scenario: plan.name.clone(),
        scheduler: plan.scheduler.clone(),
        seed: plan.seed,
        placement: PlacementReport {
            policy: plan.placement.clone(),
            nodes: plan.nodes,
            volumes: plan.volumes.len() as u32,
        },
        volumes,
        nodes: results.into_iter().map(|r| r.node).collect(),
        perf,
    }
}

/// What [`merge`] needs of a plan, apart from its jobs (what a Ray driver
/// keeps while its tasks run).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetSummary {
    /// The scenario's name.
    pub name: String,
    /// The policy.
    pub scheduler: String,
    /// The seed.
    pub seed: u64,
    /// The placement's name.
    pub placement: String,
    /// How many nodes.
    pub nodes: u32,
    /// Every volume, in the trace's order.
    pub volumes: Vec<String>,
}

impl FleetPlan {
    /// The plan without its jobs.
    pub fn summary(&self) -> FleetSummary {
        FleetSummary {
            name: self.name.clone(),
            scheduler: self.scheduler.clone(),
            seed: self.seed,
            placement: self.placement.name().to_string(),
            nodes: self.jobs.len() as u32,
            volumes: self.volumes.clone(),
        }
    }
}
