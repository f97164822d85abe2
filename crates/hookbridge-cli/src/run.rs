//! `hookbridge run`: one event in, one hook answer out.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use hookbridge_core::config::{HookSet, HookSpec};
use hookbridge_core::decision::{render_claude, ClaudeAnswer, HookJson, Stdout};
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_core::timeout::parse_timeout;
use hookbridge_runner::process::FirstLineWatch;
use hookbridge_runner::{dispatch_selection, AsyncHooks, DispatchOptions, EventReport};

use crate::{diagnostics_log, say, ProjectArgs, UsageError};

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
    /// Timeout in seconds for hooks that set none (default: $HOOKBRIDGE_DEFAULT_TIMEOUT, else
    /// Claude Code's: 600 s; 30 s for UserPromptSubmit). Positive; capped at 24.8 days.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    default_timeout: Option<Duration>,
    /// No hook runs longer than this many seconds (default: $HOOKBRIDGE_MAX_TIMEOUT, else 24.8 days).
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
        Runs::Claude => run_claude(args),
        Runs::Amplifier => run_amplifier(args),
        Runs::Host(host) => run_host(agent, host, args),
    }
}

/// `run` for Claude Code: the event's hooks, this registration's share of them, answered on
/// Claude Code's channels (its exit code and streams, and its async channel).
fn run_claude(args: RunArgs) -> anyhow::Result<ExitCode> {
    if args.async_hooks == Background::Only && args.async_rewake_hooks == Background::Only {
        return Err(UsageError(
            "--async-hooks only and --async-rewake-hooks only are two registrations; give one".into(),
        )
        .into());
    }
    let flag_event = EventName::parse(&args.event).map_err(|e| {
        let hint = did_you_mean(&args.event)
            .map(|k| format!("; did you mean `{k}`?"))
            .unwrap_or_default();
        UsageError(format!("{e}{hint}"))
    })?;
    let (project_dir, mut problems, input) = project_and_input(&args)?;
    let event = choose_event(flag_event, declared_event(&input), &mut problems);
    let mut payload = match EventPayload::parse(event.clone(), &input) {
        Ok(p) => p,
        Err(e) => {
            // Not our answer to give: a non-blocking error, reported like any failed hook.
            problems.push(format!("payload refused, no hook ran: {e}"));
            diagnostics_log::append(&format!("run {event}"), &problems);
            if args.verbose {
                diagnostics_log::to_terminal(&problems);
            }
            say(format_args!("{e}"));
            return Ok(ExitCode::from(crate::EXIT_INTERNAL));
        }
    };
    let context = format!("run {}", payload.event());
    fill_cwd(&mut payload);
    let (set, mut options, trust) = load_hooks(&args, CLAUDE, &project_dir, &mut problems);
    let mut selection = set.select(&payload);
    let registration = Registration::of(&args);
    registration.take_its_share(&mut selection.hooks);
    let channel = registration.channel(&selection.hooks, &mut options, &mut problems);
    if !selection.hooks.is_empty() {
        options.canceller = prepare_to_run_hooks();
    }
    let mut report = dispatch_selection(selection, &payload, &options);
    if let Some(stopped) = stopped_by_signal(Some(&report), &mut problems, &context) {
        return Ok(stopped);
    }
    tell_of_held_hooks(
        held_notice(&trust, &project_dir),
        &project_dir,
        &payload,
        &mut report.decision,
    );
    tell_of_silent_hooks(&options, &payload, &mut report.decision);
    // Test hook (debug builds only): a panic after the hooks ran (tests/integration/cli_failsafe.rs).
    #[cfg(debug_assertions)]
    if std::env::var_os("HOOKBRIDGE_TEST_PANIC").is_some() {
        panic!("HOOKBRIDGE_TEST_PANIC is set");
    }
    problems.extend(report_problems(&report));
    diagnostics_log::append(&context, &problems);
    if args.verbose {
        diagnostics_log::to_terminal(&problems);
    }
    if let Some(code) = answer_on_async_channel(&registration, &channel, &args, &report, &set, &context) {
        return Ok(code);
    }
    answer_claude(&args, &report, &set, &payload, &context)
}

