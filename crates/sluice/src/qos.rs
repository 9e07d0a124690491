//! The service terms of a flow or a group, declared once: every place that
//! describes one ([`crate::FlowConfig`], [`crate::policy::GroupConfig`], a
//! workload's flow) embeds a [`Qos`].

use crate::time::Duration;

/// What a flow or group is owed and allowed: its share, its reservation
/// and its rate caps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Qos {
    /// Proportional-share weight, 1..=1000 (default 100).
    pub weight: u32,
    /// Reserved rate, IOPS (mClock's r_i): the minimum owed whenever it is
    /// backlogged. `None` = no reservation. Only `mclock` reads it; every
    /// other policy ignores it.
    pub reservation_iops: Option<f64>,
    /// Rate cap, IOPS (mClock's l_i): the most it is served. `None` = no
    /// limit. `mclock` enforces it with its limit tags; under every other
    /// policy [`crate::policy::Hierarchy`] holds requests back in a token
    /// bucket.
    pub limit_iops: Option<f64>,
    /// Rate cap, MB/s (10^6 bytes), enforced by a token bucket in
    /// [`crate::policy::Hierarchy`] under every policy. `None` = no limit.
    pub limit_mb_s: Option<f64>,
    /// How much it may run ahead of its rate after a pause: the token
    /// bucket holds this much time's worth of its limits. `None` =
    /// [`crate::policy::DEFAULT_BURST`].
    pub burst: Option<Duration>,
}

impl Default for Qos {
    fn default() -> Self {
        Qos::weighted(100)
    }
}

impl Qos {
    /// `weight`, nothing reserved, no limit.
    pub fn weighted(weight: u32) -> Self {
        Qos {
            weight,
            reservation_iops: None,
            limit_iops: None,
            limit_mb_s: None,
            burst: None,
        }
    }

    /// Whether there is a rate cap of either kind.
    pub fn is_limited(&self) -> bool {
        self.limit_iops.is_some() || self.limit_mb_s.is_some()
    }
}
