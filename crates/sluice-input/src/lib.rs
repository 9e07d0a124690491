//! One bounded reader for every file sluice reads (scenarios, traces,
//! drive descriptions, fio job files, reports), and the one way it creates
//! files ([`create_new`]).
//!
//! Each of those files is read whole into memory, so a path naming
//! something that is not a file (`/dev/zero`, a FIFO, a directory) or a
//! file far larger than its kind ever is must be refused before it is
//! read, not read until the memory runs out or the process blocks on a
//! FIFO with no writer. [`read_text`] opens without blocking, checks what
//! the opened descriptor is (so the check and the read see the same
//! file), refuses a file above its [`Kind`]'s cap, reads at most one byte
//! past the cap (a file that grows meanwhile is refused too) and requires
//! UTF-8. [`lines`] splits text at every line end in use (`\n`, `\r\n`
//! and a lone `\r`), so every reader counts lines the same way.
//!
//! ```
//! let lines: Vec<&str> = sluice_input::lines("a\rb\r\nc\n").collect();
//! assert_eq!(lines, ["a", "b", "c"]);
//! ```

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Create the file `path` with permissions `mode`, for reading and
/// writing: exclusively (`O_CREAT|O_EXCL`) and never through a link
/// (`O_NOFOLLOW`), so a name that exists — a file, or a link planted there —
/// is an `AlreadyExists` error and stays as it was. Every file sluice
/// writes (a run's data, its journal, an output the user names) is made
/// here.
pub fn create_new(path: &Path, mode: u32) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// What a file is for: it sets the name an error gives the file and how
/// large it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A scenario (TOML).
    Scenario,
    /// A request trace (blkparse, MSR, SPC, fio iolog, DiskSim).
    Trace,
    /// A start-up trace (the files an application reads as it starts).
    StartupTrace,
    /// A DiskSim drive description (`.diskspecs`, `.parv`).
    DiskSpecs,
    /// A file a DiskSim description includes with `source`.
    Include,
    /// A DiskSim seek-curve file.
    SeekFile,
    /// A fio job file.
    FioJob,
    /// A report's JSON (`sluice report`).
    ReportJson,
    /// A request log (`sim --log-requests`'s CSV), read by `report`.
    RequestLog,
    /// dmClock's simulator configuration (`import dmclock`).
    DmClockConfig,
    /// Seastar io_tester's job file (`import seastar`), YAML.
    SeastarJobs,
    /// Seastar's `io_properties.yaml` (`import seastar --io-properties`).
    IoProperties,
    /// `sluice mount --config`'s TOML.
    MountConfig,
    /// MQSim's device configuration (`ssdconfig.xml`), XML.
    MqsimConfig,
    /// MQSim's workload file (`workload.xml`: its I/O scenarios), XML.
    MqsimWorkload,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 15] = [
        Kind::Scenario,
        Kind::Trace,
        Kind::StartupTrace,
        Kind::DiskSpecs,
        Kind::Include,
        Kind::SeekFile,
        Kind::FioJob,
        Kind::ReportJson,
        Kind::RequestLog,
        Kind::DmClockConfig,
        Kind::SeastarJobs,
        Kind::IoProperties,
        Kind::MountConfig,
        Kind::MqsimConfig,
        Kind::MqsimWorkload,
    ];

    /// The kind's name in messages, with its article ("a DiskSim file").
    pub fn name(self) -> &'static str {
        match self {
            Kind::Scenario => "a scenario",
            Kind::Trace => "a trace",
            Kind::StartupTrace => "a start-up trace",
            Kind::DiskSpecs => "a DiskSim file",
            Kind::Include => "a DiskSim `source` file",
            Kind::SeekFile => "a DiskSim seek curve",
            Kind::FioJob => "a fio job file",
            Kind::ReportJson => "a report's JSON",
            Kind::RequestLog => "a request log",
            Kind::DmClockConfig => "a dmClock configuration",
            Kind::SeastarJobs => "an io_tester job file",
            Kind::IoProperties => "an io properties file",
            Kind::MountConfig => "a mount configuration",
            Kind::MqsimConfig => "an MQSim device configuration",
            Kind::MqsimWorkload => "an MQSim workload file",
        }
    }

    /// The largest such file read, in bytes. Hand-written files (scenarios,
    /// drive descriptions, job files) are kilobytes, so 16 MiB is far past
    /// any real one; traces are recorded and can be large, but the text and
    /// its parsed requests are held in memory together, so 1 GiB; a
    /// report's JSON holds per-flow series, 256 MiB; a request log (a
    /// row per request) is drawn whole, 256 MiB too. Other tools'
    /// configurations (dmClock, Seastar, MQSim's 4 KiB `ssdconfig.xml`) are
    /// a few kilobytes: 1 MiB; so is a mount configuration (its at most
    /// 1000 classes of a few lines each are some 200 KiB).
    pub fn cap(self) -> u64 {
        match self {
            Kind::DmClockConfig
            | Kind::SeastarJobs
            | Kind::IoProperties
            | Kind::MountConfig
            | Kind::MqsimConfig
            | Kind::MqsimWorkload => MIB,
            Kind::Scenario | Kind::DiskSpecs | Kind::Include | Kind::SeekFile | Kind::FioJob => {
                16 * MIB
            }
            Kind::Trace | Kind::StartupTrace => GIB,
            Kind::ReportJson | Kind::RequestLog => 256 * MIB,
        }
    }
}

