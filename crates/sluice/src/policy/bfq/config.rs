//! BFQ's configuration: its parameter table (every parameter of
//! `bfq`/`bfq+` with its default, range and meaning, written once) and how
//! a configuration is read from it.

use super::RaisingParams;
use crate::error::Error;
use crate::policy::params::{ParamReader, ParamSpec, ParamTable, Params};
use crate::time::Duration;
use crate::types::SECTOR_BYTES;

/// Which BFQ runs: the two differ in their table's defaults and in the two
/// rules that are not switchable (see the module docs, "`bfq` versus
/// `bfq+`").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BfqVariant {
    /// `bfq`: the algorithm of the SYSTOR paper's §3.
    Original,
    /// `bfq+`: with the §4 heuristics on, initial budget B_max / 2 under
    /// `budget_rules`, and no idling when the device queues commands (§5.1).
    Plus,
}

impl BfqVariant {
    /// Its contract name.
    pub fn name(self) -> &'static str {
        match self {
            BfqVariant::Original => "bfq",
            BfqVariant::Plus => "bfq+",
        }
    }

    /// Its parameter table.
    pub fn params(self) -> &'static ParamTable {
        match self {
            BfqVariant::Original => &BFQ_PARAMS,
            BfqVariant::Plus => &BFQ_PLUS_PARAMS,
        }
    }
}

/// The rows of `bfq` (`plus` false) or `bfq+`: `bfq+` turns the five
/// heuristics on. What BFQ's code for 2.6.3x kernels did for raised queues
/// (longer idling, a scaled timeout, idling on queueing drives) is off in
/// both: the papers do not do it.
const fn bfq_table(plus: bool) -> [ParamSpec; 27] {
    [
        ParamSpec::float(
            "slice_idle_ms",
            8.0,
            (0.0, 10_000.0),
            "idle wait for a synchronous queue's next request (Linux's slice_idle); 0: no idling",
        ),
        ParamSpec::float(
            "timeout_ms",
            125.0,
            (1.0, 100_000.0),
            "T_max, the budget timeout (§3.2, §3.3)",
        ),
        ParamSpec::int(
            "max_budget",
            0,
            (0, 1 << 40),
            "B_max pinned to this many sectors",
        )
        .note("sectors; 0 = T_max x peak rate"),
        ParamSpec::int(
            "budget_step",
            1024,
            (1, 1 << 40),
            "the original rule's increment on budget exhaustion (the code's 8 x 128 sectors)",
        ),
        ParamSpec::int(
            "seek_threshold",
            8192,
            (0, 1 << 50),
            "mean seek distance (sectors) above which a queue is random (report §3.5)",
        ),
        ParamSpec::bool("low_latency", plus, "H-low-latency: weight raising (§4.1)"),
        ParamSpec::bool(
            "peak_rate_lpf",
            plus,
            "H-peak-rate: the 7/8 low-pass estimator (§4.2)",
        ),
        ParamSpec::bool(
            "budget_rules",
            plus,
            "H-throughput: initial budget B_max / 2 and multiplicative increase (§4.3)",
        ),
        ParamSpec::bool(
            "fairness_rules",
            plus,
            "H-fairness: the three rules of report §4.4",
        ),
        ParamSpec::bool(
            "write_throt",
            plus,
            "H-write-throt: writes charged write_charge per sector (§4.5)",
        ),
        ParamSpec::int(
            "write_charge",
            10,
            (1, 1000),
            "the write (over)charge coefficient (§4.5)",
        ),
        ParamSpec::int(
            "raising_coeff",
            10,
            (1, 1000),
            "C_rais, the weight-raising factor (§4.1)",
        ),
        ParamSpec::float(
            "raising_mb",
            24.0,
            (0.0, 1e6),
            "B_rais, the service (MB) a raised queue may receive raised (§4.1)",
        ),
        ParamSpec::float(
            "raising_ms",
            6000.0,
            (0.0, 1e9),
            "T_rais, the longest raising (§4.1)",
        ),
        ParamSpec::float(
            "raising_idle_ms",
            2000.0,
            (0.0, 1e9),
            "T_idle, the idle time after which a queue is raised again (§4.1)",
        ),
        ParamSpec::int(
            "raised_idle_factor",
            1,
            (1, 100),
            "a raised queue idles this many slice_idle_ms (papers: silent, so one; BFQ code for 2.6.3x: 3)",
        ),
        ParamSpec::bool(
            "raised_timeout",
            false,
            "a raised queue's budget timeout is T_max times its raised over its original weight (BFQ code for 2.6.3x; papers: every slot within T_max)",
        ),
        ParamSpec::bool(
            "raised_ncq_idling",
            false,
            "bfq+ idles for raised queues on a queueing drive (BFQ code for 2.6.3x; papers: no idling with NCQ)",
        ),
        ParamSpec::float(
            "fifo_expire_sync_ms",
            125.0,
            (0.0, 1e7),
            "a sync request older than this goes first at its queue's next slot; 0: never",
        ),
        ParamSpec::float(
            "fifo_expire_async_ms",
            250.0,
            (0.0, 1e7),
            "the same for async requests",
        ),
        ParamSpec::int(
            "quantum",
            4,
            (1, 4096),
            "requests of the queue in service in the device while others wait",
        ),
        ParamSpec::int(
            "max_budget_async_rq",
            4,
            (1, 4096),
            "requests the async queue sends per slot while others wait",
        ),
        ParamSpec::bool(
            "timeout_at_completion",
            true,
            "the budget-timeout clock starts at the slot's first completion, as the code's",
        ),
        ParamSpec::bool(
            "think_time_rule",
            true,
            "a queue thinking longer than slice_idle_ms loses its idle wait unless raised",
        ),
        ParamSpec::float(
            "min_tt_ms",
            2.0,
            (0.0, 10_000.0),
            "H-fairness rule 3's short idle wait for a random queue (the code's BFQ_MIN_TT)",
        ),
        ParamSpec::bool(
            "seek_cap",
            true,
            "one seek counts at most 4 x the mean + 64 MiB in the random-queue detection",
        ),
        ParamSpec::choice(
            "charge",
            "sectors",
            &["sectors", "cost"],
            "what a request takes from its queue's budget: sectors (the papers') or the [cost] model's sector-equivalents",
        ),
    ]
}

