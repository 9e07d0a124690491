//! Any text as MQSim input (`import mqsim`): the workload file (XML), a
//! NUL, the device configuration (XML), a NUL, then the scenario's number.
//! An error or a scenario, never a panic; an import is written as a
//! scenario file, read back, built on the configuration and run briefly.
//! (Trace flows are refused: no folder is given for their files.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_device::flash::FlashSpec;
use sluice_device::mqsim::SsdConfig;
use sluice_device::Model;
use sluice_runtime::import::mqsim::import_text;
use sluice_runtime::Scenario;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parts = sluice_fuzz::parts(text, 3);
    let Ok(config) = SsdConfig::parse("ssdconfig.xml", parts[1]) else {
        return;
    };
    let scenario = parts[2].trim().parse().unwrap_or(1);
    if let Ok(imported) = import_text(parts[0], "fuzz", config.clone(), "c.xml", scenario, None) {
        if let Ok(toml) = imported.to_toml("fuzz") {
            let _ = Scenario::parse("imported.toml", &toml);
        }
        let model = Model::Flash(Box::new(FlashSpec::from_mqsim("fuzz", config)));
        if let Ok(s) = imported.scenario.build_with_model(std::path::Path::new(""), model) {
            sluice_fuzz::run_briefly(s, 100);
        }
    }
});
