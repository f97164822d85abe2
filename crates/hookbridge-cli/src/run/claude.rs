//! `run` for Claude Code: the event's hooks, this registration's share of them (Claude Code
//! delivers an async hook's answer only for a hook registered `async: true`), answered on Claude
//! Code's channels — its exit code and streams, and its async channel.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use hookbridge_core::config::{HookSet, HookSpec};
use hookbridge_core::decision::render_claude;
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_runner::process::FirstLineWatch;
use hookbridge_runner::{dispatch_selection, AsyncHooks, DispatchOptions, EventReport};

use super::background::{
    async_answer, background_kind, is_async_switch, problems_after_async, read_after_switch, rewake_answer,
    BackgroundKind,
};
use super::{
    choose_event, declared_event, did_you_mean, exit_byte, fill_cwd, held_notice, load_hooks, own_command,
    prepare_to_run_hooks, print_answer, print_json, print_report, project_and_input, report_problems,
    stopped_by_signal, tell_of_held_hooks, tell_of_silent_hooks, write_channel, Background, Format, RunArgs,
    RunReport, CLAUDE,
};
use crate::{diagnostics_log, say, UsageError};

/// `run` for Claude Code: the event's hooks, this registration's share of them, answered on
/// Claude Code's channels (its exit code and streams, and its async channel).
pub(super) fn run_claude(args: RunArgs) -> anyhow::Result<ExitCode> {
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
