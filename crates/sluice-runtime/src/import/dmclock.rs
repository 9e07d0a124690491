//! dmClock's simulator configuration (`sim/src/config.cc` of ceph/dmclock,
//! e.g. `sim/dmc_sim_example.conf`) as a scenario.
//!
//! | dmClock | scenario |
//! | --- | --- |
//! | `[client.N]` | a flow `clientN` (`client_count` > 1: `count` copies `clientN_0`, `clientN_1`, ...) |
//! | `client_reservation`, `client_limit` | `reservation_iops`, `limit_iops` = the rate / `client_req_cost` (0 = none: omitted) |
//! | `client_weight` | `weight` = 100 x weight / `client_req_cost` (scaled down to keep every weight <= 1000; at least 1) |
//! | `client_total_ops` | `requests` |
//! | `client_wait` (s) | `start_s` |
//! | `client_iops_goal` | `rate_iops` (the client's issue rate cap) |
//! | `client_outstanding_ops` | `outstanding` |
//! | `client_req_cost` | `request_kib` = 4 x cost, on a device with bandwidth only |
//! | `server_iops` x `server_count` (all groups) | a rate device moving that many 4 KiB units a second, one request at a time |
//! | `server_soft_limit` | `[scheduler] at_limit` = `allow` (true) or `wait` (false) |
//!
//! The cost mapping: dmClock's server sleeps `cost x threads / server_iops`
//! per request on one of its `server_threads` threads, so it serves
//! `server_iops` cost units a second. The rate device here has no
//! per-request term and a bandwidth of `server_iops x 4096` bytes/s, and a
//! request of cost c is `4c` KiB: it takes `c / server_iops` s, exactly.
//! dmClock advances a client's tags by cost / rate per request, so its
//! reservation, limit and weight are in cost units; `mclock` here charges
//! every request one unit, so a client of cost c gets its rates divided by
//! c (the same requests per second dmClock allows it) and its weight too.
//!
//! Approximated: several servers (or threads) are one FIFO server of their
//! total rate; `client_server_select_range` and `server_random_selection`
//! do not apply to one server; requests are 4 KiB random reads over each
//! client's own 1 GiB.

use crate::error::Result;
use crate::scenario::{FlowBuilder, Pattern, ScenarioBuilder};

use super::{checked, fail, Imported};

/// The most client or server groups a configuration may have.
const MAX_GROUPS: u32 = 1000;

/// A `[client.N]` section, with dmClock's defaults (`cli_group_t`).
#[derive(Clone, Debug, PartialEq)]
struct Client {
    count: u32,
    wait_s: u64,
    total_ops: u64,
    iops_goal: u64,
    outstanding: u64,
    reservation: f64,
    limit: f64,
    weight: f64,
    req_cost: u64,
}

impl Default for Client {
    fn default() -> Self {
        Client {
            count: 100,
            wait_s: 0,
            total_ops: 1000,
            iops_goal: 50,
            outstanding: 100,
            reservation: 20.0,
            limit: 60.0,
            weight: 1.0,
            req_cost: 1,
        }
    }
}

/// A `[server.N]` section, with dmClock's defaults (`srv_group_t`).
#[derive(Clone, Debug, PartialEq)]
struct Server {
    count: u64,
    iops: u64,
    threads: u64,
}

impl Default for Server {
    fn default() -> Self {
        Server {
            count: 100,
            iops: 40,
            threads: 1,
        }
    }
}

/// The sections of an INI text: (section, key, value, line), in order.
fn entries(text: &str) -> Result<Vec<(String, String, String, usize)>> {
    let mut out = Vec::new();
    let mut section = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.strip_suffix(']').ok_or_else(|| {
                fail(format!(
                    "line {}: a section header needs a closing ]",
                    i + 1
                ))
            })?;
            section = name.trim().to_string();
            if section != "global"
                && group(&section, "client.", i + 1)?.is_none()
                && group(&section, "server.", i + 1)?.is_none()
            {
                return Err(fail(format!(
                    "line {}: unknown section [{section}] (expected [global], [client.N], [server.N])",
                    i + 1
                )));
            }
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .ok_or_else(|| fail(format!("line {}: expected key = value", i + 1)))?;
        if section.is_empty() {
            return Err(fail(format!("line {}: a key before any [section]", i + 1)));
        }
        // Trailing comments, as ConfUtils strips them.
        let v = v.split(['#', ';']).next().unwrap_or("").trim();
        out.push((section.clone(), k.trim().to_string(), v.to_string(), i + 1));
    }
    Ok(out)
}

