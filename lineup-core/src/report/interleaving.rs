//! The report's "interleaving" section: the operations of the violating history in order, each
//! with its steps indented under it, in one column per thread as the timeline is.
//!
//! By default the section is *short*: the steps of the operations that overlap another one (where
//! the interleaving decides the results; every operation of a serial history), a thread's run of
//! steps between two switches folded into one line, operations that overlap nothing folded into
//! one line each, and only the switches that
//! explain the order (preemptions, yields, blocks, fair switches). `LINEUP_TRACE=full`
//! ([`Interleaving::full`]) shows every step on a line of its own, with its full location.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::history::{Event, History};
use crate::model::interleaving::{Action, Interleaving, Step, SwitchReason};
use crate::model::thread_id::ThreadId;
use crate::report::html::{StepMark, StepOp, StepTimeline, SwitchMark};

/// The interleaving section, rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedInterleaving {
    /// The section's text, its heading included.
    pub text: String,
    /// How many recorded steps (switches not counted) the text describes, on a line of their own or
    /// in a folded run (a run folded into its count, or left out of a long run, describes none).
    pub steps_shown: usize,
}

/// One line of the section, in the column of one thread.
struct Line {
    column: usize,
    text: String,
    /// The line may run past its column (an object's state, alone on its line): it does not
    /// widen the column.
    overflows: bool,
}

impl Line {
    fn new(column: usize, text: String) -> Self {
        Line {
            column,
            text,
            overflows: false,
        }
    }
}

/// The columns: one per thread of the history, then one for the tasks of no operation.
struct Columns {
    threads: Vec<ThreadId>,
    /// The column of each task, as last seen running an operation.
    task_column: BTreeMap<usize, usize>,
}

impl Columns {
    fn of(history: &History) -> Self {
        let mut threads: Vec<ThreadId> = history.called_ops().iter().map(|&op| history.op(op).thread).collect();
        threads.sort();
        threads.dedup();
        Columns {
            threads,
            task_column: BTreeMap::new(),
        }
    }

    /// The name of `column`.
    fn name(&self, column: usize) -> String {
        self.threads
            .get(column)
            .map_or_else(|| "other tasks".to_string(), ToString::to_string)
    }

    fn of_op(&self, history: &History, op: usize) -> usize {
        let thread = history.op(op).thread;
        self.threads
            .iter()
            .position(|&t| t == thread)
            .unwrap_or(self.threads.len())
    }

    /// The column of `step`'s task (the "other" column for the object's own threads).
    fn of_step(&mut self, history: &History, step: &Step) -> usize {
        match step.op {
            Some(op) if op <= history.ops().len() => {
                let column = self.of_op(history, op);
                self.task_column.insert(step.task, column);
                column
            }
            _ => self.task_column.get(&step.task).copied().unwrap_or(self.threads.len()),
        }
    }
}

impl Interleaving {
    /// The "interleaving" section of the report of a violation whose violating history is
    /// `history` (the one this interleaving was recorded from).
    pub fn render(&self, history: &History) -> RenderedInterleaving {
        let (columns, lines, steps_shown) = self.lines(history, self.full);
        RenderedInterleaving {
            text: self.layout(&columns, &lines, steps_shown),
            steps_shown,
        }
    }

    /// Every line of the full section, each with the name of its column (`A`, ..., or `other
    /// tasks`) and its text: what the HTML report lists.
    pub(crate) fn rows(&self, history: &History) -> Vec<(String, String)> {
        let (columns, lines, _) = self.lines(history, true);
        lines
            .into_iter()
            .map(|line| (columns.name(line.column), line.text.trim_start().to_string()))
            .collect()
    }

