//! Phase 1 once, phase 2 from a file: the observation file workflow (paper §4.2, Fig. 7).
//!
//! `cargo run --release --example observation_file [PATH]`
//!
//! Synthesizes the specification of the correct `BlockingQueue` on the matrix
//! `[add(200), try_take()] | [take(), add(400)]` (a `take` on an empty queue blocks, so the
//! specification has full and stuck serial histories), writes it as an observation file to `PATH`
//! (default `observations/blocking_queue_2x2.xml`), reads it back, and runs phase 2 against the
//! specification read from the file.

#[path = "objects/mod.rs"]
mod objects;

use std::path::PathBuf;
use std::process::ExitCode;

use lineup::observation_file::{read_observation_file, write_observation_file};
use lineup::{check_against_spec, synthesize_spec, Config, TestMatrix, Verdict};
use objects::queues::blocking_queue;

fn main() -> ExitCode {
    let path = PathBuf::from(
        std::env::args_os()
            .nth(1)
            .unwrap_or_else(|| "observations/blocking_queue_2x2.xml".into()),
    );
    let subject = blocking_queue();
    // add(200), try_take() | take(), add(400)
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![3, 1]]);
    let config = Config::default();

    let synthesis = match synthesize_spec(&subject, &matrix, &config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("observation_file: phase 1 failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some((nondeterminism, token)) = &synthesis.nondeterminism {
        eprintln!(
            "observation_file: `{}` is nondeterministic at operation {} (replay {token})",
            subject.name(),
            nondeterminism.op
        );
        return ExitCode::FAILURE;
    }
    println!(
        "phase 1: {} serial executions, {} full and {} stuck serial histories in {} observation groups ({:.1?})",
        synthesis.executions,
        synthesis.spec.full_count(),
        synthesis.spec.stuck_count(),
        synthesis.spec.observations().len(),
        synthesis.elapsed
    );

    if let Err(e) = write_observation_file(&path, &synthesis.spec) {
        eprintln!("observation_file: {e}");
        return ExitCode::FAILURE;
    }
    println!("wrote {}", path.display());

    let spec = match read_observation_file(&path) {
        Ok(spec) => spec,
        Err(e) => {
            eprintln!("observation_file: {e}");
            return ExitCode::FAILURE;
        }
    };
    if spec != synthesis.spec {
        eprintln!(
            "observation_file: {} does not read back as the specification written",
            path.display()
        );
        return ExitCode::FAILURE;
    }
    println!("read {} back: the same specification", path.display());

    match check_against_spec(&subject, &matrix, &spec, &config) {
        Ok(Verdict::Pass(s)) => {
            println!(
                "lineup: PASS: `{}` against {}: phase 2 {} executions ({} distinct histories, {} stuck) in {:.1?} \
                 at preemption bound {}",
                subject.name(),
                path.display(),
                s.concurrent_executions,
                s.distinct_histories,
                s.stuck_histories,
                s.phase2_time,
                s.preemption_bound
            );
            ExitCode::SUCCESS
        }
        Ok(Verdict::Fail(violation)) => {
            println!("{violation}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("observation_file: phase 2 failed: {e}");
            ExitCode::FAILURE
        }
    }
}
