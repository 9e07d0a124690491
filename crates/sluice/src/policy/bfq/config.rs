//! BFQ's configuration: the declaration of every parameter of
//! `bfq`/`bfq+` (default, range, meaning, written once) and the
//! configuration the policy runs with, built from it.
//!
//! "The code of the time", cited by line below: `block/bfq-iosched.c` of a
//! Linux 2.6.35 tree that carries BFQ with weight raising, repository
//! CyanogenMod/android_kernel_samsung_crespo at commit 833eb1cb (3,052
//! lines). It is a release somewhat later than the one the papers ran (it
//! adds soft real-time raising and computes T_rais from the peak rate),
//! but its raised-queue and queueing-drive rules are the ones cited.

use super::RaisingParams;
use crate::error::Error;
use crate::policy::params::{declare_params, ParamReader, ParamTable};
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
    /// `budget_rules`, and on a drive that queues commands no idling for a
    /// random queue that is not raised (§5.1, as BFQ's code of the time
    /// applied it).
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

declare_params! {
    /// The parameters of `bfq` (`plus` false) and `bfq+` by name: `bfq+`
    /// turns the five heuristics on, and with them what BFQ's code of the
    /// time did where the papers are silent (longer idling and a scaled
    /// timeout for raised queues, its queueing-drive rules and detection).
    #[derive(Clone, Debug, PartialEq)]
    pub struct BfqTunables(plus: bool) {
        /// idle wait for a synchronous queue's next request (Linux's slice_idle); 0: no idling
        ///
        /// The papers say "in the order of the seek and rotational
        /// latencies"; the default is Linux's `slice_idle`, which BFQ
        /// inherited.
        slice_idle_ms: f64 = float(8.0, 0.0, 10_000.0),
        /// T_max, the budget timeout (§3.2, §3.3)
        timeout_ms: f64 = float(125.0, 1.0, 100_000.0),
        /// B_max pinned to this many sectors
        ///
        /// 0: T_max times the peak-rate estimate.
        max_budget: u64 = int(0, 0, 1 << 40) note "sectors; 0 = T_max x peak rate",
        /// the original rule's increment on budget exhaustion (the code's 8 x 128 sectors)
        ///
        /// §4.3 says "a fixed quantity" without a number.
        budget_step: u64 = int(1024, 1, 1 << 40),
        /// mean seek distance (sectors) above which a queue is random (report §3.5)
        seek_threshold: u64 = int(8192, 0, 1 << 50),
        /// H-low-latency: weight raising (§4.1)
        low_latency: bool = bool(plus),
        /// H-peak-rate: the 7/8 low-pass estimator (§4.2)
        peak_rate_lpf: bool = bool(plus),
        /// H-throughput: initial budget B_max / 2 and multiplicative increase (§4.3)
        budget_rules: bool = bool(plus),
        /// H-fairness: the three rules of report §4.4
        fairness_rules: bool = bool(plus),
        /// H-write-throt: writes charged write_charge per sector (§4.5)
        write_throt: bool = bool(plus),
        /// the write (over)charge coefficient (§4.5)
        write_charge: u32 = int(10, 1, 1000),
        /// C_rais, the weight-raising factor (§4.1)
        raising_coeff: u32 = int(10, 1, 1000),
        /// B_rais, the service (MB) a raised queue may receive raised (§4.1)
        raising_mb: f64 = float(24.0, 0.0, 1e6),
        /// T_rais, the longest raising (§4.1)
        raising_ms: f64 = float(6000.0, 0.0, 1e9),
        /// T_idle, the idle time after which a queue is raised again (§4.1)
        raising_idle_ms: f64 = float(2000.0, 0.0, 1e9),
        /// a raised queue idles this many slice_idle_ms (BFQ code for 2.6.3x: 3; papers: silent)
        ///
        /// The papers say BFQ+ idles for raised queues (SYSTOR §4.1) but not
        /// for how long ("in the order of the seek and rotational
        /// latencies", §3), so bfq+ follows BFQ's code of the time, which
        /// armed the idle timer for three slices for a raised queue:
        /// `bfq_arm_slice_timer`, lines 886-929 (the factor at 923-924) of
        /// the code of the time. `bfq` keeps one slice.
        raised_idle_factor: u32 = int(if plus { 3 } else { 1 }, 1, 100),
        /// a raised queue's budget timeout is T_max times its raised over its original weight (BFQ code for 2.6.3x)
        ///
        /// `bfq_set_budget_timeout`, lines 936-954 of the code of the time:
        /// its `timeout_coeff` (939-943) is the queue's weight over its
        /// original weight, so T_max times C_rais while raised. On by
        /// default in bfq+. SYSTOR §3.3
        /// bounds a slot by T_max as BFQ's rule and §4.1, which adds weight
        /// raising, is silent on a raised queue's timeout: false is §3.3
        /// read literally for raised queues too.
        raised_timeout: bool = bool(plus),
        /// bfq+ idles for raised queues on a queueing drive (BFQ code for 2.6.3x)
        ///
        /// On a drive that queues commands (`queue_depth() > 1`) BFQ's code
        /// of the time kept idling for a raised queue whatever its pattern:
        /// `bfq_update_idle_window`, lines 2110-2141 of the code of the time,
        /// drops the idle window for a queue on such a drive only if it is
        /// seeky and not raised (2122-2126), and a raised queue keeps it
        /// whatever its think time (2127-2133). On by default in bfq+; false
        /// with `ncq_seq_idling = false` is SYSTOR §5.1 read literally
        /// ("disabling disk idling altogether"). `bfq` always idles.
        raised_ncq_idling: bool = bool(plus),
        /// bfq+ idles for sequential queues on a queueing drive (BFQ code for 2.6.3x)
        ///
        /// BFQ's code of the time dropped idling on a queueing drive only
        /// for queues detected as random (`bfq_update_idle_window`, lines
        /// 2122-2126 of the code of the time); CFQ of 2.6.35 keeps it for
        /// any queue that is not seeky, with or without NCQ on a rotational
        /// drive (`cfq_update_idle_window`). A sequential reader keeps its
        /// idle wait, so its slot is not cut each time its one request is in
        /// the drive. On by
        /// default in bfq+; false with `raised_ncq_idling = false` is SYSTOR
        /// §5.1 read literally.
        ncq_seq_idling: bool = bool(plus),
        /// bfq+ tells a queueing drive by the requests it sees in flight (BFQ code for 2.6.3x)
        ///
        /// `bfq_update_hw_tag`, lines 2224-2247 of the code of the time: a
        /// drive of depth above 1 counts as queueing until more than 32
        /// completions with at least 4 requests in the driver or queued
        /// have been seen, then only if more than 4 were in the driver at
        /// once (and for good once so). A drive whose queue the scheduler
        /// never fills, because it idles for the queue in service, is then
        /// served as one that does not queue. False: every drive deeper
        /// than 1 queues. (The code also starts a drive of depth 1 as
        /// queueing until its first verdict; sluice treats it as what the
        /// verdict will be.)
        hw_tag_detection: bool = bool(plus),
        /// a sync request older than this goes first at its queue's next slot; 0: never
        ///
        /// Once per slot, as the code's `bfq_check_fifo`. Not in the papers.
        fifo_expire_sync_ms: f64 = float(125.0, 0.0, 1e7),
        /// the same for async requests
        fifo_expire_async_ms: f64 = float(250.0, 0.0, 1e7),
        /// requests of the queue in service in the device while others wait
        ///
        /// Four times as many when it is the only one, as the code's
        /// dispatch limit.
        quantum: u32 = int(4, 1, 4096),
        /// requests the async queue sends per slot while others wait
        ///
        /// And none while synchronous requests are in the device.
        max_budget_async_rq: u32 = int(4, 1, 4096),
        /// the budget-timeout clock starts at the slot's first completion, as the code's
        ///
        /// Instead of its first dispatch (the slowness clock too); and it is
        /// checked at arrivals, completions and the end of an idle wait,
        /// never cutting an idle wait short unless a third of the budget is
        /// left (the code's `bfq_may_expire_for_budg_timeout`). The papers
        /// only say the slot lasts at most T_max.
        timeout_at_completion: bool = bool(true),
        /// a queue thinking longer than slice_idle_ms loses its idle wait unless raised
        ///
        /// The code's idle window. Not in the papers.
        think_time_rule: bool = bool(true),
        /// H-fairness rule 3's short idle wait for a random queue (the code's BFQ_MIN_TT)
        ///
        /// The "very low" idle wait of a random queue that has received
        /// B_max / 8 in its slot (report §4.4).
        min_tt_ms: f64 = float(2.0, 0.0, 10_000.0),
        /// one seek counts at most 4 x the mean + 64 MiB in the random-queue detection
        ///
        /// 1 GiB for the first two, as in the code; without it a sequential
        /// reader that wraps to the start of its file is random for about
        /// forty requests, loses its idle wait and its budget (not in the
        /// papers).
        seek_cap: bool = bool(true),
        /// what a request takes from its queue's budget: sectors (the papers') or the [cost] model's sector-equivalents
        ///
        /// `cost`: a seek costs more than a sequential step.
        charge: &'static str = choice("sectors", &["sectors", "cost"]),
    }
}

