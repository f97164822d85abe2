//! `hookbridge test`: one event, tried against the real hooks, with a trace for people — the
//! answer to "why didn't my hook fire?".
//!
//! It loads the hooks exactly as `run` does, builds (or reads) the event's payload, says for every
//! hook registered for the event whether it runs and, if not, why (matcher, `if` rule, duplicate,
//! disabled, …), then runs the ones that run — for real: a hook that writes a file writes it — and
//! shows what each received, printed, returned and how long it took, a timeline, and the one answer
//! `hookbridge run` would give Claude Code. `--json` gives the same for tools.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use hookbridge_core::config::managed::SandboxFloor;
use hookbridge_core::config::{Explained, Verdict};
use hookbridge_core::decision::{in_words, render_claude, ClaudeAnswer, RunStatus, WarmRun};
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_runner::report::HookRunView;
use hookbridge_runner::{dispatch_selection, AsyncHooks, DispatchOptions};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::{shown, ProjectArgs, UsageError};

#[derive(Args, Debug)]
pub struct TestArgs {
    /// The Claude Code event name (`PreToolUse`, `Stop`, …).
    #[arg(long, value_name = "NAME")]
    event: String,
    #[command(flatten)]
    project: ProjectArgs,
    /// The event's JSON payload, from this file (`-`: stdin). Default: one built from the options
    /// below, with the project as `cwd`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["tool", "input", "prompt"])]
    payload: Option<PathBuf>,
    /// The tool of a tool event (`Bash`, `Write`, `mcp__server__tool`, …).
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// The tool's input, as a JSON object (default `{}`).
    #[arg(long, value_name = "JSON", requires = "tool")]
    input: Option<String>,
    /// The prompt of a UserPromptSubmit event.
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
    /// The trace as JSON on stdout, for tools.
    #[arg(long)]
    json: bool,
    /// Run nothing: say which hooks the event reaches and why the others do not (inspection,
    /// safe in a repository that is not trusted).
    #[arg(long)]
    dry_run: bool,
}

/// Width of a timeline bar, in characters.
const BAR: usize = 30;

pub fn test(args: TestArgs) -> anyhow::Result<ExitCode> {
    let event = EventName::parse(&args.event).map_err(|e| UsageError(e.to_string()))?;
    let project = args.project.resolve_for_people()?;
    let bytes = payload_bytes(&args, &event, &project.dir)?;
    let payload =
        EventPayload::parse(event.clone(), &bytes).map_err(|e| UsageError(format!("the payload: {e}")))?;
    let loaded = args.project.load(&project.dir);
    let floor = crate::inspect::sandbox_floor(&loaded.set, &loaded.trust);
    let set = loaded.set;

    let explained = set.explain(&payload);
    if args.dry_run {
        return dry_run(&args, &event, &project.dir, &explained, &set);
    }
    let mut options = DispatchOptions::new(&project.dir);
    options.apply_trust(&loaded.trust);
    // The hooks run for real: on the record, as the `test` host.
    options.audit =
        hookbridge_runner::audit::AuditLog::for_host("test", set.managed.as_ref()).map(std::sync::Arc::new);
    options.apply_settings(&set);
    // Async hooks are awaited too: a dry run shows what every hook does.
    options.async_hooks = AsyncHooks::Await;
    let report = dispatch_selection(set.select(&payload), &payload, &options);
    let answer = render_claude(
        &report.event,
        report.match_query.as_deref(),
        &report.decision,
        "hookbridge run",
    );
    let words = in_words(&report.event, report.match_query.as_deref(), &report.decision);
    let diagnostics: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();
    let hooks = traced_hooks(&explained, report.view().hooks, floor, &project.dir);
    let trace = Trace {
        event: event.as_str(),
        project_dir: &project.dir,
        match_target: report.match_query.as_deref(),
        payload: payload.fields(),
        hooks,
        warnings: &report.warnings,
        diagnostics,
        answer: &answer,
        decision: DecisionView {
            outcome: words.outcome.as_str(),
            agent: &words.agent,
            model_is_shown: words.model.as_deref(),
            user_is_shown: words.user.as_deref(),
        },
    };
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&trace)?)
    } else {
        out.write_all(shown::lines(&human(&trace)).as_bytes())
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        other => other.context("writing the trace").map(|()| ExitCode::SUCCESS),
    }
}

