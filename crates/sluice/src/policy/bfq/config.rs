//! BFQ's configuration: every parameter of `bfq`/`bfq+`, its default and
//! how it is read by name.

use super::RaisingParams;
use crate::error::Error;
use crate::policy::params::ParamReader;
use crate::time::Duration;
use crate::types::SECTOR_BYTES;

/// The parameter list of `bfq`/`bfq+`, with the defaults that differ.
macro_rules! bfq_params {
    ($heuristics:literal, $raised:literal) => {
        concat!(
            "slice_idle_ms=8, timeout_ms=125, max_budget=0 (sectors; 0 = T_max x peak rate), ",
            "budget_step=1024, seek_threshold=8192, ",
            $heuristics,
            ", write_charge=10, raising_coeff=10, raising_mb=24, raising_ms=6000, ",
            "raising_idle_ms=2000, ",
            $raised,
            ", fifo_expire_sync_ms=125, fifo_expire_async_ms=250, quantum=4, ",
            "max_budget_async_rq=4, timeout_at_completion=true, think_time_rule=true, min_tt_ms=2, ",
            "seek_cap=true"
        )
    };
}

/// Parameters accepted by `bfq` (defaults of the original algorithm).
pub const BFQ_PARAMS: &str = bfq_params!(
    "low_latency=false, peak_rate_lpf=false, budget_rules=false, fairness_rules=false, \
write_throt=false",
    "raised_idle_factor=1, raised_timeout=false"
);

/// Parameters accepted by `bfq+`.
pub const BFQ_PLUS_PARAMS: &str = bfq_params!(
    "low_latency=true, peak_rate_lpf=true, budget_rules=true, fairness_rules=true, \
write_throt=true",
    "raised_idle_factor=3, raised_timeout=true"
);

/// Configuration of a BFQ scheduler. Every field is a named parameter of
/// `bfq`/`bfq+` (see the field docs for the name, default and source).
#[derive(Clone, Debug, PartialEq)]
pub struct BfqConfig {
    /// BFQ+ (`bfq+`): initial budget B_max / 2 when `budget_rules`, no idling
    /// when the device queues commands (§5.1).
    pub plus: bool,
    /// `slice_idle_ms` (8): the idle wait for a synchronous queue's next
    /// request. The papers say "in the order of the seek and rotational
    /// latencies"; 8 ms is Linux's `slice_idle`, which BFQ inherited. 0
    /// disables idling.
    pub slice_idle: Duration,
    /// `timeout_ms` (125): T_max, the budget timeout (paper §3.2, §3.3).
    pub timeout: Duration,
    /// `max_budget` (0 = automatic): pin B_max to this many sectors instead
    /// of T_max times the peak-rate estimate.
    pub max_budget: Option<u64>,
    /// `budget_step` (1024 sectors): the fixed increment of the original
    /// rule on budget exhaustion (§4.3 says "a fixed quantity" without a
    /// number; 1024 = 8 x 128 sectors is the step of the original BFQ code).
    pub budget_step: u64,
    /// `seek_threshold` (8192 sectors): mean seek distance above which a
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
    /// `write_charge` (10): the write (over)charge coefficient (§4.5).
    pub write_charge: u32,
    /// Weight raising: `raising_coeff` (C_rais = 10), `raising_mb` (B_rais =
    /// 24 MB), `raising_ms` (T_rais = 6000), `raising_idle_ms` (T_idle =
    /// 2000), all from §4.1.
    pub raising: RaisingParams,
    /// `raised_idle_factor` (3 for `bfq+`, 1 for `bfq`): a weight-raised
    /// queue waits this many times `slice_idle_ms` for its next request.
    /// The papers do not say how long BFQ+ idles for a raised queue; the
    /// code they ran (BFQ's weight-raising releases for 2.6.3x) arms the
    /// idle timer for three slices. See the module docs, "The code the
    /// paper ran".
    pub raised_idle_factor: u32,
    /// `raised_timeout` (true for `bfq+`): a weight-raised queue's budget
    /// timeout is T_max times its current weight over its original weight
    /// (`timeout_coeff` of the same code). The SYSTOR paper's §3.3 bounds
    /// every slot of BFQ by T_max; its §4.1, which adds weight raising,
    /// does not say whether a raised queue keeps that bound, so BFQ+
    /// follows the code. The choice is a trade (measured in the README,
    /// "What differs and why"): with it a start-up beside ten raised
    /// readers stays within 2x of idle; without it a video player beside
    /// repeated start-ups of a large application (xterm) keeps more of
    /// its frames.
    pub raised_timeout: bool,
    /// `fifo_expire_sync_ms` (125) and `fifo_expire_async_ms` (250): a
    /// request older than this is served first at the start of its queue's
    /// next slot (once per slot, as the code's `bfq_check_fifo`); 0 turns
    /// the check off. Not in the papers.
    pub fifo_expire_sync: Duration,
    pub fifo_expire_async: Duration,
    /// `quantum` (4): at most this many requests of the queue in service in
    /// the device while other queues are backlogged (four times as many
    /// when it is the only one), as the code's dispatch limit.
    pub quantum: u32,
    /// `max_budget_async_rq` (4): the async queue sends at most this many
    /// requests per slot while other queues are backlogged, and none while
    /// synchronous requests are in the device.
    pub max_budget_async_rq: u32,
    /// `timeout_at_completion` (true): the budget timeout (and the
    /// slowness clock) starts at the first completion of the slot, as the
    /// code arms it, instead of its first dispatch; and it is checked at
    /// arrivals, completions and the end of an idle wait, never cutting an
    /// idle wait short unless a third of the budget is left (the code's
    /// `bfq_may_expire_for_budg_timeout`). The papers only say the slot
    /// lasts at most T_max.
    pub timeout_at_completion: bool,
    /// `think_time_rule` (true): a synchronous queue whose mean think time
    /// exceeds `slice_idle_ms` gets no idle wait unless it is raised (the
    /// code's idle window). Not in the papers.
    pub think_time_rule: bool,
    /// `min_tt_ms` (2): under H-fairness rule 3, the "very low" idle wait
    /// of a random queue that has received B_max / 8 in its slot (report
    /// §4.4; the value is the code's `BFQ_MIN_TT`).
    pub min_tt: Duration,
    /// `seek_cap` (true): one seek distance counts at most four times the
    /// mean plus 64 MiB in the random-queue detection (1 GiB for the first
    /// two), as in the code; without it a sequential reader that wraps to
    /// the start of its file is random for about forty requests, loses its
    /// idle wait and its budget (not in the papers).
    pub seek_cap: bool,
}