/// Which of an event's hooks this registration runs: Claude Code delivers an async hook's answer
/// only for a hook registered `async: true`, and wakes the model only for one registered
/// `asyncRewake: true`, so `install-into` registers up to three commands per event and each takes
/// its share of the hooks the event reaches (selected, and deduplicated, the same way in every one).
struct Registration {
    async_mode: Background,
    rewake_mode: Background,
    /// This is the `asyncRewake: true` registration: its hooks alone.
    rewake_only: bool,
    /// This is the `async: true` registration: its hooks alone.
    async_only: bool,
    /// The answer goes on Claude Code's own channels (not a report).
    claude_channel: bool,
}

/// How the answer is given, decided before the hooks run.
struct Channel {
    /// Every hook the event reaches is `async: true`: `{"async": true}` was printed first, and the
    /// answer follows as an async one.
    all_async: bool,
    /// Set when a lone command hook switched itself to async with its first line.
    switched: Arc<AtomicBool>,
}

impl Registration {
    fn of(args: &RunArgs) -> Registration {
        Registration {
            async_mode: args.async_hooks,
            rewake_mode: args.async_rewake_hooks,
            rewake_only: args.async_rewake_hooks == Background::Only,
            async_only: args.async_hooks == Background::Only,
            claude_channel: args.format == Format::Claude,
        }
    }

    fn take_its_share(&self, hooks: &mut Vec<&HookSpec>) {
        hooks.retain(|h| match background_kind(h) {
            None => !self.rewake_only && !self.async_only,
            Some(BackgroundKind::Async) => !self.rewake_only && self.async_mode != Background::Skip,
            Some(BackgroundKind::Rewake) => !self.async_only && self.rewake_mode != Background::Skip,
        });
    }

    /// Claude Code backgrounds a hook whose first stdout line is `{"async": true}` and hands its
    /// later JSON to the model on a later request (measured, cases 81 and 190–191). When every
    /// hook this event reaches is `async: true`, hookbridge answers the same way, so their output
    /// arrives as it would have directly; a mix of sync and async hooks answers for the sync ones
    /// and starts the async ones detached. Sets `options` to match.
    fn channel(
        &self,
        hooks: &[&HookSpec],
        options: &mut DispatchOptions,
        problems: &mut Vec<String>,
    ) -> Channel {
        use hookbridge_core::config::HookKind;
        let all_async = self.claude_channel
            && !self.rewake_only
            && !self.async_only
            && !hooks.is_empty()
            && hooks
                .iter()
                .all(|h| matches!(&h.kind, HookKind::Command(c) if c.run_async));
        // A mix runs the async ones in a forked copy of this (single-threaded) process, which
        // outlives the answer; an all-async event awaits them and answers through Claude Code's
        // async channel.
        options.async_hooks = AsyncHooks::ForkedSupervisor;
        if all_async || self.rewake_only || self.async_only {
            options.async_hooks = AsyncHooks::Await;
        }
        if all_async {
            write_channel(std::io::stdout(), b"{\"async\": true}\n", "stdout", problems);
        }
        // A lone command hook may switch itself to async mid-run (first line `{"async": true}`,
        // case 191): answered the same way at that moment, its later answer follows as an async one.
        let switched = Arc::new(AtomicBool::new(false));
        let lone_command = !self.rewake_only
            && !self.async_only
            && hooks.len() == 1
            && matches!(&hooks[0].kind, HookKind::Command(c) if !c.run_async);
        if self.claude_channel && !all_async && lone_command {
            let flag = switched.clone();
            options.first_line = Some(FirstLineWatch(Arc::new(move |line: &[u8]| {
                if is_async_switch(line) {
                    flag.store(true, Ordering::SeqCst);
                    let mut out = std::io::stdout();
                    let _ = out.write_all(b"{\"async\": true}\n").and_then(|()| out.flush());
                }
            })));
        }
        Channel { all_async, switched }
    }
}

