//! DiskSim 4.0's validation traces: `R|W Hit block count measured_us
//! interarrival_us`, one request a line, as issued to a real drive with the
//! response time it gave. `sluice validate` replays them closed loop; a
//! `format = "disksim"` trace flow replays their requests.

use std::path::Path;

use crate::error::Error;

/// One traced request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRecord {
    /// A write (`W`; else `R`, a read).
    pub write: bool,
    /// First block (512-byte sector) of the request.
    pub lbn: u64,
    /// Length in blocks (512-byte sectors).
    pub sectors: u32,
    /// Response time the real drive gave.
    pub measured_us: f64,
    /// Time since the previous request's arrival.
    pub interarrival_us: f64,
}

/// Read a validation trace: `R|W Hit block count measured_us interarrival_us`.
///
/// Fields are split on ASCII whitespace; fields after the sixth are
/// ignored; numbers are read as `str::parse::<f64>` reads them. Lines of
/// the usual shape (every line of DiskSim's traces) take one pass over
/// their bytes ([`fast_line`]); any other line, blank or wrong or
/// unusual (exponents, signs, very long digit strings), is read by
/// [`parse_line`], which gives the same record or names what is wrong.
pub fn parse_trace(file: &str, text: &str) -> Result<Vec<TraceRecord>, Error> {
    // A trace line is some 40 bytes.
    let mut out = Vec::with_capacity(text.len() / 40 + 1);
    parse_trace_in_chunks(file, text, usize::MAX, |chunk| out.extend_from_slice(chunk))?;
    Ok(out)
}

/// [`parse_trace`], handing the records to `each` in chunks of at most
/// `chunk` as they are read, so that a consumer can start on the first
/// ones while the rest are read. On an error, `each` may have seen some
/// of the records before the bad line, and none after it.
pub fn parse_trace_in_chunks(
    file: &str,
    text: &str,
    chunk: usize,
    each: impl FnMut(&[TraceRecord]),
) -> Result<(), Error> {
    let mut parser = ChunkParser::new(file, chunk, text.len(), each);
    parser.feed(text);
    parser.finish()
}

/// Trace text in, records out in chunks: the text may come in pieces that
/// each end at a line end (see [`sluice_input::read_text_in_pieces`]).
struct ChunkParser<'f, F> {
    file: &'f str,
    chunk: usize,
    buf: Vec<TraceRecord>,
    each: F,
    /// Lines read so far (blank ones too: errors name a line).
    lines: usize,
    /// Some records were handed over.
    any: bool,
    /// The first bad line: nothing after it is read.
    failed: Option<Error>,
}

impl<'f, F: FnMut(&[TraceRecord])> ChunkParser<'f, F> {
    /// `bytes`: about how much text will come (a trace line is some 40
    /// bytes), to size the chunk buffer.
    fn new(file: &'f str, chunk: usize, bytes: usize, each: F) -> Self {
        let chunk = chunk.max(1);
        ChunkParser {
            file,
            chunk,
            buf: Vec::with_capacity(chunk.min(bytes / 40 + 1)),
            each,
            lines: 0,
            any: false,
            failed: None,
        }
    }

    /// Read the lines of `text`, which ends at a line end (or the file's).
    fn feed(&mut self, text: &str) {
        if self.failed.is_some() {
            return;
        }
        // Lines end at `\n`, `\r\n` or a lone `\r`, as every reader's do.
        for l in sluice_input::lines(text) {
            self.lines += 1;
            let r = match fast_line(l.as_bytes()) {
                Some(r) => r,
                None => match parse_line(l) {
                    Ok(Some(r)) => r,
                    Ok(None) => continue,
                    Err(message) => {
                        self.failed = Some(Error::new(self.file, message).at_line(self.lines));
                        return;
                    }
                },
            };
            self.buf.push(r);
            if self.buf.len() == self.chunk {
                (self.each)(&self.buf);
                self.buf.clear();
                self.any = true;
            }
        }
    }

