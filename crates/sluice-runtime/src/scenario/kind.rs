//! The keys of one flow kind: start-up, video, pool and trace flows' own
//! settings, checked and read once per `[[flow]]`.

use super::expand::seconds;
use super::*;

/// Settings of start-up and video flows, read once per `[[flow]]`.
#[derive(Default)]
pub(super) struct KindKeys {
    pub(super) pool_weights: Vec<u32>,
    pub(super) size_mean: f64,
    pub(super) size_sd: f64,
    pub(super) read_fraction: f64,
    pub(super) trace: Option<Arc<StartupTrace>>,
    pub(super) replay: Replay,
    /// Trace flows: the trace as read, its timing and offset policy.
    pub(super) block_trace: Option<Arc<Trace>>,
    /// Trace flows: one flow, or one per volume or process (`flows`).
    pub(super) split: trace::Split,
    pub(super) timing: Timing,
    pub(super) offsets: Offsets,
    pub(super) repeat: Option<(Duration, Duration)>,
    pub(super) frame_period: Duration,
    pub(super) buffer_frames: u32,
    pub(super) requests: Option<u64>,
}

impl KindKeys {
    /// The flow's kind with its own settings, as read for `pattern`;
    /// `trace_requests` are a block trace's requests, placed.
    pub(super) fn flow_kind(
        &self,
        pattern: Pattern,
        runs: Option<u64>,
        trace_requests: Option<Arc<Vec<trace::Request>>>,
    ) -> Result<FlowKind> {
        Ok(match pattern {
            Pattern::SeqRead => FlowKind::Greedy(GreedyPattern::SeqRead),
            Pattern::RandRead => FlowKind::Greedy(GreedyPattern::RandRead),
            Pattern::SeqWrite => FlowKind::Greedy(GreedyPattern::SeqWrite),
            Pattern::RandWrite => FlowKind::Greedy(GreedyPattern::RandWrite),
            Pattern::Startup => FlowKind::Startup(StartupSpec {
                trace: self
                    .trace
                    .clone()
                    .ok_or_else(|| fail("a startup flow needs trace = NAME or path"))?,
                replay: self.replay,
                repeat: self.repeat,
                runs,
            }),
            Pattern::Video => FlowKind::Video(VideoSpec {
                frame_period: self.frame_period,
                buffer_frames: self.buffer_frames,
            }),
            Pattern::Pool => FlowKind::Pool(PoolSpec {
                weights: self.pool_weights.clone(),
                size_mean: self.size_mean,
                size_sd: self.size_sd,
                read_fraction: self.read_fraction,
            }),
            Pattern::Trace => FlowKind::Trace(TraceSpec {
                requests: trace_requests
                    .ok_or_else(|| fail("a trace flow needs trace = \"path\""))?,
                timing: self.timing,
            }),
        })
    }
}

/// A trace flow's `from_s`, `to_s` and `speed`, checked.
pub(crate) struct Window {
    /// Where the window starts, from the trace's first arrival.
    pub(crate) from: Duration,
    to: Option<Duration>,
    speed: f64,
}

impl Window {
    /// Whether the window is the whole trace, as recorded.
    pub(crate) fn is_whole(&self) -> bool {
        self.from == Duration::ZERO && self.to.is_none() && self.speed == 1.0
    }

    pub(crate) fn of(f: &FlowBuilder) -> Result<Window> {
        let from = seconds("from_s", f.from_s.unwrap_or(0.0), 0.0)?;
        let to = f.to_s.map(|t| seconds("to_s", t, 0.0)).transpose()?;
        if to.is_some_and(|to| to <= from) {
            return Err(fail("to_s must be after from_s"));
        }
        let speed = f.speed.unwrap_or(1.0);
        if !speed.is_finite() || !(1e-3..=1e6).contains(&speed) {
            return Err(fail(format!(
                "speed must be 0.001..=1e6 (got {})",
                sluice::short_number(speed)
            )));
        }
        Ok(Window { from, to, speed })
    }

