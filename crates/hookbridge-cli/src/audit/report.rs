//! `hookbridge report --html`: one session of the audit log as one self-contained page, in the
//! manner of `cargo build --timings` — the session's timeline (events as rows, its hooks as bars,
//! blocks and failures marked), each hook's latency distribution, and the table of `stats`.
//!
//! The page loads nothing: its style is inline, its charts are inline SVG, and it has no script.
//! Every text from the record (a hook's label is a command or URL a project wrote) is escaped, and
//! the page's Content-Security-Policy forbids scripts and every fetch, so a hostile label can
//! neither run nor call out even where escaping were wrong.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use anyhow::Context as _;
use clap::Args;
use hookbridge_runner::audit::{AuditFiles, Failure, Stored};
use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};

use super::stats::Table;
use super::{status_words, AuditFileArgs};
use crate::UsageError;

#[derive(Args, Debug)]
pub struct ReportArgs {
    #[command(flatten)]
    file: AuditFileArgs,
    /// The session to show (default: the session of the newest line in the log).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Write the report as one self-contained HTML page (the one format so far).
    #[arg(long, required = true)]
    html: bool,
    /// Where to write the page; `-` for standard output.
    #[arg(
        long,
        short = 'o',
        value_name = "FILE",
        default_value = "hookbridge-report.html"
    )]
    output: PathBuf,
}

/// One hook's run within an event.
struct HookRun {
    source: String,
    label: String,
    kind: String,
    ran: String,
    duration_ms: f64,
    status: String,
    code: Option<i64>,
    decision: String,
    reason: Option<String>,
    failure: Option<Failure>,
    blocked: bool,
}

/// One event of the session, with the hooks that ran for it.
struct EventRow {
    time: String,
    at: Option<SystemTime>,
    event: String,
    tool: Option<String>,
    /// `None` for hook lines whose event line is missing from the record.
    outcome: Option<String>,
    reason: Option<String>,
    duration_ms: f64,
    skipped: u64,
    hooks: Vec<HookRun>,
}

/// The session's events, in the order they were recorded.
struct Session {
    id: String,
    hosts: Vec<String>,
    events: Vec<EventRow>,
}

fn owned(v: &Option<std::borrow::Cow<str>>) -> String {
    v.as_deref().unwrap_or("").to_string()
}

/// The session of the newest line that has one.
fn newest_session(files: &AuditFiles) -> std::io::Result<Option<String>> {
    let mut newest = None;
    files.for_each_line(|_, _, bytes| {
        if let Some(session) = Stored::parse(bytes).and_then(|l| l.session) {
            if newest.as_deref() != Some(&*session) {
                newest = Some(session.into_owned());
            }
        }
        true
    })?;
    Ok(newest)
}

