//! The `lineup` binary: verdict lines, explanations, exit status, errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus() -> PathBuf {
    let dir = std::env::var_os("LINEUP_HISTORY_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/histories")));
    assert!(
        dir.join("verdicts.tsv").is_file(),
        "the history corpus is missing: no verdicts.tsv in {} (set LINEUP_HISTORY_CORPUS to its folder)",
        dir.display()
    );
    dir
}

fn lineup(args: &[&str], files: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lineup"))
        .args(args)
        .args(files)
        .output()
        .expect("run lineup")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn one_verdict_line_per_file_and_exit_1_on_a_violation() {
    let dir = corpus();
    let pass = dir.join("etcd/etcd_005.log");
    let fail = dir.join("etcd/etcd_000.log");
    let out = lineup(&["check-history", "--model", "register"], &[&pass, &fail]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    let verdicts: Vec<&str> = stdout.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(verdicts.len(), 2, "{stdout}");
    assert!(
        verdicts[0].starts_with(&format!("PASS {} (register, etcd, ", pass.display())),
        "{stdout}"
    );
    assert!(
        verdicts[1].starts_with(&format!("FAIL {} (register, etcd, ", fail.display())),
        "{stdout}"
    );
    assert!(
        verdicts[1].contains(" ops, ") && verdicts[1].ends_with(" s)"),
        "{stdout}"
    );
    // Check times in microseconds (issue 12): milliseconds rounded the small files to zero.
    for verdict in &verdicts {
        let seconds = verdict.trim_end_matches(" s)").rsplit(' ').next().unwrap_or("");
        let decimals = seconds.split_once('.').map_or(0, |(_, d)| d.len());
        assert_eq!(decimals, 6, "a time with microseconds: {verdict}");
    }
    // The explanation: prefix, unplaced operations, the timeline, and file lines.
    assert!(stdout.contains("longest linearizable prefix"), "{stdout}");
    assert!(
        stdout.contains("could not place") || stdout.contains("returned before it could be placed"),
        "{stdout}"
    );
    assert!(stdout.contains("timeline"), "{stdout}");
    assert!(stdout.contains("with the line of their call in"), "{stdout}");
}

#[test]
fn exit_0_when_every_file_passes_and_explain_prints_the_linearization() {
    let dir = corpus();
    let out = lineup(
        &["check-history", "--model", "kv", "--format", "edn", "--explain"],
        &[&dir.join("kv/c01-ok.txt"), &dir.join("kv/c10-ok.txt")],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert_eq!(stdout.lines().filter(|l| l.starts_with("PASS ")).count(), 2, "{stdout}");
    assert!(stdout.contains("linearization (337 operations"), "{stdout}");
}

#[test]
fn kv_violation_names_its_partition_and_no_partition_checks_whole() {
    let dir = corpus();
    let bad = dir.join("kv/c01-bad.txt");
    let out = lineup(&["check-history", "--model", "kv"], &[&bad]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("in partition \""), "{stdout}");
    let whole = lineup(&["check-history", "--model", "kv", "--no-partition"], &[&bad]);
    let stdout = text(&whole.stdout);
    assert_eq!(whole.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(", 1 partitions,"), "{stdout}");
    assert!(!stdout.contains("in partition"), "{stdout}");
}

#[test]
fn malformed_input_names_file_line_and_expectation_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.log");
    std::fs::write(
        &bad,
        "INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:okay\t:read\tnil\n",
    )
    .unwrap();
    let good = dir.path().join("good.jsonl");
    std::fs::write(
        &good,
        "{\"client\":0,\"type\":\"call\",\"op\":\"write\",\"value\":1}\n{\"client\":0,\"type\":\"return\"}\n",
    )
    .unwrap();
    let out = lineup(&["check-history", "--model", "register"], &[&bad, &good]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}:2:23: expected an event type: `:invoke`, `:ok`, `:fail` or `:info`, found `:okay`",
            bad.display()
        )),
        "{stderr}"
    );
    assert!(stdout.contains(&format!("ERROR {}", bad.display())), "{stdout}");
    assert!(
        stdout.contains(&format!("PASS {} (register, jsonl,", good.display())),
        "{stdout}"
    );

    // A model that does not fit the file: the line and what the model expects.
    let out = lineup(&["check-history", "--model", "kv"], &[&good]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("{}:1: expected a key on `write`", good.display())),
        "{}",
        text(&out.stderr)
    );
    // A file that is not there, and one whose format cannot be told.
    let odd = dir.path().join("odd.txt");
    std::fs::write(&odd, "hello\n").unwrap();
    let out = lineup(
        &["check-history", "--model", "kv"],
        &[&dir.path().join("missing.edn"), &odd],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("missing.edn: cannot read the file"), "{stderr}");
    assert!(stderr.contains("odd.txt: cannot tell the format"), "{stderr}");
}

