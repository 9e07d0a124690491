//! The XML of an MQSim workload file, walked with quick-xml into its
//! scenarios and their flows' value elements (as text): `<MQSim_IO_Scenarios>`
//! holds `<IO_Scenario>`s, each holding `<IO_Flow_Parameter_Set_Synthetic>`
//! and `<IO_Flow_Parameter_Set_Trace_Based>` elements of value elements.
//! Nesting is bounded by the format (an element inside a value element is
//! refused as it opens); what the values mean is `super`'s business.

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::error::Result;
use crate::import::fail;

const ROOT: &str = "MQSim_IO_Scenarios";
const SCENARIO: &str = "IO_Scenario";
pub(super) const SYNTHETIC: &str = "IO_Flow_Parameter_Set_Synthetic";
pub(super) const TRACE: &str = "IO_Flow_Parameter_Set_Trace_Based";

/// The longest name an error quotes, in characters.
const QUOTE_CHARS: usize = 40;

/// One flow's element: its kind, its line and its values in file order
/// (element, text, line).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct RawFlow {
    pub(super) trace: bool,
    pub(super) line: usize,
    pub(super) values: Vec<(String, String, usize)>,
}

/// Every `<IO_Scenario>`'s flows, in file order.
pub(super) fn scenarios(text: &str) -> Result<Vec<Vec<RawFlow>>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = Reader::from_str(text);
    let line_at = |pos: u64| {
        let end = (pos as usize).min(text.len());
        1 + text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    };
    let err = |line: usize, m: String| fail(format!("line {line}: {m}"));
    let mut out: Vec<Vec<RawFlow>> = Vec::new();
    // Open elements, outermost first (at most four: root, scenario, flow, value).
    let mut open: Vec<String> = Vec::new();
    let mut value = String::new();
    let mut root_done = false;
    loop {
        let at = line_at(reader.buffer_position());
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                let l = line_at(reader.error_position());
                return Err(err(
                    l,
                    format!("malformed XML: {}", one_line(&e.to_string())),
                ));
            }
        };
        match event {
            Event::Start(_) | Event::Empty(_) => {
                let (name, empty) = match &event {
                    Event::Start(e) => (e.name(), false),
                    Event::Empty(e) => (e.name(), true),
                    _ => unreachable!("matched above"),
                };
                let name: String = AsRef::<str>::as_ref(&name).to_string();
                let allowed = match open.len() {
                    0 => !root_done && name == ROOT,
                    1 => name == SCENARIO,
                    2 => name == SYNTHETIC || name == TRACE,
                    3 => true,
                    _ => false,
                };
                if !allowed {
                    let inside = open
                        .last()
                        .map_or("the file".to_string(), |o| format!("<{o}>"));
                    return Err(err(
                        at,
                        format!("unexpected element <{}> in {inside}", quote(&name)),
                    ));
                }
                match open.len() {
                    1 => out.push(Vec::new()),
                    2 => {
                        if let Some(s) = out.last_mut() {
                            s.push(RawFlow {
                                trace: name == TRACE,
                                line: at,
                                values: Vec::new(),
                            });
                        }
                    }
                    3 => value.clear(),
                    _ => {}
                }
                if empty {
                    close(&mut out, &mut open, &name, &mut value, at, &mut root_done);
                } else {
                    open.push(name);
                }
            }
            Event::End(e) => {
                let qname = e.name();
                let name: String = AsRef::<str>::as_ref(&qname).to_string();
                if open.last() != Some(&name) {
                    return Err(err(at, format!("unexpected </{}>", quote(&name))));
                }
                open.pop();
                close(&mut out, &mut open, &name, &mut value, at, &mut root_done);
            }
            Event::Text(t) => {
                let t = t.xml10_content();
                if open.len() == 4 {
                    value.push_str(&t);
                } else if !t.trim().is_empty() {
                    return Err(err(
                        at,
                        format!("text '{}' outside a value element", quote(t.trim())),
                    ));
                }
            }
            Event::CData(t) if open.len() == 4 => {
                value.push_str(&t.xml10_content());
            }
            Event::GeneralRef(r) if open.len() == 4 => {
                let name = r.xml10_content();
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    Ok(None) => {
                        quick_xml::escape::resolve_predefined_entity(&name).map(str::to_string)
                    }
                    Err(_) => None,
                };
                match resolved {
                    Some(t) => value.push_str(&t),
                    None => return Err(err(at, format!("unknown reference &{};", quote(&name)))),
                }
            }
            Event::CData(_) | Event::GeneralRef(_) => {
                return Err(err(
                    at,
                    "character data or an entity outside a value element".into(),
                ))
            }
            Event::DocType(_) => {
                return Err(err(at, "a DOCTYPE is not part of MQSim's format".into()))
            }
            Event::Decl(_) | Event::Comment(_) | Event::PI(_) => {}
            Event::Eof => break,
        }
    }
    if let Some(o) = open.last() {
        return Err(fail(format!("the file ends inside <{}>", quote(o))));
    }
    if !root_done {
        return Err(fail(format!("no <{ROOT}>: not an MQSim workload file")));
    }
    Ok(out)
}

/// An element closed at depth `open.len()` (after the pop): a value
/// element's text goes to its flow.
fn close(
    out: &mut [Vec<RawFlow>],
    open: &mut [String],
    name: &str,
    value: &mut String,
    at: usize,
    root_done: &mut bool,
) {
    match open.len() {
        0 => *root_done = true,
        3 => {
            if let Some(f) = out.last_mut().and_then(|s| s.last_mut()) {
                f.values.push((name.to_string(), std::mem::take(value), at));
            }
        }
        _ => {}
    }
}

/// `s` cut to [`QUOTE_CHARS`] characters, on one line.
pub(super) fn quote(s: &str) -> String {
    let mut q: String = s
        .chars()
        .take(QUOTE_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > QUOTE_CHARS {
        q.push_str("...");
    }
    crate::names::printable(&q).into_owned()
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}
