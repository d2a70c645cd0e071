//! Chart primitives as inline SVG: line/step charts with axes and a legend, lanes of
//! segments (the timeline), and bars with confidence intervals. Coordinates are data
//! units mapped into a fixed plot box; every mark may carry a hover text (`data-tip`).

use crate::html::{esc, num};
use std::fmt::Write as _;

pub const PALETTE: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// One line of a chart.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Drawn as steps (a value holds until the next sample: counters, CDFs).
    pub step: bool,
}

const W: f64 = 900.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 24.0;
const BOTTOM: f64 = 36.0;

struct Scale {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    h: f64,
}

impl Scale {
    fn x(&self, x: f64) -> f64 {
        LEFT + (x - self.x0) / (self.x1 - self.x0).max(f64::MIN_POSITIVE) * (W - LEFT - RIGHT)
    }
    fn y(&self, y: f64) -> f64 {
        TOP + (1.0 - (y - self.y0) / (self.y1 - self.y0).max(f64::MIN_POSITIVE)) * self.h
    }
}

/// Frame, title, ticks and axis labels.
fn axes(s: &mut String, sc: &Scale, title: &str, xl: &str, yl: &str, y_ticks: bool) {
    let (l, r, t, b) = (LEFT, W - RIGHT, TOP, TOP + sc.h);
    let _ = write!(
        s,
        "<text x=\"{l}\" y=\"14\" font-weight=\"bold\">{}</text>\
         <rect x=\"{l}\" y=\"{t}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>",
        esc(title),
        r - l,
        b - t
    );
    for i in 0..=4 {
        let fx = sc.x0 + (sc.x1 - sc.x0) * i as f64 / 4.0;
        let px = sc.x(fx);
        let _ = write!(
            s,
            "<line x1=\"{px:.1}\" y1=\"{b}\" x2=\"{px:.1}\" y2=\"{}\" stroke=\"#999\"/>\
             <text x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            b + 4.0,
            b + 16.0,
            num(fx)
        );
        if y_ticks {
            let fy = sc.y0 + (sc.y1 - sc.y0) * i as f64 / 4.0;
            let py = sc.y(fy);
            let _ = write!(
                s,
                "<line x1=\"{}\" y1=\"{py:.1}\" x2=\"{r}\" y2=\"{py:.1}\" stroke=\"#eee\"/>\
                 <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                l,
                l - 6.0,
                py + 4.0,
                num(fy)
            );
        }
    }
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>\
         <text x=\"12\" y=\"{:.1}\" transform=\"rotate(-90 12 {:.1})\" text-anchor=\"middle\">{}</text>",
        (l + r) / 2.0,
        b + 32.0,
        esc(xl),
        (t + b) / 2.0,
        (t + b) / 2.0,
        esc(yl)
    );
}

fn open(h: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{}\" viewBox=\"0 0 {W} {}\">",
        h + TOP + BOTTOM + 12.0,
        h + TOP + BOTTOM + 12.0
    )
}

/// A line (or step) chart; `None` when there is nothing to draw.
pub fn lines(title: &str, series: &[Series], xl: &str, yl: &str) -> Option<String> {
    let all = series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0f64, f64::MIN);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return None;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let sc = Scale {
        x0,
        x1,
        y0,
        y1,
        h: 220.0,
    };
    let mut s = open(sc.h);
    axes(&mut s, &sc, title, xl, yl, true);
    for (i, se) in series.iter().enumerate() {
        let mut d = String::new();
        let mut last: Option<(f64, f64)> = None;
        for &(x, y) in &se.points {
            let (px, py) = (sc.x(x), sc.y(y));
            match last {
                None => {
                    let _ = write!(d, "M{px:.1},{py:.1}");
                }
                Some((_, ly)) if se.step => {
                    let _ = write!(d, "L{px:.1},{ly:.1}L{px:.1},{py:.1}");
                }
                Some(_) => {
                    let _ = write!(d, "L{px:.1},{py:.1}");
                }
            }
            last = Some((px, py));
        }
        if se.step {
            if let Some((_, ly)) = last {
                let _ = write!(d, "L{:.1},{ly:.1}", sc.x(x1));
            }
        }
        let _ = write!(
            s,
            "<path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"><title>{}</title></path>",
            color(i),
            esc(&se.name)
        );
        let ly = TOP + 6.0 + i as f64 * 15.0;
        if ly < TOP + sc.h {
            let lx = W - RIGHT + 10.0;
            let _ = write!(
                s,
                "<rect x=\"{lx}\" y=\"{ly}\" width=\"10\" height=\"10\" fill=\"{}\"/>\
                 <text x=\"{}\" y=\"{}\">{}</text>",
                color(i),
                lx + 14.0,
                ly + 9.0,
                esc(&se.name)
            );
        }
    }
    s.push_str("</svg>");
    Some(s)
}

