//! `hookbridge run`: one event in, one hook answer out.
//!
//! This file holds what every agent's path shares: the arguments (and their fast reading), the
//! choice of path by `--host`, loading the hooks, the timeouts, printing an answer and the report.
//! One file per path and per idea beside it:
//! - [`host`]: the one path of every agent that is a [`Host`](crate::hosts::Host) (Claude Code,
//!   Codex, Gemini);
//! - [`background`]: background hooks for an agent that reads their answers (Claude Code): each
//!   registration's share of an event's hooks, its async channel, and the answers (`async`,
//!   `asyncRewake`, a hook that switches itself to async);
//! - [`amplifier`]: `--host amplifier`, through the Amplifier host's engine;
//! - [`telemetry`]: the OpenTelemetry spool `run` writes and `hookbridge otel-export` drains.

mod amplifier;
mod background;
mod host;
mod telemetry;

pub use telemetry::otel_export;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use hookbridge_core::decision::ClaudeAnswer;
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_core::timeout::parse_timeout;
use hookbridge_runner::{DispatchOptions, EventReport};

use crate::{diagnostics_log, say, ProjectArgs};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The event name: Claude Code's (`PreToolUse`, `Stop`, …), or with `--host amplifier`
    /// Amplifier's (`tool:pre`, `prompt:submit`, …).
    #[arg(long, value_name = "NAME")]
    event: String,
    /// Whose event and payload arrive on stdin, and in whose terms the answer is given.
    #[arg(long, value_name = "AGENT", value_parser = host_names(), default_value = CLAUDE)]
    host: String,
    #[command(flatten)]
    project: ProjectArgs,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Claude)]
    format: Format,
    /// Also show problems on the terminal (never on stdout/stderr, which the host reads).
    #[arg(long, short)]
    verbose: bool,
    /// Timeout in seconds for hooks that set none (default: Claude Code's: 600 s; 30 s for
    /// UserPromptSubmit; $HOOKBRIDGE_DEFAULT_TIMEOUT for the project's hooks). Positive; capped at
    /// 24.8 days.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    default_timeout: Option<Duration>,
    /// No hook runs longer than this many seconds (default: 24.8 days; `install-into` registers
    /// its outer timeout less 5 s). $HOOKBRIDGE_MAX_TIMEOUT caps the project's hooks too (the
    /// lower wins), as a project's settings can set the variables.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    max_timeout: Option<Duration>,
    /// What to do with `async: true` hooks (not `asyncRewake` ones).
    #[arg(long, value_enum, default_value_t = Background::Detach, value_name = "HOW")]
    async_hooks: Background,
    /// What to do with `asyncRewake` hooks.
    #[arg(long, value_enum, default_value_t = Background::Detach, value_name = "HOW")]
    async_rewake_hooks: Background,
}

/// Where an event's background hooks (`async: true`, `asyncRewake: true`) run. Claude Code delivers
/// an async hook's answer on a later request, and wakes the model with an asyncRewake hook's exit
/// 2, only for a hook registered that way itself. So `install-into` registers, beside the main
/// `hookbridge run` of an event that has such hooks, one `hookbridge run` with `async: true` that
/// runs only the async ones and one with `asyncRewake: true` that runs only the rewake ones
/// (`only`), while the main one leaves them out (`skip`).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Background {
    /// Started in the background by hookbridge; their answers are not delivered (a lone async
    /// hook, or an event whose hooks are all async, still answers through Claude Code's channel).
    Detach,
    /// Left to the `only` registration.
    Skip,
    /// Only these run, awaited, answered as Claude Code reads one such hook: an async hook's
    /// messages and context for later; an asyncRewake hook's exit 2 as exit 2 with its stderr (or
    /// stdout).
    Only,
}