/// `value` as an unsigned integer (dmClock's `stoul`).
fn uint(key: &str, value: &str, line: usize, max: u64) -> Result<u64> {
    match value.parse::<u64>() {
        Ok(v) if v <= max => Ok(v),
        _ => Err(fail(format!(
            "line {line}: {key} must be a whole number 0..={max} (got '{}')",
            crate::names::excerpt(value, 40)
        ))),
    }
}

/// `value` as a number (dmClock's `stod`).
fn number(key: &str, value: &str, line: usize, max: f64) -> Result<f64> {
    match value.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=max).contains(&v) => Ok(v),
        _ => Err(fail(format!(
            "line {line}: {key} must be a number 0..={max} (got '{}')",
            crate::names::excerpt(value, 40)
        ))),
    }
}

fn boolean(key: &str, value: &str, line: usize) -> Result<bool> {
    match value {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(fail(format!(
            "line {line}: {key} must be true or false (got '{}')",
            crate::names::excerpt(value, 40)
        ))),
    }
}

/// The group number of a `[client.N]` / `[server.N]` section.
fn group(section: &str, prefix: &str, line: usize) -> Result<Option<u32>> {
    match section.strip_prefix(prefix) {
        None => Ok(None),
        Some(n) => match n.parse::<u32>() {
            Ok(g) if g < MAX_GROUPS => Ok(Some(g)),
            _ => Err(fail(format!(
                "line {line}: [{section}]: expected [{prefix}N] with N < {MAX_GROUPS}"
            ))),
        },
    }
}