/// A file that could not be read as its kind. Displays as one line naming
/// the file.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.one_line())]
pub struct InputError {
    /// The file, as given.
    pub path: String,
    /// What it was to be read as.
    pub kind: Kind,
    /// What is wrong.
    pub problem: Problem,
}

/// Why a file was refused.
#[derive(Debug)]
pub enum Problem {
    /// Opening or reading failed.
    Io(std::io::Error),
    /// Not a regular file: what it is ("a FIFO").
    NotRegular(&'static str),
    /// Larger than the kind's cap: its size in bytes (at least cap + 1
    /// when it grew while being read).
    TooLarge(u64),
    /// Not UTF-8: the 1-based line and the byte offset of the first bad
    /// byte.
    NotUtf8 {
        /// The line of the bad byte.
        line: usize,
        /// Its offset in the file.
        offset: usize,
    },
}

impl InputError {
    fn one_line(&self) -> String {
        let path = &self.path;
        match &self.problem {
            Problem::Io(e) => {
                let what = self.kind.name();
                let what = what.split_once(' ').map_or(what, |(_, w)| w);
                format!("{path}: cannot read {what}: {e}")
            }
            Problem::NotRegular(what) => format!("{path} is {what}, not a regular file"),
            Problem::TooLarge(size) => format!(
                "{path} is {}; {} may be at most {}",
                Size(*size),
                self.kind.name(),
                Size(self.kind.cap())
            ),
            Problem::NotUtf8 { line, offset } => format!(
                "{path} is not UTF-8 text (line {line}, byte offset {offset}); {} is text",
                self.kind.name()
            ),
        }
    }
}

/// The error as the located error every reader reports (its message names
/// the file).
impl From<InputError> for sluice::LocatedError {
    fn from(e: InputError) -> Self {
        sluice::LocatedError::new("", e.to_string())
    }
}

/// A byte count for people: `16 MiB`, `2.5 GiB (2684354560 bytes)`
/// (exact when rounding would hide how far past a cap it is), `300 bytes`.
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        for (unit, name) in [(GIB, "GiB"), (MIB, "MiB"), (1 << 10, "KiB")] {
            if n >= unit {
                return if n % unit == 0 {
                    write!(f, "{} {name}", n / unit)
                } else {
                    write!(f, "{:.1} {name} ({n} bytes)", n as f64 / unit as f64)
                };
            }
        }
        write!(f, "{n} bytes")
    }
}

/// What a file that is not a regular file is, with its article.
fn describe(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// Open for reading without blocking (a FIFO with no writer would block
/// an ordinary open) and without leaking the descriptor to children.
fn open(path: &Path) -> std::io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    o.open(path)
}