impl RunArgs {
    /// `run`'s arguments read without clap, for the plain command lines a host registers
    /// (`--event X --project-dir D`, …). `run` starts once per agent event and clap's cold start is
    /// a measurable share of a hook's latency (docs/benchmarks.md). Anything else — help, a
    /// repeated or unknown option, an empty value or one that looks like an option, an invalid
    /// value — returns `None` and is left to clap, which stays the one definition of what `run`
    /// accepts and how its errors read (a test holds the two together).
    pub fn parse_fast(args: impl IntoIterator<Item = std::ffi::OsString>) -> Option<RunArgs> {
        use lexopt::prelude::*;
        fn value(parser: &mut lexopt::Parser) -> Option<std::ffi::OsString> {
            parser
                .value()
                .ok()
                .filter(|v| !v.is_empty() && !v.as_encoded_bytes().starts_with(b"-"))
        }
        fn seconds(parser: &mut lexopt::Parser) -> Option<Duration> {
            parse_timeout(value(parser)?.to_str()?).ok()
        }
        let mut parser = lexopt::Parser::from_args(args);
        let (mut event, mut project_dir, mut format) = (None, None, None);
        let (mut no_user_hooks, mut no_project_hooks, mut verbose) = (false, false, false);
        let (mut default_timeout, mut max_timeout, mut rewake, mut background) = (None, None, None, None);
        fn mode(parser: &mut lexopt::Parser) -> Option<Background> {
            Some(match value(parser)?.to_str()? {
                "detach" => Background::Detach,
                "skip" => Background::Skip,
                "only" => Background::Only,
                _ => return None,
            })
        }
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
                Long("async-rewake-hooks") if rewake.is_none() => {
                    rewake = Some(mode(&mut parser)?);
                }
                Long("async-hooks") if background.is_none() => {
                    background = Some(mode(&mut parser)?);
                }
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
            host: CLAUDE.to_string(),
            async_hooks: background.unwrap_or(Background::Detach),
            async_rewake_hooks: rewake.unwrap_or(Background::Detach),
        })
    }
}

/// `--host`'s default: Claude Code.
const CLAUDE: &str = "claude";

/// `--host`'s values: every agent hookbridge runs as the hook of (`agents::AGENTS`).
fn host_names() -> clap::builder::PossibleValuesParser {
    crate::agents::values(|a| a.runs.is_some(), |a| Some(a.summary.to_string()))
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
    use crate::agents::Runs;
    let agent = crate::agents::named(&args.host).expect("clap accepts only the agents there are");
    match agent
        .runs
        .expect("clap accepts only the agents hookbridge runs for")
    {
        Runs::Host(host) => host::run_host(agent, host, args),
        Runs::Amplifier => amplifier::run_amplifier(args),
    }
}

/// `run --format report`'s output: the event's report, the answer given, and (for Claude Code)
/// the configuration's diagnostics.
#[derive(serde::Serialize)]
struct RunReport<'a> {
    #[serde(flatten)]
    report: hookbridge_runner::report::ReportView<'a>,
    answer: &'a ClaudeAnswer,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostics: Option<Vec<String>>,
}

fn print_report(report: &RunReport<'_>) -> anyhow::Result<ExitCode> {
    print_json(&serde_json::to_string_pretty(report)?)?;
    Ok(ExitCode::SUCCESS)
}

/// The payload's `cwd`, this process's when the agent sent none.
fn fill_cwd(payload: &mut EventPayload) {
    if payload.cwd().is_none() {
        if let Ok(cwd) = std::env::current_dir() {
            payload.set(
                "cwd",
                serde_json::Value::String(cwd.to_string_lossy().into_owned()),
            );
        }
    }
}

/// The project's hooks (their problems for the log) and the dispatch options `args` and the
/// environment ask for: timeouts, and the env file offered to SessionStart hooks.
fn load_hooks(
    args: &RunArgs,
    host: &str,
    project_dir: &std::path::Path,
    problems: &mut Vec<String>,
) -> (
    std::mem::ManuallyDrop<hookbridge_core::config::HookSet>,
    DispatchOptions,
    hookbridge_core::trust::Applied,
) {
    // Never dropped: the process exits right after answering, and freeing every loaded hook one
    // by one (thousands with many plugins) would only delay the answer the agent is waiting for.
    let loaded = args.project.load(project_dir);
    let set = std::mem::ManuallyDrop::new(loaded.set);
    problems.extend(set.diagnostics.iter().map(ToString::to_string));
    if loaded.trust.held > 0 {
        problems.push(hookbridge_core::trust::held_notice(
            loaded.trust.held,
            &loaded.trust.state,
            project_dir,
        ));
    }
    let mut options = DispatchOptions::new(project_dir);
    options.apply_trust(&loaded.trust);
    let audit = hookbridge_runner::audit::AuditLog::for_host(host, set.managed.as_ref());
    problems.extend(audit.as_ref().and_then(|a| a.ignored.clone()));
    options.audit = audit.map(std::sync::Arc::new);
    options.telemetry = telemetry::telemetry(host, problems);
    set_timeouts(&mut options, args, problems);
    options.apply_settings(&set);
    (set, options, loaded.trust)
}

