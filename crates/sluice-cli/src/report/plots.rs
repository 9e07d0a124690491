//! The report's figures, drawn by plotters as SVG text: latency CDFs,
//! throughput over time, shares against weights, and a paper's numbers
//! against ours. Each figure carries its title, axis names and legend, so
//! it reads without the page around it.

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

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
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Most series one line chart shows; more would be unreadable.
pub const MAX_LINES: usize = 10;

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

/// A chart with its title and room for both axes' labels.
fn chart<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut c = ChartBuilder::on(root);
    c.caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56);
    c
}

/// Latency CDFs, one line per flow: percent of requests completed within
/// x ms (log scale).
pub fn latency_cdf(title: &str, flows: &[(String, Vec<(f64, f64)>)]) -> Result<String> {
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
    figure(380, |root| {
        let mut chart = chart(root, title)
            .build_cartesian_2d((lo..hi).log_scale(), 0f64..100f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("latency (ms, log scale)")
            .y_desc("requests completed within (%)")
            .x_label_formatter(&|x| {
                format!("{x:.3}")
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string()
            })
            .draw()
            .map_err(err)?;
        for (i, (name, cdf)) in flows.iter().take(MAX_LINES).enumerate() {
            let c = color(i);
            let points: Vec<(f64, f64)> = cdf.iter().map(|&(p, ms)| (ms.max(lo), p)).collect();
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                .map_err(err)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                });
            chart
                .draw_series(points.into_iter().map(|p| Circle::new(p, 3, c.filled())))
                .map_err(err)?;
        }
        legend(&mut chart)
    })
}

/// Each flow's throughput per bin of `interval_s`.
pub fn throughput(title: &str, interval_s: f64, flows: &[(String, Vec<f64>)]) -> Result<String> {
    let bins = flows.iter().map(|(_, s)| s.len()).max().unwrap_or(0).max(1);
    let top = flows
        .iter()
        .flat_map(|(_, s)| s.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.1;
    figure(380, |root| {
        let mut chart = chart(root, title)
            .build_cartesian_2d(0f64..bins as f64 * interval_s, 0f64..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("throughput (MB/s)")
            .draw()
            .map_err(err)?;
        for (i, (name, series)) in flows.iter().take(MAX_LINES).enumerate() {
            let c = color(i);
            let points = series
                .iter()
                .enumerate()
                .map(|(k, &v)| ((k as f64 + 0.5) * interval_s, v));
            chart
                .draw_series(LineSeries::new(points, c.stroke_width(2)))
                .map_err(err)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                });
        }
        legend(&mut chart)
    })
}

/// A horizontal bar chart: for each labelled row, one bar per series
/// (`None` draws nothing for that series). `names` names the series.
pub fn bars(
    title: &str,
    x_desc: &str,
    names: &[&str],
    rows: &[(String, Vec<Option<f64>>)],
) -> Result<String> {
    let n = rows.len().max(1);
    let values = rows.iter().flat_map(|(_, v)| v.iter().flatten().copied());
    let hi = values.clone().fold(0.0f64, f64::max);
    let lo = values.fold(0.0f64, f64::min);
    let span = (hi - lo).max(1e-9);
    // Room on the right for the legend.
    let (lo, hi) = (
        lo - if lo < 0.0 { span * 0.1 } else { 0.0 },
        hi + span * 0.45,
    );
    let labels: Vec<String> = rows.iter().map(|(l, _)| l.clone()).collect();
    let groups = names.len().max(1) as f64;
    figure(
        150 + 30 * n as u32 + 12 * names.len() as u32 * n as u32,
        |root| {
            let mut chart = chart(root, title)
                .y_label_area_size(230)
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
                .x_desc(x_desc)
                .draw()
                .map_err(err)?;
            for (s, name) in names.iter().enumerate() {
                let c = color(s);
                let height = 0.8 / groups;
                let rects: Vec<_> = rows
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (_, v))| {
                        let x = (*v.get(s)?)?;
                        // Row 0 on top.
                        let y0 = (n - 1 - i) as f64 + 0.4 - height * (s as f64 + 1.0);
                        Some(Rectangle::new(
                            [(0f64.max(lo), y0), (x, y0 + height)],
                            c.filled(),
                        ))
                    })
                    .collect();
                chart
                    .draw_series(rects)
                    .map_err(err)?
                    .label(*name)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled())
                    });
            }
            legend(&mut chart)
        },
    )
}

fn legend<'a, X, Y>(chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>) -> Result<()>
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(err)
}
