//! Draws a [`Picture`] as one self-contained HTML page: inline CSS, inline SVG timelines and an
//! inline script, no network access. Every piece of text is escaped.

use std::fmt::Write as _;

use super::escape::escape;
use super::picture::{Bar, BarMark, Picture, Section, StepTimeline, Timeline};

const CSS: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Geometry of the timelines, in pixels.
const ROW: f64 = 44.0;
const BAR_Y: f64 = 19.0;
const BAR_H: f64 = 18.0;
const TOP: f64 = 8.0;
const CHAR_W: f64 = 7.0;
const MIN_UNIT: f64 = 30.0;
const MAX_UNIT: f64 = 220.0;
/// The width a timeline keeps within when its labels allow (about a laptop's page).
const FIT_WIDTH: f64 = 1100.0;

impl Picture {
    /// The page: a title, a legend, then each section with its facts, notes, timelines (lanes
    /// of bars, hover details) and step table.
    pub fn to_html(&self) -> String {
        let mut out = String::with_capacity(16 * 1024);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
            escape(&self.title),
            escape(&self.title)
        );
        if !self.summary.is_empty() {
            let _ = writeln!(out, "<p class=\"summary\">{}</p>", escape(&self.summary));
        }
        out.push_str(LEGEND);
        for (index, section) in self.sections.iter().enumerate() {
            write_section(&mut out, index, section);
        }
        let _ = write!(
            out,
            "<div id=\"tip\" role=\"tooltip\" hidden></div>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
        );
        out
    }
}

const LEGEND: &str = "<div class=\"legend\">\
<span style=\"--c:#c7ecd2;--b:#2f9e55\">linearized (#k: its place)</span>\
<span style=\"--c:#ffd0cc;--b:#d1372b\">cannot be placed next / stuck</span>\
<span style=\"--c:#ffe6bf;--b:#e08a00\">could not be placed either</span>\
<span style=\"--c:#cfe0fb;--b:#5b8def\">operation</span>\
<span style=\"--c:#eceef3;--b:#a3a9b7\">context</span>\
<span style=\"--c:#fff;--b:#777\">dashed, open end: never returned (unknown outcome, pending)</span>\
</div>\n";

fn write_section(out: &mut String, index: usize, section: &Section) {
    let _ = writeln!(
        out,
        "<section class=\"section\" id=\"section-{index}\">\n<h2>{}</h2>",
        escape(&section.heading)
    );
    if !section.facts.is_empty() {
        out.push_str("<table class=\"facts\">\n");
        for fact in &section.facts {
            let class = fact
                .class
                .map(|c| format!(" class=\"{}\"", escape(c)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "<tr><th>{}</th><td{class}>{}</td></tr>",
                escape(&fact.name),
                escape(&fact.value)
            );
        }
        out.push_str("</table>\n");
    }
    for note in &section.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(note));
    }
    if !section.timelines.is_empty() {
        out.push_str("<div class=\"timelines\">\n");
        for timeline in &section.timelines {
            write_timeline(out, timeline);
        }
        out.push_str("</div>\n");
    }
    if !section.steps.is_empty() {
        let _ = writeln!(
            out,
            "<details class=\"steps-box\" open><summary>the linearized steps shown, with the model's state before \
             and after each ({})</summary>\n<table class=\"steps\">\n<tr><th>#</th><th>operation</th><th>state \
             before</th><th>state after</th></tr>",
            section.steps.len()
        );
        for step in &section.steps {
            let op = step.operation.split_whitespace().next().unwrap_or("");
            let _ = writeln!(
                out,
                "<tr data-op=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(op),
                step.position,
                escape(&step.operation),
                escape(&step.before),
                escape(&step.after)
            );
        }
        out.push_str("</table>\n</details>\n");
    }
    if let Some(steps) = &section.step_timeline {
        write_step_timeline(out, steps);
    }
    write_interleaving(out, section);
    out.push_str("</section>\n");
}

/// Geometry of the step timeline, in pixels: the width of one position, a lane's height, and
/// where an operation's bar and its steps sit in their lane.
const STEP_UNIT: f64 = 18.0;
const STEP_LANE: f64 = 46.0;
const STEP_BAR_Y: f64 = 14.0;
const STEP_BAR_H: f64 = 16.0;

