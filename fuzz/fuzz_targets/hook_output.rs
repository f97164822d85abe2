//! A hook's output read with Claude Code's rules, merged and rendered: never a panic, and the
//! answer's exit code is one Claude Code reads.
#![no_main]
use std::time::Duration;

use hookbridge_core::decision::{interpret, merge, render_claude, AnsweredHook, HookExecution, RunStatus};
use hookbridge_core::event::EventName;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (head, stdout) = data.split_at(data.len().min(2));
    let event = EventName::KNOWN[head.first().copied().unwrap_or(0) as usize % EventName::KNOWN.len()].clone();
    let code = i32::from(head.get(1).copied().unwrap_or(0) % 4);
    let execution = HookExecution {
        status: RunStatus::Exited(code),
        stdout: stdout.to_vec(),
        stderr: b"stderr text".to_vec(),
        stdout_truncated: false,
        stderr_truncated: false,
        leaked: false,
        duration: Duration::ZERO,
        finish_order: 0,
        warm: Default::default(),
    };
    let answer = interpret(&event, &execution);
    let decision = merge(&event, &[AnsweredHook {
        answer,
        finish_order: 0,
        on_failure: hookbridge_core::config::OnFailure::Continue,
        label: "CMD".into(),
    }]);
    let rendered = render_claude(&event, Some("Bash"), &decision, "hookbridge run");
    assert!(rendered.exit_code >= 0);
});
