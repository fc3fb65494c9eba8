//! The HTML reports, opened in headless Chromium: `check-history --html` (recorded histories)
//! and a phase-2 / phase-1 violation of lineup-core (written under `LINEUP_REPORT_DIR`). Each
//! page must load without a script error (its script sets `data-ok="1"` on `<body>` when it
//! ran) and show the expected elements.
//!
//! Needs `chromium` (Debian's package; `.ci/run` installs it). Under CI (`CI` set) or with
//! `LINEUP_REQUIRE_CHROMIUM=1`, a missing Chromium fails the tests; elsewhere they print that
//! the pages were not opened and how to install it (so that `cargo test --workspace` works on a
//! fresh machine with only the Rust toolchain). `LINEUP_UPDATE_SCREENSHOTS=1` also copies one
//! screenshot per kind to `docs/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lineup_core::sync::atomic::{AtomicU64, Ordering};
use lineup_core::{
    check, Config, History, InvocationLabel, Phase, ReplayToken, Response, StuckKind, Subject, TestMatrix, ThreadId,
    Violation, ViolationKind,
};

/// The Chromium binary, or `None` when it is missing outside CI (see the module).
fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH")?
                .to_str()?
                .split(':')
                .map(|dir| Path::new(dir).join(name))
                .find(|path| path.is_file())
        });
    let required = std::env::var_os("CI").is_some_and(|v| !v.is_empty())
        || std::env::var("LINEUP_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1");
    if found.is_none() && !required {
        eprintln!(
            "html_report: headless Chromium is not installed, so the page is rendered but NOT opened in a browser \
             (Debian: `apt-get install -y chromium`; under CI, or with LINEUP_REQUIRE_CHROMIUM=1, this fails)"
        );
        return None;
    }
    Some(found.expect(
        "this test opens the HTML reports in headless Chromium, which is not installed: install it \
         (Debian: `apt-get install -y chromium`; .ci/run installs it)",
    ))
}

/// Runs headless Chromium on `page` with `args`; returns its standard output.
fn run_chromium(chromium: &Path, page: &Path, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "chromium failed on {}", page.display());
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The DOM of `page` after its script ran; asserts that the script ran without error.
fn page_dom(chromium: &Path, page: &Path) -> String {
    let dom = run_chromium(chromium, page, &["--dump-dom"]);
    let body = dom
        .split("<body")
        .nth(1)
        .and_then(|b| b.split('>').next())
        .unwrap_or("");
    assert!(
        body.contains("data-ok=\"1\""),
        "the page's script did not finish: <body{body}>"
    );
    assert!(
        !body.contains("data-error"),
        "the page reported a script error: <body{body}>"
    );
    dom
}

/// Takes a screenshot of `page`; with `LINEUP_UPDATE_SCREENSHOTS=1`, keeps it as `docs/<name>`.
fn screenshot(chromium: &Path, page: &Path, name: &str, height: u32) {
    let shot = page.with_extension("png");
    run_chromium(
        chromium,
        page,
        &[
            &format!("--screenshot={}", shot.display()),
            &format!("--window-size=1240,{height}"),
        ],
    );
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    if std::env::var("LINEUP_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1") {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs").join(name);
        std::fs::write(&docs, png).unwrap();
    }
}

fn count(text: &str, pattern: &str) -> usize {
    text.matches(pattern).count()
}

const QUEUE: &str = r#"{"client":0,"type":"call","op":"enqueue","value":"x"}
{"client":1,"type":"call","op":"enqueue","value":"y"}
{"client":0,"type":"return","op":"enqueue"}
{"client":1,"type":"return","op":"enqueue"}
{"client":3,"type":"call","op":"enqueue","value":"<img src=x onerror=alert(1)>"}
{"client":3,"type":"unknown"}
{"client":0,"type":"call","op":"dequeue"}
{"client":2,"type":"call","op":"dequeue"}
{"client":0,"type":"return","op":"dequeue","value":"y"}
{"client":2,"type":"return","op":"dequeue","value":"y"}
{"client":1,"type":"call","op":"dequeue"}
{"client":1,"type":"return","op":"dequeue","value":"x"}
"#;

const KV: &str = r#"{"client":0,"type":"call","op":"put","key":"a","value":"1"}
{"client":0,"type":"return","op":"put","key":"a"}
{"client":1,"type":"call","op":"get","key":"b"}
{"client":1,"type":"return","op":"get","key":"b","value":"2"}
"#;

