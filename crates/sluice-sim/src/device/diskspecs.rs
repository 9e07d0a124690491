//! Load a DiskSim drive description into an [`HddSpec`].
//!
//! DiskSim's parameter syntax (libparam): a file holds blocks
//! `typename Name { Key = value, ... }`; a value is a number, a bare word or
//! file name, a nested block `type { ... }`, a list `[ v, v, ... ]`, or
//! `source file`, which reads the first block of another file (resolved
//! relative to the including file). `#` starts a comment. Parameter names
//! contain spaces and punctuation ("Read hit over. after read"); they are
//! matched ignoring case and repeated spaces. Unknown parameters are ignored
//! (DiskSim has hundreds); missing required ones are errors.
//!
//! A `.diskspecs` file's `disksim_disk` block gives the controller and
//! buffer figures; its `Model = source X.model` gives the `dm_disk` block
//! with the zoned layout (`dm_layout_g1`) and the mechanics (`dm_mech_g1`),
//! whose `Full seek curve = X.seek` names the measured seek curve.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::hdd::geometry::{Layout, LayoutError, Sparing, SurfaceOrder, Zone};
use super::hdd::seek::SeekCurve;
use super::hdd::{CacheSpec, HddSpec, Overheads};

/// The drives whose DiskSim descriptions are built in (see
/// `crates/sluice-sim/data/disksim/`, with its licence).
pub const EMBEDDED: &[&str] = &["ibm18es", "barracuda"];

/// A description that cannot be read or makes no sense. Displays as one
/// line: file, line (when known), parameter (when known), problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskspecsError {
    pub file: String,
    pub line: Option<usize>,
    pub param: Option<String>,
    pub message: String,
}

impl fmt::Display for DiskspecsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file)?;
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(param) = &self.param {
            write!(f, "\"{param}\": ")?;
        }
        let one_line: String = self
            .message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        f.write_str(&one_line)
    }
}

impl std::error::Error for DiskspecsError {}

type Result<T> = std::result::Result<T, DiskspecsError>;

/// Load a `.diskspecs` file and the files it names.
pub fn load(path: &Path) -> Result<HddSpec> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| DiskspecsError {
        file: name.clone(),
        line: None,
        param: None,
        message: format!("cannot read: {e}"),
    })?;
    build(&name, &text, &FromDisk)
}

/// Parse a `.diskspecs` text named `file_name` (for messages); `include`
/// returns the text of a file it names (`source X.model`, the seek curve),
/// or `None` if there is no such file.
pub fn parse_str(
    file_name: &str,
    text: &str,
    include: impl Fn(&str) -> Option<String>,
) -> Result<HddSpec> {
    build(file_name, text, &FromFn(include))
}

/// A built-in drive: `"ibm18es"` (IBM Ultrastar 18ES, DNES-309170W) or
/// `"barracuda"` (Seagate Barracuda ST32171W), from DiskSim 4.0's
/// validated descriptions.
pub fn load_embedded(name: &str) -> Option<HddSpec> {
    let file = format!("{name}.diskspecs");
    let text = embedded(&file)?;
    build(&file, text, &Embedded).ok()
}

