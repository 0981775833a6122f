//! Plots with plotters, each written as PNG and SVG. Plots only draw the
//! numbers they are given; every number comes from the results CSVs.

use std::path::Path;
use std::sync::Once;

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A named line or point set.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Per point, the name written beside it (for example its board), or
    /// empty: no names. A name that would cover one already written is left out.
    pub labels: Vec<String>,
}

impl Series {
    /// A series without point names.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.into(), points, labels: Vec::new() }
    }
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
const COLORS: [(u8, u8, u8); 10] = [
    (214, 39, 40),
    (31, 119, 180),
    (44, 160, 44),
    (255, 127, 14),
    (148, 103, 189),
    (140, 86, 75),
    (23, 190, 207),
    (127, 127, 127),
    (227, 119, 194),
    (188, 189, 34),
];

/// Series `i`'s colour.
fn color(i: usize) -> RGBAColor {
    let (r, g, b) = COLORS[i % COLORS.len()];
    RGBColor(r, g, b).to_rgba()
}

/// The marker shapes; series `i` has shape `(i / colours) % shapes` (then
/// shifted by its colour), so that no two of the first 40 series look alike
/// and neighbours differ in shape too.
#[derive(Clone, Copy)]
enum Shape {
    Circle,
    Triangle,
    Square,
    Cross,
}

fn shape(i: usize) -> Shape {
    const SHAPES: [Shape; 4] = [Shape::Circle, Shape::Triangle, Shape::Square, Shape::Cross];
    SHAPES[(i + i / COLORS.len()) % SHAPES.len()]
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
            None => merged.push(Series { name: s.name.clone(), points: s.points.clone(), labels: s.labels.clone() }),
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
    draw(BitMapBackend::new(&png, SIZE).into_drawing_area(), chart).map_err(|e| anyhow!("{}: {e}", png.display()))?;
    draw(SVGBackend::new(&svg, SIZE).into_drawing_area(), chart).map_err(|e| anyhow!("{}: {e}", svg.display()))?;
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
    ((x0, x1), (y0.max(f64::MIN_POSITIVE), y1.max(y0 * 10.0)))
}

type DrawResult<DB> = std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Size of the whole picture.
const SIZE: (u32, u32) = (1300, 650);

/// Width of the legend panel right of the chart: its longest name (at about
/// 8.5 pixels a character of the legend's font) and the marker, within
/// 150..=390 pixels.
fn legend_width(series: &[Series]) -> u32 {
    let longest = series.iter().map(|s| short_name(&s.name).chars().count()).max().unwrap_or(0);
    (70 + longest as u32 * 17 / 2).clamp(150, 390)
}

/// Series `i`'s markers (its shape and colour, half-size `r`) at `points`.
fn markers<'a, DB, CT>(
    c: &mut ChartContext<'a, DB, CT>,
    i: usize,
    points: impl Iterator<Item = CT::From>,
    r: i32,
) -> DrawResult<DB>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
    CT::From: Clone + 'static,
{
    let fill = color(i).filled();
    match shape(i) {
        Shape::Circle => c.draw_series(points.map(|p| Circle::new(p, r, fill))).map(drop),
        Shape::Triangle => c.draw_series(points.map(|p| TriangleMarker::new(p, r + 1, fill))).map(drop),
        Shape::Square => {
            c.draw_series(points.map(|p| EmptyElement::at(p) + Rectangle::new([(-r, -r), (r, r)], fill))).map(drop)
        }
        Shape::Cross => c.draw_series(points.map(|p| Cross::new(p, r + 1, color(i).stroke_width(2)))).map(drop),
    }
}

/// Each series' point names, in small grey type up and right of its point;
/// a name whose box would cover a marker or a name already written is left
/// out, so the names stay legible where points crowd.
fn point_names<'a, DB, CT>(c: &mut ChartContext<'a, DB, CT>, series: &[Series]) -> DrawResult<DB>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate<From = (f64, f64)>,
{
    const SIZE: i32 = 11;
    let style = ("sans-serif", SIZE).into_font().color(&RGBColor(90, 90, 90));
    // Boxes already covered: every marker, then each name written.
    let mut taken: Vec<(i32, i32, i32, i32)> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| c.as_coord_spec().translate(p)))
        .map(|(x, y)| (x - 5, y - 5, x + 5, y + 5))
        .collect();
    for s in series.iter().filter(|s| s.labels.len() == s.points.len()) {
        for (&point, name) in s.points.iter().zip(&s.labels) {
            let (x, y) = c.as_coord_spec().translate(&point);
            let (x0, y0) = (x + 6, y - SIZE - 4);
            let b = (x0, y0, x0 + name.chars().count() as i32 * SIZE * 6 / 10, y0 + SIZE);
            if name.is_empty() || taken.iter().any(|t| b.0 < t.2 && t.0 < b.2 && b.1 < t.3 && t.1 < b.3) {
                continue;
            }
            taken.push(b);
            let text = EmptyElement::at(point) + Text::new(name.clone(), (6, -SIZE - 4), style.clone());
            c.draw_series(std::iter::once(text))?;
        }
    }
    Ok(())
}