/// Parameters accepted by `bfq` (defaults of the original algorithm).
pub(crate) const BFQ_PARAMS: ParamTable = ParamTable::new(&bfq_table(false)).compact();

/// Parameters accepted by `bfq+`.
pub(crate) const BFQ_PLUS_PARAMS: ParamTable = ParamTable::new(&bfq_table(true)).compact();

/// Configuration of a BFQ scheduler. Every field is a named parameter of
/// `bfq`/`bfq+`; names, defaults and ranges are in `bfq`'s table and
/// `bfq+`'s (`POLICIES`), the field docs say where each comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct BfqConfig {
    /// `bfq` or `bfq+`.
    pub variant: BfqVariant,
    /// `slice_idle_ms`: the idle wait for a synchronous queue's next
    /// request. The papers say "in the order of the seek and rotational
    /// latencies"; 8 ms is Linux's `slice_idle`, which BFQ inherited. 0
    /// disables idling.
    pub slice_idle: Duration,
    /// `timeout_ms`: T_max, the budget timeout (paper §3.2, §3.3).
    pub timeout: Duration,
    /// `max_budget` (0 = automatic): pin B_max to this many sectors instead
    /// of T_max times the peak-rate estimate.
    pub max_budget: Option<u64>,
    /// `budget_step`: the fixed increment of the original
    /// rule on budget exhaustion (§4.3 says "a fixed quantity" without a
    /// number; 1024 = 8 x 128 sectors is the step of the original BFQ code).
    pub budget_step: u64,
    /// `seek_threshold`: mean seek distance above which a
    /// queue is detected as random (report §3.5).
    pub seek_threshold: u64,
    /// `low_latency`: H-low-latency, weight raising (§4.1).
    pub low_latency: bool,
    /// `peak_rate_lpf`: H-peak-rate, the 7/8 low-pass estimator (§4.2).
    pub peak_rate_lpf: bool,
    /// `budget_rules`: H-throughput, initial budget B_max / 2 and the
    /// multiplicative-increase rules (§4.3).
    pub budget_rules: bool,
    /// `fairness_rules`: H-fairness, the three rules of report §4.4.
    pub fairness_rules: bool,
    /// `write_throt`: H-write-throt, writes charged `write_charge` per
    /// sector (§4.5).
    pub write_throt: bool,
    /// `write_charge`: the write (over)charge coefficient (§4.5).
    pub write_charge: u32,
    /// Weight raising: `raising_coeff` (C_rais), `raising_mb` (B_rais),
    /// `raising_ms` (T_rais), `raising_idle_ms` (T_idle), all from §4.1.
    pub raising: RaisingParams,
    /// `raised_idle_factor`: a weight-raised queue waits this many times
    /// `slice_idle_ms` for its next request. The papers say BFQ+ idles for
    /// raised queues (SYSTOR §4.1) but not for how long, so the default is
    /// one slice, as for any queue. BFQ's weight-raising code for 2.6.3x
    /// kernels (the code the papers ran) armed the idle timer for three
    /// slices: `raised_idle_factor = 3` follows it.
    pub raised_idle_factor: u32,
    /// `raised_timeout`: a weight-raised queue's budget timeout is T_max
    /// times its current weight over its original weight (`timeout_coeff`
    /// of BFQ's code for 2.6.3x kernels). Off by default: SYSTOR §3.3
    /// bounds every slot by T_max and §4.1, which adds weight raising,
    /// makes no exception for raised queues. With it on, a start-up beside
    /// ten raised readers gets closer to its idle-disk time; with it off, a
    /// video player beside repeated start-ups keeps more of its frames
    /// (`sluice repro bfq` shows both).
    pub raised_timeout: bool,
    /// `raised_ncq_idling`: `bfq+` keeps idling for weight-raised queues on
    /// a drive that queues commands (`queue_depth() > 1`), as BFQ's code
    /// for 2.6.3x kernels did (its hardware-queueing test dropped idling
    /// only for queues that were not raised). Off by default: SYSTOR
    /// §6.2.2 and the report's §7.3.2 say BFQ+, like BFQ and CFQ, gives up
    /// idling with NCQ, which is why start-ups become slow there.
    pub raised_ncq_idling: bool,
    /// `fifo_expire_sync_ms` and `fifo_expire_async_ms`: a
    /// request older than this is served first at the start of its queue's
    /// next slot (once per slot, as the code's `bfq_check_fifo`); 0 turns
    /// the check off. Not in the papers.
    pub fifo_expire_sync: Duration,
    /// `fifo_expire_async_ms`: the same for the requests of asynchronous
    /// queues (`fifo_expire_sync` is for synchronous ones).
    pub fifo_expire_async: Duration,
    /// `quantum`: at most this many requests of the queue in service in
    /// the device while other queues are backlogged (four times as many
    /// when it is the only one), as the code's dispatch limit.
    pub quantum: u32,
    /// `max_budget_async_rq`: the async queue sends at most this many
    /// requests per slot while other queues are backlogged, and none while
    /// synchronous requests are in the device.
    pub max_budget_async_rq: u32,
    /// `timeout_at_completion`: the budget timeout (and the
    /// slowness clock) starts at the first completion of the slot, as the
    /// code arms it, instead of its first dispatch; and it is checked at
    /// arrivals, completions and the end of an idle wait, never cutting an
    /// idle wait short unless a third of the budget is left (the code's
    /// `bfq_may_expire_for_budg_timeout`). The papers only say the slot
    /// lasts at most T_max.
    pub timeout_at_completion: bool,
    /// `think_time_rule`: a synchronous queue whose mean think time
    /// exceeds `slice_idle_ms` gets no idle wait unless it is raised (the
    /// code's idle window). Not in the papers.
    pub think_time_rule: bool,
    /// `min_tt_ms`: under H-fairness rule 3, the "very low" idle wait
    /// of a random queue that has received B_max / 8 in its slot (report
    /// §4.4; the value is the code's `BFQ_MIN_TT`).
    pub min_tt: Duration,
    /// `seek_cap`: one seek distance counts at most four times the
    /// mean plus 64 MiB in the random-queue detection (1 GiB for the first
    /// two), as in the code; without it a sequential reader that wraps to
    /// the start of its file is random for about forty requests, loses its
    /// idle wait and its budget (not in the papers).
    pub seek_cap: bool,
    /// `charge = "cost"`: budgets are spent in the cost model's
    /// sector-equivalents (a seek costs more than a sequential step), not
    /// in sectors (not in the papers).
    pub charge_cost: bool,
}

