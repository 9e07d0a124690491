//! CFQ's tunables: their 2.6.34 defaults and how they are read by name.

use crate::error::Error;
use crate::policy::params::ParamReader;
use crate::time::Duration;

/// CFQ's tunables, with the defaults of Linux 2.6.34.
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

impl Default for CfqParams {
    fn default() -> Self {
        CfqParams {
            quantum: 8,
            fifo_expire_sync: Duration::from_millis(125),
            fifo_expire_async: Duration::from_millis(250),
            back_seek_max_kib: 16 * 1024,
            back_seek_penalty: 2,
            slice_sync: Duration::from_millis(100),
            slice_async: Duration::from_millis(40),
            slice_async_rq: 2,
            slice_idle: Duration::from_millis(8),
            low_latency: true,
            target_latency: Duration::from_millis(300),
            nonrot: false,
        }
    }
}

/// The parameter list for `POLICIES`.
pub(crate) const PARAMS: &str = "quantum = 8, slice_sync_ms = 100, slice_async_ms = 40, \
slice_async_rq = 2, slice_idle_ms = 8, fifo_expire_sync_ms = 125, fifo_expire_async_ms = 250, \
back_seek_max_kib = 16384, back_seek_penalty = 2, low_latency = true, target_latency_ms = 300, \
nonrot = false";

impl CfqParams {
    /// Read the parameters by name; absent ones keep the 2.6.34 defaults.
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let d = CfqParams::default();
        let ms = |x: i64| Duration::from_millis(x as u64);
        Ok(CfqParams {
            quantum: p.int("quantum", d.quantum.into(), 1, 1024)? as u32,
            slice_sync: ms(p.int("slice_sync_ms", 100, 1, 10_000)?),
            slice_async: ms(p.int("slice_async_ms", 40, 1, 10_000)?),
            slice_async_rq: p.int("slice_async_rq", 2, 1, 1024)? as u32,
            slice_idle: ms(p.int("slice_idle_ms", 8, 0, 1_000)?),
            fifo_expire_sync: ms(p.int("fifo_expire_sync_ms", 125, 1, 100_000)?),
            fifo_expire_async: ms(p.int("fifo_expire_async_ms", 250, 1, 100_000)?),
            back_seek_max_kib: p.int("back_seek_max_kib", 16 * 1024, 0, 1 << 40)? as u64,
            back_seek_penalty: p.int("back_seek_penalty", 2, 1, 1_000)? as u64,
            low_latency: p.bool("low_latency", d.low_latency)?,
            target_latency: ms(p.int("target_latency_ms", 300, 1, 100_000)?),
            nonrot: p.bool("nonrot", d.nonrot)?,
        })
    }
}
