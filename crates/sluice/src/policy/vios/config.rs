//! VIOS's settings: the outer scheduler it runs, the class quantum and
//! VIOS(P)'s pipeline settings, with their parameter tables.

use crate::error::Error;
use crate::policy::params::{declare_params, ParamReader, ParamTable};
use crate::time::{Duration, NS_PER_S};
use crate::types::SECTOR_BYTES;

declare_params! {
    /// VIOS's parameters by name (`resume_at`, `bw_mb_s`: `vios-p` only).
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct ViosTunables {
        /// a class's quantum of disk time
        ///
        /// Of classes without their own (§4, Comment after Theorem 1).
        quantum_ms: f64 = float(20.0, 0.001, 1e6),
        /// resume dispatching at this many requests in the device
        ///
        /// VIOS(P)'s resume point (§6.2).
        resume_at: usize = int(2, 0, 1 << 20),
        /// initial bandwidth estimate, MB/s
        ///
        /// VIOS(P)'s bandwidth before the first measurement.
        bw_mb_s: f64 = float(50.0, 0.001, 1e7),
    }
}

/// The parameter table of `vios` (and `fq-rr`): the quantum alone.
pub(crate) const VIOS_PARAMS: ParamTable = ParamTable::new(VIOS_P_PARAMS.specs.split_at(1).0);
/// The parameter table of `vios-p`.
pub(crate) const VIOS_P_PARAMS: ParamTable = ViosTunables::TABLE;

/// Which of the paper's outer schedulers runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViosMode {
    /// CFQ-CRR (§3.7): one request at a time, compensated quanta.
    Crr,
    /// VIOS(P) (§6.2): sector budgets per turn, up to K requests in the device.
    Parallel,
    /// FQ-RR (§3.5): one request at a time, uncompensated quanta.
    FqRr,
}

/// Settings of the outer scheduler.
#[derive(Clone, Debug, PartialEq)]
pub struct ViosConfig {
    /// Which outer scheduler runs.
    pub mode: ViosMode,
    /// Quantum of classes that do not set their own (and of the implicit
    /// default class).
    pub quantum: Duration,
    /// VIOS(P): resume dispatching when at most this many requests remain in
    /// the device.
    pub resume_at: usize,
    /// VIOS(P): bandwidth estimate before the first measurement, in sectors
    /// per nanosecond.
    pub initial_bw: f64,
}

impl ViosConfig {
    /// Defaults of the given mode, from the parameter tables: the quantum,
    /// and VIOS(P)'s resume point and initial bandwidth.
    pub fn new(mode: ViosMode) -> Self {
        Self::of(mode, ViosTunables::default())
    }

    /// The configuration of `mode` with parameters `t`.
    fn of(mode: ViosMode, t: ViosTunables) -> Self {
        ViosConfig {
            mode,
            quantum: Duration::from_millis_f64(t.quantum_ms),
            resume_at: t.resume_at,
            initial_bw: mb_s_to_sectors_per_ns(t.bw_mb_s),
        }
    }

    /// Read the parameters by name (`quantum_ms`; `resume_at` and `bw_mb_s`
    /// for VIOS(P)).
    pub(crate) fn read(mode: ViosMode, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let t = match mode {
            ViosMode::Parallel => &VIOS_P_PARAMS,
            _ => &VIOS_PARAMS,
        };
        Ok(Self::of(mode, ViosTunables::default().read_over(p, t)?))
    }
}

/// MB/s (10^6 bytes) to 512-byte sectors per nanosecond.
pub fn mb_s_to_sectors_per_ns(mb_s: f64) -> f64 {
    mb_s * 1e6 / SECTOR_BYTES as f64 / NS_PER_S as f64
}
