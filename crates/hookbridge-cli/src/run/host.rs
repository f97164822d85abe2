//! `run --host <agent>` for an agent that is a [`Host`](crate::hosts::Host): its event and payload
//! read as Claude Code's, dispatched as for Claude Code, answered in its terms.

use std::process::ExitCode;

use hookbridge_core::event::EventPayload;
use hookbridge_runner::{dispatch_selection, AsyncHooks};

use super::{
    exit_byte, fill_cwd, held_notice, load_hooks, own_command, prepare_to_run_hooks, print_answer,
    print_report, project_and_input, refuse_payload, report_problems, stopped_by_signal, tell_of_held_hooks,
    tell_of_silent_hooks, Background, Format, RunArgs, RunReport,
};
use crate::{diagnostics_log, UsageError};

/// `run --host <agent>` for an agent that is a [`Host`](crate::hosts::Host): its event and payload
/// as Claude Code's, dispatched as `run` dispatches (`async` hooks in the background: these agents
/// read no async answer), answered in its terms.
pub(super) fn run_host(
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