/// Parse a DiskSim seek-curve file: `Seek distances measured: N`, then N
/// lines `distance, ms` with ascending distances.
pub fn parse_seek_curve(file_name: &str, text: &str) -> Result<SeekCurve> {
    let err = |line: usize, message: String| DiskspecsError {
        file: file_name.to_string(),
        line: Some(line),
        param: None,
        message,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let (n, header) = lines
        .next()
        .ok_or_else(|| err(1, "empty seek curve file".into()))?;
    let count = header
        .split_once(':')
        .filter(|(k, _)| k.trim().eq_ignore_ascii_case("Seek distances measured"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .ok_or_else(|| {
            err(
                n,
                format!("expected `Seek distances measured: N` (N > 0), found `{header}`"),
            )
        })?;
    let mut points: Vec<(u32, f64)> = Vec::with_capacity(count.min(1 << 16));
    let mut last_line = n;
    for (n, line) in lines.take(count) {
        last_line = n;
        let mut fields = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty());
        let d = fields
            .next()
            .and_then(|f| f.parse::<u32>().ok())
            .filter(|&d| d > 0);
        let t = fields
            .next()
            .and_then(|f| f.parse::<f64>().ok())
            .filter(|t| t.is_finite() && *t >= 0.0);
        let (Some(d), Some(t)) = (d, t) else {
            return Err(err(
                n,
                format!("expected `distance, milliseconds`, found `{line}`"),
            ));
        };
        if points.last().is_some_and(|&(p, _)| d <= p) {
            return Err(err(n, format!("distance {d} does not ascend")));
        }
        points.push((d, t));
    }
    if points.len() < count {
        return Err(err(
            last_line,
            format!(
                "the header announces {count} seek distances but the file has {}",
                points.len()
            ),
        ));
    }
    Ok(SeekCurve::Table(points))
}

// ---------------------------------------------------------------------------
// Files

/// Where included files come from.
trait Files {
    /// The text of `name` as named in file `from`, and the name to report
    /// it by.
    fn open(&self, from: &str, name: &str) -> std::result::Result<(String, String), String>;
}

/// The file system, relative to the including file.
struct FromDisk;

impl Files for FromDisk {
    fn open(&self, from: &str, name: &str) -> std::result::Result<(String, String), String> {
        let dir = Path::new(from).parent().unwrap_or(Path::new(""));
        let path: PathBuf = dir.join(name);
        std::fs::read_to_string(&path)
            .map(|t| (path.display().to_string(), t))
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}

struct FromFn<F>(F);

impl<F: Fn(&str) -> Option<String>> Files for FromFn<F> {
    fn open(&self, _from: &str, name: &str) -> std::result::Result<(String, String), String> {
        (self.0)(name)
            .map(|t| (name.to_string(), t))
            .ok_or_else(|| "no such file".to_string())
    }
}

/// The built-in copies.
struct Embedded;

fn embedded(name: &str) -> Option<&'static str> {
    Some(match name.trim_start_matches("./") {
        "ibm18es.diskspecs" => include_str!("../../data/disksim/ibm18es.diskspecs"),
        "ibm18es.model" => include_str!("../../data/disksim/ibm18es.model"),
        "ibm18es.seek" => include_str!("../../data/disksim/ibm18es.seek"),
        "barracuda.diskspecs" => include_str!("../../data/disksim/barracuda.diskspecs"),
        "barracuda.model" => include_str!("../../data/disksim/barracuda.model"),
        "barracuda.seek" => include_str!("../../data/disksim/barracuda.seek"),
        _ => return None,
    })
}

impl Files for Embedded {
    fn open(&self, _from: &str, name: &str) -> std::result::Result<(String, String), String> {
        embedded(name)
            .map(|t| (name.to_string(), t.to_string()))
            .ok_or_else(|| "not a built-in file".to_string())
    }
}

// ---------------------------------------------------------------------------
// Syntax tree and parser

#[derive(Clone, Debug)]
struct Pos {
    file: Arc<str>,
    line: usize,
}

#[derive(Clone, Debug)]
enum Value {
    Scalar(String),
    List(Vec<(Value, Pos)>),
    Block(Block),
}

#[derive(Clone, Debug)]
struct Entry {
    key: String,
    value: Value,
    at: Pos,
}

#[derive(Clone, Debug)]
struct Block {
    ty: String,
    name: String,
    at: Pos,
    entries: Vec<Entry>,
}

/// Includes nest at most this deep (a cycle would not end).
const MAX_DEPTH: usize = 16;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    file: Arc<str>,
    files: &'a dyn Files,
    depth: usize,
}

fn is_delim(c: u8) -> bool {
    matches!(c, b'{' | b'}' | b'[' | b']' | b',' | b'=' | b'#')
}

impl<'a> Parser<'a> {
    fn new(file: &str, text: &'a str, files: &'a dyn Files, depth: usize) -> Self {
        Parser {
            text,
            pos: 0,
            line: 1,
            file: Arc::from(file),
            files,
            depth,
        }
    }

    fn at(&self) -> Pos {
        Pos {
            file: self.file.clone(),
            line: self.line,
        }
    }

    fn err(&self, param: Option<&str>, message: String) -> DiskspecsError {
        DiskspecsError {
            file: self.file.to_string(),
            line: Some(self.line),
            param: param.map(str::to_string),
            message,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn bump(&mut self) {
        if self.peek() == Some(b'\n') {
            self.line += 1;
        }
        self.pos += 1;
    }

    /// Skip white space and comments.
    fn skip(&mut self) {
        while let Some(c) = self.peek() {
            if c == b'#' {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.bump();
                }
            } else if c.is_ascii_whitespace() {
                self.bump();
            } else {
                break;
            }
        }
    }

    /// Text up to (not including) the first byte that `stop` accepts.
    fn take_until(&mut self, stop: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(|c| !stop(c)) {
            self.bump();
        }
        &self.text[start..self.pos]
    }

    /// A run of non-blank, non-delimiter characters.
    fn word(&mut self) -> &'a str {
        self.take_until(|c| c.is_ascii_whitespace() || is_delim(c))
    }

    /// The blocks of a whole file.
    fn file_blocks(&mut self) -> Result<Vec<Block>> {
        let mut blocks = Vec::new();
        loop {
            self.skip();
            let Some(c) = self.peek() else {
                return Ok(blocks);
            };
            if is_delim(c) {
                return Err(self.err(
                    None,
                    format!(
                        "expected a block `typename Name {{ ... }}`, found `{}`",
                        c as char
                    ),
                ));
            }
            let at = self.at();
            let ty = self.word().to_string();
            if ty == "source" {
                self.skip();
                let name = self.word();
                if name.is_empty() {
                    return Err(self.err(None, "`source` needs a file name".into()));
                }
                blocks.extend(self.include(name, None)?);
                continue;
            }
            self.skip();
            let name = if self.peek().is_some_and(|c| !is_delim(c)) {
                self.word().to_string()
            } else {
                String::new()
            };
            self.skip();
            if self.peek() != Some(b'{') {
                return Err(self.err(None, format!("expected `{{` to open block `{ty} {name}`")));
            }
            self.bump();
            blocks.push(self.body(ty, name, at)?);
        }
    }

    /// The blocks of an included file.
    fn include(&mut self, name: &str, param: Option<&str>) -> Result<Vec<Block>> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(
                param,
                format!("`source {name}`: includes nest too deeply (a cycle?)"),
            ));
        }
        let (file, text) = self
            .files
            .open(&self.file, name)
            .map_err(|e| self.err(param, format!("cannot read `source {name}`: {e}")))?;
        Parser::new(&file, &text, self.files, self.depth + 1).file_blocks()
    }

    /// A block's entries, after its `{`, through its `}`.
    fn body(&mut self, ty: String, name: String, at: Pos) -> Result<Block> {
        let mut entries = Vec::new();
        loop {
            self.skip();
            match self.peek() {
                None => {
                    return Err(self.err(
                        None,
                        format!(
                            "block `{ty} {name}` opened at line {} is not closed with `}}`",
                            at.line
                        ),
                    ))
                }
                Some(b'}') => {
                    self.bump();
                    return Ok(Block {
                        ty,
                        name,
                        at,
                        entries,
                    });
                }
                Some(b',') => self.bump(),
                Some(_) => {
                    let at = self.at();
                    let key = normalize(self.take_until(|c| is_delim(c) || c == b'\n'));
                    if self.peek() != Some(b'=') {
                        return Err(self.err(
                            (!key.is_empty()).then_some(key.as_str()),
                            "expected `Name = value`".into(),
                        ));
                    }
                    if key.is_empty() {
                        return Err(self.err(None, "missing parameter name before `=`".into()));
                    }
                    self.bump();
                    let value = self.value(&key)?;
                    entries.push(Entry { key, value, at });
                    self.separator(b'}')?;
                }
            }
        }
    }

    /// After a value: a comma, the closing bracket, or (leniently) a new line.
    fn separator(&mut self, close: u8) -> Result<()> {
        let line = self.line;
        self.skip();
        match self.peek() {
            Some(b',') => {
                self.bump();
                Ok(())
            }
            Some(c) if c == close => Ok(()),
            None => Ok(()),
            Some(_) if self.line > line => Ok(()),
            Some(c) => Err(self.err(
                None,
                format!(
                    "expected `,` or `{}` after a value, found `{}`",
                    close as char, c as char
                ),
            )),
        }
    }

    fn value(&mut self, key: &str) -> Result<Value> {
        self.skip();
        match self.peek() {
            Some(b'[') => {
                self.bump();
                let mut items = Vec::new();
                loop {
                    self.skip();
                    match self.peek() {
                        None => {
                            return Err(self.err(Some(key), "list is not closed with `]`".into()))
                        }
                        Some(b']') => {
                            self.bump();
                            return Ok(Value::List(items));
                        }
                        Some(b',') => self.bump(),
                        Some(_) => {
                            let at = self.at();
                            items.push((self.value(key)?, at));
                            self.separator(b']')?;
                        }
                    }
                }
            }
            Some(b'{') => {
                let at = self.at();
                self.bump();
                Ok(Value::Block(self.body(String::new(), String::new(), at)?))
            }
            None | Some(b',' | b'}' | b']' | b'=') => {
                Err(self.err(Some(key), "missing value".into()))
            }
            Some(_) => {
                let at = self.at();
                let text = self
                    .take_until(|c| is_delim(c) || c == b'\n')
                    .trim()
                    .to_string();
                if self.peek() == Some(b'{') {
                    self.bump();
                    let mut words = text.split_whitespace();
                    let ty = words.next().unwrap_or("").to_string();
                    let name = words.collect::<Vec<_>>().join(" ");
                    return Ok(Value::Block(self.body(ty, name, at)?));
                }
                if let Some(name) = text
                    .strip_prefix("source")
                    .filter(|r| r.starts_with(char::is_whitespace))
                {
                    let name = name.trim();
                    let blocks = self.include(name, Some(key))?;
                    return match blocks.into_iter().next() {
                        Some(b) => Ok(Value::Block(b)),
                        None => Err(self.err(Some(key), format!("`{name}` holds no block"))),
                    };
                }
                if text.is_empty() {
                    return Err(self.err(Some(key), "missing value".into()));
                }
                Ok(Value::Scalar(text))
            }
        }
    }
}