impl BfqConfig {
    /// The original BFQ (`bfq`), with its table's defaults.
    pub fn original() -> Self {
        Self::defaults(BfqVariant::Original)
    }

    /// BFQ+ (`bfq+`), every heuristic on.
    pub fn plus() -> Self {
        Self::defaults(BfqVariant::Plus)
    }

    /// A variant's table defaults.
    fn defaults(variant: BfqVariant) -> Self {
        let none = Params::default();
        Self::from_params(variant, &mut none.reader(variant.name()))
            .expect("a table's defaults lie in its ranges")
    }

    /// Read the named parameters over the defaults of `bfq` or `bfq+`.
    pub(crate) fn from_params(variant: BfqVariant, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let t = variant.params();
        let ms = Duration::from_millis_f64;
        let slice_idle = ms(p.float(t, "slice_idle_ms")?);
        let timeout = ms(p.float(t, "timeout_ms")?);
        let max_budget = p.int(t, "max_budget")? as u64;
        let budget_step = p.int(t, "budget_step")? as u64;
        let seek_threshold = p.int(t, "seek_threshold")? as u64;
        let low_latency = p.bool(t, "low_latency")?;
        let peak_rate_lpf = p.bool(t, "peak_rate_lpf")?;
        let budget_rules = p.bool(t, "budget_rules")?;
        let fairness_rules = p.bool(t, "fairness_rules")?;
        let write_throt = p.bool(t, "write_throt")?;
        let write_charge = p.int(t, "write_charge")? as u32;
        let coeff = p.int(t, "raising_coeff")? as u32;
        let raising_mb = p.float(t, "raising_mb")?;
        let raising_ms = p.float(t, "raising_ms")?;
        let raising_idle_ms = p.float(t, "raising_idle_ms")?;
        let raised_idle_factor = p.int(t, "raised_idle_factor")? as u32;
        let raised_timeout = p.bool(t, "raised_timeout")?;
        let raised_ncq_idling = p.bool(t, "raised_ncq_idling")?;
        let fifo_sync = p.float(t, "fifo_expire_sync_ms")?;
        let fifo_async = p.float(t, "fifo_expire_async_ms")?;
        let quantum = p.int(t, "quantum")? as u32;
        let async_rq = p.int(t, "max_budget_async_rq")?;
        let timeout_at_completion = p.bool(t, "timeout_at_completion")?;
        let think_time_rule = p.bool(t, "think_time_rule")?;
        let min_tt = ms(p.float(t, "min_tt_ms")?);
        let seek_cap = p.bool(t, "seek_cap")?;
        let charge_cost = p.choice(t, "charge")? == "cost";
        Ok(BfqConfig {
            variant,
            slice_idle,
            timeout,
            max_budget: (max_budget > 0).then_some(max_budget),
            budget_step,
            seek_threshold,
            low_latency,
            peak_rate_lpf,
            budget_rules,
            fairness_rules,
            write_throt,
            write_charge,
            raising: RaisingParams {
                coeff,
                budget: (raising_mb * 1e6 / SECTOR_BYTES as f64).round() as u64,
                max_time: ms(raising_ms),
                min_idle: ms(raising_idle_ms),
            },
            raised_idle_factor,
            raised_timeout,
            raised_ncq_idling,
            fifo_expire_sync: ms(fifo_sync),
            fifo_expire_async: ms(fifo_async),
            quantum,
            max_budget_async_rq: async_rq as u32,
            timeout_at_completion,
            think_time_rule,
            min_tt,
            seek_cap,
            charge_cost,
        })
    }
}
