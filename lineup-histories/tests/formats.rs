//! The history formats: errors name the file, the line and what was expected; JSON lines round
//! trip; Jepsen's `:ok`/`:fail`/`:info` conventions give the right verdicts.

use std::path::Path;

use lineup_histories::formats::{parse_file, parse_str, to_jsonl, Format, FormatError, ModelKind, RawOutcome, Value};
use lineup_histories::{CheckOptions, CheckOutcome};

const LOG: &str = "INFO  jepsen.util - ";

/// A Jepsen log from `(process, type, f, value)` rows.
fn log(rows: &[(u64, &str, &str, &str)]) -> String {
    rows.iter()
        .map(|(p, t, f, v)| format!("{LOG}{p}\t:{t}\t:{f}\t{v}\n"))
        .collect()
}

fn error(text: &str, format: Format) -> String {
    match parse_str(text, format, "history.txt") {
        Ok(h) => panic!("expected an error, parsed {h:?}"),
        Err(e) => e.to_string(),
    }
}

fn verdict(text: &str, format: Format, model: ModelKind) -> CheckOutcome {
    let raw = parse_str(text, format, "h").unwrap_or_else(|e| panic!("{e}"));
    model
        .check(&raw, Path::new("h"), &CheckOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .report
        .outcome
}

#[test]
fn jepsen_log_errors_name_file_line_column_and_expectation() {
    let text = format!("{LOG}0\t:invoke\t:read\tnil\n\n{LOG}0\t:okay\t:read\tnil\n");
    let message = error(&text, Format::JepsenLog);
    assert_eq!(
        message,
        "history.txt:3:23: expected an event type: `:invoke`, `:ok`, `:fail` or `:info`, found `:okay`"
    );
    let message = error(&format!("{LOG}zero\t:invoke\t:read\tnil\n"), Format::JepsenLog);
    assert!(
        message.starts_with("history.txt:1:21: expected a process number"),
        "{message}"
    );
    let message = error(&format!("{LOG}0\t:invoke\t:cas\t[1 2.5]\n"), Format::JepsenLog);
    assert!(
        message.starts_with("history.txt:1:39: expected an integer"),
        "{message}"
    );
    let message = error("INFO  jepsen.core - starting the test\n", Format::JepsenLog);
    assert!(
        message.contains("expected a log level and the logger `jepsen.util`"),
        "{message}"
    );
    let message = error(&format!("{LOG}0 :invoke :read\n"), Format::JepsenLog);
    assert!(
        message.starts_with("history.txt:1:21: expected four whitespace-separated fields"),
        "{message}"
    );
}

/// Regression (issue 12): porcupine reads Jepsen logs whose fields are separated by any
/// whitespace (its pattern is `INFO\s+jepsen\.util\s+-\s+(\d+)\s+:invoke\s+...`); lineup
/// required tabs ("expected four tab-separated fields").
#[test]
fn jepsen_log_fields_may_be_separated_by_any_whitespace() {
    let tabs = log(&[
        (0, "invoke", "write", "1"),
        (0, "ok", "write", "1"),
        (1, "invoke", "cas", "[3 4]"),
        (1, "fail", "cas", "[3 4]"),
        (2, "invoke", "read", "nil"),
        (2, "ok", "read", "1"),
    ]);
    let spaces = "INFO jepsen.util - 0 :invoke :write 1\n\
                  INFO  jepsen.util  -  0  :ok  :write  1\n\
                  INFO\tjepsen.util\t-\t1 :invoke\t:cas   [3 4]\n\
                  INFO jepsen.util - 1 :fail :cas [3 4]   \n\
                  INFO jepsen.util - 2 \t :invoke :read nil\n\
                  INFO jepsen.util - 2 :ok :read 1\n";
    let expected = parse_str(&tabs, Format::JepsenLog, "tabs.log").unwrap();
    let read = parse_str(spaces, Format::JepsenLog, "spaces.log").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.operations.len(), expected.operations.len());
    for (a, b) in read.operations.iter().zip(&expected.operations) {
        assert_eq!(
            (a.client, &a.function, &a.argument, &a.outcome),
            (b.client, &b.function, &b.argument, &b.outcome)
        );
    }
    assert_eq!(read.steps, expected.steps);
    assert_eq!(Format::detect(spaces), Some(Format::JepsenLog));
    assert!(verdict(spaces, Format::JepsenLog, ModelKind::Register).is_linearizable());
    // Errors still name the line and the column of the field.
    let message = error(
        "INFO jepsen.util - 0 :invoke :read nil\nINFO jepsen.util - 0  :okay :read nil\n",
        Format::JepsenLog,
    );
    assert_eq!(
        message,
        "history.txt:2:23: expected an event type: `:invoke`, `:ok`, `:fail` or `:info`, found `:okay`"
    );
    let message = error("INFO jepsen.util - 0 :invoke :cas [1 2.5]\n", Format::JepsenLog);
    assert!(
        message.starts_with("history.txt:1:38: expected an integer"),
        "{message}"
    );
}

