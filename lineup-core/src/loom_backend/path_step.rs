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

/// Advances the stored path `json` to the next execution. `Ok(None)`: the exploration is
/// complete. An error names what in the file is not loom 0.7.2's path format.
pub(crate) fn step_path(json: &str) -> Result<Option<String>, String> {
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
