//! DiskSim's parameter syntax (libparam) read into blocks, with typed
//! access to their parameters; and DiskSim's seek-curve files. Nothing here
//! knows what the parameters mean for a drive.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use sluice_input::Kind;

use crate::{Error, Result};

mod seek_curve;
pub(super) use seek_curve::seek_points;

/// Where included files come from.
pub(super) trait Files {
    /// The text of `name` (a `kind` file) as named in file `from`, and the
    /// name to report it by.
    fn open(
        &self,
        from: &str,
        name: &str,
        kind: Kind,
    ) -> std::result::Result<(String, String), String>;
}

/// The blocks of file `file`, whose text is `text`, with the files it
/// includes (`source X`) read through `files`.
pub(super) fn parse(file: &str, text: &str, files: &dyn Files) -> Result<Vec<Block>> {
    let shared = Shared {
        files,
        read: RefCell::default(),
        bytes: Cell::new(text.len()),
        nodes: Cell::new(0),
    };
    Parser::new(file, text, &shared, 0, 0).file_blocks()
}

// ---------------------------------------------------------------------------
// Syntax tree and parser

/// Where a block, entry or list item starts.
#[derive(Clone, Debug)]
pub(super) struct Pos {
    pub(super) file: Arc<str>,
    pub(super) line: usize,
}

impl Pos {
    /// An error here, about parameter `key` when there is one.
    pub(super) fn error(&self, key: Option<&str>, message: String) -> Error {
        let e = Error::new(&*self.file, message).at_line(self.line);
        match key {
            Some(key) => e.key(key),
            None => e,
        }
    }
}

/// A parameter's value.
#[derive(Clone, Debug)]
pub(super) enum Value {
    Scalar(String),
    List(Vec<(Value, Pos)>),
    Block(Block),
}

/// One `Key = value` of a block.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub(super) key: String,
    pub(super) value: Value,
    pub(super) at: Pos,
}

/// A block `typename Name { ... }`.
#[derive(Clone, Debug)]
pub(super) struct Block {
    pub(super) ty: String,
    pub(super) name: String,
    pub(super) at: Pos,
    entries: Vec<Entry>,
}

impl Block {
    /// The entries in file order.
    pub(super) fn entries(&self) -> &[Entry] {
        &self.entries
    }
}

/// Includes nest at most this deep (a cycle would not end).
const MAX_DEPTH: usize = 16;

/// Lists and blocks nest at most this deep, across includes: the parser
/// recurses once a level, and 20,000 `[` overflowed its stack. DiskSim's
/// own descriptions nest four deep.
pub(super) const MAX_NESTING: usize = 64;

/// The text parsed in all, an included file counted each time it is
/// included. Includes nest and repeat, so a few small files can expand
/// exponentially (15 files each sourcing the next ten times is 10^14
/// copies); a real description and its includes are some 100 KB.
pub(super) const MAX_EXPANDED_BYTES: usize = 64 << 20;

/// Parameters and list items in all, includes expanded: the tree held in
/// memory (some 200 bytes a node, so at most some 50 MB). A real drive
/// has a few thousand.
pub(super) const MAX_NODES: usize = 250_000;

/// An included file: the name to report it by and its text, or why it
/// cannot be read.
type Opened = std::result::Result<(String, Rc<str>), String>;

/// What the parsers of one description and its includes share: the files
/// (each read once) and the expansion budget.
struct Shared<'a> {
    files: &'a dyn Files,
    /// Included files by includer and name.
    read: RefCell<HashMap<(Arc<str>, String), Opened>>,
    /// Text parsed so far, includes counted each time.
    bytes: Cell<usize>,
    /// Nodes made so far.
    nodes: Cell<usize>,
}

/// How deep a `.parv` topology may nest (driver, bus, controller, bus,
/// disk is 5).
const MAX_TOPOLOGY_DEPTH: usize = 64;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    file: Arc<str>,
    shared: &'a Shared<'a>,
    /// How deep in includes.
    depth: usize,
    /// How deep in lists and blocks, counting the includers'.
    nest: usize,
}