/// Every line of `id` in `files`, hook lines grouped under the event line they were written with
/// (a hook's lines and its event's line share the event's start time).
fn read_session(files: &AuditFiles, id: &str) -> std::io::Result<Session> {
    type Key = (String, String, Option<String>);
    let mut pending: HashMap<Key, Vec<HookRun>> = HashMap::new();
    let mut order: Vec<Key> = Vec::new();
    let mut events = Vec::new();
    let mut hosts: Vec<String> = Vec::new();
    files.for_each_line(|_, _, bytes| {
        let Some(line) = Stored::parse(bytes).filter(|l| l.in_session(id)) else {
            return true;
        };
        if let Some(host) = line.host.as_deref().filter(|h| !hosts.iter().any(|k| k == h)) {
            hosts.push(host.to_string());
        }
        let key: Key = (
            owned(&line.time),
            owned(&line.event),
            line.tool.as_deref().map(str::to_string),
        );
        if let Some(hook) = line.hook_run() {
            if !pending.contains_key(&key) {
                order.push(key.clone());
            }
            pending.entry(key).or_default().push(HookRun {
                source: hook.source.to_string(),
                label: hook.label.to_string(),
                kind: hook.kind.to_string(),
                ran: owned(&line.ran),
                duration_ms: line.duration_ms,
                status: owned(&line.status),
                code: line.code,
                decision: owned(&line.decision),
                reason: line.reason.as_deref().map(str::to_string),
                failure: line.failure(),
                blocked: line.blocked(),
            });
        } else if line.is_event() {
            order.retain(|k| k != &key);
            events.push(EventRow {
                at: humantime::parse_rfc3339_weak(&key.0).ok(),
                hooks: pending.remove(&key).unwrap_or_default(),
                time: key.0,
                event: key.1,
                tool: key.2,
                outcome: Some(owned(&line.outcome)),
                reason: line.reason.as_deref().map(str::to_string),
                duration_ms: line.duration_ms,
                skipped: line.skipped,
            });
        }
        true
    })?;
    // Hook lines whose event line never came (a run killed between the two cannot happen, as
    // they are written together; a hand-cut record can).
    for key in order {
        let hooks = pending.remove(&key).unwrap_or_default();
        events.push(EventRow {
            at: humantime::parse_rfc3339_weak(&key.0).ok(),
            duration_ms: hooks.iter().map(|h| h.duration_ms).fold(0.0, f64::max),
            time: key.0,
            event: key.1,
            tool: key.2,
            outcome: None,
            reason: None,
            skipped: 0,
            hooks,
        });
    }
    events.sort_by(|a, b| a.time.cmp(&b.time));
    Ok(Session {
        id: id.to_string(),
        hosts,
        events,
    })
}

pub fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let path = args.file.path()?;
    let files = AuditFiles::of(&path);
    if files.0.is_empty() {
        return Err(UsageError(format!("{}: no audit log there", path.display())).into());
    }
    let reading = || format!("reading {}", path.display());
    let id = match args.session {
        Some(id) => id,
        None => newest_session(&files)
            .with_context(reading)?
            .ok_or_else(|| UsageError(format!("{}: no line names a session", path.display())))?,
    };
    let session = read_session(&files, &id).with_context(reading)?;
    if session.events.is_empty() {
        return Err(UsageError(format!(
            "{}: no line of session {id} (`hookbridge log` lists the sessions)",
            path.display()
        ))
        .into());
    }
    let table = Table::of(&path, Some(&id)).with_context(reading)?;
    let page = page(&session, &table);
    if args.output == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return match out.write_all(page.as_bytes()).and_then(|()| out.flush()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
            other => other.context("writing the page").map(|()| ExitCode::SUCCESS),
        };
    }
    crate::files::write_output(&args.output, page.as_bytes())?;
    eprintln!(
        "wrote {}: session {id}, {} event(s), {} hook run(s)",
        args.output.display(),
        session.events.len(),
        session.events.iter().map(|e| e.hooks.len()).sum::<usize>()
    );
    Ok(ExitCode::SUCCESS)
}