/// The text of `path`, read as a `kind` file: a regular file of at most
/// `kind.cap()` bytes, in UTF-8. Anything else is an [`InputError`]
/// saying what the path is, without reading it.
pub fn read_text(path: &Path, kind: Kind) -> Result<String, InputError> {
    let fail = failure(path, kind);
    let (file, len) = open_checked(path, kind)?;
    let cap = kind.cap();
    // One byte past the cap tells a file that grew since the check.
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(Problem::Io(e)))?;
    if bytes.len() as u64 > cap {
        return Err(fail(Problem::TooLarge(bytes.len() as u64)));
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..offset];
        // Valid up to `offset`, so its lines are countable.
        let counted = std::str::from_utf8(before).map_or(0, |s| lines(s).count());
        let ends_line = before.ends_with(b"\n") || before.ends_with(b"\r");
        fail(not_utf8(counted, ends_line, offset))
    })
}

/// Bytes [`read_text_in_pieces`] reads at a time.
const PIECE_BYTES: usize = 64 << 10;

/// [`read_text`] handed over in pieces as the file is read, so that a
/// reader can start on the first lines while the rest is still on its
/// way. Every piece but the last ends with `\n` (so no line, and no
/// `\r\n`, is cut in two); together they are the text `read_text` returns.
/// The checks and errors are `read_text`'s, over the whole file: `each`
/// may have seen the start of a file that then turns out too large or not
/// UTF-8, and the error returned is then the file's.
pub fn read_text_in_pieces(
    path: &Path,
    kind: Kind,
    mut each: impl FnMut(&str),
) -> Result<(), InputError> {
    let fail = failure(path, kind);
    let (file, _) = open_checked(path, kind)?;
    let cap = kind.cap();
    let mut file = file.take(cap + 1);
    let mut buf: Vec<u8> = Vec::with_capacity(2 * PIECE_BYTES);
    // Bytes handed over so far, the lines in them, and whether they end a
    // line (for the line of a UTF-8 error, counted as `read_text` does).
    let (mut passed, mut passed_lines) = (0usize, 0usize);
    loop {
        let old = buf.len();
        buf.resize(old + PIECE_BYTES, 0);
        let n = loop {
            match file.read(&mut buf[old..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r.map_err(|e| fail(Problem::Io(e)))?,
            }
        };
        buf.truncate(old + n);
        let total = (passed + buf.len()) as u64;
        if total > cap {
            return Err(fail(Problem::TooLarge(total)));
        }
        let end = if n == 0 {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf) {
                Some(i) => i + 1,
                None => continue,
            }
        };
        if end > 0 {
            let text = std::str::from_utf8(&buf[..end]).map_err(|e| {
                let offset = e.valid_up_to();
                let before = std::str::from_utf8(&buf[..offset]).unwrap_or_default();
                let ends_line = match before.as_bytes().last() {
                    Some(&b) => b == b'\n' || b == b'\r',
                    None => passed > 0,
                };
                fail(not_utf8(
                    passed_lines + lines(before).count(),
                    ends_line,
                    passed + offset,
                ))
            })?;
            each(text);
            passed_lines += lines(text).count();
            passed += end;
            buf.drain(..end);
        }
        if n == 0 {
            return Ok(());
        }
    }
}

/// The bytes of `path`, a binary `kind` file (a blktrace capture), handed
/// over in pieces as the file is read: the checks of [`read_text`] (a
/// regular file, within the cap, also while it is read), without the text's.
/// `each` may have seen the start of a file that then turns out too large.
pub fn read_bytes_in_pieces(
    path: &Path,
    kind: Kind,
    mut each: impl FnMut(&[u8]),
) -> Result<(), InputError> {
    let fail = failure(path, kind);
    let (file, _) = open_checked(path, kind)?;
    let cap = kind.cap();
    let mut file = file.take(cap + 1);
    let mut buf = vec![0u8; PIECE_BYTES];
    let mut total = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => r.map_err(|e| fail(Problem::Io(e)))?,
        };
        if n == 0 {
            return Ok(());
        }
        total += n as u64;
        if total > cap {
            return Err(fail(Problem::TooLarge(total)));
        }
        each(&buf[..n]);
    }
}