/// The steps of the violating execution on the threads' lanes (see [`StepTimeline`]): each
/// operation a bar that a click expands into its steps' names, each step a dot whose hover shows
/// what it did and where, each switch an arrow between lanes.
fn write_step_timeline(out: &mut String, timeline: &StepTimeline) {
    let name_w = timeline.lanes.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * 7.5 + 22.0;
    let x = |at: usize| name_w + 8.0 + at as f64 * STEP_UNIT + STEP_UNIT / 2.0;
    let width = x(timeline.positions) + 8.0;
    let lane_top = |lane: usize| TOP + lane as f64 * STEP_LANE;
    let middle = |lane: usize| lane_top(lane) + STEP_BAR_Y + STEP_BAR_H / 2.0;
    let height = lane_top(timeline.lanes.len()) + 6.0;
    let _ = write!(
        out,
        "<figure class=\"timeline step-timeline\">\n<figcaption>the steps of the violating execution, in the order \
         they took effect ({} steps, {} switches): click an operation to name its steps, hover a step for its \
         source line</figcaption>\n<div class=\"scroll\">\n<svg width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\">\n<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" \
         refX=\"7\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0 L8 4 L0 8 z\" \
         fill=\"#8a6d00\"/></marker></defs>\n",
        timeline.steps.len(),
        timeline.switches.len()
    );
    for (lane, name) in timeline.lanes.iter().enumerate() {
        let _ = writeln!(
            out,
            "<g class=\"lane\" data-lane=\"{0}\"><line class=\"lane-line\" x1=\"0\" y1=\"{1:.1}\" x2=\"{width:.0}\" \
             y2=\"{1:.1}\"/><text class=\"lane-name\" x=\"6\" y=\"{2:.1}\">{0}</text></g>",
            escape(name),
            lane_top(lane + 1),
            middle(lane) + 4.0
        );
    }
    for op in &timeline.ops {
        let x0 = x(op.call) - STEP_UNIT / 2.0 + 2.0;
        let x1 = op.ret.map_or(width - 8.0, |r| x(r) + STEP_UNIT / 2.0 - 2.0);
        let _ = writeln!(
            out,
            "<g class=\"op{open}\" data-op=\"{id}\" tabindex=\"0\"><title>{label}{never}</title><rect x=\"{x0:.1}\" \
             y=\"{:.1}\" width=\"{:.1}\" height=\"{STEP_BAR_H}\" rx=\"4\"/></g>",
            lane_top(op.lane) + STEP_BAR_Y,
            (x1 - x0).max(6.0),
            open = if op.ret.is_none() { " open" } else { "" },
            id = escape(&op.id),
            label = escape(&op.label),
            never = if op.ret.is_none() { "\nnever returned" } else { "" },
        );
    }
    for switch in &timeline.switches {
        let (cx, y0) = (x(switch.at), middle(switch.from));
        let y1 = switch.to.map_or(y0 + STEP_LANE / 2.0, middle);
        let to = switch
            .to
            .and_then(|lane| timeline.lanes.get(lane))
            .map_or_else(|| "no thread can run".to_string(), |name| format!("to {name}"));
        let from = timeline.lanes.get(switch.from).map(String::as_str).unwrap_or("");
        let _ = writeln!(
            out,
            "<g class=\"switch\" data-reason=\"{reason}\"><title>{reason}: from {from} {to}</title><line x1=\"{cx:.1}\" \
             y1=\"{y0:.1}\" x2=\"{cx:.1}\" y2=\"{y1:.1}\" marker-end=\"url(#arrow)\"/></g>",
            reason = escape(&switch.reason),
            from = escape(from),
            to = escape(&to),
        );
    }
    for step in &timeline.steps {
        let (cx, cy) = (x(step.at), middle(step.lane));
        let tip = match &step.location {
            Some(location) => format!("{}\n@ {location}", step.text),
            None => step.text.clone(),
        };
        let _ = writeln!(
            out,
            "<g class=\"step\"{op} tabindex=\"0\"><title>{tip}</title><circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"4\"/>\
             <text class=\"step-label\" x=\"{cx:.1}\" y=\"{:.1}\" transform=\"rotate(35 {cx:.1} {:.1})\">{text}</text></g>",
            cy + STEP_BAR_H,
            cy + STEP_BAR_H,
            op = step
                .op
                .as_ref()
                .map(|op| format!(" data-op=\"{}\"", escape(op)))
                .unwrap_or_default(),
            tip = escape(&tip),
            text = escape(&fit(&step.text, 28)),
        );
    }
    out.push_str("</svg>\n</div>\n</figure>\n");
}

