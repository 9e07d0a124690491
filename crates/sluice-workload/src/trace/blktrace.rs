//! blktrace's binary capture, as `blkparse` reads it: the trace given as
//! `NAME` is the files `NAME.blktrace.N`, one per CPU, each a sequence of
//! `struct blk_io_trace` records (`include/uapi/linux/blktrace_api.h`):
//!
//! ```text
//! u32 magic   u32 sequence   u64 time (ns)   u64 sector   u32 bytes
//! u32 action  u32 pid        u32 device      u32 cpu      u16 error   u16 pdu_len
//! ```
//!
//! 48 bytes, then `pdu_len` bytes of payload, in the capturing machine's
//! byte order: the magic (`0x65617400` with the version, 7, in its low
//! byte) tells which, as blkparse checks it. The action's low 16 bits are
//! what happened (`__BLK_TA_QUEUE` is 1), its high 16 bits the categories
//! (read, write, flush, sync, discard, notify, ...).
//!
//! A request is its queue event, counted as [`super::blkparse`] counts the
//! `Q` lines of blkparse's text of the same capture: a write, or a read
//! (data and no write category); discards, passthrough commands and
//! events without data (flushes) are skipped. Notify records are not
//! events: a process notify carries the name of a pid (used to name
//! `flows = "process"` flows `name-pid`). With `flows = "volume"`, one
//! flow per device (`maj,min`).
//!
//! Each CPU's file is read as it comes, a piece at a time; the requests are
//! then put in time order (the order blkparse prints them). A request's
//! `line` is its record's number in its file. A record cut short at the
//! end of a file (blktrace killed mid-write) is left out, as blkparse
//! leaves it; a bad magic is refused with the file and byte offset.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Line, Raw, ReadOptions, Sources, Split, MAX_REQUEST_SECTORS};
use crate::error::{Error, Result};

/// The most per-CPU files a capture may have.
const MAX_CPUS: usize = 4096;
/// A record's fixed part, in bytes.
const HEADER: usize = 48;
const MAGIC: u32 = 0x6561_7400;
const VERSION: u32 = 0x07;
/// `__BLK_TA_QUEUE`.
const QUEUE: u32 = 1;
/// Categories (`BLK_TC_*`, in the action's high 16 bits).
const TC_WRITE: u32 = 1 << 1;
const TC_PC: u32 = 1 << 9;
const TC_NOTIFY: u32 = 1 << 10;
const TC_DISCARD: u32 = 1 << 13;
/// `__BLK_TN_PROCESS`: a notify naming a pid.
const TN_PROCESS: u32 = 0;
/// `__BLK_TA_CGROUP`: set on an action whose payload starts with the
/// 8-byte id of the issuing cgroup (blktrace's `blk_cgroup` option).
const TA_CGROUP: u32 = 1 << 8;

