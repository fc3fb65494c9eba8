//! The online checker: events are fed as they happen, and a violation is reported as soon as
//! no possibility is left (the possibilities-set algorithm of the `linearize` crate,
//! generalized to any model with a hashable state).

use std::fmt;

use rustc_hash::FxHashSet;

use crate::history::{ClientId, History, OpId, Outcome};
use crate::history_builder::HistoryBuilder;
use crate::history_error::HistoryError;
use crate::model::Model;
use crate::outcome::UnknownReason;
use crate::timeline::{Timeline, TimelineMark};

/// The default bound on the number of possibilities ([`OnlineChecker::with_max_possibilities`]).
pub const DEFAULT_MAX_POSSIBILITIES: usize = 1 << 20;

/// An open operation (called, not returned) applied in a possibility.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Applied<S> {
    op: u32,
    /// For an operation still pending: the states before and after it. Its output, once it
    /// returns, must allow that transition. `None` for an operation whose outcome is unknown
    /// for good (`info`): nothing left to check.
    transition: Option<(S, S)>,
}

/// One way the history so far can be linearized: the state after every returned operation and
/// some open ones (sorted by operation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Possibility<S> {
    state: S,
    applied: Vec<Applied<S>>,
}

impl<S> Possibility<S> {
    fn position(&self, op: u32) -> Result<usize, usize> {
        self.applied.binary_search_by_key(&op, |a| a.op)
    }
}

/// Where the online check stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnlineStatus {
    /// The events so far are linearizable (calls still pending count as unknown outcomes).
    Consistent,
    /// A violation was found ([`OnlineChecker::verdict`] explains it); later events are only
    /// recorded.
    Violated,
    /// The possibilities outgrew their bound: no verdict (never a guess).
    GaveUp,
}

/// The verdict of an online check, with its explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OnlineVerdict {
    /// The events so far are linearizable.
    Consistent,
    /// Not linearizable.
    Violation(Box<OnlineViolation>),
    /// No verdict.
    Unknown(UnknownReason),
}

/// A violation found online: the return of [`OnlineViolation::op`] left no possibility.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnlineViolation {
    /// The operation whose return (or whose output) no linearization of the events so far
    /// allows.
    pub op: OpId,
    /// The index of that return event.
    pub event: usize,
    /// The operations open at that moment (called, not returned), which could have been
    /// placed before it.
    pub open: Vec<OpId>,
    /// How many possibilities there were just before.
    pub possibilities_before: usize,
    /// The operations around it, per client.
    pub timeline: Timeline,
}

impl fmt::Display for OnlineViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "event {}: the return of {} leaves none of the {} possibilities",
            self.event, self.op, self.possibilities_before
        )?;
        write!(f, "operations open then:")?;
        for id in &self.open {
            write!(f, " {id}")?;
        }
        writeln!(f)?;
        write!(f, "{}", self.timeline)
    }
}

/// How many completed operations per client an online violation shows for context.
const CONTEXT_PER_CLIENT: usize = 2;

/// Checks a history while it is being recorded.
///
/// Feed events in the order they happen with [`OnlineChecker::call`], [`OnlineChecker::ret`]
/// and [`OnlineChecker::info`]; each returns the [`OnlineStatus`] after the event (or a
/// [`HistoryError`] for a malformed event, which is not recorded). The checker keeps the set
/// of *possibilities*: the model states reachable by linearizing every returned operation and
/// some of the open ones (with, for each open operation applied, the transition its output
/// must later allow). An operation is placed at the latest at its return; the set is
/// deduplicated by hashing, and bounded ([`OnlineChecker::with_max_possibilities`]): past the
/// bound the checker gives up ([`OnlineStatus::GaveUp`]), it never guesses.
///
/// It agrees with [`crate::check`] on the history recorded so far.
///
/// ```
/// use lineup_histories::{OnlineChecker, OnlineStatus};
/// use lineup_histories::models::{RegisterInput as I, RegisterModel, RegisterOutput as O};
///
/// let mut c = OnlineChecker::new(RegisterModel::new(0));
/// c.call(0, I::Write(1)).unwrap();
/// c.call(1, I::Read).unwrap();
/// assert_eq!(c.ret(1, O::Value(1)).unwrap(), OnlineStatus::Consistent); // the write went first
/// assert_eq!(c.ret(0, O::Ok).unwrap(), OnlineStatus::Consistent);
/// c.call(1, I::Read).unwrap();
/// assert_eq!(c.ret(1, O::Value(0)).unwrap(), OnlineStatus::Violated); // stale read
/// println!("{}", c.verdict_text());
/// ```
pub struct OnlineChecker<M: Model> {
    model: M,
    builder: HistoryBuilder<M::Input, M::Output>,
    possibilities: FxHashSet<Possibility<M::State>>,
    /// Operations called and not returned (pending, or unknown for good), sorted.
    open: Vec<u32>,
    max_possibilities: usize,
    verdict: OnlineVerdict,
}

