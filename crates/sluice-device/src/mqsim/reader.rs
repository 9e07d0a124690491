//! Walks the XML of an MQSim device configuration (quick-xml events) into
//! an [`SsdConfig`], strictly: an element MQSim's sets do not have, one
//! given twice, a value that does not read, text or attributes where
//! MQSim's format has none, and malformed XML are each a one-line error
//! with the line, where MQSim ignores the first three silently. Nesting is
//! bounded by the format itself (four levels), since any other element is
//! refused as soon as it opens.

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::Reader;

use super::config::{DeviceParameters, FlashParameters, HostParameters};
use super::SsdConfig;
use crate::{Error, Result};

/// The root element of a device configuration.
const ROOT: &str = "Execution_Parameter_Set";

/// The longest piece of a file an error quotes, in characters.
const QUOTE_CHARS: usize = 40;

/// An element that holds other elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Set {
    Root,
    Host,
    Device,
    Flash,
}

impl Set {
    fn element(self) -> &'static str {
        match self {
            Set::Root => ROOT,
            Set::Host => HostParameters::ELEMENT,
            Set::Device => DeviceParameters::ELEMENT,
            Set::Flash => FlashParameters::ELEMENT,
        }
    }

    /// The sets that may open inside this one.
    fn children(self) -> &'static [Set] {
        match self {
            Set::Root => &[Set::Host, Set::Device],
            Set::Device => &[Set::Flash],
            Set::Host | Set::Flash => &[],
        }
    }

    /// This set's value elements.
    fn values(self) -> &'static [&'static str] {
        match self {
            Set::Root => &[],
            Set::Host => HostParameters::ELEMENTS,
            Set::Device => DeviceParameters::ELEMENTS,
            Set::Flash => FlashParameters::ELEMENTS,
        }
    }
}

/// A value element being read: its name, its set, its line and its text.
struct Value {
    element: &'static str,
    set: Set,
    line: usize,
    text: String,
}

/// What the walk has read so far.
struct Walk<'a> {
    file: &'a str,
    lines: LineCounter<'a>,
    /// The sets open, innermost last, with the line each opened at.
    open: Vec<(Set, usize)>,
    /// The value element open, if any.
    value: Option<Value>,
    /// Every element read, with its set and line (duplicates are refused).
    seen: Vec<(Set, &'static str, usize)>,
    /// The line of the root element, once it opens.
    root_line: Option<usize>,
    root_closed: bool,
    config: SsdConfig,
}

/// Read the configuration `text` (named `file` in errors).
pub(crate) fn read(file: &str, text: &str) -> Result<SsdConfig> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = Reader::from_str(text);
    let mut walk = Walk {
        file,
        lines: LineCounter::new(text),
        open: Vec::new(),
        value: None,
        seen: Vec::new(),
        root_line: None,
        root_closed: false,
        config: SsdConfig {
            host: HostParameters::default(),
            device: DeviceParameters::default(),
            flash: FlashParameters::default(),
            defaulted: Vec::new(),
        },
    };
    loop {
        let at = walk.lines.line_at(reader.buffer_position());
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                let line = walk.lines.line_at(reader.error_position());
                return Err(walk.error(line, format!("malformed XML: {e}")));
            }
        };
        match event {
            Event::Start(e) => walk.start(&e, at, false)?,
            Event::Empty(e) => walk.start(&e, at, true)?,
            Event::End(_) => walk.end(at)?,
            Event::Text(t) => walk.text(&t.xml10_content(), at)?,
            Event::CData(t) => walk.text(&t.xml10_content(), at)?,
            Event::GeneralRef(r) => walk.reference(&r, at)?,
            Event::DocType(_) => {
                return Err(walk.error(at, "a DOCTYPE is not part of MQSim's format".into()))
            }
            Event::Decl(_) | Event::Comment(_) | Event::PI(_) => {}
            Event::Eof => return walk.finish(),
        }
    }
}