/// Parameter names compare without case and with single spaces.
fn normalize(key: &str) -> String {
    key.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn same_key(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

// ---------------------------------------------------------------------------
// Typed access

impl Entry {
    fn err(&self, message: String) -> DiskspecsError {
        DiskspecsError {
            file: self.at.file.to_string(),
            line: Some(self.at.line),
            param: Some(self.key.clone()),
            message,
        }
    }

    fn scalar(&self) -> Result<&str> {
        match &self.value {
            Value::Scalar(s) => Ok(s),
            Value::List(_) => Err(self.err("expected a single value, found a list".into())),
            Value::Block(_) => Err(self.err("expected a single value, found a block".into())),
        }
    }

    fn int(&self) -> Result<i64> {
        let s = self.scalar()?;
        parse_int(s).ok_or_else(|| self.err(format!("expected an integer, found `{s}`")))
    }

    fn num(&self) -> Result<f64> {
        let s = self.scalar()?;
        s.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| self.err(format!("expected a number, found `{s}`")))
    }

    /// A non-negative integer that fits `T`.
    fn count<T: TryFrom<i64>>(&self) -> Result<T> {
        let i = self.int()?;
        T::try_from(i)
            .ok()
            .filter(|_| i >= 0)
            .ok_or_else(|| self.err(format!("{i} is out of range")))
    }

    fn time(&self) -> Result<f64> {
        let x = self.num()?;
        if x < 0.0 {
            return Err(self.err(format!("a time cannot be negative ({x})")));
        }
        Ok(x)
    }

    fn block(&self) -> Result<&Block> {
        match &self.value {
            Value::Block(b) => Ok(b),
            _ => Err(self.err("expected a block `type { ... }`".into())),
        }
    }

    fn list(&self) -> Result<&[(Value, Pos)]> {
        match &self.value {
            Value::List(items) => Ok(items),
            _ => Err(self.err("expected a list `[ ... ]`".into())),
        }
    }

    /// A list of non-negative integers.
    fn ints(&self) -> Result<Vec<u64>> {
        self.list()?
            .iter()
            .map(|(v, at)| {
                let bad = |s: &str| DiskspecsError {
                    file: at.file.to_string(),
                    line: Some(at.line),
                    param: Some(self.key.clone()),
                    message: format!("expected a non-negative integer, found `{s}`"),
                };
                match v {
                    Value::Scalar(s) => parse_int(s)
                        .and_then(|i| u64::try_from(i).ok())
                        .ok_or_else(|| bad(s)),
                    _ => Err(bad("a list or block")),
                }
            })
            .collect()
    }

    /// A list of numbers.
    fn nums(&self, len: usize) -> Result<Vec<f64>> {
        let items = self.list()?;
        if items.len() != len {
            return Err(self.err(format!("expected {len} numbers, found {}", items.len())));
        }
        items
            .iter()
            .map(|(v, at)| {
                match v {
                    Value::Scalar(s) => s.parse::<f64>().ok().filter(|x| x.is_finite()),
                    _ => None,
                }
                .ok_or_else(|| DiskspecsError {
                    file: at.file.to_string(),
                    line: Some(at.line),
                    param: Some(self.key.clone()),
                    message: "expected a number".into(),
                })
            })
            .collect()
    }
}

/// An integer, also written as a number with no fraction (`7200.000`).
fn parse_int(s: &str) -> Option<i64> {
    s.parse::<i64>().ok().or_else(|| {
        let x = s.parse::<f64>().ok()?;
        (x.fract() == 0.0 && x.abs() < 9.0e15).then_some(x as i64)
    })
}

impl Block {
    fn describe(&self) -> String {
        if self.name.is_empty() {
            format!("`{}` block", self.ty)
        } else {
            format!("`{} {}` block", self.ty, self.name)
        }
    }

    fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().rev().find(|e| same_key(&e.key, key))
    }

    fn req(&self, key: &str) -> Result<&Entry> {
        self.get(key).ok_or_else(|| DiskspecsError {
            file: self.at.file.to_string(),
            line: Some(self.at.line),
            param: Some(key.to_string()),
            message: format!("missing (required in the {})", self.describe()),
        })
    }

    fn int_or(&self, key: &str, default: i64) -> Result<i64> {
        self.get(key).map_or(Ok(default), Entry::int)
    }

    fn num_or(&self, key: &str, default: f64) -> Result<f64> {
        self.get(key).map_or(Ok(default), Entry::num)
    }

    fn count<T: TryFrom<i64>>(&self, key: &str) -> Result<T> {
        self.req(key)?.count()
    }

    fn time(&self, key: &str) -> Result<f64> {
        self.req(key)?.time()
    }

    /// A nested block whose type must be `ty`.
    fn block(&self, key: &str, ty: &str) -> Result<&Block> {
        let e = self.req(key)?;
        let b = e.block()?;
        if !b.ty.eq_ignore_ascii_case(ty) {
            return Err(e.err(format!("unsupported `{}` (only `{ty}` is)", b.ty)));
        }
        Ok(b)
    }
}

