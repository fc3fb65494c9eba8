//! The violation report: the `Display` of a [`Violation`].

use std::fmt::{self, Write as _};

use crate::environment::REPLAY_ENV;
use crate::judge::verdict::LoomEvidence;
use crate::judge::verdict::ShownSchedule;
use crate::judge::verdict::Violation;
use crate::judge::verdict::ViolationKind;
use crate::judge::witness::explain_non_witness;
use crate::model::history::History;
use crate::model::interleaving::{Action, Interleaving, Step};
use crate::model::replay_token::Phase;
use crate::spec::observation::Observation;

/// The line that says what the schedule shown costs, and, when it was shortened, what the one
/// phase 2 found cost.
fn write_schedule(f: &mut fmt::Formatter<'_>, schedule: &ShownSchedule) -> fmt::Result {
    if schedule.is_shortened() {
        writeln!(
            f,
            "schedule: shortened from {} to {} ({} → {} preemptions; phase 2 found {})",
            schedule.found_cost,
            schedule.shown_cost,
            schedule.preemptions_before(),
            schedule.preemptions_after(),
            schedule.found
        )
    } else {
        writeln!(
            f,
            "schedule: {} (no schedule reaching this history with fewer was found in {} executions)",
            schedule.shown_cost, schedule.executions
        )
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (threads, ops) = self.matrix.dimensions();
        writeln!(
            f,
            "lineup: FAIL: `{}` is not linearizable with respect to any deterministic sequential specification.",
            self.subject
        )?;
        writeln!(f)?;
        writeln!(f, "test matrix ({threads} threads x {ops} operations):")?;
        write!(f, "{}", self.matrix.display(&self.labels))?;
        writeln!(f)?;
        match &self.kind {
            ViolationKind::Nondeterministic(n) => {
                let op = n.first.op(n.op);
                writeln!(
                    f,
                    "kind: NONDETERMINISM (phase 1). Two serial executions agree up to the call of operation {} \
                     `{}` on thread {}, and then it behaves differently:",
                    n.op, op.invocation, op.thread
                )?;
                for (name, h) in [("first", &n.first), ("second", &n.second)] {
                    let outcome = match h.response(n.op) {
                        Some(r) if !(h.is_stuck() && h.pending_ops().contains(&n.op)) => format!("returns {r}"),
                        _ => "blocks forever (stuck)".to_string(),
                    };
                    writeln!(
                        f,
                        "  {name} serial history: {}   (operation {} {outcome})",
                        h.notation(),
                        n.op
                    )?;
                }
                writeln!(f)?;
                writeln!(f, "timeline of the second serial history:")?;
                write!(f, "{}", n.second.timeline())?;
            }
            ViolationKind::NotLinearizable { history, group } => {
                writeln!(
                    f,
                    "kind: FULL HISTORY WITHOUT SERIAL WITNESS (Def. 1). No serial execution explains these results \
                     in an order that respects this history."
                )?;
                write_history(f, history, self.interleaving.as_ref())?;
                write_group(
                    f,
                    history,
                    group.as_ref(),
                    "serial histories with the same per-thread results",
                )?;
            }
            ViolationKind::StuckNotLinearizable {
                history,
                stuck,
                pending_op,
                group,
            } => {
                let op = history.op(*pending_op);
                writeln!(
                    f,
                    "kind: STUCK HISTORY WITHOUT STUCK SERIAL WITNESS (Def. 2). Operation {} `{}` on thread {} never \
                     returns ({stuck}), but no serial execution blocks there after the same operations.",
                    pending_op, op.invocation, op.thread
                )?;
                write_history(f, history, self.interleaving.as_ref())?;
                let h_e = history.restricted_to_pending(*pending_op);
                writeln!(
                    f,
                    "H[{pending_op}] (the stuck history with only that pending call): {}",
                    h_e.notation()
                )?;
                write_group(
                    f,
                    &h_e,
                    group.as_ref(),
                    "stuck serial histories with the same per-thread results",
                )?;
            }
        }
        write_interleaving(f, self)?;
        writeln!(f)?;
        match self.replay.phase {
            Phase::Serial => writeln!(
                f,
                "replay: lineup::replay(&subject, &matrix, &\"{}\".parse()?, &config) re-runs the second serial \
                 execution",
                self.replay
            )?,
            Phase::LoomSerial => writeln!(
                f,
                "replay: the second serial history is the serial order {} under loom (--cfg loom)",
                self.replay
            )?,
            Phase::LoomConcurrent { .. } => match self.loom.as_ref().and_then(|l| l.checkpoint.as_ref()) {
                Some(path) => writeln!(
                    f,
                    "replay: LOOM_CHECKPOINT_FILE={} makes loom run exactly this execution first (--cfg loom)",
                    path.display()
                )?,
                None => writeln!(f, "replay: loom's stored path of this execution could not be kept")?,
            },
            Phase::Concurrent { .. } | Phase::ConcurrentYields { .. } | Phase::Scheduled => writeln!(
                f,
                "replay: {REPLAY_ENV}={} re-runs exactly this schedule in phase 2 (or lineup::replay with this \
                 token)",
                self.replay
            )?,
        }
        if let Some(schedule) = &self.schedule {
            write_schedule(f, schedule)?;
        }
        if let Some(loom) = &self.loom {
            if loom.is_weak_memory() {
                writeln!(
                    f,
                    "memory: WEAK-MEMORY behaviour. This violating execution relies on loads that returned an older \
                     value than the latest store of the interleaving (allowed by the orderings used, explored by \
                     loom, never by shuttle): look at the orderings and fences before the interleaving:"
                )?;
                for load in &loom.weak_loads {
                    writeln!(f, "  - {load}")?;
                }
            } else {
                write_untracked_memory(f, loom, self.kind.history())?;
            }
        }
        let s = &self.stats;
        write!(
            f,
            "explored: phase 1 {} serial executions ({} full, {} stuck serial histories{}) in {:.1?}; phase 2 {} \
             executions ({} distinct histories, {} stuck{}) in {:.1?} at preemption bound {}",
            s.serial_executions,
            s.serial_full,
            s.serial_stuck,
            if s.spec_from_file {
                ", read from an observation file"
            } else {
                ""
            },
            s.phase1_time,
            s.concurrent_executions,
            s.distinct_histories,
            s.stuck_histories,
            match s.inconclusive_executions {
                0 => String::new(),
                n => format!("; {n} inconclusive at the step limit, not judged"),
            },
            s.phase2_time,
            s.preemption_bound
        )?;
        if s.cancellation_points > 0 {
            write!(f, ", {} cancellation points", s.cancellation_points)?;
        }
        if let Some((interlude, executions)) = &s.interlude {
            write!(f, " ({executions} of them by the interlude {}", interlude.strategy)?;
            match interlude.rounds_for(*executions) {
                1 => write!(f, ", after {} of the search)", interlude.after)?,
                rounds => write!(
                    f,
                    " in {rounds} rounds, after {} of the search and each time it had run twice as many, up to {})",
                    interlude.after,
                    interlude.pause_of_round(rounds - 1)
                )?,
            }
        }
        if let Some(report) = &self.html_report {
            write!(f, "\n{report}")?;
        }
        Ok(())
    }
}