/// The steps of the violating execution, one row each, if recorded.
fn write_interleaving(out: &mut String, section: &Section) {
    if section.interleaving.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<details class=\"interleaving-box\" open><summary>interleaving: every step of the violating execution, in \
         the order they took effect ({} lines)</summary>\n<table class=\"steps interleaving\">\n<tr><th>#</th><th>thread</th><th>call, step, \
         switch or return</th></tr>",
        section.interleaving.len()
    );
    for (i, (thread, text)) in section.interleaving.iter().enumerate() {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            i + 1,
            escape(thread),
            escape(text)
        );
    }
    out.push_str("</table>\n</details>\n");
}

/// The row of each bar within its lane: bars of one lane that overlap (an operation with an
/// unknown outcome and the client's later ones) go on separate rows.
fn rows(timeline: &Timeline, rank: &impl Fn(u64) -> usize, end: usize) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..timeline.bars.len()).collect();
    order.sort_by_key(|&i| (timeline.bars[i].lane, rank(timeline.bars[i].call), i));
    let mut row_of = vec![0; timeline.bars.len()];
    let mut free: Vec<Vec<usize>> = vec![Vec::new(); timeline.lanes.len()];
    for i in order {
        let bar = &timeline.bars[i];
        let (start, stop) = (rank(bar.call), bar.ret.map_or(end, rank));
        let lane = &mut free[bar.lane];
        let row = match lane.iter().position(|&f| f <= start) {
            Some(row) => row,
            None => {
                lane.push(0);
                lane.len() - 1
            }
        };
        lane[row] = stop + 1;
        row_of[i] = row;
    }
    (row_of, free.iter().map(|rows| rows.len().max(1)).collect())
}

