//! Background hooks (`async: true`, `asyncRewake: true`) for an agent that reads their answers
//! ([`Host::reads_async_answers`](crate::hosts::Host::reads_async_answers): Claude Code): which
//! share of an event's hooks each registration runs, how its answer is given (`{"async": true}`
//! first, the answer later), and the answers themselves — a hook that switches itself to async
//! with its first line, the `async: true` registration's deferred answer, and the `asyncRewake`
//! registration's wake-up.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use hookbridge_core::config::{HookKind, HookSet, HookSpec};
use hookbridge_core::decision::{ClaudeAnswer, HookJson, Stdout};
use hookbridge_runner::process::FirstLineWatch;
use hookbridge_runner::{AsyncHooks, DispatchOptions, EventReport};

use super::{exit_byte, print_answer, write_channel, Background, Format, RunArgs};
use crate::diagnostics_log;

/// Which of an event's hooks this registration runs: Claude Code delivers an async hook's answer
/// only for a hook registered `async: true`, and wakes the model only for one registered
/// `asyncRewake: true`, so `install-into` registers up to three commands per event and each takes
/// its share of the hooks the event reaches (selected, and deduplicated, the same way in every one).
pub(super) struct Registration {
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
pub(super) struct Channel {
    /// Every hook the event reaches is `async: true`: `{"async": true}` was printed first, and the
    /// answer follows as an async one.
    all_async: bool,
    /// Set when a lone command hook switched itself to async with its first line.
    switched: Arc<AtomicBool>,
}

impl Registration {
    pub(super) fn of(args: &RunArgs) -> Registration {
        Registration {
            async_mode: args.async_hooks,
            rewake_mode: args.async_rewake_hooks,
            rewake_only: args.async_rewake_hooks == Background::Only,
            async_only: args.async_hooks == Background::Only,
            claude_channel: args.format == Format::Claude,
        }
    }

    pub(super) fn take_its_share(&self, hooks: &mut Vec<&HookSpec>) {
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
    pub(super) fn channel(
        &self,
        hooks: &[&HookSpec],
        options: &mut DispatchOptions,
        problems: &mut Vec<String>,
    ) -> Channel {
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

    /// The answer of a registration whose hooks answer on Claude Code's async channel (or wake
    /// the model), if this is one: its exit code, the answer printed.
    pub(super) fn answer_on_async_channel(
        &self,
        channel: &Channel,
        report: &EventReport,
        set: &HookSet,
        context: &str,
    ) -> Option<ExitCode> {
        let (answer, mut lines, code) = if channel.switched.load(Ordering::SeqCst) {
            let report = read_after_switch(report.clone(), set);
            let answer = async_answer(&report);
            (answer, problems_after_async(&report), ExitCode::SUCCESS)
        } else if self.rewake_only && self.claude_channel {
            let answer = rewake_answer(report);
            // An exit 2 is this registration's way to wake the model, not a decision that was
            // ignored.
            let lines = match answer.exit_code {
                2 => Vec::new(),
                _ => problems_after_async(report),
            };
            let code = ExitCode::from(exit_byte(answer.exit_code));
            (answer, lines, code)
        } else if channel.all_async || (self.async_only && self.claude_channel) {
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
fn read_after_switch(mut report: EventReport, set: &HookSet) -> EventReport {
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

fn background_kind(hook: &HookSpec) -> Option<BackgroundKind> {
    match &hook.kind {
        HookKind::Command(c) if c.async_rewake => Some(BackgroundKind::Rewake),
        HookKind::Command(c) if c.run_async => Some(BackgroundKind::Async),
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
