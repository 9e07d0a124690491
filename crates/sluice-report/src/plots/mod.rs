//! The report's figures, drawn by plotters as SVG text: latency CDFs,
//! throughput over time, shares against weights, and a paper's numbers
//! against ours. Each figure carries its title, axis names and legend, so
//! it reads without the page around it.

mod bars;

pub(super) use bars::bars;
use bars::{nice_step, value};

use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Flows past which throughput over time is drawn as one strip per flow
/// rather than lines over each other.
pub(super) const STRIPS_ABOVE: usize = 6;

/// Figure width, pixels.
const WIDTH: u32 = 820;

/// Largest magnitude an axis reaches: past it values are clipped. The
/// results' ranges are checked as they are read (`crate::ranges`); this
/// keeps every axis finite and its ticks few whatever a caller passes
/// (a finite 1e308 once made an axis whose ticks never ended).
const AXIS_MAX: f64 = 1e15;

/// Most ticks an axis drawn by hand gets (about ten is the aim).
const MAX_TICKS: usize = 100;

/// Most decades a log axis spans: its low end is at least its high end
/// over this (a subnormal value, 1e-310, would make it 600 decades and
/// the tick search all but endless).
const LOG_SPAN: f64 = 1e12;

/// The low end of a log axis whose smallest positive value is `least`
/// and whose high end is `hi`: at most [`LOG_SPAN`] below `hi`.
pub(super) fn log_floor(least: f64, hi: f64) -> f64 {
    least.max(hi / LOG_SPAN).max(f64::MIN_POSITIVE)
}

/// `x` within `-AXIS_MAX..=AXIS_MAX` (NaN as 0), for an axis' end.
pub(super) fn bounded(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-AXIS_MAX, AXIS_MAX)
    }
}

/// Series colours (colour-blind-safe Tableau 10).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Colour of series `i`.
pub(super) fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Most series one line chart draws; past it the page says how many
/// more there are (all are in the flows' table).
pub(super) const MAX_LINES: usize = 40;

/// Palette entries before the colours repeat; past it each repeat draws
/// its lines with another dash pattern.
const COLOURS: usize = PALETTE.len();

/// Marker shapes a line's points may carry.
const MARKERS: usize = 7;

/// The dash pattern of series `i`: solid for the first round of the
/// palette, then dashed, then dotted ((dash, gap) pixels).
pub(super) fn dash(i: usize) -> Option<(u32, u32)> {
    match (i / COLOURS) % 3 {
        0 => None,
        1 => Some((9, 5)),
        _ => Some((2, 4)),
    }
}

/// Series `i`'s marker at `at`: a shape of its own (filled or hollow
/// circle, triangle, square, a cross), so that lines drawn over each other
/// still tell apart.
pub(super) fn mark<'a, DB: DrawingBackend + 'a, C: Clone + 'a>(
    i: usize,
    at: C,
) -> DynElement<'a, DB, C> {
    let c = color(i);
    let e = EmptyElement::at(at);
    let (fill, line) = (c.filled(), c.stroke_width(2));
    match i % MARKERS {
        0 => (e + Circle::new((0, 0), 4, fill)).into_dyn(),
        1 => (e + TriangleMarker::new((0, 0), 5, fill)).into_dyn(),
        2 => (e + Rectangle::new([(-4, -4), (4, 4)], fill)).into_dyn(),
        3 => (e + Cross::new((0, 0), 4, line)).into_dyn(),
        4 => (e + Circle::new((0, 0), 4, line)).into_dyn(),
        5 => (e + Rectangle::new([(-4, -4), (4, 4)], line)).into_dyn(),
        _ => (e + TriangleMarker::new((0, 0), 5, line)).into_dyn(),
    }
}

/// Which of `len` points of series `i` (of `n`) carry its marker: about
/// eight, staggered from one series to the next so that markers of
/// coinciding lines do not hide each other.
fn marked(len: usize, i: usize, n: usize) -> impl Iterator<Item = usize> {
    let every = (len / 8).max(1);
    let offset = if n > 0 { i * every / n.max(1) } else { 0 };
    (0..len).filter(move |k| k % every == offset % every)
}

