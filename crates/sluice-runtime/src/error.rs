//! The simulator's one error type is the located input error of
//! `sluice-workload` (file, line, key, message; one line on display):
//! scenarios, drive descriptions and start-up traces all report through it.

pub use sluice_workload::Error;

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_one_line_with_what_is_known() {
        let e = Error::new("a.toml", "bad\nvalue").at_line(3).key("weight");
        assert_eq!(e.to_string(), "a.toml: line 3: \"weight\": bad value");
        assert_eq!(Error::new("", "plain").to_string(), "plain");
        let p: Error = sluice::policy::build("nope", &Default::default())
            .err()
            .unwrap()
            .into();
        assert!(p.to_string().starts_with("unknown policy 'nope'"), "{p}");
    }
}