    /// The rest of the records out; the first bad line's error, or an
    /// error if there was no record at all.
    fn finish(mut self) -> Result<(), Error> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        if !self.buf.is_empty() {
            (self.each)(&self.buf);
            self.any = true;
        }
        if !self.any {
            return Err(Error::new(self.file, "the trace holds no requests"));
        }
        Ok(())
    }
}

/// One trace line: a record, `None` for a blank line, or what is wrong.
fn parse_line(line: &str) -> Result<Option<TraceRecord>, String> {
    // The first six fields (more are ignored), without allocating.
    let mut f = [""; 6];
    let mut got = 0;
    for (slot, word) in f.iter_mut().zip(line.split_ascii_whitespace()) {
        *slot = word;
        got += 1;
    }
    if got == 0 {
        return Ok(None);
    }
    if got < 6 {
        return Err(format!(
            "expected 6 fields (R|W Hit block count response_us interarrival_us), got {got}"
        ));
    }
    let write = match f[0] {
        "R" => false,
        "W" => true,
        other => return Err(format!("expected R or W, got '{other}'")),
    };
    let num = |k: usize, what: &str, max: f64| -> Result<f64, String> {
        f[k].parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && (0.0..=max).contains(x))
            .ok_or_else(|| format!("{what}: expected a number in 0..={max}, got '{}'", f[k]))
    };
    let lbn = num(2, "block", 9.0e15)? as u64;
    let sectors = num(3, "count", f64::from(u32::MAX))? as u32;
    if sectors == 0 {
        return Err("count: must be at least 1".into());
    }
    Ok(Some(TraceRecord {
        write,
        lbn,
        sectors,
        measured_us: num(4, "response", MAX_TRACE_US)?,
        interarrival_us: num(5, "interarrival", MAX_TRACE_US)?,
    }))
}

/// ASCII whitespace (a line holds no line end).
#[inline]
fn blank(c: u8) -> bool {
    c.is_ascii_whitespace()
}

#[inline]
fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && blank(b[i]) {
        i += 1;
    }
    i
}

/// Line `b` (without its line end) when it has the usual shape: `R` or
/// `W`, a word, two plain integers (the block below 10^19 and at most
/// 9e15, the count 1..=u32::MAX), two plain decimals ([`decimal`]) in
/// 0..=[`MAX_TRACE_US`], then anything. Returns the record; `None` for
/// any other line, which [`parse_line`] then reads. What it returns is
/// what [`parse_line`] gives for the line.
#[inline]
fn fast_line(b: &[u8]) -> Option<TraceRecord> {
    // R|W, alone.
    let mut i = skip_blanks(b, 0);
    let write = match b.get(i)? {
        b'R' => false,
        b'W' => true,
        _ => return None,
    };
    i += 1;
    if !blank(*b.get(i)?) {
        return None;
    }
    // Any word.
    i = skip_blanks(b, i);
    let word = i;
    while i < b.len() && !b[i].is_ascii_whitespace() {
        i += 1;
    }
    if i == word {
        return None;
    }
    // Plain integers; both exact in an f64, as `parse_line` reads them.
    let int = |i: &mut usize| -> Option<u64> {
        *i = skip_blanks(b, *i);
        let (m, n) = digits(b, i);
        (n > 0 && n <= 19 && blank(*b.get(*i)?)).then_some(m)
    };
    let lbn = int(&mut i).filter(|&x| x <= 9_000_000_000_000_000)?;
    let sectors = int(&mut i).filter(|&x| x >= 1 && x <= u64::from(u32::MAX))? as u32;
    // Plain decimals; the last may end the text or the line.
    i = skip_blanks(b, i);
    let measured_us = decimal(b, &mut i).filter(|&x| x <= MAX_TRACE_US)?;
    if !blank(*b.get(i)?) {
        return None;
    }
    i = skip_blanks(b, i);
    let interarrival_us = decimal(b, &mut i).filter(|&x| x <= MAX_TRACE_US)?;
    if i < b.len() && !b[i].is_ascii_whitespace() {
        return None;
    }
    // Fields past the sixth are ignored.
    Some(TraceRecord {
        write,
        lbn,
        sectors,
        measured_us,
        interarrival_us,
    })
}

