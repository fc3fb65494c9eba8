//! The online checker: events are fed as they happen, and a violation is reported as soon as
//! no possibility is left (the possibilities-set algorithm of the `linearize` crate,
//! generalized to any model with a hashable state).

use std::collections::{BTreeSet, VecDeque};

use rustc_hash::FxHashSet;

use crate::history::{ClientId, History};
use crate::history_builder::HistoryBuilder;
use crate::history_error::HistoryError;
use crate::memory::{allocation, MemoryLimit};
use crate::model::Model;
use crate::outcome::UnknownReason;

mod verdict;

pub use verdict::{OnlineStatus, OnlineVerdict, OnlineViolation};

/// The default bound on the number of possibilities ([`OnlineChecker::with_max_possibilities`]).
pub const DEFAULT_MAX_POSSIBILITIES: usize = 1 << 20;

/// One way the history so far can be linearized: the state after every *settled* operation
/// and after the *live* operations listed in `applied` (sorted).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Possibility<S> {
    state: S,
    applied: Vec<u32>,
}

impl<S> Possibility<S> {
    fn has(&self, op: u32) -> bool {
        self.applied.binary_search(&op).is_ok()
    }
}

/// Sets of applied operations with an unknown outcome (each sorted).
type UnknownSubsets = Vec<Vec<u32>>;

/// How many sets of unknown operations per (state, definite operations) the online checker
/// compares a new possibility with.
const DOMINANCE_GROUP: usize = 32;

/// Checks a history while it is being recorded.
///
/// Feed events in the order they happen with [`OnlineChecker::call`], [`OnlineChecker::ret`]
/// and [`OnlineChecker::info`]; each returns the [`OnlineStatus`] after the event (or a
/// [`HistoryError`] for a malformed event, which is not recorded). Call
/// [`OnlineChecker::finish`] at the end.
///
/// The checker keeps the set of *possibilities*: the model states reachable by linearizing the
/// operations seen so far, each with the set of not-yet-settled operations it has applied
/// (deduplicated by hashing, bounded by [`OnlineChecker::with_max_possibilities`] and by a
/// memory budget, [`OnlineChecker::with_memory_limit`]; past a bound it gives up,
/// [`OnlineStatus::GaveUp`], it never guesses). As in the `linearize` crate,
/// an operation is applied only once its output is known (or known to be unknown), and an
/// operation becomes *due* once every operation called before it returned has itself returned
/// (or ended with `info`): nothing still to come can then be placed before it. When
/// operations become due, each possibility applies operations until all due ones are placed;
/// a violation is reported as soon as no possibility is left. So a violation is reported at
/// the return (or `info`) that makes the offending operation due, at the latest at
/// [`OnlineChecker::finish`]; the final verdict agrees with [`crate::check`] on the same
/// history.
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
    /// Operations called and not returned yet (their output is still to come).
    pending: BTreeSet<u32>,
    /// Operations returned (not yet due) or with an unknown outcome, not yet settled, sorted.
    live: Vec<u32>,
    max_possibilities: usize,
    /// The memory budget, in bytes (`None`: unlimited).
    max_memory: Option<u64>,
    /// What the possibilities hold, in bytes (as counted for the budget).
    held: u64,
    verdict: OnlineVerdict,
}

impl<M: Model> OnlineChecker<M> {
    /// A checker starting from the model's initial state.
    pub fn new(model: M) -> Self {
        let mut possibilities = FxHashSet::default();
        possibilities.insert(Possibility {
            state: model.init(),
            applied: Vec::new(),
        });
        OnlineChecker {
            model,
            builder: HistoryBuilder::new(),
            possibilities,
            pending: BTreeSet::new(),
            live: Vec::new(),
            max_possibilities: DEFAULT_MAX_POSSIBILITIES,
            max_memory: MemoryLimit::Auto.bytes(),
            held: 0,
            verdict: OnlineVerdict::Consistent,
        }
    }

    /// Sets the memory budget ([`MemoryLimit::Auto`] by default: half of the memory available
    /// when the checker was made). The possibilities, and what placing due operations explores,
    /// are counted; past the budget the checker reports [`OnlineStatus::GaveUp`] with
    /// [`UnknownReason::MemoryLimit`], never a guess. (The recorded history itself is not
    /// counted.)
    pub fn with_memory_limit(mut self, limit: MemoryLimit) -> Self {
        self.max_memory = limit.bytes();
        self
    }

    /// Sets the memory budget to `bytes` (see [`OnlineChecker::with_memory_limit`]).
    pub fn with_max_memory(self, bytes: u64) -> Self {
        self.with_memory_limit(MemoryLimit::Bytes(bytes))
    }

    /// The bytes the possibilities hold now, as counted for the memory budget.
    pub fn held_memory(&self) -> u64 {
        self.held
    }

