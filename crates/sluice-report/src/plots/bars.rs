//! Bar charts: one bar per flow (or per policy and flow), labels wrapped
//! beside them, values at their ends.

use super::*;

/// Characters of a bar chart's row label line (longer labels wrap).
pub(super) const LABEL_CHARS: usize = 36;
/// A label line's height, pixels.
pub(super) const LABEL_LINE: u32 = 15;

/// Room for a bar chart's row labels: about 7 pixels a character.
pub(super) fn label_width(labels: &[Vec<String>]) -> u32 {
    let longest = labels
        .iter()
        .flatten()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    (longest as u32 * 7 + 24).clamp(80, 300)
}

/// A value as its bar's number: about three significant digits.
pub(super) fn value(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let d = decimals(x);
    format!("{x:.d$}")
}

/// Where a chart's key goes: (x, row) of each name, a row 22 pixels high,
/// wrapped to the figure's width from `x0`.
pub(super) fn key_layout(names: &[&str], x0: i32) -> (Vec<(i32, i32)>, u32) {
    let mut out = Vec::new();
    let (mut x, mut row) = (x0, 0);
    for name in names {
        let w = 40 + 8 * name.chars().count() as i32;
        if x > x0 && x + w > WIDTH as i32 - 8 {
            x = x0;
            row += 1;
        }
        out.push((x, row));
        x += w;
    }
    (out, 30 + 22 * row as u32)
}