/// Import a dmClock simulator configuration.
pub fn import(text: &str) -> Result<Imported> {
    // dmClock fills what a file leaves out with 100 default clients: an
    // empty file (or `/dev/null` copied) would import as that, unasked.
    let said = |l: &str| !(l.is_empty() || l.starts_with('#') || l.starts_with(';'));
    if !text.lines().any(|l| said(l.trim())) {
        return Err(fail(
            "empty (no sections, no settings): not a dmClock configuration",
        ));
    }
    let mut client_groups = 1u32;
    let mut server_groups = 1u32;
    let mut soft_limit = true;
    let mut clients: Vec<(u32, Client)> = Vec::new();
    let mut servers: Vec<(u32, Server)> = Vec::new();
    let mut notes = Vec::new();
    for (section, key, value, line) in entries(text)? {
        let (k, v, l) = (key.as_str(), value.as_str(), line);
        if section == "global" {
            match k {
                "client_groups" => client_groups = uint(k, v, l, u64::from(MAX_GROUPS))? as u32,
                "server_groups" => server_groups = uint(k, v, l, u64::from(MAX_GROUPS))? as u32,
                "server_soft_limit" => soft_limit = boolean(k, v, l)?,
                "server_random_selection" => {
                    boolean(k, v, l)?;
                }
                _ => return Err(fail(format!("line {l}: [global]: unknown key '{k}'"))),
            }
        } else if let Some(g) = group(&section, "client.", l)? {
            let c = numbered(&mut clients, g);
            match k {
                "client_count" => c.count = uint(k, v, l, 100_000)? as u32,
                "client_wait" => c.wait_s = uint(k, v, l, 1_000_000)?,
                "client_total_ops" => c.total_ops = uint(k, v, l, 1_000_000_000)?,
                "client_server_select_range" => {
                    uint(k, v, l, u64::from(u32::MAX))?;
                }
                "client_iops_goal" => c.iops_goal = uint(k, v, l, 10_000_000)?,
                "client_outstanding_ops" => c.outstanding = uint(k, v, l, 4096)?,
                "client_reservation" => c.reservation = number(k, v, l, 1e7)?,
                "client_limit" => c.limit = number(k, v, l, 1e7)?,
                "client_weight" => c.weight = number(k, v, l, 1e6)?,
                "client_req_cost" => c.req_cost = uint(k, v, l, 16_384)?,
                _ => return Err(fail(format!("line {l}: [{section}]: unknown key '{k}'"))),
            }
        } else if let Some(g) = group(&section, "server.", l)? {
            let s = numbered(&mut servers, g);
            match k {
                "server_count" => s.count = uint(k, v, l, 1_000_000)?,
                "server_iops" => s.iops = uint(k, v, l, 1_000_000_000)?,
                "server_threads" => s.threads = uint(k, v, l, 1_000_000)?,
                _ => return Err(fail(format!("line {l}: [{section}]: unknown key '{k}'"))),
            }
        } else {
            return Err(fail(format!(
                "line {l}: unknown section [{section}] (expected [global], [client.N], [server.N])"
            )));
        }
    }
    if client_groups == 0 || server_groups == 0 {
        return Err(fail(
            "[global]: client_groups and server_groups must be at least 1",
        ));
    }
    // dmClock reads sections 0..groups; one missing takes the defaults.
    let client = |g: u32| {
        clients
            .iter()
            .find(|c| c.0 == g)
            .map_or_else(Client::default, |c| c.1.clone())
    };
    let server = |g: u32| {
        servers
            .iter()
            .find(|s| s.0 == g)
            .map_or_else(Server::default, |s| s.1.clone())
    };
    if let Some((g, _)) = clients.iter().find(|c| c.0 >= client_groups) {
        notes.push(format!(
            "[client.{g}] is beyond client_groups = {client_groups}: ignored, as dmClock does"
        ));
    }
    let mut total_iops = 0u64;
    let mut n_servers = 0u64;
    for g in 0..server_groups {
        let s = server(g);
        if s.iops == 0 || s.count == 0 {
            return Err(fail(format!(
                "[server.{g}]: server_iops and server_count must be at least 1"
            )));
        }
        total_iops = total_iops.saturating_add(s.count.saturating_mul(s.iops));
        n_servers += s.count;
        if s.threads > 1 {
            notes.push(format!(
                "[server.{g}]: {} threads serve as one FIFO server of the same total rate",
                s.threads
            ));
        }
    }
    // The rate device moves at most 1e7 MB/s: 2,441,406,250 units of 4 KiB.
    let max_iops = (1e13 / 4096.0) as u64;
    if total_iops > max_iops {
        return Err(fail(format!(
            "the servers serve {total_iops} IOPS in all (server_iops x server_count), more than a simulated device moves ({max_iops})"
        )));
    }
    if n_servers > 1 {
        notes.push(format!(
            "{n_servers} servers are one device of their total {total_iops} IOPS (dmClock's distributed delta/rho tags and server selection do not apply)"
        ));
    }
    let groups: Vec<Client> = (0..client_groups).map(client).collect();
    // Weights in requests: dmClock's weight is in cost units.
    let max_weight = groups
        .iter()
        .map(|c| c.weight / c.req_cost.max(1) as f64)
        .fold(0.0, f64::max);
    let scale = if max_weight * 100.0 > 1000.0 {
        1000.0 / max_weight
    } else {
        100.0
    };
    let mut scenario = ScenarioBuilder::new("dmclock", 1.0)
        .seed(1)
        .stop_after_finite(true)
        .merge(false)
        .queue_depth(1)
        .rate_device(
            (None, Some(total_iops as f64 * 4096.0 / 1e6)),
            (None, None),
            None,
        )
        .scheduler("mclock")
        .param("at_limit", if soft_limit { "allow" } else { "wait" });
    let mut longest = 0.0f64;
    let mut work = 0.0f64;
    let mut last_wait = 0.0f64;
    for (g, c) in groups.iter().enumerate() {
        if c.count == 0 {
            notes.push(format!("[client.{g}]: client_count = 0: no flow"));
            continue;
        }
        if c.total_ops == 0 || c.iops_goal == 0 || c.outstanding == 0 || c.req_cost == 0 {
            return Err(fail(format!(
                "[client.{g}]: client_total_ops, client_iops_goal, client_outstanding_ops and client_req_cost must be at least 1"
            )));
        }
        let name = if c.count > 1 {
            format!("client{g}_")
        } else {
            format!("client{g}")
        };
        let cost = c.req_cost as f64;
        let w = c.weight / cost * scale;
        let weight = w.round().clamp(1.0, 1000.0) as u32;
        if (w - f64::from(weight)).abs() > 0.01 * w {
            notes.push(format!(
                "[client.{g}]: client_weight {} is weight {weight} (x{scale:.3}, rounded)",
                sluice::short_number(c.weight)
            ));
        }
        let mut f = FlowBuilder::new(name, Pattern::RandRead)
            .request_kib((4 * c.req_cost) as u32)
            .file_gib(1.0)
            .weight(weight)
            .requests(c.total_ops)
            .rate_iops(c.iops_goal as f64)
            .outstanding(c.outstanding as u32);
        if c.count > 1 {
            f = f.count(c.count);
        }
        if c.wait_s > 0 {
            f = f.start_s(c.wait_s as f64);
        }
        if c.reservation > 0.0 {
            f = f.reservation_iops(c.reservation / cost);
        }
        if c.limit > 0.0 {
            f = f.limit_iops(c.limit / cost);
        }
        if c.req_cost > 1 {
            notes.push(format!(
                "[client.{g}]: client_req_cost {}: reservation, limit and weight divided by it (dmClock counts them in cost units, mclock in requests)",
                c.req_cost
            ));
        }
        scenario = scenario.flow(f);
        // How long the client needs at most: its ops at its own cap, and
        // the server's time for everyone's work.
        let cap = if c.limit > 0.0 {
            (c.limit / cost).min(c.iops_goal as f64)
        } else {
            c.iops_goal as f64
        };
        longest = longest.max(c.wait_s as f64 + c.total_ops as f64 / cap);
        work += f64::from(c.count) * (c.total_ops * c.req_cost) as f64;
        last_wait = last_wait.max(c.wait_s as f64);
    }
    if scenario.flows.is_empty() {
        return Err(fail("no client with client_count > 0"));
    }
    let needed = longest.max(last_wait + work / total_iops as f64);
    // Room for the reservations and limits to play out; the run stops when
    // every client has done its ops.
    let duration = (needed * 1.5 + 10.0)
        .ceil()
        .min(crate::scenario::MAX_SECONDS);
    scenario.duration_s = duration;
    // Each client reads its own 1 GiB: a device large enough for all.
    let files: f64 = groups.iter().map(|c| f64::from(c.count)).sum();
    if files > 1000.0 {
        scenario = scenario.rate_device(
            (None, Some(total_iops as f64 * 4096.0 / 1e6)),
            (None, None),
            Some((files + 1.0).ceil()),
        );
    }
    notes.push(format!(
        "runs until every client has done its ops (stop_after_finite), at most {duration} s; requests are 4 KiB x client_req_cost random reads"
    ));
    checked(scenario, notes)
}

