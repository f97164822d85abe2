//! What each fuzz target does with one input, in one place for both of its users: the cargo-fuzz
//! targets of `fuzz_targets/` (`scripts/fuzz.sh`, coverage-guided fuzzing) and the corpus replay
//! of the test suite (`crates/hookbridge-core/tests/fuzz_corpus.rs`), which feeds every file of
//! `corpus/<target>/` to the same function without building libFuzzer.
//!
//! Each function must never panic, whatever the bytes.

use std::path::PathBuf;
use std::time::Duration;

use hookbridge_core::config::{parse_hooks_file, parse_hooks_yaml, ConfigSource, Scope};
use hookbridge_core::decision::{interpret, merge, render_claude, AnsweredHook, HookExecution, RunStatus};
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_core::matcher::Matcher;

/// The event payload parser (`hookbridge run`'s stdin): any bytes give a payload or an error, and
/// a payload's bytes for hooks are well-formed.
pub fn payload(data: &[u8]) {
    let event =
        EventName::KNOWN[data.first().copied().unwrap_or(0) as usize % EventName::KNOWN.len()].clone();
    if let Ok(payload) = EventPayload::parse(event, data) {
        let _ = payload.to_stdin_bytes();
        let _ = payload.match_query();
        let _ = payload.tool_call();
    }
}

/// The hooks file readers (JSON and YAML): any text gives hooks and diagnostics, never a panic.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = ConfigSource {
        path: PathBuf::from("/p/.amplifier/hooks/hooks.json"),
        scope: Scope::Project,
        hooks_dir: PathBuf::from("/p/.amplifier/hooks"),
        plugin: None,
        description: None,
    };
    let _ = parse_hooks_file(text, source.clone(), 0, "/p");
    let _ = parse_hooks_yaml(text, source, 0, "/p");
}

/// The matcher compiler (JavaScript regular expressions, as Claude Code reads them): any pattern
/// compiles or is refused, and matching never panics.
pub fn matcher(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (pattern, query) = text.split_once('\n').unwrap_or((text, "Bash"));
    for extended in [false, true] {
        if let Ok(m) = Matcher::compile(Some(pattern), extended) {
            let _ = m.is_match(query);
        }
    }
}

/// A hook's output read with Claude Code's rules, merged and rendered: never a panic, and the
/// answer's exit code is one Claude Code reads.
pub fn hook_output(data: &[u8]) {
    let (head, stdout) = data.split_at(data.len().min(2));
    let event =
        EventName::KNOWN[head.first().copied().unwrap_or(0) as usize % EventName::KNOWN.len()].clone();
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
        unsandboxed: None,
    };
    let answer = interpret(&event, &execution);
    let decision = merge(
        &event,
        &[AnsweredHook {
            answer,
            finish_order: 0,
            on_failure: hookbridge_core::config::OnFailure::Continue,
            label: "CMD".into(),
            must_succeed: false,
        }],
    );
    let rendered = render_claude(&event, Some("Bash"), &decision, "hookbridge run");
    assert!(rendered.exit_code >= 0);
}

/// One fuzz target: it takes any bytes and must not panic.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz_targets/<name>.rs` and `corpus/<name>/` are named.
pub const TARGETS: &[(&str, Target)] = &[
    ("payload", payload),
    ("config", config),
    ("matcher", matcher),
    ("hook_output", hook_output),
];