/// Each hook registered for the event, with its run when it ran (matched by its place in its
/// file) and what its sandbox denied it.
fn traced_hooks<'a>(
    explained: &'a [Explained<'a>],
    runs: Vec<HookRunView<'a>>,
    floor: SandboxFloor,
    project_dir: &Path,
) -> Vec<TracedHook<'a>> {
    let mut runs: Vec<Option<HookRunView<'_>>> = runs.into_iter().map(Some).collect();
    let home = hookbridge_runner::home::user_home();
    explained
        .iter()
        .map(|e| {
            let (label, line, column) = (e.hook.kind.label(), e.hook.position.line, e.hook.position.column);
            let run = runs
                .iter_mut()
                .find(|r| {
                    r.as_ref().is_some_and(|r| {
                        r.hook.label == label && r.hook.line == line && r.hook.column == column
                    })
                })
                .and_then(Option::take);
            let sandbox = hookbridge_core::config::managed::effective_sandbox(e.hook, &floor);
            // What the sandbox denied the hook, in words, from its stderr.
            let denials: Vec<String> = match (sandbox.as_deref(), run.as_ref()) {
                (Some(sandbox), Some(run)) => hookbridge_runner::process::explain_denials(
                    sandbox,
                    project_dir,
                    home.as_deref(),
                    &run.stderr,
                ),
                _ => Vec::new(),
            };
            TracedHook {
                type_name: e.hook.kind.type_name(),
                label,
                source: &e.hook.source.path,
                line,
                column,
                matcher: e.group.matcher_text.as_deref(),
                condition: e.hook.condition.as_ref().map(|c| c.text.as_str()),
                runs: e.verdict == Verdict::Runs,
                verdict: e.verdict.to_string(),
                run,
                said: sandbox
                    .as_deref()
                    .map(|sandbox| crate::inspect::sandbox_said(sandbox, &floor)),
                sandbox: sandbox
                    .as_deref()
                    .map(|sandbox| crate::inspect::sandbox_json(sandbox, &floor)),
                sandbox_denials: denials,
            }
        })
        .collect()
}

/// `test --dry-run`: which hooks the event reaches, and why the others do not; nothing runs.
fn dry_run(
    args: &TestArgs,
    event: &EventName,
    project: &std::path::Path,
    explained: &[hookbridge_core::config::Explained<'_>],
    set: &hookbridge_core::config::HookSet,
) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        let hooks: Vec<Value> = explained
            .iter()
            .map(|e| {
                json!({
                    "type": e.hook.kind.type_name(),
                    "label": e.hook.kind.label(),
                    "source": e.hook.source.path,
                    "line": e.hook.position.line,
                    "column": e.hook.position.column,
                    "matcher": e.group.matcher_text,
                    "runs": e.verdict == Verdict::Runs,
                    "verdict": e.verdict.to_string(),
                })
            })
            .collect();
        let trace = json!({
            "event": event.as_str(),
            "project_dir": project,
            "dry_run": true,
            "hooks": hooks,
            "diagnostics": set.diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&trace)?)
    } else {
        let mut text = format!("{event} in {} (dry run: nothing runs)\n", project.display());
        if explained.is_empty() {
            text.push_str("  no hook is registered for this event\n");
        }
        for e in explained {
            let mark = if e.verdict == Verdict::Runs {
                "would run"
            } else {
                "would not "
            };
            text.push_str(&format!(
                "  {mark}  {} {}  ({}:{}:{}){}\n",
                e.hook.kind.type_name(),
                e.hook.kind.label(),
                e.hook.source.path.display(),
                e.hook.position.line,
                e.hook.position.column,
                if e.verdict == Verdict::Runs {
                    String::new()
                } else {
                    format!(": {}", e.verdict)
                }
            ));
        }
        out.write_all(shown::lines(&text).as_bytes())
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        other => other.context("writing the trace").map(|()| ExitCode::SUCCESS),
    }
}

