//! `hookbridge run`: one event in, one hook answer out.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use hookbridge_core::config::discover;
use hookbridge_core::decision::{render_claude, ClaudeAnswer, RunStatus};
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_runner::{dispatch_selection, AsyncHooks, DispatchOptions, EventReport};

use crate::{diagnostics_log, ProjectArgs, EXIT_USAGE};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The Claude Code event name (`PreToolUse`, `Stop`, …).
    #[arg(long, value_name = "NAME")]
    event: String,
    #[command(flatten)]
    project: ProjectArgs,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Claude)]
    format: Format,
    /// Also show problems on the terminal (never on stdout/stderr, which the host reads).
    #[arg(long, short)]
    verbose: bool,
    /// Timeout in seconds for hooks that set none (default: Claude Code's, 600 s; 30 s for
    /// UserPromptSubmit).
    #[arg(long, value_name = "SECONDS", env = "HOOKBRIDGE_DEFAULT_TIMEOUT")]
    default_timeout: Option<f64>,
    /// No hook runs longer than this many seconds.
    #[arg(long, value_name = "SECONDS", env = "HOOKBRIDGE_MAX_TIMEOUT")]
    max_timeout: Option<f64>,
}

impl RunArgs {
    /// `run`'s arguments read without clap, for the plain command lines a host registers
    /// (`--event X --project-dir D`, …). `run` starts once per agent event and clap's cold start is
    /// a measurable share of a hook's latency (docs/benchmarks.md). Anything else — help, a
    /// repeated or unknown option, an empty value or one that looks like an option, an invalid value, the
    /// `HOOKBRIDGE_*_TIMEOUT` variables — returns `None` and is left to clap, which stays the one
    /// definition of what `run` accepts and how its errors read (a test holds the two together).
    pub fn parse_fast(args: impl IntoIterator<Item = std::ffi::OsString>) -> Option<RunArgs> {
        use lexopt::prelude::*;
        if ["HOOKBRIDGE_DEFAULT_TIMEOUT", "HOOKBRIDGE_MAX_TIMEOUT"]
            .iter()
            .any(|v| std::env::var_os(v).is_some())
        {
            return None;
        }
        fn value(parser: &mut lexopt::Parser) -> Option<std::ffi::OsString> {
            parser
                .value()
                .ok()
                .filter(|v| !v.is_empty() && !v.as_encoded_bytes().starts_with(b"-"))
        }
        fn seconds(parser: &mut lexopt::Parser) -> Option<f64> {
            value(parser)?.to_str()?.parse().ok()
        }
        let mut parser = lexopt::Parser::from_args(args);
        let (mut event, mut project_dir, mut format) = (None, None, None);
        let (mut no_user_hooks, mut no_project_hooks, mut verbose) = (false, false, false);
        let (mut default_timeout, mut max_timeout) = (None, None);
        while let Some(arg) = parser.next().ok()? {
            match arg {
                Long("event") if event.is_none() => event = Some(value(&mut parser)?.into_string().ok()?),
                Long("project-dir") if project_dir.is_none() => {
                    project_dir = Some(PathBuf::from(value(&mut parser)?));
                }
                Long("no-user-hooks") if !no_user_hooks => no_user_hooks = true,
                Long("no-project-hooks") if !no_project_hooks => no_project_hooks = true,
                Short('v') | Long("verbose") if !verbose => verbose = true,
                Long("format") if format.is_none() => {
                    format = Some(match value(&mut parser)?.to_str()? {
                        "claude" => Format::Claude,
                        "amplifier" => Format::Amplifier,
                        "report" => Format::Report,
                        _ => return None,
                    });
                }
                Long("default-timeout") if default_timeout.is_none() => {
                    default_timeout = Some(seconds(&mut parser)?);
                }
                Long("max-timeout") if max_timeout.is_none() => max_timeout = Some(seconds(&mut parser)?),
                _ => return None,
            }
        }
        Some(RunArgs {
            event: event?,
            project: ProjectArgs {
                project_dir,
                no_user_hooks,
                no_project_hooks,
            },
            format: format.unwrap_or(Format::Claude),
            verbose,
            default_timeout,
            max_timeout,
        })
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// Exit code, stdout and stderr exactly as Claude Code expects from one hook.
    Claude,
    /// An Amplifier HookResult as JSON on stdout.
    Amplifier,
    /// Every hook's outcome and the Claude Code answer, as JSON on stdout (for people and tests).
    Report,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let event = match EventName::parse(&args.event) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("hookbridge: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let context = format!("run {event}");
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .context("reading the event payload from stdin")?;
    let mut payload = match EventPayload::parse(event.clone(), &input) {
        Ok(p) => p,
        Err(e) => {
            // Not our answer to give: a non-blocking error, reported like any failed hook.
            let line = format!("payload refused, no hook ran: {e}");
            diagnostics_log::append(&context, std::slice::from_ref(&line));
            if args.verbose {
                diagnostics_log::to_terminal(std::slice::from_ref(&line));
            }
            eprintln!("hookbridge: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let project_dir = args.project.project_dir()?;
    if payload.cwd().is_none() {
        if let Ok(cwd) = std::env::current_dir() {
            payload.set(
                "cwd",
                serde_json::Value::String(cwd.to_string_lossy().into_owned()),
            );
        }
    }
    // Never dropped: the process exits right after answering, and freeing every loaded hook one
    // by one (thousands with many plugins) would only delay the answer the agent is waiting for.
    let set = std::mem::ManuallyDrop::new(discover(&args.project.discovery()?));
    let mut problems: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();

    let mut options = DispatchOptions::new(&project_dir);
    options.default_timeout = seconds(args.default_timeout, "--default-timeout")?;
    options.max_timeout = seconds(args.max_timeout, "--max-timeout")?;
    options.env_file = ["AMPLIFIER_ENV_FILE", "CLAUDE_ENV_FILE"]
        .iter()
        .find_map(|v| std::env::var_os(v).filter(|p| !p.is_empty()))
        .map(PathBuf::from);

    // Claude Code backgrounds a hook whose first stdout line is `{"async": true}` and hands its later
    // JSON to the model on a later request (measured, cases 81 and 190–191). When every hook this
    // event reaches is `async: true`, hookbridge answers the same way, so their output arrives as it
    // would have directly; a mix of sync and async hooks answers for the sync ones and starts the
    // async ones detached.
    let selection = set.select(&payload);
    let all_async = args.format == Format::Claude
        && !selection.hooks.is_empty()
        && selection
            .hooks
            .iter()
            .all(|h| matches!(&h.kind, hookbridge_core::config::HookKind::Command(c) if c.run_async));
    // A mix runs the async ones in a forked copy of this (single-threaded) process, which outlives
    // the answer; an all-async event awaits them and answers through Claude Code's async channel.
    options.async_hooks = AsyncHooks::ForkedSupervisor;
    if all_async {
        options.async_hooks = AsyncHooks::Await;
        let mut out = std::io::stdout().lock();
        out.write_all(b"{\"async\": true}\n")?;
        out.flush()?;
    }
    let report = dispatch_selection(selection, &payload, &options);
    problems.extend(report_problems(&report));
    diagnostics_log::append(&context, &problems);
    if args.verbose {
        diagnostics_log::to_terminal(&problems);
    }

    if all_async {
        let answer = async_answer(&report);
        diagnostics_log::append(&context, &problems_after_async(&report));
        print_answer(&answer)?;
        return Ok(ExitCode::SUCCESS);
    }
    let answer = render_claude(
        &report.event,
        report.match_query.as_deref(),
        &report.decision,
        &own_command(),
    );
    match args.format {
        Format::Claude => {
            print_answer(&answer)?;
            Ok(ExitCode::from(exit_byte(answer.exit_code)))
        }
        Format::Report => {
            let mut json = report.to_json();
            json["answer"] = serde_json::json!({
                "exit_code": answer.exit_code,
                "stdout": answer.stdout,
                "stderr": answer.stderr,
            });
            json["diagnostics"] = serde_json::json!(set
                .diagnostics
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>());
            println!("{}", serde_json::to_string_pretty(&json)?);
            Ok(ExitCode::SUCCESS)
        }
        Format::Amplifier => {
            // The payload stands in for the Amplifier event data: `run` receives Claude Code's form.
            let amplifier_event = hookbridge_core::amplifier::events::amplifier_event_for(&report.event)
                .unwrap_or(report.event.as_str());
            let data = serde_json::Value::Object(payload.fields().clone());
            let result = hookbridge_core::amplifier::translate::to_hook_result(
                amplifier_event,
                &data,
                &payload,
                &report.decision,
            );
            println!("{}", serde_json::to_string(&result)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn seconds(value: Option<f64>, flag: &str) -> anyhow::Result<Option<Duration>> {
    match value {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => anyhow::bail!("{flag} must be a positive number of seconds, not {s}"),
    }
}

fn print_answer(answer: &ClaudeAnswer) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(answer.stdout.as_bytes())?;
    out.flush()?;
    let mut err = std::io::stderr().lock();
    err.write_all(answer.stderr.as_bytes())?;
    err.flush()?;
    Ok(())
}

fn exit_byte(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(1)
}

/// One line per hook that did not give a clean answer, and per skipped hook.
fn report_problems(report: &EventReport) -> Vec<String> {
    let mut lines = Vec::new();
    for h in &report.hooks {
        let who = format!(
            "{} hook `{}` ({}:{}:{})",
            h.hook.type_name,
            h.hook.label,
            h.hook.source.display(),
            h.hook.line,
            h.hook.column
        );
        let stderr = String::from_utf8_lossy(&h.execution.stderr);
        let first_line = stderr.lines().next().unwrap_or("").to_string();
        match &h.execution.status {
            RunStatus::Exited(0) | RunStatus::Exited(2) | RunStatus::Detached => {}
            RunStatus::Exited(code) => lines.push(format!("{who} exited with code {code}: {first_line}")),
            RunStatus::Signaled(sig) => lines.push(format!("{who} was killed by signal {sig}")),
            RunStatus::TimedOut => lines.push(format!(
                "{who} timed out after {:.1} s; its process tree was killed and it gave no answer",
                h.timeout.as_secs_f64()
            )),
            RunStatus::SpawnFailed(why) => lines.push(format!("{who} could not start: {why}")),
            RunStatus::NotRun(why) => lines.push(format!("{who} skipped: {why}")),
            RunStatus::Cancelled(why) => lines.push(format!("{who} {why}")),
        }
        if h.execution.leaked {
            lines.push(format!("{who} left a background process holding its output open; its answer was taken when it exited"));
        }
        if h.execution.stdout_truncated || h.execution.stderr_truncated {
            lines.push(format!(
                "{who} printed more than the output cap; the rest was drained and dropped"
            ));
        }
    }
    for (h, reason) in &report.skipped {
        lines.push(format!(
            "{} hook `{}` ({}:{}:{}) skipped: {reason}",
            h.type_name,
            h.label,
            h.source.display(),
            h.line,
            h.column
        ));
    }
    lines
}

/// The command line that started hookbridge, quoted as a shell would need it (Python's
/// `shlex.quote` rules). Claude Code names a hook by its command string; this reconstructs ours.
fn own_command() -> String {
    std::env::args()
        .map(|arg| {
            let safe = !arg.is_empty()
                && arg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c));
            if safe {
                arg
            } else {
                format!("'{}'", arg.replace('\'', "'\"'\"'"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The deferred answer of an async run: what Claude Code takes from an async hook — its
/// `systemMessage` and `additionalContext` — gathered from every hook, in completion order.
fn async_answer(report: &EventReport) -> ClaudeAnswer {
    let d = &report.decision;
    let mut out = serde_json::Map::new();
    if !d.system_messages.is_empty() {
        out.insert(
            "systemMessage".into(),
            serde_json::json!(d.system_messages.join("\n")),
        );
    }
    let contexts: Vec<&str> = d
        .contexts
        .iter()
        .filter(|c| c.kind == hookbridge_core::decision::ContextKind::AdditionalContext)
        .map(|c| c.text.as_str())
        .collect();
    if !contexts.is_empty() {
        out.insert(
            "hookSpecificOutput".into(),
            serde_json::json!({"hookEventName": report.event.as_str(), "additionalContext": contexts.join("\n\n")}),
        );
    }
    if out.is_empty() {
        return ClaudeAnswer::default();
    }
    ClaudeAnswer {
        exit_code: 0,
        stdout: format!("{}\n", serde_json::Value::Object(out)),
        stderr: String::new(),
    }
}

/// Decisions of async hooks have no effect (as in Claude Code); say so when one tried.
fn problems_after_async(report: &EventReport) -> Vec<String> {
    let d = &report.decision;
    let mut lines = Vec::new();
    if d.blocking.is_some() || d.permission.is_some() || d.stop.is_some() || d.updated_input.is_some() {
        lines.push(
            "an async hook answered with a decision (block, permission, continue:false or updatedInput); async answers can only add context and messages, so it was ignored"
                .to_string(),
        );
    }
    lines
}