/// The answer of a registration whose hooks answer on Claude Code's async channel (or wake the
/// model), if this is one: its exit code, the answer printed.
fn answer_on_async_channel(
    registration: &Registration,
    channel: &Channel,
    args: &RunArgs,
    report: &EventReport,
    set: &HookSet,
    context: &str,
) -> Option<ExitCode> {
    let (answer, mut lines, code) = if channel.switched.load(Ordering::SeqCst) {
        let report = read_after_switch(report.clone(), set);
        let answer = async_answer(&report);
        (answer, problems_after_async(&report), ExitCode::SUCCESS)
    } else if registration.rewake_only && args.format == Format::Claude {
        let answer = rewake_answer(report);
        // An exit 2 is this registration's way to wake the model, not a decision that was ignored.
        let lines = match answer.exit_code {
            2 => Vec::new(),
            _ => problems_after_async(report),
        };
        let code = ExitCode::from(exit_byte(answer.exit_code));
        (answer, lines, code)
    } else if channel.all_async || (registration.async_only && args.format == Format::Claude) {
        (
            async_answer(report),
            problems_after_async(report),
            ExitCode::SUCCESS,
        )
    } else {
        return None;
    };
    print_answer(&answer, &mut lines);
    diagnostics_log::append(context, &lines);
    Some(code)
}