/// Parameters accepted by `bfq` (defaults of the original algorithm).
pub(crate) const BFQ_PARAMS: ParamTable = ParamTable::new(&BfqTunables::specs(false)).compact();

/// Parameters accepted by `bfq+`.
pub(crate) const BFQ_PLUS_PARAMS: ParamTable = ParamTable::new(&BfqTunables::specs(true)).compact();

/// Configuration of a BFQ scheduler: its [`BfqTunables`] (names,
/// defaults, meaning) in the units the policy runs with.
#[derive(Clone, Debug, PartialEq)]
pub struct BfqConfig {
    /// `bfq` or `bfq+`.
    pub variant: BfqVariant,
    /// `slice_idle_ms` (zero disables idling).
    pub slice_idle: Duration,
    /// `timeout_ms`: T_max.
    pub timeout: Duration,
    /// `max_budget`, None when 0 (automatic).
    pub max_budget: Option<u64>,
    /// `budget_step`.
    pub budget_step: u64,
    /// `seek_threshold`.
    pub seek_threshold: u64,
    /// `low_latency`.
    pub low_latency: bool,
    /// `peak_rate_lpf`.
    pub peak_rate_lpf: bool,
    /// `budget_rules`.
    pub budget_rules: bool,
    /// `fairness_rules`.
    pub fairness_rules: bool,
    /// `write_throt`.
    pub write_throt: bool,
    /// `write_charge`.
    pub write_charge: u32,
    /// Weight raising: `raising_coeff` (C_rais), `raising_mb` (B_rais),
    /// `raising_ms` (T_rais), `raising_idle_ms` (T_idle), all from §4.1.
    pub raising: RaisingParams,
    /// `raised_idle_factor`.
    pub raised_idle_factor: u32,
    /// `raised_timeout`.
    pub raised_timeout: bool,
    /// `raised_ncq_idling`.
    pub raised_ncq_idling: bool,
    /// `ncq_seq_idling`.
    pub ncq_seq_idling: bool,
    /// `hw_tag_detection`.
    pub hw_tag_detection: bool,
    /// `fifo_expire_sync_ms` (zero: no check).
    pub fifo_expire_sync: Duration,
    /// `fifo_expire_async_ms` (zero: no check).
    pub fifo_expire_async: Duration,
    /// `quantum`.
    pub quantum: u32,
    /// `max_budget_async_rq`.
    pub max_budget_async_rq: u32,
    /// `timeout_at_completion`.
    pub timeout_at_completion: bool,
    /// `think_time_rule`.
    pub think_time_rule: bool,
    /// `min_tt_ms`.
    pub min_tt: Duration,
    /// `seek_cap`.
    pub seek_cap: bool,
    /// `charge = "cost"`: budgets are spent in the cost model's
    /// sector-equivalents, not in sectors.
    pub charge_cost: bool,
}