// ---------------------------------------------------------------------------
// Building the drive

fn build(file: &str, text: &str, files: &dyn Files) -> Result<HddSpec> {
    let blocks = Parser::new(file, text, files, 0).file_blocks()?;
    let disk = blocks
        .iter()
        .find(|b| b.ty.eq_ignore_ascii_case("disksim_disk"))
        .ok_or_else(|| DiskspecsError {
            file: file.to_string(),
            line: None,
            param: None,
            message: "no `disksim_disk` block".into(),
        })?;
    let model = disk.block("Model", "dm_disk")?;
    let layout = layout(model)?;
    let mech = model.block("Mechanical Model", "dm_mech_g1")?;
    let seek = seek_curve(mech, layout.cylinders(), files)?;
    let rpm = mech.req("Rotation speed (in rpms)")?;
    let rpm_value = rpm.num()?;
    if rpm_value <= 0.0 {
        return Err(rpm.err("must be positive".into()));
    }

    let scale = disk.num_or("Time scale for overheads", 1.0)?;
    let pair = |after_read: &str, after_write: &str| -> Result<[f64; 2]> {
        Ok([
            disk.time(after_read)? * scale,
            disk.time(after_write)? * scale,
        ])
    };
    let overheads = Overheads {
        read_hit: pair("Read hit over. after read", "Read hit over. after write")?,
        read_miss: pair("Read miss over. after read", "Read miss over. after write")?,
        write_hit: pair("Write hit over. after read", "Write hit over. after write")?,
        write_miss: pair(
            "Write miss over. after read",
            "Write miss over. after write",
        )?,
    };
    let segment: u64 = disk.count("Segment size (in blks)")?;
    let segments: usize = disk.count("Number of buffer segments")?;
    let caching = disk.int_or("Enable caching in buffer", 1)? != 0;
    let write_segments: u64 = disk.count("Maximum number of write segments")?;
    let read_ahead: u64 = disk.count("Maximum read-ahead (blks)")?;
    let cache = CacheSpec {
        segments: if caching { segments } else { 0 },
        segment_sectors: segment,
        read_ahead_sectors: read_ahead.min(segment),
        write_back: disk.req("Fast write level")?.int()? > 0,
        write_buffer_sectors: segment.saturating_mul(write_segments),
    };
    let max_queue: usize = disk.count("Max queue length")?;
    Ok(HddSpec {
        name: if disk.name.is_empty() {
            file.to_string()
        } else {
            disk.name.clone()
        },
        layout,
        seek,
        rpm: rpm_value,
        head_switch_ms: mech.time("Head switch time")?,
        write_settle_ms: mech.time("Add. write settling delay")?,
        overheads,
        bus_ms_per_sector: disk.time("Bulk sector transfer time")?,
        cache,
        max_queue: max_queue.max(1),
    })
}

/// A skew or offset in sectors: DiskSim truncates sector counts to whole
/// sectors; revolutions are rounded to the nearest sector.
fn sectors(e: &Entry, revolutions: bool, spt: u32) -> Result<u32> {
    let x = e.num()?;
    if x < 0.0 {
        return Err(e.err(format!(
            "negative values (DiskSim's \"compute it\" codes) are not supported ({x})"
        )));
    }
    let s = if revolutions {
        (x * f64::from(spt)).round()
    } else {
        x.trunc()
    };
    if s > f64::from(u32::MAX) {
        return Err(e.err(format!("{x} is out of range")));
    }
    Ok(s as u32)
}

fn skew_units(e: Option<&Entry>, default: bool) -> Result<bool> {
    let Some(e) = e else {
        return Ok(default);
    };
    match e.scalar()? {
        s if s.eq_ignore_ascii_case("sectors") => Ok(false),
        s if s.eq_ignore_ascii_case("revolutions") => Ok(true),
        s => Err(e.err(format!("expected `sectors` or `revolutions`, found `{s}`"))),
    }
}

