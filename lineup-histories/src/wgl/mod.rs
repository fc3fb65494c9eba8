//! The WGL search (Wing & Gong with Lowe's memoization; Horn & Kroening, Algorithm 1), extended
//! to operations with an unknown outcome (Herlihy & Wing): such an operation has no return
//! entry, may be linearized at any point after its call, and need not be linearized at all.

mod config_cache;
mod entry_list;
mod linearized_set;
mod prefix_states;

use std::time::{Duration, Instant};

use crate::history::{History, OpId};
use crate::memory::{allocation, MemoryAccount, MemoryMeter};
use crate::model::Model;
use crate::outcome::UnknownReason;
use config_cache::ConfigCache;
use entry_list::{EntryList, HEAD, NIL};
use linearized_set::LinearizedSet;
use prefix_states::prefix_states;

/// Limits and cancellation of one search.
pub(crate) struct Control<'a> {
    /// The wall-clock deadline, with the limit it came from.
    pub(crate) deadline: Option<(Instant, Duration)>,
    /// The cache-entry limit.
    pub(crate) max_cache_entries: Option<usize>,
    /// Polled now and then: `true` stops the search ([`SearchVerdict::Cancelled`]).
    pub(crate) cancelled: Option<&'a (dyn Fn() -> bool + Sync)>,
    /// The memory budget, shared with the searches running at the same time.
    pub(crate) memory: &'a MemoryMeter,
    /// Stop ([`SearchVerdict::OutOfSteps`]) after about this many steps (checked when the
    /// clock is polled).
    pub(crate) max_steps: Option<u64>,
}

/// The end of a search.
pub(crate) enum SearchVerdict<S> {
    Linearizable(Vec<OpId>),
    Violation {
        prefix: Vec<OpId>,
        unplaced: Vec<OpId>,
        blocking: Option<OpId>,
        state: S,
        /// The state before and after each of the last steps of `prefix` (aligned with its
        /// end).
        steps: Vec<(S, S)>,
    },
    Unknown(UnknownReason),
    Cancelled,
    /// More than [`Control::max_steps`] steps.
    OutOfSteps,
}

/// A search's verdict and figures.
pub(crate) struct SearchResult<S> {
    pub(crate) verdict: SearchVerdict<S>,
    pub(crate) cache_entries: usize,
    pub(crate) steps: u64,
}

/// One provisionally linearized operation.
struct Frame<S> {
    op: u32,
    /// The state before it.
    before: S,
    /// Other next states not tried yet (nondeterministic model), already in the cache.
    alternatives: Vec<S>,
    /// The first-returning operation of the level where `op` was chosen.
    priority: u32,
    /// The heap bytes `before` and `alternatives` own (for the memory budget).
    heap: u64,
}

/// The deepest point the search reached, for the explanation of a violation.
struct Deepest<S> {
    prefix: Vec<u32>,
    /// The stack below this depth has not changed since `prefix` was copied.
    low_water: usize,
    unplaced: Vec<u32>,
    blocking: Option<u32>,
    state: Option<S>,
}

/// The bytes a search holds: the fixed structures, the cache, the stack and the explanation.
fn held<S: Eq + std::hash::Hash>(
    fixed: u64,
    cache: &ConfigCache<S>,
    stack_capacity: usize,
    stack_heap: u64,
    deepest: &Deepest<S>,
) -> u64 {
    fixed
        + cache.bytes() as u64
        + allocation(stack_capacity * std::mem::size_of::<Frame<S>>()) as u64
        + stack_heap
        + allocation((deepest.prefix.capacity() + deepest.unplaced.capacity()) * 4) as u64
}

/// Whether the configuration reached by linearizing the unknown-outcome operation of `slot`
/// (already in `set`) into `next` is *subsumed*: one with the same definite operations and the
/// same state but fewer unknown ones is the current one (`next == state`: the operation changed
/// nothing) or was seen before. Whatever can follow the subsumed configuration can follow the
/// smaller one (an unknown operation never has to be linearized, and it has no return that
/// constrains others), which is or will be explored, so the search skips it: a linearization
/// exists from it only if one exists from the smaller one.
fn subsumed<S: Eq + std::hash::Hash>(
    set: &mut LinearizedSet,
    slot: u32,
    next: &S,
    state: &S,
    cache: &mut ConfigCache<S>,
) -> bool {
    if next == state {
        return true;
    }
    set.remove(slot, true);
    let seen = cache.contains(set, next);
    set.insert(slot, true);
    seen
}

/// How many loop iterations between two polls of the clock and the cancel flag.
const POLL_EVERY: u32 = 1 << 10;

