//! CFQ's tunables: declared once with their 2.6.34 defaults, and the
//! configuration the policy runs with, built from them.

use crate::error::Error;
use crate::policy::params::{declare_params, ParamReader};
use crate::time::Duration;

declare_params! {
    /// CFQ's tunables by their parameter names, with the defaults of Linux
    /// 2.6.34 (`cfq_*` variables; times in ms at HZ = 1000, numbers as
    /// BFQ's same keys are, so a fraction of a jiffy may be tried).
    #[derive(Clone, Debug, PartialEq)]
    pub struct CfqTunables {
        /// cfq_quantum: requests one queue may have in flight
        ///
        /// Half of it normally, all of it early in a slice.
        quantum: u32 = int(8, 1, 1024),
        /// cfq_slice_sync: base slice of a sync queue
        ///
        /// HZ/10.
        slice_sync_ms: f64 = float(100.0, 1.0, 10_000.0),
        /// cfq_slice_async: base slice of an async queue
        ///
        /// HZ/25.
        slice_async_ms: f64 = float(40.0, 1.0, 10_000.0),
        /// cfq_slice_async_rq: async dispatches per slot, scaled by priority
        slice_async_rq: u32 = int(2, 1, 1024),
        /// cfq_slice_idle: the idle wait; 0 disables idling
        ///
        /// HZ/125.
        slice_idle_ms: f64 = float(8.0, 0.0, 1_000.0),
        /// cfq_fifo_expire[1]: a sync request's FIFO deadline
        ///
        /// HZ/8.
        fifo_expire_sync_ms: f64 = float(125.0, 1.0, 100_000.0),
        /// cfq_fifo_expire[0]: an async request's FIFO deadline
        ///
        /// HZ/4.
        fifo_expire_async_ms: f64 = float(250.0, 1.0, 100_000.0),
        /// cfq_back_max: the farthest backward seek taken
        ///
        /// 16 MiB, in KiB.
        back_seek_max_kib: u64 = int(16 * 1024, 0, 1 << 40),
        /// cfq_back_penalty: a backward seek's weight
        back_seek_penalty: u64 = int(2, 1, 1_000),
        /// cfq_latency: slices scaled to the target latency
        ///
        /// sysfs `low_latency`.
        low_latency: bool = bool(true),
        /// cfq_target_latency
        target_latency_ms: f64 = float(300.0, 1.0, 100_000.0),
        /// blk_queue_nonrot: the device has no seek penalty (SSD)
        nonrot: bool = bool(false),
    }
}

/// CFQ's configuration: its [`CfqTunables`] with times as durations.
#[derive(Clone, Debug, PartialEq)]
pub struct CfqParams {
    /// `quantum`.
    pub quantum: u32,
    /// `fifo_expire_sync_ms`.
    pub fifo_expire_sync: Duration,
    /// `fifo_expire_async_ms`.
    pub fifo_expire_async: Duration,
    /// `back_seek_max_kib`.
    pub back_seek_max_kib: u64,
    /// `back_seek_penalty`.
    pub back_seek_penalty: u64,
    /// `slice_sync_ms`.
    pub slice_sync: Duration,
    /// `slice_async_ms`.
    pub slice_async: Duration,
    /// `slice_async_rq`.
    pub slice_async_rq: u32,
    /// `slice_idle_ms` (zero disables idling).
    pub slice_idle: Duration,
    /// `low_latency`.
    pub low_latency: bool,
    /// `target_latency_ms`.
    pub target_latency: Duration,
    /// `nonrot`: the device has no seek penalty (SSD).
    pub nonrot: bool,
}

/// The parameter table of `cfq`.
pub(crate) const PARAMS: crate::policy::ParamTable = CfqTunables::TABLE;

impl Default for CfqParams {
    /// The declared defaults.
    fn default() -> Self {
        Self::from(CfqTunables::default())
    }
}

impl From<CfqTunables> for CfqParams {
    fn from(t: CfqTunables) -> Self {
        let ms = Duration::from_millis_f64;
        CfqParams {
            quantum: t.quantum,
            slice_sync: ms(t.slice_sync_ms),
            slice_async: ms(t.slice_async_ms),
            slice_async_rq: t.slice_async_rq,
            slice_idle: ms(t.slice_idle_ms),
            fifo_expire_sync: ms(t.fifo_expire_sync_ms),
            fifo_expire_async: ms(t.fifo_expire_async_ms),
            back_seek_max_kib: t.back_seek_max_kib,
            back_seek_penalty: t.back_seek_penalty,
            low_latency: t.low_latency,
            target_latency: ms(t.target_latency_ms),
            nonrot: t.nonrot,
        }
    }
}

impl CfqParams {
    /// Read the parameters by name; absent ones keep the 2.6.34 defaults.
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        CfqTunables::read(p).map(Self::from)
    }
}