/// Every queued read or write of the capture `path` (its `NAME`).
pub(crate) fn load(path: &Path, options: ReadOptions) -> Result<(Vec<Raw>, Sources)> {
    let name = path.display().to_string();
    let files = cpu_files(path)?;
    let mut sources = Sources::new(options.split);
    let mut out = Vec::new();
    // Requests' pids, by request (for `flows = "process"`), and pids' names.
    let mut pids: Vec<u32> = Vec::new();
    let mut comms: HashMap<u32, String> = HashMap::new();
    for file in &files {
        let file_name = file.display().to_string();
        let mut reader = Records::new(&file_name);
        let mut failed: Option<Error> = None;
        sluice_input::read_bytes_in_pieces(file, sluice_input::Kind::Trace, |piece| {
            if failed.is_none() {
                if let Err(e) = reader.feed(piece, &mut |r| {
                    event(&file_name, r, &mut sources, &mut out, &mut pids, &mut comms)
                }) {
                    failed = Some(e);
                }
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
    }
    if options.split == Split::Process {
        name_processes(&name, &mut out, &pids, &comms, &mut sources)?;
    }
    Ok((out, sources))
}

/// The capture's per-CPU files, `NAME.blktrace.N`, by N.
fn cpu_files(path: &Path) -> Result<Vec<PathBuf>> {
    let name = path.display().to_string();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!("{stem}.blktrace.");
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        Error::new(
            &name,
            format!("cannot read the folder {}: {e}", dir.display()),
        )
    })?;
    let mut found: Vec<(u32, PathBuf)> = Vec::new();
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(n) = file.strip_prefix(&prefix) else {
            continue;
        };
        if let Ok(cpu) = n.parse::<u32>() {
            if found.len() == MAX_CPUS {
                return Err(Error::new(
                    &name,
                    format!("more than {MAX_CPUS} per-CPU files ({prefix}N)"),
                ));
            }
            found.push((cpu, e.path()));
        }
    }
    if found.is_empty() {
        return Err(Error::new(
            &name,
            format!(
                "no blktrace capture: no {} file (give the name blktrace's -o was given)",
                dir.join(format!("{prefix}N")).display()
            ),
        ));
    }
    found.sort();
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

/// One record's fields, in the machine's order.
struct Record<'a> {
    number: usize,
    time: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    pid: u32,
    device: u32,
    pdu: &'a [u8],
}

/// Records cut out of a file's pieces.
struct Records<'a> {
    file: &'a str,
    /// Bytes not yet a whole record.
    carry: Vec<u8>,
    /// Bytes of the file before `carry`.
    offset: u64,
    /// Records so far.
    count: usize,
    /// The byte order, once the first magic said it.
    swapped: Option<bool>,
}

impl<'a> Records<'a> {
    fn new(file: &'a str) -> Self {
        Records {
            file,
            carry: Vec::new(),
            offset: 0,
            count: 0,
            swapped: None,
        }
    }

    /// Take `piece`, handing each whole record to `each`.
    fn feed(&mut self, piece: &[u8], each: &mut dyn FnMut(&Record) -> Result<()>) -> Result<()> {
        self.carry.extend_from_slice(piece);
        let mut at = 0;
        while self.carry.len() - at >= HEADER {
            let h = &self.carry[at..at + HEADER];
            let raw_magic = u32::from_ne_bytes(h[0..4].try_into().expect("4 bytes"));
            let swapped = match self.swapped {
                Some(s) => s,
                None => {
                    let s = if raw_magic & 0xffff_ff00 == MAGIC {
                        false
                    } else if raw_magic.swap_bytes() & 0xffff_ff00 == MAGIC {
                        true
                    } else {
                        return Err(self.bad(at, "not a blktrace record (bad magic)"));
                    };
                    self.swapped = Some(s);
                    s
                }
            };
            let u32_at = |i: usize| {
                let v = u32::from_ne_bytes(h[i..i + 4].try_into().expect("4 bytes"));
                if swapped {
                    v.swap_bytes()
                } else {
                    v
                }
            };
            let u64_at = |i: usize| {
                let v = u64::from_ne_bytes(h[i..i + 8].try_into().expect("8 bytes"));
                if swapped {
                    v.swap_bytes()
                } else {
                    v
                }
            };
            let magic = u32_at(0);
            if magic & 0xffff_ff00 != MAGIC || magic & 0xff != VERSION {
                return Err(self.bad(
                    at,
                    &format!("not a blktrace record of version 7 (magic {magic:#010x})"),
                ));
            }
            let pdu_len = {
                let v = u16::from_ne_bytes(h[46..48].try_into().expect("2 bytes"));
                usize::from(if swapped { v.swap_bytes() } else { v })
            };
            if self.carry.len() - at < HEADER + pdu_len {
                break;
            }
            self.count += 1;
            let r = Record {
                number: self.count,
                time: u64_at(8),
                sector: u64_at(16),
                bytes: u32_at(24),
                action: u32_at(28),
                pid: u32_at(32),
                device: u32_at(36),
                pdu: &self.carry[at + HEADER..at + HEADER + pdu_len],
            };
            each(&r)?;
            at += HEADER + pdu_len;
        }
        self.carry.drain(..at);
        self.offset += at as u64;
        Ok(())
    }