/// Tells the user of held project hooks through the host's own channel (a `systemMessage`), once
/// per session: the first event of a session whose answer can carry it.
fn tell_of_held_hooks(
    notice: Option<String>,
    project_dir: &std::path::Path,
    payload: &EventPayload,
    decision: &mut hookbridge_core::decision::EventDecision,
) {
    let Some(notice) = notice else {
        return;
    };
    let session = payload.session_id().unwrap_or_default();
    if hookbridge_core::trust::store::first_notice(session, project_dir) {
        decision.system_messages.push(notice);
    }
}

/// At the end of a turn (a Stop whose own hooks neither blocked nor failed), tells the user of the
/// session's hooks that failed in every run — each a guard that checked nothing — once per
/// session and hook, through the host's own channel (a `systemMessage`), from the audit log
/// (nothing when it is off).
fn tell_of_silent_hooks(
    options: &DispatchOptions,
    payload: &EventPayload,
    decision: &mut hookbridge_core::decision::EventDecision,
) {
    use hookbridge_runner::audit::session::{failing_throughout, notice};
    // Only on a quiet Stop: a `systemMessage` makes the answer JSON, which would replace a hook's
    // own error or block (told on a later turn instead).
    let quiet =
        decision.blocking.is_none() && decision.last_error_code.is_none() && decision.notices.is_empty();
    if *payload.event() != EventName::Stop || !quiet {
        return;
    }
    let (Some(audit), Some(session)) = (&options.audit, payload.session_id()) else {
        return;
    };
    let Ok(silent) = failing_throughout(&audit.path, session) else {
        return;
    };
    let untold: Vec<_> = silent
        .into_iter()
        .filter(|h| {
            let what = format!("silent hook\0{}\0{}", h.source, h.label);
            hookbridge_core::trust::store::first_notice_of(session, &what)
        })
        .collect();
    if !untold.is_empty() {
        decision.system_messages.push(notice(&untold, session));
    }
}

/// What the user is told of held project hooks, if any are held.
fn held_notice(trust: &hookbridge_core::trust::Applied, project_dir: &std::path::Path) -> Option<String> {
    (trust.held > 0).then(|| hookbridge_core::trust::held_notice(trust.held, &trust.state, project_dir))
}

/// The project `args` name (its warnings for the log) and the event's payload, read from stdin.
fn project_and_input(args: &RunArgs) -> anyhow::Result<(PathBuf, Vec<String>, Vec<u8>)> {
    let project = args.project.resolve()?;
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .context("reading the event payload from stdin")?;
    Ok((project.dir, project.warnings, input))
}

/// The hooks' timeouts from `--default-timeout`/`--max-timeout` (every hook's), or their
/// variables (the project's hooks' only: [`timeouts_from_env`]).
fn set_timeouts(options: &mut DispatchOptions, args: &RunArgs, problems: &mut Vec<String>) {
    options.default_timeout = args.default_timeout;
    options.max_timeout = args.max_timeout;
    options.project_timeouts = timeouts_from_env(args, problems);
}

/// The timeouts of `HOOKBRIDGE_DEFAULT_TIMEOUT` (where no flag sets the default) and
/// `HOOKBRIDGE_MAX_TIMEOUT` (beside the flag's cap: the lower wins), which reach the project's hooks
/// only: the variables come through the agent's environment, which a project's settings can extend
/// (Claude Code's `env`), so a second's cap from them must not let the user's own guards time out;
/// and a registration's `--max-timeout` must not lift the cap a user set on a project's hooks.
fn timeouts_from_env(args: &RunArgs, problems: &mut Vec<String>) -> hookbridge_runner::ProjectTimeouts {
    hookbridge_runner::ProjectTimeouts {
        default: args
            .default_timeout
            .is_none()
            .then(|| env_timeout("HOOKBRIDGE_DEFAULT_TIMEOUT", problems))
            .flatten(),
        max: env_timeout("HOOKBRIDGE_MAX_TIMEOUT", problems),
    }
}

/// The exit code when a termination signal stopped the hooks (every one still running was killed
/// with its group): logged, and no answer is given.
fn stopped_by_signal(
    report: Option<&EventReport>,
    problems: &mut Vec<String>,
    context: &str,
) -> Option<ExitCode> {
    let signal = hookbridge_runner::process::termination_signal_received()?;
    problems.push(format!(
        "hookbridge was stopped by signal {signal} while its hooks ran; every hook still running was killed with its process group, and no answer was given"
    ));
    problems.extend(report.map(report_problems).unwrap_or_default());
    diagnostics_log::append(context, problems);
    Some(ExitCode::from(128u8.saturating_add(signal as u8)))
}

