//! `cargo run --release -p lineup-bench -- histories [--seed S] [--unpartitioned-time-limit SECS]
//! [--unpartitioned-max-entries N] [--unpartitioned-max-heap-gib G] [--skip-unpartitioned]`
//!
//! Checking recorded histories, one JSON object per line:
//!
//! * `histories_corpus` (etcd, kv, and kv checked whole): every file of
//!   the repository's `data/histories` (or `LINEUP_HISTORY_CORPUS`), total and largest check time;
//!   every verdict must be the one in `verdicts.tsv` (asserted).
//! * `histories_hk_record`: the Horn–Kroening workload: 4 threads × 70,000 random
//!   `insert`/`remove`/`contains` on keys in `[0, 24)` (560,000 events) on a correct concurrent
//!   set (a `std::sync::Mutex<HashSet<u8>>`), recorded on real threads by the stress-mode
//!   recorder, from a printed seed.
//! * `histories_hk_check`: that history checked with P-compositional partitioning and without,
//!   in the same run: time, peak heap and figures of each. The check without partitioning runs
//!   under a time limit (default 120 s), a cache-entry limit (default 5,000,000 configurations)
//!   and a heap limit (default 8 GiB, watched every 20 ms; past it the benchmark prints that
//!   check's line with an unknown verdict and ends, as it is its last step), so it reports
//!   "unknown" rather than running forever or exhausting the machine's memory.
//!
//! Peak memory is measured by a counting global allocator (this binary's): the peak of live
//! heap bytes during a check, minus the live bytes when it started (the recorded history
//! itself is not counted). Target with partitioning: ≤ 5 s and ≤ 400 MiB.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lineup::histories::formats::{parse_file, Format, ModelKind};
use lineup::histories::models::{SetInput, SetModel};
use lineup::histories::stress::{StressRecording, StressTest};
use lineup::histories::{check_partitioned, CheckOptions, CheckOutcome, CheckReport, History};
use lineup::{Invocation, InvocationLabel, Response, Subject};

/// The system allocator, counting live and peak heap bytes while [`COUNTING`] is on.
struct CountingAllocator;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to the system allocator, which upholds `GlobalAlloc`'s contract;
// the counting touches only atomics and never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count_alloc(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count_alloc(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) };
        count_free(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            count_free(layout.size());
            count_alloc(new_size);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[inline]
fn count_alloc(size: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
}

#[inline]
fn count_free(size: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        // Blocks allocated before counting began may be freed: saturate at zero.
        let _ = LIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |live| {
            Some(live.saturating_sub(size))
        });
    }
}

/// Runs `f` with the allocator counting from zero; returns its result and the peak of heap
/// bytes it allocated and still held at some point.
fn measure_peak_heap<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LIVE.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    let result = f();
    COUNTING.store(false, Ordering::SeqCst);
    (result, PEAK.load(Ordering::SeqCst))
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The process's peak resident set (`VmHWM`), if the system reports it.
fn vm_hwm_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

struct Settings {
    seed: u64,
    unpartitioned_limit: Duration,
    unpartitioned_max_entries: usize,
    unpartitioned_max_heap: usize,
    skip_unpartitioned: bool,
}

fn parse_settings(args: &[String]) -> Result<Settings, String> {
    let mut settings = Settings {
        seed: 20150101,
        unpartitioned_limit: Duration::from_secs(120),
        unpartitioned_max_entries: 5_000_000,
        unpartitioned_max_heap: 8 << 30,
        skip_unpartitioned: false,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = |what: &str| args.next().ok_or_else(|| format!("{flag} takes {what}")).cloned();
        match flag.as_str() {
            "--seed" => settings.seed = value("a seed")?.parse().map_err(|_| "--seed takes a whole number")?,
            "--unpartitioned-time-limit" => {
                let secs: f64 = value("seconds")?
                    .parse()
                    .map_err(|_| "--unpartitioned-time-limit takes seconds")?;
                settings.unpartitioned_limit =
                    Duration::try_from_secs_f64(secs).map_err(|_| "--unpartitioned-time-limit: not a duration")?;
            }
            "--unpartitioned-max-entries" => {
                settings.unpartitioned_max_entries = value("a count")?
                    .parse()
                    .map_err(|_| "--unpartitioned-max-entries takes a whole number")?;
            }
            "--unpartitioned-max-heap-gib" => {
                let gib: f64 = value("GiB")?
                    .parse()
                    .map_err(|_| "--unpartitioned-max-heap-gib takes a number")?;
                settings.unpartitioned_max_heap = (gib * (1u64 << 30) as f64) as usize;
            }
            "--skip-unpartitioned" => settings.skip_unpartitioned = true,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(settings)
}

/// `lineup-bench histories [options]`.
pub fn run(args: &[String]) {
    let settings = parse_settings(args).unwrap_or_else(|e| {
        eprintln!(
            "lineup-bench histories: {e}\nusage: lineup-bench histories [--seed S] [--unpartitioned-time-limit SECS] \
             [--unpartitioned-max-entries N] [--unpartitioned-max-heap-gib G] [--skip-unpartitioned]"
        );
        std::process::exit(2)
    });
    corpus();
    horn_kroening(&settings);
}

fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("LINEUP_HISTORY_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/histories")));
    assert!(
        dir.join("verdicts.tsv").is_file(),
        "the history corpus is missing: no verdicts.tsv in {} (set LINEUP_HISTORY_CORPUS)",
        dir.display()
    );
    dir
}

