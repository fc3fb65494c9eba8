//! Checking a proposed linearization against a history and a model.

use rustc_hash::FxHashSet;

use crate::history::{History, OpId};
use crate::model::Model;

/// Why a proposed order is not a linearization of a history.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinearizationError {
    /// The order names an operation the history does not have.
    #[error("position {position}: {op} is not an operation of the history")]
    NoSuchOperation {
        /// Where in the order.
        position: usize,
        /// The id.
        op: OpId,
    },
    /// An operation appears twice.
    #[error("position {position}: {op} appears a second time")]
    Duplicate {
        /// Where in the order.
        position: usize,
        /// The operation.
        op: OpId,
    },
    /// An operation with a definite outcome is missing.
    #[error("{op} returned, so it must be linearized, but the order lacks it")]
    Missing {
        /// The operation.
        op: OpId,
    },
    /// The order contradicts real time.
    #[error("{later} is ordered after {earlier}, but it returned before {earlier} was called")]
    RealTime {
        /// The operation ordered first.
        earlier: OpId,
        /// The operation ordered after it, though it precedes it in real time.
        later: OpId,
    },
    /// The model rejects an operation at its place.
    #[error("position {position}: the model rejects {op} after the operations before it")]
    Rejected {
        /// Where in the order.
        position: usize,
        /// The operation.
        op: OpId,
    },
}

/// Checks that `order` is a linearization of `history` for `model`: each operation at most
/// once, every operation with a definite outcome present, the real-time order respected, and
/// the model accepting each operation in turn (operations with an unknown outcome step with
/// [`Model::step_unknown`]; a nondeterministic model may take any of its branches).
///
/// ```
/// use lineup_histories::{check, verify_linearization, CheckOptions, Event, History};
/// use lineup_histories::models::{CounterInput as I, CounterModel, CounterOutput as O};
///
/// let h = History::from_events([
///     Event::call(0, I::Increment),
///     Event::call(1, I::Get),
///     Event::ret(1, O::Value(1)),
///     Event::ret(0, O::Ok),
/// ])
/// .unwrap();
/// let report = check(&CounterModel::default(), &h, &CheckOptions::default());
/// verify_linearization(&CounterModel::default(), &h, report.outcome.order().unwrap()).unwrap();
/// ```
pub fn verify_linearization<M: Model>(
    model: &M,
    history: &History<M::Input, M::Output>,
    order: &[OpId],
) -> Result<(), LinearizationError> {
    let mut placed = vec![false; history.len()];
    let mut latest_call: Option<OpId> = None;
    let mut states: FxHashSet<M::State> = FxHashSet::default();
    states.insert(model.init());
    for (position, &op) in order.iter().enumerate() {
        if op.0 >= history.len() {
            return Err(LinearizationError::NoSuchOperation { position, op });
        }
        if std::mem::replace(&mut placed[op.0], true) {
            return Err(LinearizationError::Duplicate { position, op });
        }
        let operation = &history[op];
        if let Some(earlier) = latest_call {
            if operation.ret < history[earlier].call {
                return Err(LinearizationError::RealTime { earlier, later: op });
            }
        }
        if latest_call.is_none_or(|earlier| history[earlier].call < operation.call) {
            latest_call = Some(op);
        }
        let mut next = FxHashSet::default();
        for state in &states {
            let successors = match operation.output() {
                Some(output) => model.step(state, &operation.input, output),
                None => model.step_unknown(state, &operation.input),
            };
            next.extend(successors);
        }
        if next.is_empty() {
            return Err(LinearizationError::Rejected { position, op });
        }
        states = next;
    }
    if let Some((op, _)) = history
        .iter()
        .find(|(id, op)| !op.outcome.is_unknown() && !placed[id.0])
    {
        return Err(LinearizationError::Missing { op });
    }
    Ok(())
}