    /// The trace cut to the window and sped up; the trace itself when the
    /// window is all of it.
    pub(crate) fn apply(&self, trace: Arc<Trace>) -> Result<Arc<Trace>> {
        if self.is_whole() {
            return Ok(trace);
        }
        let name = trace.name.clone();
        let t = Arc::try_unwrap(trace).unwrap_or_else(|t| (*t).clone());
        t.window(self.from, self.to, self.speed)
            .map(Arc::new)
            .ok_or_else(|| {
                fail(format!(
                    "trace {name}: no request arrives between from_s and to_s"
                ))
            })
    }
}

impl Scenario {
    /// A trace flow's file, read as its `format` and `flows` say.
    fn read_trace(f: &FlowBuilder, base: &Path, split: trace::Split, seed: u64) -> Result<Trace> {
        let path = f
            .trace
            .as_deref()
            .ok_or_else(|| fail("a trace flow needs trace = \"path\" and format = \"...\""))?;
        let format = f.format.as_deref().ok_or_else(|| {
            fail(format!(
                "a trace flow needs format = one of {}",
                value_names(&trace::Format::ALL)
            ))
        })?;
        let format = trace::Format::parse(format).ok_or_else(|| {
            fail(format!(
                "format: unknown value '{format}' (valid: {})",
                value_names(&trace::Format::ALL)
            ))
        })?;
        let options = trace::ReadOptions { split, seed };
        Trace::load_with(&base.join(path), format, options)
    }