/// The payload: read from `--payload`, or built for `event` from `--tool`/`--input`/`--prompt`.
fn payload_bytes(args: &TestArgs, event: &EventName, project: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    if let Some(path) = &args.payload {
        return if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
                .context("reading the payload from stdin")?;
            Ok(bytes)
        } else {
            std::fs::read(path).with_context(|| format!("reading the payload {}", path.display()))
        };
    }
    let mut fields = Map::new();
    fields.insert("session_id".into(), json!("hookbridge-test"));
    fields.insert("transcript_path".into(), json!(""));
    fields.insert("cwd".into(), json!(project));
    fields.insert("permission_mode".into(), json!("default"));
    fields.insert("hook_event_name".into(), json!(event.as_str()));
    if let Some(tool) = &args.tool {
        let input: Value = match &args.input {
            Some(text) => {
                serde_json::from_str(text).map_err(|e| UsageError(format!("--input is not JSON: {e}")))?
            }
            None => json!({}),
        };
        if !input.is_object() {
            return Err(UsageError("--input must be a JSON object".into()).into());
        }
        fields.insert("tool_name".into(), json!(tool));
        fields.insert("tool_input".into(), input);
        fields.insert("tool_use_id".into(), json!("toolu_hookbridge_test"));
    }
    if let Some(prompt) = &args.prompt {
        fields.insert("prompt".into(), json!(prompt));
    }
    Ok(serde_json::to_vec(&Value::Object(fields))?)
}

/// The trace for a terminal: every hook with its verdict and run, a timeline, the answer.
/// `hookbridge test`'s trace: `--json` serializes it, and [`human`] renders it for people.
#[derive(Serialize)]
struct Trace<'a> {
    event: &'a str,
    project_dir: &'a Path,
    match_target: Option<&'a str>,
    payload: &'a Map<String, Value>,
    hooks: Vec<TracedHook<'a>>,
    warnings: &'a [String],
    diagnostics: Vec<String>,
    /// The answer `hookbridge run` would give Claude Code.
    answer: &'a ClaudeAnswer,
    decision: DecisionView<'a>,
}

/// One hook registered for the event: whether it runs, why not, and its run.
#[derive(Serialize)]
struct TracedHook<'a> {
    #[serde(rename = "type")]
    type_name: &'static str,
    label: &'a str,
    source: &'a Path,
    line: usize,
    column: usize,
    matcher: Option<&'a str>,
    #[serde(rename = "if")]
    condition: Option<&'a str>,
    runs: bool,
    verdict: String,
    run: Option<HookRunView<'a>>,
    /// The sandbox in one sentence (also inside `sandbox`, as `said`).
    #[serde(skip)]
    said: Option<String>,
    sandbox: Option<Value>,
    sandbox_denials: Vec<String>,
}

/// The decision in words.
#[derive(Serialize)]
struct DecisionView<'a> {
    outcome: &'static str,
    agent: &'a str,
    model_is_shown: Option<&'a str>,
    user_is_shown: Option<&'a str>,
}

