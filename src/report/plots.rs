//! Plots with plotters, each written as PNG and SVG. Plots only draw the
//! numbers they are given; every number comes from the results CSVs.

use std::path::Path;
use std::sync::Once;

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

/// A named line or point set.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// The axes of a chart.
#[derive(Clone, Copy)]
pub enum Axes {
    /// x = ply (linear), y logarithmic.
    PlyLog,
    /// Both axes logarithmic, points only.
    LogLog,
}

/// Everything a chart shows.
pub struct Chart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub axes: Axes,
    pub series: Vec<Series>,
}

static FONT: Once = Once::new();

/// Distinct, legible colours (the "tab10" palette).
const COLORS: [(u8, u8, u8); 8] = [
    (214, 39, 40),
    (31, 119, 180),
    (44, 160, 44),
    (255, 127, 14),
    (148, 103, 189),
    (140, 86, 75),
    (23, 190, 207),
    (127, 127, 127),
];

fn color(i: usize) -> RGBAColor {
    let (r, g, b) = COLORS[i % COLORS.len()];
    RGBColor(r, g, b).to_rgba()
}

/// The bundled DejaVu Sans, so PNGs render the same on any machine.
fn register_font() {
    FONT.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).ok();
    });
}

/// Series with exactly the same points drawn once, named by all of them
/// (`a = b`): otherwise the last one drawn hides the others.
pub fn merge_coinciding(series: &[Series]) -> Vec<Series> {
    let mut merged: Vec<Series> = Vec::new();
    for s in series {
        match merged.iter_mut().find(|m| m.points == s.points) {
            Some(m) => m.name = format!("{} = {}", m.name, s.name),
            None => merged.push(Series { name: s.name.clone(), points: s.points.clone() }),
        }
    }
    merged
}

/// Write `<stem>.png` and `<stem>.svg`.
pub fn write(stem: &Path, chart: &Chart) -> Result<()> {
    register_font();
    let chart = &Chart { series: merge_coinciding(&chart.series), ..*chart };
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    draw(BitMapBackend::new(&png, (1000, 650)).into_drawing_area(), chart)
        .map_err(|e| anyhow!("{}: {e}", png.display()))?;
    draw(SVGBackend::new(&svg, (1000, 650)).into_drawing_area(), chart)
        .map_err(|e| anyhow!("{}: {e}", svg.display()))?;
    Ok(())
}

fn bounds(series: &[Series]) -> ((f64, f64), (f64, f64)) {
    let pts = series.iter().flat_map(|s| s.points.iter().copied());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, y) in pts {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        return ((0.0, 1.0), (1.0, 10.0));
    }
    ((x0, x1), (y0.max(1e-3), y1.max(y0 * 10.0)))
}

type DrawResult<DB> = std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// The legend box, in the same place and style on every chart.
fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(c: &mut ChartContext<'a, DB, CT>) -> DrawResult<DB> {
    c.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 16))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let ((x0, x1), (y0, y1)) = bounds(&chart.series);
    let mut builder = ChartBuilder::on(&root);
    builder.caption(chart.title, ("sans-serif", 24)).margin(20).x_label_area_size(50).y_label_area_size(90);
    let label_style = ("sans-serif", 18);
    match chart.axes {
        Axes::PlyLog => {
            let mut c = builder.build_cartesian_2d(x0..x1.max(x0 + 1.0), (y0 * 0.8..y1 * 1.5).log_scale())?;
            c.configure_mesh()
                .x_desc(chart.x_label)
                .y_desc(chart.y_label)
                .label_style(label_style)
                .x_label_formatter(&|v| format!("{v:.0}"))
                .y_label_formatter(&|v| format!("{v:.0e}"))
                .draw()?;
            for (i, s) in chart.series.iter().enumerate() {
                let color = color(i);
                c.draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))?
                    .label(s.name.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3)));
                c.draw_series(s.points.iter().map(|&p| Circle::new(p, 2, color.filled())))?;
            }
            legend(&mut c)?;
        }
        Axes::LogLog => {
            let mut c =
                builder.build_cartesian_2d((x0 * 0.5..x1 * 2.0).log_scale(), (y0 * 0.5..y1 * 2.0).log_scale())?;
            c.configure_mesh()
                .x_desc(chart.x_label)
                .y_desc(chart.y_label)
                .label_style(label_style)
                .x_label_formatter(&|v| format!("{v:.0e}"))
                .y_label_formatter(&|v| format!("{v:.0e}"))
                .draw()?;
            for (i, s) in chart.series.iter().enumerate() {
                let color = color(i);
                c.draw_series(s.points.iter().map(|&p| TriangleMarker::new(p, 6, color.filled())))?
                    .label(s.name.as_str())
                    .legend(move |(x, y)| TriangleMarker::new((x + 10, y), 6, color.filled()));
            }
            legend(&mut c)?;
        }
    }
    root.present()
}
