//! VIOS's settings: the outer scheduler it runs, the class quantum and
//! VIOS(P)'s pipeline settings, with their parameter tables.

use crate::error::Error;
use crate::policy::params::{ParamReader, ParamSpec, ParamTable};
use crate::time::{Duration, NS_PER_S};
use crate::types::SECTOR_BYTES;

/// The quantum of classes without their own (§4, Comment after Theorem 1).
pub(crate) const QUANTUM_MS: ParamSpec = ParamSpec::float(
    "quantum_ms",
    20.0,
    (0.001, 1e6),
    "a class's quantum of disk time",
);
/// VIOS(P)'s resume point (§6.2).
const RESUME_AT: ParamSpec = ParamSpec::int(
    "resume_at",
    2,
    (0, 1 << 20),
    "resume dispatching at this many requests in the device",
);
/// VIOS(P)'s bandwidth before the first measurement.
const BW_MB_S: ParamSpec = ParamSpec::float(
    "bw_mb_s",
    50.0,
    (0.001, 1e7),
    "initial bandwidth estimate, MB/s",
);

/// The parameter table of `vios`.
pub(crate) const VIOS_PARAMS: ParamTable = ParamTable::new(&[QUANTUM_MS]);
/// The parameter table of `vios-p`.
pub(crate) const VIOS_P_PARAMS: ParamTable = ParamTable::new(&[QUANTUM_MS, RESUME_AT, BW_MB_S]);

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
        ViosConfig {
            mode,
            quantum: Duration::from_millis_f64(QUANTUM_MS.default_float()),
            resume_at: RESUME_AT.default_int() as usize,
            initial_bw: mb_s_to_sectors_per_ns(BW_MB_S.default_float()),
        }
    }

    /// Read the parameters by name (`quantum_ms`; `resume_at` and `bw_mb_s`
    /// for VIOS(P)).
    pub(crate) fn read(mode: ViosMode, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let mut c = ViosConfig::new(mode);
        let t = match mode {
            ViosMode::Parallel => &VIOS_P_PARAMS,
            _ => &VIOS_PARAMS,
        };
        let q = p.float(t, "quantum_ms")?;
        c.quantum = Duration::from_millis_f64(q);
        if mode == ViosMode::Parallel {
            c.resume_at = p.int(t, "resume_at")? as usize;
            c.initial_bw = mb_s_to_sectors_per_ns(p.float(t, "bw_mb_s")?);
        }
        Ok(c)
    }
}

/// MB/s (10^6 bytes) to 512-byte sectors per nanosecond.
pub fn mb_s_to_sectors_per_ns(mb_s: f64) -> f64 {
    mb_s * 1e6 / SECTOR_BYTES as f64 / NS_PER_S as f64
}
