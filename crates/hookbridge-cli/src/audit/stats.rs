//! `hookbridge stats`: per hook, from the audit log — runs, blocks, failures, timeouts, runs that
//! never launched, p50/p95/max duration, and the time it adds per tool call — sorted by the time
//! it cost in all.
//!
//! Lines are read with the runner's borrowing reader ([`Stored`]), so a log of a million lines is
//! read in one pass without building a JSON tree per line. [`Table`] is also the table of
//! `hookbridge report`.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use hookbridge_runner::audit::{AuditFiles, Failure, Stored};
use serde::Serialize;

use super::AuditFileArgs;

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    file: AuditFileArgs,
    /// Only this session's runs.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// The table as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Default)]
struct Tally {
    kind: String,
    runs: u64,
    blocks: u64,
    failures: u64,
    timeouts: u64,
    never_launched: u64,
    total_ms: f64,
    tool_ms: f64,
    durations: Vec<f64>,
}

/// The `p`-th percentile (nearest rank) of sorted `values`.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The sums of one stretch of the log.
#[derive(Default)]
struct Partial {
    /// Source → label → tally.
    tallies: HashMap<String, HashMap<String, Tally>>,
    tool_calls: u64,
    unreadable: u64,
}

impl Partial {
    fn add(&mut self, bytes: &[u8], session: Option<&str>) {
        let Some(mut line) = Stored::parse(bytes) else {
            self.unreadable += 1;
            return;
        };
        if session.is_some_and(|s| !line.in_session(s)) {
            return;
        }
        if line.is_event() {
            self.tool_calls += u64::from(line.tool.is_some());
            return;
        }
        let Some(hook) = line.hook.take().filter(|_| line.kind == "hook") else {
            return;
        };
        // Looked up by the borrowed text: a key is allocated once per hook, not per run.
        let by_label = match self.tallies.get_mut(&*hook.source) {
            Some(by_label) => by_label,
            None => self.tallies.entry(hook.source.into_owned()).or_default(),
        };
        let t = match by_label.get_mut(&*hook.label) {
            Some(t) => t,
            None => by_label.entry(hook.label.into_owned()).or_default(),
        };
        if t.kind.is_empty() {
            t.kind = hook.kind.into_owned();
        }
        t.runs += 1;
        t.total_ms += line.duration_ms;
        if line.tool.is_some() {
            t.tool_ms += line.duration_ms;
        }
        t.durations.push(line.duration_ms);
        if line.blocked() {
            t.blocks += 1;
        }
        match line.failure() {
            Some(Failure::NeverLaunched) => {
                t.failures += 1;
                t.never_launched += 1;
            }
            Some(Failure::TimedOut) => {
                t.failures += 1;
                t.timeouts += 1;
            }
            Some(Failure::Other) => t.failures += 1,
            None => {}
        }
    }

    fn merge(&mut self, other: Partial) {
        self.tool_calls += other.tool_calls;
        self.unreadable += other.unreadable;
        for (source, by_label) in other.tallies {
            let mine = self.tallies.entry(source).or_default();
            for (label, t) in by_label {
                let m = mine.entry(label).or_default();
                if m.kind.is_empty() {
                    m.kind = t.kind;
                }
                m.runs += t.runs;
                m.blocks += t.blocks;
                m.failures += t.failures;
                m.timeouts += t.timeouts;
                m.never_launched += t.never_launched;
                m.total_ms += t.total_ms;
                m.tool_ms += t.tool_ms;
                m.durations.extend(t.durations);
            }
        }
    }
}

/// The lines of `file` that start in `[start, end)`, summed.
fn tally_range(file: &Path, start: u64, end: u64, session: Option<&str>) -> std::io::Result<Partial> {
    use std::io::{BufRead, BufReader, Seek, SeekFrom};
    let mut partial = Partial::default();
    let mut f = std::fs::File::open(file)?;
    // A stretch that starts mid-line begins after that line, which the stretch before reads.
    let mut at = start.saturating_sub(1);
    f.seek(SeekFrom::Start(at))?;
    let mut reader = BufReader::with_capacity(256 * 1024, f);
    let mut buf = Vec::new();
    if start > 0 {
        at += reader.read_until(b'\n', &mut buf)? as u64;
    }
    while at < end {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        at += n as u64;
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        if !line.is_empty() {
            partial.add(line, session);
        }
    }
    Ok(partial)
}

/// Every file of the log summed, each split among the cores (a million lines in well under 2 s).
fn tally(files: &AuditFiles, session: Option<&str>) -> std::io::Result<Partial> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8)) as u64;
    let mut total = Partial::default();
    for file in &files.0 {
        let len = std::fs::metadata(file)?.len();
        let parts = if len < 4 << 20 { 1 } else { threads };
        let bounds: Vec<(u64, u64)> = (0..parts)
            .map(|i| (len * i / parts, len * (i + 1) / parts))
            .collect();
        let partials: Vec<std::io::Result<Partial>> = std::thread::scope(|s| {
            let handles: Vec<_> = bounds
                .iter()
                .map(|&(start, end)| s.spawn(move || tally_range(file, start, end, session)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a stats thread does not panic"))
                .collect()
        });
        for partial in partials {
            total.merge(partial?);
        }
    }
    Ok(total)
}

/// One hook's row: what it cost and how it went.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub source: String,
    pub label: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub runs: u64,
    pub blocks: u64,
    pub failures: u64,
    pub timeouts: u64,
    pub never_launched: u64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
    pub total_ms: f64,
    /// Time the hook added to each tool call, on average over all tool calls.
    pub ms_per_tool_call: f64,
    /// Every run's duration, sorted.
    #[serde(skip)]
    pub durations: Vec<f64>,
}

