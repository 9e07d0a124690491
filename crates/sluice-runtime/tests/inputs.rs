//! Scenario files are read through the bounded reader: a path that names
//! no scenario file is refused before it is read.

use sluice_input::testkit::{refused, scratch};
use sluice_input::Kind;
use sluice_runtime::Scenario;

/// Defect 7: `sluice sim /dev/zero` read until the memory ran out, and a
/// FIFO as the scenario blocked for ever; both loaders refuse them.
#[test]
fn special_and_oversized_scenario_files_are_refused() {
    let dir = scratch("scenario-inputs");
    for (path, words) in refused(&dir, Kind::Scenario) {
        for e in [
            Scenario::load(&path).unwrap_err(),
            Scenario::load_real(&path).unwrap_err(),
        ] {
            let e = e.to_string();
            assert!(
                e.contains(words) && !e.contains('\n'),
                "{}: {e}",
                path.display()
            );
        }
    }
    let e = Scenario::load(&dir.join("none.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("none.toml: cannot read scenario: "), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}
