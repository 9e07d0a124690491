//! Policy parameters by name, as scenario files and the CLI give them.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::Error;

/// One parameter value. Kept independent of any file format so the core
/// crate needs no parser.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A switch.
    Bool(bool),
    /// An integer (also accepted where a number is expected).
    Int(i64),
    /// A number.
    Float(f64),
    /// A string: the word of a choice parameter (rejected as a bad value by
    /// every other kind).
    Str(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => write!(f, "\"{s}\""),
        }
    }
}

/// What a parameter holds: its default and, for numbers, the closed range
/// a given value must lie in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A switch, with its default.
    Bool(bool),
    /// An integer.
    Int {
        /// Its value when not given.
        default: i64,
        /// The smallest value accepted.
        min: i64,
        /// The largest value accepted.
        max: i64,
    },
    /// A number (an integer value is accepted too).
    Float {
        /// Its value when not given.
        default: f64,
        /// The smallest value accepted.
        min: f64,
        /// The largest value accepted.
        max: f64,
    },
    /// One of a fixed set of words (a string in a scenario file).
    Choice {
        /// Its value when not given.
        default: &'static str,
        /// The words accepted.
        options: &'static [&'static str],
    },
}

/// One row of a policy's parameter table: the single place a parameter's
/// name, default, range and meaning are written. The reader takes defaults
/// and ranges from it, `sluice list` and the unknown-parameter error print
/// it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The name scenario files and the CLI give it by.
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: ParamKind,
    /// What it sets, in one line.
    pub doc: &'static str,
    /// Printed in parentheses after the default (unit, special values);
    /// empty for none.
    pub note: &'static str,
}

impl ParamSpec {
    /// A row: what [`declare_params!`] writes for each declared field.
    pub const fn new(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        ParamSpec {
            name,
            kind,
            doc,
            note: "",
        }
    }

    /// The same row with a note for the listing.
    pub const fn note(mut self, note: &'static str) -> Self {
        self.note = note;
        self
    }

    /// Its default as a value (displayed as `sluice list` prints it).
    pub fn default_value(&self) -> ParamValue {
        match self.kind {
            ParamKind::Bool(b) => ParamValue::Bool(b),
            ParamKind::Int { default, .. } => ParamValue::Int(default),
            ParamKind::Float { default, .. } => ParamValue::Float(default),
            ParamKind::Choice { default, .. } => ParamValue::Str(default.to_string()),
        }
    }

    /// What it accepts, in words (the error messages' wording).
    fn accepts(&self) -> String {
        match self.kind {
            ParamKind::Bool(_) => "true or false".to_string(),
            ParamKind::Int { min, max, .. } => format!("an integer in {min}..={max}"),
            ParamKind::Float { min, max, .. } => format!("a number in {min}..={max}"),
            ParamKind::Choice { options, .. } => {
                let words: Vec<String> = options.iter().map(|o| format!("\"{o}\"")).collect();
                format!("one of {}", words.join(", "))
            }
        }
    }
}

/// A policy's parameters, in the order it reads them. Displays as the
/// listing `sluice list` prints and unknown-parameter errors quote:
/// `name = default (note), ...`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamTable {
    /// The rows, in the order the policy reads them.
    pub specs: &'static [ParamSpec],
    /// Between a name and its default in the listing: " = ", or "=" for
    /// BFQ's, whose listing has always been written that way.
    sep: &'static str,
}

impl ParamTable {
    /// The table of a policy with no parameter.
    pub const NONE: ParamTable = ParamTable::new(&[]);

    /// A table listed as `name = default`.
    pub const fn new(specs: &'static [ParamSpec]) -> Self {
        ParamTable { specs, sep: " = " }
    }

    /// The same table listed as `name=default`.
    pub const fn compact(self) -> Self {
        ParamTable { sep: "=", ..self }
    }

    /// True when the policy takes no parameter.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The row of parameter `name`.
    pub fn get(&self, name: &str) -> Option<&ParamSpec> {
        self.specs.iter().find(|s| s.name == name)
    }

    /// The table as the docs print it (docs/formats.md, "Policy
    /// parameters"): one markdown row per parameter.
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "| parameter | default | accepts | meaning |\n| --- | --- | --- | --- |\n",
        );
        for s in self.specs {
            let note = if s.note.is_empty() {
                String::new()
            } else {
                format!(" ({})", s.note)
            };
            let cells = [
                format!("`{}`", s.name),
                format!("`{}`{note}", s.default_value()),
                s.accepts(),
                s.doc.to_string(),
            ];
            let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out
    }
}