/// Regression (issue 12): an empty file is linearizable, also with `--format auto` (it was
/// "cannot tell the format", exit 2), and a Jepsen log with spaces between its fields is read
/// (it was "expected four tab-separated fields").
#[test]
fn empty_files_pass_and_space_separated_jepsen_logs_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, "").unwrap();
    for format in ["auto", "etcd", "edn", "jsonl"] {
        let out = lineup(&["check-history", "--model", "register", "--format", format], &[&empty]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{format}: {stdout}{}", text(&out.stderr));
        assert!(
            stdout.starts_with(&format!("PASS {} (register, ", empty.display())),
            "{stdout}"
        );
        assert!(stdout.contains(", 0 ops, "), "{stdout}");
    }
    let spaced = dir.path().join("spaced.log");
    std::fs::write(
        &spaced,
        "INFO  jepsen.util - 0 :invoke :write 1\nINFO  jepsen.util - 0 :ok :write 1\n\
         INFO  jepsen.util - 1 :invoke :read nil\nINFO  jepsen.util - 1 :ok :read nil\n",
    )
    .unwrap();
    let out = lineup(&["check-history", "--model", "register"], &[&spaced]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with(&format!("FAIL {} (register, etcd, 2 ops,", spaced.display())),
        "{stdout}"
    );
}

/// A sequential counter history of `n` increments and a final get of `n`: linearizable, and
/// any search must apply each of its operations, so it takes at least `n` steps.
fn long_counter_history(n: usize) -> String {
    let mut text = String::with_capacity(n * 90);
    for _ in 0..n {
        text.push_str("{\"client\":0,\"type\":\"call\",\"op\":\"increment\"}\n{\"client\":0,\"type\":\"return\"}\n");
    }
    text.push_str(&format!(
        "{{\"client\":1,\"type\":\"call\",\"op\":\"get\"}}\n{{\"client\":1,\"type\":\"return\",\"value\":{n}}}\n"
    ));
    text
}

#[test]
fn a_time_limit_gives_unknown_and_exit_2() {
    // 20,000 operations need at least 20,000 search steps; the limit is polled every 1,024.
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long.jsonl");
    std::fs::write(&long, long_counter_history(20_000)).unwrap();
    let out = lineup(&["check-history", "--model", "counter", "--time-limit", "0"], &[&long]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}{}", text(&out.stderr));
    assert!(stdout.starts_with("UNKNOWN "), "{stdout}");
    assert!(stdout.contains("no verdict: time limit"), "{stdout}");
    // Without the limit it passes.
    let out = lineup(&["check-history", "--model", "counter"], &[&long]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

    // A violation outranks an unknown in the exit status.
    let wrong = dir.path().join("wrong.jsonl");
    std::fs::write(
        &wrong,
        "{\"client\":0,\"type\":\"call\",\"op\":\"get\"}\n{\"client\":0,\"type\":\"return\",\"value\":1}\n",
    )
    .unwrap();
    let out = lineup(
        &["check-history", "--model", "counter", "--time-limit", "0"],
        &[&long, &wrong],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("UNKNOWN ") && stdout.contains("FAIL "), "{stdout}");
}

#[test]
fn usage_errors_exit_2() {
    let out = lineup(&["check-history", "--model", "register"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let out = lineup(&["check-history", "--model", "tree", "x"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("possible values"), "{}", text(&out.stderr));
    let out = lineup(&["check-history", "--model", "kv", "--time-limit", "soon", "x"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("expected a number of seconds"),
        "{}",
        text(&out.stderr)
    );
}

/// `n` overlapping writes of distinct values, then a read of a value none wrote, as a Jepsen
/// log: not linearizable, but the search must try every subset of the writes (about n · 2^n
/// configurations: for n = 24, several GiB).
fn pathological_log(n: usize) -> String {
    let mut text = String::new();
    for c in 0..n {
        text.push_str(&format!("INFO  jepsen.util - {c}\t:invoke\t:write\t{}\n", c + 1));
    }
    text.push_str(&format!("INFO  jepsen.util - {n}\t:invoke\t:read\tnil\n"));
    for c in 0..n {
        text.push_str(&format!("INFO  jepsen.util - {c}\t:ok\t:write\t{}\n", c + 1));
    }
    text.push_str(&format!("INFO  jepsen.util - {n}\t:ok\t:read\t0\n"));
    text
}

#[test]
fn a_memory_budget_gives_unknown_with_what_was_explored_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let hard = dir.path().join("hard.log");
    std::fs::write(&hard, pathological_log(24)).unwrap();
    let out = lineup(
        &["check-history", "--model", "register", "--max-memory", "8M"],
        &[&hard],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with(&format!(
            "UNKNOWN {} (register, etcd, 25 ops, 1 partitions, ",
            hard.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("no verdict: memory budget of 8.0 MiB reached"),
        "{stdout}"
    );
    assert!(stdout.contains("  explored: "), "{stdout}");
    // A small one gets its verdict under the same budget.
    let small = dir.path().join("small.log");
    std::fs::write(&small, pathological_log(8)).unwrap();
    let out = lineup(
        &["check-history", "--model", "register", "--max-memory", "8M"],
        &[&small],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let out = lineup(
        &["check-history", "--model", "register", "--max-memory", "lots"],
        &[&small],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("expected a size such as `512M`"),
        "{}",
        text(&out.stderr)
    );
}
