//! Where in a scenario file an error is: the line of a key, the line of
//! a byte offset.

/// The line of the key a value error is about: `flow 'NAME': key ...`
/// in that flow's table, `[device] key ...` in `[device]`, `key ...` at the
/// top. `None` when the message names no key the text sets.
pub(crate) fn key_line(text: &str, message: &str) -> Option<usize> {
    let ident = |s: &str| -> Option<String> {
        let k: String = s
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!k.is_empty()).then_some(k)
    };
    let (table, flow, rest) = if let Some(r) = message.strip_prefix("flow '") {
        let (name, rest) = r.split_once("': ")?;
        ("[[flow]]", Some(name), rest)
    } else if let Some(rest) = message.strip_prefix("[device] ") {
        ("[device]", None, rest)
    } else {
        ("", None, message)
    };
    let key = ident(rest)?;
    let assigns = |line: &str, k: &str| {
        line.trim_start()
            .strip_prefix(k)
            .is_some_and(|r| r.trim_start().starts_with('='))
    };
    // Tables by their header lines; the top level before the first one.
    let mut current = String::new();
    let mut block: Vec<(usize, &str)> = Vec::new();
    let mut found = None;
    let mut check = |current: &str, block: &[(usize, &str)]| {
        if found.is_some() || current != table {
            return;
        }
        let named = |n: &str| {
            block.iter().any(|(_, l)| {
                assigns(l, "name")
                    && l.split_once('=')
                        .is_some_and(|(_, v)| v.trim().trim_matches('"') == n)
            })
        };
        if flow.is_none_or(named) {
            found = block
                .iter()
                .find(|(_, l)| assigns(l, &key))
                .map(|(i, _)| i + 1);
        }
    };
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            check(&current, &block);
            current = t.split('#').next().unwrap_or("").trim().to_string();
            block.clear();
        } else {
            block.push((i, line));
        }
    }
    check(&current, &block);
    found
}

/// The names of a key's valid values, for its error message.
pub(super) fn value_names<T>(all: &[(&str, T)]) -> String {
    all.iter().map(|n| n.0).collect::<Vec<_>>().join(", ")
}

/// 1-based line of byte offset `at` in `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// A TOML syntax or type error as one line naming `file` and quoting the
/// offending line (it names the key even when the parser's message only
/// names the expected type).
pub(crate) fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> crate::Error {
    let err = |message: String| crate::Error::new(file, message);
    let msg = e.message().replace('\n', " ");
    let msg = if msg.trim().is_empty() {
        // The parser says nothing when the file ends inside a
        // value (`name =` on the last line).
        "a value is missing after `=` (the file ends there)".to_string()
    } else {
        msg
    };
    match e.span() {
        Some(span) => {
            let line = line_of(text, span.start);
            let src = text.lines().nth(line - 1).unwrap_or("").trim();
            // At most a screen line of it (a line may be 16 MiB).
            let src = crate::names::excerpt(src, 100);
            if src.is_empty() {
                err(format!("line {line}: {msg}"))
            } else {
                err(format!("line {line} ({src}): {msg}"))
            }
        }
        None => err(msg),
    }
}