    /// The bytes one possibility holds in a hash set (with the table's spare room).
    fn possibility_bytes(&self, p: &Possibility<M::State>) -> u64 {
        (2 * std::mem::size_of::<Possibility<M::State>>()
            + allocation(p.applied.capacity() * 4)
            + self.model.state_heap_size(&p.state)) as u64
    }

    /// Sets the bound on the number of possibilities (and on those explored at one step).
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
            OnlineVerdict::Consistent => "no violation so far".to_string(),
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

    /// Ends the recording: calls still pending get an unknown outcome (they may have taken
    /// effect, or not), and every remaining operation becomes due. Returns the history and
    /// the final verdict, which agrees with [`crate::check`] on that history.
    pub fn finish(mut self) -> (History<M::Input, M::Output>, OnlineVerdict) {
        let event = self.builder.event_count();
        let pending: Vec<u32> = std::mem::take(&mut self.pending).into_iter().collect();
        for op in pending {
            self.make_live(op);
        }
        if self.status() == OnlineStatus::Consistent {
            self.settle(event);
        }
        (self.builder.build(), self.verdict)
    }

    /// `client` calls an operation.
    pub fn call(&mut self, client: ClientId, input: M::Input) -> Result<OnlineStatus, HistoryError> {
        let id = self.builder.call(client, input)?;
        self.pending.insert(id.0 as u32);
        Ok(self.status())
    }

    /// The pending operation of `client` returns `output`.
    pub fn ret(&mut self, client: ClientId, output: M::Output) -> Result<OnlineStatus, HistoryError> {
        let event = self.builder.event_count();
        let id = self.builder.ret(client, output)?;
        self.pending.remove(&(id.0 as u32));
        self.make_live(id.0 as u32);
        if self.status() == OnlineStatus::Consistent {
            self.settle(event);
        }
        Ok(self.status())
    }

    /// The pending operation of `client` ends with an unknown outcome (Jepsen `:info`): it may
    /// take effect at any later point, or never.
    pub fn info(&mut self, client: ClientId) -> Result<OnlineStatus, HistoryError> {
        let event = self.builder.event_count();
        let id = self.builder.info(client)?;
        self.pending.remove(&(id.0 as u32));
        self.make_live(id.0 as u32);
        if self.status() == OnlineStatus::Consistent {
            self.settle(event);
        }
        Ok(self.status())
    }

    fn make_live(&mut self, op: u32) {
        if let Err(at) = self.live.binary_search(&op) {
            self.live.insert(at, op);
        }
    }

    /// Places the operations that are due, in every possibility, then forgets what every
    /// possibility agrees on.
    fn settle(&mut self, event: usize) {
        let ops = self.builder.operations();
        // The earliest call still waiting for its output: an operation that returned before it
        // is due (nothing to come can be placed before it).
        let horizon = self
            .pending
            .first()
            .map(|&op| ops[op as usize].call)
            .unwrap_or(u64::MAX);
        let due: Vec<u32> = self
            .live
            .iter()
            .copied()
            .filter(|&op| !ops[op as usize].outcome.is_unknown() && ops[op as usize].ret < horizon)
            .collect();
        if due.is_empty() {
            return;
        }
        let before = self.possibilities.len();
        match self.place(&due) {
            Err(reason) => {
                self.possibilities.clear();
                self.verdict = OnlineVerdict::Unknown(reason);
                return;
            }
            Ok(next) if next.is_empty() => {
                self.possibilities = next;
                self.verdict = OnlineVerdict::Violation(Box::new(self.violation(event, &due, before)));
                return;
            }
            Ok(next) => self.possibilities = self.without_dominated(next),
        }
        self.held = self.possibilities.iter().map(|p| self.possibility_bytes(p)).sum();
        // Settled: the due operations, and the live ones every possibility has applied.
        let settled: Vec<u32> = self
            .live
            .iter()
            .copied()
            .filter(|op| due.binary_search(op).is_ok() || self.possibilities.iter().all(|p| p.has(*op)))
            .collect();
        self.live.retain(|op| settled.binary_search(op).is_err());
        let possibilities = std::mem::take(&mut self.possibilities);
        self.possibilities = possibilities
            .into_iter()
            .map(|mut p| {
                p.applied.retain(|op| settled.binary_search(op).is_err());
                p
            })
            .collect();
    }

