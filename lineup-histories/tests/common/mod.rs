//! Helpers shared by the tests: a brute-force reference checker, random history generators,
//! and an event replayer for the online checker.
#![allow(dead_code)]

use std::collections::HashSet;

use lineup_histories::models::{
    CounterInput, CounterOutput, KvInput, KvOp, KvOutput, QueueInput, QueueOutput, RegisterInput, RegisterOutput,
    SetInput, StackInput, StackOutput,
};
use lineup_histories::{Event, History, Model, OnlineChecker, OnlineStatus, OnlineVerdict, Operation};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seed of a property test: `LINEUP_SEED` if set, else `default`. Printed, so a failure
/// can be replayed.
pub fn seed(default: u64) -> u64 {
    let seed = std::env::var("LINEUP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    println!("seed = {seed} (set LINEUP_SEED to replay)");
    seed
}

/// A random generator from a seed.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Linearizability by brute force, independent of the library's search: try every order of
/// the operations that respects real time (no memoization), where operations with an unknown
/// outcome may be left out. Exponential: for histories of a few operations only.
pub fn brute_force<M: Model>(model: &M, history: &History<M::Input, M::Output>) -> bool {
    fn go<M: Model>(
        model: &M,
        ops: &[Operation<M::Input, M::Output>],
        placed: &mut Vec<bool>,
        state: &M::State,
    ) -> bool {
        if ops
            .iter()
            .zip(placed.iter())
            .all(|(op, &p)| p || op.outcome.is_unknown())
        {
            return true;
        }
        for i in 0..ops.len() {
            if placed[i] {
                continue;
            }
            // Minimal: no unplaced operation returned before this one was called.
            let minimal = (0..ops.len()).all(|j| placed[j] || j == i || ops[j].ret >= ops[i].call);
            if !minimal {
                continue;
            }
            let successors = match ops[i].output() {
                Some(output) => model.step(state, &ops[i].input, output),
                None => model.step_unknown(state, &ops[i].input),
            };
            let mut tried = HashSet::new();
            for next in successors {
                if !tried.insert(next.clone()) {
                    continue;
                }
                placed[i] = true;
                let ok = go(model, ops, placed, &next);
                placed[i] = false;
                if ok {
                    return true;
                }
            }
        }
        false
    }
    let ops = history.operations();
    go(model, ops, &mut vec![false; ops.len()], &model.init())
}

/// Feeds `events` to an online checker, then finishes it; the final status. A violation
/// reported during the feed must stay reported.
pub fn run_online<M: Model>(model: M, events: &[Event<M::Input, M::Output>]) -> OnlineStatus {
    let mut checker = OnlineChecker::new(model);
    let mut status = OnlineStatus::Consistent;
    for event in events.iter().cloned() {
        let now = match event {
            Event::Call { client, input } => checker.call(client, input),
            Event::Return { client, output } => checker.ret(client, output),
            Event::Info { client } => checker.info(client),
        }
        .expect("well-formed events");
        assert!(
            status == OnlineStatus::Consistent || now == status,
            "a verdict, once given, stays"
        );
        status = now;
    }
    match checker.finish().1 {
        OnlineVerdict::Consistent => OnlineStatus::Consistent,
        OnlineVerdict::Violation(_) => OnlineStatus::Violated,
        OnlineVerdict::Unknown(_) => OnlineStatus::GaveUp,
    }
}

/// A simulated concurrent run on an atomic object: each client calls, the operation takes
/// effect at some later moment (atomically, on `state`), then returns; some operations end
/// with `info` or stay pending. With `corrupt` > 0, that fraction of outputs is replaced by a
/// random one (so the history may not be linearizable).
pub struct Simulation<S, I, O> {
    pub clients: u64,
    pub ops: usize,
    pub info_rate: f64,
    pub corrupt: f64,
    pub state: S,
    pub gen_input: fn(&mut ChaCha8Rng) -> I,
    pub apply: fn(&mut S, &I) -> O,
    pub random_output: fn(&mut ChaCha8Rng, &I) -> O,
}

impl<S, I: Clone, O: Clone> Simulation<S, I, O> {
    pub fn run(mut self, rng: &mut ChaCha8Rng) -> Vec<Event<I, O>> {
        enum Phase<I, O> {
            Idle,
            Called(I),
            Done(O),
        }
        let mut phases: Vec<Phase<I, O>> = (0..self.clients).map(|_| Phase::Idle).collect();
        let mut next_client_id: Vec<u64> = (0..self.clients).collect();
        let mut fresh = self.clients;
        let mut events = Vec::new();
        let mut called = 0;
        loop {
            let busy = phases.iter().any(|p| !matches!(p, Phase::Idle));
            if called >= self.ops && !busy {
                break;
            }
            let c = rng.random_range(0..self.clients as usize);
            let client = next_client_id[c];
            match std::mem::replace(&mut phases[c], Phase::Idle) {
                Phase::Idle => {
                    if called < self.ops {
                        let input = (self.gen_input)(rng);
                        events.push(Event::call(client, input.clone()));
                        phases[c] = Phase::Called(input);
                        called += 1;
                    }
                }
                Phase::Called(input) => {
                    if called >= self.ops && rng.random_bool(0.1) {
                        // Still pending when the recording stops (or never took effect).
                        if rng.random_bool(0.5) {
                            (self.apply)(&mut self.state, &input);
                        }
                        next_client_id[c] = fresh;
                        fresh += 1;
                        continue;
                    }
                    let mut output = (self.apply)(&mut self.state, &input);
                    if rng.random_bool(self.corrupt) {
                        output = (self.random_output)(rng, &input);
                    }
                    phases[c] = Phase::Done(output);
                }
                Phase::Done(output) => {
                    if rng.random_bool(self.info_rate) {
                        events.push(Event::info(client));
                        next_client_id[c] = fresh;
                        fresh += 1;
                    } else {
                        events.push(Event::ret(client, output));
                    }
                }
            }
        }
        events
    }
}

pub fn register_sim(
    clients: u64,
    ops: usize,
    info_rate: f64,
    corrupt: f64,
) -> Simulation<Option<i64>, RegisterInput<Option<i64>>, RegisterOutput<Option<i64>>> {
    Simulation {
        clients,
        ops,
        info_rate,
        corrupt,
        state: None,
        gen_input: |rng| match rng.random_range(0..3) {
            0 => RegisterInput::Read,
            1 => RegisterInput::Write(Some(rng.random_range(0..3))),
            _ => RegisterInput::Cas {
                from: Some(rng.random_range(0..3)),
                to: Some(rng.random_range(0..3)),
            },
        },
        apply: |state, input| match input {
            RegisterInput::Read => RegisterOutput::Value(*state),
            RegisterInput::Write(v) => {
                *state = *v;
                RegisterOutput::Ok
            }
            RegisterInput::Cas { from, to } => {
                if state == from {
                    *state = *to;
                    RegisterOutput::Ok
                } else {
                    RegisterOutput::Fail
                }
            }
        },
        random_output: |rng, input| match input {
            RegisterInput::Read => RegisterOutput::Value(if rng.random_bool(0.2) {
                None
            } else {
                Some(rng.random_range(0..3))
            }),
            RegisterInput::Write(_) => RegisterOutput::Ok,
            RegisterInput::Cas { .. } => {
                if rng.random_bool(0.5) {
                    RegisterOutput::Ok
                } else {
                    RegisterOutput::Fail
                }
            }
        },
    }
}

pub fn set_sim(
    clients: u64,
    ops: usize,
    keys: i64,
    info_rate: f64,
    corrupt: f64,
) -> Simulation<std::collections::BTreeSet<i64>, SetInput<i64>, bool> {
    let gen_input: fn(&mut ChaCha8Rng) -> SetInput<i64> = match keys {
        1 => |rng| random_set_input(rng, 1),
        2 => |rng| random_set_input(rng, 2),
        3 => |rng| random_set_input(rng, 3),
        _ => |rng| random_set_input(rng, 24),
    };
    Simulation {
        clients,
        ops,
        info_rate,
        corrupt,
        state: Default::default(),
        gen_input,
        apply: |state, input| match input {
            SetInput::Insert(x) => state.insert(*x),
            SetInput::Remove(x) => state.remove(x),
            SetInput::Contains(x) => state.contains(x),
        },
        random_output: |rng, _| rng.random_bool(0.5),
    }
}

fn random_set_input(rng: &mut ChaCha8Rng, keys: i64) -> SetInput<i64> {
    let x = rng.random_range(0..keys);
    match rng.random_range(0..3) {
        0 => SetInput::Insert(x),
        1 => SetInput::Remove(x),
        _ => SetInput::Contains(x),
    }
}

pub fn kv_sim(
    clients: u64,
    ops: usize,
    info_rate: f64,
    corrupt: f64,
) -> Simulation<std::collections::BTreeMap<String, String>, KvInput, KvOutput> {
    Simulation {
        clients,
        ops,
        info_rate,
        corrupt,
        state: Default::default(),
        gen_input: |rng| {
            let key = ["a", "b", "c"][rng.random_range(0..3)];
            let v = ["x", "y"][rng.random_range(0..2)];
            match rng.random_range(0..3) {
                0 => KvInput::get(key),
                1 => KvInput::put(key, v),
                _ => KvInput::append(key, v),
            }
        },
        apply: |state, input| {
            let current = state.get(&input.key).cloned().unwrap_or_default();
            match &input.op {
                KvOp::Get => KvOutput::Value(current),
                KvOp::Put(v) => {
                    state.insert(input.key.clone(), v.clone());
                    KvOutput::Ok
                }
                KvOp::Append(v) => {
                    state.insert(input.key.clone(), current + v);
                    KvOutput::Ok
                }
            }
        },
        random_output: |rng, input| match input.op {
            KvOp::Get => KvOutput::Value(["", "x", "y", "xy", "yx"][rng.random_range(0..5)].to_string()),
            _ => KvOutput::Ok,
        },
    }
}

pub fn queue_sim(
    clients: u64,
    ops: usize,
    info_rate: f64,
    corrupt: f64,
) -> Simulation<std::collections::VecDeque<u8>, QueueInput<u8>, QueueOutput<u8>> {
    Simulation {
        clients,
        ops,
        info_rate,
        corrupt,
        state: Default::default(),
        gen_input: |rng| {
            if rng.random_bool(0.5) {
                QueueInput::Enqueue(rng.random_range(0..3))
            } else {
                QueueInput::Dequeue
            }
        },
        apply: |state, input| match input {
            QueueInput::Enqueue(x) => {
                state.push_back(*x);
                QueueOutput::Ok
            }
            QueueInput::Dequeue => state
                .pop_front()
                .map(QueueOutput::Dequeued)
                .unwrap_or(QueueOutput::Empty),
        },
        random_output: |rng, input| match input {
            QueueInput::Enqueue(_) => QueueOutput::Ok,
            QueueInput::Dequeue => {
                if rng.random_bool(0.2) {
                    QueueOutput::Empty
                } else {
                    QueueOutput::Dequeued(rng.random_range(0..3))
                }
            }
        },
    }
}

pub fn stack_sim(
    clients: u64,
    ops: usize,
    info_rate: f64,
    corrupt: f64,
) -> Simulation<Vec<u8>, StackInput<u8>, StackOutput<u8>> {
    Simulation {
        clients,
        ops,
        info_rate,
        corrupt,
        state: Default::default(),
        gen_input: |rng| {
            if rng.random_bool(0.5) {
                StackInput::Push(rng.random_range(0..3))
            } else {
                StackInput::Pop
            }
        },
        apply: |state, input| match input {
            StackInput::Push(x) => {
                state.push(*x);
                StackOutput::Ok
            }
            StackInput::Pop => state.pop().map(StackOutput::Popped).unwrap_or(StackOutput::Empty),
        },
        random_output: |rng, input| match input {
            StackInput::Push(_) => StackOutput::Ok,
            StackInput::Pop => {
                if rng.random_bool(0.2) {
                    StackOutput::Empty
                } else {
                    StackOutput::Popped(rng.random_range(0..3))
                }
            }
        },
    }
}

pub fn counter_sim(
    clients: u64,
    ops: usize,
    info_rate: f64,
    corrupt: f64,
) -> Simulation<i64, CounterInput, CounterOutput> {
    Simulation {
        clients,
        ops,
        info_rate,
        corrupt,
        state: 0,
        gen_input: |rng| match rng.random_range(0..3) {
            0 => CounterInput::Increment,
            1 => CounterInput::Add(rng.random_range(-2..3)),
            _ => CounterInput::Get,
        },
        apply: |state, input| match input {
            CounterInput::Increment => {
                *state += 1;
                CounterOutput::Ok
            }
            CounterInput::Add(n) => {
                *state += n;
                CounterOutput::Ok
            }
            CounterInput::Get => CounterOutput::Value(*state),
        },
        random_output: |rng, input| match input {
            CounterInput::Get => CounterOutput::Value(rng.random_range(-2..4)),
            _ => CounterOutput::Ok,
        },
    }
}

/// Whether `rng` says yes with probability `p`.
pub fn chance(rng: &mut ChaCha8Rng, p: f64) -> bool {
    rng.random_bool(p)
}
