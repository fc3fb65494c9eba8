//! `lineup check-history`: the verdict on each history file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use lineup_core::report_html::{Picture, Section};
use lineup_histories::formats::{parse_file, CheckedHistory, Format, ModelKind};
use lineup_histories::{CheckOptions, CheckOutcome, MemoryLimit};

/// The model to check against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// Read, write, compare-and-set on one register (initially nil).
    Register,
    /// get, put, append on a map of strings (P-compositional by key).
    Kv,
    /// insert, remove, contains (P-compositional by element).
    Set,
    /// enqueue, dequeue (FIFO).
    Queue,
    /// push, pop (LIFO).
    Stack,
    /// increment, add, get.
    Counter,
}

impl From<ModelArg> for ModelKind {
    fn from(model: ModelArg) -> ModelKind {
        match model {
            ModelArg::Register => ModelKind::Register,
            ModelArg::Kv => ModelKind::Kv,
            ModelArg::Set => ModelKind::Set,
            ModelArg::Queue => ModelKind::Queue,
            ModelArg::Stack => ModelKind::Stack,
            ModelArg::Counter => ModelKind::Counter,
        }
    }
}

/// The format of the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Tell each file's format from its first non-empty line.
    Auto,
    /// Jepsen log lines: `INFO  jepsen.util - <process>\t<type>\t<f>\t<value>`.
    Etcd,
    /// EDN maps, one per line: `{:process 0, :type :invoke, :f :get, :key "k", :value nil}`.
    Edn,
    /// lineup JSON lines: `{"client":0,"type":"call","op":"put","key":"k","value":"v"}`.
    Jsonl,
}

impl FormatArg {
    fn format(self) -> Option<Format> {
        match self {
            FormatArg::Auto => None,
            FormatArg::Etcd => Some(Format::JepsenLog),
            FormatArg::Edn => Some(Format::Edn),
            FormatArg::Jsonl => Some(Format::Jsonl),
        }
    }
}

/// Arguments of `lineup check-history`.
#[derive(Args, Debug)]
pub struct CheckHistoryArgs {
    /// The model the histories are checked against.
    #[arg(long, value_enum)]
    model: ModelArg,
    /// The files' format.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    /// Check P-compositional models (kv, set) whole instead of per key.
    #[arg(long)]
    no_partition: bool,
    /// Give up on a file after this many seconds (its verdict is then UNKNOWN).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    time_limit: Option<Duration>,
    /// The memory budget of a check: bytes, or with a suffix K, M or G (KiB, MiB, GiB), or
    /// `unlimited`; past it the verdict is UNKNOWN. Default: half of the memory available (read
    /// when a check first holds about 16 MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    max_memory: Option<MemoryLimit>,
    /// Also print the linearization found for a linearizable file.
    #[arg(long)]
    explain: bool,
    /// Also write a self-contained HTML report (open it in a browser) to this file: one section
    /// per failing file (its failing partition), one lane per client, the longest linearizable
    /// prefix and the operation that cannot be placed next highlighted, the model's states on
    /// hover.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The history files.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("expected a number of seconds, found `{text}`"))?;
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("expected a non-negative number of seconds, found `{text}`"))
}

