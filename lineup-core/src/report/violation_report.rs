//! The violation report: the `Display` of a [`Violation`].

use std::fmt::{self, Write as _};

use crate::judge::verdict::Violation;
use crate::judge::verdict::ViolationKind;
use crate::judge::witness::explain_non_witness;
use crate::model::history::History;
use crate::model::replay_token::Phase;
use crate::model::replay_token::REPLAY_ENV;
use crate::spec::observation::Observation;

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
                write_history(f, history)?;
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
                write_history(f, history)?;
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
            Phase::Concurrent { .. } => writeln!(
                f,
                "replay: {REPLAY_ENV}={} re-runs exactly this schedule in phase 2 (or lineup::replay with this \
                 token)",
                self.replay
            )?,
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
                writeln!(
                    f,
                    "memory: no atomic of lineup::sync::atomic was read weakly in this execution: an interleaving \
                     bug if every atomic of the object is one of those. Atomics it takes from loom directly (a \
                     crate's own) are not tracked: then the violation may need weak memory too, and loom models \
                     SeqCst accesses as AcqRel, so an algorithm that relies on SeqCst fences or on the SeqCst \
                     total order can fail under loom and not in C11 (a loom false alarm; see \
                     docs/black-box-crates.md)"
                )?;
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
        )
    }
}

fn write_history(f: &mut fmt::Formatter<'_>, history: &History) -> fmt::Result {
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
    Ok(())
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