impl fmt::Display for ParamTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.specs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}{}{}", s.name, self.sep, s.default_value())?;
            if !s.note.is_empty() {
                write!(f, " ({})", s.note)?;
            }
        }
        Ok(())
    }
}

/// The "Policy parameters" section of docs/formats.md: each policy's
/// table as [`ParamTable::markdown`] renders it (a test keeps the docs
/// equal to it).
pub fn parameters_markdown(policies: &[super::PolicyInfo]) -> String {
    let mut out = String::from(PARAMETERS_HEADING);
    let none: Vec<String> = policies
        .iter()
        .filter(|i| i.params.is_empty())
        .map(|i| format!("`{}`", i.name))
        .collect();
    out.push_str(&format!("{} take no parameter.\n", none.join(", ")));
    for info in policies.iter().filter(|i| !i.params.is_empty()) {
        out.push_str(&format!(
            "\n### `{}`\n\n{}",
            info.name,
            info.params.markdown()
        ));
    }
    out
}

/// The start of the section [`parameters_markdown`] writes.
const PARAMETERS_HEADING: &str = "## Policy parameters\n\n\
Under `[scheduler]`, by name; `sluice list` prints the same tables. \
Generated from each policy's declaration (`declare_params!` in \
`crates/sluice/src/policy/`): edit it there, not here.\n\n";

/// Named parameters for a policy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: BTreeMap<String, ParamValue>,
}

impl Params {
    /// Set a parameter.
    pub fn insert(&mut self, name: &str, value: ParamValue) {
        self.values.insert(name.to_string(), value);
    }

    /// True when no parameter is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// A reader that tracks which parameters a policy consumed.
    pub(crate) fn reader<'a>(&'a self, policy: &'a str) -> ParamReader<'a> {
        ParamReader {
            policy,
            params: self,
            used: Vec::new(),
        }
    }
}

/// Reads typed parameters and, at the end, rejects any the policy did not use.
pub(crate) struct ParamReader<'a> {
    policy: &'a str,
    params: &'a Params,
    used: Vec<&'a str>,
}

impl<'a> ParamReader<'a> {
    fn bad(&self, spec: &ParamSpec, expected: String, got: String) -> Error {
        Error::BadParam {
            policy: self.policy.to_string(),
            param: spec.name.to_string(),
            expected,
            got,
        }
    }

    /// The value given for `spec`, if any, marked as used.
    fn given(&mut self, spec: &ParamSpec) -> Option<&'a ParamValue> {
        let v = self.params.values.get(spec.name);
        if v.is_some() {
            self.used.push(spec.name);
        }
        v
    }

    /// The value of `spec` as a field of type `T`: the given one, checked
    /// against the row's kind and range, or the row's default.
    pub(crate) fn value<T: ParamField>(&mut self, spec: &ParamSpec) -> Result<T, Error> {
        let Some(given) = self.given(spec) else {
            let default = spec.default_value();
            return T::from_value(spec, default).ok_or_else(|| {
                let expected = format!("a field that holds {}", spec.accepts());
                self.bad(spec, expected, "its default".to_string())
            });
        };
        let checked = match (spec.kind, given) {
            (ParamKind::Bool(_), ParamValue::Bool(b)) => Some(ParamValue::Bool(*b)),
            (ParamKind::Int { min, max, .. }, ParamValue::Int(i)) if (min..=max).contains(i) => {
                Some(ParamValue::Int(*i))
            }
            (ParamKind::Float { min, max, .. }, ParamValue::Float(x)) => in_range(*x, min, max),
            (ParamKind::Float { min, max, .. }, ParamValue::Int(i)) => {
                in_range(*i as f64, min, max)
            }
            (ParamKind::Float { .. }, v) => {
                return Err(self.bad(spec, "a number".to_string(), quoted(spec, v)));
            }
            (ParamKind::Choice { options, .. }, ParamValue::Str(w))
                if options.contains(&w.as_str()) =>
            {
                Some(ParamValue::Str(w.clone()))
            }
            _ => None,
        };
        checked
            .and_then(|v| T::from_value(spec, v))
            .ok_or_else(|| self.bad(spec, spec.accepts(), quoted(spec, given)))
    }

    /// Fail on any parameter the policy did not read; `accepted` lists the
    /// ones it knows, for the error message.
    pub(crate) fn finish(&mut self, accepted: &ParamTable) -> Result<(), Error> {
        for name in self.params.values.keys() {
            if !self.used.contains(&name.as_str()) {
                let hint = if accepted.is_empty() {
                    " (it takes none)".to_string()
                } else {
                    format!(" (it takes: {accepted})")
                };
                return Err(Error::UnknownParam {
                    policy: self.policy.to_string(),
                    param: name.clone(),
                    hint,
                });
            }
        }
        Ok(())
    }
}