/// Regression (issue 12): an empty file is an empty history, which is linearizable, in every
/// format and with the format told from the content (it used to be "cannot tell the format").
#[test]
fn an_empty_file_is_a_linearizable_empty_history() {
    for text in ["", "\n", "  \n\t\n"] {
        for format in [Format::JepsenLog, Format::Edn, Format::Jsonl] {
            let raw = parse_str(text, format, "empty").unwrap_or_else(|e| panic!("{format}: {e}"));
            assert!(raw.operations.is_empty());
            for model in ModelKind::ALL {
                assert!(verdict(text, format, model).is_linearizable(), "{format} {model}");
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, format) in [
        ("empty.log", Format::JepsenLog),
        ("empty.edn", Format::Edn),
        ("empty.jsonl", Format::Jsonl),
        ("empty.txt", Format::Jsonl),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, "\n").unwrap();
        let (raw, told) = parse_file(&path, None).unwrap_or_else(|e| panic!("{e}"));
        assert!(raw.operations.is_empty());
        assert_eq!(told, format, "{name}");
        let checked = ModelKind::Kv.check(&raw, &path, &CheckOptions::default()).unwrap();
        assert!(checked.report.outcome.is_linearizable());
        assert_eq!(checked.operations, 0);
    }
}

#[test]
fn jepsen_events_must_pair_up() {
    let ok_without_call = log(&[(0, "ok", "read", "nil")]);
    assert!(error(&ok_without_call, Format::JepsenLog).contains("client 0 has none"));
    let other_function = log(&[(0, "invoke", "write", "3"), (0, "ok", "read", "3")]);
    let message = error(&other_function, Format::JepsenLog);
    assert!(
        message.starts_with("history.txt:2: expected the completion of `write` (called at line 1)"),
        "{message}"
    );
    let two_calls = log(&[(0, "invoke", "write", "3"), (0, "invoke", "read", "nil")]);
    assert!(error(&two_calls, Format::JepsenLog).contains("has not returned yet"));
    let reused = log(&[
        (0, "invoke", "write", "3"),
        (0, "info", "write", ":timed-out"),
        (0, "invoke", "read", "nil"),
    ]);
    let message = error(&reused, Format::JepsenLog);
    assert!(
        message.starts_with("history.txt:3:") && message.contains("never reused"),
        "{message}"
    );
    let changed = log(&[(0, "invoke", "write", "3"), (0, "ok", "write", "4")]);
    let message = error(&changed, Format::JepsenLog);
    assert!(
        message.contains("expected the `:ok` value to repeat the `:invoke` value `3`, found `4`"),
        "{message}"
    );
}

#[test]
fn edn_errors_name_line_column_and_expectation() {
    let good = "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n";
    let message = error(
        &format!("{good}{{:process 0, :type :ok, :f :get, :key \"1\", :value 1.5}}\n"),
        Format::Edn,
    );
    assert!(
        message.starts_with("history.txt:2:51: expected an integer"),
        "{message}"
    );
    let message = error("{:process 0, :f :get, :key \"1\", :value nil}\n", Format::Edn);
    assert_eq!(
        message,
        "history.txt:1: expected a `:type` entry (:invoke, :ok, :fail or :info), found a map without it"
    );
    let message = error("{:process 0, :type :invoke, :f get}\n", Format::Edn);
    assert!(
        message.starts_with("history.txt:1:32: expected an EDN value"),
        "{message}"
    );
    let message = error("{:process 0, :type :invoke, :f :get, :key \"1\"\n", Format::Edn);
    assert!(
        message.starts_with("history.txt:1:") && message.contains("`}`"),
        "{message}"
    );
    let message = error("{:process -1, :type :invoke, :f :get}\n", Format::Edn);
    assert!(
        message.contains("a process number (or `:nemesis`) as `:process`, found `-1`"),
        "{message}"
    );
    let message = error(
        &format!("{good}{{:process 0, :type :ok, :f :get, :key \"2\", :value \"\"}}\n"),
        Format::Edn,
    );
    assert!(
        message.starts_with("history.txt:2: expected the completion on key \"1\""),
        "{message}"
    );
}

#[test]
fn jsonl_errors_name_line_column_and_expectation() {
    let message = error(
        "{\"client\":0,\"type\":\"call\",\"op\":\"read\",\"extra\":1}\n",
        Format::Jsonl,
    );
    assert!(
        message.starts_with("history.txt:1:") && message.contains("unknown field `extra`"),
        "{message}"
    );
    let message = error("\n{\"client\":0,\"type\":\"cal\",\"op\":\"read\"}\n", Format::Jsonl);
    assert!(
        message.starts_with("history.txt:2:24: expected a JSON object"),
        "{message}"
    );
    assert!(message.contains("unknown variant `cal`"), "{message}");
    let message = error("{\"client\":0,\"type\":\"call\"}\n", Format::Jsonl);
    assert_eq!(
        message,
        "history.txt:1: expected an \"op\" field on a call, found a call without it"
    );
    let message = error(
        "{\"client\":0,\"type\":\"call\",\"op\":\"add\",\"value\":1.5}\n",
        Format::Jsonl,
    );
    assert!(message.starts_with("history.txt:1:38: expected a value"), "{message}");
    let message = error(
        "{\"client\":0,\"type\":\"call\",\"op\":\"read\"}\n{\"client\":0,\"type\":\"unknown\",\"value\":1}\n",
        Format::Jsonl,
    );
    assert!(
        message.starts_with("history.txt:2:30: expected no \"value\" on an \"unknown\" line"),
        "{message}"
    );
    let message = error("{\"client\":0,\"type\":\"return\"}\n", Format::Jsonl);
    assert!(message.starts_with("history.txt:1: expected a completion only for a client with a call pending"));
}

#[test]
fn model_mismatches_name_the_line() {
    let text = log(&[
        (0, "invoke", "write", "1"),
        (0, "ok", "write", "1"),
        (1, "invoke", "get", "nil"),
    ]);
    let raw = parse_str(&text, Format::JepsenLog, "h.log").unwrap();
    let message = ModelKind::Register
        .check(&raw, Path::new("h.log"), &CheckOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "h.log:3: expected one of the operations `read`, `write`, `cas` (model `register`), found `get`"
    );
    let jsonl = "{\"client\":0,\"type\":\"call\",\"op\":\"get\",\"key\":\"a\"}\n{\"client\":0,\"type\":\"return\",\"value\":5}\n";
    let raw = parse_str(jsonl, Format::Jsonl, "h.jsonl").unwrap();
    let message = ModelKind::Kv
        .check(&raw, Path::new("h.jsonl"), &CheckOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "h.jsonl:2: expected a string result from `get` (model `kv`), found `5`"
    );
    let raw = parse_str(&log(&[(0, "invoke", "read", "nil")]), Format::JepsenLog, "h.log").unwrap();
    let message = ModelKind::Kv
        .check(&raw, Path::new("h.log"), &CheckOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("expected a key on `read`"), "{message}");
}

#[test]
fn files_name_themselves_in_errors_and_formats_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.edn");
    std::fs::write(
        &bad,
        "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n{:process 0 :type}\n",
    )
    .unwrap();
    let message = parse_file(&bad, None).unwrap_err().to_string();
    assert!(message.starts_with(&format!("{}:2:", bad.display())), "{message}");
    let unknown = dir.path().join("what.txt");
    std::fs::write(&unknown, "\n  hello world\n").unwrap();
    let err = parse_file(&unknown, None).unwrap_err();
    assert!(matches!(err, FormatError::UnknownFormat { .. }));
    assert!(err.to_string().contains("found `  hello world`"), "{err}");
    let missing = dir.path().join("missing.log");
    assert!(matches!(
        parse_file(&missing, None).unwrap_err(),
        FormatError::Io { .. }
    ));
}