/// Decides whether `history` is linearizable with respect to `model`.
pub(crate) fn search<M: Model>(
    model: &M,
    history: &History<M::Input, M::Output>,
    control: &Control<'_>,
) -> SearchResult<M::State> {
    let ops = history.operations();
    let mut list = EntryList::new(history);
    // Slots: definite operations by call order, unknown ones apart.
    let mut slot = vec![0u32; ops.len()];
    let (mut definite, mut unknown) = (0u32, 0u32);
    {
        let mut e = list.next(HEAD);
        while e != NIL {
            if list.is_call(e) {
                let op = list.op(e) as usize;
                if ops[op].outcome.is_unknown() {
                    slot[op] = unknown;
                    unknown += 1;
                } else {
                    slot[op] = definite;
                    definite += 1;
                }
            }
            e = list.next(e);
        }
    }
    let mut set = LinearizedSet::new(definite as usize, unknown as usize);
    let mut cache: ConfigCache<M::State> = ConfigCache::new();
    let mut remaining = definite as usize;
    let mut state = model.init();
    let mut stack: Vec<Frame<M::State>> = Vec::new();
    let mut deepest = Deepest {
        prefix: Vec::new(),
        low_water: 0,
        unplaced: Vec::new(),
        blocking: None,
        state: None,
    };
    let mut steps = 0u64;
    let mut poll = 0u32;
    // Memory: the entry list, slots and bitset (about 48 bytes an operation), then what grows.
    let mut account = MemoryAccount::new(control.memory);
    let slack = control.memory.slack();
    let fixed = 48 * ops.len() as u64 + 64;
    let mut stack_heap = 0u64;
    let out_of_memory = || {
        SearchVerdict::Unknown(UnknownReason::MemoryLimit {
            bytes: control.memory.limit(),
        })
    };
    macro_rules! held {
        () => {
            held(fixed, &cache, stack.capacity(), stack_heap, &deepest)
        };
    }
    // Candidate order at each level: first the operation whose return comes first (for objects
    // built on locks or atomics, return order follows linearization order far more often than
    // call order does), then the other definite ones in call order, then the unknown ones
    // (optional: they are needed only to explain an output).
    let first_return = |list: &EntryList| {
        let mut e = list.next(HEAD);
        while e != NIL && list.is_call(e) {
            e = list.next(e);
        }
        if e == NIL {
            NIL
        } else {
            list.op(e)
        }
    };
    let mut priority = first_return(&list);
    let mut try_priority = true;
    let mut unknown_pass = false;
    let is_unknown_op = |op: u32| ops[op as usize].outcome.is_unknown();
    let mut entry = list.next(HEAD);
    let finish = |verdict, cache: &ConfigCache<M::State>, steps| SearchResult {
        verdict,
        cache_entries: cache.len(),
        steps,
    };

    if !account.fits(held!(), 0) {
        return finish(out_of_memory(), &cache, steps);
    }
    loop {
        if remaining == 0 {
            let order = stack.iter().map(|frame| OpId(frame.op as usize)).collect();
            return finish(SearchVerdict::Linearizable(order), &cache, steps);
        }
        poll += 1;
        if poll == POLL_EVERY {
            poll = 0;
            if let Some((deadline, limit)) = control.deadline {
                if Instant::now() >= deadline {
                    return finish(
                        SearchVerdict::Unknown(UnknownReason::TimeLimit { limit }),
                        &cache,
                        steps,
                    );
                }
            }
            if control.cancelled.is_some_and(|cancelled| cancelled()) {
                return finish(SearchVerdict::Cancelled, &cache, steps);
            }
            if !account.fits(held!(), 0) {
                return finish(out_of_memory(), &cache, steps);
            }
            if control.max_steps.is_some_and(|max| steps >= max) {
                return finish(SearchVerdict::OutOfSteps, &cache, steps);
            }
        }
        let candidate = if try_priority {
            try_priority = false;
            if priority == NIL {
                continue;
            }
            Some(list.call_entry(priority))
        } else if entry != NIL && list.is_call(entry) {
            let op = list.op(entry);
            if op == priority || is_unknown_op(op) != unknown_pass {
                entry = list.next(entry);
                continue;
            }
            Some(entry)
        } else if !unknown_pass && unknown > 0 {
            unknown_pass = true;
            entry = list.next(HEAD);
            continue;
        } else {
            None
        };
        if let Some(call) = candidate {
            let op = list.op(call);
            let operation = &ops[op as usize];
            steps += 1;
            let successors = match operation.output() {
                Some(output) => model.step(&state, &operation.input, output),
                None => model.step_unknown(&state, &operation.input),
            };
            let is_unknown = operation.outcome.is_unknown();
            set.insert(slot[op as usize], is_unknown);
            let growth = cache.growth() as u64;
            if growth > 0 && !account.fits(held!(), growth) {
                return finish(out_of_memory(), &cache, steps);
            }
            let mut first: Option<M::State> = None;
            let mut alternatives = Vec::new();
            for next in successors {
                if is_unknown && subsumed(&mut set, slot[op as usize], &next, &state, &mut cache) {
                    continue;
                }
                if cache.insert(&set, &next, |s| model.state_heap_size(s)) {
                    if first.is_none() {
                        first = Some(next);
                    } else {
                        alternatives.push(next);
                    }
                }
            }
            if let Some(limit) = control.max_cache_entries {
                if cache.len() > limit {
                    return finish(
                        SearchVerdict::Unknown(UnknownReason::CacheLimit { entries: limit }),
                        &cache,
                        steps,
                    );
                }
            }
            let now = held!();
            if now > account.reported() + slack && !account.fits(now, 0) {
                return finish(out_of_memory(), &cache, steps);
            }
            match first {
                Some(next) => {
                    let before = std::mem::replace(&mut state, next);
                    let heap = (model.state_heap_size(&before)
                        + allocation(alternatives.capacity() * std::mem::size_of::<M::State>())
                        + alternatives.iter().map(|s| model.state_heap_size(s)).sum::<usize>())
                        as u64;
                    stack_heap += heap;
                    stack.push(Frame {
                        op,
                        before,
                        alternatives,
                        priority,
                        heap,
                    });
                    list.lift(op);
                    if !is_unknown {
                        remaining -= 1;
                    }
                    priority = first_return(&list);
                    try_priority = true;
                    unknown_pass = false;
                    entry = list.next(HEAD);
                }
                None => {
                    set.remove(slot[op as usize], is_unknown);
                    if call == entry {
                        entry = list.next(entry);
                    }
                }
            }
            continue;
        }
        // A return entry (the earliest remaining one): its operation must have been linearized
        // by now. Record the deepest point, then backtrack.
        if stack.len() > deepest.prefix.len() || deepest.state.is_none() {
            let low = deepest.low_water.min(deepest.prefix.len());
            deepest.prefix.truncate(low);
            deepest.prefix.extend(stack[low..].iter().map(|frame| frame.op));
            deepest.low_water = stack.len();
            deepest.unplaced.clear();
            let mut e = list.next(HEAD);
            while e != entry && e != NIL {
                let candidate = list.op(e);
                if !ops[candidate as usize].outcome.is_unknown() {
                    deepest.unplaced.push(candidate);
                }
                e = list.next(e);
            }
            deepest.blocking = (entry != NIL).then(|| list.op(entry));
            deepest.state = Some(state.clone());
        }
        {
            let Some(top) = stack.last_mut() else {
                let blocking = deepest.blocking;
                let prefix: Vec<OpId> = deepest.prefix.iter().map(|&op| OpId(op as usize)).collect();
                let state = deepest.state.take().unwrap_or_else(|| model.init());
                let states = prefix_states(model, history, &prefix, &state);
                let verdict = SearchVerdict::Violation {
                    prefix,
                    unplaced: deepest
                        .unplaced
                        .iter()
                        .filter(|&&op| Some(op) != blocking)
                        .map(|&op| OpId(op as usize))
                        .collect(),
                    blocking: blocking.map(|op| OpId(op as usize)),
                    state,
                    steps: states,
                };
                return finish(verdict, &cache, steps);
            };
            if let Some(next) = top.alternatives.pop() {
                // Another next state of the same operation (nondeterministic model).
                state = next;
                priority = first_return(&list);
                try_priority = true;
                unknown_pass = false;
                entry = list.next(HEAD);
                continue;
            }
            let frame = stack.pop().expect("the stack is not empty");
            stack_heap -= frame.heap;
            deepest.low_water = deepest.low_water.min(stack.len());
            state = frame.before;
            let is_unknown = ops[frame.op as usize].outcome.is_unknown();
            set.remove(slot[frame.op as usize], is_unknown);
            list.unlift(frame.op);
            if !is_unknown {
                remaining += 1;
            }
            priority = frame.priority;
            try_priority = false;
            unknown_pass = is_unknown_op(frame.op);
            entry = if frame.op == priority {
                list.next(HEAD)
            } else {
                list.next(list.call_entry(frame.op))
            };
        }
    }
}