#[test]
fn check_history_html_shows_lanes_prefix_blocking_op_and_states() {
    let Some(chromium) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let queue = dir.path().join("queue.jsonl");
    let kv = dir.path().join("kv.jsonl");
    std::fs::write(&queue, QUEUE).unwrap();
    std::fs::write(&kv, KV).unwrap();
    let page = dir.path().join("report.html");
    // The queue page: both dequeues return y (Herlihy & Wing's H4), with an unknown enqueue.
    let output = Command::new(env!("CARGO_BIN_EXE_lineup"))
        .args(["check-history", "--model", "queue", "--html"])
        .arg(&page)
        .arg(&queue)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.ends_with(&format!("html report: {}\n", page.display())),
        "{stdout}"
    );
    let dom = page_dom(&chromium, &page);
    assert_eq!(count(&dom, "class=\"section\""), 1, "{dom}");
    assert_eq!(count(&dom, "class=\"lane\""), 4, "one lane per client: {dom}");
    assert_eq!(count(&dom, "class=\"bar "), 5, "{dom}");
    assert_eq!(count(&dom, "data-mark=\"linearized\""), 4, "{dom}");
    assert!(dom.contains("data-mark=\"blocking\" data-op=\"op#4\""), "{dom}");
    assert_eq!(
        count(&dom, "open\" data-mark="),
        1,
        "the unknown enqueue is open-ended: {dom}"
    );
    // The script moved each bar's details to data-tip: the states before and after a step.
    assert!(
        dom.contains("state before: [&quot;y&quot;]\nstate after: [&quot;y&quot;, &quot;x&quot;]"),
        "{dom}"
    );
    assert!(dom.contains("class=\"steps\""), "{dom}");
    assert!(!dom.contains("<img"), "user text is escaped: {dom}");
    assert!(
        dom.contains("Dequeued(\"y\")") || dom.contains("Dequeued(&quot;y&quot;)"),
        "{dom}"
    );
    screenshot(&chromium, &page, "html-report-history.png", 820);

    // Two failing files (a partitioned one): one section each, naming the partition.
    let output = Command::new(env!("CARGO_BIN_EXE_lineup"))
        .args(["check-history", "--model", "kv", "--format", "jsonl", "--html"])
        .arg(&page)
        .arg(&kv)
        .arg(&kv)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let dom = page_dom(&chromium, &page);
    assert_eq!(count(&dom, "class=\"section\""), 2, "{dom}");
    assert_eq!(count(&dom, "<td class=\"partition-key\">\"b\"</td>"), 2, "{dom}");
    assert_eq!(count(&dom, "data-mark=\"blocking\""), 2, "{dom}");
}

#[test]
fn an_unwritable_html_file_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let kv = dir.path().join("kv.jsonl");
    std::fs::write(&kv, KV).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_lineup"))
        .args(["check-history", "--model", "kv", "--html"])
        .arg(dir.path().join("missing/dir/report.html"))
        .arg(&kv)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "the verdict still decides the exit status"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot write the HTML report"), "{stderr}");
}

/// `inc` reads and then writes: two concurrent increments can lose one.
struct RacyCounter(AtomicU64);

fn racy_counter() -> Subject<RacyCounter> {
    Subject::new("RacyCounter", || RacyCounter(AtomicU64::new(0)))
        .with(lineup_core::Invocation::new("inc", |c: &RacyCounter| {
            let v = c.0.load(Ordering::SeqCst);
            c.0.store(v + 1, Ordering::SeqCst);
        }))
        .with(lineup_core::Invocation::new("get", |c: &RacyCounter| {
            c.0.load(Ordering::SeqCst)
        }))
}

/// A stuck violation built by hand: `take()` blocks although a serial execution would not.
fn stuck_violation() -> Violation {
    let mut b = History::builder();
    let put = b.call(ThreadId::Worker(0), InvocationLabel::new("put", vec!["1".into()]));
    let take = b.call(ThreadId::Worker(1), InvocationLabel::new("take", vec![]));
    b.ret(put, Response::returned(&()));
    let history = b.finish_stuck();
    Violation {
        subject: "LostWakeup".into(),
        matrix: TestMatrix::new(vec![vec![0], vec![1]]),
        labels: vec![
            InvocationLabel::new("put", vec!["1".into()]),
            InvocationLabel::new("take", vec![]),
        ],
        kind: ViolationKind::StuckNotLinearizable {
            history,
            stuck: StuckKind::Deadlock,
            pending_op: take,
            group: None,
        },
        replay: ReplayToken {
            phase: Phase::Concurrent { preemption_bound: 2 },
            choices: vec![0, 1, 0],
        },
        stats: Default::default(),
        loom: None,
        schedule: None,
        html_report: None,
        interleaving: None,
    }
}

