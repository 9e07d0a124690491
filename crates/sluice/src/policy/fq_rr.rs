//! `fq-rr`: the Fair Queuing Round-Robin scheduler of the VIOS paper's §3.5
//! (S. Seelam, P. Teller, "Virtual I/O Scheduler: A Scheduler of Schedulers
//! for Performance Virtualization", VEE 2007): the baseline whose unfairness
//! the paper's Eq. (1) describes.
//!
//! Each backlogged class gets a slice of `Q_i` disk time per round and
//! dispatches one request at a time while the disk time charged in the slice
//! is below `Q_i`; the last request of a slice may overrun it by up to the
//! largest service time, and the overrun is never compensated. Everything
//! else (classes, inner schedulers, forfeiting, idling) is shared with
//! [`Vios`], see [`super::vios`].

use super::params::{ParamReader, ParamTable};
use super::vios::{Vios, ViosConfig, ViosMode, VIOS_PARAMS};
use crate::error::Error;
use crate::time::Duration;

/// The parameter table of `fq-rr`: VIOS's quantum.
pub(crate) const FQ_RR_PARAMS: ParamTable = VIOS_PARAMS;

/// An FQ-RR scheduler with the given default quantum.
pub fn fq_rr(quantum: Duration) -> Vios {
    let mut cfg = ViosConfig::new(ViosMode::FqRr);
    cfg.quantum = quantum;
    Vios::new(cfg)
}

/// Build `fq-rr` from parameters (`quantum_ms`).
pub(crate) fn from_params(p: &mut ParamReader<'_>) -> Result<Vios, Error> {
    Vios::from_params(ViosMode::FqRr, p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{build, BuildContext, ParamValue, Params};
    use crate::scheduler::Scheduler;
    use crate::testkit::Testbed;

    #[test]
    fn builds_by_name_with_its_quantum() {
        let mut p = Params::default();
        p.insert("quantum_ms", ParamValue::Float(5.0));
        let s = build("fq-rr", &p, &BuildContext::default()).unwrap();
        assert_eq!(s.name(), "fq-rr");
        let mut p = Params::default();
        p.insert("resume_at", ParamValue::Int(2));
        assert!(
            build("fq-rr", &p, &BuildContext::default()).is_err(),
            "a VIOS(P) parameter"
        );
    }

    #[test]
    fn every_slice_starts_with_the_full_quantum_whatever_the_overrun() {
        // Default class only: 15 ms requests against a 20 ms quantum overrun
        // by 10 ms every slice; the next slice is still 20 ms.
        let ms = Duration::from_millis;
        let mut tb = Testbed::new(fq_rr(ms(20)), 1);
        for i in 0..8 {
            tb.add(0, i, 8);
        }
        for _ in 0..8 {
            tb.serve(ms(15));
            let st = &tb.policy().stats()[0];
            assert_eq!(st.compensation, 0);
            assert_eq!(st.allotment, ms(20).as_nanos() as i64);
        }
        assert_eq!(tb.poll(), None);
        let st = &tb.policy().stats()[0];
        assert_eq!(st.turns, 4);
        assert_eq!(st.last_overrun, ms(10).as_nanos() as i64);
    }
}