    /// The steps drawn on the threads' lanes for the HTML page (see [`StepTimeline`]): the
    /// calls, steps, switches and returns in the order of the full section, one position each.
    pub(crate) fn step_timeline(&self, history: &History) -> StepTimeline {
        let mut columns = Columns::of(history);
        let mut timeline = StepTimeline::default();
        let mut calls = BTreeMap::new();
        let mut returns = BTreeMap::new();
        let events = history.events();
        let (mut i, mut next_event, mut at) = (0, 0, 0);
        while i < self.steps.len() || next_event < events.len() {
            let step_due = self.steps.get(i).map(|s| s.events_before);
            if next_event < events.len() && step_due.is_none_or(|due| due > next_event) {
                match events[next_event] {
                    Event::Call(op) => calls.insert(op, at),
                    Event::Return(op) => returns.insert(op, at),
                };
                next_event += 1;
                at += 1;
                continue;
            }
            let step = &self.steps[i];
            let lane = columns.of_step(history, step);
            match step.action {
                Action::Switch { to, reason } => timeline.switches.push(SwitchMark {
                    at,
                    from: lane,
                    to: to.map(|task| self.lane_of_task_after(&columns, history, i, task)),
                    reason: reason.to_string(),
                }),
                _ => timeline.steps.push(StepMark {
                    lane,
                    at,
                    op: step.op.map(|op| op.to_string()),
                    text: step
                        .action
                        .describe(step.object.as_ref().map(ToString::to_string).as_deref()),
                    location: step.location.as_ref().map(ToString::to_string),
                }),
            }
            i += 1;
            at += 1;
        }
        for (&op, &call) in &calls {
            let info = history.op(op);
            let result = history.response(op).map(|r| format!(" -> {r}")).unwrap_or_default();
            timeline.ops.push(StepOp {
                lane: columns.of_op(history, op),
                id: op.to_string(),
                call,
                ret: returns.get(&op).copied(),
                label: format!("{op}: {}{result}", info.invocation),
            });
        }
        timeline.lanes = (0..=columns.threads.len()).map(|c| columns.name(c)).collect();
        if !timeline.steps.iter().any(|s| s.lane == columns.threads.len())
            && !timeline
                .switches
                .iter()
                .any(|s| s.from == columns.threads.len() || s.to == Some(columns.threads.len()))
        {
            timeline.lanes.pop();
        }
        timeline.positions = at;
        timeline
    }

    /// The lane of `task` when it runs next after step `i`: its next step's, or the lane it was
    /// last seen on.
    fn lane_of_task_after(&self, columns: &Columns, history: &History, i: usize, task: usize) -> usize {
        self.steps[i + 1..]
            .iter()
            .find(|s| s.task == task)
            .and_then(|s| s.op.filter(|&op| op <= history.ops().len()))
            .map(|op| columns.of_op(history, op))
            .or_else(|| columns.task_column.get(&task).copied())
            .unwrap_or(columns.threads.len())
    }

    /// The lines of the section (`full`: every step on a line of its own), their columns, and how
    /// many steps they describe.
    fn lines(&self, history: &History, full: bool) -> (Columns, Vec<Line>, usize) {
        let mut columns = Columns::of(history);
        let overlapping = overlapping_ops(history);
        let mut lines = Vec::new();
        let mut steps_shown = 0;
        let mut next_event = 0;
        let mut i = 0;
        let events = history.events();
        while i < self.steps.len() || next_event < events.len() {
            let step_due = self.steps.get(i).map(|s| s.events_before);
            if next_event < events.len() && step_due.is_none_or(|due| due > next_event) {
                self.event_lines(history, &columns, events[next_event], &mut lines);
                next_event += 1;
                continue;
            }
            let step = &self.steps[i];
            let column = columns.of_step(history, step);
            // A serial history (a nondeterminism's, or one with no overlap) shows every operation.
            let shown_alone = full || overlapping.is_empty() || step.op.is_some_and(|op| overlapping.contains(&op));
            let run = self.run_from(i);
            if let Action::Switch { reason, .. } = step.action {
                if full || reason != SwitchReason::Finished {
                    lines.push(Line::new(column, format!("   -- {reason} --")));
                }
                i += 1;
                continue;
            }
            if shown_alone && full {
                lines.push(Line::new(column, format!("   {}", full_line(step))));
                steps_shown += 1;
                i += 1;
                continue;
            }
            let (text, shown) = fold(&self.steps[i..i + run], shown_alone);
            lines.push(Line::new(column, format!("   {text}")));
            steps_shown += shown;
            i += run;
        }
        (columns, lines, steps_shown)
    }