/// The error maker for `path`, read as a `kind` file.
fn failure(path: &Path, kind: Kind) -> impl Fn(Problem) -> InputError + '_ {
    move |problem| InputError {
        path: path.display().to_string(),
        kind,
        problem,
    }
}

/// `path` opened for reading, if it is a regular file within `kind`'s cap,
/// with its size.
fn open_checked(path: &Path, kind: Kind) -> Result<(File, u64), InputError> {
    let fail = failure(path, kind);
    let file = match open(path) {
        Ok(f) => f,
        Err(e) => {
            // A socket cannot be opened at all (ENXIO): say what it is.
            return Err(match std::fs::metadata(path) {
                Ok(m) if !m.is_file() => fail(Problem::NotRegular(describe(m.file_type()))),
                _ => fail(Problem::Io(e)),
            });
        }
    };
    // The opened descriptor's own type and size: no race with a rename.
    let meta = file.metadata().map_err(|e| fail(Problem::Io(e)))?;
    if !meta.is_file() {
        return Err(fail(Problem::NotRegular(describe(meta.file_type()))));
    }
    if meta.len() > kind.cap() {
        return Err(fail(Problem::TooLarge(meta.len())));
    }
    Ok((file, meta.len()))
}

/// Not UTF-8 at byte `offset`, after `counted` whole or partial lines of
/// valid text that `ends_line` if they end with a line end: the bad byte's
/// line is the next one then.
fn not_utf8(counted: usize, ends_line: bool, offset: usize) -> Problem {
    let line = counted.max(1);
    let line = if ends_line { line + 1 } else { line };
    Problem::NotUtf8 { line, offset }
}

/// The lines of `text`, each without its line end. A line ends at `\n`,
/// `\r\n` or a lone `\r` (old Mac files; a trace saved so must not read as
/// one line). A line end at the very end of the text starts no further
/// line, as in [`str::lines`].
pub fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

/// The iterator of [`lines`].
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let b = self.rest.as_bytes();
        // memchr scans many bytes a step: traces run to millions of lines.
        match memchr::memchr2(b'\n', b'\r', b) {
            None => Some(std::mem::take(&mut self.rest)),
            Some(i) => {
                let line = &self.rest[..i];
                let skip = if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                // `\r` and `\n` are ASCII: `i + skip` is a char boundary.
                self.rest = &self.rest[i + skip..];
                Some(line)
            }
        }
    }
}

/// Files no reader may read, for tests of every crate that reads input.
#[cfg(any(test, feature = "testkit"))]
pub mod testkit {
    use std::path::{Path, PathBuf};

    use super::Kind;

