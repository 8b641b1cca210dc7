//! Line plots as inline SVG for the HTML report: axes with "nice" tick
//! values, a log scale for latencies, dashed reference lines, a legend.
//! The report's four plots (throughput, latency, loss, overload) are
//! drawn from a [`Report`].

use crate::render::esc;
use crate::report::Report;

const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#555555",
];

/// One line of a plot.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend.
    pub name: String,
    /// Points (x, y).
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (references such as the generator's ceiling).
    pub dashed: bool,
}

fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if m * p >= v {
            return m * p;
        }
    }
    10.0 * p
}

fn tick_label(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{}k", v / 1e3)
    } else if v >= 1.0 || v == 0.0 {
        format!("{v}")
    } else {
        format!("{v:.2}")
    }
}

/// A line plot as an SVG element. `xticks` labels the x axis at given
/// values (or evenly when empty); `ylog` draws y on a log scale.
pub fn line_plot(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series],
    xticks: &[(f64, String)],
    ylog: bool,
) -> String {
    let (w, h, l, rt, t, b) = (640.0, 340.0, 70.0, 150.0, 30.0, 45.0);
    let pw = w - l - rt;
    let ph = h - t - b;
    let pts = series.iter().flat_map(|s| s.points.iter());
    let xmin = pts.clone().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let xmax = pts.clone().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let ymax_raw = pts.clone().map(|p| p.1).fold(0.0, f64::max);
    let ymin_pos = pts
        .clone()
        .map(|p| p.1)
        .filter(|&y| y > 0.0)
        .fold(f64::INFINITY, f64::min);
    let (xmin, xmax) = if xmin.is_finite() && xmax > xmin {
        (xmin, xmax)
    } else if xmin.is_finite() {
        (xmin - 1.0, xmin + 1.0)
    } else {
        (0.0, 1.0)
    };
    let (ylo, yhi) = if ylog {
        let lo = if ymin_pos.is_finite() {
            10f64.powf(ymin_pos.log10().floor())
        } else {
            1.0
        };
        let hi = 10f64.powf(ymax_raw.max(lo * 10.0).log10().ceil());
        (lo, hi)
    } else {
        (0.0, nice_max(ymax_raw))
    };
    let x = |v: f64| l + (v - xmin) / (xmax - xmin) * pw;
    let y = |v: f64| {
        let f = if ylog {
            (v.max(ylo).log10() - ylo.log10()) / (yhi.log10() - ylo.log10())
        } else {
            (v - ylo) / (yhi - ylo)
        };
        t + ph - f * ph
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"11\" role=\"img\" aria-label=\"{}\">\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\
         <text x=\"{}\" y=\"18\" font-size=\"13\" text-anchor=\"middle\">{}</text>",
        esc(title),
        l + pw / 2.0,
        esc(title)
    );
    // Grid and y ticks.
    let yticks: Vec<f64> = if ylog {
        let mut v = Vec::new();
        let mut p = ylo;
        while p <= yhi * 1.0001 {
            v.push(p);
            p *= 10.0;
        }
        v
    } else {
        (0..=5).map(|k| yhi * k as f64 / 5.0).collect()
    };
    for v in yticks {
        s.push_str(&format!(
            "<line x1=\"{l}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            l + pw,
            y(v),
            y(v),
            l - 5.0,
            y(v) + 4.0,
            tick_label(v)
        ));
    }
    let xt: Vec<(f64, String)> = if xticks.is_empty() {
        (0..=5)
            .map(|k| {
                let v = xmin + (xmax - xmin) * k as f64 / 5.0;
                (v, tick_label((v * 100.0).round() / 100.0))
            })
            .collect()
    } else {
        xticks.to_vec()
    };
    for (v, label) in xt {
        s.push_str(&format!(
            "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{t}\" y2=\"{}\" stroke=\"#eee\"/>\
             <text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x(v),
            x(v),
            t + ph,
            x(v),
            t + ph + 15.0,
            esc(&label)
        ));
    }
    s.push_str(&format!(
        "<rect x=\"{l}\" y=\"{t}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#888\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\
         <text transform=\"translate(15,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        l + pw / 2.0,
        h - 8.0,
        esc(xlabel),
        t + ph / 2.0,
        esc(ylabel)
    ));
    for (i, se) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let dash = if se.dashed {
            " stroke-dasharray=\"5,4\""
        } else {
            ""
        };
        if !se.points.is_empty() {
            let path: Vec<String> = se
                .points
                .iter()
                .map(|&(a, b)| format!("{:.1},{:.1}", x(a), y(b)))
                .collect();
            s.push_str(&format!(
                "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
                path.join(" ")
            ));
            for &(a, b) in &se.points {
                s.push_str(&format!(
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{c}\"/>",
                    x(a),
                    y(b)
                ));
            }
        }
        let ly = t + 10.0 + i as f64 * 16.0;
        s.push_str(&format!(
            "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{c}\" stroke-width=\"2\"{dash}/>\
             <text x=\"{}\" y=\"{}\">{}</text>",
            l + pw + 10.0,
            l + pw + 30.0,
            l + pw + 35.0,
            ly + 4.0,
            esc(&se.name)
        ));
    }
    s.push_str("</svg>");
    s
}

