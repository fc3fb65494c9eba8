//! Measures phase 1 (every serial execution) on the replicated register: a primary and two
//! backup actor tasks over `tokio::sync::mpsc`, run by shuttle-tokio. Phase 1 is exact, so every
//! schedule of the idle actors inside each serial operation is run. Not a fix: the numbers a
//! partial-order reduction is to bring down.
//!
//! ```sh
//! cargo run --release -p lineup-actors --features shuttle --example phase1_cost -- read
//! cargo run --release -p lineup-actors --features shuttle --example phase1_cost -- write
//! cargo run --release -p lineup-actors --features shuttle --example phase1_cost -- 2x2
//! ```
//!
//! Prints one JSON line per matrix: the serial executions, the distinct serial histories, the
//! time, or the error (a memory budget exceeded). Stop a run that takes too long with `timeout`.

use lineup::{synthesize_spec, Config, Invocation, Subject, TestMatrix};
use lineup_actors::cached_register::{CachedRegister, Invalidation};
use lineup_actors::replicated_register::ReplicatedRegister;

/// Invocations 0 `write(1)`, 1 `write(2)`, 2 `read()`.
fn subject() -> Subject<ReplicatedRegister> {
    Subject::new("ReplicatedRegister", ReplicatedRegister::new)
        .with(Invocation::new_async("write", async |r: &ReplicatedRegister| r.write(1).await).arg(1))
        .with(Invocation::new_async("write", async |r: &ReplicatedRegister| r.write(2).await).arg(2))
        .with(Invocation::new_async("read", ReplicatedRegister::read))
}

/// The cached register (one actor): 0 `swap(1)`, 1 `swap(2)`, 2 `read()`.
fn cached() -> Subject<CachedRegister> {
    Subject::new("CachedRegister", || CachedRegister::new(Invalidation::WhileLocked))
        .with(Invocation::new_async("swap", async |r: &CachedRegister| r.swap(1).await).arg(1))
        .with(Invocation::new_async("swap", async |r: &CachedRegister| r.swap(2).await).arg(2))
        .with(Invocation::new_async("read", CachedRegister::read))
}

fn main() {
    let which: Vec<String> = std::env::args().skip(1).collect();
    let which = if which.is_empty() {
        vec!["read".to_string()]
    } else {
        which
    };
    for name in which {
        let matrix = match name.as_str() {
            "read" => TestMatrix::new(vec![vec![2]]),
            "write" => TestMatrix::new(vec![vec![0]]),
            "1x2" => TestMatrix::new(vec![vec![0], vec![2]]),
            "2x2" => TestMatrix::new(vec![vec![0, 2], vec![1, 2]]),
            other => panic!("unknown matrix `{other}`: read, write, 1x2 or 2x2"),
        };
        let started = std::time::Instant::now();
        let outcome = if std::env::var_os("CACHED").is_some() {
            synthesize_spec(&cached(), &matrix, &Config::default())
        } else {
            synthesize_spec(&subject(), &matrix, &Config::default())
        };
        match outcome {
            Ok(synthesis) => println!(
                "{{\"matrix\":\"{name}\",\"serial_executions\":{},\"serial_histories\":{},\"ms\":{}}}",
                synthesis.executions,
                synthesis.spec.len(),
                synthesis.elapsed.as_millis()
            ),
            Err(e) => println!(
                "{{\"matrix\":\"{name}\",\"error\":{:?},\"ms\":{}}}",
                e.to_string(),
                started.elapsed().as_millis()
            ),
        }
    }
}