    fn bad(&self, at: usize, what: &str) -> Error {
        Error::new(
            self.file,
            format!("{what} at byte offset {}", self.offset + at as u64),
        )
    }
}

/// Take record `r`: a queued read or write becomes a request; a process
/// notify names its pid.
fn event(
    file: &str,
    r: &Record,
    sources: &mut Sources,
    out: &mut Vec<Raw>,
    pids: &mut Vec<u32>,
    comms: &mut HashMap<u32, String>,
) -> Result<()> {
    let what = r.action & 0xffff & !TA_CGROUP;
    let categories = r.action >> 16;
    if categories & TC_NOTIFY != 0 {
        if what == TN_PROCESS {
            let pdu = if r.action & TA_CGROUP != 0 {
                r.pdu.get(8..).unwrap_or_default()
            } else {
                r.pdu
            };
            let comm = pdu.split(|&b| b == 0).next().unwrap_or_default();
            let comm = String::from_utf8_lossy(comm);
            comms.insert(r.pid, comm.chars().take(64).collect());
        }
        return Ok(());
    }
    // Whole sectors, as blkparse prints them (`bytes >> 9`): a request of
    // less than one is no data to it.
    let sectors = u64::from(r.bytes) / 512;
    if what != QUEUE || categories & (TC_DISCARD | TC_PC) != 0 || sectors == 0 {
        return Ok(());
    }
    let line = Line {
        file,
        number: r.number,
    };
    if sectors > MAX_REQUEST_SECTORS {
        return Err(line.error(format!(
            "record {}: {} bytes; a request must be 1 byte to 64 MiB",
            r.number, r.bytes
        )));
    }
    if r.sector > i64::MAX as u64 / 512 {
        return Err(line.error(format!(
            "record {}: sector {} is beyond any device",
            r.number, r.sector
        )));
    }
    let device = format!("{},{}", r.device >> 20, r.device & 0xf_ffff);
    out.push(Raw {
        at_ns: r.time,
        sector: r.sector,
        sectors: sectors as u32,
        write: categories & TC_WRITE != 0,
        line: r.number.min(u32::MAX as usize) as u32,
        source: sources.volume(&line, &device)?,
    });
    pids.push(r.pid);
    Ok(())
}