    /// A fresh directory of its own under the system's temporary one.
    pub fn scratch(tag: &str) -> PathBuf {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let d = std::env::temp_dir().join(format!(
            "sluice-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("a scratch directory");
        d
    }

    /// A DiskSim description `x.diskspecs` in `dir` made from `specs` (a
    /// drive's description that sources `ibm18es.model`) whose 15 small
    /// include files each source the next ten times: 10^14 copies if
    /// expanded without a budget. Returns its path.
    pub fn include_blowup(dir: &Path, specs: &str) -> PathBuf {
        let specs = specs.replacen(
            "Model = source ibm18es.model,",
            "Model = source ibm18es.model,\n   Junk = source a0.model,",
            1,
        );
        let x = dir.join("x.diskspecs");
        std::fs::write(&x, specs).expect("the description");
        for i in 0..14 {
            let keys: Vec<String> = (0..10)
                .map(|j| format!("k{j} = source a{}.model", i + 1))
                .collect();
            std::fs::write(
                dir.join(format!("a{i}.model")),
                format!("blk B {{\n{}\n}}\n", keys.join(",\n")),
            )
            .expect("an include");
        }
        std::fs::write(dir.join("a14.model"), "blk B { v = 1 }\n").expect("the last include");
        x
    }

    /// Paths in `dir` (made here) that a `kind` reader must refuse, each
    /// with words its error must hold: `/dev/zero`, a FIFO with no writer,
    /// a directory, and a sparse file one byte over the kind's cap.
    pub fn refused(dir: &Path, kind: Kind) -> Vec<(PathBuf, &'static str)> {
        let fifo = dir.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let sub = dir.join("a-directory");
        std::fs::create_dir_all(&sub).expect("a directory");
        let big = dir.join("big");
        std::fs::File::create(&big)
            .and_then(|f| f.set_len(kind.cap() + 1))
            .expect("a sparse file");
        vec![
            (
                PathBuf::from("/dev/zero"),
                "is a character device, not a regular file",
            ),
            (fifo, "is a FIFO, not a regular file"),
            (sub, "is a directory, not a regular file"),
            (big, "may be at most"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "sluice-input-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn line_ends_of_every_kind_split_lines() {
        fn l(t: &str) -> Vec<&str> {
            lines(t).collect()
        }
        assert_eq!(l("a\rb\rc"), ["a", "b", "c"]);
        assert_eq!(l("a\r\nb\nc\r"), ["a", "b", "c"]);
        assert_eq!(l("a\r\rb"), ["a", "", "b"]);
        assert_eq!(l("\n\r\n"), ["", ""]);
        assert_eq!(l(""), Vec::<&str>::new());
        assert_eq!(l("é\ré"), ["é", "é"]);
        // As `str::lines` wherever there is no lone `\r`.
        for t in ["a\nb\n", "a\r\nb", "\n\nx", "x\r\n\r\n"] {
            assert_eq!(l(t), t.lines().collect::<Vec<_>>(), "{t:?}");
        }
    }

    #[test]
    fn a_regular_file_reads_whole() {
        let p = dir().join("ok.toml");
        std::fs::write(&p, "a = 1\n").unwrap();
        assert_eq!(read_text(&p, Kind::Scenario).unwrap(), "a = 1\n");
    }

    #[test]
    fn special_files_are_refused_without_reading() {
        let e = read_text(Path::new("/dev/zero"), Kind::Trace).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero is a character device, not a regular file"
        );
        let d = dir();
        let e = read_text(&d, Kind::DiskSpecs).unwrap_err().to_string();
        assert!(e.ends_with("is a directory, not a regular file"), "{e}");
        // A FIFO with no writer: an ordinary open would block here.
        let fifo = d.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let e = read_text(&fifo, Kind::Scenario).unwrap_err().to_string();
        assert!(e.ends_with("is a FIFO, not a regular file"), "{e}");
        // A socket cannot be opened: still named.
        let sock = d.join("sock");
        let _ = std::fs::remove_file(&sock);
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let e = read_text(&sock, Kind::FioJob).unwrap_err().to_string();
        assert!(e.ends_with("is a socket, not a regular file"), "{e}");
    }

    #[test]
    fn files_over_their_cap_are_refused_before_reading() {
        let p = dir().join("big.diskspecs");
        let f = File::create(&p).unwrap();
        f.set_len(2 * GIB).unwrap(); // sparse: no disk used
        let e = read_text(&p, Kind::DiskSpecs).unwrap_err().to_string();
        assert!(
            e.ends_with("big.diskspecs is 2 GiB; a DiskSim file may be at most 16 MiB"),
            "{e}"
        );
        f.set_len(16 * MIB + 1).unwrap();
        let e = read_text(&p, Kind::Include).unwrap_err().to_string();
        assert!(
            e.contains(
                "is 16.0 MiB (16777217 bytes); a DiskSim `source` file may be at most 16 MiB"
            ),
            "{e}"
        );
        f.set_len(16 * MIB).unwrap();
        assert_eq!(read_text(&p, Kind::SeekFile).unwrap().len(), 16 << 20);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn missing_and_non_utf8_files_say_so_on_one_line() {
        let d = dir();
        let e = read_text(&d.join("nope.trace"), Kind::Trace)
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope.trace: cannot read trace: "), "{e}");
        let p = d.join("bin.trace");
        std::fs::write(&p, b"ok\rok\n\xff\xfe").unwrap();
        let e = read_text(&p, Kind::Trace).unwrap_err().to_string();
        assert!(e.contains("not UTF-8 text (line 3, byte offset 6)"), "{e}");
    }

    #[test]
    fn bytes_in_pieces_are_the_whole_file_and_refuse_what_text_refuses() {
        let d = dir();
        let p = d.join("capture.blktrace.0");
        let bytes: Vec<u8> = (0..3 * PIECE_BYTES + 5).map(|i| (i * 7) as u8).collect();
        std::fs::write(&p, &bytes).unwrap();
        let mut whole = Vec::new();
        read_bytes_in_pieces(&p, Kind::Trace, |b| whole.extend_from_slice(b)).unwrap();
        assert_eq!(whole, bytes);
        let e = read_bytes_in_pieces(Path::new("/dev/zero"), Kind::Trace, |_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("is a character device, not a regular file"),
            "{e}"
        );
        let big = d.join("big.blktrace.0");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(Kind::Trace.cap() + 1).unwrap();
        let e = read_bytes_in_pieces(&big, Kind::Trace, |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("may be at most 1 GiB"), "{e}");
        std::fs::remove_file(&big).unwrap();
    }

    /// `read_text_in_pieces`'s pieces, joined; or its error.
    fn in_pieces(p: &Path) -> Result<(String, Vec<usize>), String> {
        let mut whole = String::new();
        let mut sizes = Vec::new();
        read_text_in_pieces(p, Kind::Trace, |piece| {
            sizes.push(piece.len());
            whole.push_str(piece);
        })
        .map_err(|e| e.to_string())?;
        Ok((whole, sizes))
    }

    #[test]
    fn pieces_join_into_the_whole_text_and_end_at_line_ends() {
        let d = dir();
        // Lines of every ending, a `\r\n` and a multi-byte character on
        // each side of the first piece boundary, no final line end.
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 3 * PIECE_BYTES {
            text.push_str(["R Hit 1 8 1 1\n", "é\r\n", "x\r", "\n"][i % 4]);
            i += 1;
        }
        text.push_str("last line");
        for cut in [0, 1, 2, PIECE_BYTES - 1, PIECE_BYTES, text.len()] {
            let t = &text[..text.floor_char_boundary(cut)];
            let p = d.join(format!("pieces{cut}.trace"));
            std::fs::write(&p, t).unwrap();
            let (whole, sizes) = in_pieces(&p).unwrap();
            assert_eq!(whole, read_text(&p, Kind::Trace).unwrap(), "cut {cut}");
            let mut at = 0;
            for (k, n) in sizes.iter().enumerate() {
                at += n;
                let last = k + 1 == sizes.len();
                assert!(
                    last || whole.as_bytes()[at - 1] == b'\n',
                    "piece {k} of cut {cut}"
                );
            }
            assert!(
                t.len() <= PIECE_BYTES || sizes.len() > 1,
                "cut {cut}: {sizes:?}"
            );
        }
    }

    #[test]
    fn pieces_fail_as_the_whole_read_fails() {
        let d = dir();
        let body = "R Hit 1 8 1 1\r\n".repeat(PIECE_BYTES / 8);
        // A bad byte at the start, inside and at the edge of later pieces.
        for at in [
            0,
            5,
            body.len() / 3,
            PIECE_BYTES,
            PIECE_BYTES + 1,
            body.len(),
        ] {
            let mut bytes = body.as_bytes()[..at].to_vec();
            bytes.push(0xff);
            bytes.extend_from_slice(&body.as_bytes()[at..]);
            let p = d.join(format!("bad{at}.trace"));
            std::fs::write(&p, &bytes).unwrap();
            let whole = read_text(&p, Kind::Trace).unwrap_err().to_string();
            assert_eq!(in_pieces(&p).unwrap_err(), whole, "bad byte at {at}");
        }
        assert!(in_pieces(&d.join("none.trace"))
            .unwrap_err()
            .contains("cannot read trace"));
    }
}