fn human(trace: &Trace<'_>) -> String {
    let mut s = String::new();
    let running = trace.hooks.iter().filter(|h| h.runs).count();
    let target = trace
        .match_target
        .map(|t| format!(" (match target `{t}`)"))
        .unwrap_or_default();
    s += &format!(
        "hookbridge test: {}{target} in {}\n{} hook(s) registered for the event, {running} run\n\n",
        trace.event,
        trace.project_dir.display(),
        trace.hooks.len()
    );
    for h in &trace.hooks {
        human_hook(&mut s, h);
    }
    human_timeline(&mut s, trace);
    let answer = &trace.answer;
    s += &format!(
        "\nanswer to Claude Code (as `hookbridge run` gives it): exit {}\n",
        answer.exit_code
    );
    let stdout = answer.stdout.text();
    for (stream, text) in [("stdout", stdout.as_ref()), ("stderr", answer.stderr.as_str())] {
        if !text.is_empty() {
            s += &format!("  {stream}: {}\n", one_line(text, 400));
        }
    }
    let decision = &trace.decision;
    s += &format!("\ndecision: {}: {}\n", decision.outcome, decision.agent);
    for (who, shown) in [
        ("the model", decision.model_is_shown),
        ("the user", decision.user_is_shown),
    ] {
        match shown {
            Some(text) => s += &format!("  {who} is shown: {}\n", one_line(text, 400)),
            None => s += &format!("  {who} is shown nothing\n"),
        }
    }
    for w in trace.warnings {
        s += &format!("warning: {w}\n");
    }
    if !trace.diagnostics.is_empty() {
        s += "\nproblems in the hook files (`hookbridge validate` shows each in full):\n";
        for problem in &trace.diagnostics {
            s += &format!("  {problem}\n");
        }
    }
    s
}

/// One hook's lines in `test`'s trace: whether it runs, and how its run ended.
fn human_hook(s: &mut String, h: &TracedHook<'_>) {
    let mark = if h.runs { "runs   " } else { "no     " };
    *s += &format!(
        "  {mark} {} `{}`  {}:{}:{}\n",
        h.type_name,
        h.label,
        h.source.display(),
        h.line,
        h.column
    );
    if let Some(said) = &h.said {
        *s += &format!("          {said}\n");
    }
    if !h.runs {
        *s += &format!("          why: {}\n", h.verdict);
        return;
    }
    let Some(run) = &h.run else {
        *s += "          no run recorded after 0 ms\n";
        return;
    };
    let status = match run.report.execution.status {
        RunStatus::Exited(code) => format!("exit {code}"),
        RunStatus::Signaled(signal) => format!("killed by signal {signal}"),
        ref other => other.word().replace('_', " "),
    };
    let mut warm = match (run.report.execution.warm == WarmRun::Ran, run.warm.fell_back()) {
        (true, _) => " (warm)".to_string(),
        (false, Some(why)) => format!(" (spawned, not warm: {why})"),
        (false, None) => String::new(),
    };
    if let Some(why) = &run.report.execution.unsandboxed {
        warm += &format!(" (WITHOUT its sandbox: {why})");
    }
    *s += &format!(
        "          {status} after {:.0} ms{warm}{}\n",
        run.duration_ms,
        run.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default()
    );
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        if !text.trim().is_empty() {
            *s += &format!("          {stream}: {}\n", one_line(text, 100));
        }
    }
    for denial in &h.sandbox_denials {
        *s += &format!("          sandbox: {denial}\n");
    }
}

/// The timeline of `test`'s trace: a bar per hook that ran, scaled to the slowest.
fn human_timeline(s: &mut String, trace: &Trace<'_>) {
    let ran: Vec<(&str, f64)> = trace
        .hooks
        .iter()
        .filter_map(|h| h.run.as_ref().map(|run| (h.label, run.duration_ms)))
        .collect();
    let longest = ran.iter().map(|(_, ms)| *ms).fold(0.0_f64, f64::max);
    if !ran.is_empty() {
        *s += &format!("\ntimeline (all start together; 0 – {longest:.0} ms)\n");
        for (label, ms) in ran {
            let filled = if longest > 0.0 {
                ((ms / longest) * BAR as f64).round() as usize
            } else {
                0
            }
            .clamp(1, BAR);
            *s += &format!(
                "  {:<28} |{}{}| {ms:>6.0} ms\n",
                one_line(label, 28),
                "█".repeat(filled),
                " ".repeat(BAR - filled)
            );
        }
    }
}

/// `text` on one line, at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.trim().replace('\n', "⏎");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
