//! Every recorded history in the repository's `data/histories` gets the verdict `verdicts.tsv`
//! gives it.
//!
//! The corpus is read from `<repo>/data/histories` (porcupine's histories, with its license
//! notice), or from the folder `LINEUP_HISTORY_CORPUS` names. A missing corpus fails the tests:
//! it is never skipped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use lineup_histories::formats::{parse_file, parse_str, to_jsonl, Format, ModelKind, RawHistory, RawOutcome, RawStep};
use lineup_histories::{CheckOptions, CheckOutcome};

fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("LINEUP_HISTORY_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/histories")));
    assert!(
        dir.join("verdicts.tsv").is_file(),
        "the history corpus is missing: no verdicts.tsv in {} (it lives in data/histories in \
         the repository; set LINEUP_HISTORY_CORPUS to its folder)",
        dir.display()
    );
    dir
}

/// `(relative path, linearizable)` from `verdicts.tsv`.
fn verdicts(dir: &Path) -> Vec<(String, bool)> {
    let text = std::fs::read_to_string(dir.join("verdicts.tsv")).expect("read verdicts.tsv");
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    assert_eq!(lines.next(), Some("file\tlinearizable"), "verdicts.tsv header");
    lines
        .map(|line| {
            let (file, verdict) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("verdicts.tsv line `{line}`"));
            let verdict = match verdict {
                "true" => true,
                "false" => false,
                other => panic!("verdicts.tsv: `{other}` is not true/false"),
            };
            (file.to_string(), verdict)
        })
        .collect()
}

/// The model and format of a corpus file, by its folder.
fn model_of(file: &str) -> (ModelKind, Format) {
    match file.split('/').next() {
        Some("etcd") => (ModelKind::Register, Format::JepsenLog),
        Some("kv") => (ModelKind::Kv, Format::Edn),
        _ => panic!("no model for corpus file {file}"),
    }
}

/// Every history file under the corpus folders, relative to the corpus.
fn present_files(dir: &Path) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    for sub in std::fs::read_dir(dir).expect("read the corpus folder") {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&sub).expect("read a corpus subfolder") {
            let file = file.unwrap().path();
            let relative = file.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
            files.insert(relative);
        }
    }
    files
}

#[test]
fn every_listed_file_exists_and_every_file_is_listed() {
    let dir = corpus_dir();
    let listed: BTreeSet<String> = verdicts(&dir).into_iter().map(|(f, _)| f).collect();
    let present = present_files(&dir);
    let missing: Vec<_> = listed.difference(&present).collect();
    let unlisted: Vec<_> = present.difference(&listed).collect();
    assert!(missing.is_empty(), "listed in verdicts.tsv but missing: {missing:?}");
    assert!(unlisted.is_empty(), "present but not in verdicts.tsv: {unlisted:?}");
    assert!(!listed.is_empty(), "verdicts.tsv lists no file");
}

#[test]
fn every_file_gets_its_verdict() {
    let dir = corpus_dir();
    let mut wrong = Vec::new();
    let (mut pass, mut fail) = (0, 0);
    for (file, linearizable) in verdicts(&dir) {
        let (model, format) = model_of(&file);
        let path = dir.join(&file);
        let (raw, detected) = parse_file(&path, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(detected, format, "{file}: format detection");
        let checked = model
            .check(&raw, &path, &CheckOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        match &checked.report.outcome {
            CheckOutcome::Linearizable { order } => {
                pass += 1;
                // Every operation that returned is in the linearization.
                let returned = raw
                    .operations
                    .iter()
                    .filter(|op| matches!(op.outcome, RawOutcome::Returned(_)))
                    .count();
                assert!(order.len() >= returned, "{file}: linearization too short");
                if !linearizable {
                    wrong.push(format!("{file}: expected a violation, got PASS"));
                }
            }
            CheckOutcome::NotLinearizable(violation) => {
                fail += 1;
                assert!(
                    !violation.unplaced.is_empty() || violation.blocking.is_some(),
                    "{file}: empty explanation"
                );
                if linearizable {
                    wrong.push(format!("{file}: expected PASS, got a violation:\n{violation}"));
                }
            }
            CheckOutcome::Unknown { reason } => wrong.push(format!("{file}: no verdict without limits: {reason}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        pass > 0 && fail > 0,
        "the corpus has both verdicts ({pass} pass, {fail} fail)"
    );
}

/// The one-client kv histories have the same verdict checked whole as partitioned by key. (The
/// ten-client ones take about 10 s each whole in a debug build, 250,000 configurations; the
/// benchmark `cargo run --release -p lineup-bench -- histories` checks them whole, in release.)
#[test]
fn one_client_kv_files_get_the_same_verdict_unpartitioned() {
    let dir = corpus_dir();
    let files: Vec<_> = verdicts(&dir)
        .into_iter()
        .filter(|(f, _)| f.starts_with("kv/c01"))
        .collect();
    assert!(!files.is_empty(), "no kv/c01 history in verdicts.tsv");
    for (file, linearizable) in files {
        let path = dir.join(&file);
        let (raw, _) = parse_file(&path, Some(Format::Edn)).unwrap();
        let options = CheckOptions::default().with_partitioning(false);
        let checked = ModelKind::Kv.check(&raw, &path, &options).unwrap();
        assert_eq!(checked.report.stats.partitions, 1, "{file}: checked whole");
        assert_eq!(
            checked.report.outcome.is_linearizable(),
            linearizable,
            "{file} unpartitioned"
        );
        assert!(!checked.report.outcome.is_unknown(), "{file}");
    }
}

/// The events of a history in real-time order, without file lines: what a check sees.
fn events(history: &RawHistory) -> Vec<String> {
    history
        .steps
        .iter()
        .filter_map(|step| match *step {
            RawStep::Call(i) => {
                let op = &history.operations[i];
                (op.outcome != RawOutcome::NotApplied).then(|| {
                    format!(
                        "call {} {} {:?} {} -> {:?}",
                        op.client, op.function, op.key, op.argument, op.outcome
                    )
                })
            }
            RawStep::Return(i) => Some(format!("return {}", history.operations[i].client)),
        })
        .collect()
}

/// Written as lineup JSON lines and read back, every corpus file has the same events, and the
/// JSON lines are a fixed point.
#[test]
fn every_file_survives_json_lines() {
    let dir = corpus_dir();
    for (file, _) in verdicts(&dir) {
        let (_, format) = model_of(&file);
        let path = dir.join(&file);
        let (raw, _) = parse_file(&path, Some(format)).unwrap();
        let jsonl = to_jsonl(&raw);
        let again = parse_str(&jsonl, Format::Jsonl, format!("{file}.jsonl")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            events(&again),
            events(&raw),
            "{file}: the same events through JSON lines"
        );
        assert_eq!(to_jsonl(&again), jsonl, "{file}: JSON lines are a fixed point");
    }
}