    /// Every way to extend each possibility until all of `due` (sorted) is applied, stopping
    /// as soon as it is.
    fn place(&self, due: &[u32]) -> Result<FxHashSet<Possibility<M::State>>, UnknownReason> {
        let ops = self.builder.operations();
        let too_many = UnknownReason::PossibilityLimit {
            possibilities: self.max_possibilities,
        };
        // Memory: the possibilities now, plus what this placement builds (each possibility
        // explored is in `seen_exact`, `seen` and the queue; each result in `next`).
        let budget = self.max_memory.unwrap_or(u64::MAX);
        let out_of_memory = UnknownReason::MemoryLimit { bytes: budget };
        let mut working = self.held;
        let covers = |p: &Possibility<M::State>| due.iter().all(|op| p.has(*op));
        let mut next: FxHashSet<Possibility<M::State>> = FxHashSet::default();
        // Seen: for each (state, applied operations with a definite outcome), the sets of
        // applied operations with an unknown outcome. A possibility is not explored if one
        // with the same state and definite part and fewer unknown ones was (it dominates it:
        // see `without_dominated`).
        let unknown = |op: &u32| ops[*op as usize].outcome.is_unknown();
        let mut seen: rustc_hash::FxHashMap<(M::State, Vec<u32>), UnknownSubsets> = Default::default();
        let seen_count = std::cell::Cell::new(0usize);
        let mut seen_exact: FxHashSet<Possibility<M::State>> = FxHashSet::default();
        let mut first_visit = |p: &Possibility<M::State>| -> bool {
            if !seen_exact.insert(p.clone()) {
                return false;
            }
            seen_count.set(seen_count.get() + 1);
            let (unknowns, definite): (Vec<u32>, Vec<u32>) = p.applied.iter().partition(|op| unknown(op));
            let subsets = seen.entry((p.state.clone(), definite)).or_default();
            if subsets
                .iter()
                .any(|k| k.iter().all(|op| unknowns.binary_search(op).is_ok()))
            {
                return false;
            }
            // The dominance test is linear in the group: keep groups small (beyond, only exact
            // duplicates are skipped, which is still sound).
            if subsets.len() < DOMINANCE_GROUP {
                subsets.push(unknowns);
            }
            true
        };
        let mut queue: VecDeque<Possibility<M::State>> = VecDeque::new();
        for p in &self.possibilities {
            if covers(p) {
                next.insert(p.clone());
                working += self.possibility_bytes(p);
            } else if first_visit(p) {
                queue.push_back(p.clone());
                working += 3 * self.possibility_bytes(p);
            }
            if working > budget {
                return Err(out_of_memory);
            }
        }
        while let Some(p) = queue.pop_front() {
            for &candidate in &self.live {
                if p.has(candidate) {
                    continue;
                }
                let operation = &ops[candidate as usize];
                // Real time: every live operation that returned before this call must go first.
                let blocked = self
                    .live
                    .iter()
                    .any(|&other| other != candidate && !p.has(other) && ops[other as usize].ret < operation.call);
                if blocked {
                    continue;
                }
                let successors = match operation.output() {
                    Some(output) => self.model.step(&p.state, &operation.input, output),
                    None => self.model.step_unknown(&p.state, &operation.input),
                };
                for state in successors {
                    let mut applied = p.applied.clone();
                    let at = applied.binary_search(&candidate).unwrap_err();
                    applied.insert(at, candidate);
                    let q = Possibility { state, applied };
                    let bytes = self.possibility_bytes(&q);
                    if covers(&q) {
                        next.insert(q);
                        working += bytes;
                    } else if first_visit(&q) {
                        queue.push_back(q);
                        working += 3 * bytes;
                    }
                    if working > budget {
                        return Err(out_of_memory);
                    }
                }
            }
            if seen_count.get() > self.max_possibilities || next.len() > self.max_possibilities {
                return Err(too_many);
            }
        }
        Ok(next)
    }

    /// Drops the possibilities that another one dominates: same state, same applied
    /// operations with a definite outcome, and a strict subset of the applied operations with
    /// an unknown outcome. (Whatever the dominated one can still do, the other can too: the
    /// unknown operations it has not applied may be applied later, or never.)
    fn without_dominated(&self, set: FxHashSet<Possibility<M::State>>) -> FxHashSet<Possibility<M::State>> {
        let ops = self.builder.operations();
        let unknown = |op: &u32| ops[*op as usize].outcome.is_unknown();
        if !self.live.iter().any(unknown) {
            return set;
        }
        let mut groups: rustc_hash::FxHashMap<(M::State, Vec<u32>), UnknownSubsets> = Default::default();
        for p in set {
            let (unknowns, definite): (Vec<u32>, Vec<u32>) = p.applied.iter().partition(|op| unknown(op));
            groups.entry((p.state, definite)).or_default().push(unknowns);
        }
        let mut kept_all = FxHashSet::default();
        for ((state, definite), mut subsets) in groups {
            subsets.sort_by_key(Vec::len);
            let mut kept: Vec<Vec<u32>> = Vec::new();
            for subset in subsets {
                // (Compared with the smallest kept sets only, to stay linear.)
                let dominated = kept
                    .iter()
                    .take(DOMINANCE_GROUP)
                    .any(|k| k.iter().all(|op| subset.binary_search(op).is_ok()));
                if !dominated {
                    kept.push(subset);
                }
            }
            for subset in kept {
                let mut applied = definite.clone();
                applied.extend(subset);
                applied.sort_unstable();
                kept_all.insert(Possibility {
                    state: state.clone(),
                    applied,
                });
            }
        }
        kept_all
    }
}