/// Draw series `i`'s line through `points` in its colour and dash
/// pattern, and its markers.
fn line<X, Y>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    i: usize,
    n: usize,
    points: &[(f64, f64)],
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let style = color(i).stroke_width(2);
    match dash(i) {
        None => {
            chart
                .draw_series(LineSeries::new(points.iter().copied(), style))
                .map_err(err)?;
        }
        Some((on, off)) => {
            chart
                .draw_series(DashedLineSeries::new(
                    points.iter().copied(),
                    on,
                    off,
                    style,
                ))
                .map_err(err)?;
        }
    }
    let marks: Vec<_> = marked(points.len(), i, n)
        .map(|k| mark(i, points[k]))
        .collect();
    for m in marks {
        chart.plotting_area().draw(&m).map_err(err)?;
    }
    Ok(())
}

fn err<E: std::fmt::Debug>(e: E) -> Error {
    Error::Draw(format!("{e:?}"))
}

/// Draw on a white canvas of `height`; returns the SVG text.
fn figure(
    height: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Tick labels, axis names and titles, large enough to read at the page's
/// size (plotters draws SVG text at about 0.8 of the size asked for).
const TICKS: (&str, u32) = ("sans-serif", 15);
const AXIS: (&str, u32) = ("sans-serif", 17);
const TITLE: (&str, u32) = ("sans-serif", 21);
/// The numbers at the bars' ends.
const NUMBERS: (&str, u32) = ("sans-serif", 14);

/// Width of a line chart's legend column, pixels.
const LEGEND_WIDTH: u32 = 170;
/// Characters of a legend line (longer names wrap onto more lines).
const LEGEND_CHARS: usize = 17;
/// A legend line's height, pixels.
const LEGEND_LINE: i32 = 16;
/// Gap between legend entries, pixels.
const LEGEND_GAP: i32 = 7;

/// Pixels a line chart's key needs for `names`.
fn key_height(names: &[&str]) -> u32 {
    let lines: usize = names.iter().map(|n| wrap(n, LEGEND_CHARS).len()).sum();
    (24 + lines as i32 * LEGEND_LINE + names.len() as i32 * LEGEND_GAP) as u32
}

/// Height of a line chart of `names`: `base`, or more if its key needs
/// more room.
fn chart_height(base: u32, names: &[&str]) -> u32 {
    base.max(key_height(names) + 50)
}

/// A line chart's canvas: the title across the top, the plot on the left
/// and, in a column of its own on the right (so it hides no line), a key
/// naming each series' colour, dash pattern and marker; long names wrap.
/// Returns the plot's area.
fn with_key<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    title: &str,
    names: &[&str],
) -> Result<DrawingArea<SVGBackend<'a>, Shift>> {
    let body = titled(root, title)?;
    let (plot, key) = body.split_horizontally(WIDTH - LEGEND_WIDTH);
    draw_key(&key, names, 0)?;
    Ok(plot)
}