/// The "interleaving" section: the steps of the violating execution, or why there are none.
fn write_interleaving(f: &mut fmt::Formatter<'_>, violation: &Violation) -> fmt::Result {
    writeln!(f)?;
    match (&violation.interleaving, violation.replay.phase) {
        (Some(interleaving), _) => f.write_str(&interleaving.render(violation.kind.history()).text),
        (None, Phase::LoomSerial) => writeln!(
            f,
            "interleaving: the steps of a phase-1 execution are not recorded under the loom backend (the serial \
             order is the replay line)"
        ),
        (None, Phase::LoomConcurrent { .. }) => writeln!(
            f,
            "interleaving: not recorded (loom's replay of the stored path with step recording did not give the \
             same history, or no path was stored)"
        ),
        (None, _) => writeln!(
            f,
            "interleaving: not recorded (the replay of this schedule with step recording did not give the same \
             history, or was not run)"
        ),
    }
}

fn write_history(f: &mut fmt::Formatter<'_>, history: &History, steps: Option<&Interleaving>) -> fmt::Result {
    writeln!(f)?;
    writeln!(
        f,
        "violating history{}:",
        if history.is_stuck() { " (stuck)" } else { " (full)" }
    )?;
    writeln!(f, "  {}", history.notation())?;
    writeln!(f)?;
    writeln!(f, "per-thread timeline:")?;
    write!(f, "{}", history.timeline())?;
    writeln!(f)?;
    writeln!(f, "operations:")?;
    for op in history.called_ops() {
        let info = history.op(op);
        let result = history
            .response(op)
            .map_or_else(|| "(pending)".to_string(), |r| format!("-> {r}"));
        writeln!(
            f,
            "  {op:>3}  {:<5} {}  {result}",
            info.thread.to_string(),
            info.invocation
        )?;
    }
    for note in cancellation_notes(history, steps) {
        writeln!(f, "{note}")?;
    }
    Ok(())
}

