//! YAML with its nesting bounded before it is parsed.
//!
//! libyaml's scanner keeps one entry per open flow collection (`[`, `{`)
//! and walks them all at every token, so a file of brackets (`junk:
//! [[[[…`) takes time quadratic in its depth: 300,000 brackets took
//! minutes, only to end in serde_yaml's "recursion limit exceeded".
//! [`too_deep`] pulls the same parser's events one at a time and stops at
//! the first collection deeper than [`MAX_DEPTH`]: the scanner then never
//! holds more than that depth plus the one line it looks ahead on, so the
//! check is linear in the file. It uses the parser serde_yaml uses, so it
//! sees quotes, comments and block scalars exactly as the parse does.

use serde_yaml::Value;

/// The deepest nesting of collections a configuration may have (Seastar's
/// files nest three deep).
pub const MAX_DEPTH: usize = 64;

/// The 1-based line where a collection of `text` first opens deeper than
/// [`MAX_DEPTH`], if one does. A syntax error ends the check (the parse
/// that follows reports it).
pub fn too_deep(text: &str) -> Option<usize> {
    let mut parser = Parser::new(text)?;
    let mut depth = 0usize;
    while let Some((kind, line)) = parser.next() {
        match kind {
            unsafe_libyaml::YAML_SEQUENCE_START_EVENT
            | unsafe_libyaml::YAML_MAPPING_START_EVENT => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(line);
                }
            }
            unsafe_libyaml::YAML_SEQUENCE_END_EVENT | unsafe_libyaml::YAML_MAPPING_END_EVENT => {
                depth = depth.saturating_sub(1);
            }
            unsafe_libyaml::YAML_STREAM_END_EVENT => return None,
            _ => {}
        }
    }
    None
}

/// The message [`too_deep`]'s line gives: one line.
pub fn nesting_error(line: usize) -> String {
    format!("line {line}: collections nest deeper than {MAX_DEPTH} levels")
}

/// `text` parsed as YAML, unless it nests deeper than [`MAX_DEPTH`] (then
/// refused before parsing); the error is one line.
pub fn parse(text: &str) -> std::result::Result<Value, String> {
    if let Some(line) = too_deep(text) {
        return Err(nesting_error(line));
    }
    serde_yaml::from_str(text).map_err(|e| super::one_line(&e.to_string()))
}

/// libyaml's event parser over a borrowed text.
struct Parser<'a> {
    raw: Box<std::mem::MaybeUninit<unsafe_libyaml::yaml_parser_t>>,
    _text: &'a str,
}

impl<'a> Parser<'a> {
    /// A parser of `text` (`None` if libyaml cannot allocate one).
    fn new(text: &'a str) -> Option<Parser<'a>> {
        let mut raw = Box::new(std::mem::MaybeUninit::<unsafe_libyaml::yaml_parser_t>::uninit());
        let p = raw.as_mut_ptr();
        // SAFETY: `p` points to a boxed parser that `initialize` fills in
        // and that stays put (boxed) until `drop` deletes it; the input
        // `text` outlives the parser (the lifetime `'a`).
        unsafe {
            if unsafe_libyaml::yaml_parser_initialize(p).fail {
                return None;
            }
            unsafe_libyaml::yaml_parser_set_encoding(p, unsafe_libyaml::YAML_UTF8_ENCODING);
            unsafe_libyaml::yaml_parser_set_input_string(p, text.as_ptr(), text.len() as u64);
        }
        Some(Parser { raw, _text: text })
    }

    /// The next event's type and 1-based line; `None` on an error (the
    /// caller stops there: libyaml must not be asked again after one).
    fn next(&mut self) -> Option<(unsafe_libyaml::yaml_event_type_t, usize)> {
        let p = self.raw.as_mut_ptr();
        let mut event = std::mem::MaybeUninit::<unsafe_libyaml::yaml_event_t>::uninit();
        let e = event.as_mut_ptr();
        // SAFETY: `p` was initialized in `new`; a successful `parse` fills
        // `*e`, which is read and then freed once.
        unsafe {
            if unsafe_libyaml::yaml_parser_parse(p, e).fail {
                return None;
            }
            let out = ((*e).type_, (*e).start_mark.line as usize + 1);
            unsafe_libyaml::yaml_event_delete(e);
            Some(out)
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: initialized in `new` and deleted only here.
        unsafe { unsafe_libyaml::yaml_parser_delete(self.raw.as_mut_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_nesting_is_bounded_before_parsing() {
        // A megabyte of brackets inside a mapping: refused, not parsed
        // (a linear check: the parse of it took minutes).
        let bomb = format!("junk: {}\n", "[".repeat(1 << 20));
        assert_eq!(parse(&bomb).unwrap_err(), nesting_error(1));
        let maps = format!("a: 1\njunk: {}\n", "{a: ".repeat(1 << 18));
        assert_eq!(too_deep(&maps), Some(2));
        // Brackets in quotes, comments and block scalars are text.
        let text = format!(
            "a: '{0}'\nb: \"{0}\" # {0}\nc: |\n  {0}\nd: [[1], {{e: [2]}}]\n",
            "[".repeat(500)
        );
        assert_eq!(too_deep(&text), None);
        assert!(parse(&text).is_ok());
        // Exactly the limit is fine; one more is not.
        let at = |n: usize| format!("x: {}{}\n", "[".repeat(n), "]".repeat(n));
        assert_eq!(too_deep(&at(MAX_DEPTH - 1)), None);
        assert_eq!(too_deep(&at(MAX_DEPTH)), Some(1));
        // A syntax error is left to the parse.
        assert_eq!(too_deep("a: [\n"), None);
        assert!(parse("a: [\n").is_err());
    }
}