    /// How many steps from `i` on form one run: the same task, no switch and no call or return
    /// in between (a run never starts at a switch), and no drop of a cancelled future after its
    /// first step. At least the step at `i`, so that the
    /// rendering always moves on (a step may have fewer events before it than the one before:
    /// under loom, a step whose effect came after its scheduling point).
    fn run_from(&self, i: usize) -> usize {
        let first = &self.steps[i];
        self.steps[i..]
            .iter()
            .enumerate()
            .take_while(|(k, s)| {
                s.task == first.task
                    && s.events_before == first.events_before
                    && s.op == first.op
                    && !matches!(s.action, Action::Switch { .. })
                    // The drop of a cancelled future begins a run of its own: it is never folded
                    // away.
                    && (*k == 0 || !matches!(s.action, Action::Cancel { .. }))
            })
            .count()
            .max(1)
    }

    /// The line of a call or a return (and the object's state after a return, if recorded).
    fn event_lines(&self, history: &History, columns: &Columns, event: Event, lines: &mut Vec<Line>) {
        let op = event.op();
        let column = columns.of_op(history, op);
        let info = history.op(op);
        match event {
            Event::Call(_) => lines.push(Line::new(column, format!("{op}[ {}", info.invocation))),
            Event::Return(_) => {
                let response = history.response(op).map(ToString::to_string).unwrap_or_default();
                lines.push(Line::new(column, format!("]{op} -> {response}")));
                for state in self.states.iter().filter(|s| s.op == op) {
                    lines.push(Line {
                        column,
                        text: format!("   state: {}", state.state),
                        overflows: true,
                    });
                }
            }
        }
    }