fn is_eol(c: u8) -> bool {
    c == b'\n' || c == b'\r'
}

fn is_delim(c: u8) -> bool {
    matches!(c, b'{' | b'}' | b'[' | b']' | b',' | b'=' | b'#')
}

impl<'a> Parser<'a> {
    fn new(file: &str, text: &'a str, shared: &'a Shared<'a>, depth: usize, nest: usize) -> Self {
        Parser {
            text,
            pos: 0,
            line: 1,
            file: Arc::from(file),
            shared,
            depth,
            nest,
        }
    }

    /// One level deeper in lists and blocks, or an error past
    /// [`MAX_NESTING`].
    fn enter(&mut self, key: Option<&str>) -> Result<()> {
        self.nest += 1;
        if self.nest > MAX_NESTING {
            return Err(self.err(
                key,
                format!("lists and blocks nest more than {MAX_NESTING} deep"),
            ));
        }
        Ok(())
    }

    /// One more parameter or list item, or an error past [`MAX_NODES`].
    fn node(&self, key: &str) -> Result<()> {
        let n = self.shared.nodes.get() + 1;
        self.shared.nodes.set(n);
        if n > MAX_NODES {
            return Err(self.err(
                Some(key),
                format!(
                    "the description, its includes expanded, holds more than {MAX_NODES} parameters and list items"
                ),
            ));
        }
        Ok(())
    }

    fn at(&self) -> Pos {
        Pos {
            file: self.file.clone(),
            line: self.line,
        }
    }

