//! Names a user gives (flows, scenarios, fio jobs) reach a terminal, CSV
//! files and error messages. A name with a control character or a bidi
//! override could rewrite what a terminal shows (move the cursor, hide
//! text, reverse a line), so such names are refused when a scenario is
//! read, and anything non-printable is escaped wherever a name is shown.

use std::borrow::Cow;

/// Whether `c` must not appear raw on a terminal: a control character
/// (C0, DEL, C1), a bidi embedding, override or isolate (U+202A–U+202E,
/// U+2066–U+2069), or another invisible format character that reorders
/// or hides text.
pub fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200E}' | '\u{200F}' | '\u{061C}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{2028}' | '\u{2029}')
}

/// `s` safe to print: each unsafe character ([`unsafe_char`]) as a Rust
/// escape (`\n`, `\0`, `\u{202e}`); `s` itself when it has none.
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` safe to print ([`printable`]) and at most `max` characters long,
/// cut with "..." where longer: for quoting input back in a one-line error.
pub fn excerpt(s: &str, max: usize) -> Cow<'_, str> {
    let p = printable(s);
    if p.chars().count() <= max {
        return p;
    }
    let cut: String = p.chars().take(max).collect();
    Cow::Owned(cut + "...")
}

/// Refuse a name holding an unsafe character: the error names `what`
/// (e.g. "flow 2") and shows the name escaped.
pub fn check(what: &str, name: &str) -> Result<(), String> {
    if name.chars().any(unsafe_char) {
        return Err(format!(
            "{what}: the name \"{}\" holds a control or bidi-override character; names must be printable",
            printable(name)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_printable_and_cut() {
        assert_eq!(excerpt("abc", 3), "abc");
        assert_eq!(excerpt("abcd", 3), "abc...");
        assert_eq!(excerpt("\u{202e}xyz", 8), "\\u{202e}...");
    }

    #[test]
    fn control_and_bidi_characters_are_refused_and_escaped() {
        for bad in [
            "a\nb",
            "a\0",
            "x\u{1b}[2J",
            "evil\u{202e}txt",
            "i\u{2066}",
            "\u{85}",
        ] {
            let e = check("flow 3", bad).unwrap_err();
            assert!(e.starts_with("flow 3: "), "{e}");
            assert!(!e.chars().any(unsafe_char), "{e:?}");
        }
        assert_eq!(printable("a\nb\u{202e}"), "a\\nb\\u{202e}");
        for good in ["a,b\"c", "reader 1", "lecteur-é", "日本"] {
            assert!(check("flow 0", good).is_ok());
            assert!(matches!(printable(good), Cow::Borrowed(_)));
        }
    }
}