const STYLE: &str = r#"
:root { --ok: #3b7dd8; --blocked: #c62828; --failed: #ef8a00; --never: #6d6d6d; --ink: #1d1d1f; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--ink); margin: 24px; max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
code { font: 12px ui-monospace, monospace; }
.summary span { margin-right: 14px; } .summary b { font-variant-numeric: tabular-nums; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 14px; height: 10px; margin-right: 4px; vertical-align: middle; }
table { border-collapse: collapse; width: 100%; }
td, th { padding: 3px 6px; border-bottom: 1px solid #e4e4e4; vertical-align: top; text-align: left; }
th { font-weight: 600; background: #f5f5f7; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.timeline td.at { white-space: nowrap; color: #555; font-variant-numeric: tabular-nums; }
.timeline td.track { width: 55%; }
.outcome { white-space: nowrap; }
tr.blocked .outcome, tr.denied .outcome { color: var(--blocked); font-weight: 600; }
tr.event-failed .outcome::after { content: " ⚠"; color: var(--failed); }
.bar { height: 16px; margin: 2px 0; border-radius: 2px; min-width: 3px; color: #fff;
  font: 11px/16px ui-monospace, monospace; white-space: nowrap; overflow: visible; position: relative; }
.bar span { position: absolute; left: calc(100% + 6px); color: var(--ink); }
.bar.wide span { left: 6px; color: #fff; text-shadow: 0 0 2px #000; }
.bar.ok { background: var(--ok); } .bar.blocked { background: var(--blocked); }
.bar.failed { background: var(--failed); } .bar.cancelled { background: #b9b9b9; }
.bar.never-launched { background: repeating-linear-gradient(45deg, var(--never) 0 4px, #bbb 4px 8px); }
.bar.timed-out { background: repeating-linear-gradient(45deg, var(--failed) 0 4px, #ffd08a 4px 8px); }
.dist svg { display: block; } .dist td { vertical-align: middle; }
"#;

/// What a hook's run looks like on the page: its bar's class and a word for it.
fn look(run: &HookRun) -> (&'static str, &'static str) {
    match run.failure {
        Some(Failure::NeverLaunched) => ("never-launched", "never launched"),
        Some(Failure::TimedOut) => ("timed-out", "timed out"),
        Some(Failure::Other) => ("failed", "failed"),
        None if run.blocked => ("blocked", "blocked"),
        None if run.decision == "cancelled" => ("cancelled", "cancelled"),
        None => ("ok", "ran"),
    }
}

fn ms(value: f64) -> String {
    if value >= 1000.0 {
        format!("{:.2} s", value / 1000.0)
    } else {
        format!("{value:.1} ms")
    }
}

/// The whole page.
fn page(session: &Session, table: &Table) -> String {
    let runs: Vec<&HookRun> = session.events.iter().flat_map(|e| &e.hooks).collect();
    let blocks = runs.iter().filter(|r| look(r).0 == "blocked").count();
    let failures = runs.iter().filter(|r| r.failure.is_some()).count();
    let first = session.events.iter().find_map(|e| e.at);
    let last = session.events.iter().rev().find_map(|e| e.at);
    let span = match (first, last) {
        (Some(a), Some(b)) => b.duration_since(a).unwrap_or_default().as_secs_f64(),
        _ => 0.0,
    };
    let mut p = String::with_capacity(64 * 1024);
    let _ = write!(
        p,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>hookbridge report: session {id}</title><style>{STYLE}</style></head><body>\n\
         <h1>hookbridge report</h1>\n<p class=\"summary\" id=\"summary\">\
         <span>session <code>{id}</code></span><span>host {hosts}</span>\
         <span>{from} → {span:.1} s</span>\
         <span><b data-count=\"events\">{events}</b> event(s)</span>\
         <span><b data-count=\"runs\">{nruns}</b> hook run(s)</span>\
         <span><b data-count=\"blocks\">{blocks}</b> block(s)</span>\
         <span><b data-count=\"failures\">{failures}</b> failure(s)</span></p>\n",
        id = text(&session.id),
        hosts = text(&session.hosts.join(", ")),
        from = text(session.events.first().map_or("", |e| e.time.as_str())),
        events = session.events.len(),
        nruns = runs.len(),
    );
    timeline(&mut p, session, first);
    distributions(&mut p, table);
    stats_table(&mut p, table);
    p.push_str(
        "<p><small>Written by <code>hookbridge report --html</code> from the audit log \
         (<code>hookbridge log --verify</code> checks that the record is whole).</small></p>\n\
         </body></html>\n",
    );
    p
}

fn timeline(p: &mut String, session: &Session, first: Option<SystemTime>) {
    let scale = session
        .events
        .iter()
        .flat_map(|e| e.hooks.iter().map(|h| h.duration_ms).chain([e.duration_ms]))
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let _ = write!(
        p,
        "<h2>Timeline</h2>\n<p>Each row is an event, at its time into the session; each bar is one \
         of its hooks, from the event's start for as long as it ran (the bars share one scale, \
         0 – {}).</p>\n<p class=\"legend\"><span><i style=\"background:var(--ok)\"></i>ran</span>\
         <span><i style=\"background:var(--blocked)\"></i>blocked or denied</span>\
         <span><i style=\"background:var(--failed)\"></i>failed</span>\
         <span><i class=\"bar timed-out\"></i>timed out</span>\
         <span><i class=\"bar never-launched\"></i>never launched (the silent allow)</span>\
         <span><i class=\"bar cancelled\"></i>cancelled (another hook had decided)</span></p>\n\
         <table class=\"timeline\" id=\"timeline\"><thead><tr><th class=\"num\">at</th><th>event</th>\
         <th>outcome</th><th>hooks</th></tr></thead><tbody>\n",
        ms(scale)
    );
    for e in &session.events {
        let at = match (first, e.at) {
            (Some(a), Some(b)) => format!("+{:.3} s", b.duration_since(a).unwrap_or_default().as_secs_f64()),
            _ => String::new(),
        };
        let outcome = e.outcome.as_deref().unwrap_or("no event line");
        let failed = e.hooks.iter().any(|h| h.failure.is_some());
        let _ = write!(
            p,
            "<tr class=\"event {outcome_class}{failed}\" data-event=\"{event}\" data-outcome=\"{outcome_attr}\" \
             title=\"{time}\"><td class=\"at\">{at}</td><td>{event_text}{tool}<br><small>{took}{skipped}</small></td>\
             <td class=\"outcome\">{outcome_text}{reason}</td><td class=\"track\">",
            outcome_class = attr(outcome),
            failed = if failed { " event-failed" } else { "" },
            event = attr(&e.event),
            outcome_attr = attr(outcome),
            time = attr(&e.time),
            event_text = text(&e.event),
            tool = e
                .tool
                .as_deref()
                .map(|t| format!(" <code>{}</code>", text(t)))
                .unwrap_or_default(),
            took = ms(e.duration_ms),
            skipped = if e.skipped > 0 {
                format!(", {} skipped", e.skipped)
            } else {
                String::new()
            },
            outcome_text = text(outcome),
            reason = e
                .reason
                .as_deref()
                .map(|r| format!("<br><small>{}</small>", text(&clip(r, 160))))
                .unwrap_or_default(),
        );
        for h in &e.hooks {
            let (class, word) = look(h);
            let width = (h.duration_ms / scale * 100.0).clamp(0.0, 100.0);
            let tip = format!(
                "{} `{}` ({})\n{word}: {}, {} in {}, {}{}",
                h.kind,
                h.label,
                h.source,
                status_words(&h.status, h.code),
                h.ran,
                ms(h.duration_ms),
                h.decision,
                h.reason
                    .as_deref()
                    .map(|r| format!("\n{}", clip(r, 300)))
                    .unwrap_or_default()
            );
            let _ = write!(
                p,
                "<div class=\"bar {class}{wide}\" style=\"width:{width:.2}%\" data-source=\"{source}\" \
                 data-label=\"{label}\" data-decision=\"{decision}\" data-status=\"{status}\" \
                 data-ms=\"{dur}\" title=\"{tip}\"><span>{label_text} · {took} · {word}</span></div>",
                wide = if width > 55.0 { " wide" } else { "" },
                source = attr(&h.source),
                label = attr(&h.label),
                decision = attr(&h.decision),
                status = attr(&h.status),
                dur = h.duration_ms,
                tip = attr(&tip),
                label_text = text(&clip(&h.label, 60)),
                took = ms(h.duration_ms),
            );
        }
        p.push_str("</td></tr>\n");
    }
    p.push_str("</tbody></table>\n");
}

/// Per hook, a histogram of its runs' durations on one logarithmic scale shared by every hook,
/// with its p50 and p95 marked.
fn distributions(p: &mut String, table: &Table) {
    const W: f64 = 420.0;
    const H: f64 = 40.0;
    const BINS: usize = 42;
    let all = table.hooks.iter().flat_map(|r| r.durations.iter().copied());
    let lo = all.clone().filter(|d| *d > 0.0).fold(f64::INFINITY, f64::min);
    let hi = all.fold(0.0_f64, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo.log10(), hi.log10())
    } else {
        let one = lo.clamp(0.001, 1.0).log10();
        (one - 1.0, one + 1.0)
    };
    let x = |d: f64| -> f64 {
        let v = if d > 0.0 { d.log10() } else { lo };
        ((v - lo) / (hi - lo) * W).clamp(0.0, W)
    };
    let _ = write!(
        p,
        "<h2>Latency per hook</h2>\n<p>How long each hook's runs took, on one logarithmic scale \
         from {} to {}; the dark line is the p50, the dashed one the p95.</p>\n\
         <table class=\"dist\" id=\"distributions\"><tbody>\n",
        ms(10f64.powf(lo)),
        ms(10f64.powf(hi))
    );
    for r in &table.hooks {
        let mut counts = [0u32; BINS];
        for d in &r.durations {
            let bin = ((x(*d) / W) * BINS as f64) as usize;
            counts[bin.min(BINS - 1)] += 1;
        }
        let top = f64::from(*counts.iter().max().unwrap_or(&1).max(&1));
        let mut bars = String::new();
        let bw = W / BINS as f64;
        for (i, c) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            let h = (f64::from(*c) / top * (H - 4.0)).max(2.0);
            let _ = write!(
                bars,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"#3b7dd8\"><title>{c} run(s)</title></rect>",
                i as f64 * bw,
                H - h,
                bw - 1.0
            );
        }
        let _ = writeln!(
            p,
            "<tr data-source=\"{source}\" data-label=\"{label}\" data-runs=\"{runs}\"><td><code>{label_text}</code><br>\
             <small>{kind} · {source_text}</small></td><td><svg width=\"{W}\" height=\"{H}\" \
             viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"durations of {label}\">\
             <rect width=\"{W}\" height=\"{H}\" fill=\"#f5f5f7\"/>{bars}\
             <line x1=\"{p50:.1}\" x2=\"{p50:.1}\" y1=\"0\" y2=\"{H}\" stroke=\"#1d1d1f\" stroke-width=\"2\"/>\
             <line x1=\"{p95:.1}\" x2=\"{p95:.1}\" y1=\"0\" y2=\"{H}\" stroke=\"#1d1d1f\" stroke-dasharray=\"3 2\"/>\
             </svg></td><td class=\"num\">p50 {p50_ms}<br>p95 {p95_ms}</td></tr>",
            source = attr(&r.source),
            label = attr(&r.label),
            runs = r.runs,
            label_text = text(&clip(&r.label, 80)),
            kind = text(&r.kind),
            source_text = text(&r.source),
            p50 = x(r.p50_ms),
            p95 = x(r.p95_ms),
            p50_ms = ms(r.p50_ms),
            p95_ms = ms(r.p95_ms),
        );
    }
    p.push_str("</tbody></table>\n");
}

fn stats_table(p: &mut String, table: &Table) {
    let _ = write!(
        p,
        "<h2>Hooks, costliest first</h2>\n<p>As <code>hookbridge stats</code> sums them for this \
         session: {} tool call(s).</p>\n<table id=\"stats\"><thead><tr><th>hook</th>\
         <th class=\"num\">runs</th><th class=\"num\">blocks</th><th class=\"num\">failed</th>\
         <th class=\"num\">timed out</th><th class=\"num\">never launched</th><th class=\"num\">p50</th>\
         <th class=\"num\">p95</th><th class=\"num\">max</th><th class=\"num\">total</th>\
         <th class=\"num\">per tool call</th></tr></thead><tbody>\n",
        table.tool_calls
    );
    for r in &table.hooks {
        let _ = writeln!(
            p,
            "<tr data-source=\"{source}\" data-label=\"{label}\"><td><code>{label_text}</code><br>\
             <small>{kind} · {source_text}</small></td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{:.2} ms</td></tr>",
            r.runs,
            r.blocks,
            r.failures,
            r.timeouts,
            r.never_launched,
            ms(r.p50_ms),
            ms(r.p95_ms),
            ms(r.max_ms),
            ms(r.total_ms),
            r.ms_per_tool_call,
            source = attr(&r.source),
            label = attr(&r.label),
            label_text = text(&clip(&r.label, 80)),
            kind = text(&r.kind),
            source_text = text(&r.source),
        );
    }
    p.push_str("</tbody></table>\n");
}

/// `s` cut to `max` characters, marked with `…` when cut.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…", &s[..cut]),
    }
}