/// `x` if it is finite and in `min..=max`.
fn in_range(x: f64, min: f64, max: f64) -> Option<ParamValue> {
    (x.is_finite() && (min..=max).contains(&x)).then_some(ParamValue::Float(x))
}

/// The most characters of a rejected word an error quotes.
const QUOTED_CHARS: usize = 40;

/// A rejected value as the error quotes it, short: a number row quotes an
/// integer as the number it was read as, a number is kept short
/// ([`crate::short_number`]: `1e300`, not 301 digits), a word is cut to
/// [`QUOTED_CHARS`] with anything unprintable escaped.
fn quoted(spec: &ParamSpec, given: &ParamValue) -> String {
    match (spec.kind, given) {
        (ParamKind::Float { .. }, ParamValue::Int(i)) => crate::short_number(*i as f64),
        (_, ParamValue::Float(x)) => crate::short_number(*x),
        (_, ParamValue::Str(w)) => {
            let cut: String = w.chars().take(QUOTED_CHARS).collect();
            let more = if cut.len() < w.len() { "..." } else { "" };
            format!("\"{}{more}\"", cut.escape_debug())
        }
        _ => given.to_string(),
    }
}

/// A type a declared parameter can have: what a checked value of its row
/// becomes (None: the row's kind does not fit the field's type, which the
/// reader reports as a bad value instead of panicking).
pub(crate) trait ParamField: Sized {
    /// The field's value for `v`, already checked against `spec`.
    fn from_value(spec: &ParamSpec, v: ParamValue) -> Option<Self>;
}

impl ParamField for bool {
    fn from_value(_: &ParamSpec, v: ParamValue) -> Option<Self> {
        match v {
            ParamValue::Bool(b) => Some(b),
            _ => None,
        }
    }
}

impl ParamField for f64 {
    fn from_value(_: &ParamSpec, v: ParamValue) -> Option<Self> {
        match v {
            ParamValue::Float(x) => Some(x),
            _ => None,
        }
    }
}

impl ParamField for &'static str {
    /// The row's own word, so the field borrows nothing from the input.
    fn from_value(spec: &ParamSpec, v: ParamValue) -> Option<Self> {
        match (spec.kind, v) {
            (ParamKind::Choice { options, .. }, ParamValue::Str(w)) => {
                options.iter().copied().find(|o| *o == w)
            }
            _ => None,
        }
    }
}

/// Integer fields: the row's range is checked first, the field's type
/// too (a range wider than the type is an error, not a wrap).
macro_rules! int_fields {
    ($($t:ty),*) => {$(
        impl ParamField for $t {
            fn from_value(_: &ParamSpec, v: ParamValue) -> Option<Self> {
                match v {
                    ParamValue::Int(i) => <$t>::try_from(i).ok(),
                    _ => None,
                }
            }
        }
    )*};
}
int_fields!(u32, u64, usize, i64);

/// The kind of a declared row: `bool(default)`, `int(default, min, max)`,
/// `float(default, min, max)`, `choice(default, &[words])`.
macro_rules! param_kind {
    (bool $d:expr) => {
        $crate::policy::params::ParamKind::Bool($d)
    };
    (int $d:expr, $min:expr, $max:expr) => {
        $crate::policy::params::ParamKind::Int {
            default: $d,
            min: $min,
            max: $max,
        }
    };
    (float $d:expr, $min:expr, $max:expr) => {
        $crate::policy::params::ParamKind::Float {
            default: $d,
            min: $min,
            max: $max,
        }
    };
    (choice $d:expr, $options:expr) => {
        $crate::policy::params::ParamKind::Choice {
            default: $d,
            options: $options,
        }
    };
}
pub(crate) use param_kind;

