//! Charts as SVG drawn on the server by plotters, inside a figure whose text says what the
//! chart shows (plotters draws no text without a font, so the axis' ends are written in HTML
//! beside it).

use maud::{Markup, PreEscaped, html};
use plotters::prelude::*;

/// A fill marked on a price chart.
pub struct Mark {
    pub time_ms: i64,
    pub price: f64,
    pub buy: bool,
}

const SIZE: (u32, u32) = (720, 220);

/// A line of `points` (time, value), oldest first, with `marks` on it; `label` says what it is
/// for a screen reader, and `unit` is written after the axis' values.
pub fn line(label: &str, points: &[(i64, f64)], marks: &[Mark], unit: &str) -> Markup {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return html! { p.empty { (label) ": nothing to draw yet." } };
    };
    let values = points.iter().map(|p| p.1).chain(marks.iter().map(|m| m.price));
    let (low, high) = values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((high - low) * 0.05).max(high.abs() * 0.001).max(0.01);
    let times = points.iter().map(|p| p.0).chain(marks.iter().map(|m| m.time_ms));
    let (x0, x1) = times.fold((first.0, last.0), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let x1 = x1.max(x0 + 1);
    let mut svg = String::new();
    let drawn = draw(&mut svg, points, marks, (x0, x1), (low - pad, high + pad));
    if let Err(e) = drawn {
        tracing::warn!(error = %e, "a console chart could not be drawn");
        return html! { p.empty { (label) ": the chart could not be drawn." } };
    }
    let summary = format!(
        "{label}: from {} to {}, low {low:.2}{unit}, high {high:.2}{unit}, last {:.2}{unit}",
        signet_domain::times::format_ms(x0),
        signet_domain::times::format_ms(x1),
        last.1
    );
    html! {
        figure.chart {
            div.axis-y aria-hidden="true" { span { (format!("{high:.2}")) } span { (format!("{low:.2}")) } }
            div.plot role="img" aria-label=(summary) { (PreEscaped(svg)) }
            figcaption { (summary) }
        }
    }
}

type Drawn = Result<(), Box<dyn std::error::Error>>;

#[expect(clippy::cast_precision_loss, reason = "times in milliseconds, drawn to the pixel")]
fn draw(svg: &mut String, points: &[(i64, f64)], marks: &[Mark], x: (i64, i64), y: (f64, f64)) -> Drawn {
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .margin(6)
        .build_cartesian_2d(x.0 as f64..x.1 as f64, y.0..y.1)?;
    chart
        .configure_mesh()
        .x_labels(8)
        .y_labels(5)
        .light_line_style(RGBColor(238, 238, 238))
        .draw()?;
    let blue = RGBColor(31, 95, 170);
    chart.draw_series(LineSeries::new(
        points.iter().map(|&(t, v)| (t as f64, v)),
        blue.stroke_width(2),
    ))?;
    let (green, red) = (RGBColor(20, 130, 60), RGBColor(190, 40, 40));
    chart.draw_series(marks.iter().map(|m| {
        let color = if m.buy { green } else { red };
        TriangleMarker::new((m.time_ms as f64, m.price), 6, color.filled())
    }))?;
    root.present()?;
    Ok(())
}
