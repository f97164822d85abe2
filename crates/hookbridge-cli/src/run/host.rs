//! `run` for every agent that is a [`Host`] — Claude Code, Codex CLI, Gemini
//! CLI: its event and payload read as Claude Code's, the hooks found, held, selected and
//! dispatched, and the answer given in its terms. One path: what differs between agents is the
//! host's (its translation, its folder trust, how its hooks are dispatched, whether it reads async
//! answers), never a branch on which agent this is (but for the log naming the run as it was typed).

use std::process::ExitCode;

use hookbridge_core::config::HookSet;
use hookbridge_core::decision::ClaudeAnswer;
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_runner::{dispatch_selection, AsyncHooks, EventReport};

use super::background::Registration;
use super::{
    exit_byte, fill_cwd, held_notice, load_hooks, own_command, prepare_to_run_hooks, print_answer,
    print_json, print_report, project_and_input, refuse_payload, report_problems, stopped_by_signal,
    tell_of_held_hooks, tell_of_silent_hooks, Background, Format, RunArgs, RunReport, CLAUDE,
};
use crate::hosts::Host;
use crate::{diagnostics_log, UsageError};

/// `run --host <agent>` (Claude Code by default): the agent's event and payload as Claude Code's,
/// the event's hooks dispatched (for an agent that reads async answers, this registration's share
/// of them), answered in its terms.
pub(super) fn run_host(
    agent: &crate::agents::Agent,
    host: &dyn Host,
    args: RunArgs,
) -> anyhow::Result<ExitCode> {
    check_background_flags(agent, host, &args)?;
    let claude = host.claude_event(&args.event).map_err(UsageError)?;
    let (project_dir, mut problems, input) = project_and_input(&args)?;
    // The log names the run as it was asked for: `run <event>` for Claude Code, the default host.
    let context = |event: &EventName| match args.host.as_str() {
        CLAUDE => format!("run {event}"),
        name => format!("run --host {name} {}", args.event),
    };
    let Some(claude) = claude else {
        problems.push(format!(
            "{} has no Claude Code event: no hook runs on it",
            args.event
        ));
        diagnostics_log::append(&format!("run --host {} {}", agent.name, args.event), &problems);
        return Ok(ExitCode::SUCCESS);
    };
    let mut payload = match host.read_payload(claude.clone(), &input, &mut problems) {
        Ok(payload) => payload,
        Err(why) => return refuse_payload(&context(&claude), problems, why, args.verbose),
    };
    let context = context(payload.event());
    fill_cwd(&mut payload);
    let (mut set, mut options, trust) = load_hooks(&args, agent.name, &project_dir, &mut problems);
    // The env file: the host's own variable only (`hookbridge_runner::env_file`).
    match host
        .env_file_variable()
        .and_then(hookbridge_runner::env_file::from_variable)
    {
        Some(Ok(file)) => options.env_file = Some(file),
        Some(Err(why)) => problems.push(why),
        None => {}
    }
    let notice = hold_where_the_host_distrusts(
        agent,
        host,
        &args,
        &project_dir,
        (&mut set, &mut options),
        held_notice(&trust, &project_dir),
        &mut problems,
    );
    // This process exits after answering: a forked supervisor sees background hooks through.
    options.async_hooks = AsyncHooks::ForkedSupervisor;
    host.dispatch_options(&mut options);
    let mut selection = set.select(&payload);
    let background = host.reads_async_answers().then(|| {
        let registration = Registration::of(&args);
        registration.take_its_share(&mut selection.hooks);
        let channel = registration.channel(&selection.hooks, &mut options, &mut problems);
        (registration, channel)
    });
    if !selection.hooks.is_empty() {
        options.canceller = prepare_to_run_hooks();
    }
    let mut report = dispatch_selection(selection, &payload, &options);
    if let Some(stopped) = stopped_by_signal(Some(&report), &mut problems, &context) {
        return Ok(stopped);
    }
    tell_of_held_hooks(notice, &project_dir, &payload, &mut report.decision);
    tell_of_silent_hooks(&options, &payload, &mut report.decision);
    // Test hook (debug builds only): a panic after the hooks ran (tests/integration/cli_failsafe.rs).
    #[cfg(debug_assertions)]
    if std::env::var_os("HOOKBRIDGE_TEST_PANIC").is_some() {
        panic!("HOOKBRIDGE_TEST_PANIC is set");
    }
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
    if let Some((registration, channel)) = &background {
        if let Some(code) = registration.answer_on_async_channel(channel, &report, &set, &context) {
            return Ok(code);
        }
    }
    give_answer(args.format, &answer, &report, &set, &payload, &context)
}

/// Never looser than the agent: a folder it does not trust runs none of the project's hooks
/// (held, and the project's MCP servers with them). Returns the notice the user is given of held
/// hooks, which this replaces when it holds some.
fn hold_where_the_host_distrusts(
    agent: &crate::agents::Agent,
    host: &dyn Host,
    args: &RunArgs,
    project_dir: &std::path::Path,
    (set, options): (
        &mut hookbridge_core::config::HookSet,
        &mut hookbridge_runner::DispatchOptions,
    ),
    notice: Option<String>,
    problems: &mut Vec<String>,
) -> Option<String> {
    let home = args
        .project
        .discovery(project_dir)
        .user_hooks_dir
        .and_then(|d| Some(d.parent()?.parent()?.to_path_buf()));
    let Err(why) = host.folder_trust(project_dir, home.as_deref()) else {
        return notice;
    };
    let held =
        hookbridge_core::trust::Held::HostDoesNotTrustFolder(format!("{} ({why})", agent.display_name));
    let count = set.hold(hookbridge_core::config::Scope::Project, &held);
    options.project_mcp_servers = false;
    if count == 0 {
        return notice;
    }
    let line = format!(
        "hookbridge: {count} project hook(s) in {} {held}",
        project_dir.display()
    );
    problems.push(line.clone());
    Some(line)
}

/// The answer in the format asked for: the host's own, the report, or an Amplifier `HookResult`.
fn give_answer(
    format: Format,
    answer: &ClaudeAnswer,
    report: &EventReport,
    set: &HookSet,
    payload: &EventPayload,
    context: &str,
) -> anyhow::Result<ExitCode> {
    match format {
        Format::Claude => {
            let mut lost = Vec::new();
            print_answer(answer, &mut lost);
            diagnostics_log::append(context, &lost);
            Ok(ExitCode::from(exit_byte(answer.exit_code)))
        }
        Format::Report => print_report(&RunReport {
            report: report.view(),
            answer,
            diagnostics: Some(set.diagnostics.iter().map(ToString::to_string).collect()),
        }),
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

/// `--async-hooks` and `--async-rewake-hooks` split the registrations of an agent that reads
/// async answers; for any other agent they mean nothing, and are refused rather than ignored.
fn check_background_flags(
    agent: &crate::agents::Agent,
    host: &dyn Host,
    args: &RunArgs,
) -> Result<(), UsageError> {
    let (background, rewake) = (args.async_hooks, args.async_rewake_hooks);
    if host.reads_async_answers() {
        if background == Background::Only && rewake == Background::Only {
            return Err(UsageError(
                "--async-hooks only and --async-rewake-hooks only are two registrations; give one".into(),
            ));
        }
    } else if background != Background::Detach || rewake != Background::Detach {
        return Err(UsageError(format!(
            "--async-hooks and --async-rewake-hooks split Claude Code's registrations; {} has one per event",
            agent.name
        )));
    }
    Ok(())
}