/// A payload no hook can be given: logged (and with `verbose` shown) and said on stderr, exit 1
/// (a non-blocking error for Gemini CLI as for Claude Code).
fn refuse_payload(
    context: &str,
    mut problems: Vec<String>,
    why: String,
    verbose: bool,
) -> anyhow::Result<ExitCode> {
    problems.push(format!("payload refused, no hook ran: {why}"));
    diagnostics_log::append(context, &problems);
    if verbose {
        diagnostics_log::to_terminal(&problems);
    }
    say(format_args!("{why}"));
    Ok(ExitCode::from(crate::EXIT_INTERNAL))
}

/// The shortest timeout an environment variable may set, even for the project's own hooks (a
/// timeout of a millisecond is no setting anyone means).
const SHORTEST_TIMEOUT_FROM_ENV: Duration = Duration::from_secs(1);

/// The timeout `var` sets; a bad value (or one below [`SHORTEST_TIMEOUT_FROM_ENV`]) is a logged
/// warning and the default (the flags' own values were checked by the parser: a bad one is a
/// usage error).
fn env_timeout(var: &str, problems: &mut Vec<String>) -> Option<Duration> {
    let raw = std::env::var_os(var).filter(|v| !v.is_empty())?;
    let parsed = raw
        .to_str()
        .ok_or_else(|| "not UTF-8".to_string())
        .and_then(|text| parse_timeout(text).map_err(|e| e.to_string()))
        .and_then(|timeout| {
            if timeout < SHORTEST_TIMEOUT_FROM_ENV {
                Err(format!(
                    "below the {} s an environment variable may set",
                    SHORTEST_TIMEOUT_FROM_ENV.as_secs()
                ))
            } else {
                Ok(timeout)
            }
        });
    match parsed {
        Ok(timeout) => Some(timeout),
        Err(why) => {
            problems.push(format!(
                "{var}=`{}` ignored: {why}; the default applies",
                raw.to_string_lossy()
            ));
            None
        }
    }
}

/// Write the answer: stdout, then stderr. The exit code is the answer's whatever happens here: a
/// channel the host closed or that cannot take it (`2>/dev/full`) loses what was meant for it, and
/// `lost` gets a line saying so for the log.
fn print_answer(answer: &ClaudeAnswer, lost: &mut Vec<String>) {
    write_channel(std::io::stdout(), answer.stdout.text().as_bytes(), "stdout", lost);
    write_channel(std::io::stderr(), answer.stderr.as_bytes(), "stderr", lost);
    if !lost.is_empty() {
        lost.push(format!(
            "the answer's exit code {} was given all the same",
            answer.exit_code
        ));
    }
}

fn write_channel(mut channel: impl Write, bytes: &[u8], name: &str, lost: &mut Vec<String>) {
    if bytes.is_empty() {
        return;
    }
    if let Err(e) = channel.write_all(bytes).and_then(|()| channel.flush()) {
        lost.push(format!(
            "could not write the answer to {name} ({e}); {} bytes lost",
            bytes.len()
        ));
    }
}

/// `--format report`/`amplifier` output; a failure is an error of the run (exit 1, logged).
fn print_json(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .context("writing the JSON answer to stdout")
}

fn exit_byte(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(1)
}

/// One line per hook that did not give a clean answer, and per skipped hook.
/// What this process does before it runs hooks (only then: an event with nothing to run pays for
/// none of it). Returns the canceller the termination signals trigger.
fn prepare_to_run_hooks() -> Option<hookbridge_runner::process::Canceller> {
    use hookbridge_runner::process;
    // Many hooks on one event must not be refused descriptors by a low `ulimit -n`.
    process::raise_open_file_limit();
    // A hook's process that outlives its parent stays in hookbridge's tree, where a timeout can
    // still find and kill it.
    process::become_child_subreaper();
    // Hooks still running when hookbridge is killed outright (SIGKILL) are stopped by a guardian
    // process (runs that last past 100 ms get one).
    process::guard_hooks_against_sigkill();
    // The host stopping us (SIGTERM at its timeout, SIGINT, SIGHUP) stops every hook with us.
    process::cancel_on_termination_signals()
}

fn report_problems(report: &EventReport) -> Vec<String> {
    hookbridge_runner::problems::problems(report)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The command line that started hookbridge, quoted as a shell would need it (Python's
/// `shlex.quote` rules). Claude Code names a hook by its command string; this reconstructs ours.
pub(crate) fn own_command() -> String {
    std::env::args_os()
        .map(|arg| arg.to_string_lossy().into_owned())
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