/// With `flows = "process"`: each request's source, its pid, named
/// `name-pid` where a notify named it; numbered in time order.
fn name_processes(
    file: &str,
    out: &mut [Raw],
    pids: &[u32],
    comms: &HashMap<u32, String>,
    sources: &mut Sources,
) -> Result<()> {
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by_key(|&i| out[i].at_ns);
    for i in order {
        let line = Line {
            file,
            number: out[i].line as usize,
        };
        let pid = pids[i].to_string();
        let comm = comms.get(&pids[i]).map_or("", String::as_str);
        out[i].source = sources.process(&line, &pid, comm)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record as blktrace writes it, in little (or big) endian.
    fn record(
        big: bool,
        time: u64,
        sector: u64,
        bytes: u32,
        action: u32,
        pid: u32,
        pdu: &[u8],
    ) -> Vec<u8> {
        let mut v = Vec::new();
        let put32 = |v: &mut Vec<u8>, x: u32| {
            v.extend_from_slice(&if big {
                x.to_be_bytes()
            } else {
                x.to_le_bytes()
            })
        };
        put32(&mut v, MAGIC | VERSION);
        put32(&mut v, 1);
        v.extend_from_slice(&if big {
            time.to_be_bytes()
        } else {
            time.to_le_bytes()
        });
        v.extend_from_slice(&if big {
            sector.to_be_bytes()
        } else {
            sector.to_le_bytes()
        });
        put32(&mut v, bytes);
        put32(&mut v, action);
        put32(&mut v, pid);
        put32(&mut v, (7 << 20) | 1);
        put32(&mut v, 0);
        v.extend_from_slice(&[0, 0]);
        let n = pdu.len() as u16;
        v.extend_from_slice(&if big {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        });
        v.extend_from_slice(pdu);
        v
    }

    const READ_Q: u32 = QUEUE | ((1 << 0 | 1 << 4) << 16);
    const WRITE_Q: u32 = QUEUE | ((TC_WRITE | 1 << 4) << 16);

    fn capture(dir: &Path, big: bool) -> PathBuf {
        let cpu0 = [
            record(big, 10, 100, 4096, READ_Q, 42, &[]),
            record(big, 11, 100, 4096, 2 | ((1 << 4) << 16), 42, &[]), // a D event
            record(big, 5, 0, 0, TN_PROCESS | (TC_NOTIFY << 16), 42, b"fio\0"),
            record(
                big,
                30,
                7,
                512,
                QUEUE | ((TC_DISCARD | TC_WRITE) << 16),
                42,
                &[],
            ),
            record(big, 40, 9, 0, QUEUE | ((1 << 2) << 16), 42, &[]), // a flush, no data
            record(big, 41, 9, 100, WRITE_Q, 42, &[]), // less than a sector: no data to blkparse
            // A queue event with its cgroup's id, and a process note with one.
            record(big, 45, 77, 4096, WRITE_Q | TA_CGROUP, 44, &[0; 8]),
            record(
                big,
                44,
                0,
                0,
                TN_PROCESS | TA_CGROUP | (TC_NOTIFY << 16),
                44,
                b"\x01\x02\x03\x04\x05\x06\x07\x08dd\0",
            ),
        ]
        .concat();
        let cpu1 = [
            record(big, 20, 300, 8192, WRITE_Q, 43, b"ignored pdu"),
            record(big, 50, 900, 1024, READ_Q, 42, &[]),
        ]
        .concat();
        let name = dir.join("cap");
        std::fs::write(dir.join("cap.blktrace.0"), cpu0).unwrap();
        // The last record cut short, as a killed blktrace may leave it.
        let cut = &record(big, 60, 1, 4096, READ_Q, 42, &[])[..30];
        std::fs::write(dir.join("cap.blktrace.1"), [cpu1, cut.to_vec()].concat()).unwrap();
        name
    }

    #[test]
    fn queue_events_of_every_cpu_in_either_byte_order() {
        for big in [false, true] {
            let d = tempfile::tempdir().unwrap();
            let name = capture(d.path(), big);
            let opts = ReadOptions {
                split: Split::Process,
                seed: 1,
            };
            let (raw, sources) = load(&name, opts).unwrap();
            let mut got: Vec<(u64, u64, u32, bool)> = raw
                .iter()
                .map(|r| (r.at_ns, r.sector, r.sectors, r.write))
                .collect();
            got.sort();
            assert_eq!(
                got,
                [
                    (10, 100, 8, false),
                    (20, 300, 16, true),
                    (45, 77, 8, true),
                    (50, 900, 2, false)
                ]
            );
            let names = sources.into_names();
            assert_eq!(names, ["fio-42", "43", "dd-44"]);
        }
    }

    #[test]
    fn a_bad_magic_or_no_capture_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let e = load(&d.path().join("none"), ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no blktrace capture"), "{e}");
        let mut bytes = record(false, 1, 1, 512, READ_Q, 1, &[]);
        bytes.extend_from_slice(&[0xab; 48]);
        std::fs::write(d.path().join("x.blktrace.0"), bytes).unwrap();
        let e = load(&d.path().join("x"), ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("at byte offset 48"), "{e}");
    }
}