#[test]
fn violation_html_shows_threads_results_stuck_op_serial_pair_and_replay_token() {
    let Some(chromium) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    // A real phase-2 violation, written under LINEUP_REPORT_DIR (this is the only test of this
    // binary that runs a check).
    std::env::set_var(lineup_core::report_html::REPORT_DIR_ENV, dir.path());
    let matrix = TestMatrix::new(vec![vec![0], vec![0]]).with_final(vec![1]);
    let verdict = check(&racy_counter(), &matrix, &Config::default()).unwrap();
    std::env::remove_var(lineup_core::report_html::REPORT_DIR_ENV);
    let violation = verdict.violation().expect("the racy counter fails");
    let page = dir
        .path()
        .join("violation_html_shows_threads_results_stuck_op_serial_pair_and_replay_token-1.html");
    let text = violation.to_string();
    assert!(text.ends_with(&format!("\nhtml report: {}", page.display())), "{text}");
    let dom = page_dom(&chromium, &page);
    assert!(
        dom.contains(&format!("<td class=\"replay-token\">{}</td>", violation.replay)),
        "{dom}"
    );
    assert!(dom.contains("FULL HISTORY WITHOUT SERIAL WITNESS"), "{dom}");
    assert!(count(&dom, "data-lane=\"thread A\"") >= 2, "{dom}");
    assert!(dom.contains("data-lane=\"thread main\""), "{dom}");
    assert!(dom.contains("get() → 1"), "the results are shown: {dom}");
    // The steps drawn on the lanes: the script ran over every one of them (its count in
    // `data-steps`), and moved each step's hover text, with the test's source line, to `data-tip`.
    let steps = violation
        .interleaving
        .as_ref()
        .expect("the steps are recorded")
        .actions()
        .count();
    assert!(steps > 0);
    assert!(dom.contains(&format!("data-steps=\"{steps}\"")), "{dom}");
    assert!(
        dom.contains("@ lineup-cli/tests/html_report.rs:"),
        "a step's source line on hover: {dom}"
    );
    assert!(dom.contains("<g class=\"switch\" data-reason="), "{dom}");
    screenshot(&chromium, &page, "html-report-violation.png", 900);

    // A stuck history: the stuck operation is marked and open-ended.
    let stuck = dir.path().join("stuck.html");
    std::fs::write(&stuck, stuck_violation().to_html()).unwrap();
    let dom = page_dom(&chromium, &stuck);
    assert!(
        dom.contains("class=\"bar mark-stuck open\" data-mark=\"stuck\" data-op=\"2\""),
        "{dom}"
    );
    assert!(
        dom.contains("<td class=\"replay-token\">lineup:p2-b2:0.1.0</td>"),
        "{dom}"
    );
    assert_eq!(count(&dom, "class=\"lane\""), 2, "{dom}");
}

#[test]
fn nondeterminism_html_shows_the_two_serial_histories_side_by_side() {
    let Some(chromium) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let serial = |result: u64| {
        let mut b = History::builder();
        let inc = b.call(ThreadId::Worker(0), InvocationLabel::new("flip", vec![]));
        b.ret(inc, Response::returned(&result));
        b.finish()
    };
    let violation = Violation {
        subject: "Coin".into(),
        matrix: TestMatrix::new(vec![vec![0]]),
        labels: vec![InvocationLabel::new("flip", vec![])],
        kind: ViolationKind::Nondeterministic(lineup_core::Nondeterminism {
            op: 1,
            first: serial(0),
            second: serial(1),
        }),
        replay: ReplayToken {
            phase: Phase::Serial,
            choices: vec![0],
        },
        stats: Default::default(),
        loom: None,
        schedule: None,
        html_report: None,
        interleaving: None,
    };
    let page = dir.path().join("nondeterminism.html");
    std::fs::write(&page, violation.to_html()).unwrap();
    let dom = page_dom(&chromium, &page);
    assert_eq!(count(&dom, "<figure class=\"timeline\">"), 2, "{dom}");
    assert_eq!(count(&dom, "data-mark=\"differs\""), 2, "{dom}");
    assert!(dom.contains("flip() → 0") && dom.contains("flip() → 1"), "{dom}");
    assert!(dom.contains("class=\"replay-token\""), "{dom}");
}
