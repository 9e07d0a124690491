//! The valid range of every DiskSim parameter the drive model reads, checked
//! on the parsed blocks before they are mapped onto a drive: an impossible
//! value (a platter turning 10^11 times a minute, four billion cache
//! segments, a time that would not fit the clock) is a one-line error
//! naming the file, the line, the parameter, the value and the range,
//! never a crash, an allocation failure or a silent wrap. Parameters that
//! are missing or of the wrong type are left to the mapping, which names
//! them.

use super::syntax::{Block, Entry, Value};
use crate::Result;

/// The longest time a drive parameter may state, in milliseconds (1000 s):
/// far above any real drive's figure, far below the clock's limit (u64
/// nanoseconds, about 1.8e13 ms).
pub(crate) const MAX_MS: f64 = 1e6;

/// A parameter's range: `(name, min, max, unit)`.
type Range = (&'static str, f64, f64, &'static str);

/// The `disksim_disk` block's parameters.
const DISK: &[Range] = &[
    ("Time scale for overheads", 0.0, 1000.0, ""),
    ("Bulk sector transfer time", 0.0, MAX_MS, " ms"),
    ("Read hit over. after read", 0.0, MAX_MS, " ms"),
    ("Read hit over. after write", 0.0, MAX_MS, " ms"),
    ("Read miss over. after read", 0.0, MAX_MS, " ms"),
    ("Read miss over. after write", 0.0, MAX_MS, " ms"),
    ("Write hit over. after read", 0.0, MAX_MS, " ms"),
    ("Write hit over. after write", 0.0, MAX_MS, " ms"),
    ("Write miss over. after read", 0.0, MAX_MS, " ms"),
    ("Write miss over. after write", 0.0, MAX_MS, " ms"),
    ("Per-request overhead time", 0.0, MAX_MS, " ms"),
    // DiskSim's other controller times, for when the model reads them.
    ("Read completion overhead", 0.0, MAX_MS, " ms"),
    ("Write completion overhead", 0.0, MAX_MS, " ms"),
    ("Data preparation overhead", 0.0, MAX_MS, " ms"),
    ("First reselect overhead", 0.0, MAX_MS, " ms"),
    ("Other reselect overhead", 0.0, MAX_MS, " ms"),
    ("Read disconnect afterread", 0.0, MAX_MS, " ms"),
    ("Read disconnect afterwrite", 0.0, MAX_MS, " ms"),
    ("Write disconnect overhead", 0.0, MAX_MS, " ms"),
    ("Extradisc command overhead", 0.0, MAX_MS, " ms"),
    ("Extradisc disconnect overhead", 0.0, MAX_MS, " ms"),
    ("Extradisc inter-disconnect delay", 0.0, MAX_MS, " ms"),
    ("Extradisc 2nd disconnect overhead", 0.0, MAX_MS, " ms"),
    ("Minimum seek delay", 0.0, MAX_MS, " ms"),
    ("Low (write) water mark", 0.0, 1.0, ""),
    ("High (read) water mark", 0.0, 1.0, ""),
    ("Segment size (in blks)", 0.0, 16_777_216.0, " sectors"),
    ("Number of buffer segments", 0.0, 1024.0, ""),
    ("Maximum number of write segments", 0.0, 1024.0, ""),
    ("Maximum read-ahead (blks)", 0.0, 16_777_216.0, " sectors"),
    ("Buffer continuous read", 0.0, 4.0, ""),
    ("Minimum read-ahead (blks)", 0.0, 16_777_216.0, " sectors"),
    ("Max queue length", 0.0, 4096.0, ""),
    ("Fast write level", 0.0, 2.0, ""),
    ("Enable caching in buffer", 0.0, 2.0, ""),
];

/// The `dm_disk` model block's parameters.
const MODEL: &[Range] = &[
    // 0 is left to the mapping ("must be positive").
    ("Number of data surfaces", 0.0, 256.0, ""),
    ("Number of cylinders", 1.0, 10_000_000.0, ""),
    // 2^40 sectors: 512 TiB.
    ("Block count", 1.0, 1_099_511_627_776.0, " sectors"),
];

