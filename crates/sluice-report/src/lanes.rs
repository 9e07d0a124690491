//! The "Service order" panel, drawn as SVG text by hand: one lane per
//! flow, each request a bar from its dispatch to its completion. Written
//! directly rather than through plotters because a request lasts a
//! fraction of a pixel: plotters rounds coordinates to whole pixels and
//! would draw such a bar zero wide, where here it is kept at least one
//! pixel wide and placed to a tenth of one. Every panel of a page shares
//! one [`Axis`], so panels stacked one above the other read side by side.

use std::fmt::Write;

use plotters::style::RGBColor;

use super::esc;
use super::plots::{svg_open, tick, wrap};

/// Panel width, pixels (the same as the other figures').
const WIDTH: f64 = 820.0;
/// Room right of the plot.
const RIGHT: f64 = 16.0;
/// The title's band at the top.
const TOP: f64 = 30.0;
/// The time axis' band at the bottom: ticks, their labels, its name.
const BOTTOM: f64 = 44.0;
/// Narrowest bar drawn, pixels: a request shorter than this still shows.
const MIN_BAR: f64 = 1.0;
/// Lane label characters the label column makes room for; a longer
/// label is drawn whole, its letters set closer to fit (never cut).
const LABEL_CHARS: usize = 34;
/// Characters of a title's line (longer titles wrap).
const TITLE_CHARS: usize = 95;

/// A lane with more bars than this has its bars less than a pixel apart
/// merged (the picture is the same; the SVG, much smaller).
pub(crate) const MERGE_ABOVE: usize = 5_000;

/// The time axis every panel of the page shares.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Axis {
    /// The span drawn, ms since the run's start.
    pub lo_ms: f64,
    pub hi_ms: f64,
    /// Between ticks: a round number of ms or s.
    pub step_ms: f64,
    /// Room for the lane labels, pixels: the same in every panel so that
    /// their plots line up.
    pub label_px: f64,
}

impl Axis {
    /// The axis spanning `lo_ms..hi_ms`, widened to whole ticks, with
    /// room for `labels`.
    pub(crate) fn new<'a>(lo_ms: f64, hi_ms: f64, labels: impl Iterator<Item = &'a str>) -> Axis {
        let longest = labels
            .map(|l| l.chars().count().min(LABEL_CHARS))
            .max()
            .unwrap_or(0);
        let (lo_ms, hi_ms) = if lo_ms.is_finite() && hi_ms > lo_ms {
            (lo_ms, hi_ms)
        } else {
            (0.0, 1.0)
        };
        let step_ms = step(hi_ms - lo_ms);
        Axis {
            lo_ms: (lo_ms / step_ms).floor() * step_ms,
            hi_ms: (hi_ms / step_ms).ceil() * step_ms,
            step_ms,
            // About 7 pixels a character at the labels' size.
            label_px: (longest as f64 * 7.0 + 16.0).clamp(60.0, 256.0),
        }
    }

    fn x0(&self) -> f64 {
        self.label_px
    }

    fn x1(&self) -> f64 {
        WIDTH - RIGHT
    }

    /// ms per pixel.
    fn ms_per_px(&self) -> f64 {
        (self.hi_ms - self.lo_ms) / (self.x1() - self.x0())
    }

    /// The x of time `ms`, clamped to the plot.
    fn x(&self, ms: f64) -> f64 {
        let x = self.x0() + (ms - self.lo_ms) / self.ms_per_px();
        x.clamp(self.x0(), self.x1())
    }
}

/// One flow's lane.
#[derive(Clone, Debug)]
pub(crate) struct Lane {
    pub label: String,
    pub color: RGBColor,
    /// Each request's (dispatched, completed) ms.
    pub bars: Vec<(f64, f64)>,
}

