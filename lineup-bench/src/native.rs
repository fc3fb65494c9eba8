//! `native`: the same objects written on `lineup::sync`, on shuttle's own primitives
//! (`lineup::shuttle::sync` used directly, which lineup reads from shuttle's `tracing` events
//! where it can: see `lineup-core/src/explore/shuttle_events.rs`) and against tokio through
//! shuttle-tokio (`tokio::spawn`, `tokio::sync`; objects in `lineup_zoo::native`), one line each:
//! `{"bench":"native","object":..,"primitives":"lineup|shuttle|tokio","matrix":"2x2 ..","phase1_executions":..,"phase1_ms":..,"default_check_s":..,"verdict":..,"matrix_verdict":..,"matrix_check_ms":..,"expected":..}`.
//!
//! `phase1_executions` and `phase1_ms`: phase 1 of the matrix at `Config::default()` (the
//! reduction `auto`: on for objects with threads of their own), one worker. `default_check_s` and
//! `verdict` (`PASS`, `FAIL` for a violation, `INCONCLUSIVE` for a check that reached neither):
//! `LineupTest::new(..).seed(1)` at its defaults (the random sample, two workers, and the
//! deepening's 10 s budget). `matrix_verdict` and `matrix_check_ms`: `lineup::check` of the line's
//! matrix alone at `Config::default()`. Each part runs in a child process of this binary, stopped after
//! [`CAP`]: a stopped part prints `null` and `"capped_s"`.
//!
//! The `tokio` lines: the queue is a `tokio::sync::Mutex` and a `Notify`, the register's actors
//! are tasks on `mpsc` with `oneshot` replies, every operation an `async fn`. A lock-free stack
//! has no tokio form (tokio has no atomics; tokio code uses std's, which under shuttle are the
//! `shuttle` line's), so the `LockFreeStack` tokio line is the same stack's operations on a
//! `Vec` behind a `tokio::sync::Mutex`: not lock-free, the way tokio code shares a stack.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lineup::{synthesize_spec, Config, LineupTest, Subject, TestMatrix};
use lineup_zoo::native;

/// How long one part of one line may run.
const CAP: Duration = Duration::from_secs(60);

/// The lines: object, primitives, matrix (invocation numbers), the verdict expected.
const LINES: &[(&str, &str, &[&[usize]], &str)] = &[
    ("BlockingQueue", "lineup", &[&[0, 2], &[1, 3]], "PASS"),
    ("BlockingQueue", "shuttle", &[&[0, 2], &[1, 3]], "PASS"),
    ("BlockingQueue", "tokio", &[&[0, 2], &[1, 3]], "PASS"),
    ("ReplicatedRegister", "lineup", &[&[0, 2], &[1, 2]], "PASS"),
    ("ReplicatedRegister", "shuttle", &[&[0, 2], &[1, 2]], "PASS"),
    ("ReplicatedRegister", "tokio", &[&[0, 2], &[1, 2]], "PASS"),
    ("ReplicatedRegister(stale read)", "lineup", &[&[0, 2], &[1, 2]], "FAIL"),
    ("ReplicatedRegister(stale read)", "shuttle", &[&[0, 2], &[1, 2]], "FAIL"),
    ("ReplicatedRegister(stale read)", "tokio", &[&[0, 2], &[1, 2]], "FAIL"),
    ("LockFreeStack", "lineup", &[&[0, 2], &[1, 2]], "PASS"),
    ("LockFreeStack", "shuttle", &[&[0, 2], &[1, 2]], "PASS"),
    ("LockFreeStack", "tokio", &[&[0, 2], &[1, 2]], "PASS"),
];

/// Runs `f` on the subject of line `i`.
fn with_subject(i: usize, f: &mut dyn FnMut(&dyn Part) -> String) -> String {
    let (object, primitives, _, _) = LINES[i];
    let shuttle = primitives == "shuttle";
    let tokio = primitives == "tokio";
    match object {
        "BlockingQueue" if tokio => f(&native::tokio_queue()),
        "BlockingQueue" => {
            let (l, s) = native::queues();
            if shuttle {
                f(&s)
            } else {
                f(&l)
            }
        }
        "ReplicatedRegister" | "ReplicatedRegister(stale read)" if tokio => {
            f(&native::tokio_register(object != "ReplicatedRegister"))
        }
        "ReplicatedRegister" | "ReplicatedRegister(stale read)" => {
            let (l, s) = native::registers(object != "ReplicatedRegister");
            if shuttle {
                f(&s)
            } else {
                f(&l)
            }
        }
        _ if tokio => f(&native::tokio_stack()),
        _ => {
            let (l, s) = native::stacks();
            if shuttle {
                f(&s)
            } else {
                f(&l)
            }
        }
    }
}