/// One line per cancelled operation of `history`: where it was cancelled (the poll; with the
/// recorded `steps`, the last step of that poll, where the future was suspended), and how it is
/// judged.
pub(crate) fn cancellation_notes(history: &History, steps: Option<&Interleaving>) -> Vec<String> {
    history
        .cancelled_ops()
        .into_iter()
        .map(|op| {
            let info = history.op(op);
            let polls = match history.response(op) {
                Some(crate::model::response::Response::Cancelled { polls }) => *polls,
                _ => 0,
            };
            let at = steps.and_then(|steps| suspended_at(steps, op)).unwrap_or_default();
            format!(
                "cancelled: operation {op} `{}` on thread {}: its future was dropped after poll {polls} returned \
                 Pending{at}; judged as pending (a witness completes it, with any result, or leaves it out).",
                info.invocation, info.thread
            )
        })
        .collect()
}

/// Where cancelled operation `op` was suspended: the last step of its last poll (the one before
/// the drop of its future, the primitive whose `.await` returned `Pending`), as
/// `, its last poll's last step being `step @ file:line``.
fn suspended_at(steps: &Interleaving, op: usize) -> Option<String> {
    let ours: Vec<&Step> = steps.steps_of(op).collect();
    let drop = ours.iter().position(|s| matches!(s.action, Action::Cancel { .. }))?;
    // The drop comes in a poll of its own (the operation was woken to drop its future): the
    // last poll that returned `Pending` ends before that poll's `.await resumed`, and begins
    // after the one before.
    let is_boundary = |s: &&Step| matches!(s.action, Action::Switch { .. } | Action::Await);
    let end = ours[..drop]
        .iter()
        .rposition(|s| !is_boundary(s))
        .map_or(0, |at| at + 1);
    let poll = ours[..end]
        .iter()
        .rposition(|s| matches!(s.action, Action::Await))
        .map_or(0, |at| at + 1);
    let last_poll = &ours[poll..end];
    let shown = |s: &&&Step| !matches!(s.action, Action::Switch { .. } | Action::Await);
    let last = last_poll
        .iter()
        .rev()
        .filter(shown)
        .find(|s| s.location.is_some())
        .or_else(|| last_poll.iter().rev().find(shown))?;
    Some(format!(" (suspended in its last poll after `{}`)", last.describe()))
}

fn write_group(f: &mut fmt::Formatter<'_>, h: &History, group: Option<&Observation>, what: &str) -> fmt::Result {
    writeln!(f)?;
    match group {
        None => writeln!(
            f,
            "no serial execution of this matrix produced these per-thread results."
        )?,
        Some(group) => {
            writeln!(f, "{what} (observation group), none of them a witness:")?;
            let mut text = String::new();
            for s in &group.histories {
                let _ = writeln!(text, "  {}   ({})", s.notation(), explain_non_witness(h, s));
            }
            f.write_str(&text)?;
        }
    }
    Ok(())
}

