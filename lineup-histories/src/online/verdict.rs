//! The verdict of an online check, and the explanation of a violation.

use std::fmt;

use super::OnlineChecker;
use crate::history::{ClientId, OpId};
use crate::model::Model;
use crate::outcome::UnknownReason;
use crate::timeline::{Timeline, TimelineMark};

/// How many completed operations per client an online violation shows for context.
const CONTEXT_PER_CLIENT: usize = 2;

/// Where the online check stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnlineStatus {
    /// No violation so far.
    Consistent,
    /// A violation was found ([`OnlineChecker::verdict`] explains it); later events are only
    /// recorded.
    Violated,
    /// The possibilities outgrew their bound, or the memory budget: no verdict (never a guess).
    GaveUp,
}

/// The verdict of an online check, with its explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OnlineVerdict {
    /// No violation so far.
    Consistent,
    /// Not linearizable.
    Violation(Box<OnlineViolation>),
    /// No verdict.
    Unknown(UnknownReason),
}

/// A violation found online: after event [`OnlineViolation::event`], the operations in
/// [`OnlineViolation::due`] had to be placed, and no possibility could place them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnlineViolation {
    /// The index of the event after which no possibility was left (the return or `info` that
    /// settled the operations in `due`, or the end of the history).
    pub event: usize,
    /// The operations that had to be placed then: every operation called before they returned
    /// had returned (or has an unknown outcome), so nothing still to come could go before them.
    pub due: Vec<OpId>,
    /// The other operations that could have been placed before them (returned but not yet
    /// due, or with an unknown outcome).
    pub others: Vec<OpId>,
    /// How many possibilities there were just before.
    pub possibilities_before: usize,
    /// The operations around it, per client.
    pub timeline: Timeline,
}

impl fmt::Display for OnlineViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "after event {}, none of the {} possibilities can place",
            self.event, self.possibilities_before
        )?;
        for id in &self.due {
            write!(f, " {id}")?;
        }
        writeln!(f)?;
        if !self.others.is_empty() {
            write!(f, "other operations that could go before them:")?;
            for id in &self.others {
                write!(f, " {id}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{}", self.timeline)
    }
}

impl<M: Model> OnlineChecker<M> {
    /// The explanation of the violation found after `event`: no possibility could place `due`.
    pub(super) fn violation(&self, event: usize, due: &[u32], possibilities_before: usize) -> OnlineViolation {
        let ops = self.builder.operations();
        let due_ids: Vec<OpId> = due.iter().map(|&op| OpId(op as usize)).collect();
        let others: Vec<OpId> = self
            .live
            .iter()
            .filter(|op| due.binary_search(op).is_err())
            .map(|&op| OpId(op as usize))
            .collect();
        // Context: the last completed operations of each client.
        let mut context: Vec<(OpId, TimelineMark)> = Vec::new();
        let mut per_client: rustc_hash::FxHashMap<ClientId, usize> = Default::default();
        let first_due = due.first().copied().unwrap_or(0) as usize;
        for (i, op) in ops.iter().enumerate().take(first_due).rev() {
            if op.outcome.is_unknown() {
                continue;
            }
            let shown = per_client.entry(op.client).or_default();
            if *shown < CONTEXT_PER_CLIENT {
                *shown += 1;
                context.push((OpId(i), TimelineMark::Context));
            }
            if context.len() >= 24 {
                break;
            }
        }
        context.extend(others.iter().map(|&id| (id, TimelineMark::Context)));
        let (blocking, unplaced) = match due_ids.split_last() {
            Some((last, [])) => (Some(*last), Vec::new()),
            _ => (None, due_ids.clone()),
        };
        let timeline = Timeline::of_marked(ops, blocking, &unplaced, context);
        OnlineViolation {
            event,
            due: due_ids,
            others,
            possibilities_before,
            timeline,
        }
    }
}