/// A series name as the legend shows it: a file path in it (an order rule's
/// file, such as `rule:experiments/orders/7x4.rule.toml`) by its stem
/// (`rule:7x4`).
fn short_name(name: &str) -> String {
    let word = |w: &str| -> String {
        let (body, comma) = w.strip_suffix(',').map_or((w, ""), |b| (b, ","));
        let Some(slash) = body.rfind('/') else { return w.to_string() };
        let prefix = body.split_once(':').filter(|(p, _)| !p.contains('/')).map_or("", |(p, _)| p);
        let stem = body[slash + 1..].trim_end_matches(".toml").trim_end_matches(".rule");
        let colon = if prefix.is_empty() { "" } else { ":" };
        format!("{prefix}{colon}{stem}{comma}")
    };
    name.split(' ').map(word).collect::<Vec<_>>().join(" ")
}

/// The legend, in its own panel beside the chart (never over the data):
/// per series its line (when the chart has lines), marker and name.
fn legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, series: &[Series], lines: bool) -> DrawResult<DB> {
    let n = series.len().max(1) as f64;
    let rows = n.max(12.0);
    let mut c = ChartBuilder::on(area).margin_top(70).margin_right(10).build_cartesian_2d(0f64..1f64, 0f64..rows)?;
    for (i, s) in series.iter().enumerate() {
        let y = rows - 0.5 - i as f64;
        if lines {
            c.draw_series(LineSeries::new([(0.02, y), (0.14, y)], color(i).stroke_width(3)))?;
        }
        markers(&mut c, i, std::iter::once((0.08, y)), 4)?;
        let font = ("sans-serif", 15).into_text_style(area).pos(Pos::new(HPos::Left, VPos::Center));
        let text = Text::new(short_name(&s.name), (0.18, y), font);
        c.draw_series(std::iter::once(text))?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let (plot, side) = root.split_horizontally(SIZE.0 - legend_width(&chart.series));
    let ((x0, x1), (y0, y1)) = bounds(&chart.series);
    let mut builder = ChartBuilder::on(&plot);
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
                c.draw_series(LineSeries::new(s.points.iter().copied(), color(i).stroke_width(2)))?;
                markers(&mut c, i, s.points.iter().copied(), 3)?;
            }
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
                markers(&mut c, i, s.points.iter().copied(), 5)?;
            }
            point_names(&mut c, &chart.series)?;
        }
    }
    legend(&side, &chart.series, matches!(chart.axes, Axes::PlyLog))?;
    root.present()
}

#[cfg(test)]
mod tests {
    use super::Series;

    #[test]
    fn the_legend_is_as_wide_as_its_longest_name() {
        let table1 = ["paper", "ours, standard", "ours, compressed"].map(|n| Series::new(n, vec![(1.0, 1.0)]));
        assert!(super::legend_width(&table1) * 5 <= super::SIZE.0, "at most a fifth of the picture");
        let long = [Series::new("compressed, column-wise = compressed, paper = cellwise, paper", vec![])];
        assert_eq!(super::legend_width(&long), 390);
    }

    #[test]
    fn small_values_keep_their_place_on_a_log_axis() {
        let series = [Series::new("t", vec![(1.0, 2e-5), (10.0, 3.0)])];
        let (_, (y0, y1)) = super::bounds(&series);
        assert_eq!((y0, y1), (2e-5, 3.0), "no floor: a time of 20 microseconds is drawn at 20 microseconds");
    }

    #[test]
    fn legend_names_show_a_rule_file_by_its_stem() {
        let name = "compressed, rule:experiments/orders/7x4.rule.toml = compressed, paper";
        assert_eq!(super::short_name(name), "compressed, rule:7x4 = compressed, paper");
        assert_eq!(super::short_name("cellwise, row-wise"), "cellwise, row-wise");
    }
}