/// The entry numbered `g` (`[client.g]`, `[server.g]`), made on first use:
/// a section may come back later in the file.
fn numbered<T: Default>(list: &mut Vec<(u32, T)>, g: u32) -> &mut T {
    let i = match list.iter().position(|e| e.0 == g) {
        Some(i) => i,
        None => {
            list.push((g, T::default()));
            list.len() - 1
        }
    };
    &mut list[i].1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ceph/dmclock's sim/dmc_sim_example.conf (the repository's fixture).
    pub(crate) const EXAMPLE: &str = include_str!("../../../../data/import/dmc_sim_example.conf");

    #[test]
    fn dmclock_empty_config_is_refused() {
        for text in ["", "\n\n", "# only a comment\n; and another\n"] {
            let e = import(text).unwrap_err().to_string();
            assert!(e.contains("not a dmClock configuration"), "{text:?}: {e}");
        }
        assert!(import("[global]\n").is_ok());
    }

    #[test]
    fn the_example_maps_each_client_group_to_a_flow() {
        let imp = import(EXAMPLE).unwrap();
        let toml = imp.to_toml("from dmc_sim_example.conf").unwrap();
        let s = crate::Scenario::parse("dmc.toml", &toml).unwrap();
        assert_eq!(s.scheduler, "mclock");
        let names: Vec<_> = s.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["client0", "client1", "client2", "client3"]);
        let f = &s.flows;
        assert_eq!(
            f.iter().map(|f| f.qos.limit_iops).collect::<Vec<_>>(),
            [None, Some(40.0), Some(50.0), Some(50.0 / 3.0)]
        );
        assert!(f.iter().all(|f| f.qos.reservation_iops.is_none()));
        assert_eq!(
            f.iter().map(|f| f.qos.weight).collect::<Vec<_>>(),
            [100, 100, 200, 67]
        );
        assert!(f
            .iter()
            .all(|f| f.requests == Some(2000) && f.outstanding == 32));
        assert_eq!(f[1].start.as_nanos(), 5_000_000_000);
        // Cost 3: a 12 KiB request (24 sectors).
        assert_eq!((f[2].request_sectors, f[3].request_sectors), (8, 24));
        assert_eq!(f[0].rate_interval, Some(sluice::Duration::from_millis(5)));
        let sluice_device::Model::Rate(dev) = &s.device.model else {
            panic!("not a rate device");
        };
        // 160 units of 4 KiB a second: one 4 KiB request takes 1/160 s.
        assert_eq!(dev.time(false, 8), sluice::Duration::from_nanos(6_250_000));
        assert_eq!(s.device.queue_depth, 1);
        assert!(toml.contains("at_limit = \"wait\""), "{toml}");
        assert!(s.stop_after_finite);
    }

    #[test]
    fn copies_defaults_and_errors() {
        let imp = import("[global]\nclient_groups = 1\n[client.0]\nclient_count = 3\nclient_weight = 20\n[server.0]\nserver_count = 2\n").unwrap();
        let s = imp.scenario.build().unwrap();
        // dmClock's defaults: reservation 20, limit 60, 1000 ops.
        assert_eq!(s.flows.len(), 3);
        assert_eq!(s.flows[2].name, "client0_2");
        assert_eq!(s.flows[0].qos.reservation_iops, Some(20.0));
        assert_eq!(s.flows[0].qos.weight, 1000);
        assert!(
            imp.notes.iter().any(|n| n.contains("2 servers")),
            "{:?}",
            imp.notes
        );
        // 5000 clients of 1 GiB each fit the device.
        let many =
            import("[global]\n[client.0]\nclient_count = 5000\n[server.0]\nserver_count = 1\n")
                .unwrap();
        assert_eq!(many.scenario.build().unwrap().flows.len(), 5000);
        for (text, want) in [
            (
                "[global]\nclient_groups = x\n",
                "line 2: client_groups must be a whole number",
            ),
            (
                "[client.0]\nclient_limit = -1\n",
                "client_limit must be a number",
            ),
            ("[client.0]\ncolour = red\n", "unknown key 'colour'"),
            ("[clients]\n", "unknown section [clients]"),
            ("[client.0\n", "closing ]"),
            ("client_count = 1\n", "before any [section]"),
            (
                "[server.0]\nserver_iops = 0\n",
                "server_iops and server_count must be at least 1",
            ),
        ] {
            let e = import(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    /// Every truncation of the example and every line replaced by garbage
    /// imports or fails with one line; nothing panics.
    #[test]
    fn mangled_inputs_fail_in_one_line() {
        let junk = [
            "= =",
            "[",
            "client_count = 99999999999",
            "client_wait = 1e9",
            "\u{202e}x = 1",
        ];
        for t in &crate::import::tests::mangled(EXAMPLE, &junk) {
            crate::import::tests::fails_in_one_line_or_builds(import(t), t);
        }
    }

    /// Issue 43, defect 12: servers faster in all than the rate device
    /// moves (1e7 MB/s of 4 KiB units) made a scenario `sim` refuses; the
    /// import refuses them in one line.
    #[test]
    fn a_server_rate_sim_would_refuse_is_refused_at_import() {
        let conf = "[global]\nserver_groups = 1\n[server.0]\nserver_iops = 1000000000\nserver_count = 10\n";
        let e = import(conf).unwrap_err().to_string();
        assert!(
            e.contains("10000000000 IOPS in all") && e.contains("(2441406250)"),
            "{e}"
        );
        let at_most = conf
            .replace("1000000000", "244140")
            .replace("= 10\n", "= 10\n[client.0]\nclient_count = 1\n");
        import(&at_most).unwrap().scenario.build().unwrap();
        // A value quoted back is cut short.
        let long = format!("[client.0]\nclient_limit = {}\n", "9".repeat(5000));
        let e = import(&long).unwrap_err().to_string();
        assert!(e.contains("client_limit") && e.len() < 200, "{e}");
    }
}