fn parse_memory(text: &str) -> Result<MemoryLimit, String> {
    if text == "unlimited" {
        return Ok(MemoryLimit::Unlimited);
    }
    let (number, unit) = match text.char_indices().last() {
        Some((at, c)) if c.is_ascii_alphabetic() => (&text[..at], c.to_ascii_uppercase()),
        _ => (text, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => {
            return Err(format!(
                "expected a size such as `512M`, `2G` or `unlimited`, found `{text}`"
            ))
        }
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("expected a size such as `512M`, `2G` or `unlimited`, found `{text}`"))?;
    Ok(MemoryLimit::Bytes((value * (1u64 << shift) as f64) as u64))
}

/// What became of one file.
enum FileResult {
    Pass,
    Fail,
    Unknown,
    Error,
}

/// Runs `lineup check-history`.
pub fn run(args: &CheckHistoryArgs) -> ExitCode {
    let model = ModelKind::from(args.model);
    let mut options = CheckOptions::default().with_partitioning(!args.no_partition);
    if let Some(limit) = args.time_limit {
        options = options.with_time_limit(limit);
    }
    if let Some(limit) = args.max_memory {
        options = options.with_memory_limit(limit);
    }
    let mut results = Vec::new();
    let mut sections = Vec::new();
    let stdout = std::io::stdout();
    for file in &args.files {
        let mut out = stdout.lock();
        let (result, section) = check_file(file, model, args.format.format(), &options, args.explain, &mut out);
        let _ = out.flush();
        results.push(result);
        sections.extend(section);
    }
    let mut html_failed = false;
    if let Some(path) = &args.html {
        match write_html(path, model, &args.files, &results, sections) {
            Ok(()) => println!("html report: {}", path.display()),
            Err(error) => {
                eprintln!(
                    "lineup: error: cannot write the HTML report {}: {error}",
                    path.display()
                );
                html_failed = true;
            }
        }
    }
    if results.iter().any(|r| matches!(r, FileResult::Fail)) {
        ExitCode::from(1)
    } else if results
        .iter()
        .any(|r| matches!(r, FileResult::Unknown | FileResult::Error))
        || html_failed
    {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes the HTML report: one section per failing file, and a line for each other file.
fn write_html(
    path: &Path,
    model: ModelKind,
    files: &[PathBuf],
    results: &[FileResult],
    sections: Vec<Section>,
) -> std::io::Result<()> {
    let count = |wanted: fn(&FileResult) -> bool| results.iter().filter(|r| wanted(r)).count();
    let summary = format!(
        "lineup check-history --model {model}: {} files, {} not linearizable, {} linearizable, {} unknown, {} \
         unreadable",
        files.len(),
        count(|r| matches!(r, FileResult::Fail)),
        count(|r| matches!(r, FileResult::Pass)),
        count(|r| matches!(r, FileResult::Unknown)),
        count(|r| matches!(r, FileResult::Error)),
    );
    let mut sections = sections;
    if sections.is_empty() {
        sections.push(Section {
            heading: "no file is shown to be not linearizable".into(),
            notes: files
                .iter()
                .zip(results)
                .map(|(file, result)| format!("{}: {}", result.word(), file.display()))
                .collect(),
            ..Section::default()
        });
    }
    let picture = Picture {
        title: "lineup check-history".into(),
        summary,
        sections,
    };
    std::fs::write(path, picture.to_html())
}

impl FileResult {
    fn word(&self) -> &'static str {
        match self {
            FileResult::Pass => "PASS",
            FileResult::Fail => "FAIL",
            FileResult::Unknown => "UNKNOWN",
            FileResult::Error => "ERROR",
        }
    }
}

fn check_file(
    file: &Path,
    model: ModelKind,
    format: Option<Format>,
    options: &CheckOptions,
    explain: bool,
    out: &mut impl Write,
) -> (FileResult, Option<Section>) {
    let start = Instant::now();
    let checked = parse_file(file, format)
        .and_then(|(raw, format)| model.check(&raw, file, options).map(|checked| (checked, format)));
    let (checked, format) = match checked {
        Ok(checked) => checked,
        Err(error) => {
            let _ = writeln!(out, "ERROR {}", file.display());
            eprintln!("lineup: error: {error}");
            return (FileResult::Error, None);
        }
    };
    let elapsed = start.elapsed();
    let CheckedHistory {
        report,
        operations,
        call_lines,
        picture,
    } = &checked;
    let word = match report.outcome {
        CheckOutcome::Linearizable { .. } => "PASS",
        CheckOutcome::NotLinearizable(_) => "FAIL",
        CheckOutcome::Unknown { .. } => "UNKNOWN",
    };
    let _ = writeln!(
        out,
        "{word} {} ({model}, {format}, {operations} ops, {} partitions, {:.6} s)",
        file.display(),
        report.stats.partitions,
        elapsed.as_secs_f64()
    );
    match &report.outcome {
        CheckOutcome::Linearizable { order } => {
            if explain {
                let _ = writeln!(
                    out,
                    "  linearization ({} operations; op#id@line of its call):",
                    order.len()
                );
                for chunk in order.chunks(12) {
                    let items: Vec<String> = chunk.iter().map(|id| format!("{id}@{}", call_lines[id.0])).collect();
                    let _ = writeln!(out, "    {}", items.join(" "));
                }
            }
            (FileResult::Pass, None)
        }
        CheckOutcome::Unknown { reason } => {
            let _ = writeln!(out, "  no verdict: {reason}");
            let _ = writeln!(
                out,
                "  explored: {} configurations in {} steps, {:.1} MiB held at most",
                report.stats.cache_entries,
                report.stats.steps,
                report.stats.peak_memory as f64 / (1u64 << 20) as f64
            );
            (FileResult::Unknown, None)
        }
        CheckOutcome::NotLinearizable(violation) => {
            for line in violation.to_string().lines() {
                let _ = writeln!(out, "  {line}");
            }
            let mut cited: Vec<_> = violation.timeline.ops.iter().map(|op| op.id).collect();
            cited.sort_unstable();
            let lines: Vec<String> = cited.iter().map(|id| format!("{id}@{}", call_lines[id.0])).collect();
            let _ = writeln!(
                out,
                "  operations shown, with the line of their call in {}: {}",
                file.display(),
                lines.join(" ")
            );
            (FileResult::Fail, picture.clone())
        }
    }
}