/// One lane's segment: [x0, x1), its color index and hover text.
pub struct Segment {
    pub x0: f64,
    pub x1: f64,
    pub color: usize,
    pub tip: String,
}

/// Horizontal lanes of segments (the per-CPU timeline).
pub fn lanes(title: &str, rows: &[(String, Vec<Segment>)], x0: f64, x1: f64, xl: &str) -> String {
    let lane = 22.0;
    let h = lane * rows.len().max(1) as f64;
    let sc = Scale {
        x0,
        x1: x1.max(x0 + 1e-9),
        y0: 0.0,
        y1: 1.0,
        h,
    };
    let mut s = open(h);
    axes(&mut s, &sc, title, xl, "", false);
    for (i, (label, segs)) in rows.iter().enumerate() {
        let y = TOP + i as f64 * lane;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            y + lane / 2.0 + 4.0,
            esc(label)
        );
        for g in segs {
            let (a, b) = (sc.x(g.x0), sc.x(g.x1));
            let _ = write!(
                s,
                "<rect x=\"{a:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{:.1}\" fill=\"{}\" data-tip=\"{}\"/>",
                y + 2.0,
                (b - a).max(0.3),
                lane - 4.0,
                color(g.color),
                esc(&g.tip)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// One bar: label, value, 95% CI half-width.
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub ci: f64,
}

/// A small bar chart with interval whiskers (one A/B metric).
pub fn bars(title: &str, bars: &[Bar], marked: bool) -> String {
    let (w, h, top, left) = (260.0, 150.0, 22.0, 10.0);
    let hi = bars
        .iter()
        .map(|b| (b.value + b.ci).max(0.0))
        .fold(0.0f64, f64::max);
    let lo = bars
        .iter()
        .map(|b| (b.value - b.ci).min(0.0))
        .fold(0.0f64, f64::min);
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let y = |v: f64| top + (hi - v) / span * (h - top - 30.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" style=\"display:inline-block;margin:4px\">\
         <text x=\"{left}\" y=\"14\"{}>{}</text>",
        if marked { " font-weight=\"bold\"" } else { "" },
        esc(title)
    );
    let bw = (w - 2.0 * left) / bars.len().max(1) as f64;
    for (i, b) in bars.iter().enumerate() {
        let x = left + i as f64 * bw + bw * 0.2;
        let (y0, y1) = (y(0.0), y(b.value));
        let tip = format!("{}: {} ± {}", b.label, num(b.value), num(b.ci));
        let _ = write!(
            s,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" data-tip=\"{}\"/>",
            y0.min(y1),
            bw * 0.6,
            (y0 - y1).abs().max(0.5),
            color(i),
            esc(&tip)
        );
        let cx = x + bw * 0.3;
        let (a, c) = (y(b.value + b.ci), y(b.value - b.ci));
        let _ = write!(
            s,
            "<line x1=\"{cx:.1}\" y1=\"{a:.1}\" x2=\"{cx:.1}\" y2=\"{c:.1}\" stroke=\"#000\"/>\
             <line x1=\"{:.1}\" y1=\"{a:.1}\" x2=\"{:.1}\" y2=\"{a:.1}\" stroke=\"#000\"/>\
             <line x1=\"{:.1}\" y1=\"{c:.1}\" x2=\"{:.1}\" y2=\"{c:.1}\" stroke=\"#000\"/>\
             <text x=\"{cx:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            cx - 6.0,
            cx + 6.0,
            cx - 6.0,
            cx + 6.0,
            h - 14.0,
            esc(&b.label)
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_draw_or_decline() {
        assert!(lines("t", &[], "x", "y").is_none());
        let se = Series {
            name: "a".into(),
            points: vec![(0.0, 1.0), (1.0, 2.0)],
            step: true,
        };
        let svg = lines("t", &[se], "x", "y").unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("<path"));
        let b = bars(
            "m",
            &[Bar {
                label: "base".into(),
                value: 1.0,
                ci: 0.1,
            }],
            false,
        );
        assert!(b.contains("<rect"));
    }
}
