//! The picture of a [`Violation`] of lineup-core: one lane per thread, the operations of the
//! violating history with their results, the stuck operation marked, the two serial histories
//! of a nondeterminism side by side, and the replay token.

use crate::environment::REPLAY_ENV;
use crate::judge::verdict::{ShownSchedule, Violation, ViolationKind};
use crate::judge::witness::explain_non_witness;
use crate::model::history::{Event, History};
use crate::model::replay_token::Phase;
use crate::model::thread_id::ThreadId;

use super::picture::{Bar, BarMark, Fact, Picture, Section, Timeline};

/// How many serial histories of an observation group are drawn beside the violating history.
const GROUP_DRAWN: usize = 2;

impl Violation {
    /// The picture of this violation: one section, as [`Violation::to_html`] draws it.
    pub fn picture(&self) -> Picture {
        Picture {
            title: format!("lineup: FAIL: `{}`", self.subject),
            summary: "not linearizable with respect to any deterministic sequential specification".into(),
            sections: vec![self.section()],
        }
    }

    /// The violation as a self-contained HTML page (inline SVG and script, no network access).
    pub fn to_html(&self) -> String {
        self.picture().to_html()
    }

    /// The section of this violation, to combine several in one [`Picture`].
    pub fn section(&self) -> Section {
        let (threads, ops) = self.matrix.dimensions();
        let mut facts = vec![
            Fact::new("subject", self.subject.clone()),
            Fact::new(
                format!("test matrix ({threads} threads x {ops} operations)"),
                self.matrix.display(&self.labels).to_string().trim_end().to_string(),
            ),
        ];
        let mut notes = Vec::new();
        let mut timelines = Vec::new();
        let heading = match &self.kind {
            ViolationKind::Nondeterministic(n) => {
                let op = n.first.op(n.op);
                notes.push(format!(
                    "Two serial executions agree up to the call of operation {} `{}` on thread {}, and then it \
                     behaves differently: the object is nondeterministic (phase 1).",
                    n.op, op.invocation, op.thread
                ));
                facts.push(Fact::new("first serial history", n.first.notation()));
                facts.push(Fact::new("second serial history", n.second.notation()));
                for (name, h) in [("first serial history", &n.first), ("second serial history", &n.second)] {
                    timelines.push(timeline(name, h, |id| {
                        if id == n.op {
                            BarMark::Differs
                        } else {
                            BarMark::Plain
                        }
                    }));
                }
                "NONDETERMINISM (phase 1)".to_string()
            }
            ViolationKind::NotLinearizable { history, group } => {
                notes.push("No serial execution explains these results in an order that respects this history.".into());
                facts.push(Fact::new("violating history (full)", history.notation()));
                timelines.push(timeline("violating history", history, |_| BarMark::Plain));
                group_notes(&mut notes, &mut timelines, history, group.as_ref());
                "FULL HISTORY WITHOUT SERIAL WITNESS (Def. 1)".to_string()
            }
            ViolationKind::StuckNotLinearizable {
                history,
                stuck,
                pending_op,
                group,
            } => {
                let op = history.op(*pending_op);
                notes.push(format!(
                    "Operation {pending_op} `{}` on thread {} never returns ({stuck}), but no serial execution \
                     blocks there after the same operations.",
                    op.invocation, op.thread
                ));
                facts.push(Fact::new("violating history (stuck)", history.notation()));
                let h_e = history.restricted_to_pending(*pending_op);
                facts.push(Fact::new(format!("H[{pending_op}]"), h_e.notation()));
                timelines.push(timeline("violating history (stuck)", history, |id| {
                    if id == *pending_op {
                        BarMark::Stuck
                    } else {
                        BarMark::Plain
                    }
                }));
                group_notes(&mut notes, &mut timelines, &h_e, group.as_ref());
                "STUCK HISTORY WITHOUT STUCK SERIAL WITNESS (Def. 2)".to_string()
            }
        };
        notes.extend(crate::report::violation_report::cancellation_notes(
            self.kind.history(),
            self.interleaving.as_ref(),
        ));
        facts.push(Fact::with_class("replay", self.replay.to_string(), "replay-token"));
        if let Some(schedule) = &self.schedule {
            facts.push(Fact::new("schedule", schedule_fact(schedule)));
        }
        notes.push(match self.replay.phase {
            Phase::Concurrent { .. } | Phase::ConcurrentYields { .. } | Phase::Scheduled => format!(
                "replay: {REPLAY_ENV}={} re-runs exactly this schedule in phase 2 (or lineup::replay with this token)",
                self.replay
            ),
            Phase::Serial => "replay: lineup::replay with this token re-runs the second serial execution".into(),
            Phase::LoomSerial => "replay: the second serial history is this serial order under loom".into(),
            Phase::LoomConcurrent { .. } => match self.loom.as_ref().and_then(|l| l.checkpoint.as_ref()) {
                Some(path) => format!(
                    "replay: LOOM_CHECKPOINT_FILE={} makes loom run exactly this execution first",
                    path.display()
                ),
                None => "replay: loom's stored path of this execution could not be kept".into(),
            },
        });
        Section {
            heading: format!("{}: {heading}", self.subject),
            facts,
            notes,
            timelines,
            steps: Vec::new(),
            interleaving: self
                .interleaving
                .as_ref()
                .map(|interleaving| interleaving.rows(self.kind.history()))
                .unwrap_or_default(),
            step_timeline: self
                .interleaving
                .as_ref()
                .map(|interleaving| interleaving.step_timeline(self.kind.history())),
        }
    }
}