fn layout(model: &Block) -> Result<Layout> {
    let surfaces = model.req("Number of data surfaces")?;
    let heads: u32 = surfaces.count()?;
    if heads == 0 {
        return Err(surfaces.err("must be positive".into()));
    }
    let cyl_entry = model.req("Number of cylinders")?;
    let cylinders: u32 = cyl_entry.count()?;
    let count_entry = model.req("Block count")?;
    let blocks: u64 = count_entry.count()?;
    if blocks == 0 {
        return Err(count_entry.err("must be positive".into()));
    }
    let g1 = model.block("Layout Model", "dm_layout_g1")?;
    let order = match g1.get("LBN-to-PBN mapping scheme") {
        None => SurfaceOrder::Normal,
        Some(e) => SurfaceOrder::from_disksim(e.int()?)
            .ok_or_else(|| e.err("unsupported mapping scheme (0, 1 and 2 are supported)".into()))?,
    };
    let scheme = g1.req("Sparing scheme used")?;
    let range = g1.int_or("Rangesize for sparing", 1)?;
    let sparing =
        Sparing::from_disksim(scheme.int()?, range).ok_or_else(|| match scheme.int() {
            Ok(8) => g1.get("Rangesize for sparing").map_or_else(
                || scheme.err("needs a positive \"Rangesize for sparing\"".into()),
                |e| e.err("must be positive".into()),
            ),
            Ok(s) => scheme.err(format!(
                "unsupported sparing scheme {s} (supported: 0, 2, 3, 4, 7, 8, 9, 10)"
            )),
            Err(e) => e,
        })?;
    let revolutions = skew_units(g1.get("Skew units"), false)?;
    let list = g1.req("Zones")?;
    let mut zones = Vec::new();
    let mut places = Vec::new();
    for (value, at) in list.list()? {
        let Value::Block(z) = value else {
            return Err(DiskspecsError {
                file: at.file.to_string(),
                line: Some(at.line),
                param: Some(list.key.clone()),
                message: "expected a `dm_layout_g1_zone { ... }` block".into(),
            });
        };
        zones.push(zone(z, revolutions)?);
        places.push(z.at.clone());
    }
    let layout = Layout::with_scheme(heads, zones, sparing, order).map_err(|e| {
        let zone = match e {
            LayoutError::Empty => None,
            LayoutError::BadZone(zone)
            | LayoutError::BadSpares { zone, .. }
            | LayoutError::BadEmptySpace { zone, .. }
            | LayoutError::BadSlip { zone, .. }
            | LayoutError::TooManySlips { zone, .. }
            | LayoutError::BadDefect { zone, .. } => places.get(zone),
        };
        let at = zone.unwrap_or(&list.at);
        DiskspecsError {
            file: at.file.to_string(),
            line: Some(at.line),
            param: Some(list.key.clone()),
            message: e.to_string(),
        }
    })?;
    if layout.cylinders() > cylinders {
        return Err(cyl_entry.err(format!(
            "the zones reach cylinder {}",
            layout.cylinders() - 1
        )));
    }
    Ok(layout.cap_capacity(blocks))
}

fn zone(z: &Block, revolutions: bool) -> Result<Zone> {
    let first: u32 = z.count("First cylinder number")?;
    let last: u32 = z.count("Last cylinder number")?;
    let spt_entry = z.req("Blocks per track")?;
    let spt: u32 = spt_entry.count()?;
    if spt == 0 {
        return Err(spt_entry.err("must be positive".into()));
    }
    let revolutions = skew_units(z.get("Skew units"), revolutions)?;
    let track_skew = sectors(z.req("Skew for track switch")?, revolutions, spt)?;
    let cyl_skew = sectors(z.req("Skew for cylinder switch")?, revolutions, spt)?;
    let offset = match z.get("Offset of first block") {
        Some(e) => sectors(e, revolutions, spt)? % spt,
        None => 0,
    };
    let empty: u64 = match z.get("Empty space at zone front") {
        Some(e) => e.count()?,
        None => 0,
    };
    let spares: u32 = match z.get("Number of spares") {
        Some(e) => e.count()?,
        None => 0,
    };
    let slips = match z.get("slips") {
        Some(e) => e.ints()?,
        None => Vec::new(),
    };
    let defects = match z.get("defects") {
        Some(e) => {
            let v = e.ints()?;
            if v.len() % 2 != 0 {
                return Err(
                    e.err("expected pairs `defective sector, spare sector`: odd count".into())
                );
            }
            v.chunks(2).map(|p| (p[0], p[1])).collect()
        }
        None => Vec::new(),
    };
    Ok(Zone::new(first, last, spt, track_skew, cyl_skew)
        .with_offset(offset)
        .with_empty_front(empty)
        .with_spares(spares)
        .with_slips(slips)
        .with_defects(defects))
}