fn write_timeline(out: &mut String, timeline: &Timeline) {
    // The time axis: the ranks of the distinct call and return times.
    let mut times: Vec<u64> = timeline
        .bars
        .iter()
        .flat_map(|bar| [Some(bar.call), bar.ret])
        .flatten()
        .collect();
    times.sort_unstable();
    times.dedup();
    let rank = |t: u64| times.binary_search(&t).unwrap_or_else(|i| i);
    let end = times.len(); // where open-ended bars stop
    let text = |bar: &Bar| bar_text(bar);
    // A unit wide enough for the labels to fit in their bars, unless the timeline would then
    // be wider than the page (a label cut short is whole on hover).
    let mut unit = MIN_UNIT;
    for bar in &timeline.bars {
        let span = bar.ret.map_or(end, rank).saturating_sub(rank(bar.call)).max(1) as f64;
        let needed = text(bar).chars().count() as f64 * CHAR_W + 14.0;
        unit = unit.max((needed / span).min(MAX_UNIT));
    }
    unit = unit.min((FIT_WIDTH / (end.max(1) as f64 + 0.6)).max(MIN_UNIT));
    let name_w = timeline.lanes.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * 7.5 + 22.0;
    let x = |r: usize| name_w + 8.0 + r as f64 * unit;
    let width = x(end) + unit * 0.6 + 8.0;
    let (row_of, lane_rows) = rows(timeline, &rank, end);
    let mut lane_top = Vec::with_capacity(lane_rows.len());
    let mut y = TOP;
    for rows in &lane_rows {
        lane_top.push(y);
        y += *rows as f64 * ROW;
    }
    let height = y + 6.0;
    let _ = write!(
        out,
        "<figure class=\"timeline\">\n<figcaption>{}</figcaption>\n<div class=\"scroll\">\n\
         <svg width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\">\n",
        escape(&timeline.caption)
    );
    for r in 0..=end {
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{0:.1}\" y1=\"{TOP}\" x2=\"{0:.1}\" y2=\"{1:.1}\"/>",
            x(r),
            height - 6.0
        );
    }
    for (lane, name) in timeline.lanes.iter().enumerate() {
        let top = lane_top[lane];
        let _ = writeln!(
            out,
            "<g class=\"lane\" data-lane=\"{0}\"><line class=\"lane-line\" x1=\"0\" y1=\"{1:.1}\" x2=\"{width:.0}\" \
             y2=\"{1:.1}\"/><text class=\"lane-name\" x=\"6\" y=\"{2:.1}\">{0}</text></g>",
            escape(name),
            top + lane_rows[lane] as f64 * ROW,
            top + BAR_Y + BAR_H - 5.0
        );
    }
    // A label may run on over the gap up to the next bar of its row.
    let next_start = |i: usize| {
        let (lane, row, start) = (timeline.bars[i].lane, row_of[i], rank(timeline.bars[i].call));
        (0..timeline.bars.len())
            .filter(|&j| timeline.bars[j].lane == lane && row_of[j] == row && rank(timeline.bars[j].call) > start)
            .map(|j| x(rank(timeline.bars[j].call)))
            .fold(width - 4.0, f64::min)
    };
    for (i, bar) in timeline.bars.iter().enumerate() {
        let top = lane_top[bar.lane] + row_of[i] as f64 * ROW;
        let x0 = x(rank(bar.call));
        let x1 = bar.ret.map_or(width - 8.0, |t| x(rank(t)));
        let w = (x1 - x0).max(6.0);
        let open = bar.ret.is_none();
        let lane = timeline.lanes.get(bar.lane).map(String::as_str).unwrap_or("");
        let _ = write!(
            out,
            "<g class=\"bar mark-{mark}{open}\" data-mark=\"{mark}\" data-op=\"{id}\" data-lane=\"{lane}\" \
             tabindex=\"0\">",
            mark = bar.mark.name(),
            open = if open { " open" } else { "" },
            id = escape(&bar.id),
            lane = escape(lane),
        );
        let _ = write!(out, "<title>{}</title>", escape(&tooltip(bar, lane)));
        let _ = write!(
            out,
            "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{BAR_H}\" rx=\"4\"/>",
            top + BAR_Y
        );
        if open {
            let (ax, ay) = (x0 + w, top + BAR_Y + BAR_H / 2.0);
            let _ = write!(
                out,
                "<path d=\"M{:.1} {:.1} L{:.1} {ay:.1} L{:.1} {:.1}\" fill=\"none\" stroke=\"#777\" stroke-width=\"1.5\"/>",
                ax - 6.0,
                ay - 6.0,
                ax,
                ax - 6.0,
                ay + 6.0
            );
        }
        let room = (next_start(i) - x0 - 8.0).max(w - 8.0);
        let label = fit(&text(bar), (room / CHAR_W).max(1.0) as usize);
        let _ = write!(
            out,
            "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            x0 + 2.0,
            top + BAR_Y - 5.0,
            escape(&label)
        );
        let badge = match bar.mark {
            BarMark::Linearized(position) => Some(format!("#{position}")),
            BarMark::Blocking => Some("cannot be placed".to_string()),
            BarMark::Stuck => Some("stuck".to_string()),
            BarMark::Unplaced => Some("unplaced".to_string()),
            BarMark::Differs => Some("differs".to_string()),
            _ => None,
        };
        if let Some(badge) = badge {
            let badge = fit(&badge, ((w - 8.0) / CHAR_W).max(1.0) as usize);
            let _ = write!(
                out,
                "<text class=\"badge\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                x0 + 5.0,
                top + BAR_Y + BAR_H - 5.0,
                escape(&badge)
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n</div>\n</figure>\n");
}

/// The text above a bar: `label -> result`.
fn bar_text(bar: &Bar) -> String {
    match &bar.result {
        Some(result) => format!("{} → {}", bar.label, result),
        None => bar.label.clone(),
    }
}

/// The hover text of a bar: what it is, and its details.
fn tooltip(bar: &Bar, lane: &str) -> String {
    let mut text = format!("{} on {lane}: {}", bar.id, bar_text(bar));
    let role = match bar.mark {
        BarMark::Plain | BarMark::Context => None,
        BarMark::Linearized(position) => Some(format!("linearized at position #{position}")),
        BarMark::Blocking => Some("cannot be placed next".to_string()),
        BarMark::Unplaced => Some("could not be placed either".to_string()),
        BarMark::Stuck => Some("stuck: never returns, and no serial execution blocks here".to_string()),
        BarMark::Differs => Some("its outcome differs between the two serial histories".to_string()),
    };
    if let Some(role) = role {
        let _ = write!(text, "\n{role}");
    }
    if bar.ret.is_none() {
        text.push_str("\nnever returned");
    }
    for (name, value) in &bar.details {
        let _ = write!(text, "\n{name}: {value}");
    }
    text
}

/// `text` cut to `max` characters, with an ellipsis when cut.
fn fit(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::picture::{Fact, Step, StepMark, StepOp, SwitchMark};

    fn picture(label: &str) -> Picture {
        Picture {
            title: "t<i>".into(),
            summary: String::new(),
            sections: vec![Section {
                heading: "h".into(),
                facts: vec![Fact::with_class("replay", "tok&", "replay-token")],
                notes: vec!["<script>alert(1)</script>".into()],
                timelines: vec![Timeline {
                    caption: "c".into(),
                    lanes: vec!["A".into(), "B\"".into()],
                    bars: vec![
                        Bar {
                            lane: 0,
                            id: "1".into(),
                            call: 0,
                            ret: Some(3),
                            label: label.into(),
                            result: Some("<b>".into()),
                            mark: BarMark::Linearized(0),
                            details: vec![("state after".into(), "</svg>".into())],
                        },
                        Bar {
                            lane: 1,
                            id: "2".into(),
                            call: 1,
                            ret: None,
                            label: "take()".into(),
                            result: None,
                            mark: BarMark::Stuck,
                            details: vec![],
                        },
                    ],
                }],
                interleaving: vec![("A".into(), "<b>1[ add(1)</b>".into())],
                steps: vec![Step {
                    position: 0,
                    operation: "1 <x>".into(),
                    before: "{}".into(),
                    after: "<y>".into(),
                }],
                step_timeline: Some(StepTimeline {
                    lanes: vec!["A\"".into()],
                    positions: 3,
                    ops: vec![StepOp {
                        lane: 0,
                        id: "1\"".into(),
                        call: 0,
                        ret: None,
                        label: label.into(),
                    }],
                    steps: vec![StepMark {
                        lane: 0,
                        at: 1,
                        op: Some("1\"".into()),
                        text: label.into(),
                        location: Some("<b>.rs:1:1".into()),
                    }],
                    switches: vec![SwitchMark {
                        at: 2,
                        from: 0,
                        to: None,
                        reason: "<y>".into(),
                    }],
                }),
            }],
        }
    }

    #[test]
    fn user_text_is_escaped_everywhere() {
        let html = picture("<img src=x onerror=alert(1)>").to_html();
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(!html.contains("<y>"), "{html}");
        assert!(
            !html.contains("</svg>\"") && html.matches("</svg>").count() == 2,
            "{html}"
        );
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
        assert!(html.contains("data-lane=\"B&quot;\""), "{html}");
        assert!(html.contains("data-op=\"1&quot;\""), "{html}");
    }

    #[test]
    fn bars_carry_their_marks_and_open_ends() {
        let html = picture("add(1)").to_html();
        assert!(
            html.contains("class=\"bar mark-linearized\" data-mark=\"linearized\""),
            "{html}"
        );
        assert!(
            html.contains("class=\"bar mark-stuck open\" data-mark=\"stuck\""),
            "{html}"
        );
        assert!(html.contains("<td class=\"replay-token\">tok&amp;</td>"), "{html}");
        assert!(
            !html.contains("http:") && !html.contains("https:"),
            "no network address in the page"
        );
    }
}