    /// Keys that only start-up or video flows take.
    pub(super) fn kind_keys(
        f: &FlowBuilder,
        pattern: Pattern,
        base: &Path,
        seed: u64,
    ) -> Result<KindKeys> {
        let mut k = KindKeys::default();
        let only = |key: &str, set: bool, which: Pattern| {
            if set && pattern != which {
                Err(fail(format!(
                    "{key} applies only to pattern = \"{}\"",
                    if which == Pattern::Startup {
                        "startup"
                    } else {
                        "video"
                    }
                )))
            } else {
                Ok(())
            }
        };
        if f.trace.is_some() && !matches!(pattern, Pattern::Startup | Pattern::Trace) {
            return Err(fail(
                "trace applies only to pattern = \"startup\" or \"trace\"",
            ));
        }
        for (key, set) in [
            ("format", f.format.is_some()),
            ("timing", f.timing.is_some()),
            ("offsets", f.offsets.is_some()),
            ("flows", f.flows.is_some()),
            ("from_s", f.from_s.is_some()),
            ("to_s", f.to_s.is_some()),
            ("speed", f.speed.is_some()),
        ] {
            if set && pattern != Pattern::Trace {
                return Err(fail(format!("{key} applies only to pattern = \"trace\"")));
            }
        }
        only("replay", f.replay.is_some(), Pattern::Startup)?;
        only("repeat_s", f.repeat_s.is_some(), Pattern::Startup)?;
        only("pause_s", f.pause_s.is_some(), Pattern::Startup)?;
        only("runs", f.runs.is_some(), Pattern::Startup)?;
        only("fps", f.fps.is_some(), Pattern::Video)?;
        only("buffer_frames", f.buffer_frames.is_some(), Pattern::Video)?;
        only("clip_s", f.clip_s.is_some(), Pattern::Video)?;
        only("weights", f.weights.is_some(), Pattern::Pool)?;
        only(
            "size_mean_sectors",
            f.size_mean_sectors.is_some(),
            Pattern::Pool,
        )?;
        only(
            "size_sd_sectors",
            f.size_sd_sectors.is_some(),
            Pattern::Pool,
        )?;
        if f.read_fraction.is_some()
            && !matches!(
                pattern,
                Pattern::Pool | Pattern::RandRead | Pattern::RandWrite
            )
        {
            return Err(fail(
                "read_fraction applies to pool, rand-read and rand-write flows only",
            ));
        }
        match pattern {
            Pattern::Trace => {
                if let Some(split) = &f.flows {
                    k.split = trace::Split::parse(split).ok_or_else(|| {
                        fail(format!(
                            "flows: unknown value '{split}' (valid: {})",
                            value_names(&trace::Split::ALL)
                        ))
                    })?;
                }
                let window = Window::of(f)?;
                if let Some(t) = &f.timing {
                    k.timing = Timing::parse(t).ok_or_else(|| {
                        fail(format!(
                            "timing: unknown value '{t}' (valid: {})",
                            value_names(&Timing::ALL)
                        ))
                    })?;
                }
                if let Some(o) = &f.offsets {
                    k.offsets = Offsets::parse(o).ok_or_else(|| {
                        fail(format!(
                            "offsets: unknown value '{o}' (valid: {})",
                            value_names(&Offsets::ALL)
                        ))
                    })?;
                }
                let trace = match &f.trace_data {
                    Some(t) => t.clone(),
                    None => Arc::new(Self::read_trace(f, base, k.split, seed)?),
                };
                k.block_trace = Some(window.apply(trace)?);
            }
            Pattern::Startup => {
                let spec = f.trace.as_deref().ok_or_else(|| {
                    fail("a startup flow needs trace = \"xterm\" | \"gnometerm\" | \"bash\" | \"path\"")
                })?;
                k.trace = Some(StartupTrace::resolve(spec, base)?);
                if let Some(r) = &f.replay {
                    k.replay = Replay::parse(r).ok_or_else(|| {
                        let names: Vec<_> = Replay::ALL.iter().map(|m| m.0).collect();
                        fail(format!(
                            "replay: unknown value '{r}' (valid: {})",
                            names.join(", ")
                        ))
                    })?;
                }
                if f.repeat_s.is_some() || f.pause_s.is_some() {
                    let period = seconds("repeat_s", f.repeat_s.unwrap_or(0.0), 0.0)?;
                    let pause = seconds("pause_s", f.pause_s.unwrap_or(0.0), 0.0)?;
                    k.repeat = Some((period, pause));
                }
                if f.runs == Some(0) {
                    return Err(fail("runs must be at least 1"));
                }
            }
            Pattern::Pool => {
                let w = f.weights.clone().unwrap_or_else(|| vec![80, 20]);
                if w.is_empty() || w.len() > 64 || w.iter().any(|&x| !(1..=1000).contains(&x)) {
                    return Err(fail("weights must list 1..=64 weights, each 1..=1000"));
                }
                k.pool_weights = w;
                k.size_mean = f.size_mean_sectors.unwrap_or(8.0);
                k.size_sd = f.size_sd_sectors.unwrap_or(2.0);
                k.read_fraction = f.read_fraction.unwrap_or(2.0 / 3.0);
                // Sizes up to 64 MiB, as request_kib.
                if !(1.0..=131_072.0).contains(&k.size_mean) {
                    return Err(fail(format!(
                        "size_mean_sectors must be 1..=131072 (got {})",
                        sluice::short_number(k.size_mean)
                    )));
                }
                if !(0.0..=131_072.0).contains(&k.size_sd) {
                    return Err(fail(format!(
                        "size_sd_sectors must be 0..=131072 (got {})",
                        sluice::short_number(k.size_sd)
                    )));
                }
                if !(0.0..=1.0).contains(&k.read_fraction) {
                    return Err(fail(format!(
                        "read_fraction must be 0..=1 (got {})",
                        sluice::short_number(k.read_fraction)
                    )));
                }
            }
            Pattern::Video => {
                let fps = f.fps.unwrap_or(27.0);
                if !fps.is_finite() || !(0.1..=1000.0).contains(&fps) {
                    return Err(fail(format!(
                        "fps must be 0.1..=1000 (got {})",
                        sluice::short_number(fps)
                    )));
                }
                let clip = f.clip_s.unwrap_or(30.0);
                if !clip.is_finite() || !(0.1..=1e6).contains(&clip) {
                    return Err(fail(format!(
                        "clip_s must be a positive number of seconds (got {})",
                        sluice::short_number(clip)
                    )));
                }
                k.frame_period = Duration::from_nanos_f64(NS_PER_S as f64 / fps);
                k.buffer_frames = f.buffer_frames.unwrap_or(8);
                k.requests = Some(((clip * fps).round() as u64).max(1));
            }
            _ => {}
        }
        Ok(k)
    }
}