/// A horizontal bar chart: for each labelled row, one bar per series
/// (`None` draws nothing for that series). `names` names the series.
/// Every row is drawn; labels wrap; when the positive values span more
/// than [`SPAN`] the value axis is logarithmic. A row with no value at
/// all says `missing` where its bars would start.
pub(crate) fn bars(
    title: &str,
    x_desc: &str,
    names: &[&str],
    rows: &[(String, Vec<Option<f64>>)],
    missing: &str,
) -> Result<String> {
    let n = rows.len().max(1);
    let values: Vec<f64> = rows
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied())
        .filter(|x| x.is_finite())
        .collect();
    let hi = bounded(values.iter().copied().fold(0.0f64, f64::max));
    let lo = bounded(values.iter().copied().fold(0.0f64, f64::min));
    let least = super::log_floor(
        values
            .iter()
            .copied()
            .filter(|&x| x > 0.0)
            .fold(f64::INFINITY, f64::min),
        hi,
    );
    let log = lo >= 0.0 && least.is_finite() && hi / least > SPAN;
    let digits = decimals(hi.max(-lo));
    let span = if hi - lo > 1e-12 { hi - lo } else { 1.0 };
    let labels: Vec<Vec<String>> = rows.iter().map(|(l, _)| wrap(l, LABEL_CHARS)).collect();
    let label_area = label_width(&labels);
    let k = names.len().max(1);
    // A bar's thickness: 12 pixels, thinner when a row has many.
    let bar_px = if k <= 4 { 12 } else { (60 / k as u32).max(5) };
    let numbers = bar_px >= 10;
    let lines = labels.iter().map(Vec::len).max().unwrap_or(1) as u32;
    let row_px = (18 + bar_px * k as u32).max(LABEL_LINE * lines + 8);
    let (key_at, key_px) = key_layout(names, label_area as i32);
    let title_px = 12 + 24 * wrap(title, TITLE_CHARS).len() as u32;
    let height = title_px + key_px + 70 + row_px * n as u32;
    let group = 0.8;
    let thick = group / k as f64;
    figure(height, |root| {
        let body = titled(root, title)?;
        let (key, plot) = body.split_vertically(key_px);
        // The key, in rows of its own above the bars.
        for (s, name) in names.iter().enumerate() {
            let (x, row) = key_at[s];
            let y = 15 + 22 * row;
            key.draw(&Rectangle::new([(x, y - 7), (x + 16, y + 7)], bar_style(s)))
                .map_err(err)?;
            key.draw(&Text::new(
                name.to_string(),
                (x + 22, y),
                TICKS
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(err)?;
        }
        // Row i's bar of series s: from y0, `thick` high; row 0 on top.
        let y0 = |i: usize, s: usize| (n - 1 - i) as f64 + group / 2.0 - thick * (s as f64 + 1.0);
        let label_at = |i: usize| (n - 1 - i) as f64;
        macro_rules! draw {
            ($range:expr, $base:expr, $desc:expr, $num_x:expr) => {{
                let mut chart = ChartBuilder::on(&plot)
                    .margin(12)
                    .margin_top(4)
                    .x_label_area_size(44)
                    .y_label_area_size(label_area)
                    .build_cartesian_2d($range, -0.5f64..n as f64 - 0.5)
                    .map_err(err)?;
                chart
                    .configure_mesh()
                    .disable_y_mesh()
                    .y_labels(0)
                    .label_style(TICKS)
                    .axis_desc_style(AXIS)
                    .x_label_formatter(&|x| tick(*x))
                    .x_desc($desc)
                    .draw()
                    .map_err(err)?;
                for s in 0..names.len() {
                    let rects = rows.iter().enumerate().filter_map(|(i, (_, v))| {
                        let x = (*v.get(s)?)?;
                        let x = x.clamp(lo, hi);
                        (x.is_finite() && (!log || x > 0.0)).then(|| {
                            Rectangle::new([($base, y0(i, s)), (x, y0(i, s) + thick)], bar_style(s))
                        })
                    });
                    chart.draw_series(rects).map_err(err)?;
                    if numbers {
                        // Each bar's number at its end, so short bars still read.
                        let texts = rows.iter().enumerate().filter_map(|(i, (_, v))| {
                            let x = (*v.get(s)?)?;
                            let x = x.clamp(lo, hi);
                            x.is_finite().then(|| {
                                Text::new(
                                    if log {
                                        value(x)
                                    } else {
                                        format!("{x:.digits$}")
                                    },
                                    ($num_x(x), y0(i, s) + thick / 2.0),
                                    NUMBERS
                                        .into_font()
                                        .color(&BLACK)
                                        .pos(Pos::new(HPos::Left, VPos::Center)),
                                )
                            })
                        });
                        chart.draw_series(texts).map_err(err)?;
                    }
                }
                // Rows without a value say so.
                let empty = rows
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, v))| v.iter().all(|x| !x.is_some_and(f64::is_finite)));
                let texts = empty.map(|(i, _)| {
                    Text::new(
                        missing.to_string(),
                        ($num_x($base), label_at(i)),
                        NUMBERS
                            .into_font()
                            .color(&BLACK.mix(0.7))
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    )
                });
                chart.draw_series(texts).map_err(err)?;
                // The row labels, wrapped, right-aligned beside the axis.
                for (i, label) in labels.iter().enumerate() {
                    let (px, py) = chart.backend_coord(&($base, label_at(i)));
                    let first = py - (LABEL_LINE as i32 * (label.len() as i32 - 1)) / 2;
                    for (l, text) in label.iter().enumerate() {
                        root.draw(&Text::new(
                            text.clone(),
                            (px - 8, first + LABEL_LINE as i32 * l as i32),
                            TICKS
                                .into_font()
                                .color(&BLACK)
                                .pos(Pos::new(HPos::Right, VPos::Center)),
                        ))
                        .map_err(err)?;
                    }
                }
            }};
        }
        if log {
            let (a, b) = (least / 2.0, hi * 3.0);
            draw!(
                (a..b).log_scale(),
                a,
                format!("{x_desc} (log scale)"),
                |x: f64| x.max(a) * 1.04
            );
        } else {
            let (a, b) = if hi - lo > 1e-12 {
                (
                    lo - if lo < 0.0 { span * 0.12 } else { 0.0 },
                    hi + span * 0.12,
                )
            } else {
                // All zero (or one value): an axis of 0 to 1 around it.
                (lo.min(0.0), lo.max(0.0) + 1.0)
            };
            draw!(a..b, 0f64.max(a), x_desc.to_string(), |x: f64| x.max(0.0)
                + span * 0.01);
        }
        Ok(())
    })
}

/// Series `s`'s bars: its colour, lighter with an outline on the
/// palette's second round, hollow on the third.
pub(super) fn bar_style(s: usize) -> ShapeStyle {
    let c = color(s);
    match (s / COLOURS) % 3 {
        0 => c.filled(),
        1 => c.mix(0.45).filled(),
        _ => c.stroke_width(2),
    }
}

/// A round step for about eight ticks over `span`: 1, 2 or 5 times a
/// power of ten.
pub(super) fn nice_step(span: f64) -> f64 {
    if !(span.is_finite() && span > 0.0) {
        return 1.0;
    }
    let raw = span / 8.0;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * p)
}
