//! One node's share of a fleet, and its bytes for another process.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sluice_workload::trace::{Request, Trace};

use super::{fail, node_scenario};
use crate::error::Result;
use crate::scenario::{FlowBuilder, Scenario, ScenarioBuilder};

/// One node's simulation, ready to run anywhere: its scenario's tables and
/// the requests of its volumes.
#[derive(Clone, Debug)]
pub struct NodeJob {
    /// The node, 0-based.
    pub node: u32,
    /// Its volumes, as indices into the plan's volumes (ascending).
    pub volumes: Vec<u32>,
    /// What every node of the fleet shares (one copy for all of them).
    shared: Arc<Shared>,
    /// Its volumes' requests; `sources` are the volumes' names and each
    /// request's `source` indexes them (and `volumes`).
    trace: Arc<Trace>,
}

/// What every node's job holds alike.
#[derive(Debug, Serialize, Deserialize)]
struct Shared {
    trace_name: String,
    /// Where the scenario's relative paths (a DiskSim model) resolve.
    base: PathBuf,
    builder: ScenarioBuilder,
    flow: FlowBuilder,
}

/// A job's header in its bytes.
#[derive(Serialize)]
struct HeaderOut<'a> {
    node: u32,
    volumes: &'a [u32],
    names: &'a [String],
    shared: &'a Shared,
}

/// A job's header read back.
#[derive(Deserialize)]
struct HeaderIn {
    node: u32,
    volumes: Vec<u32>,
    names: Vec<String>,
    shared: Shared,
}

/// The first bytes of a job's bytes.
const MAGIC: &[u8; 16] = b"sluice-fleet-v1\n";
/// Bytes of one request in a job's bytes.
const RECORD: usize = 29;

impl NodeJob {
    /// The node's scenario (one flow per volume); None for a node given no
    /// volume.
    pub fn scenario(&self) -> Result<Option<Scenario>> {
        if self.volumes.is_empty() {
            return Ok(None);
        }
        node_scenario(
            &self.shared.builder,
            &self.shared.flow,
            &self.shared.base,
            self.trace.clone(),
        )
        .map(Some)
    }

    /// How many requests the node's volumes hold.
    pub fn requests(&self) -> usize {
        self.trace.requests.len()
    }

    /// The job as bytes (for a Ray task): a header, then each request in
    /// 29 little-endian bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = HeaderOut {
            node: self.node,
            volumes: &self.volumes,
            names: &self.trace.sources,
            shared: &self.shared,
        };
        let header = serde_json::to_vec(&header).expect("a header is JSON");
        let n = self.trace.requests.len();
        let mut out = Vec::with_capacity(MAGIC.len() + 16 + header.len() + n * RECORD);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(header.len() as u64).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(&(n as u64).to_le_bytes());
        for r in &self.trace.requests {
            out.extend_from_slice(&r.at.as_nanos().to_le_bytes());
            out.extend_from_slice(&r.sector.to_le_bytes());
            out.extend_from_slice(&r.sectors.to_le_bytes());
            out.extend_from_slice(&r.line.to_le_bytes());
            out.extend_from_slice(&r.source.to_le_bytes());
            out.push(u8::from(r.write));
        }
        out
    }

    /// A job from [`NodeJob::to_bytes`]; anything else is refused.
    pub fn from_bytes(bytes: &[u8]) -> Result<NodeJob> {
        let bad = |why: &str| fail(format!("not a fleet job's bytes: {why}"));
        let rest = bytes.strip_prefix(MAGIC).ok_or_else(|| bad("no header"))?;
        let (len, rest) = take_u64(rest).ok_or_else(|| bad("cut short"))?;
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l <= rest.len())
            .ok_or_else(|| bad("cut short"))?;
        let header: HeaderIn =
            serde_json::from_slice(&rest[..len]).map_err(|e| bad(&e.to_string()))?;
        let (n, rest) = take_u64(&rest[len..]).ok_or_else(|| bad("cut short"))?;
        if (rest.len() as u64) != n.saturating_mul(RECORD as u64) {
            return Err(bad("its requests are not as many as it says"));
        }
        if header.names.len() != header.volumes.len() {
            return Err(bad("as many names as volumes"));
        }
        let mut requests = Vec::with_capacity(n as usize);
        for rec in rest.chunks_exact(RECORD) {
            let u64_at = |i: usize| u64::from_le_bytes(rec[i..i + 8].try_into().expect("8 bytes"));
            let u32_at = |i: usize| u32::from_le_bytes(rec[i..i + 4].try_into().expect("4 bytes"));
            let r = Request {
                at: sluice::Duration::from_nanos(u64_at(0)),
                sector: u64_at(8),
                sectors: u32_at(16),
                line: u32_at(20),
                source: u32_at(24),
                write: rec[28] != 0,
            };
            if r.source as usize >= header.names.len() || r.sectors == 0 {
                return Err(bad("a request of no volume, or of no sectors"));
            }
            requests.push(r);
        }
        let trace = Trace {
            name: header.shared.trace_name.clone(),
            requests,
            sources: header.names,
        };
        Ok(NodeJob {
            node: header.node,
            volumes: header.volumes,
            shared: Arc::new(header.shared),
            trace: Arc::new(trace),
        })
    }
}

fn take_u64(b: &[u8]) -> Option<(u64, &[u8])> {
    let (head, rest) = b.split_first_chunk::<8>()?;
    Some((u64::from_le_bytes(*head), rest))
}

/// Cut `trace` (split by volume) into one job per node, the volumes where
/// `volume_node` says; the plan's volume names come back too. Each
/// request is moved once; the trace is gone after.
pub(super) fn cut(
    trace: Trace,
    volume_node: &[u32],
    nodes: u32,
    builder: &ScenarioBuilder,
    flow: &FlowBuilder,
    base: PathBuf,
) -> (Vec<NodeJob>, Vec<String>) {
    let Trace {
        name,
        requests,
        sources,
    } = trace;
    let nodes = nodes as usize;
    // Each volume's number on its node, and each node's volumes.
    let mut volumes: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    let mut local = vec![0u32; sources.len()];
    for (v, &n) in volume_node.iter().enumerate() {
        local[v] = volumes[n as usize].len() as u32;
        volumes[n as usize].push(v as u32);
    }
    let mut counts = vec![0usize; nodes];
    for r in &requests {
        counts[volume_node[r.source as usize] as usize] += 1;
    }
    let mut per: Vec<Vec<Request>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for r in requests {
        let v = r.source as usize;
        per[volume_node[v] as usize].push(Request {
            source: local[v],
            ..r
        });
    }
    let shared = Arc::new(Shared {
        trace_name: name.clone(),
        base,
        builder: builder.clone(),
        flow: flow.clone(),
    });
    let jobs = per
        .into_iter()
        .zip(volumes)
        .enumerate()
        .map(|(node, (requests, vols))| {
            let names: Vec<String> = vols.iter().map(|&v| sources[v as usize].clone()).collect();
            NodeJob {
                node: node as u32,
                volumes: vols,
                shared: shared.clone(),
                trace: Arc::new(Trace {
                    name: name.clone(),
                    requests,
                    sources: names,
                }),
            }
        })
        .collect();
    (jobs, sources)
}