/// The ASCII digits of `b` from `*i` as an integer (wrapping past 19
/// digits) and how many there were; `*i` moves past them.
#[inline]
fn digits(b: &[u8], i: &mut usize) -> (u64, usize) {
    let start = *i;
    let mut m = 0u64;
    while let Some(&c) = b.get(*i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        m = m.wrapping_mul(10).wrapping_add(u64::from(d));
        *i += 1;
    }
    (m, *i - start)
}

/// A plain decimal at `b[*i..]`, `digits` or `digits.` or
/// `digits.digits`, read as `str::parse::<f64>` reads it, when its digits,
/// the point dropped, are at most 19 and make an integer of at most 2^53;
/// `*i` moves past it. `None` otherwise. Both that integer and the power
/// of ten (at most 10^19) are exact doubles, so the one division,
/// correctly rounded, is the correctly rounded value of the decimal
/// (Clinger's fast path), which is what `str::parse` gives.
#[inline]
fn decimal(b: &[u8], i: &mut usize) -> Option<f64> {
    // 10^0 ..= 10^19, all exact in an f64.
    const POW10: [f64; 20] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19,
    ];
    let (int, n) = digits(b, i);
    if n == 0 || n > 19 {
        return None;
    }
    if b.get(*i) != Some(&b'.') {
        return (int <= 1 << 53).then_some(int as f64);
    }
    *i += 1;
    let (frac, k) = digits(b, i);
    if n + k > 19 {
        return None;
    }
    if frac == 0 {
        // All zeros after the point: the integer, exactly.
        return (int <= 1 << 53).then_some(int as f64);
    }
    let m = int * 10u64.pow(k as u32) + frac;
    (m <= 1 << 53).then(|| m as f64 / POW10[k])
}

/// Load a trace file.
pub fn load_trace(path: &Path) -> Result<Vec<TraceRecord>, Error> {
    let file = path.display().to_string();
    let text = sluice_input::read_text(path, sluice_input::Kind::Trace)?;
    parse_trace(&file, &text)
}

/// [`load_trace`], handing the records to `each` in chunks as they are
/// read (see [`parse_trace_in_chunks`]).
///
/// The file is parsed as it is read, so the first chunk comes before the
/// whole file is in. Errors keep their order all the same: the file's own
/// (too large, not UTF-8, unreadable) before a bad line, a bad line before
/// "no requests".
pub fn load_trace_in_chunks(
    path: &Path,
    chunk: usize,
    each: impl FnMut(&[TraceRecord]),
) -> Result<(), Error> {
    let file = path.display().to_string();
    let mut parser = ChunkParser::new(&file, chunk, usize::MAX, each);
    sluice_input::read_text_in_pieces(path, sluice_input::Kind::Trace, |piece| parser.feed(piece))?;
    parser.finish()
}

