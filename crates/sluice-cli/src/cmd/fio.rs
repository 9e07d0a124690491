//! `sluice fio`: thin, since the job-file runner in `crate::fio` owns its
//! flags (`fio::Options`) and its help.

use anyhow::Result;

use crate::fio;
use crate::output::write_out;

pub(crate) use crate::fio::Options as Args;

/// The longest error `sluice fio` prints after `error: ` (one line of at
/// most 200 characters in all).
const MAX_ERROR: usize = 193;

pub(crate) fn run(args: Args) -> Result<()> {
    let out = fio::fio(&args).map_err(one_line)?;
    write_out(&out)
}

/// A refusal of the job file as one short line: its start (file, line,
/// option) and its end (why) kept, an over-long middle (a quoted value)
/// cut. An interrupted run and a refused target keep their own exit codes.
fn one_line(e: anyhow::Error) -> anyhow::Error {
    if e.is::<crate::run::Interrupted>() || e.downcast_ref::<sluice_real::Refused>().is_some() {
        return e;
    }
    anyhow::anyhow!(shorten(&format!("{e:#}")))
}

/// `text` on one line of at most [`MAX_ERROR`] characters.
fn shorten(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= MAX_ERROR {
        return line;
    }
    let head: String = chars[..120].iter().collect();
    let tail: String = chars[chars.len() - (MAX_ERROR - 121)..].iter().collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_errors_keep_their_start_and_end_on_one_line() {
        let long = format!(
            "j.fio: line 3: rw={}: expected read\nor write",
            "x".repeat(500)
        );
        let s = shorten(&long);
        assert_eq!(s.chars().count(), MAX_ERROR);
        assert!(
            s.starts_with("j.fio: line 3: rw=xxx") && s.ends_with("expected read or write"),
            "{s}"
        );
        assert_eq!(shorten("short\n error"), "short error");
    }
}