/// The `dm_layout_g1` block's parameters.
const LAYOUT: &[Range] = &[("Rangesize for sparing", 0.0, 10_000_000.0, "")];

/// A `dm_layout_g1_zone` block's parameters.
const ZONE: &[Range] = &[
    ("First cylinder number", 0.0, 10_000_000.0, ""),
    ("Last cylinder number", 0.0, 10_000_000.0, ""),
    ("Blocks per track", 1.0, 100_000.0, " sectors"),
    ("Number of spares", 0.0, 1e9, ""),
    ("Empty space at zone front", 0.0, 1e12, " sectors"),
];

/// The `dm_mech_g1` block's parameters.
const MECH: &[Range] = &[
    ("Rotation speed (in rpms)", 1.0, 1e6, " rpm"),
    ("Head switch time", 0.0, MAX_MS, " ms"),
    // Negative in DiskSim's own DEC RZ26: added to a write's movement,
    // never below zero in all (see mapping).
    ("Add. write settling delay", -MAX_MS, MAX_MS, " ms"),
    ("Single cylinder seek time", 0.0, MAX_MS, " ms"),
    ("Average seek time", 0.0, MAX_MS, " ms"),
    ("Full strobe seek time", 0.0, MAX_MS, " ms"),
    ("Constant seek time", 0.0, MAX_MS, " ms"),
];

/// Lists of numbers in the `dm_mech_g1` block: `(name, min, max, unit)`
/// for each item (HPL coefficients may be negative; -1 is a code).
const MECH_LISTS: &[Range] = &[
    ("HPL seek equation values", -MAX_MS, MAX_MS, ""),
    ("First ten seek times", 0.0, MAX_MS, " ms"),
];