/// The longest gap between two traced arrivals, and the longest measured
/// response, in microseconds (an hour): more is no drive's trace.
pub const MAX_TRACE_US: f64 = 3.6e9;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_lines_parse_and_bad_ones_name_their_line() {
        let t = parse_trace("t", "R Hit 100 8 5000.0 20.5\nW Hit 7 1 300 0\n").unwrap();
        assert_eq!(t.len(), 2);
        assert!(t[1].write && t[1].lbn == 7 && t[1].sectors == 1);
        assert_eq!(t[0].interarrival_us, 20.5);
        let e = parse_trace("t", "R Hit 100 8 5000.0 20.5\nX Hit 1 1 1 1\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().starts_with("t: line 2: "), "{e}");
        assert!(parse_trace("t", "R Hit 1 0 1 1").is_err());
        assert!(parse_trace("t", "R Hit 1 1 1").is_err());
        assert!(parse_trace("t", "").is_err());
    }

    /// The reader before `fast_decimal`: every field through
    /// `split_ascii_whitespace` and `str::parse::<f64>`.
    fn reference(text: &str) -> Vec<TraceRecord> {
        sluice_input::lines(text)
            .filter_map(|l| {
                let f: Vec<&str> = l.split_ascii_whitespace().take(6).collect();
                let x = |k: usize| f.get(k)?.parse::<f64>().ok();
                Some(TraceRecord {
                    write: f.first()? == &"W",
                    lbn: x(2)? as u64,
                    sectors: x(3)? as u32,
                    measured_us: x(4)?,
                    interarrival_us: x(5)?,
                })
            })
            .collect()
    }

    fn same_bits(a: &[TraceRecord], b: &[TraceRecord]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x, y);
            assert_eq!(x.measured_us.to_bits(), y.measured_us.to_bits(), "{x:?}");
            assert_eq!(
                x.interarrival_us.to_bits(),
                y.interarrival_us.to_bits(),
                "{x:?}"
            );
        }
    }

    #[test]
    fn the_fast_reader_gives_the_records_str_parse_gives() {
        let text = "\
R Hit 17317516 4 13661.00000 26658.00000
W Doub 1194877 15 17221.000 21894.380
R Hit 265552 2 14901.000000 4757.708232
R Hit 1.5e3 8 1.5E3 2.5e-3
W Hit +7 3.9 +0.1 .5
R Hit 8999999999999999 0008 0.1000000000000000055511151231257827 3599999999.99999999999999
R Hit 12 8 0.30000000000000004 123456.789012345
R Hit 12 8 1234567.8901234567 0.0000000000000000000001
R Hit 12 8 0.00000000000000000000001 5.
R Hit 12 8 3.14159265358979323846264338327950288 2.718281828459045\textra
R Hit\t12\x0c8 0e0\t 1\r
";
        let new = parse_trace("t", text).unwrap();
        same_bits(&new, &reference(text));
        assert_eq!(new.len(), 11);
        assert_eq!((new[4].lbn, new[4].sectors), (7, 3));
        // Every shipped trace.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../sluice-device/data/disksim");
        let mut seen = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "trace") {
                let text = std::fs::read_to_string(&p).unwrap();
                same_bits(&parse_trace("t", &text).unwrap(), &reference(&text));
                seen += 1;
            }
        }
        assert_eq!(seen, 10);
        // Negative numbers (but -0, as before) and the rest are still
        // refused, naming the field.
        for (line, what) in [
            ("R Hit -1 8 1 1", "block"),
            ("R Hit 1 8 -0.5 1", "response"),
            ("R Hit 1 8 1 1.2.3", "interarrival"),
            ("R Hit 1 8 1 .", "interarrival"),
            ("R Hit 1 8 1 3600000000.1", "interarrival"),
            ("R Hit 1 8 1 inf", "interarrival"),
            ("R Hit 1 8 1 1_0", "interarrival"),
        ] {
            let e = parse_trace("t", line).unwrap_err().to_string();
            assert!(e.contains(what), "{line}: {e}");
        }
        let zero = parse_trace("t", "R Hit 1 8 1 -0").unwrap();
        assert!(zero[0].interarrival_us == 0.0 && zero[0].interarrival_us.is_sign_negative());
    }

    proptest::proptest! {
        #[test]
        fn decimal_is_str_parse(int in "[0-9]{1,21}", frac in proptest::option::of("[0-9]{0,21}")) {
            let s = match frac {
                Some(f) => format!("{int}.{f}"),
                None => int,
            };
            let want = s.parse::<f64>().unwrap();
            let mut i = 0;
            if let Some(got) = decimal(s.as_bytes(), &mut i) {
                proptest::prop_assert_eq!(i, s.len());
                proptest::prop_assert_eq!(got.to_bits(), want.to_bits(), "{}", s);
            }
        }

        /// The whole reader against the old one ([`parse_line`] on every
        /// line), on lines of awkward pieces: the same records, bit for
        /// bit, or the same error.
        #[test]
        fn parse_trace_is_the_line_by_line_reader(
            lines in proptest::collection::vec(
                (
                    "R|W|X|",
                    proptest::collection::vec(
                        (
                            "[ \t\r\x0c]{1,2}| ",
                            "[0-9]{1,20}|[0-9]{1,10}\\.[0-9]{0,12}|[0-9]{1,5}|-[0-9]|1e[0-9]|\\.[0-9]|[0-9]x|Hit|",
                        ),
                        4..8,
                    ),
                ),
                0..6,
            ),
            eol in "\n|\r\n|\r",
        ) {
            let text = lines
                .iter()
                .map(|(rw, f)| f.iter().fold(rw.clone(), |l, (sep, x)| l + sep + x))
                .collect::<Vec<_>>()
                .join(&eol);
            let old = sluice_input::lines(&text)
                .enumerate()
                .filter_map(|(i, l)| parse_line(l).map_err(|m| (i + 1, m)).transpose())
                .collect::<Result<Vec<_>, _>>();
            match (parse_trace("t", &text), old) {
                (Ok(new), Ok(old)) => same_bits(&new, &old),
                (Err(e), Err((line, m))) if !e.message.contains("no requests") => {
                    proptest::prop_assert_eq!(e.line, Some(line));
                    proptest::prop_assert_eq!(e.message, m);
                }
                (Err(e), Ok(old)) => proptest::prop_assert!(old.is_empty(), "{}", e),
                (new, old) => proptest::prop_assert!(false, "{:?} vs {:?}", new, old),
            }
        }
    }

    /// A trace file of `text` in a fresh folder.
    fn file(name: &str, text: &[u8]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("sluice-trace-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// `load_trace_in_chunks`, collected; or its error's text.
    fn streamed(p: &Path) -> Result<Vec<TraceRecord>, String> {
        let mut out = Vec::new();
        load_trace_in_chunks(p, 100, |c| out.extend_from_slice(c)).map_err(|e| e.to_string())?;
        Ok(out)
    }

    #[test]
    fn a_streamed_file_reads_as_a_whole_one() {
        // Some 200 KiB: several pieces; a blank line and a `\r` line end
        // among them; no final line end.
        let mut text = String::new();
        for i in 0..6000u64 {
            let end = if i % 97 == 0 { "\r" } else { "\n" };
            text.push_str(&format!("R Hit {} 8 {}.5 1.25{end}", i * 8, i % 50));
            if i == 3000 {
                text.push('\n');
            }
        }
        text.pop();
        let p = file("whole.trace", text.as_bytes());
        assert_eq!(streamed(&p).unwrap(), load_trace(&p).unwrap());
        // A bad line far into the file is named by its line.
        let bad = format!("{text}\nR Hit x 8 1 1\n");
        let p = file("badline.trace", bad.as_bytes());
        let whole = load_trace(&p).unwrap_err().to_string();
        assert!(whole.contains("line 6002"), "{whole}");
        assert_eq!(streamed(&p).unwrap_err(), whole);
    }

    #[test]
    fn a_file_error_after_a_bad_line_still_comes_first() {
        // A bad line at the start and a non-UTF-8 byte past the first
        // piece: reading the whole file first reported the byte.
        let mut bytes = b"R Hit x 8 1 1\n".to_vec();
        bytes.extend_from_slice("R Hit 0 8 1 1\n".repeat(10_000).as_bytes());
        bytes.push(0xff);
        let p = file("late-utf8.trace", &bytes);
        let whole = load_trace(&p).unwrap_err().to_string();
        assert!(whole.contains("not UTF-8"), "{whole}");
        assert_eq!(streamed(&p).unwrap_err(), whole);
        // Nothing at all, or blank lines only: no requests.
        let p = file("blank.trace", b"\n\n");
        assert_eq!(
            streamed(&p).unwrap_err(),
            load_trace(&p).unwrap_err().to_string()
        );
    }
}
