//! fio's I/O logs (`write_iolog`, `read_iolog`): a `fio version 2 iolog`
//! or `fio version 3 iolog` header, then one action a line:
//! `filename action [offset length]` (version 2) or
//! `timestamp filename action [offset length]` (version 3). `read` and
//! `write` are requests (offset and length in bytes); file actions (`add`,
//! `open`, `close`), `sync`, `datasync`, `trim` and `wait` are not.
//! Version 3 timestamps are read as fio 3.33 writes them: microseconds
//! since the job started (a 10 ms `thinktime` shows as 10,000 between two
//! reads). Version 2 has no times: its requests all arrive at 0. Files are
//! laid end to end in the order the log first names them, each as large as
//! the furthest byte the log touches in it.

use std::collections::HashMap;

use super::{byte_sector, Line, Raw};
use crate::error::Result;

/// Every read and write of `text`.
pub(crate) fn parse(file: &str, text: &str) -> Result<Vec<Raw>> {
    let mut lines = sluice_input::lines(text).enumerate();
    let header = lines.next().map(|(_, l)| l.trim()).unwrap_or("");
    let timed = match header {
        "fio version 2 iolog" => false,
        "fio version 3 iolog" => true,
        other => {
            return Err(Line { file, number: 1 }.error(format!(
                "expected the header `fio version 2 iolog` or `fio version 3 iolog`, got '{other}'"
            )))
        }
    };
    let mut out = Vec::new();
    let mut files: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut which = Vec::new();
    for (i, l) in lines {
        let f: Vec<&str> = l.split_ascii_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        let line = Line {
            file,
            number: i + 1,
        };
        let (at_ns, rest) = if timed {
            let us: u64 = line.number("timestamp", f[0])?;
            (us.saturating_mul(1000), &f[1..])
        } else {
            (0, &f[..])
        };
        if rest.len() < 2 {
            return Err(line.error("expected a file name and an action"));
        }
        let write = match rest[1] {
            "read" => false,
            "write" => true,
            "add" | "open" | "close" | "sync" | "datasync" | "trim" | "wait" => continue,
            other => return Err(line.error(format!("unknown action '{other}'"))),
        };
        if rest.len() < 4 {
            return Err(line.error(format!("a {} needs an offset and a length", rest[1])));
        }
        let offset: u64 = line.number("offset", rest[2])?;
        let length: u64 = line.number("length", rest[3])?;
        let n = index.len();
        let k = *index.entry(rest[0].to_string()).or_insert(n);
        if k == files.len() {
            files.push(rest[0].to_string());
        }
        out.push(Raw {
            at_ns,
            sector: byte_sector(&line, "offset", offset)?,
            sectors: line.size_sectors("length", length)?,
            write,
            line: (i + 1) as u32,
            source: 0,
        });
        which.push(k);
    }
    // Files end to end.
    let mut extent = vec![0u64; files.len()];
    for (r, &k) in out.iter().zip(&which) {
        extent[k] = extent[k].max(r.sector.saturating_add(u64::from(r.sectors)));
    }
    let mut base = vec![0u64; files.len()];
    for k in 1..files.len() {
        base[k] = base[k - 1].saturating_add(extent[k - 1]);
    }
    super::add_bases(file, "files", &mut out, which.iter().map(|&k| base[k]))?;
    Ok(out)
}