/// Check the ranges of every parameter found in `blocks` (the drive's
/// `disksim_disk` block and the blocks it nests).
pub(super) fn check(blocks: &[Block]) -> Result<()> {
    let Some(disk) = blocks
        .iter()
        .find(|b| b.ty.eq_ignore_ascii_case("disksim_disk"))
    else {
        return Ok(());
    };
    scalars(disk, DISK)?;
    let Some(model) = nested(disk, "Model") else {
        return Ok(());
    };
    scalars(model, MODEL)?;
    if let Some(mech) = nested(model, "Mechanical Model") {
        scalars(mech, MECH)?;
        for &(name, min, max, unit) in MECH_LISTS {
            if let Some(e) = mech.get(name) {
                if let Value::List(items) = &e.value {
                    for (v, at) in items {
                        if let Value::Scalar(s) = v {
                            if let Some(x) = number(s) {
                                if !(min..=max).contains(&x) {
                                    return Err(
                                        at.error(Some(&e.key), out_of_range(s, min, max, unit))
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    if let Some(layout) = nested(model, "Layout Model") {
        scalars(layout, LAYOUT)?;
        if let Some(Value::List(zones)) = layout.get("Zones").map(|e| &e.value) {
            for (z, _) in zones {
                if let Value::Block(z) = z {
                    scalars(z, ZONE)?;
                }
            }
        }
    }
    Ok(())
}

fn nested<'a>(b: &'a Block, key: &str) -> Option<&'a Block> {
    match &b.get(key)?.value {
        Value::Block(n) => Some(n),
        _ => None,
    }
}

/// A number as DiskSim writes one; `None` for anything else (the mapping
/// names the parameter's wrong type). Infinities and NaN count as numbers
/// out of every range.
fn number(s: &str) -> Option<f64> {
    let x = s.trim().parse::<f64>().ok()?;
    Some(if x.is_nan() { f64::INFINITY } else { x })
}

fn scalars(b: &Block, ranges: &[Range]) -> Result<()> {
    for &(name, min, max, unit) in ranges {
        if let Some(e) = b.get(name) {
            in_range(e, min, max, unit)?;
        }
    }
    Ok(())
}

fn in_range(e: &Entry, min: f64, max: f64, unit: &str) -> Result<()> {
    if let Value::Scalar(s) = &e.value {
        if let Some(x) = number(s) {
            if !(min..=max).contains(&x) {
                return Err(e.err(out_of_range(s, min, max, unit)));
            }
        }
    }
    Ok(())
}

fn out_of_range(value: &str, min: f64, max: f64, unit: &str) -> String {
    format!("{value} is out of range (valid: {min}..={max}{unit})")
}

#[cfg(test)]
mod tests {
    use super::super::embedded;
    use super::super::test_support::*;

    /// Replace `from` (which must be there) by `to` in the embedded
    /// `file`, and parse the IBM drive with it.
    fn with(file: &str, from: &str, to: &str) -> crate::Result<crate::hdd::HddSpec> {
        let text = embedded(file).unwrap();
        assert!(text.contains(from), "{from}");
        let changed = text.replacen(from, to, 1);
        if file == "ibm18es.diskspecs" {
            parse_with(&changed, &[])
        } else {
            parse_with(ibm_text(), &[(file, &changed)])
        }
    }

    #[test]
    fn impossible_values_name_file_line_parameter_value_and_range() {
        for (file, from, to, key, range) in [
            (
                "ibm18es.model",
                "Rotation speed (in rpms) = 7200",
                "Rotation speed (in rpms) = 1.3e11",
                "Rotation speed (in rpms)",
                "1..=1000000 rpm",
            ),
            (
                "ibm18es.model",
                "Rotation speed (in rpms) = 7200",
                "Rotation speed (in rpms) = nan",
                "Rotation speed (in rpms)",
                "1..=1000000 rpm",
            ),
            (
                "ibm18es.diskspecs",
                "Number of buffer segments = 7",
                "Number of buffer segments = 4000000000",
                "Number of buffer segments",
                "0..=1024",
            ),
            (
                "ibm18es.diskspecs",
                "Time scale for overheads = 1.000000",
                "Time scale for overheads = -1",
                "Time scale for overheads",
                "0..=1000",
            ),
            (
                "ibm18es.diskspecs",
                "Read hit over. after read = 0.082000",
                "Read hit over. after read = 2e13",
                "Read hit over. after read",
                "0..=1000000 ms",
            ),
            (
                "ibm18es.diskspecs",
                "Max queue length = 1",
                "Max queue length = 99999999",
                "Max queue length",
                "0..=4096",
            ),
            (
                "ibm18es.model",
                "Blocks per track = 390",
                "Blocks per track = 4000000000",
                "Blocks per track",
                "1..=100000",
            ),
            (
                "ibm18es.model",
                "Number of cylinders = 11474",
                "Number of cylinders = 4e9",
                "Number of cylinders",
                "1..=10000000",
            ),
        ] {
            let e = with(file, from, to).unwrap_err();
            let s = e.to_string();
            assert_eq!(e.key.as_deref(), Some(key), "{s}");
            let named = if file.ends_with(".diskspecs") {
                "x.diskspecs"
            } else {
                file
            };
            assert!(e.line.is_some() && e.file == named, "{s}");
            assert!(s.contains("out of range") && s.contains(range), "{s}");
            assert!(s.contains(to.rsplit(" = ").next().unwrap()), "{s}");
        }
    }

    #[test]
    fn values_at_the_ends_of_a_range_load() {
        with(
            "ibm18es.model",
            "Rotation speed (in rpms) = 7200",
            "Rotation speed (in rpms) = 1000000",
        )
        .unwrap();
        with(
            "ibm18es.diskspecs",
            "Number of buffer segments = 7",
            "Number of buffer segments = 1024",
        )
        .unwrap();
        with(
            "ibm18es.diskspecs",
            "Time scale for overheads = 1.000000",
            "Time scale for overheads = 0",
        )
        .unwrap();
    }

    #[test]
    fn seek_curve_times_are_bounded() {
        let e = super::super::parse_seek_curve("x.seek", "Seek distances measured: 1\n1, 1e300\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("x.seek: line 2") && e.contains("0..=1000000"),
            "{e}"
        );
    }
}