/// The answer in the format asked for: Claude Code's, the report, or an Amplifier `HookResult`.
fn answer_claude(
    args: &RunArgs,
    report: &EventReport,
    set: &HookSet,
    payload: &EventPayload,
    context: &str,
) -> anyhow::Result<ExitCode> {
    let answer = render_claude(
        &report.event,
        report.match_query.as_deref(),
        &report.decision,
        &own_command(),
    );
    match args.format {
        Format::Claude => {
            let mut lost = Vec::new();
            print_answer(&answer, &mut lost);
            diagnostics_log::append(context, &lost);
            Ok(ExitCode::from(exit_byte(answer.exit_code)))
        }
        Format::Report => {
            let diagnostics = set.diagnostics.iter().map(ToString::to_string).collect();
            print_report(&RunReport {
                report: report.view(),
                answer: &answer,
                diagnostics: Some(diagnostics),
            })
        }
        Format::Amplifier => {
            // The payload stands in for the Amplifier event data: `run` receives Claude Code's form.
            let amplifier_event = hookbridge_amplifier::events::amplifier_event_for(&report.event)
                .unwrap_or(report.event.as_str());
            let data = serde_json::Value::Object(payload.fields().clone());
            let result = hookbridge_amplifier::translate::to_hook_result(
                amplifier_event,
                &data,
                payload,
                &report.decision,
            );
            print_json(&serde_json::to_string(&result)?)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `run --host amplifier`: one Amplifier kernel event, through the engine the hook-bridge module
/// uses (the project's and the user's hooks as `run` finds them, the session's working directory
/// being this process's).
fn run_amplifier(args: RunArgs) -> anyhow::Result<ExitCode> {
    use hookbridge_amplifier::engine::{amplifier_events, Engine, EngineSettings, HostContext};
    let events = amplifier_events();
    if !events.contains(&args.event.as_str()) {
        return Err(UsageError(format!(
            "`{}` is not an Amplifier event hooks run on; expected one of: {}",
            args.event,
            events.join(", ")
        ))
        .into());
    }
    let (project_dir, mut problems, input) = project_and_input(&args)?;
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let settings = EngineSettings {
        project_dir: project_dir.clone(),
        user_home: home.clone(),
        include_user: !args.project.no_user_hooks,
        include_project: !args.project.no_project_hooks,
        default_timeout: timeout_setting(args.default_timeout, "HOOKBRIDGE_DEFAULT_TIMEOUT", &mut problems),
        max_timeout: timeout_setting(args.max_timeout, "HOOKBRIDGE_MAX_TIMEOUT", &mut problems),
        inline_hooks: None,
        // This process exits after the event: a forked supervisor sees async hooks through.
        async_hooks: AsyncHooks::ForkedSupervisor,
    };
    let engine = Engine::new(settings);
    problems.extend(engine.loaded().diagnostics.iter().cloned());
    let mut context = HostContext::default();
    context.session.cwd = std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned());
    context.session.home_dir = home.map(|h| h.to_string_lossy().into_owned());
    context.env_file = ["AMPLIFIER_ENV_FILE", "CLAUDE_ENV_FILE"]
        .iter()
        .find_map(|v| std::env::var_os(v).filter(|p| !p.is_empty()))
        .map(PathBuf::from);
    // The host stopping us (SIGTERM, SIGINT, SIGHUP) stops every hook with us, as for `run`.
    context.canceller = prepare_to_run_hooks();
    let log_context = format!("run --host amplifier {}", args.event);
    let text = String::from_utf8_lossy(&input);
    let text = if text.trim().is_empty() {
        "{}"
    } else {
        text.as_ref()
    };
    let out = match engine.dispatch(&args.event, text, &context) {
        Ok(out) => out,
        Err(why) => {
            problems.push(format!("event data refused, no hook ran: {why}"));
            diagnostics_log::append(&log_context, &problems);
            say(format_args!("{why}"));
            return Ok(ExitCode::from(crate::EXIT_INTERNAL));
        }
    };
    if let Some(stopped) = stopped_by_signal(None, &mut problems, &log_context) {
        return Ok(stopped);
    }
    problems.extend(
        out["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().map(str::to_string)),
    );
    diagnostics_log::append(&log_context, &problems);
    if args.verbose {
        diagnostics_log::to_terminal(&problems);
    }
    match args.format {
        Format::Report => print_json(&serde_json::to_string_pretty(&out)?)?,
        Format::Claude | Format::Amplifier => print_json(&out["result"].to_string())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `run --host <agent>` for an agent that is a [`Host`](crate::hosts::Host): its event and payload
/// as Claude Code's, dispatched as `run` dispatches (`async` hooks in the background: these agents
/// read no async answer), answered in its terms.
fn run_host(
    agent: &crate::agents::Agent,
    host: &dyn crate::hosts::Host,
    args: RunArgs,
) -> anyhow::Result<ExitCode> {
    if args.async_hooks != Background::Detach || args.async_rewake_hooks != Background::Detach {
        return Err(UsageError(format!(
            "--async-hooks and --async-rewake-hooks split Claude Code's registrations; {} has one per event",
            agent.name
        ))
        .into());
    }
    let claude = host.claude_event(&args.event).map_err(UsageError)?;
    let (project_dir, mut problems, input) = project_and_input(&args)?;
    let context = format!("run --host {} {}", agent.name, args.event);
    let Some(claude) = claude else {
        problems.push(format!(
            "{} has no Claude Code event: no hook runs on it",
            args.event
        ));
        diagnostics_log::append(&context, &problems);
        return Ok(ExitCode::SUCCESS);
    };
    let fields = match serde_json::from_slice::<serde_json::Value>(&input) {
        Ok(serde_json::Value::Object(fields)) => fields,
        Ok(_) | Err(_) if input.iter().all(u8::is_ascii_whitespace) => serde_json::Map::new(),
        Ok(other) => {
            return refuse_payload(
                &context,
                problems,
                format!("the payload must be a JSON object, got {other}"),
            )
        }
        Err(e) => return refuse_payload(&context, problems, format!("the payload is not valid JSON: {e}")),
    };
    let fields = host.claude_payload(&claude, fields);
    let mut payload = match EventPayload::from_value(claude, serde_json::Value::Object(fields)) {
        Ok(payload) => payload,
        Err(e) => return refuse_payload(&context, problems, e.to_string()),
    };
    fill_cwd(&mut payload);
    let (mut set, mut options, trust) = load_hooks(&args, agent.name, &project_dir, &mut problems);
    let mut notice = held_notice(&trust, &project_dir);
    // Never looser than the agent: a folder it does not trust runs none of the project's hooks.
    let home = args
        .project
        .discovery(&project_dir)
        .user_hooks_dir
        .and_then(|d| Some(d.parent()?.parent()?.to_path_buf()));
    if let Err(why) = host.folder_trust(&project_dir, home.as_deref()) {
        let held =
            hookbridge_core::trust::Held::HostDoesNotTrustFolder(format!("{} ({why})", agent.display_name));
        let count = set.hold(hookbridge_core::config::Scope::Project, &held);
        options.project_mcp_servers = false;
        if count > 0 {
            let line = format!(
                "hookbridge: {count} project hook(s) in {} {held}",
                project_dir.display()
            );
            problems.push(line.clone());
            notice = Some(line);
        }
    }
    options.async_hooks = AsyncHooks::ForkedSupervisor;
    host.dispatch_options(&mut options);
    let selection = set.select(&payload);
    if !selection.hooks.is_empty() {
        options.canceller = prepare_to_run_hooks();
    }
    let mut report = dispatch_selection(selection, &payload, &options);
    if let Some(stopped) = stopped_by_signal(Some(&report), &mut problems, &context) {
        return Ok(stopped);
    }
    tell_of_held_hooks(notice, &project_dir, &payload, &mut report.decision);
    tell_of_silent_hooks(&options, &payload, &mut report.decision);
    problems.extend(report_problems(&report));
    let own = own_command();
    let answering = crate::hosts::AnswerContext {
        host_event: &args.event,
        own_command: &own,
    };
    let (answer, notes) = host.answer(&answering, &report);
    problems.extend(notes.into_iter().map(|n| format!("for {}: {n}", agent.name)));
    diagnostics_log::append(&context, &problems);
    if args.verbose {
        diagnostics_log::to_terminal(&problems);
    }
    if args.format == Format::Report {
        return print_report(&RunReport {
            report: report.view(),
            answer: &answer,
            diagnostics: None,
        });
    }
    let mut lost = Vec::new();
    print_answer(&answer, &mut lost);
    diagnostics_log::append(&context, &lost);
    Ok(ExitCode::from(exit_byte(answer.exit_code)))
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
    options.audit =
        hookbridge_runner::audit::AuditLog::for_host(host, set.managed.as_ref()).map(std::sync::Arc::new);
    options.telemetry = telemetry(host, problems);
    set_timeouts(&mut options, args, problems);
    options.apply_settings(&set);
    options.env_file = ["AMPLIFIER_ENV_FILE", "CLAUDE_ENV_FILE"]
        .iter()
        .find_map(|v| std::env::var_os(v).filter(|p| !p.is_empty()))
        .map(|p| std::path::absolute(&p).unwrap_or_else(|_| PathBuf::from(p)));
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

/// The hooks' timeouts from `--default-timeout`/`--max-timeout` or their variables.
fn set_timeouts(options: &mut DispatchOptions, args: &RunArgs, problems: &mut Vec<String>) {
    options.default_timeout = timeout_setting(args.default_timeout, "HOOKBRIDGE_DEFAULT_TIMEOUT", problems);
    options.max_timeout = timeout_setting(args.max_timeout, "HOOKBRIDGE_MAX_TIMEOUT", problems);
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

/// A payload no hook can be given: logged and said on stderr, exit 1 (a non-blocking error for
/// Gemini CLI as for Claude Code).
fn refuse_payload(context: &str, mut problems: Vec<String>, why: String) -> anyhow::Result<ExitCode> {
    problems.push(format!("payload refused, no hook ran: {why}"));
    diagnostics_log::append(context, &problems);
    say(format_args!("{why}"));
    Ok(ExitCode::from(crate::EXIT_INTERNAL))
}

/// A timeout from its flag, else from `var`; a bad value of the variable is a logged warning and
/// the default (the flag's own values were checked by the parser: a bad one is a usage error).
fn timeout_setting(flag: Option<Duration>, var: &str, problems: &mut Vec<String>) -> Option<Duration> {
    if flag.is_some() {
        return flag;
    }
    let raw = std::env::var_os(var).filter(|v| !v.is_empty())?;
    let parsed = raw
        .to_str()
        .ok_or_else(|| "not UTF-8".to_string())
        .and_then(|text| parse_timeout(text).map_err(|e| e.to_string()));
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

/// The payload's own `hook_event_name` (or `hookEventName`), read before the payload is parsed
/// for the event it settles: one pass that skips every other value without building it. `None`
/// if absent, not a string, or unreadable here — [`EventPayload::parse`] stays the one judge of
/// the payload, and reports what is wrong with it.
fn declared_event(bytes: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Declared {
        #[serde(alias = "hookEventName")]
        hook_event_name: Option<String>,
    }
    serde_json::from_slice::<Declared>(bytes).ok()?.hook_event_name
}

/// The event this run is for. The payload says what is happening: when its `hook_event_name` is an
/// event name and disagrees with `--event`, the payload's wins, and the disagreement is logged. An
/// unknown event stays valid (Claude Code adds events), but one that looks like a misspelt known
/// event gets a "did you mean" in the log.
fn choose_event(flag: EventName, declared: Option<String>, problems: &mut Vec<String>) -> EventName {
    let event = match declared.as_deref() {
        Some(name) if name != flag.as_str() => match EventName::parse(name) {
            Ok(from_payload) => {
                problems.push(format!(
                    "--event {flag} disagrees with the payload's hook_event_name {name}; the hooks of {name} ran (the payload says what is happening)"
                ));
                from_payload
            }
            Err(_) => {
                problems.push(format!(
                    "the payload's hook_event_name `{name}` is not an event name; the hooks of --event {flag} ran"
                ));
                flag
            }
        },
        _ => flag,
    };
    // Only a name hookbridge does not know can be a misspelling of one it does.
    if let Some(known) = matches!(event, EventName::Unknown(_))
        .then(|| did_you_mean(event.as_str()))
        .flatten()
    {
        problems.push(format!(
            "`{event}` is not an event Claude Code fires; its hooks ran, if any: did you mean `{known}`?"
        ));
    }
    event
}

/// The known event `name` is probably a misspelling of: equal but for case, else at most two
/// edits away. `None` for a known name.
fn did_you_mean(name: &str) -> Option<&'static str> {
    hookbridge_core::diagnostics::closest(name, EventName::KNOWN.iter().map(EventName::as_str))
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

/// Whether a hook's first stdout line switches it to async: a JSON object with `"async": true`.
/// A line that does not begin with `{` is not parsed: most first lines are plain text (context a
/// hook prints), and serde_json's error for one locates itself with `memchr`, whose first use
/// probes the CPU (`cpuid`, a trap to the hypervisor in a virtual machine; docs/performance.md,
/// CPUID).
fn is_async_switch(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    line.first() == Some(&b'{')
        && serde_json::from_slice::<serde_json::Value>(line)
            .is_ok_and(|v| v.get("async").and_then(serde_json::Value::as_bool) == Some(true))
}

/// The report of a run whose lone hook switched itself to async: its answer is what it printed
/// after the switch line, read as a hook's answer.
fn read_after_switch(mut report: EventReport, set: &hookbridge_core::config::HookSet) -> EventReport {
    let Some(ran) = report.hooks.first_mut() else {
        return report;
    };
    let stdout = &ran.execution.stdout;
    let rest = stdout.iter().position(|&b| b == b'\n').map_or(0, |end| end + 1);
    ran.execution.stdout = stdout[rest..].to_vec();
    let Some(spec) = set.hooks().map(|(_, _, h)| h).find(|h| h.id == ran.hook.id) else {
        return report;
    };
    ran.answer = hookbridge_core::decision::interpret_hook(&report.event, spec, &ran.execution);
    report.decision = hookbridge_core::decision::merge(&report.event, &[ran.answered()]);
    report
}

/// The deferred answer of an async run: what Claude Code takes from an async hook — its
/// `systemMessage` and `additionalContext` — gathered from every hook, in completion order.
fn async_answer(report: &EventReport) -> ClaudeAnswer {
    let d = &report.decision;
    let mut out = HookJson::default();
    if !d.system_messages.is_empty() {
        out.system_message = Some(d.system_messages.join("\n"));
    }
    let contexts: Vec<&str> = d
        .contexts
        .iter()
        .filter(|c| c.kind == hookbridge_core::decision::ContextKind::AdditionalContext)
        .map(|c| c.text.as_str())
        .collect();
    if !contexts.is_empty() {
        out.specific_for(&report.event).additional_context = Some(contexts.join("\n\n"));
    }
    ClaudeAnswer {
        exit_code: 0,
        stdout: Stdout::from(out).into_line(),
        stderr: String::new(),
    }
}

/// Which background hooks a command hook is, if it is one.
enum BackgroundKind {
    /// `async: true`.
    Async,
    /// `asyncRewake: true` (which implies async).
    Rewake,
}

fn background_kind(hook: &hookbridge_core::config::HookSpec) -> Option<BackgroundKind> {
    match &hook.kind {
        hookbridge_core::config::HookKind::Command(c) if c.async_rewake => Some(BackgroundKind::Rewake),
        hookbridge_core::config::HookKind::Command(c) if c.run_async => Some(BackgroundKind::Async),
        _ => None,
    }
}

/// The answer of the `asyncRewake` registration, read by Claude Code as one asyncRewake hook's:
/// an exit 2 wakes the model with stderr (stdout when stderr is empty), so a hook that exited 2
/// is answered that way (several: their texts one after another); otherwise the hooks' messages
/// and context as an async hook gives them.
fn rewake_answer(report: &EventReport) -> ClaudeAnswer {
    let woken: Vec<String> = report
        .hooks
        .iter()
        .filter(|h| h.execution.status == hookbridge_core::decision::RunStatus::Exited(2))
        .map(|h| {
            let text = if h.execution.stderr.is_empty() {
                &h.execution.stdout
            } else {
                &h.execution.stderr
            };
            String::from_utf8_lossy(text).into_owned()
        })
        .collect();
    if woken.is_empty() {
        return async_answer(report);
    }
    ClaudeAnswer {
        exit_code: 2,
        stdout: Stdout::default(),
        stderr: woken.concat(),
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

/// The OpenTelemetry exporter the environment asks for, if any: `run` answers and exits, so it
/// writes each event's spans into the spool of that exporter (in hookbridge's state folder), which
/// one process of its own (`hookbridge otel-export`) drains (`hookbridge_runner::otel::spool`).
fn telemetry(
    host: &str,
    problems: &mut Vec<String>,
) -> Option<std::sync::Arc<hookbridge_runner::otel::Telemetry>> {
    use hookbridge_runner::otel::{spool, OtelConfig, Shipping, Telemetry};
    let config = match OtelConfig::from_env() {
        Ok(config) => config?,
        Err(problem) => {
            problems.push(problem);
            return None;
        }
    };
    let Some(state) = hookbridge_core::trust::state_dir() else {
        problems.push(
            "OpenTelemetry: neither XDG_STATE_HOME nor HOME names a folder to hand the spans over in; no spans are exported"
                .to_string(),
        );
        return None;
    };
    match std::env::current_exe() {
        Ok(program) => {
            let dir = spool::dir_for(&state, &config);
            let args = vec!["otel-export".into()];
            let shipping = Shipping::Spool { dir, program, args };
            Some(std::sync::Arc::new(Telemetry::new(host, config, shipping)))
        }
        Err(e) => {
            problems.push(format!(
                "OpenTelemetry: this program's own path is unknown ({e}); no spans are exported"
            ));
            None
        }
    }
}

/// `hookbridge otel-export`: the exporter of the spool its `OTEL_*` variables name
/// (`hookbridge_runner::otel::spool::drain`), which then removes the spools of configurations
/// untouched for a day (`spool::sweep_abandoned`); each failure goes to the diagnostics log as
/// it happens, as nobody waits for this process.
pub fn otel_export() -> ExitCode {
    use hookbridge_runner::otel::{spool, OtelConfig};
    let say = |problem: String| crate::diagnostics_log::append("otel-export", &[problem]);
    let config = match OtelConfig::from_env() {
        Ok(Some(config)) => config,
        Ok(None) => {
            say("OpenTelemetry: no OTLP endpoint is set".to_string());
            return ExitCode::from(1);
        }
        Err(problem) => {
            say(problem);
            return ExitCode::from(1);
        }
    };
    let Some(state) = hookbridge_core::trust::state_dir() else {
        say("OpenTelemetry: neither XDG_STATE_HOME nor HOME is set; nothing to export".to_string());
        return ExitCode::from(1);
    };
    let mut failed = false;
    let mut report = |problem| {
        failed = true;
        say(problem);
    };
    let dir = spool::dir_for(&state, &config);
    spool::drain(&dir, spool::LINGER, &mut |body| config.post(body), &mut report);
    // Off every answer's path: the spools of configurations no longer used.
    spool::sweep_abandoned(&dir, spool::ABANDONED, &mut report);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::is_async_switch;

    #[test]
    fn only_a_json_object_with_async_true_switches_a_hook_to_async() {
        for line in [
            &b"{\"async\": true}"[..],
            b"  {\"async\":true,\"asyncTimeout\":5}\r",
            b"\t{\"async\": true}  ",
        ] {
            assert!(is_async_switch(line), "{}", String::from_utf8_lossy(line));
        }
        for line in [
            &b"context for the model"[..],
            b"",
            b"{\"async\": false}",
            b"{\"async\": \"true\"}",
            b"[{\"async\": true}]",
            b"{\"async\": true",
            b"x{\"async\": true}",
        ] {
            assert!(!is_async_switch(line), "{}", String::from_utf8_lossy(line));
        }
    }
}