/// The default of a declared row, typed as its field.
macro_rules! param_default {
    ($kind:ident $d:expr $(, $rest:expr)*) => {
        $d
    };
}
pub(crate) use param_default;

/// One declaration per policy: each row is a field, named as the key, whose
/// first doc line is the table's doc, with its kind, default and range
/// (see [`param_kind!`]) and an optional listing note:
///
/// ```text
/// declare_params! {
///     /// The struct's doc.
///     #[derive(Clone, Debug, PartialEq)]
///     pub struct CfqTunables {
///         /// cfq_quantum: requests one queue may have in flight
///         ///
///         /// Further doc lines document the field only.
///         quantum: u32 = int(8, 1, 1024),
///         /// sectors per budget, or the cost model's
///         charge: &'static str = choice("sectors", &["sectors", "cost"]) note "unit",
///     }
/// }
/// ```
///
/// It yields the struct; `specs(variant)`, the table's rows (a policy with
/// variants names a variant argument, `struct BfqTunables(plus: bool)`, that
/// defaults may use); `defaults(variant)` (`()` without variants); and
/// `read_over`, which reads the rows a table lists. Without a variant it
/// also yields `TABLE`, `Default` and `read`. A default of the wrong type
/// for its field does not compile; a range wider than the field's type is
/// a bad-value error when a value outside the type is given.
macro_rules! declare_params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident { $($rows:tt)* }
    ) => {
        $crate::policy::params::declare_params! {
            @rows $(#[$meta])* $vis struct $name (_variant: ()) { $($rows)* }
        }

        impl $name {
            /// Its table, listed as `name = default`.
            pub(crate) const TABLE: $crate::policy::params::ParamTable =
                $crate::policy::params::ParamTable::new(&$name::specs(()));

            /// Read its parameters over the declared defaults (unused where
            /// variants read a part of the table with `read_over`).
            #[allow(dead_code)]
            pub(crate) fn read(
                p: &mut $crate::policy::params::ParamReader<'_>,
            ) -> Result<Self, $crate::error::Error> {
                Self::defaults(()).read_over(p, &Self::TABLE)
            }
        }

        impl Default for $name {
            /// The declared defaults.
            fn default() -> Self {
                Self::defaults(())
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident ($v:ident : $vty:ty) { $($rows:tt)* }
    ) => {
        $crate::policy::params::declare_params! {
            @rows $(#[$meta])* $vis struct $name ($v: $vty) { $($rows)* }
        }
    };
    (
        @rows
        $(#[$meta:meta])*
        $vis:vis struct $name:ident ($v:ident : $vty:ty) {
            $(
                #[doc = $doc:literal]
                $(#[$fmeta:meta])*
                $field:ident : $fty:ty = $kind:ident ( $($arg:expr),* $(,)? ) $(note $note:literal)?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $(
                #[doc = $doc]
                $(#[$fmeta])*
                pub $field: $fty,
            )*
        }

        impl $name {
            /// How many parameters it declares.
            pub(crate) const COUNT: usize = [$(stringify!($field)),*].len();

            /// Its table's rows, in declaration order.
            pub(crate) const fn specs($v: $vty) -> [$crate::policy::params::ParamSpec; $name::COUNT] {
                [$(
                    $crate::policy::params::ParamSpec::new(
                        stringify!($field),
                        $crate::policy::params::param_kind!($kind $($arg),*),
                        $doc.trim_ascii(),
                    )
                    $(.note($note))?
                ),*]
            }

            /// The declared defaults.
            $vis fn defaults($v: $vty) -> Self {
                $name {
                    $($field: $crate::policy::params::param_default!($kind $($arg),*),)*
                }
            }

            /// Read the parameters `table` lists (each given one checked
            /// against its row, each absent one its row's default); fields
            /// the table does not list keep their value here.
            pub(crate) fn read_over(
                mut self,
                p: &mut $crate::policy::params::ParamReader<'_>,
                table: &$crate::policy::params::ParamTable,
            ) -> Result<Self, $crate::error::Error> {
                $(
                    if let Some(spec) = table.get(stringify!($field)) {
                        self.$field = p.value(spec)?;
                    }
                )*
                Ok(self)
            }
        }
    };
}
pub(crate) use declare_params;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::POLICIES;

    declare_params! {
        /// A declaration whose field is narrower than its row's range.
        #[derive(Clone, Debug, PartialEq)]
        struct Probe {
            /// a count
            count: u32 = int(5, 0, 1 << 40),
            /// a switch
            on: bool = bool(true),
            /// a number
            x: f64 = float(1.5, 0.0, 2.0),
            /// a word
            word: &'static str = choice("a", &["a", "b"]),
        }
    }

    fn read_probe(name: &str, value: ParamValue) -> Result<Probe, String> {
        let mut params = Params::default();
        params.insert(name, value);
        let mut p = params.reader("probe");
        Probe::read(&mut p).map_err(|e| e.to_string())
    }

    /// Wrong types and values the field cannot hold are errors naming the
    /// parameter and what it accepts, never panics or wrapped numbers.
    #[test]
    fn mismatches_are_errors_not_panics() {
        let cases = [
            (
                "count",
                ParamValue::Int(1 << 35),
                "an integer in 0..=1099511627776",
            ),
            (
                "count",
                ParamValue::Str("x".into()),
                "an integer in 0..=1099511627776",
            ),
            ("on", ParamValue::Int(1), "true or false"),
            ("x", ParamValue::Bool(true), "a number"),
            ("x", ParamValue::Float(f64::NAN), "a number in 0..=2"),
            ("x", ParamValue::Int(3), "a number in 0..=2"),
            ("word", ParamValue::Str("c".into()), "one of \"a\", \"b\""),
            ("word", ParamValue::Float(1.0), "one of \"a\", \"b\""),
        ];
        for (name, value, expected) in cases {
            let err = read_probe(name, value).unwrap_err();
            assert!(err.contains(name) && err.contains(expected), "{err}");
        }
        let ok = read_probe("count", ParamValue::Int(7)).unwrap();
        assert_eq!((ok.count, ok.on, ok.x, ok.word), (7, true, 1.5, "a"));
        assert_eq!(read_probe("x", ParamValue::Int(2)).unwrap().x, 2.0);
    }

    /// An out-of-range number is quoted short (issue 43: `1e300` was
    /// printed as 301 digits), and so is a rejected word, escaped.
    #[test]
    fn out_of_range_numbers_are_quoted_short() {
        for (value, quoted) in [
            (ParamValue::Float(1e300), "got 1e300"),
            (ParamValue::Float(-1e-300), "got -1e-300"),
            (ParamValue::Int(i64::MAX), "got 9.223372036854776e18"),
            (ParamValue::Float(2.5), "got 2.5"),
            (
                ParamValue::Str("9".repeat(5000)),
                &format!("got \"{}...\"", "9".repeat(40)),
            ),
            (
                ParamValue::Str("a\u{202e}\n".into()),
                "got \"a\\u{202e}\\n\"",
            ),
        ] {
            let err = read_probe("x", value).unwrap_err();
            assert!(err.ends_with(quoted) && err.len() < 120, "{err}");
        }
    }

    /// The struct's defaults and its table's are the same numbers.
    #[test]
    fn declared_defaults_are_the_tables() {
        let none = Params::default();
        let read = Probe::defaults(()).read_over(&mut none.reader("probe"), &Probe::TABLE);
        assert_eq!(read.unwrap(), Probe::default());
        assert_eq!(
            Probe::TABLE.to_string(),
            "count = 5, on = true, x = 1.5, word = \"a\""
        );
    }

    /// The rows carry the field's first doc line, without its leading space.
    #[test]
    fn rows_take_the_first_doc_line() {
        let docs: Vec<&str> = Probe::specs(()).iter().map(|s| s.doc).collect();
        assert_eq!(docs, ["a count", "a switch", "a number", "a word"]);
    }

    /// docs/formats.md's parameter tables are the declarations' rendering.
    #[test]
    fn docs_tables_are_the_declarations() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/formats.md");
        let docs = std::fs::read_to_string(path).unwrap();
        let rendered = parameters_markdown(POLICIES);
        let start = docs.find(PARAMETERS_HEADING).unwrap_or(docs.len());
        let section = &docs[start..];
        let next = section.get(1..).and_then(|rest| rest.find("\n## "));
        let end = next.map_or(section.len(), |i| i + 1);
        assert!(
            section[..end] == rendered,
            "docs/formats.md's \"Policy parameters\" differ from the declarations; replace the section with:\n{rendered}"
        );
    }
}
