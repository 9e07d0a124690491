//! The PCIe link between host and drive: one FIFO each way, each message
//! split in TLPs of at most 128 bytes with 28 bytes of header and framing,
//! sent over the lanes at the configured rate (MQSim's `PCIe_Link`).
//! A message waits for the one before it in its direction, so its arrival
//! is known the moment it is sent.

/// Bytes of TLP header, data-link and physical framing per packet.
const PACKET_OVERHEAD: u64 = 20 + 6 + 2;
/// Largest TLP payload.
const MAX_PAYLOAD: u64 = 128;

/// The size of an NVMe submission queue entry as MQSim lays it out.
pub(crate) const SQE_BYTES: u64 = 72;
/// The size of a completion queue entry.
pub(crate) const CQE_BYTES: u64 = 16;
/// A doorbell register write.
pub(crate) const DOORBELL_BYTES: u64 = 2;

/// A direction on the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Toward {
    /// From the drive to the host.
    Host = 0,
    /// From the host to the drive.
    Device = 1,
}

/// What a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Message {
    /// A read request (the drive fetching host memory): header only.
    ReadRequest,
    /// A write or a read completion carrying `bytes` of payload.
    Data(u64),
}

/// The link: when each direction is next free.
#[derive(Clone, Debug)]
pub(crate) struct Link {
    lanes: u64,
    /// Nanoseconds per byte on one lane, as a fraction: bytes per ns.
    gbytes_per_s: f64,
    free: [u64; 2],
}

impl Link {
    /// A link of `lanes` lanes of `gbytes_per_s` each.
    pub(crate) fn new(lanes: u32, gbytes_per_s: f64) -> Self {
        Link {
            lanes: u64::from(lanes.max(1)),
            gbytes_per_s: if gbytes_per_s > 0.0 {
                gbytes_per_s
            } else {
                1.0
            },
            free: [0; 2],
        }
    }

    /// Time on the wire for a message (MQSim's `estimate_transfer_time`,
    /// truncated to whole ns as it is).
    pub(crate) fn transfer_ns(&self, m: Message) -> u64 {
        let bytes = match m {
            Message::ReadRequest => PACKET_OVERHEAD + 4,
            Message::Data(payload) => {
                let full = payload / MAX_PAYLOAD * (MAX_PAYLOAD + PACKET_OVERHEAD);
                let rest = payload % MAX_PAYLOAD;
                full + if rest == 0 { 0 } else { rest + PACKET_OVERHEAD }
            }
        };
        (bytes.div_ceil(self.lanes) as f64 / self.gbytes_per_s) as u64
    }

    /// Send `m` at `now` toward `to`; returns when it arrives.
    pub(crate) fn send(&mut self, now: u64, to: Toward, m: Message) -> u64 {
        let start = now.max(self.free[to as usize]);
        let arrive = start + self.transfer_ns(m);
        self.free[to as usize] = arrive;
        arrive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_times_are_mqsims_for_four_lanes_of_one_gbps() {
        let l = Link::new(4, 1.0);
        assert_eq!(l.transfer_ns(Message::ReadRequest), 8);
        assert_eq!(l.transfer_ns(Message::Data(DOORBELL_BYTES)), 8);
        assert_eq!(l.transfer_ns(Message::Data(SQE_BYTES)), 25);
        assert_eq!(l.transfer_ns(Message::Data(CQE_BYTES)), 11);
        assert_eq!(l.transfer_ns(Message::Data(4096)), 1248);
    }

    #[test]
    fn messages_queue_behind_each_other_per_direction_only() {
        let mut l = Link::new(4, 1.0);
        assert_eq!(l.send(100, Toward::Host, Message::Data(4096)), 1348);
        assert_eq!(l.send(100, Toward::Host, Message::Data(CQE_BYTES)), 1359);
        assert_eq!(l.send(100, Toward::Device, Message::ReadRequest), 108);
        assert_eq!(l.send(2000, Toward::Host, Message::ReadRequest), 2008);
    }
}