/// A panel: `title` over `lanes` (top first) on `axis`. Returns the SVG
/// and how many lanes had their bars merged ([`MERGE_ABOVE`]).
pub(crate) fn panel(title: &str, lanes: &[Lane], axis: &Axis) -> (String, usize) {
    let n = lanes.len();
    let lane_h = if n <= 20 { 18.0 } else { 13.0 };
    let font = if n <= 20 { 12 } else { 11 };
    let plot_h = lane_h * n.max(1) as f64;
    let title_lines = wrap(title, TITLE_CHARS);
    let top = TOP + 18.0 * (title_lines.len() as f64 - 1.0);
    let height = top + plot_h + BOTTOM;
    let (x0, x1) = (axis.x0(), axis.x1());
    let mut s = svg_open(WIDTH, height);
    for (l, line) in title_lines.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"8\" y=\"{}\" font-size=\"15\" font-weight=\"bold\">{}</text>",
            20 + 18 * l,
            esc(line)
        );
    }
    // Lane stripes, then the time grid over them, then the bars.
    for i in (1..n).step_by(2) {
        let _ = writeln!(
            s,
            "<rect x=\"{x0}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{lane_h}\" fill=\"#f3f3f3\"/>",
            top + lane_h * i as f64,
            x1 - x0
        );
    }
    let ticks = ticks(axis);
    for &(ms, _) in &ticks {
        let x = axis.x(ms);
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
            top + plot_h
        );
    }
    let mut merged = 0;
    for (i, lane) in lanes.iter().enumerate() {
        let y = top + lane_h * i as f64;
        let mid = y + lane_h / 2.0;
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{mid:.1}\" font-size=\"{font}\" text-anchor=\"end\" \
             dominant-baseline=\"central\"{}>{}</text>",
            x0 - 6.0,
            // A label too long for its column: its letters set closer.
            if lane.label.chars().count() as f64 * 7.0 > x0 - 12.0 {
                format!(
                    " textLength=\"{:.0}\" lengthAdjust=\"spacingAndGlyphs\"",
                    x0 - 12.0
                )
            } else {
                String::new()
            },
            esc(&lane.label)
        );
        let (bars, did) = bars(&lane.bars, axis);
        merged += usize::from(did);
        if bars.is_empty() {
            continue;
        }
        let RGBColor(r, g, b) = lane.color;
        let _ = write!(s, "<path fill=\"#{r:02x}{g:02x}{b:02x}\" d=\"");
        let (top, h) = (y + 2.0, lane_h - 4.0);
        for (a, z) in bars {
            let (xa, xz) = (axis.x(a), axis.x(z));
            let w = (xz - xa).max(MIN_BAR);
            let xa = xa.min(x1 - w);
            let _ = write!(s, "M{xa:.1} {top:.1}h{w:.1}v{h}h-{w:.1}z");
        }
        s.push_str("\"/>\n");
    }
    if n == 0 {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" \
             dominant-baseline=\"central\" fill=\"#555\">no requests</text>",
            (x0 + x1) / 2.0,
            top + plot_h / 2.0
        );
    }
    let _ = writeln!(
        s,
        "<rect x=\"{x0}\" y=\"{top}\" width=\"{:.1}\" height=\"{plot_h}\" fill=\"none\" stroke=\"#888\"/>",
        x1 - x0
    );
    // The time axis.
    let base = top + plot_h;
    let seconds = axis.hi_ms - axis.lo_ms >= 2_000.0;
    for &(ms, ref label) in &ticks {
        let x = axis.x(ms);
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{base:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#888\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">{label}</text>",
            base + 4.0,
            base + 17.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"middle\">time since the run's start ({})</text>\n</svg>",
        (x0 + x1) / 2.0,
        base + 36.0,
        if seconds { "s" } else { "ms" }
    );
    (s, merged)
}

/// The bars to draw, in order: all of them, or for a lane of more than
/// [`MERGE_ABOVE`], neighbours less than a pixel apart merged into one.
/// Says whether it merged.
fn bars(bars: &[(f64, f64)], axis: &Axis) -> (Vec<(f64, f64)>, bool) {
    let mut v: Vec<(f64, f64)> = bars
        .iter()
        .copied()
        .filter(|&(a, z)| z >= axis.lo_ms && a <= axis.hi_ms)
        .collect();
    if v.len() <= MERGE_ABOVE {
        return (v, false);
    }
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let px = axis.ms_per_px();
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (a, z) in v {
        match out.last_mut() {
            Some(last) if a - last.1 < px => last.1 = last.1.max(z),
            _ => out.push((a, z)),
        }
    }
    (out, true)
}

/// A round step between ticks for a span of `span_ms`: about ten ticks,
/// 1, 2 or 5 times a power of ten (of s past two seconds, else of ms).
fn step(span_ms: f64) -> f64 {
    let unit = if span_ms >= 2_000.0 { 1_000.0 } else { 1.0 };
    let raw = span_ms / unit / 10.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag)
        * unit;
    if step.is_finite() && step > 0.0 {
        step
    } else {
        span_ms.max(1.0)
    }
}

/// The axis' ticks, each with its label in s or ms.
fn ticks(axis: &Axis) -> Vec<(f64, String)> {
    let unit = if axis.hi_ms - axis.lo_ms >= 2_000.0 {
        1_000.0
    } else {
        1.0
    };
    let step = axis.step_ms;
    let mut out = Vec::new();
    let mut k = (axis.lo_ms / step).round();
    while k * step <= axis.hi_ms + step * 1e-6 && out.len() < 50 {
        let ms = k * step;
        out.push((ms, tick(ms / unit)));
        k += 1.0;
    }
    out
}