impl From<&BfqTunables> for RaisingParams {
    fn from(t: &BfqTunables) -> Self {
        RaisingParams {
            coeff: t.raising_coeff,
            budget: (t.raising_mb * 1e6 / SECTOR_BYTES as f64).round() as u64,
            max_time: Duration::from_millis_f64(t.raising_ms),
            min_idle: Duration::from_millis_f64(t.raising_idle_ms),
        }
    }
}

impl Default for RaisingParams {
    /// The declared defaults (the same in `bfq` and `bfq+`).
    fn default() -> Self {
        Self::from(&BfqTunables::defaults(false))
    }
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

    /// A variant's declared defaults.
    fn defaults(variant: BfqVariant) -> Self {
        Self::of(variant, &BfqTunables::defaults(variant == BfqVariant::Plus))
    }

    /// Read the named parameters over the defaults of `bfq` or `bfq+`.
    pub(crate) fn from_params(variant: BfqVariant, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let plus = variant == BfqVariant::Plus;
        let t = BfqTunables::defaults(plus).read_over(p, variant.params())?;
        Ok(Self::of(variant, &t))
    }

    /// The configuration of `variant` with parameters `t`.
    pub fn of(variant: BfqVariant, t: &BfqTunables) -> Self {
        let ms = Duration::from_millis_f64;
        BfqConfig {
            variant,
            slice_idle: ms(t.slice_idle_ms),
            timeout: ms(t.timeout_ms),
            max_budget: (t.max_budget > 0).then_some(t.max_budget),
            budget_step: t.budget_step,
            seek_threshold: t.seek_threshold,
            low_latency: t.low_latency,
            peak_rate_lpf: t.peak_rate_lpf,
            budget_rules: t.budget_rules,
            fairness_rules: t.fairness_rules,
            write_throt: t.write_throt,
            write_charge: t.write_charge,
            raising: RaisingParams::from(t),
            raised_idle_factor: t.raised_idle_factor,
            raised_timeout: t.raised_timeout,
            raised_ncq_idling: t.raised_ncq_idling,
            ncq_seq_idling: t.ncq_seq_idling,
            hw_tag_detection: t.hw_tag_detection,
            fifo_expire_sync: ms(t.fifo_expire_sync_ms),
            fifo_expire_async: ms(t.fifo_expire_async_ms),
            quantum: t.quantum,
            max_budget_async_rq: t.max_budget_async_rq,
            timeout_at_completion: t.timeout_at_completion,
            think_time_rule: t.think_time_rule,
            min_tt: ms(t.min_tt_ms),
            seek_cap: t.seek_cap,
            charge_cost: t.charge == "cost",
        }
    }
}
