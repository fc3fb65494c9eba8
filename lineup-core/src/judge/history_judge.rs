//! Judging one history against the specification: Def. 1 for a full history, Def. 2 for a stuck
//! one.

use crate::judge::verdict::ViolationKind;
use crate::model::history::History;
use crate::model::stuck_kind::StuckKind;
use crate::spec::observation::ObservationSet;

/// Judges one history of the matrix against the specification: `None` if it is linearizable
/// (Def. 1 for a full history; Def. 2 for a stuck one when `check_stuck`, else Def. 1 on its
/// completed part).
pub(crate) fn judge(
    spec: &ObservationSet,
    history: &History,
    stuck: Option<StuckKind>,
    check_stuck: bool,
) -> Option<ViolationKind> {
    match stuck {
        None => spec
            .full_witness(history)
            .is_none()
            .then(|| ViolationKind::NotLinearizable {
                history: history.clone(),
                group: spec.group_of(history).cloned(),
            }),
        Some(kind) if check_stuck => spec.unjustified_pending_op(history).map(|e| {
            let h_e = history.restricted_to_pending(e);
            ViolationKind::StuckNotLinearizable {
                history: history.clone(),
                stuck: kind,
                pending_op: e,
                group: spec.group_of(&h_e).cloned(),
            }
        }),
        Some(_) => spec.witness(history).is_none().then(|| ViolationKind::NotLinearizable {
            history: history.clone(),
            group: None,
        }),
    }
}