fn seek_curve(mech: &Block, cylinders: u32, files: &dyn Files) -> Result<SeekCurve> {
    let kind = mech.req("Seek type")?;
    let max = cylinders.saturating_sub(1).max(1);
    match kind.scalar()?.to_ascii_lowercase().as_str() {
        "extracted" => {
            let e = mech.req("Full seek curve")?;
            let name = e.scalar()?;
            let (file, text) = files
                .open(&e.at.file, name)
                .map_err(|m| e.err(format!("cannot read the seek curve: {m}")))?;
            parse_seek_curve(&file, &text)
        }
        "curve" => Ok(SeekCurve::lee_from_datasheet(
            mech.time("Single cylinder seek time")?,
            mech.time("Average seek time")?,
            mech.time("Full strobe seek time")?,
            cylinders,
        )),
        "linear" => {
            // Straight lines through the single-cylinder, average (at a
            // third of the stroke) and full-stroke times.
            let mut points = vec![(1, mech.time("Single cylinder seek time")?)];
            for (d, key) in [
                (max / 3, "Average seek time"),
                (max, "Full strobe seek time"),
            ] {
                let t = mech.time(key)?;
                if points.last().is_some_and(|&(p, _)| d > p) {
                    points.push((d, t));
                }
            }
            Ok(SeekCurve::Table(points))
        }
        "constant" => Ok(SeekCurve::Table(vec![(
            1,
            mech.time("Constant seek time")?,
        )])),
        kind @ ("hpl" | "hplplus10") => {
            let e = mech.req("HPL seek equation values")?;
            let v = e.nums(6)?;
            let first10 = if kind == "hplplus10" {
                Some(mech.req("First ten seek times")?.nums(10)?)
            } else {
                None
            };
            Ok(hpl_table(&v, first10.as_deref(), max))
        }
        other => Err(kind.err(format!(
            "unsupported seek type `{other}` (extracted, curve, linear, constant, hpl, hplplus10)"
        ))),
    }
}