impl BfqConfig {
    /// The original BFQ (`bfq`).
    pub fn original() -> Self {
        BfqConfig {
            plus: false,
            slice_idle: Duration::from_millis(8),
            timeout: Duration::from_millis(125),
            max_budget: None,
            budget_step: 1024,
            seek_threshold: 8192,
            low_latency: false,
            peak_rate_lpf: false,
            budget_rules: false,
            fairness_rules: false,
            write_throt: false,
            write_charge: 10,
            raising: RaisingParams {
                coeff: 10,
                budget: 24_000_000 / SECTOR_BYTES,
                max_time: Duration::from_secs(6),
                min_idle: Duration::from_secs(2),
            },
            raised_idle_factor: 1,
            raised_timeout: false,
            fifo_expire_sync: Duration::from_millis(125),
            fifo_expire_async: Duration::from_millis(250),
            quantum: 4,
            max_budget_async_rq: 4,
            timeout_at_completion: true,
            think_time_rule: true,
            min_tt: Duration::from_millis(2),
            seek_cap: true,
        }
    }

    /// BFQ+ (`bfq+`), every heuristic on.
    pub fn plus() -> Self {
        BfqConfig {
            plus: true,
            low_latency: true,
            peak_rate_lpf: true,
            budget_rules: true,
            fairness_rules: true,
            write_throt: true,
            raised_idle_factor: 3,
            raised_timeout: true,
            ..Self::original()
        }
    }

    /// Read the named parameters over the defaults of `bfq` or `bfq+`.
    pub(crate) fn from_params(plus: bool, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let d = if plus { Self::plus() } else { Self::original() };
        let ms = Duration::from_millis_f64;
        let to_ms = |t: Duration| t.as_millis_f64();
        let slice_idle = ms(p.float("slice_idle_ms", to_ms(d.slice_idle), 0.0, 10_000.0)?);
        let timeout = ms(p.float("timeout_ms", to_ms(d.timeout), 1.0, 100_000.0)?);
        let max_budget = p.int("max_budget", 0, 0, 1 << 40)? as u64;
        let budget_step = p.int("budget_step", d.budget_step as i64, 1, 1 << 40)? as u64;
        let seek_threshold = p.int("seek_threshold", d.seek_threshold as i64, 0, 1 << 50)? as u64;
        let low_latency = p.bool("low_latency", d.low_latency)?;
        let peak_rate_lpf = p.bool("peak_rate_lpf", d.peak_rate_lpf)?;
        let budget_rules = p.bool("budget_rules", d.budget_rules)?;
        let fairness_rules = p.bool("fairness_rules", d.fairness_rules)?;
        let write_throt = p.bool("write_throt", d.write_throt)?;
        let write_charge = p.int("write_charge", i64::from(d.write_charge), 1, 1000)? as u32;
        let coeff = p.int("raising_coeff", i64::from(d.raising.coeff), 1, 1000)? as u32;
        let raising_mb = p.float("raising_mb", 24.0, 0.0, 1e6)?;
        let raising_ms = p.float("raising_ms", to_ms(d.raising.max_time), 0.0, 1e9)?;
        let raising_idle_ms = p.float("raising_idle_ms", to_ms(d.raising.min_idle), 0.0, 1e9)?;
        let raised_idle_factor = p.int(
            "raised_idle_factor",
            i64::from(d.raised_idle_factor),
            1,
            100,
        )? as u32;
        let raised_timeout = p.bool("raised_timeout", d.raised_timeout)?;
        let fifo_sync = p.float("fifo_expire_sync_ms", to_ms(d.fifo_expire_sync), 0.0, 1e7)?;
        let fifo_async = p.float("fifo_expire_async_ms", to_ms(d.fifo_expire_async), 0.0, 1e7)?;
        let quantum = p.int("quantum", i64::from(d.quantum), 1, 4096)? as u32;
        let async_rq = p.int(
            "max_budget_async_rq",
            i64::from(d.max_budget_async_rq),
            1,
            4096,
        )?;
        let timeout_at_completion = p.bool("timeout_at_completion", d.timeout_at_completion)?;
        let think_time_rule = p.bool("think_time_rule", d.think_time_rule)?;
        let min_tt = ms(p.float("min_tt_ms", to_ms(d.min_tt), 0.0, 10_000.0)?);
        let seek_cap = p.bool("seek_cap", d.seek_cap)?;
        Ok(BfqConfig {
            plus,
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
            fifo_expire_sync: ms(fifo_sync),
            fifo_expire_async: ms(fifo_async),
            quantum,
            max_budget_async_rq: async_rq as u32,
            timeout_at_completion,
            think_time_rule,
            min_tt,
            seek_cap,
        })
    }
}