/// The figures of each corpus run before issue 12's "faster" work (commit 2c951c5, this
/// machine): total milliseconds (parse + check), steps.
const BASELINE: [(f64, u64); 3] = [(311.236, 1_265_906), (11.644, 710), (4109.577, 2_165_080)];

/// Checks every file of one corpus folder; asserts the verdicts.
fn corpus() {
    let dir = corpus_dir();
    let text = std::fs::read_to_string(dir.join("verdicts.tsv")).expect("read verdicts.tsv");
    let verdicts: Vec<(String, bool)> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (file, verdict) = l.split_once('\t').expect("verdicts.tsv: file<TAB>verdict");
            (file.to_string(), verdict == "true")
        })
        .collect();
    let runs: [(&str, &str, ModelKind, Format, bool); 3] = [
        ("etcd", "etcd/", ModelKind::Register, Format::JepsenLog, true),
        ("kv", "kv/", ModelKind::Kv, Format::Edn, true),
        ("kv", "kv/", ModelKind::Kv, Format::Edn, false),
    ];
    for (index, (corpus, prefix, model, format, partition)) in runs.into_iter().enumerate() {
        let files: Vec<&(String, bool)> = verdicts.iter().filter(|(f, _)| f.starts_with(prefix)).collect();
        let options = CheckOptions::default().with_partitioning(partition);
        let mut total = Duration::ZERO;
        let (mut steps, mut cache_entries) = (0u64, 0usize);
        let mut max = (Duration::ZERO, String::new());
        let (mut linearizable, mut violations, mut operations) = (0, 0, 0);
        for (file, expected) in &files {
            let path = dir.join(file);
            let start = Instant::now();
            let (raw, _) = parse_file(&path, Some(format)).unwrap_or_else(|e| panic!("{e}"));
            let checked = model.check(&raw, &path, &options).unwrap_or_else(|e| panic!("{e}"));
            let elapsed = start.elapsed();
            operations += checked.operations;
            steps += checked.report.stats.steps;
            cache_entries += checked.report.stats.cache_entries;
            total += elapsed;
            if elapsed > max.0 {
                max = (elapsed, file.clone());
            }
            let got = match checked.report.outcome {
                CheckOutcome::Linearizable { .. } => {
                    linearizable += 1;
                    true
                }
                CheckOutcome::NotLinearizable(_) => {
                    violations += 1;
                    false
                }
                CheckOutcome::Unknown { ref reason } => panic!("{file}: no verdict: {reason}"),
            };
            assert_eq!(got, *expected, "{file}: verdict differs from verdicts.tsv");
        }
        assert!(!files.is_empty(), "no {corpus} files in verdicts.tsv");
        let (baseline_ms, baseline_steps) = BASELINE[index];
        println!(
            "{{\"bench\":\"histories_corpus\", \"corpus\":\"{corpus}\", \"partitioned\":{partition}, \"files\":{}, \
             \"operations\":{operations}, \"linearizable\":{linearizable}, \"violations\":{violations}, \
             \"verdicts_as_expected\":true, \"total_ms\":{:.3}, \"max_ms\":{:.3}, \"max_file\":\"{}\", \
             \"steps\":{steps}, \"cache_entries\":{cache_entries}, \"baseline_total_ms\":{baseline_ms:.3}, \
             \"baseline_steps\":{baseline_steps}, \"speedup\":{:.1}}}",
            files.len(),
            total.as_secs_f64() * 1e3,
            max.0.as_secs_f64() * 1e3,
            max.1,
            baseline_ms / (total.as_secs_f64() * 1e3),
        );
    }
}