/// The memory section of a loom violation that no tracked load explains: what lineup can know
/// (whether the history is serial, whether the other memory setting fails too), never "an
/// interleaving bug" without evidence.
fn write_untracked_memory(f: &mut fmt::Formatter<'_>, loom: &LoomEvidence, history: &History) -> fmt::Result {
    let setting = |rthb: bool| {
        if rthb {
            "with real-time order as happens-before"
        } else {
            "in loom's bare C11 model"
        }
    };
    writeln!(
        f,
        "memory: no atomic of lineup::sync::atomic was read weakly in this execution; atomics the object takes \
         from loom directly (a crate's own) are not tracked, so lineup has no evidence that this is an \
         interleaving bug."
    )?;
    writeln!(f, "  found {}", setting(loom.real_time_happens_before))?;
    match loom.other_setting_fails {
        Some(true) => writeln!(f, "  re-checked {}: FAILS too", setting(!loom.real_time_happens_before))?,
        Some(false) => writeln!(
            f,
            "  re-checked {}: PASSES, so the failure depends on the memory model",
            setting(!loom.real_time_happens_before)
        )?,
        None => writeln!(
            f,
            "  not re-checked in the other memory setting (a stored path is replayed)"
        )?,
    }
    if history.is_serial() {
        if loom.real_time_happens_before {
            writeln!(
                f,
                "  the violating history is serial (no two operations overlap) and real-time order is \
                 happens-before: in C11 every load of it reads the latest store, so no C11 execution gives these \
                 results. This is a loom artefact (loom models SeqCst accesses as AcqRel, and a crate's loom shim may \
                 weaken its fences; see docs/black-box-crates.md), not a behaviour of the object on real hardware."
            )?;
        } else {
            writeln!(
                f,
                "  the violating history is serial (no two operations overlap): in a sequentially consistent run \
                 the operations could not return these values in this order (every such run is one of phase 1's \
                 serial executions). The failure needs weak memory: an operation called after another returned \
                 read an older value, which C11 allows without real-time order as happens-before (or a loom \
                 artefact: loom models SeqCst accesses as AcqRel)."
            )?;
        }
    } else if loom.other_setting_fails == Some(true) {
        writeln!(
            f,
            "  it fails in both memory settings: an interleaving bug, or weak memory inside overlapping operations; \
             if every atomic of the object is lineup::sync::atomic it is an interleaving bug (the same matrix on \
             shuttle, which is sequentially consistent, tells)."
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::CheckStats;
    use crate::model::history::{op_table, Event};
    use crate::model::invocation::InvocationLabel;
    use crate::model::matrix::TestMatrix;
    use crate::model::replay_token::ReplayToken;
    use crate::model::response::Response;

    /// A loom violation of `inc() | get()` with `get` returning 0, its events as given.
    fn violation(events: Vec<Event>, real_time_happens_before: bool, other_setting_fails: Option<bool>) -> String {
        let matrix = TestMatrix::new(vec![vec![0], vec![1]]);
        let labels = vec![InvocationLabel::new("inc", vec![]), InvocationLabel::new("get", vec![])];
        let ops = op_table(&matrix, &labels);
        let responses = vec![Some(Response::returned(&())), Some(Response::returned(&0u64))];
        let history = History::new(ops, events, responses, false).unwrap();
        Violation {
            subject: "LoomCounter".into(),
            matrix,
            labels,
            kind: ViolationKind::NotLinearizable { history, group: None },
            replay: ReplayToken {
                phase: Phase::LoomConcurrent { preemption_bound: 2 },
                choices: Vec::new(),
            },
            stats: CheckStats::default(),
            loom: Some(LoomEvidence {
                weak_loads: Vec::new(),
                checkpoint: None,
                real_time_happens_before,
                other_setting_fails,
            }),
            schedule: None,
            html_report: None,
            interleaving: None,
        }
        .to_string()
    }

    fn serial() -> Vec<Event> {
        vec![Event::Call(1), Event::Return(1), Event::Call(2), Event::Return(2)]
    }

    fn overlapping() -> Vec<Event> {
        vec![Event::Call(1), Event::Call(2), Event::Return(2), Event::Return(1)]
    }

    #[test]
    fn a_serial_violation_in_c11_needs_weak_memory() {
        let report = violation(serial(), false, Some(false));
        assert!(report.contains("needs weak memory"), "{report}");
        assert!(
            report.contains("with real-time order as happens-before: PASSES"),
            "{report}"
        );
        assert!(
            report.contains("no evidence that this is an interleaving bug"),
            "{report}"
        );
    }

    #[test]
    fn a_loom_violation_without_steps_says_why() {
        let report = violation(overlapping(), true, Some(true));
        assert!(
            report.contains("interleaving: not recorded (loom's replay of the stored path"),
            "{report}"
        );
    }

    #[test]
    fn a_serial_violation_with_real_time_order_is_a_loom_artefact() {
        let report = violation(serial(), true, Some(true));
        assert!(report.contains("loom artefact"), "{report}");
        assert!(report.contains("in loom's bare C11 model: FAILS too"), "{report}");
    }

    #[test]
    fn an_overlapping_violation_in_both_settings_is_not_called_an_interleaving_bug() {
        let report = violation(overlapping(), true, Some(true));
        assert!(report.contains("fails in both memory settings"), "{report}");
        assert!(!report.contains("needs weak memory"), "{report}");
        assert!(!report.contains("loom artefact"), "{report}");
    }
}
