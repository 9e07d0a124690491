//! CFQ's tunables: their 2.6.34 defaults and how they are read by name.

use crate::error::Error;
use crate::policy::params::{ParamReader, ParamSpec, ParamTable, Params};
use crate::time::Duration;

/// CFQ's tunables, with the defaults of Linux 2.6.34 (its table in `POLICIES`).
#[derive(Clone, Debug, PartialEq)]
pub struct CfqParams {
    /// `cfq_quantum` = 8: requests one queue may have in flight (half of it
    /// normally, all of it early in a slice).
    pub quantum: u32,
    /// `cfq_fifo_expire[1]` = HZ/8 = 125 ms.
    pub fifo_expire_sync: Duration,
    /// `cfq_fifo_expire[0]` = HZ/4 = 250 ms.
    pub fifo_expire_async: Duration,
    /// `cfq_back_max` = 16 MiB, in KiB.
    pub back_seek_max_kib: u64,
    /// `cfq_back_penalty` = 2.
    pub back_seek_penalty: u64,
    /// `cfq_slice_sync` = HZ/10 = 100 ms.
    pub slice_sync: Duration,
    /// `cfq_slice_async` = HZ/25 = 40 ms.
    pub slice_async: Duration,
    /// `cfq_slice_async_rq` = 2.
    pub slice_async_rq: u32,
    /// `cfq_slice_idle` = HZ/125 = 8 ms (0 disables idling).
    pub slice_idle: Duration,
    /// `cfq_latency` = 1 (sysfs `low_latency`).
    pub low_latency: bool,
    /// `cfq_target_latency` = 300 ms.
    pub target_latency: Duration,
    /// `blk_queue_nonrot`: the device has no seek penalty (SSD).
    pub nonrot: bool,
}

/// The parameter table of `cfq`: 2.6.34's defaults (`cfq_*` variables;
/// times in ms at HZ = 1000).
pub(crate) const PARAMS: ParamTable = ParamTable::new(&[
    ParamSpec::int(
        "quantum",
        8,
        (1, 1024),
        "cfq_quantum: requests one queue may have in flight",
    ),
    ParamSpec::int(
        "slice_sync_ms",
        100,
        (1, 10_000),
        "cfq_slice_sync: base slice of a sync queue",
    ),
    ParamSpec::int(
        "slice_async_ms",
        40,
        (1, 10_000),
        "cfq_slice_async: base slice of an async queue",
    ),
    ParamSpec::int(
        "slice_async_rq",
        2,
        (1, 1024),
        "cfq_slice_async_rq: async dispatches per slot, scaled by priority",
    ),
    ParamSpec::int(
        "slice_idle_ms",
        8,
        (0, 1_000),
        "cfq_slice_idle: the idle wait; 0 disables idling",
    ),
    ParamSpec::int(
        "fifo_expire_sync_ms",
        125,
        (1, 100_000),
        "cfq_fifo_expire[1]: a sync request's FIFO deadline",
    ),
    ParamSpec::int(
        "fifo_expire_async_ms",
        250,
        (1, 100_000),
        "cfq_fifo_expire[0]: an async request's FIFO deadline",
    ),
    ParamSpec::int(
        "back_seek_max_kib",
        16 * 1024,
        (0, 1 << 40),
        "cfq_back_max: the farthest backward seek taken",
    ),
    ParamSpec::int(
        "back_seek_penalty",
        2,
        (1, 1_000),
        "cfq_back_penalty: a backward seek's weight",
    ),
    ParamSpec::bool(
        "low_latency",
        true,
        "cfq_latency: slices scaled to the target latency",
    ),
    ParamSpec::int("target_latency_ms", 300, (1, 100_000), "cfq_target_latency"),
    ParamSpec::bool(
        "nonrot",
        false,
        "blk_queue_nonrot: the device has no seek penalty (SSD)",
    ),
]);

impl Default for CfqParams {
    /// The table's defaults.
    fn default() -> Self {
        let none = Params::default();
        Self::read(&mut none.reader("cfq")).expect("a table's defaults lie in its ranges")
    }
}

impl CfqParams {
    /// Read the parameters by name; absent ones keep the 2.6.34 defaults.
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let t = &PARAMS;
        let ms = |x: i64| Duration::from_millis(x as u64);
        Ok(CfqParams {
            quantum: p.int(t, "quantum")? as u32,
            slice_sync: ms(p.int(t, "slice_sync_ms")?),
            slice_async: ms(p.int(t, "slice_async_ms")?),
            slice_async_rq: p.int(t, "slice_async_rq")? as u32,
            slice_idle: ms(p.int(t, "slice_idle_ms")?),
            fifo_expire_sync: ms(p.int(t, "fifo_expire_sync_ms")?),
            fifo_expire_async: ms(p.int(t, "fifo_expire_async_ms")?),
            back_seek_max_kib: p.int(t, "back_seek_max_kib")? as u64,
            back_seek_penalty: p.int(t, "back_seek_penalty")? as u64,
            low_latency: p.bool(t, "low_latency")?,
            target_latency: ms(p.int(t, "target_latency_ms")?),
            nonrot: p.bool(t, "nonrot")?,
        })
    }
}