/// The number of keys of the Horn–Kroening workload.
const KEYS: u8 = 24;

/// A correct concurrent set of small integers: one `std` mutex around a `HashSet`.
fn mutex_set() -> Subject<Mutex<HashSet<u8>>> {
    let mut subject = Subject::new("Mutex<HashSet<u8>>", || Mutex::new(HashSet::new()));
    for key in 0..KEYS {
        subject = subject
            .with(Invocation::new("insert", move |s: &Mutex<HashSet<u8>>| s.lock().unwrap().insert(key)).arg(key))
            .with(Invocation::new("remove", move |s: &Mutex<HashSet<u8>>| s.lock().unwrap().remove(&key)).arg(key))
            .with(
                Invocation::new("contains", move |s: &Mutex<HashSet<u8>>| {
                    s.lock().unwrap().contains(&key)
                })
                .arg(key),
            );
    }
    subject
}

fn set_operation(label: &InvocationLabel, response: &Response) -> Result<(SetInput<u8>, bool), String> {
    let result = match response {
        Response::Returned(text) if text == "true" => true,
        Response::Returned(text) if text == "false" => false,
        other => return Err(format!("not a boolean: {other}")),
    };
    let key: u8 = label.args[0].parse().map_err(|_| format!("{label}: not a key"))?;
    let input = match label.name.as_str() {
        "insert" => SetInput::Insert(key),
        "remove" => SetInput::Remove(key),
        "contains" => SetInput::Contains(key),
        other => return Err(format!("no set operation `{other}`")),
    };
    Ok((input, result))
}

fn horn_kroening(settings: &Settings) {
    let (threads, ops) = (4, 70_000);
    let recording: StressRecording = StressTest::new(mutex_set())
        .threads(threads)
        .ops_per_thread(ops)
        .seed(settings.seed)
        .run();
    let start = Instant::now();
    let history: History<SetInput<u8>, bool> = recording.history(set_operation).unwrap_or_else(|e| panic!("{e}"));
    let convert = start.elapsed();
    let overlap = Overlap::of(&history);
    println!(
        "{{\"bench\":\"histories_hk_record\", \"object\":\"{}\", \"threads\":{threads}, \"ops_per_thread\":{ops}, \
         \"operations\":{}, \"events\":{}, \"keys\":{KEYS}, \"seed\":{}, \"record_s\":{:.3}, \"to_history_s\":{:.3}, \
         \"concurrent_with_mean\":{:.2}, \"concurrent_with_max\":{}, \"max_pending\":{}}}",
        recording.subject,
        history.len(),
        2 * history.len(),
        recording.seed.expect("a random matrix has a seed"),
        recording.elapsed.as_secs_f64(),
        convert.as_secs_f64(),
        overlap.mean,
        overlap.max,
        overlap.max_pending
    );
    drop(recording);

    let model = SetModel::<u8>::new();
    let partitioned = CheckOptions::default();
    let (report, peak) =
        measure_peak_heap(|| check_partitioned(&model, &history, &partitioned).expect("every set operation has a key"));
    hk_line(true, &report, peak, None);
    assert!(
        report.outcome.is_linearizable(),
        "a Mutex<HashSet> must be linearizable:\n{}",
        report.outcome
    );

    if settings.skip_unpartitioned {
        return;
    }
    let whole = CheckOptions::default()
        .with_partitioning(false)
        .with_time_limit(settings.unpartitioned_limit)
        .with_max_cache_entries(settings.unpartitioned_max_entries);
    let done = AtomicBool::new(false);
    let (report, peak) = std::thread::scope(|scope| {
        scope.spawn(|| heap_watchdog(&done, settings));
        let result = measure_peak_heap(|| check_partitioned(&model, &history, &whole).expect("checked whole"));
        done.store(true, Ordering::SeqCst);
        result
    });
    hk_line(false, &report, peak, Some(settings));
    assert!(
        !report.outcome.is_violation(),
        "the whole check contradicts the partitioned one:\n{}",
        report.outcome
    );
}