/// One part of a line, on a subject of any type.
trait Part {
    /// Phase 1 of `matrix`: `"executions ms"`.
    fn phase1(&self, matrix: &TestMatrix) -> String;
    /// The default check: `"seconds verdict"`.
    fn default_check(&self) -> String;
    /// `lineup::check` of `matrix` at `Config::default()`: `"verdict ms"`.
    fn matrix_check(&self, matrix: &TestMatrix) -> String;
    /// `matrix` written with the invocations' labels.
    fn notation(&self, matrix: &TestMatrix) -> String;
}

impl<O: Send + Sync + 'static> Part for Subject<O> {
    fn phase1(&self, matrix: &TestMatrix) -> String {
        let config = Config {
            workers: 1,
            ..Config::default()
        };
        let start = Instant::now();
        match synthesize_spec(self, matrix, &config) {
            Ok(s) => format!("{} {:.1}", s.executions, start.elapsed().as_secs_f64() * 1e3),
            Err(e) => format!("error {}", e.to_string().replace('\n', " ")),
        }
    }

    fn notation(&self, matrix: &TestMatrix) -> String {
        let labels = self.labels();
        matrix
            .threads
            .iter()
            .map(|t| t.iter().map(|&i| labels[i].to_string()).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join(" | ")
    }

    fn matrix_check(&self, matrix: &TestMatrix) -> String {
        let start = Instant::now();
        let verdict = match lineup::check(self, matrix, &Config::default()) {
            Ok(v) if v.is_pass() => "PASS",
            Ok(_) => "FAIL",
            Err(_) => "ERROR",
        };
        format!("{verdict} {:.1}", start.elapsed().as_secs_f64() * 1e3)
    }

    fn default_check(&self) -> String {
        let start = Instant::now();
        let outcome = LineupTest::new(&format!("native::{}", self.name()))
            .seed(1)
            .check_subject(self);
        // Only a violation is a FAIL: a check without a verdict (out of time, inconclusive, an
        // error) is said as such, never counted as either.
        let verdict = match outcome {
            Ok(_) => "PASS",
            Err(lineup::TestFailure::Violation { .. }) => "FAIL",
            Err(_) => "INCONCLUSIVE",
        };
        format!("{:.2} {verdict}", start.elapsed().as_secs_f64())
    }
}

fn matrix(i: usize) -> TestMatrix {
    TestMatrix::new(LINES[i].2.iter().map(|c| c.to_vec()).collect())
}

/// In a child process: prints part `part` (`phase1` or `check`) of line `i`.
pub fn child(part: &str, i: usize) {
    let out = with_subject(i, &mut |s| match part {
        "phase1" => s.phase1(&matrix(i)),
        "matrix" => s.matrix_check(&matrix(i)),
        _ => s.default_check(),
    });
    println!("{out}");
}

/// Runs part `part` of line `i` in a child process for at most [`CAP`]: its output, or `None`.
fn capped(part: &str, i: usize) -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let mut child = Command::new(exe)
        .args(["native-part", part, &i.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        if child.try_wait().ok()?.is_some() {
            let mut out = String::new();
            child.stdout.take()?.read_to_string(&mut out).ok()?;
            return Some(out.trim().to_string());
        }
        if start.elapsed() > CAP {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Prints the `native` lines.
pub fn run() {
    for (i, &(object, primitives, columns, expected)) in LINES.iter().enumerate() {
        let labels = with_subject(i, &mut |s| s.notation(&matrix(i)));
        let matrix_text = format!("{}x{} {labels}", columns.len(), columns[0].len());
        let (executions, ms) = match capped("phase1", i) {
            Some(out) => match out.split_once(' ') {
                Some(("error", e)) => (
                    format!("null,\"phase1_error\":{}", serde_json::to_string(e).unwrap()),
                    "null".into(),
                ),
                Some((e, ms)) => (e.to_string(), ms.to_string()),
                None => ("null".into(), "null".into()),
            },
            None => ("null".into(), format!("null,\"phase1_capped_s\":{}", CAP.as_secs())),
        };
        let (matrix_verdict, matrix_ms) = match capped("matrix", i).as_deref().and_then(|o| o.split_once(' ')) {
            Some((v, ms)) => (format!("\"{v}\""), ms.to_string()),
            None => ("null".into(), format!("null,\"matrix_capped_s\":{}", CAP.as_secs())),
        };
        let (seconds, verdict) = match capped("check", i).as_deref().and_then(|o| o.split_once(' ')) {
            Some((s, v)) => (s.to_string(), format!("\"{v}\"")),
            None => (format!("null,\"check_capped_s\":{}", CAP.as_secs()), "null".into()),
        };
        println!(
            "{{\"bench\":\"native\",\"object\":\"{object}\",\"primitives\":\"{primitives}\",\"matrix\":\"{matrix_text}\",\
             \"phase1_executions\":{executions},\"phase1_ms\":{ms},\"default_check_s\":{seconds},\"verdict\":{verdict},\"matrix_verdict\":{matrix_verdict},\"matrix_check_ms\":{matrix_ms},\"expected\":\"{expected}\"}}"
        );
    }
}