impl Walk<'_> {
    fn error(&self, line: usize, message: String) -> Error {
        Error::new(self.file, message).at_line(line)
    }

    /// An element opens (`empty`: and closes, `<X/>`).
    fn start(&mut self, e: &BytesStart<'_>, line: usize, empty: bool) -> Result<()> {
        let qname = e.name();
        let name: &str = qname.as_ref();
        if !e.attributes_raw().trim().is_empty() {
            return Err(self.error(
                line,
                format!("<{}> has attributes; MQSim's format has none", quote(name)),
            ));
        }
        if let Some(v) = &self.value {
            return Err(self.error(
                line,
                format!(
                    "element <{}> inside <{}>, which holds a value",
                    quote(name),
                    v.element
                ),
            ));
        }
        let Some(&(set, _)) = self.open.last() else {
            return self.open_root(name, line, empty);
        };
        if let Some(&child) = set.children().iter().find(|c| c.element() == name) {
            self.mark_seen(set, child.element(), line)?;
            if !empty {
                self.open.push((child, line));
            }
            return Ok(());
        }
        let wanted = match set {
            Set::Device => DeviceParameters::canonical(name),
            _ => name,
        };
        let Some(&element) = set.values().iter().find(|v| **v == wanted) else {
            return Err(self.error(
                line,
                format!("unknown element <{}> in <{}>", quote(name), set.element()),
            ));
        };
        self.mark_seen(set, element, line)?;
        self.value = Some(Value {
            element,
            set,
            line,
            text: String::new(),
        });
        if empty {
            self.end(line)?;
        }
        Ok(())
    }

    fn open_root(&mut self, name: &str, line: usize, empty: bool) -> Result<()> {
        if self.root_closed {
            return Err(self.error(line, format!("element <{}> after </{ROOT}>", quote(name))));
        }
        if name != ROOT {
            return Err(self.error(
                line,
                format!(
                    "the root element is <{}>, not <{ROOT}>: not an MQSim device configuration",
                    quote(name)
                ),
            ));
        }
        self.root_line = Some(line);
        if empty {
            self.root_closed = true;
        } else {
            self.open.push((Set::Root, line));
        }
        Ok(())
    }

    /// Note an element of `set`, refusing one the set already has.
    fn mark_seen(&mut self, set: Set, element: &'static str, line: usize) -> Result<()> {
        if let Some(first) = self.seen_at(set, element) {
            let message = format!(
                "<{element}> given twice in <{}> (first at line {first})",
                set.element()
            );
            return Err(self.error(line, message));
        }
        self.seen.push((set, element, line));
        Ok(())
    }

    /// The line where `set` had `element`, if it has.
    fn seen_at(&self, set: Set, element: &str) -> Option<usize> {
        self.seen
            .iter()
            .find(|(s, e, _)| *s == set && *e == element)
            .map(|&(_, _, line)| line)
    }

    /// An element closes (quick-xml has checked that its name matches).
    fn end(&mut self, line: usize) -> Result<()> {
        if let Some(v) = self.value.take() {
            return self.store(v);
        }
        match self.open.pop() {
            Some((Set::Root, _)) => self.root_closed = true,
            Some(_) => {}
            None => return Err(self.error(line, "a closing tag with no element open".into())),
        }
        Ok(())
    }

    /// Read a value element's text into its field.
    fn store(&mut self, v: Value) -> Result<()> {
        let text = v.text.trim();
        let read = match v.set {
            Set::Host => self.config.host.set(v.element, text),
            Set::Device => self.config.device.set(v.element, text),
            Set::Flash => self.config.flash.set(v.element, text),
            Set::Root => None,
        };
        match read {
            Some(Ok(())) => Ok(()),
            Some(Err(accepted)) => Err(self.error(
                v.line,
                format!(
                    "bad value \"{}\" for <{}>: expected {accepted}",
                    quote(text),
                    v.element
                ),
            )),
            None => Err(self.error(
                v.line,
                format!("unknown element <{}> in <{}>", v.element, v.set.element()),
            )),
        }
    }

    /// Character data starting at `line`: a value's text, else only white
    /// space.
    fn text(&mut self, text: &str, line: usize) -> Result<()> {
        if let Some(v) = &mut self.value {
            v.text.push_str(text);
            return Ok(());
        }
        let stray = text.trim();
        if stray.is_empty() {
            return Ok(());
        }
        // The stray text's own line: past the line ends before it (the
        // text's line ends are normalised to `\n`).
        let leading = &text[..text.len() - text.trim_start().len()];
        let line = line + leading.matches('\n').count();
        let place = match self.open.last() {
            Some((set, _)) => format!("in <{}>", set.element()),
            None => "outside any element".into(),
        };
        Err(self.error(
            line,
            format!(
                "text \"{}\" {place}, where only elements belong",
                quote(stray)
            ),
        ))
    }

    /// An entity or character reference (`&amp;`, `&#65;`).
    fn reference(&mut self, r: &BytesRef<'_>, line: usize) -> Result<()> {
        let name = r.xml10_content();
        let resolved = match r.resolve_char_ref() {
            Ok(Some(c)) => Some(c.to_string()),
            Ok(None) => quick_xml::escape::resolve_predefined_entity(&name).map(str::to_string),
            Err(_) => None,
        };
        match resolved {
            Some(text) => self.text(&text, line),
            None => Err(self.error(line, format!("unknown reference &{};", quote(&name)))),
        }
    }

    /// The end of the file: everything closed, the device given.
    fn finish(mut self) -> Result<SsdConfig> {
        if let Some(v) = &self.value {
            let message = format!("the file ends inside <{}>", v.element);
            return Err(self.error(v.line, message));
        }
        if let Some(&(set, line)) = self.open.last() {
            let message = format!("the file ends inside <{}>", set.element());
            return Err(self.error(line, message));
        }
        let Some(root_line) = self.root_line else {
            return Err(Error::new(
                self.file,
                format!("no <{ROOT}> element: not an MQSim device configuration"),
            ));
        };
        if self.seen_at(Set::Root, DeviceParameters::ELEMENT).is_none() {
            return Err(self.error(
                root_line,
                format!(
                    "no <{}> in <{ROOT}>: the device is required",
                    DeviceParameters::ELEMENT
                ),
            ));
        }
        for set in [Set::Host, Set::Device, Set::Flash] {
            for &element in set.values() {
                if self.seen_at(set, element).is_none() {
                    self.config.defaulted.push(element);
                }
            }
        }
        let config = self.config;
        config
            .check_geometry()
            .map_err(|m| Error::new(self.file, m))?;
        Ok(config)
    }
}

/// At most [`QUOTE_CHARS`] characters of `s`, with `...` when cut.
fn quote(s: &str) -> String {
    match s.char_indices().nth(QUOTE_CHARS) {
        Some((cut, _)) => format!("{}...", &s[..cut]),
        None => s.to_string(),
    }
}

/// The 1-based line of a byte offset, counting every line end in use
/// (`\n`, `\r\n`, a lone `\r`) as [`sluice_input::lines`] does; offsets are
/// asked in increasing order, so each byte is looked at once.
struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        LineCounter {
            bytes: text.as_bytes(),
            offset: 0,
            line: 1,
        }
    }

    fn line_at(&mut self, offset: u64) -> usize {
        let offset = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len());
        if offset < self.offset {
            self.offset = 0;
            self.line = 1;
        }
        for i in self.offset..offset {
            let b = self.bytes[i];
            if b == b'\n' || (b == b'\r' && self.bytes.get(i + 1) != Some(&b'\n')) {
                self.line += 1;
            }
        }
        self.offset = offset;
        self.line
    }
}