/// Ruemmler and Wilkes' seek equation as DiskSim evaluates it, sampled
/// densely enough for linear interpolation: `v[1] + v[2]*sqrt(d)` below the
/// division point `v[0]`, `v[3] + v[4]*d` from it on; `v[5]` (unless -1) is
/// the single-cylinder time; `first10` gives distances 1 to 10.
fn hpl_table(v: &[f64], first10: Option<&[f64]>, max: u32) -> SeekCurve {
    let t = |d: u32| -> f64 {
        let x = f64::from(d);
        let t = match first10 {
            Some(f) if d <= 10 => f[d as usize - 1],
            _ if d == 1 && v[5] != -1.0 => v[5],
            _ if x < v[0] => v[1] + v[2] * x.sqrt(),
            _ => v[3] + v[4] * x,
        };
        t.max(0.0)
    };
    let mut ds: Vec<u32> = (1..=max.min(2048)).collect();
    let mut x = 2048.0f64;
    while x < f64::from(max) {
        x *= 1.002;
        ds.push((x as u32).min(max));
    }
    ds.push(max);
    // Both sides of the division point.
    if v[0] >= 1.0 && v[0] <= f64::from(max) {
        let s = v[0].ceil() as u32;
        ds.extend([s, s.saturating_sub(1).max(1)]);
    }
    ds.sort_unstable();
    ds.dedup();
    let points = ds.into_iter().map(|d| (d, t(d))).collect();
    SeekCurve::Table(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ibm() -> HddSpec {
        load_embedded("ibm18es").expect("ibm18es loads")
    }

    fn barracuda() -> HddSpec {
        load_embedded("barracuda").expect("barracuda loads")
    }

    fn data_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/disksim")
    }

    /// Parse `diskspecs` with the other embedded files available, and with
    /// `extra` files overriding them.
    fn parse_with(diskspecs: &str, extra: &[(&str, &str)]) -> Result<HddSpec> {
        let extra: Vec<(String, String)> = extra
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        parse_str("x.diskspecs", diskspecs, move |name| {
            extra
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())
                .or_else(|| embedded(name).map(str::to_string))
        })
    }

    fn ibm_text() -> &'static str {
        embedded("ibm18es.diskspecs").unwrap()
    }

    #[test]
    fn ibm18es_loads_with_its_figures() {
        let s = ibm();
        assert_eq!(s.name, "IBM_DNES-309170W_validate");
        assert_eq!(s.layout.heads(), 5);
        assert_eq!(s.layout.cylinders(), 11474);
        assert_eq!(s.layout.zones().len(), 55);
        assert_eq!(s.layout.sparing(), Sparing::AtEnd);
        assert_eq!(s.rpm, 7200.0);
        assert_eq!(s.bus_ms_per_sector, 0.101);
        assert_eq!((s.cache.segments, s.cache.segment_sectors), (7, 511));
        assert_eq!(s.cache.read_ahead_sectors, 511);
        assert!(s.cache.write_back);
        assert_eq!(s.cache.write_buffer_sectors, 511);
        assert_eq!(s.overheads.read_miss, [0.25229, 0.42386]);
        assert_eq!(s.overheads.read_hit, [0.082, 0.121]);
        assert_eq!(s.overheads.write_hit, [0.083, 0.1852]);
        assert_eq!(s.overheads.write_miss, [0.49386, 0.79329]);
        assert_eq!(s.head_switch_ms, 0.062);
        assert_eq!(s.write_settle_ms, 0.126);
        assert_eq!(s.max_queue, 1);
        let SeekCurve::Table(points) = &s.seek else {
            panic!("extracted seek curve expected");
        };
        assert_eq!(points.len(), 151);
        assert_eq!(points[0], (1, 1.062));
        assert_eq!(points[150], (11377, 12.853));
        let z0 = &s.layout.zones()[0];
        assert_eq!((z0.first_cyl, z0.last_cyl, z0.spt), (0, 256, 390));
        assert_eq!(
            (z0.track_skew, z0.cyl_skew, z0.empty_front),
            (58, 101, 1950)
        );
        assert_eq!(z0.slips, vec![199078, 346029, 384777]);
    }

    #[test]
    fn barracuda_loads_with_its_figures() {
        let s = barracuda();
        assert_eq!(s.layout.heads(), 5);
        assert_eq!(s.layout.cylinders(), 5172);
        assert_eq!(s.layout.sparing(), Sparing::PerRange(6));
        assert_eq!(s.bus_ms_per_sector, 0.134);
        assert_eq!((s.cache.segments, s.cache.segment_sectors), (3, 281));
        assert_eq!(s.overheads.write_hit, [1.01, 0.9291]);
        assert_eq!((s.head_switch_ms, s.write_settle_ms), (0.1, 0.0));
        assert!(matches!(&s.seek, SeekCurve::Table(p) if p.len() == 87));
        assert_eq!(s.layout.zones()[0].spares, 88);
    }

    #[test]
    fn data_file_layouts_give_their_block_counts() {
        let (i, b) = (ibm(), barracuda());
        assert_eq!(i.layout.capacity(), 17_916_240);
        assert_eq!(b.layout.capacity(), 4_110_000);
        // What the zones hold by DiskSim's own count (it ignores "Block
        // count" and uses this).
        assert_eq!(i.layout.mapped_capacity(), 18_033_753);
        assert_eq!(b.layout.mapped_capacity(), 4_217_670);
    }

    #[test]
    fn ibm18es_first_cylinder_is_empty_space() {
        // "Empty space at zone front = 1950" = the 5 tracks of cylinder 0.
        let l = ibm().layout;
        let a = l.locate(0);
        // Cylinder 1: 4 head switches of 58 and one cylinder switch of 101.
        assert_eq!((a.cyl, a.head, a.slot, a.left_on_track), (1, 0, 333, 390));
    }

    #[test]
    fn ibm18es_slips_shift_the_rest_of_their_zone() {
        let l = ibm().layout;
        // Zone 0's first slip is physical sector 199078: logical 197128
        // would sit there (1950 empty slots before it), so the run before
        // it ends, and logical 197128 moves to sector 199079.
        let p = 199_078u64;
        let (track, sector) = (p / 390, p % 390);
        let before = l.locate(197_127);
        assert_eq!(before.left_on_track, 1);
        assert_eq!(u64::from(before.cyl), track / 5);
        let after = l.locate(197_128);
        assert_eq!(after.slot, (before.slot + 2) % 390);
        assert_eq!(u64::from(after.left_on_track), 390 - (sector + 1));
        // Zone 1 (cylinders 258-377) is not shifted: cylinder 257 is in no
        // zone.
        let z1 = &l.zones()[1];
        assert_eq!(z1.first_lbn, 257 * 5 * 390 - 1950 - 3);
        let a = l.locate(z1.first_lbn);
        assert_eq!((a.cyl, a.head, a.slot), (258, 0, 0));
        assert_eq!(l.locate(z1.first_lbn - 1).cyl, 256);
    }

    #[test]
    fn barracuda_ranges_end_in_spares() {
        let l = barracuda().layout;
        // Zone 0: ranges of 6 cylinders of 5 x 186 sectors, 88 spares each.
        let per_range = 6 * 5 * 186 - 88;
        let last = l.locate(per_range - 1);
        assert_eq!((last.cyl, last.head, last.left_on_track), (5, 4, 1));
        assert_eq!(last.slot, (24 * 37 + 5 * 52 + 97) % 186);
        let next = l.locate(per_range);
        assert_eq!((next.cyl, next.head), (6, 0));
        // Slip 112508 is in range 20 (sectors 111600..), offset 908.
        let lbn = 20 * per_range + 908;
        assert_eq!(l.locate(lbn - 1).left_on_track, 1);
        let a = l.locate(lbn);
        assert_eq!(a.slot, (l.locate(lbn - 1).slot + 2) % 186);
    }

    #[test]
    fn file_system_loading_follows_includes() {
        let spec = load(&data_dir().join("ibm18es.diskspecs")).unwrap();
        assert_eq!(spec, ibm());
        let spec = load(&data_dir().join("barracuda.diskspecs")).unwrap();
        assert_eq!(spec, barracuda());
        let e = load(&data_dir().join("nope.diskspecs")).unwrap_err();
        assert!(e.to_string().contains("nope.diskspecs: cannot read"), "{e}");
        assert!(load_embedded("nope").is_none());
    }

    #[test]
    fn errors_name_file_line_and_parameter() {
        let text = ibm_text().replace(
            "Number of buffer segments = 7",
            "Number of buffer segments = seven",
        );
        let e = parse_with(&text, &[]).unwrap_err();
        let line = ibm_text()
            .lines()
            .position(|l| l.contains("Number of buffer segments"))
            .unwrap()
            + 1;
        assert_eq!(
            e.to_string(),
            format!(
                "x.diskspecs: line {line}: \"Number of buffer segments\": expected an integer, found `seven`"
            )
        );
        // Errors inside the model name the model file.
        let model = embedded("ibm18es.model")
            .unwrap()
            .replace("Head switch time = 0.062000,", "");
        let e = parse_with(ibm_text(), &[("ibm18es.model", &model)]).unwrap_err();
        assert_eq!(e.file, "ibm18es.model");
        assert_eq!(e.param.as_deref(), Some("Head switch time"));
        assert!(e.to_string().contains("missing"), "{e}");
        assert!(!e.to_string().contains('\n'));
    }

    #[test]
    fn missing_required_parameters_are_named() {
        for key in [
            "Bulk sector transfer time",
            "Max queue length",
            "Read miss over. after write",
            "Segment size (in blks)",
        ] {
            let text: String = ibm_text()
                .lines()
                .filter(|l| !l.contains(key))
                .collect::<Vec<_>>()
                .join("\n");
            let e = parse_with(&text, &[]).unwrap_err();
            assert_eq!(e.param.as_deref(), Some(key), "{e}");
            assert_eq!(e.line, Some(1), "{e}");
        }
    }

    #[test]
    fn malformed_inputs_are_errors_not_panics() {
        let cases: &[(&str, &str)] = &[
            ("", "no `disksim_disk` block"),
            ("disksim_disk X {", "not closed"),
            ("disksim_disk X { Model }", "expected `Name = value`"),
            ("disksim_disk X { Model = }", "missing value"),
            ("disksim_disk X { Model = [1, 2 }", "expected `,` or `]`"),
            ("disksim_disk X { = 3 }", "missing parameter name"),
            ("} oops", "expected a block"),
            (
                "disksim_disk X { Model = source nowhere.model }",
                "cannot read",
            ),
            ("disksim_disk X { Model = 3 }", "expected a block"),
            (
                "disksim_disk X { Model = other { } }",
                "unsupported `other`",
            ),
            ("disksim_disk X { a = 1 b = 2 }", "expected `,`"),
            (
                "disksim_disk X { Model = source loop.model }",
                "nest too deeply",
            ),
        ];
        for (text, want) in cases {
            let e = parse_str("x.diskspecs", text, |name| {
                (name == "loop.model").then(|| "dm_disk M { a = source loop.model }".to_string())
            })
            .unwrap_err();
            assert!(e.to_string().contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn bad_model_values_are_errors() {
        let model = embedded("ibm18es.model").unwrap();
        let cases: &[(&str, &str, &str)] = &[
            (
                "Sparing scheme used = 7",
                "Sparing scheme used = 5",
                "unsupported sparing scheme 5",
            ),
            (
                "Number of data surfaces = 5",
                "Number of data surfaces = 0",
                "must be positive",
            ),
            (
                "Number of cylinders = 11474",
                "Number of cylinders = 100",
                "the zones reach",
            ),
            (
                "Blocks per track = 390",
                "Blocks per track = -390",
                "out of range",
            ),
            (
                "Last cylinder number = 256",
                "Last cylinder number = 300",
                "must ascend",
            ),
            (
                "slips = [\n               199078",
                "slips = [\n               99999999",
                "outside",
            ),
            ("defects = []", "defects = [1]", "odd count"),
            (
                "Seek type = extracted",
                "Seek type = magic",
                "unsupported seek type",
            ),
            (
                "Full seek curve = ibm18es.seek",
                "Full seek curve = none.seek",
                "cannot read",
            ),
            (
                "Skew for track switch = 58.000000",
                "Skew for track switch = -1",
                "not supported",
            ),
        ];
        for (from, to, want) in cases {
            assert!(model.contains(from), "{from}");
            let m = model.replacen(from, to, 1);
            let e = parse_with(ibm_text(), &[("ibm18es.model", &m)]).unwrap_err();
            assert!(e.to_string().contains(want), "{to}: {e}");
            assert!(e.line.is_some(), "{e}");
        }
    }

    #[test]
    fn bad_seek_files_are_errors() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("Seek points: 3\n1, 1.0\n", "Seek distances measured"),
            (
                "Seek distances measured: 3\n1, 1.0\n2, 2.0\n",
                "announces 3",
            ),
            (
                "Seek distances measured: 2\n1, 1.0\n1, 2.0\n",
                "does not ascend",
            ),
            (
                "Seek distances measured: 2\n1, 1.0\nx, 2.0\n",
                "expected `distance",
            ),
            (
                "Seek distances measured: 1\n1, -1.0\n",
                "expected `distance",
            ),
        ];
        for (text, want) in cases {
            let e = parse_seek_curve("s.seek", text).unwrap_err();
            assert!(e.to_string().starts_with("s.seek: line "), "{e}");
            assert!(e.to_string().contains(want), "{text:?}: {e}");
        }
        let ok = parse_seek_curve(
            "s.seek",
            "Seek distances measured: 2\n1,\t1.5\n10,\t2.5\n\n",
        );
        assert_eq!(ok, Ok(SeekCurve::Table(vec![(1, 1.5), (10, 2.5)])));
    }

    #[test]
    fn truncated_files_never_panic() {
        let text = ibm_text();
        for cut in (0..text.len()).step_by(7) {
            let _ = parse_with(&text[..cut], &[]);
        }
        let model = embedded("barracuda.model").unwrap();
        let spec = embedded("barracuda.diskspecs").unwrap();
        for cut in (0..model.len()).step_by(23) {
            let _ = parse_with(spec, &[("barracuda.model", &model[..cut])]);
        }
        let seek = embedded("barracuda.seek").unwrap();
        for cut in 0..seek.len() {
            let _ = parse_with(spec, &[("barracuda.seek", &seek[..cut])]);
        }
    }

    #[test]
    fn syntax_is_tolerant() {
        // Comments, missing commas at line ends, case and spacing in names,
        // integers written as decimals.
        let text = ibm_text()
            .replace(
                "Max queue length = 1,",
                "max   QUEUE length = 4.000 # tagged\n",
            )
            .replace("Fast write level = 2,", "Fast write level = 0");
        let s = parse_with(&text, &[]).unwrap();
        assert_eq!(s.max_queue, 4);
        assert!(!s.cache.write_back);
    }

    #[test]
    fn formula_seek_types() {
        let model = embedded("ibm18es.model").unwrap();
        let with = |seek: &str| {
            let m = model.replace(
                "Seek type = extracted,",
                &format!("Seek type = {seek},\nAverage seek time = 6.0,\nConstant seek time = 3.0,\nHPL seek equation values = [ 600, 1.5, 0.2, 4.0, 0.0007, 1.1 ],\nFirst ten seek times = [1,2,3,4,5,6,7,8,9,10],"),
            );
            parse_with(ibm_text(), &[("ibm18es.model", &m)])
                .unwrap()
                .seek
        };
        let curve = with("curve");
        assert!((curve.ms(1) - 1.086).abs() < 1e-9);
        assert!((curve.ms(11474) - 12.742).abs() < 0.01);
        let linear = with("linear");
        assert_eq!(linear.ms(1), 1.086);
        assert_eq!(linear.ms(11473), 12.742);
        assert_eq!(with("constant").ms(5000), 3.0);
        let hpl = with("hpl");
        assert_eq!(hpl.ms(1), 1.1);
        assert!((hpl.ms(400) - (1.5 + 0.2 * 20.0)).abs() < 1e-9);
        assert!((hpl.ms(9000) - (4.0 + 0.0007 * 9000.0)).abs() < 0.01);
        assert_eq!(with("hplplus10").ms(7), 7.0);
    }
}