/// How much the operations of a history overlap in time: for each operation, how many others
/// are concurrent with it (neither precedes the other); and the most operations pending at once.
struct Overlap {
    mean: f64,
    max: usize,
    max_pending: usize,
}

impl Overlap {
    fn of<I, O>(history: &History<I, O>) -> Overlap {
        let ops = history.operations();
        let mut calls: Vec<u64> = ops.iter().map(|op| op.call).collect();
        let mut rets: Vec<u64> = ops.iter().map(|op| op.ret).collect();
        calls.sort_unstable();
        rets.sort_unstable();
        let (mut total, mut max) = (0usize, 0usize);
        for op in ops {
            // Others called at or before this return, minus those that returned before this call.
            let called = calls.partition_point(|&c| c <= op.ret);
            let finished = rets.partition_point(|&r| r < op.call);
            let concurrent = called - finished - 1;
            total += concurrent;
            max = max.max(concurrent);
        }
        // Most pending at once: sweep calls and returns (a return at t ends before a call at t' > t).
        let (mut pending, mut max_pending, mut r) = (0usize, 0usize, 0usize);
        for &c in &calls {
            while r < rets.len() && rets[r] < c {
                pending -= 1;
                r += 1;
            }
            pending += 1;
            max_pending = max_pending.max(pending);
        }
        Overlap {
            mean: total as f64 / ops.len().max(1) as f64,
            max,
            max_pending,
        }
    }
}

/// Guards the machine's memory during the check without partitioning: if the live heap passes
/// the limit, prints that check's line with an unknown verdict and ends the process (it is the
/// benchmark's last step).
fn heap_watchdog(done: &AtomicBool, settings: &Settings) {
    let start = Instant::now();
    while !done.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(20));
        let live = LIVE.load(Ordering::Relaxed);
        if COUNTING.load(Ordering::Relaxed) && live > settings.unpartitioned_max_heap {
            println!(
                "{{\"bench\":\"histories_hk_check\", \"partitioned\":false, \"verdict\":\"unknown after {:.1} s: heap \
                 limit of {:.1} GiB reached\", \"check_s\":{:.3}, \"peak_heap_mib\":{:.1}, \"time_limit_s\":{}, \
                 \"max_cache_entries\":{}}}",
                start.elapsed().as_secs_f64(),
                mib(settings.unpartitioned_max_heap) / 1024.0,
                start.elapsed().as_secs_f64(),
                mib(PEAK.load(Ordering::Relaxed)),
                settings.unpartitioned_limit.as_secs_f64(),
                settings.unpartitioned_max_entries
            );
            use std::io::Write as _;
            let _ = std::io::stdout().flush();
            std::process::exit(0);
        }
    }
}

fn hk_line(partitioned: bool, report: &CheckReport, peak: usize, limits: Option<&Settings>) {
    let verdict = match &report.outcome {
        CheckOutcome::Linearizable { .. } => "linearizable".to_string(),
        CheckOutcome::NotLinearizable(_) => "not linearizable".to_string(),
        CheckOutcome::Unknown { reason } => {
            format!("unknown after {:.1} s: {reason}", report.stats.elapsed.as_secs_f64())
        }
    };
    let limits = limits.map_or_else(String::new, |s| {
        format!(
            ", \"time_limit_s\":{}, \"max_cache_entries\":{}",
            s.unpartitioned_limit.as_secs_f64(),
            s.unpartitioned_max_entries
        )
    });
    let check_s = report.stats.elapsed.as_secs_f64();
    let peak_mib = mib(peak);
    let targets = if partitioned {
        format!(
            ", \"target_s\":5, \"target_mib\":400, \"target_met\":{}",
            check_s <= 5.0 && peak_mib <= 400.0
        )
    } else {
        String::new()
    };
    println!(
        "{{\"bench\":\"histories_hk_check\", \"partitioned\":{partitioned}, \"verdict\":\"{verdict}\", \
         \"check_s\":{check_s:.3}, \"peak_heap_mib\":{peak_mib:.1}, \"process_vm_hwm_mib_so_far\":{}, \
         \"partitions\":{}, \"cache_entries\":{}, \"steps\":{}, \"workers\":{}{limits}{targets}}}",
        vm_hwm_mib().map_or_else(|| "null".to_string(), |m| format!("{m:.1}")),
        report.stats.partitions,
        report.stats.cache_entries,
        report.stats.steps,
        CheckOptions::default().worker_count(),
    );
}