#[test]
fn json_lines_round_trip() {
    let text = "{\"client\":0,\"type\":\"call\",\"op\":\"put\",\"key\":\"x\",\"value\":\"a\"}\n\
                {\"client\":1,\"type\":\"call\",\"op\":\"get\",\"key\":\"x\"}\n\
                {\"client\":0,\"type\":\"return\",\"op\":\"put\",\"key\":\"x\"}\n\
                {\"client\":1,\"type\":\"return\",\"op\":\"get\",\"key\":\"x\",\"value\":\"a\"}\n\
                {\"client\":2,\"type\":\"call\",\"op\":\"append\",\"key\":\"y\",\"value\":\"b\"}\n\
                {\"client\":2,\"type\":\"unknown\",\"op\":\"append\",\"key\":\"y\"}\n\
                {\"client\":3,\"type\":\"call\",\"op\":\"get\",\"key\":\"y\"}\n";
    let raw = parse_str(text, Format::Jsonl, "kv.jsonl").unwrap();
    assert_eq!(raw.operations.len(), 4);
    assert_eq!(raw.operations[2].outcome, RawOutcome::Unknown);
    assert_eq!(raw.operations[3].outcome, RawOutcome::Unknown, "pending at the end");
    let written = to_jsonl(&raw);
    let pending_written_as_unknown =
        format!("{text}{{\"client\":3,\"type\":\"unknown\",\"op\":\"get\",\"key\":\"y\"}}\n");
    assert_eq!(written, pending_written_as_unknown);
    let again = parse_str(&written, Format::Jsonl, "again.jsonl").unwrap();
    assert_eq!(again.steps, raw.steps);
    let strip = |h: &lineup_histories::formats::RawHistory| {
        h.operations
            .iter()
            .map(|op| {
                (
                    op.client,
                    op.function.clone(),
                    op.key.clone(),
                    op.argument.clone(),
                    op.outcome.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&again), strip(&raw));

    // Every kind of value survives, and a Jepsen log converts to the same verdicts.
    let values = "{\"client\":5,\"type\":\"call\",\"op\":\"cas\",\"value\":[1,null,true,\"s\",[-2]]}\n\
                  {\"client\":5,\"type\":\"return\",\"op\":\"cas\",\"value\":false}\n";
    let raw = parse_str(values, Format::Jsonl, "v.jsonl").unwrap();
    assert_eq!(
        raw.operations[0].argument,
        Value::List(vec![
            Value::Int(1),
            Value::Nil,
            Value::Bool(true),
            Value::Str("s".into()),
            Value::List(vec![Value::Int(-2)])
        ])
    );
    assert_eq!(to_jsonl(&raw), values);
}

#[test]
fn cas_ok_and_fail_are_results() {
    // cas [nil 1] swaps from the initial nil; a second cas [nil 2] must fail; a read sees 1.
    let good = log(&[
        (0, "invoke", "cas", "[nil 1]"),
        (0, "ok", "cas", "[nil 1]"),
        (1, "invoke", "cas", "[nil 2]"),
        (1, "fail", "cas", "[nil 2]"),
        (0, "invoke", "read", "nil"),
        (0, "ok", "read", "1"),
    ]);
    assert!(verdict(&good, Format::JepsenLog, ModelKind::Register).is_linearizable());
    // A failed cas whose expected value was there is a violation.
    let bad = log(&[(1, "invoke", "cas", "[nil 2]"), (1, "fail", "cas", "[nil 2]")]);
    assert!(verdict(&bad, Format::JepsenLog, ModelKind::Register).is_violation());
}

#[test]
fn a_failed_write_did_not_happen() {
    let text = log(&[
        (0, "invoke", "write", "1"),
        (0, "fail", "write", "1"),
        (1, "invoke", "read", "nil"),
        (1, "ok", "read", "1"),
    ]);
    let raw = parse_str(&text, Format::JepsenLog, "h").unwrap();
    assert_eq!(raw.operations[0].outcome, RawOutcome::NotApplied);
    assert!(verdict(&text, Format::JepsenLog, ModelKind::Register).is_violation());
    let read_nil = text.replace(":ok\t:read\t1", ":ok\t:read\tnil");
    assert!(verdict(&read_nil, Format::JepsenLog, ModelKind::Register).is_linearizable());
}

#[test]
fn an_info_write_may_have_happened_or_not() {
    // Must be assumed to have happened: a later read sees its value.
    let happened = log(&[
        (0, "invoke", "write", "1"),
        (0, "info", "write", ":timed-out"),
        (1, "invoke", "read", "nil"),
        (1, "ok", "read", "1"),
    ]);
    assert!(verdict(&happened, Format::JepsenLog, ModelKind::Register).is_linearizable());
    // Must be assumed not to have happened (yet): a later read sees the initial nil.
    let not_happened = happened.replace(":ok\t:read\t1", ":ok\t:read\tnil");
    assert!(verdict(&not_happened, Format::JepsenLog, ModelKind::Register).is_linearizable());
    // But it cannot be undone: once seen, the value stays.
    let flicker = format!(
        "{happened}{}",
        log(&[(1, "invoke", "read", "nil"), (1, "ok", "read", "nil")])
    );
    assert!(verdict(&flicker, Format::JepsenLog, ModelKind::Register).is_violation());
    // An info read constrains nothing.
    let info_read = log(&[(0, "invoke", "read", "nil"), (0, "info", "read", ":timed-out")]);
    assert!(verdict(&info_read, Format::JepsenLog, ModelKind::Register).is_linearizable());
}

#[test]
fn every_model_reads_json_lines() {
    let call =
        |c: u64, op: &str, v: &str| format!("{{\"client\":{c},\"type\":\"call\",\"op\":\"{op}\",\"value\":{v}}}\n");
    let ret = |c: u64, v: &str| format!("{{\"client\":{c},\"type\":\"return\",\"value\":{v}}}\n");
    let cases: Vec<(ModelKind, String, bool)> = vec![
        (
            ModelKind::Set,
            call(0, "insert", "1") + &ret(0, "true") + &call(0, "contains", "1") + &ret(0, "true"),
            true,
        ),
        (
            ModelKind::Set,
            call(0, "insert", "1") + &ret(0, "true") + &call(0, "insert", "1") + &ret(0, "true"),
            false,
        ),
        (
            ModelKind::Queue,
            call(0, "enqueue", "1")
                + &ret(0, "null")
                + &call(0, "enqueue", "2")
                + &ret(0, "null")
                + &call(0, "dequeue", "null")
                + &ret(0, "1"),
            true,
        ),
        (
            ModelKind::Queue,
            call(0, "enqueue", "1")
                + &ret(0, "null")
                + &call(0, "enqueue", "2")
                + &ret(0, "null")
                + &call(0, "dequeue", "null")
                + &ret(0, "2"),
            false,
        ),
        (
            ModelKind::Stack,
            call(0, "push", "1")
                + &ret(0, "null")
                + &call(0, "push", "2")
                + &ret(0, "null")
                + &call(0, "pop", "null")
                + &ret(0, "2"),
            true,
        ),
        (ModelKind::Stack, call(0, "pop", "null") + &ret(0, "\"x\""), false),
        (
            ModelKind::Counter,
            call(0, "increment", "null")
                + &ret(0, "null")
                + &call(0, "add", "5")
                + &ret(0, "null")
                + &call(0, "get", "null")
                + &ret(0, "6"),
            true,
        ),
        (ModelKind::Counter, call(0, "get", "null") + &ret(0, "1"), false),
        (
            ModelKind::Register,
            call(0, "write", "\"a\"") + &ret(0, "null") + &call(1, "read", "null") + &ret(1, "\"a\""),
            true,
        ),
    ];
    for (model, text, linearizable) in cases {
        let outcome = verdict(&text, Format::Jsonl, model);
        assert_eq!(outcome.is_linearizable(), linearizable, "{model}:\n{text}{outcome}");
        assert!(!outcome.is_unknown());
    }
}
