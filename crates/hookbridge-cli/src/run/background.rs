//! The answers of background hooks: a hook that switches itself to async with its first line,
//! the `async: true` registration's deferred answer, and the `asyncRewake` registration's wake-up.

use hookbridge_core::decision::{ClaudeAnswer, HookJson, Stdout};
use hookbridge_runner::EventReport;

/// Whether a hook's first stdout line switches it to async: a JSON object with `"async": true`.
/// A line that does not begin with `{` is not parsed: most first lines are plain text (context a
/// hook prints), and serde_json's error for one locates itself with `memchr`, whose first use
/// probes the CPU (`cpuid`, a trap to the hypervisor in a virtual machine; docs/performance.md,
/// CPUID).
pub(super) fn is_async_switch(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    line.first() == Some(&b'{')
        && serde_json::from_slice::<serde_json::Value>(line)
            .is_ok_and(|v| v.get("async").and_then(serde_json::Value::as_bool) == Some(true))
}

/// The report of a run whose lone hook switched itself to async: its answer is what it printed
/// after the switch line, read as a hook's answer.
pub(super) fn read_after_switch(
    mut report: EventReport,
    set: &hookbridge_core::config::HookSet,
) -> EventReport {
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
pub(super) fn async_answer(report: &EventReport) -> ClaudeAnswer {
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
pub(super) enum BackgroundKind {
    /// `async: true`.
    Async,
    /// `asyncRewake: true` (which implies async).
    Rewake,
}

pub(super) fn background_kind(hook: &hookbridge_core::config::HookSpec) -> Option<BackgroundKind> {
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
pub(super) fn rewake_answer(report: &EventReport) -> ClaudeAnswer {
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
pub(super) fn problems_after_async(report: &EventReport) -> Vec<String> {
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
