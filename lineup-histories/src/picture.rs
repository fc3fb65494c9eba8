//! The HTML picture of a violation found in a recorded history: one lane per client, each
//! operation a bar from its call to its return labelled with its input and output (open-ended
//! for an unknown outcome), the longest linearizable prefix and the operation that cannot be
//! placed next highlighted, the model's state before and after each linearized step shown on
//! hover. Drawn by lineup-core's HTML writer ([`lineup_core::report_html`]).

use std::collections::BTreeSet;
use std::fmt::Debug;

use lineup_core::report_html::{Bar, BarMark, Fact, Section, Step, Timeline};
use rustc_hash::FxHashMap;

use crate::history::{History, OpId, Outcome};
use crate::model::PartitionedModel;
use crate::outcome::Violation;

/// At most this many operations are drawn (those nearest the failure).
const MAX_BARS: usize = 240;

/// The section of a violation of `history`: `members` are the operations of the failing
/// partition (`None`: the history was checked whole), `call_lines` the file line of each
/// operation's call, if the history was read from a file.
///
/// The operations drawn are those whose interval meets the span of the last linearized steps
/// kept with their states ([`Violation::steps`]), the operation that cannot be placed and the
/// other candidates (at most 240, the nearest to that span).
pub fn violation_section<I: Debug, O: Debug>(
    history: &History<I, O>,
    violation: &Violation,
    heading: String,
    members: Option<&[OpId]>,
    call_lines: Option<&[usize]>,
) -> Section {
    let all: Vec<OpId>;
    let members = match members {
        Some(members) => members,
        None => {
            all = history.iter().map(|(id, _)| id).collect();
            &all
        }
    };
    // The operations the failure is about, and the span of time they cover.
    let mut focus: Vec<OpId> = violation.steps.iter().map(|s| s.op).collect();
    focus.extend(violation.blocking);
    focus.extend(violation.unplaced.iter().copied());
    if focus.is_empty() {
        focus.extend(violation.prefix.iter().rev().take(12).copied());
    }
    let span_start = focus.iter().map(|&id| history[id].call).min().unwrap_or(0);
    let span_end = focus
        .iter()
        .map(|&id| {
            let op = &history[id];
            if op.outcome.is_unknown() {
                op.call
            } else {
                op.ret
            }
        })
        .max()
        .unwrap_or(0);
    let focus_set: BTreeSet<OpId> = focus.iter().copied().collect();
    let mut others: Vec<(u64, OpId)> = members
        .iter()
        .filter(|id| !focus_set.contains(id))
        .filter_map(|&id| {
            let op = &history[id];
            // Drawn if its interval meets the span.
            (op.call <= span_end && op.ret >= span_start).then_some((op.call.abs_diff(span_start), id))
        })
        .collect();
    others.sort_unstable();
    let room = MAX_BARS.saturating_sub(focus_set.len());
    let hidden = others.len().saturating_sub(room);
    others.truncate(room);
    let mut shown: Vec<OpId> = focus_set
        .iter()
        .copied()
        .chain(others.iter().map(|&(_, id)| id))
        .collect();
    shown.sort_unstable_by_key(|&id| (history[id].call, id));

    let position: FxHashMap<OpId, usize> = violation.prefix.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let states: FxHashMap<OpId, (&str, &str)> = violation
        .steps
        .iter()
        .map(|s| (s.op, (s.before.as_str(), s.after.as_str())))
        .collect();
    let clients: Vec<u64> = shown
        .iter()
        .map(|&id| history[id].client)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let bars = shown
        .iter()
        .map(|&id| {
            let op = &history[id];
            let mark = if Some(id) == violation.blocking {
                BarMark::Blocking
            } else if violation.unplaced.contains(&id) {
                BarMark::Unplaced
            } else if let Some(&at) = position.get(&id) {
                BarMark::Linearized(at)
            } else {
                BarMark::Plain
            };
            let mut details = Vec::new();
            if let Some(lines) = call_lines {
                if let Some(line) = lines.get(id.0) {
                    details.push(("line of its call".to_string(), line.to_string()));
                }
            }
            let ret = match op.outcome {
                Outcome::Unknown => "never (outcome unknown)".to_string(),
                Outcome::Returned(_) => op.ret.to_string(),
            };
            details.push(("call, return".into(), format!("{}, {ret}", op.call)));
            if let Some((before, after)) = states.get(&id) {
                details.push(("state before".into(), before.to_string()));
                details.push(("state after".into(), after.to_string()));
            }
            if Some(id) == violation.blocking {
                details.push(("state after the prefix".into(), violation.state.clone()));
            }
            Bar {
                lane: clients.binary_search(&op.client).unwrap_or(0),
                id: id.to_string(),
                call: op.call,
                ret: (!op.outcome.is_unknown()).then_some(op.ret),
                label: format!("{:?}", op.input),
                result: Some(match op.output() {
                    Some(output) => format!("{output:?}"),
                    None => "?".into(),
                }),
                mark,
                details,
            }
        })
        .collect();

    let describe = |id: OpId| {
        let op = &history[id];
        match op.output() {
            Some(output) => format!("{id} {:?} -> {output:?} (client {})", op.input, op.client),
            None => format!("{id} {:?} -> ? (client {})", op.input, op.client),
        }
    };
    let mut facts = Vec::new();
    if let Some(key) = &violation.partition {
        facts.push(Fact::with_class("partition", key.clone(), "partition-key"));
    }
    facts.push(Fact::new(
        "longest linearizable prefix",
        format!("{} operations", violation.prefix.len()),
    ));
    facts.push(Fact::with_class(
        "state after it",
        violation.state.clone(),
        "state-after-prefix",
    ));
    if let Some(id) = violation.blocking {
        facts.push(Fact::with_class(
            "cannot be placed next",
            format!("{}: it returned before it could be placed", describe(id)),
            "blocking-op",
        ));
    }
    if !violation.unplaced.is_empty() {
        let list: Vec<String> = violation.unplaced.iter().map(|&id| describe(id)).collect();
        facts.push(Fact::new("could not be placed either", list.join("\n")));
    }
    let mut notes = vec![format!(
        "{} of the {} operations{} drawn: those around the end of the prefix and the failure{}. Hover over an \
         operation for its details and, for a linearized one, the model's state before and after it.",
        shown.len(),
        members.len(),
        if violation.partition.is_some() {
            " of this partition"
        } else {
            ""
        },
        if hidden > 0 {
            format!(" ({hidden} more in that span are left out)")
        } else {
            String::new()
        }
    )];
    if violation.steps.len() < violation.prefix.len() {
        notes.push(format!(
            "States are kept for the last {} steps of the prefix.",
            violation.steps.len()
        ));
    }
    let steps = violation
        .steps
        .iter()
        .map(|s| Step {
            position: s.position,
            operation: describe(s.op),
            before: s.before.clone(),
            after: s.after.clone(),
        })
        .collect();
    Section {
        heading,
        facts,
        notes,
        timelines: vec![Timeline {
            caption: "one lane per client; time runs to the right (only the order of calls and returns counts)".into(),
            lanes: clients.iter().map(|c| format!("client {c}")).collect(),
            bars,
        }],
        steps,
        interleaving: Vec::new(),
        step_timeline: None,
    }
}

/// The operations of the partition of `history` whose key renders (`Debug`) as `key`, the
/// [`Violation::partition`] of a partitioned check.
pub fn partition_members<M: PartitionedModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    key: &str,
) -> Vec<OpId> {
    history
        .iter()
        .filter(|(_, op)| model.partition_key(&op.input).is_some_and(|k| format!("{k:?}") == key))
        .map(|(id, _)| id)
        .collect()
}