impl<M: Model> OnlineChecker<M> {
    /// A checker starting from the model's initial state.
    pub fn new(model: M) -> Self {
        let mut possibilities = FxHashSet::default();
        possibilities.insert(Possibility { state: model.init(), applied: Vec::new() });
        OnlineChecker {
            model,
            builder: HistoryBuilder::new(),
            possibilities,
            open: Vec::new(),
            max_possibilities: DEFAULT_MAX_POSSIBILITIES,
            verdict: OnlineVerdict::Consistent,
        }
    }

    /// Sets the bound on the number of possibilities (and on those explored at one return).
    pub fn with_max_possibilities(mut self, max: usize) -> Self {
        self.max_possibilities = max.max(1);
        self
    }

    /// The status now.
    pub fn status(&self) -> OnlineStatus {
        match self.verdict {
            OnlineVerdict::Consistent => OnlineStatus::Consistent,
            OnlineVerdict::Violation(_) => OnlineStatus::Violated,
            OnlineVerdict::Unknown(_) => OnlineStatus::GaveUp,
        }
    }

    /// The verdict now, with its explanation.
    pub fn verdict(&self) -> &OnlineVerdict {
        &self.verdict
    }

    /// The verdict as text (the violation with its timeline, if any).
    pub fn verdict_text(&self) -> String {
        match &self.verdict {
            OnlineVerdict::Consistent => "consistent so far".to_string(),
            OnlineVerdict::Violation(v) => format!("NOT linearizable: {v}"),
            OnlineVerdict::Unknown(reason) => format!("unknown: {reason}"),
        }
    }

    /// The number of possibilities now.
    pub fn possibilities(&self) -> usize {
        self.possibilities.len()
    }

    /// The history recorded so far (pending calls have an unknown outcome).
    pub fn history(&self) -> History<M::Input, M::Output> {
        self.builder.clone().build()
    }

    /// The history recorded (pending calls get an unknown outcome), and the verdict.
    pub fn finish(self) -> (History<M::Input, M::Output>, OnlineVerdict) {
        (self.builder.build(), self.verdict)
    }

    /// `client` calls an operation.
    pub fn call(&mut self, client: ClientId, input: M::Input) -> Result<OnlineStatus, HistoryError> {
        let id = self.builder.call(client, input)?;
        self.open.push(id.0 as u32); // ids grow: `open` stays sorted
        Ok(self.status())
    }

    /// The pending operation of `client` returns `output`.
    pub fn ret(&mut self, client: ClientId, output: M::Output) -> Result<OnlineStatus, HistoryError> {
        let event = self.builder.event_count();
        let id = self.builder.ret(client, output)?;
        let op = id.0 as u32;
        if let Ok(at) = self.open.binary_search(&op) {
            self.open.remove(at);
        }
        if self.status() != OnlineStatus::Consistent {
            return Ok(self.status());
        }
        let before = self.possibilities.len();
        match self.place(op) {
            Ok(next) if next.is_empty() => {
                self.possibilities = next;
                self.verdict = OnlineVerdict::Violation(Box::new(self.violation(id, event, before)));
            }
            Ok(next) => self.possibilities = next,
            Err(reason) => {
                self.possibilities.clear();
                self.verdict = OnlineVerdict::Unknown(reason);
            }
        }
        Ok(self.status())
    }