    fn err(&self, param: Option<&str>, message: String) -> Error {
        self.at().error(param, message)
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Past one byte; `\n`, `\r\n` and a lone `\r` end a line.
    fn bump(&mut self) {
        let b = self.text.as_bytes();
        match self.peek() {
            Some(b'\n') => self.line += 1,
            Some(b'\r') if b.get(self.pos + 1) != Some(&b'\n') => self.line += 1,
            _ => {}
        }
        self.pos += 1;
    }

    /// Skip white space and comments.
    fn skip(&mut self) {
        while let Some(c) = self.peek() {
            if c == b'#' {
                while self.peek().is_some_and(|c| !is_eol(c)) {
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
            if ty == "instantiate" {
                blocks.push(self.instantiate(at)?);
                continue;
            }
            if ty == "topology" {
                let node = self.topology_node(at.clone(), 0)?;
                blocks.push(Block {
                    ty,
                    name: String::new(),
                    at: at.clone(),
                    entries: vec![Entry {
                        key: "node".into(),
                        value: Value::Block(node),
                        at,
                    }],
                });
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

    /// A `.parv` statement `instantiate [ a, b ] as TEMPLATE` (after its
    /// keyword): a block of type `instantiate` named `TEMPLATE` whose
    /// `names` entry lists the instances.
    fn instantiate(&mut self, at: Pos) -> Result<Block> {
        self.skip();
        if self.peek() != Some(b'[') {
            return Err(self.err(None, "`instantiate` needs `[ names ] as template`".into()));
        }
        let list_at = self.at();
        let Value::List(names) = self.value("instantiate")? else {
            unreachable!("a value that opens with `[` is a list")
        };
        self.skip();
        if self.word() != "as" {
            return Err(self.err(None, "`instantiate [ names ]` needs `as template`".into()));
        }
        self.skip();
        let template = self.word().to_string();
        if template.is_empty() {
            return Err(self.err(None, "`instantiate ... as` needs a template name".into()));
        }
        Ok(Block {
            ty: "instantiate".into(),
            name: template,
            at,
            entries: vec![Entry {
                key: "names".into(),
                value: Value::List(names),
                at: list_at,
            }],
        })
    }

    /// One node of a `.parv` `topology`: `type name [ children ]`, read as
    /// a block of that type and name whose entries (`node`) are its
    /// children.
    fn topology_node(&mut self, at: Pos, level: usize) -> Result<Block> {
        if level >= MAX_TOPOLOGY_DEPTH {
            return Err(self.err(None, "the topology nests too deeply".into()));
        }
        self.skip();
        let ty = self.word().to_string();
        self.skip();
        let name = self.word().to_string();
        self.skip();
        if ty.is_empty() || name.is_empty() || self.peek() != Some(b'[') {
            return Err(self.err(None, "expected a topology node `type name [ ... ]`".into()));
        }
        self.bump();
        let unclosed = || format!("topology node `{name}` is not closed with `]`");
        let entries = self.entries_until(b']', unclosed, |p| {
            let at = p.at();
            let child = p.topology_node(at.clone(), level + 1)?;
            Ok(Entry {
                key: "node".into(),
                value: Value::Block(child),
                at,
            })
        })?;
        Ok(Block {
            ty,
            name,
            at,
            entries,
        })
    }

    /// The blocks of an included file.
    fn include(&mut self, name: &str, param: Option<&str>) -> Result<Vec<Block>> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(
                param,
                format!("`source {name}`: includes nest too deeply (a cycle?)"),
            ));
        }
        let shared = self.shared;
        let opened = shared
            .read
            .borrow_mut()
            .entry((self.file.clone(), name.to_string()))
            .or_insert_with(|| {
                shared
                    .files
                    .open(&self.file, name, Kind::Include)
                    .map(|(file, text)| (file, Rc::from(text)))
            })
            .clone();
        let (file, text) =
            opened.map_err(|e| self.err(param, format!("cannot read `source {name}`: {e}")))?;
        let bytes = shared.bytes.get().saturating_add(text.len());
        shared.bytes.set(bytes);
        if bytes > MAX_EXPANDED_BYTES {
            return Err(self.err(
                param,
                format!(
                    "`source {name}`: the includes expand to more than {} MiB of text in all (each included file counted each time it is included)",
                    MAX_EXPANDED_BYTES >> 20
                ),
            ));
        }
        Parser::new(&file, &text, shared, self.depth + 1, self.nest).file_blocks()
    }

    /// A block's entries, after its `{`, through its `}`.
    fn body(&mut self, ty: String, name: String, at: Pos) -> Result<Block> {
        self.enter(None)?;
        let unclosed = || {
            format!(
                "block `{ty} {name}` opened at line {} is not closed with `}}`",
                at.line
            )
        };
        let entries = self.entries_until(b'}', unclosed, |p| {
            let at = p.at();
            let key = normalize(p.take_until(|c| is_delim(c) || is_eol(c)));
            if p.peek() != Some(b'=') {
                return Err(p.err(
                    (!key.is_empty()).then_some(key.as_str()),
                    "expected `Name = value`".into(),
                ));
            }
            if key.is_empty() {
                return Err(p.err(None, "missing parameter name before `=`".into()));
            }
            p.bump();
            p.node(&key)?;
            let value = p.value(&key)?;
            p.separator(b'}')?;
            Ok(Entry { key, value, at })
        })?;
        self.nest -= 1;
        Ok(Block {
            ty,
            name,
            at,
            entries,
        })
    }

    /// A block's comma-separated entries, each read by `entry` from its
    /// first character, through the `close` bracket; `unclosed` says what
    /// is wrong when the text ends first.
    fn entries_until(
        &mut self,
        close: u8,
        unclosed: impl FnOnce() -> String,
        mut entry: impl FnMut(&mut Self) -> Result<Entry>,
    ) -> Result<Vec<Entry>> {
        let mut entries = Vec::new();
        loop {
            self.skip();
            match self.peek() {
                None => return Err(self.err(None, unclosed())),
                Some(c) if c == close => {
                    self.bump();
                    return Ok(entries);
                }
                Some(b',') => self.bump(),
                Some(_) => entries.push(entry(self)?),
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
                self.enter(Some(key))?;
                let mut items = Vec::new();
                loop {
                    self.skip();
                    match self.peek() {
                        None => {
                            return Err(self.err(Some(key), "list is not closed with `]`".into()))
                        }
                        Some(b']') => {
                            self.bump();
                            self.nest -= 1;
                            return Ok(Value::List(items));
                        }
                        Some(b',') => self.bump(),
                        Some(_) => {
                            let at = self.at();
                            self.node(key)?;
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
                    .take_until(|c| is_delim(c) || is_eol(c))
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
    pub(super) fn err(&self, message: String) -> Error {
        self.at.error(Some(&self.key), message)
    }

    pub(super) fn scalar(&self) -> Result<&str> {
        match &self.value {
            Value::Scalar(s) => Ok(s),
            Value::List(_) => Err(self.err("expected a single value, found a list".into())),
            Value::Block(_) => Err(self.err("expected a single value, found a block".into())),
        }
    }

    pub(super) fn int(&self) -> Result<i64> {
        let s = self.scalar()?;
        parse_int(s).ok_or_else(|| self.err(format!("expected an integer, found `{s}`")))
    }

    pub(super) fn num(&self) -> Result<f64> {
        let s = self.scalar()?;
        s.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| self.err(format!("expected a number, found `{s}`")))
    }

    /// A non-negative integer that fits `T`.
    pub(super) fn count<T: TryFrom<i64>>(&self) -> Result<T> {
        let i = self.int()?;
        T::try_from(i)
            .ok()
            .filter(|_| i >= 0)
            .ok_or_else(|| self.err(format!("{i} is out of range")))
    }

    pub(super) fn time(&self) -> Result<f64> {
        let x = self.num()?;
        if x < 0.0 {
            return Err(self.err(format!("a time cannot be negative ({x})")));
        }
        Ok(x)
    }

    pub(super) fn block(&self) -> Result<&Block> {
        match &self.value {
            Value::Block(b) => Ok(b),
            _ => Err(self.err("expected a block `type { ... }`".into())),
        }
    }

    pub(super) fn list(&self) -> Result<&[(Value, Pos)]> {
        match &self.value {
            Value::List(items) => Ok(items),
            _ => Err(self.err("expected a list `[ ... ]`".into())),
        }
    }

    /// A list of non-negative integers.
    pub(super) fn ints(&self) -> Result<Vec<u64>> {
        self.list()?
            .iter()
            .map(|(v, at)| {
                let bad = |s: &str| {
                    at.error(
                        Some(&self.key),
                        format!("expected a non-negative integer, found `{s}`"),
                    )
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
    pub(super) fn nums(&self, len: usize) -> Result<Vec<f64>> {
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
                .ok_or_else(|| at.error(Some(&self.key), "expected a number".into()))
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

    pub(super) fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().rev().find(|e| same_key(&e.key, key))
    }

    pub(super) fn req(&self, key: &str) -> Result<&Entry> {
        self.get(key).ok_or_else(|| {
            self.at.error(
                Some(key),
                format!("missing (required in the {})", self.describe()),
            )
        })
    }

    pub(super) fn int_or(&self, key: &str, default: i64) -> Result<i64> {
        self.get(key).map_or(Ok(default), Entry::int)
    }

    pub(super) fn num_or(&self, key: &str, default: f64) -> Result<f64> {
        self.get(key).map_or(Ok(default), Entry::num)
    }

    pub(super) fn time_or(&self, key: &str, default: f64) -> Result<f64> {
        self.get(key).map_or(Ok(default), Entry::time)
    }

    pub(super) fn count<T: TryFrom<i64>>(&self, key: &str) -> Result<T> {
        self.req(key)?.count()
    }

    pub(super) fn time(&self, key: &str) -> Result<f64> {
        self.req(key)?.time()
    }

    /// A nested block whose type must be `ty`.
    pub(super) fn block(&self, key: &str, ty: &str) -> Result<&Block> {
        let e = self.req(key)?;
        let b = e.block()?;
        if !b.ty.eq_ignore_ascii_case(ty) {
            return Err(e.err(format!("unsupported `{}` (only `{ty}` is)", b.ty)));
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests;