/// The notes and timelines of an observation group: the serial histories with the same
/// per-thread results, none of them a witness, and why.
fn group_notes(
    notes: &mut Vec<String>,
    timelines: &mut Vec<Timeline>,
    history: &History,
    group: Option<&crate::spec::observation::Observation>,
) {
    match group {
        None => notes.push("No serial execution of this matrix produced these per-thread results.".into()),
        Some(group) => {
            notes.push(format!(
                "{} serial histories have the same per-thread results (observation group), none of them a witness:",
                group.histories.len()
            ));
            for (i, serial) in group.histories.iter().enumerate() {
                let why = explain_non_witness(history, serial);
                notes.push(format!("  {}   ({why})", serial.notation()));
                if i < GROUP_DRAWN {
                    timelines.push(timeline(
                        &format!("serial history with the same results ({why})"),
                        serial,
                        |_| BarMark::Context,
                    ));
                }
            }
        }
    }
}

/// One lane per thread that called an operation, one bar per called operation (from its call
/// event to its return event; a pending one open-ended), marked by `mark`.
fn timeline(caption: &str, history: &History, mark: impl Fn(usize) -> BarMark) -> Timeline {
    let called = history.called_ops();
    let mut threads: Vec<ThreadId> = called.iter().map(|&op| history.op(op).thread).collect();
    threads.sort_unstable();
    threads.dedup();
    let (mut calls, mut returns) = (vec![None; history.ops().len()], vec![None; history.ops().len()]);
    for (at, event) in history.events().iter().enumerate() {
        match *event {
            Event::Call(op) => calls[op - 1] = Some(at as u64),
            Event::Return(op) => returns[op - 1] = Some(at as u64),
        }
    }
    let bars = called
        .iter()
        .map(|&op| {
            let info = history.op(op);
            let stuck_pending = history.response(op).is_none();
            Bar {
                lane: threads.binary_search(&info.thread).unwrap_or(0),
                id: op.to_string(),
                call: calls[op - 1].unwrap_or(0),
                ret: returns[op - 1],
                label: info.invocation.to_string(),
                result: history.response(op).map(ToString::to_string),
                mark: mark(op),
                details: vec![
                    ("operation".into(), format!("{op} (numbered by the matrix)")),
                    (
                        "outcome".into(),
                        if stuck_pending {
                            "pending: never returned".into()
                        } else {
                            "returned".into()
                        },
                    ),
                ],
            }
        })
        .collect();
    Timeline {
        caption: format!("{caption}: {}", history.notation()),
        lanes: threads.iter().map(|t| format!("thread {t}")).collect(),
        bars,
    }
}

/// The schedule fact: its cost, and what it was shortened from.
fn schedule_fact(schedule: &ShownSchedule) -> String {
    if schedule.is_shortened() {
        format!(
            "{} (shortened from {}: {})",
            schedule.shown_cost, schedule.found_cost, schedule.found
        )
    } else {
        schedule.shown_cost.to_string()
    }
}
