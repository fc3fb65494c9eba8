//! Stepping loom's checkpointed exploration path past an execution that could not finish.
//!
//! A loom execution that deadlocks or overflows its branch limit panics inside loom's engine, and
//! its exploration state is lost with the child process that ran it. loom stores the path of
//! every execution before running it (`checkpoint_file`, interval 1); this module advances such
//! a stored path to the next execution exactly as loom 0.7.2's `Path::step` does (the format is
//! loom's `serde` form of its path, hence the exact version pin), so the exploration resumes
//! after the stuck execution. Backtracking points that only the stuck execution would have added
//! are not known; the report's statistics count the stuck executions.

use serde_json::Value;

/// The number of branches (entries) of the stored path `json`.
pub(crate) fn branch_count(json: &str) -> Result<usize, String> {
    let path: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    path.get("branches")
        .and_then(|b| b.get("entries"))
        .and_then(Value::as_array)
        .map(Vec::len)
        .ok_or_else(|| "no `branches.entries` array".to_string())
}

/// Advances the stored path `json` to the next execution under loom's branch limit
/// `max_branches`. `Ok(None)`: the exploration is complete. An error names what in the file is
/// not loom 0.7.2's path format.
///
/// A path longer than `max_branches` is first cut to its first `max_branches` entries: every
/// execution that branches past them would overflow the limit (inconclusive), and loom 0.7.2
/// cannot even load such a path. Its `Path::set_max_branches(limit)` reserves `limit - length`
/// entries, which wraps (loom is built without overflow checks in release) into a "capacity
/// overflow" panic before any execution. Such paths exist because loom's branch limit is the
/// *capacity* of its branch vector (`len < capacity` before each push), and a loaded path's
/// vector has serde's growth capacity, the next power of two of its length: a child resumed from a
/// path longer than the largest power of two below the limit explores and stores paths up to that
/// next power of two (up to twice the limit).
pub(crate) fn step_path(json: &str, max_branches: usize) -> Result<Option<String>, String> {
    let mut path: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let on_start = path
        .get("exploring_on_start")
        .and_then(Value::as_bool)
        .ok_or("no `exploring_on_start`")?;
    path["pos"] = Value::from(0);
    path["exploring"] = Value::from(on_start);
    path["skipping"] = Value::from(false);
    let entries = path
        .get_mut("branches")
        .and_then(|b| b.get_mut("entries"))
        .and_then(Value::as_array_mut)
        .ok_or("no `branches.entries` array")?;
    entries.truncate(max_branches);
    while let Some(last) = entries.len().checked_sub(1) {
        // loom truncates to `last` *before* looking at entry `last`, but keeps the entry itself
        // when it still has an alternative: `truncate(last)` on its object store only drops the
        // entries after it (`Store::truncate` keeps `..=last`).
        let advanced = {
            let entry = entries[last].as_object_mut().ok_or("an entry is not an object")?;
            let (kind, body) = entry.iter_mut().next().ok_or("an empty entry")?;
            let body = body.as_object_mut().ok_or("an entry body is not an object")?;
            let exploring = body.get("exploring").and_then(Value::as_bool).unwrap_or(false);
            if !exploring {
                false
            } else {
                match kind.as_str() {
                    "Schedule" => {
                        let threads = body
                            .get_mut("threads")
                            .and_then(Value::as_array_mut)
                            .ok_or("a schedule without threads")?;
                        if let Some(active) = threads.iter_mut().find(|t| *t == "Active") {
                            *active = Value::from("Visited");
                        }
                        match threads.iter_mut().find(|t| *t == "Pending") {
                            Some(pending) => {
                                *pending = Value::from("Active");
                                true
                            }
                            None => false,
                        }
                    }
                    "Load" => {
                        let pos = body.get("pos").and_then(Value::as_u64).ok_or("a load without pos")? + 1;
                        let len = body.get("len").and_then(Value::as_u64).ok_or("a load without len")?;
                        body.insert("pos".into(), Value::from(pos));
                        pos < len
                    }
                    "Spurious" => {
                        let spur = body
                            .get("spur")
                            .and_then(Value::as_bool)
                            .ok_or("a spurious entry without spur")?;
                        if spur {
                            false
                        } else {
                            body.insert("spur".into(), Value::from(true));
                            true
                        }
                    }
                    other => return Err(format!("unknown entry kind `{other}`")),
                }
            }
        };
        if advanced {
            return serde_json::to_string(&path).map(Some).map_err(|e| e.to_string());
        }
        entries.pop();
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored path of `n` load entries, each with one more value to read (`pos` 0 of 2).
    fn loads(n: usize) -> String {
        let entry = r#"{"Load":{"values":[0,1,0,0,0,0,0],"pos":0,"len":2,"exploring":true}}"#;
        let entries = vec![entry; n].join(",");
        format!(
            r#"{{"preemption_bound":2,"pos":7,"branches":{{"entries":[{entries}]}},"exploring":true,"skipping":false,"exploring_on_start":true}}"#
        )
    }

    fn entries(json: &str) -> Vec<Value> {
        let path: Value = serde_json::from_str(json).unwrap();
        path["branches"]["entries"].as_array().unwrap().clone()
    }

    #[test]
    fn the_last_entry_with_an_alternative_takes_it() {
        let next = step_path(&loads(3), 10).unwrap().unwrap();
        let e = entries(&next);
        assert_eq!(e.len(), 3);
        assert_eq!(e[2]["Load"]["pos"], 1);
        assert_eq!(e[1]["Load"]["pos"], 0);
        let path: Value = serde_json::from_str(&next).unwrap();
        assert_eq!(path["pos"], 0);
    }

    #[test]
    fn a_path_longer_than_the_branch_limit_is_cut_to_it_before_stepping() {
        // loom 0.7.2's `Path::set_max_branches(limit)` computes `limit - length`: a stored path
        // longer than the limit wraps it and loom panics ("capacity overflow") before running
        // anything. Such paths come from a child whose effective limit was the capacity of the
        // path it loaded (a power of two above the limit); every execution past the limit's
        // first `limit` branches would overflow the limit, so stepping starts at that point.
        let next = step_path(&loads(40), 25).unwrap().unwrap();
        let e = entries(&next);
        assert_eq!(e.len(), 25);
        assert_eq!(e[24]["Load"]["pos"], 1);
    }

    #[test]
    fn branch_count_counts_the_entries() {
        assert_eq!(branch_count(&loads(40)), Ok(40));
        assert!(branch_count("{}").is_err());
    }

    #[test]
    fn a_path_without_alternatives_is_the_end_of_the_exploration() {
        let done = loads(2).replace(r#""pos":0,"len":2"#, r#""pos":1,"len":2"#);
        assert_eq!(step_path(&done, 10).unwrap(), None);
    }
}