    /// The section: its heading, then the lines in their columns.
    fn layout(&self, columns: &Columns, lines: &[Line], steps_shown: usize) -> String {
        let count = self.actions().count();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "interleaving ({count} steps of the violating execution in the order they took effect, {} preemptions; {}):",
            self.preemptions,
            if self.full {
                "every step (LINEUP_TRACE=full)".to_string()
            } else {
                format!("{steps_shown} of them shown, folded where a thread ran on; LINEUP_TRACE=full shows every step")
            }
        );
        let mut names: Vec<String> = columns.threads.iter().map(ToString::to_string).collect();
        if lines.iter().any(|l| l.column >= columns.threads.len()) {
            names.push("other tasks".to_string());
        }
        let mut width = vec![8usize; names.len()];
        for line in lines.iter().filter(|l| !l.overflows) {
            width[line.column] = width[line.column].max(line.text.chars().count());
        }
        let mut heading = String::from(" ");
        for (name, w) in names.iter().zip(&width) {
            let _ = write!(heading, " {name:<w$}", w = *w);
        }
        out.push_str(heading.trim_end());
        out.push('\n');
        for line in lines {
            let mut text = String::from(" ");
            for (c, w) in width.iter().enumerate() {
                let cell = if c == line.column { line.text.as_str() } else { "" };
                let _ = write!(text, " {cell:<w$}", w = *w);
            }
            out.push_str(text.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Operations whose interval overlaps another's in `history` (a pending operation lasts to the
/// end).
fn overlapping_ops(history: &History) -> Vec<usize> {
    let mut open: Vec<usize> = Vec::new();
    let mut overlapping = Vec::new();
    for &event in history.events() {
        match event {
            Event::Call(op) => {
                if !open.is_empty() {
                    overlapping.push(op);
                    overlapping.extend(open.iter().copied());
                }
                open.push(op);
            }
            Event::Return(op) => open.retain(|&o| o != op),
        }
    }
    overlapping.sort_unstable();
    overlapping.dedup();
    overlapping
}

/// A step on a line of its own, with its full location.
fn full_line(step: &Step) -> String {
    let object = step.object.as_ref().map(ToString::to_string);
    let mut text = step.action.describe(object.as_deref());
    if let Some(task) = other_task(step) {
        text = format!("task {task}: {text}");
    }
    if let Some(at) = &step.location {
        let _ = write!(text, "  @ {at}");
    }
    text
}

/// The task of a step of no operation (the object's own threads), to name it.
fn other_task(step: &Step) -> Option<usize> {
    step.op.is_none().then_some(step.task)
}

/// A run of one task's steps on one line: each step short, their locations as one range, and how
/// many steps the line describes. An operation that overlaps nothing (`!detailed`) shows only how
/// many steps it took and where.
fn fold(run: &[Step], detailed: bool) -> (String, usize) {
    let (mut text, shown) = if detailed {
        let parts: Vec<String> = run.iter().map(short_step).collect();
        if parts.len() > 5 {
            let text = format!(
                "{}, {}, ... {} more ..., {} ({} steps)",
                parts[0],
                parts[1],
                parts.len() - 3,
                parts[parts.len() - 1],
                parts.len()
            );
            (text, 3)
        } else {
            (parts.join(", "), parts.len())
        }
    } else {
        match run {
            [one] => (short_step(one), 1),
            _ => (format!("{} steps", run.len()), 0),
        }
    };
    if let Some(task) = run.first().and_then(other_task) {
        text = format!("task {task}: {text}");
    }
    if let Some(at) = locations(run) {
        let _ = write!(text, "  @ {at}");
    }
    (text, shown)
}

/// A step without its location, the object by its kind and number only.
fn short_step(step: &Step) -> String {
    let object = step.object.as_ref().map(|o| format!("{}#{}", o.kind, o.number));
    step.action.describe(object.as_deref())
}

/// Where a run's steps were called: `file:line`, or `file:first-last` when they are in one file.
fn locations(run: &[Step]) -> Option<String> {
    let known: Vec<_> = run.iter().filter_map(|s| s.location.as_ref()).collect();
    let first = known.first()?;
    if known.iter().any(|l| l.file != first.file) {
        let parts: Vec<String> = known.iter().map(|l| l.short()).collect();
        return Some(parts.join(", "));
    }
    let low = known.iter().map(|l| l.line).min()?;
    let high = known.iter().map(|l| l.line).max()?;
    let short = first.short();
    let file = short.rsplit_once(':').map_or(short.as_str(), |(f, _)| f).to_string();
    Some(if low == high {
        format!("{file}:{low}")
    } else {
        format!("{file}:{low}-{high}")
    })
}

#[cfg(test)]
mod tests {
    use crate::model::history::{op_table, Event, History};
    use crate::model::interleaving::{Action, Interleaving, Step};
    use crate::model::invocation::InvocationLabel;
    use crate::model::matrix::TestMatrix;
    use crate::model::response::Response;

    fn load(task: usize, op: usize, events_before: usize) -> Step {
        Step {
            task,
            op: Some(op),
            action: Action::Load { value: "0".into() },
            object: None,
            location: None,
            events_before,
        }
    }

    /// Regression: a step recorded with fewer events before it than a step before it (a step of
    /// loom's own primitive whose effect came after its scheduling point) made the renderer loop
    /// forever, pushing lines until memory ran out. Every step is shown, each once.
    #[test]
    fn steps_out_of_event_order_are_rendered_and_the_rendering_ends() {
        let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
        let labels = vec![InvocationLabel::new("get", vec![])];
        let ops = op_table(&matrix, &labels);
        let events = vec![Event::Call(1), Event::Call(2), Event::Return(2), Event::Return(1)];
        let responses = vec![Some(Response::returned(&0u64)), Some(Response::returned(&0u64))];
        let history = History::new(ops, events, responses, false).unwrap();
        let interleaving = Interleaving {
            steps: vec![load(1, 1, 1), load(2, 2, 2), load(1, 1, 1), load(2, 2, 3)],
            full: true,
            ..Interleaving::default()
        };
        let text = interleaving.render(&history).text;
        assert_eq!(text.matches("load").count(), 4, "{text}");
        let short = Interleaving {
            full: false,
            ..interleaving
        };
        let text = short.render(&history).text;
        assert!(text.matches("load").count() >= 3, "{text}");
    }
}
