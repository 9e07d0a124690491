//! Load a DiskSim drive description into an [`HddSpec`].
//!
//! DiskSim's parameter syntax (libparam): a file holds blocks
//! `typename Name { Key = value, ... }`; a value is a number, a bare word or
//! file name, a nested block `type { ... }`, a list `[ v, v, ... ]`, or
//! `source file`, which reads the first block of another file (resolved
//! relative to the including file). `#` starts a comment. Parameter names
//! contain spaces and punctuation ("Read hit over. after read"); they are
//! matched ignoring case and repeated spaces. Unknown parameters are ignored
//! (DiskSim has hundreds); missing required ones are errors.
//!
//! A `.diskspecs` file's `disksim_disk` block gives the controller and
//! buffer figures; its `Model = source X.model` gives the `dm_disk` block
//! with the zoned layout (`dm_layout_g1`) and the mechanics (`dm_mech_g1`),
//! whose `Full seek curve = X.seek` names the measured seek curve.
//!
//! Two halves: `syntax` reads the parameter syntax into blocks and knows
//! nothing of drives; `mapping` maps the blocks onto the drive model.

mod bounds;
mod mapping;
mod syntax;

use std::path::{Path, PathBuf};

use sluice_input::Kind;

use self::syntax::Files;
use super::hdd::seek::SeekCurve;
use super::hdd::HddSpec;
use crate::Result;

/// The drives whose DiskSim descriptions are built in (see
/// `crates/sluice-device/data/disksim/`, with its licence).
pub const EMBEDDED: &[&str] = &["ibm18es", "barracuda"];

/// Load a `.diskspecs` file and the files it names.
pub fn load(path: &Path) -> Result<HddSpec> {
    let name = path.display().to_string();
    let text = sluice_input::read_text(path, Kind::DiskSpecs)?;
    build(&name, &text, &FromDisk)
}

/// Parse a `.diskspecs` text named `file_name` (for messages); `include`
/// returns the text of a file it names (`source X.model`, the seek curve),
/// or `None` if there is no such file.
pub fn parse_str(
    file_name: &str,
    text: &str,
    include: impl Fn(&str) -> Option<String>,
) -> Result<HddSpec> {
    build(file_name, text, &FromFn(include))
}

/// A built-in drive: `"ibm18es"` (IBM Ultrastar 18ES, DNES-309170W) or
/// `"barracuda"` (Seagate Barracuda ST32171W), from DiskSim 4.0's
/// validated descriptions.
pub fn load_embedded(name: &str) -> Option<HddSpec> {
    let file = format!("{name}.diskspecs");
    let text = embedded(&file)?;
    build(
        &file,
        text,
        &FromFn(|n: &str| embedded(n).map(str::to_string)),
    )
    .ok()
}

/// Parse a DiskSim seek-curve file: `Seek distances measured: N`, then N
/// lines `distance, ms` with ascending distances.
pub fn parse_seek_curve(file_name: &str, text: &str) -> Result<SeekCurve> {
    syntax::seek_points(file_name, text).map(SeekCurve::Table)
}

/// Read `text` (named `file`) with the files it includes, and map its
/// blocks onto a drive.
fn build(file: &str, text: &str, files: &dyn Files) -> Result<HddSpec> {
    let blocks = syntax::parse(file, text, files)?;
    bounds::check(&blocks)?;
    mapping::drive(file, &blocks, files)
}

// ---------------------------------------------------------------------------
// Files

/// The file system, relative to the including file.
struct FromDisk;

impl Files for FromDisk {
    fn open(
        &self,
        from: &str,
        name: &str,
        kind: Kind,
    ) -> std::result::Result<(String, String), String> {
        let dir = Path::new(from).parent().unwrap_or(Path::new(""));
        let path: PathBuf = dir.join(name);
        sluice_input::read_text(&path, kind)
            .map(|t| (path.display().to_string(), t))
            .map_err(|e| e.to_string())
    }
}

struct FromFn<F>(F);

impl<F: Fn(&str) -> Option<String>> Files for FromFn<F> {
    fn open(
        &self,
        _from: &str,
        name: &str,
        _kind: Kind,
    ) -> std::result::Result<(String, String), String> {
        (self.0)(name)
            .map(|t| (name.to_string(), t))
            .ok_or_else(|| "no such file".to_string())
    }
}

/// The built-in copies of DiskSim's descriptions.
fn embedded(name: &str) -> Option<&'static str> {
    Some(match name.trim_start_matches("./") {
        "ibm18es.diskspecs" => include_str!("../../data/disksim/ibm18es.diskspecs"),
        "ibm18es.model" => include_str!("../../data/disksim/ibm18es.model"),
        "ibm18es.seek" => include_str!("../../data/disksim/ibm18es.seek"),
        "barracuda.diskspecs" => include_str!("../../data/disksim/barracuda.diskspecs"),
        "barracuda.model" => include_str!("../../data/disksim/barracuda.model"),
        "barracuda.seek" => include_str!("../../data/disksim/barracuda.seek"),
        _ => return None,
    })
}

/// What the tests of both halves share.
#[cfg(test)]
mod test_support {
    use super::*;

    pub(super) fn ibm() -> HddSpec {
        load_embedded("ibm18es").expect("ibm18es loads")
    }

    pub(super) fn barracuda() -> HddSpec {
        load_embedded("barracuda").expect("barracuda loads")
    }

    pub(super) fn data_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/disksim")
    }

    /// Parse `diskspecs` with the other embedded files available, and with
    /// `extra` files overriding them.
    pub(super) fn parse_with(diskspecs: &str, extra: &[(&str, &str)]) -> Result<HddSpec> {
        let extra: Vec<(String, String)> = extra
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        parse_str("x.diskspecs", diskspecs, move |name| {
            extra
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())
                .or_else(|| embedded(name).map(str::to_string))
        })
    }

    pub(super) fn ibm_text() -> &'static str {
        embedded("ibm18es.diskspecs").unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;

    #[test]
    fn file_system_loading_follows_includes() {
        let spec = load(&data_dir().join("ibm18es.diskspecs")).unwrap();
        assert_eq!(spec, ibm());
        let spec = load(&data_dir().join("barracuda.diskspecs")).unwrap();
        assert_eq!(spec, barracuda());
        let e = load(&data_dir().join("nope.diskspecs")).unwrap_err();
        assert!(e.to_string().contains("nope.diskspecs: cannot read"), "{e}");
        assert!(load_embedded("nope").is_none());
    }
}