    /// The pending operation of `client` ends with an unknown outcome (Jepsen `:info`).
    pub fn info(&mut self, client: ClientId) -> Result<OnlineStatus, HistoryError> {
        let id = self.builder.info(client)?;
        if self.status() != OnlineStatus::Consistent {
            return Ok(self.status());
        }
        let op = id.0 as u32;
        // Nothing is left to check about it: forget the transitions recorded for it.
        let possibilities = std::mem::take(&mut self.possibilities);
        let mut everywhere = true;
        for mut p in possibilities {
            match p.position(op) {
                Ok(at) => p.applied[at].transition = None,
                Err(_) => everywhere = false,
            }
            self.possibilities.insert(p);
        }
        // Applied in every possibility: it is done for good.
        if everywhere {
            let possibilities = std::mem::take(&mut self.possibilities);
            for mut p in possibilities {
                if let Ok(at) = p.position(op) {
                    p.applied.remove(at);
                }
                self.possibilities.insert(p);
            }
            if let Ok(at) = self.open.binary_search(&op) {
                self.open.remove(at);
            }
        }
        Ok(self.status())
    }

    /// The possibilities after the return of `op` (already removed from `open`).
    fn place(&self, op: u32) -> Result<FxHashSet<Possibility<M::State>>, UnknownReason> {
        let ops = self.builder.operations();
        let operation = &ops[op as usize];
        let output = match &operation.outcome {
            Outcome::Returned(output) => output,
            Outcome::Unknown => unreachable!("a returned operation has an output"),
        };
        let too_many = UnknownReason::PossibilityLimit { possibilities: self.max_possibilities };
        let mut next: FxHashSet<Possibility<M::State>> = FxHashSet::default();
        for p in &self.possibilities {
            if let Ok(at) = p.position(op) {
                // Applied earlier: its output must allow the transition taken then.
                let (pre, post) = p.applied[at].transition.as_ref().expect("a pending operation has a transition");
                if self.model.step(pre, &operation.input, output).into_iter().any(|s| s == *post) {
                    let mut kept = p.clone();
                    kept.applied.remove(at);
                    next.insert(kept);
                }
                continue;
            }
            // Not applied yet: apply some open operations, then it.
            let mut seen: FxHashSet<Possibility<M::State>> = FxHashSet::default();
            let mut queue = vec![p.clone()];
            while let Some(q) = queue.pop() {
                for s in self.model.step(&q.state, &operation.input, output) {
                    next.insert(Possibility { state: s, applied: q.applied.clone() });
                }
                for &other in &self.open {
                    let Err(at) = q.position(other) else { continue };
                    let other_op = &ops[other as usize];
                    let pending = self.builder.pending(other_op.client) == Some(OpId(other as usize));
                    for s in self.model.step_unknown(&q.state, &other_op.input) {
                        let transition = pending.then(|| (q.state.clone(), s.clone()));
                        let mut applied = q.applied.clone();
                        applied.insert(at, Applied { op: other, transition });
                        let r = Possibility { state: s, applied };
                        if !seen.contains(&r) {
                            seen.insert(r.clone());
                            queue.push(r);
                        }
                    }
                }
                if seen.len() > self.max_possibilities || next.len() > self.max_possibilities {
                    return Err(too_many);
                }
            }
        }
        Ok(next)
    }

    fn violation(&self, id: OpId, event: usize, possibilities_before: usize) -> OnlineViolation {
        let ops = self.builder.operations();
        let open: Vec<OpId> = self.open.iter().map(|&op| OpId(op as usize)).collect();
        // Context: the last completed operations of each client.
        let mut context: Vec<(OpId, TimelineMark)> = Vec::new();
        let mut per_client: rustc_hash::FxHashMap<ClientId, usize> = Default::default();
        for (i, op) in ops.iter().enumerate().rev() {
            if i == id.0 || op.outcome.is_unknown() {
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
        let timeline = Timeline::of_marked(ops, Some(id), &open, context);
        OnlineViolation { op: id, event, open, possibilities_before, timeline }
    }
}