/// Every hook's row, most costly first.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub tool_calls: u64,
    pub unreadable_lines: u64,
    pub hooks: Vec<Row>,
}

impl Table {
    /// The table of the log at `path` (with its rotated files), of one session or of all.
    pub fn of(path: &Path, session: Option<&str>) -> std::io::Result<Table> {
        let Partial {
            tallies,
            tool_calls,
            unreadable,
        } = tally(&AuditFiles::of(path), session)?;
        let mut hooks: Vec<Row> = tallies
            .into_iter()
            .flat_map(|(source, by_label)| {
                by_label.into_iter().map(move |(label, mut t)| {
                    t.durations.sort_by(f64::total_cmp);
                    Row {
                        source: source.clone(),
                        label,
                        kind: t.kind,
                        runs: t.runs,
                        blocks: t.blocks,
                        failures: t.failures,
                        timeouts: t.timeouts,
                        never_launched: t.never_launched,
                        p50_ms: percentile(&t.durations, 50.0),
                        p95_ms: percentile(&t.durations, 95.0),
                        max_ms: t.durations.last().copied().unwrap_or(0.0),
                        total_ms: t.total_ms,
                        ms_per_tool_call: if tool_calls > 0 {
                            t.tool_ms / tool_calls as f64
                        } else {
                            0.0
                        },
                        durations: t.durations,
                    }
                })
            })
            .collect();
        // What costs the user most first: the time a hook took in all.
        hooks.sort_by(|a, b| {
            b.total_ms
                .total_cmp(&a.total_ms)
                .then_with(|| (&a.source, &a.label).cmp(&(&b.source, &b.label)))
        });
        Ok(Table {
            tool_calls,
            unreadable_lines: unreadable,
            hooks,
        })
    }
}

pub fn stats(args: StatsArgs) -> anyhow::Result<ExitCode> {
    let path = args.file.path()?;
    let table =
        Table::of(&path, args.session.as_deref()).with_context(|| format!("reading {}", path.display()))?;
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        #[derive(Serialize)]
        struct Answer<'a> {
            file: &'a Path,
            #[serde(flatten)]
            table: &'a Table,
        }
        let answer = serde_json::to_string_pretty(&Answer {
            file: &path,
            table: &table,
        })?;
        writeln!(out, "{answer}")
    } else {
        out.write_all(crate::shown::lines(&text(&table)).as_bytes())
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        other => other.context("writing the table").map(|()| ExitCode::SUCCESS),
    }
}

/// The table for a terminal.
fn text(table: &Table) -> String {
    let mut s = format!(
        "{:>6} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9} {:>9} {:>10}  hook\n",
        "runs", "blocks", "failed", "t/out", "never", "p50 ms", "p95 ms", "max ms", "ms/tool"
    );
    for r in &table.hooks {
        let label: String = r.label.chars().take(60).collect();
        s += &format!(
            "{:>6} {:>6} {:>6} {:>6} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>10.2}  {} `{label}` ({})\n",
            r.runs,
            r.blocks,
            r.failures,
            r.timeouts,
            r.never_launched,
            r.p50_ms,
            r.p95_ms,
            r.max_ms,
            r.ms_per_tool_call,
            r.kind,
            r.source,
        );
    }
    s += &format!("{} hook(s), {} tool call(s)", table.hooks.len(), table.tool_calls);
    if table.unreadable_lines > 0 {
        s += &format!(
            ", {} unreadable line(s) (`hookbridge log --verify`)",
            table.unreadable_lines
        );
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_split_anywhere_sums_to_the_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("audit.jsonl");
        let mut text = String::new();
        for i in 0..200 {
            let label = format!("hook {}", i % 3);
            text += &serde_json::json!({"kind": "hook", "tool": "Bash", "duration_ms": f64::from(i),
                "hook": {"source": "f:1:1", "label": label, "type": "command"}, "status": "exited",
                "code": if i % 7 == 0 { 2 } else { 0 }, "decision": if i % 7 == 0 { "deny" } else { "none" }})
            .to_string();
            text.push('\n');
        }
        std::fs::write(&file, &text).unwrap();
        let len = text.len() as u64;
        let sums = |p: &Partial| -> Vec<(String, u64, u64, f64)> {
            let mut v: Vec<_> = p.tallies["f:1:1"]
                .iter()
                .map(|(l, t)| (l.clone(), t.runs, t.blocks, t.total_ms))
                .collect();
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v
        };
        let whole = tally_range(&file, 0, len, None).unwrap();
        assert_eq!(whole.tallies["f:1:1"].values().map(|t| t.runs).sum::<u64>(), 200);
        let first_line_end = text.find('\n').unwrap() as u64 + 1;
        for cuts in [
            vec![1],
            vec![first_line_end],
            vec![first_line_end - 1, len / 2, len / 2 + 1],
            vec![len / 3, 2 * len / 3],
        ] {
            let mut bounds = vec![0];
            bounds.extend(cuts);
            bounds.push(len);
            let mut total = Partial::default();
            for w in bounds.windows(2) {
                total.merge(tally_range(&file, w[0], w[1], None).unwrap());
            }
            assert_eq!(sums(&total), sums(&whole), "cut at {bounds:?}");
        }
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 95.0), 95.0);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