/// A key of `names` (series `first` on) down `key`.
fn draw_key(key: &DrawingArea<SVGBackend<'_>, Shift>, names: &[&str], first: usize) -> Result<()> {
    let mut y = 20;
    for (k, name) in names.iter().enumerate() {
        let i = first + k;
        let lines = wrap(name, LEGEND_CHARS);
        let c = color(i).stroke_width(3);
        match dash(i) {
            None => key
                .draw(&PathElement::new(vec![(4, y), (34, y)], c))
                .map_err(err)?,
            Some((on, off)) => key
                .draw(&DashedPathElement::new(vec![(4, y), (34, y)], on, off, c))
                .map_err(err)?,
        }
        key.draw(&mark(i, (19, y))).map_err(err)?;
        for (l, text) in lines.iter().enumerate() {
            key.draw(&Text::new(
                text.clone(),
                (40, y + l as i32 * LEGEND_LINE),
                TICKS
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(err)?;
        }
        y += lines.len() as i32 * LEGEND_LINE + LEGEND_GAP;
    }
    Ok(())
}

/// `root` with `title` across its top, wrapped onto a second line if
/// long; returns the area below it.
fn titled<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    title: &str,
) -> Result<DrawingArea<SVGBackend<'a>, Shift>> {
    let lines = wrap(title, TITLE_CHARS);
    for (l, text) in lines.iter().enumerate() {
        root.draw(&Text::new(
            text.clone(),
            (WIDTH as i32 / 2, 6 + 24 * l as i32),
            TITLE
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
    }
    let (_, body) = root.split_vertically(12 + 24 * lines.len() as u32);
    Ok(body)
}

/// Characters of a title's line.
const TITLE_CHARS: usize = 70;

/// The opening of an SVG figure drawn by hand, `width` by `height` pixels
/// on white, each part on its own line; the caller closes it.
pub(super) fn svg_open(width: f64, height: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\">\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"#fff\"/>\n"
    )
}

/// `s` broken into lines of at most about `width` characters: between
/// words, else after a '-', '_', '=', ',', '/', ':' or '+' inside a long
/// one, and only a word longer than a line with none of those is split
/// where the line ends. Nothing is left out.
pub(super) fn wrap(s: &str, width: usize) -> Vec<String> {
    let width = width.max(4);
    // Pieces: words, and long words cut after their punctuation.
    let mut pieces: Vec<String> = Vec::new();
    for word in s.split_whitespace() {
        if word.chars().count() <= width {
            pieces.push(word.to_string());
            continue;
        }
        let mut cur = String::new();
        for ch in word.chars() {
            cur.push(ch);
            let n = cur.chars().count();
            if n >= width
                || (matches!(ch, '-' | '_' | '=' | ',' | '/' | ':' | '+' | '.') && n >= width / 3)
            {
                pieces.push(std::mem::take(&mut cur) + "\u{0}");
            }
        }
        if !cur.is_empty() {
            pieces.push(cur);
        }
    }
    // Join pieces into lines: a piece ending in NUL continues a word (no
    // space before the next piece).
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut glued = false;
    for p in pieces {
        let (text, glue) = match p.strip_suffix('\u{0}') {
            Some(t) => (t.to_string(), true),
            None => (p, false),
        };
        let sep = usize::from(!line.is_empty() && !glued);
        if !line.is_empty() && line.chars().count() + sep + text.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        } else if sep == 1 {
            line.push(' ');
        }
        line.push_str(&text);
        glued = glue;
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// A line chart's plot area (see [`with_key`]) with room for its axes'
/// labels.
fn line_chart<'a, 'b>(
    plot: &'a DrawingArea<SVGBackend<'b>, Shift>,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut c = ChartBuilder::on(plot);
    c.margin(10).x_label_area_size(44).y_label_area_size(60);
    c
}

/// `s` cut to `max` characters, the middle replaced by an ellipsis (the
/// ends of a name tell names apart best). Used where the full text is
/// beside it (the request logs' lanes and messages); figures wrap instead.
pub(super) fn short(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let mut o: String = s.chars().take(head).collect();
    o.push('…');
    o.extend(s.chars().skip(n - tail));
    o
}

/// A log axis's range for latencies `values` (ms): from below the least
/// positive to above the largest, within [`LOG_SPAN`] and [`AXIS_MAX`].
fn log_range(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let lo = values
        .clone()
        .filter(|&ms| ms > 0.0)
        .fold(f64::INFINITY, f64::min);
    let hi = bounded(values.fold(0.0f64, f64::max));
    let lo = log_floor(lo.min(AXIS_MAX), hi);
    if lo.is_finite() && hi > lo {
        (lo / 1.5, hi * 1.5)
    } else {
        (0.001, hi.max(0.01) * 10.0)
    }
}

/// Latency CDFs, one line per flow: percent of requests completed within
/// x ms (log scale). Every flow given is drawn.
pub(super) fn latency_cdf(title: &str, flows: &[(String, Vec<(f64, f64)>)]) -> Result<String> {
    let (lo, hi) = log_range(flows.iter().flat_map(|(_, c)| c.iter().map(|&(_, ms)| ms)));
    let names: Vec<&str> = flows.iter().map(|(n, _)| n.as_str()).collect();
    figure(chart_height(420, &names), |root| {
        let plot = with_key(root, title, &names)?;
        let mut chart = line_chart(&plot)
            .build_cartesian_2d((lo..hi).log_scale(), 0f64..100f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("latency (ms, log scale)")
            .y_desc("requests done within (%)")
            .label_style(TICKS)
            .axis_desc_style(AXIS)
            .x_label_formatter(&|x| tick(*x))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(err)?;
        for (i, (_, cdf)) in flows.iter().enumerate() {
            // Within the axes (as every point of a result read is).
            let points: Vec<(f64, f64)> = cdf
                .iter()
                .map(|&(p, ms)| (ms.clamp(lo, hi), p.clamp(0.0, 100.0)))
                .collect();
            line(&mut chart, i, flows.len(), &points)?;
        }
        Ok(())
    })
}

/// Each volume's p99.9 against its rank from the quietest (0..1), one
/// line per fleet, the y axis in ms on a log scale; a dashed line marks
/// the quietest 10%.
pub(super) fn quietest(title: &str, fleets: &[(String, Vec<(f64, f64)>)]) -> Result<String> {
    let (lo, hi) = log_range(fleets.iter().flat_map(|(_, p)| p.iter().map(|&(_, ms)| ms)));
    let names: Vec<&str> = fleets.iter().map(|(n, _)| n.as_str()).collect();
    figure(chart_height(420, &names), |root| {
        let plot = with_key(root, title, &names)?;
        let mut chart = line_chart(&plot)
            .build_cartesian_2d(0f64..1f64, (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("volumes ranked by requests, the quietest first (fraction)")
            .y_desc("p99.9 latency (ms, log scale)")
            .label_style(TICKS)
            .axis_desc_style(AXIS)
            .x_label_formatter(&|x| format!("{x:.1}"))
            .y_label_formatter(&|y| tick(*y))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(DashedPathElement::new(
                vec![(0.1, lo), (0.1, hi)],
                4,
                4,
                BLACK.mix(0.4),
            )))
            .map_err(err)?;
        // Named on the plot too: the SVG may be shown without the page's
        // caption (`--svg`).
        chart
            .draw_series([EmptyElement::at((0.1, hi))
                + Text::new(
                    "quietest 10%",
                    (5, 3),
                    TICKS
                        .into_font()
                        .color(&BLACK.mix(0.55))
                        .pos(Pos::new(HPos::Left, VPos::Top)),
                )])
            .map_err(err)?;
        for (i, (_, points)) in fleets.iter().enumerate() {
            let points: Vec<(f64, f64)> = points
                .iter()
                .map(|&(x, ms)| (x.clamp(0.0, 1.0), ms.clamp(lo, hi)))
                .collect();
            line(&mut chart, i, fleets.len(), &points)?;
        }
        Ok(())
    })
}

/// Flows' indices in two groups when their peaks span more than
/// [`SPAN`] (the large, then the small, split at the widest gap between
/// peaks), else one group of all.
pub(super) fn by_magnitude(peaks: &[f64]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..peaks.len()).filter(|&i| peaks[i] > 0.0).collect();
    order.sort_by(|&a, &b| peaks[b].total_cmp(&peaks[a]));
    let all: Vec<usize> = (0..peaks.len()).collect();
    let (Some(&top), Some(&low)) = (order.first(), order.last()) else {
        return vec![all];
    };
    if peaks[top] / peaks[low] <= SPAN {
        return vec![all];
    }
    // The widest ratio between neighbours splits the two.
    let cut = (1..order.len())
        .max_by(|&a, &b| {
            let ra = peaks[order[a - 1]] / peaks[order[a]];
            let rb = peaks[order[b - 1]] / peaks[order[b]];
            ra.total_cmp(&rb)
        })
        .unwrap_or(1);
    let threshold = peaks[order[cut - 1]];
    let (big, small): (Vec<usize>, Vec<usize>) =
        all.into_iter().partition(|&i| peaks[i] >= threshold);
    vec![big, small]
}

/// Largest ratio of values one linear axis shows; past it a chart takes
/// a log axis or splits into panels.
pub(super) const SPAN: f64 = 20.0;

/// Each flow's throughput per bin of `interval_s`, with a marked line
/// where the warm-up ends (the table's figures start there). When the
/// flows' peaks span more than [`SPAN`], the small ones get a panel of
/// their own below (one SVG still, every flow in it).
pub(super) fn throughput(
    title: &str,
    interval_s: f64,
    warmup_s: f64,
    flows: &[(String, Vec<f64>)],
) -> Result<String> {
    let bins = flows.iter().map(|(_, s)| s.len()).max().unwrap_or(0).max(1);
    let peaks: Vec<f64> = flows
        .iter()
        .map(|(_, s)| {
            s.iter()
                .copied()
                .filter(|v| v.is_finite())
                .fold(0.0f64, f64::max)
        })
        .collect();
    let groups = by_magnitude(&peaks);
    let names: Vec<&str> = flows.iter().map(|(n, _)| n.as_str()).collect();
    let heights: Vec<u32> = groups
        .iter()
        .map(|g| {
            let ns: Vec<&str> = g.iter().map(|&i| names[i]).collect();
            chart_height(if groups.len() > 1 { 300 } else { 400 }, &ns)
        })
        .collect();
    let title_px = 12 + 24 * wrap(title, TITLE_CHARS).len() as u32;
    figure(title_px + heights.iter().sum::<u32>(), |root| {
        let mut rest = titled(root, title)?;
        for (g, group) in groups.iter().enumerate() {
            let (panel, below) = rest.split_vertically(heights[g]);
            rest = below;
            let (plot, key) = panel.split_horizontally(WIDTH - LEGEND_WIDTH);
            let ns: Vec<&str> = group.iter().map(|&i| names[i]).collect();
            // Keep each flow's style: draw its key entry as series i.
            let mut y = 20;
            for (&i, name) in group.iter().zip(&ns) {
                let sub = key.margin(y as u32 - 20, 0, 0, 0);
                draw_key(&sub, &[name], i)?;
                y += wrap(name, LEGEND_CHARS).len() as i32 * LEGEND_LINE + LEGEND_GAP;
            }
            let top = bounded(
                group
                    .iter()
                    .map(|&i| peaks[i])
                    .fold(0.0f64, f64::max)
                    .max(1e-9)
                    * 1.1,
            );
            let end = bounded(bins as f64 * interval_s).max(1e-9);
            let mut chart = line_chart(&plot)
                .build_cartesian_2d(0f64..end, 0f64..top)
                .map_err(err)?;
            let y_desc = match (groups.len(), g) {
                (1, _) => "throughput (MB/s)",
                (_, 0) => "MB/s (the larger flows)",
                _ => "MB/s (the smaller flows)",
            };
            chart
                .configure_mesh()
                .x_desc("time (s)")
                .y_desc(y_desc)
                .label_style(TICKS)
                .axis_desc_style(AXIS)
                .x_label_formatter(&|x| tick(*x))
                .y_label_formatter(&|y| tick(*y))
                .draw()
                .map_err(err)?;
            for &i in group {
                let points: Vec<(f64, f64)> = flows[i]
                    .1
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| {
                        let t = (k as f64 + 0.5) * interval_s;
                        (t.clamp(0.0, end), v.clamp(0.0, top))
                    })
                    .collect();
                line(&mut chart, i, flows.len(), &points)?;
            }
            if warmup_s > 0.0 && warmup_s < end {
                let grey = BLACK.mix(0.55);
                chart
                    .draw_series(LineSeries::new(
                        [(warmup_s, 0.0), (warmup_s, top)],
                        grey.stroke_width(2),
                    ))
                    .map_err(err)?;
                chart
                    .draw_series([Text::new(
                        "warm-up ends",
                        (warmup_s, top),
                        TICKS
                            .into_font()
                            .color(&grey)
                            .pos(Pos::new(HPos::Left, VPos::Top)),
                    )])
                    .map_err(err)?;
            }
        }
        Ok(())
    })
}

/// An axis tick as a person writes it: 100, 2.5, 0.05 (no trailing zeros).
pub(super) fn tick(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Decimals that show a chart's values up to `top` (its largest
/// magnitude) to about three significant digits, the same for every bar.
pub(super) fn decimals(top: f64) -> usize {
    match top.abs() {
        a if a >= 100.0 => 0,
        a if a >= 10.0 => 1,
        a if a >= 1.0 => 2,
        _ => 3,
    }
}

/// Throughput over time as one strip per flow, all on one time axis (SVG
/// written by hand): each strip an area of the flow's MB/s per bin on a
/// scale common to all strips, its peak written at its right; a flow
/// whose peak is under 1/[`SPAN`] of the largest is drawn on a scale of
/// its own, and says so. Nothing overlaps, so every flow reads. `notes`
/// (by flow) are written in the flow's strip after its last busy bin.
pub(super) fn throughput_strips(
    title: &str,
    interval_s: f64,
    warmup_s: f64,
    flows: &[(String, Vec<f64>)],
    notes: &[Option<String>],
) -> String {
    use std::fmt::Write;
    let w = WIDTH as f64;
    let (x0, x1) = (130.0, w - 130.0);
    let strip = 34.0;
    let gap = 6.0;
    let title_lines = wrap(title, TITLE_CHARS);
    let top = 14.0 + 24.0 * title_lines.len() as f64;
    let plot_h = (strip + gap) * flows.len().max(1) as f64;
    let height = top + plot_h + 56.0;
    let bins = flows.iter().map(|(_, s)| s.len()).max().unwrap_or(0).max(1);
    let span = bounded(bins as f64 * interval_s.max(1e-9));
    let x = |t: f64| x0 + (x1 - x0) * (t / span).clamp(0.0, 1.0);
    let peak = |s: &[f64]| {
        s.iter()
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max)
    };
    let global = flows
        .iter()
        .map(|(_, s)| peak(s))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let mut o = svg_open(w, height);
    for (l, line) in title_lines.iter().enumerate() {
        let _ = writeln!(
            o,
            "<text x=\"{}\" y=\"{}\" font-size=\"17\" text-anchor=\"middle\">{}</text>",
            w / 2.0,
            22.0 + 24.0 * l as f64,
            super::esc(line)
        );
    }
    // The time grid.
    let step = nice_step(span);
    let mut t = 0.0;
    let mut ticks = 0;
    while t <= span + 1e-9 && ticks < MAX_TICKS {
        ticks += 1;
        let px = x(t);
        let _ = writeln!(
            o,
            "<line x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"#e4e4e4\"/>\n\
             <text x=\"{px:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
            top + plot_h,
            top + plot_h + 16.0,
            tick(t)
        );
        t += step;
    }
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"middle\">time (s); each strip a flow's MB/s per {} s bin</text>",
        (x0 + x1) / 2.0,
        top + plot_h + 38.0,
        tick(interval_s)
    );
    for (i, (name, series)) in flows.iter().enumerate() {
        let y = top + (strip + gap) * i as f64;
        let base = y + strip;
        let p = peak(series);
        let own = p > 0.0 && p * SPAN < global;
        let scale = if own { p } else { global };
        let RGBColor(r, g, b) = color(i);
        let _ = writeln!(
            o,
            "<rect x=\"{x0}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{strip}\" fill=\"#f5f5f5\"/>",
            x1 - x0
        );
        // The area, as steps: each bin flat over its width.
        let mut d = format!("M{x0:.1},{base:.1}");
        for (k, &v) in series.iter().enumerate() {
            let v = if v.is_finite() { v.max(0.0) } else { 0.0 };
            let yv = base - strip * (v / scale).min(1.0);
            let _ = write!(
                d,
                " L{:.1},{yv:.1} L{:.1},{yv:.1}",
                x(k as f64 * interval_s),
                x((k + 1) as f64 * interval_s)
            );
        }
        let _ = write!(
            d,
            " L{:.1},{base:.1} Z",
            x(series.len() as f64 * interval_s)
        );
        let _ = writeln!(
            o,
            "<path d=\"{d}\" fill=\"rgb({r},{g},{b})\" fill-opacity=\"0.55\" stroke=\"rgb({r},{g},{b})\" stroke-width=\"1.2\"/>"
        );
        // A finite flow's note (its start-up time) just past its last
        // busy bin.
        if let Some(Some(note)) = notes.get(i) {
            let last = series.iter().rposition(|&v| v > 0.0).map_or(0, |k| k + 1);
            let px = x(last as f64 * interval_s) + 4.0;
            let (px, anchor) = if px > x1 - 150.0 {
                (x1 - 4.0, "end")
            } else {
                (px, "start")
            };
            let _ = writeln!(
                o,
                "<text x=\"{px:.1}\" y=\"{:.1}\" font-size=\"12\" font-weight=\"bold\" text-anchor=\"{anchor}\" \
                 dominant-baseline=\"central\">{}</text>",
                base - strip / 2.0,
                super::esc(note)
            );
        }
        let label = wrap(name, 16);
        let first = base - strip / 2.0 - 7.0 * (label.len() as f64 - 1.0);
        for (l, text) in label.iter().enumerate() {
            let _ = writeln!(
                o,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"end\" dominant-baseline=\"central\">{}</text>",
                x0 - 8.0,
                first + 14.0 * l as f64,
                super::esc(text)
            );
        }
        let mid = base - strip / 2.0;
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" dominant-baseline=\"central\">peak {} MB/s</text>",
            x1 + 6.0,
            mid - if own { 7.0 } else { 0.0 },
            value(p)
        );
        if own {
            let _ = writeln!(
                o,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#555\" dominant-baseline=\"central\">(own scale)</text>",
                x1 + 6.0,
                mid + 8.0
            );
        }
    }
    if warmup_s > 0.0 && warmup_s < span {
        let px = x(warmup_s);
        let _ = writeln!(
            o,
            "<line x1=\"{px:.1}\" y1=\"{:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"#777\" stroke-width=\"2\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" fill=\"#555\">warm-up ends</text>",
            top - 4.0,
            top + plot_h,
            px + 4.0,
            top - 2.0
        );
    }
    o.push_str("</svg>");
    o
}
