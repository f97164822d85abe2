//! `run --host amplifier`: one Amplifier kernel event, through the engine the hook-bridge module
//! uses.

use std::process::ExitCode;

use hookbridge_runner::AsyncHooks;

use super::{
    prepare_to_run_hooks, print_json, project_and_input, stopped_by_signal, timeouts_from_env, Format,
    RunArgs,
};
use crate::{diagnostics_log, say, UsageError};

/// `run --host amplifier`: one Amplifier kernel event, through the engine the hook-bridge module
/// uses (the project's and the user's hooks as `run` finds them, the session's working directory
/// being this process's).
pub(super) fn run_amplifier(args: RunArgs) -> anyhow::Result<ExitCode> {
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
    let home = hookbridge_runner::home::user_home();
    let settings = EngineSettings {
        project_dir: project_dir.clone(),
        user_home: home.clone(),
        include_user: !args.project.no_user_hooks,
        include_project: !args.project.no_project_hooks,
        default_timeout: args.default_timeout,
        max_timeout: args.max_timeout,
        project_timeouts: timeouts_from_env(&args, &mut problems),
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
    // Amplifier's own variable (its hook-shell module's), else Claude Code's; only a path that can
    // be an env file (`hookbridge_runner::env_file`).
    context.env_file = match ["AMPLIFIER_ENV_FILE", "CLAUDE_ENV_FILE"]
        .into_iter()
        .find_map(hookbridge_runner::env_file::from_variable)
    {
        Some(Ok(file)) => Some(file),
        Some(Err(why)) => {
            problems.push(why);
            None
        }
        None => None,
    };
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
