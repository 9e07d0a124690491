//! `replay = "think"` run through the simulator (a dev-dependency): the
//! estimated CPU time of the recorded program lengthens an idle start-up.

use sluice_runtime::Scenario;
use sluice_workload::StartupTrace;

/// The start-up time of `trace` replayed with `replay`, alone on the
/// Maxtor under noop.
fn idle_startup_s(trace: &str, replay: &str) -> f64 {
    let text = format!(
        "name = \"t\"\nseed = 1\nduration_s = 60\nwarmup_s = 0\n\
         [device]\npreset = \"maxtor-stm332061\"\n[scheduler]\nname = \"noop\"\n\
         [[flow]]\nname = \"app\"\npattern = \"startup\"\ntrace = \"{trace}\"\nreplay = \"{replay}\"\n"
    );
    let s = Scenario::parse("t.toml", &text).unwrap();
    let r = sluice_sim::Simulation::new(&s).unwrap().run();
    r.flows[0].startup_s.expect("the start-up ended")
}

#[test]
fn an_idle_xterm_startup_takes_about_its_think_time_longer_with_think() {
    let think = StartupTrace::resolve("xterm", std::path::Path::new("."))
        .unwrap()
        .total_think()
        .as_secs_f64();
    let (s_suite, with_think) = (
        idle_startup_s("xterm", "s-suite"),
        idle_startup_s("xterm", "think"),
    );
    let longer = with_think - s_suite;
    // Think time before a read-ahead overlaps with the ones in flight, so
    // the start-up grows by most of the think time, never by more.
    assert!(
        (0.7 * think..=think + 1e-9).contains(&longer),
        "s-suite {s_suite:.3} s, think {with_think:.3} s, total think {think:.3} s"
    );
}