pub(crate) fn plot_throughput(r: &Report) -> String {
    let mut series: Vec<Series> = r
        .duts
        .iter()
        .map(|d| Series {
            name: format!("{} NDR", d.name),
            points: d
                .throughput
                .iter()
                .map(|t| (t.size as f64, t.ndr_fps))
                .collect(),
            dashed: false,
        })
        .collect();
    series.push(Series {
        name: "generator ceiling".into(),
        points: r.generator.iter().map(|c| (c.size as f64, c.fps)).collect(),
        dashed: true,
    });
    let ticks: Vec<(f64, String)> = r
        .method
        .sizes
        .iter()
        .map(|&s| (s as f64, s.to_string()))
        .collect();
    line_plot(
        "Throughput (no-drop rate) against frame size",
        "frame size (bytes)",
        "frames/s",
        &series,
        &ticks,
        false,
    )
}

pub(crate) fn plot_latency(r: &Report) -> String {
    let labels = ["min", "50", "90", "99", "99.9", "max"];
    let size = r.method.sizes.first().copied().unwrap_or(64);
    let series: Vec<Series> = r
        .duts
        .iter()
        .filter_map(|d| {
            let l = d.latency.iter().find(|l| l.size == size)?;
            let s = l.summary?;
            let v = [s.min_ns, s.p50_ns, s.p90_ns, s.p99_ns, s.p999_ns, s.max_ns];
            Some(Series {
                name: d.name.clone(),
                points: v
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| (i as f64, n as f64 / 1e3))
                    .collect(),
                dashed: false,
            })
        })
        .collect();
    let ticks: Vec<(f64, String)> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| (i as f64, l.to_string()))
        .collect();
    line_plot(
        &format!("Latency percentiles at the NDR, {size}-byte frames"),
        "percentile",
        "µs (log)",
        &series,
        &ticks,
        true,
    )
}

pub(crate) fn plot_loss(r: &Report) -> String {
    let size = r.method.sizes.first().copied().unwrap_or(64);
    let series: Vec<Series> = r
        .duts
        .iter()
        .filter_map(|d| {
            let c = d.frame_loss.iter().find(|c| c.size == size)?;
            Some(Series {
                name: d.name.clone(),
                points: c
                    .points
                    .iter()
                    .map(|p| (p.percent, p.loss_ratio * 100.0))
                    .collect(),
                dashed: false,
            })
        })
        .collect();
    line_plot(
        &format!("Frame loss against offered load, {size}-byte frames"),
        "offered load (% of the generator's ceiling)",
        "frames lost (%)",
        &series,
        &[],
        false,
    )
}

pub(crate) fn plot_overload(r: &Report) -> String {
    let mut series: Vec<Series> = r
        .duts
        .iter()
        .filter_map(|d| {
            let o = d.overload.as_ref()?;
            Some(Series {
                name: d.name.clone(),
                points: o
                    .points
                    .iter()
                    .map(|p| (p.offered_fps, p.delivered_fps))
                    .collect(),
                dashed: false,
            })
        })
        .collect();
    let xmax = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(0.0, f64::max);
    series.push(Series {
        name: "delivered = offered".into(),
        points: vec![(0.0, 0.0), (xmax, xmax)],
        dashed: true,
    });
    line_plot(
        "Overload: delivered against offered rate",
        "offered (frames/s)",
        "delivered (frames/s)",
        &series,
        &[],
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_survive_empty_and_single_point_data() {
        let s = line_plot("t", "x", "y", &[], &[], false);
        assert!(s.contains("</svg>") && !s.contains("NaN"));
        let one = Series {
            name: "a".into(),
            points: vec![(5.0, 0.0)],
            dashed: false,
        };
        for log in [false, true] {
            let s = line_plot("t", "x", "y", std::slice::from_ref(&one), &[], log);
            assert!(!s.contains("NaN") && !s.contains("inf"), "{s}");
        }
    }

    #[test]
    fn nice_numbers() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(3.2), 5.0);
        assert_eq!(nice_max(180_000.0), 200_000.0);
        assert_eq!(nice_max(1000.0), 1000.0);
        assert_eq!(tick_label(250_000.0), "250k");
    }
}
