//! The report's figures, drawn by plotters as SVG text: latency CDFs,
//! throughput over time, shares against weights, and a paper's numbers
//! against ours. Each figure carries its title, axis names and legend, so
//! it reads without the page around it.

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Figure width, pixels.
const WIDTH: u32 = 820;

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

/// Most series one line chart shows; more would be unreadable.
pub(super) const MAX_LINES: usize = 10;

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a figure: {e:?}")
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
const LEGEND_WIDTH: u32 = 150;

/// A line chart's canvas: the title across the top, the plot on the left
/// and, in a column of its own on the right (so it hides no line), a key
/// naming each series' colour. Returns the plot's area.
fn with_key<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    title: &str,
    names: &[&str],
) -> Result<DrawingArea<SVGBackend<'a>, Shift>> {
    let body = root.titled(title, TITLE).map_err(err)?;
    let (plot, key) = body.split_horizontally(WIDTH - LEGEND_WIDTH);
    for (i, name) in names.iter().enumerate() {
        let y = 24 + 22 * i as i32;
        let c = color(i);
        key.draw(&PathElement::new(vec![(6, y), (30, y)], c.stroke_width(3)))
            .map_err(err)?;
        key.draw(&Text::new(
            short(name, 16),
            (36, y),
            TICKS
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
    }
    Ok(plot)
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
/// ends of a name tell names apart best).
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

/// Latency CDFs, one line per flow: percent of requests completed within
/// x ms (log scale).
pub(super) fn latency_cdf(title: &str, flows: &[(String, Vec<(f64, f64)>)]) -> Result<String> {
    let all = flows.iter().flat_map(|(_, c)| c.iter().map(|&(_, ms)| ms));
    let lo = all
        .clone()
        .filter(|&ms| ms > 0.0)
        .fold(f64::INFINITY, f64::min);
    let hi = all.fold(0.0f64, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo / 1.5, hi * 1.5)
    } else {
        (0.001, hi.max(0.01) * 10.0)
    };
    let shown = &flows[..flows.len().min(MAX_LINES)];
    let names: Vec<&str> = shown.iter().map(|(n, _)| n.as_str()).collect();
    figure(400, |root| {
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
        for (i, (_, cdf)) in shown.iter().enumerate() {
            let c = color(i);
            let points: Vec<(f64, f64)> = cdf.iter().map(|&(p, ms)| (ms.max(lo), p)).collect();
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                .map_err(err)?;
            chart
                .draw_series(points.into_iter().map(|p| Circle::new(p, 3, c.filled())))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// Each flow's throughput per bin of `interval_s`, with a marked line
/// where the warm-up ends (the table's figures start there).
pub(super) fn throughput(
    title: &str,
    interval_s: f64,
    warmup_s: f64,
    flows: &[(String, Vec<f64>)],
) -> Result<String> {
    let bins = flows.iter().map(|(_, s)| s.len()).max().unwrap_or(0).max(1);
    let top = flows
        .iter()
        .flat_map(|(_, s)| s.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.1;
    let shown = &flows[..flows.len().min(MAX_LINES)];
    let names: Vec<&str> = shown.iter().map(|(n, _)| n.as_str()).collect();
    figure(400, |root| {
        let plot = with_key(root, title, &names)?;
        let mut chart = line_chart(&plot)
            .build_cartesian_2d(0f64..bins as f64 * interval_s, 0f64..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("throughput (MB/s)")
            .label_style(TICKS)
            .axis_desc_style(AXIS)
            .x_label_formatter(&|x| tick(*x))
            .y_label_formatter(&|y| tick(*y))
            .draw()
            .map_err(err)?;
        for (i, (_, series)) in shown.iter().enumerate() {
            let points = series
                .iter()
                .enumerate()
                .map(|(k, &v)| ((k as f64 + 0.5) * interval_s, v));
            chart
                .draw_series(LineSeries::new(points, color(i).stroke_width(2)))
                .map_err(err)?;
        }
        if warmup_s > 0.0 && warmup_s < bins as f64 * interval_s {
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

/// Longest row label a bar chart prints (the table beside it has all).
const LABEL_CHARS: usize = 38;
/// Room for a bar chart's row labels: about 7.5 pixels a character.
fn label_width(labels: &[String]) -> u32 {
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    (longest as u32 * 15 / 2 + 24).clamp(80, 310)
}

/// A horizontal bar chart: for each labelled row, one bar per series
/// (`None` draws nothing for that series). `names` names the series.
pub(super) fn bars(
    title: &str,
    x_desc: &str,
    names: &[&str],
    rows: &[(String, Vec<Option<f64>>)],
) -> Result<String> {
    let n = rows.len().max(1);
    let values = rows.iter().flat_map(|(_, v)| v.iter().flatten().copied());
    let hi = values.clone().fold(0.0f64, f64::max);
    let lo = values.fold(0.0f64, f64::min);
    let digits = decimals(hi.max(-lo));
    let span = (hi - lo).max(1e-9);
    // Room on the right for the numbers at the bars' ends.
    let (lo, hi) = (
        lo - if lo < 0.0 { span * 0.12 } else { 0.0 },
        hi + span * 0.12,
    );
    let labels: Vec<String> = rows.iter().map(|(l, _)| short(l, LABEL_CHARS)).collect();
    let label_area = label_width(&labels);
    let groups = names.len().max(1) as f64;
    let height = 0.8 / groups;
    figure(
        130 + 30 * n as u32 + 12 * names.len() as u32 * n as u32,
        |root| {
            let body = root.titled(title, TITLE).map_err(err)?;
            let (key, plot) = body.split_vertically(30);
            // The key, in a row of its own above the bars.
            let mut x = label_area as i32;
            for (s, name) in names.iter().enumerate() {
                key.draw(&Rectangle::new([(x, 8), (x + 16, 22)], color(s).filled()))
                    .map_err(err)?;
                key.draw(&Text::new(
                    name.to_string(),
                    (x + 22, 15),
                    TICKS
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(err)?;
                x += 40 + 8 * name.chars().count() as i32;
            }
            let mut chart = ChartBuilder::on(&plot)
                .margin(12)
                .margin_top(4)
                .x_label_area_size(44)
                .y_label_area_size(label_area)
                .build_cartesian_2d(lo..hi, -0.5f64..n as f64 - 0.5)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(n + 1)
                .y_label_formatter(&|y| {
                    let i = y.round();
                    if (y - i).abs() < 1e-6 && i >= 0.0 {
                        labels.get(n - 1 - i as usize).cloned().unwrap_or_default()
                    } else {
                        String::new()
                    }
                })
                .label_style(TICKS)
                .axis_desc_style(AXIS)
                .x_label_formatter(&|x| tick(*x))
                .x_desc(x_desc)
                .draw()
                .map_err(err)?;
            for s in 0..names.len() {
                let c = color(s);
                // Row 0 on top; series s is the s-th bar of its row.
                let bar = |i: usize, v: &Vec<Option<f64>>| {
                    let x = (*v.get(s)?)?;
                    let y0 = (n - 1 - i) as f64 + 0.4 - height * (s as f64 + 1.0);
                    Some((x, y0))
                };
                let rects = rows.iter().enumerate().filter_map(|(i, (_, v))| {
                    let (x, y0) = bar(i, v)?;
                    Some(Rectangle::new(
                        [(0f64.max(lo), y0), (x, y0 + height)],
                        c.filled(),
                    ))
                });
                chart.draw_series(rects).map_err(err)?;
                // Each bar's number at its end, so short bars still read.
                let numbers = rows.iter().enumerate().filter_map(|(i, (_, v))| {
                    let (x, y0) = bar(i, v)?;
                    Some(Text::new(
                        format!("{x:.digits$}"),
                        (x.max(0.0) + span * 0.01, y0 + height / 2.0),
                        NUMBERS
                            .into_font()
                            .color(&BLACK)
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    ))
                });
                chart.draw_series(numbers).map_err(err)?;
            }
            Ok(())
        },
    )
}
