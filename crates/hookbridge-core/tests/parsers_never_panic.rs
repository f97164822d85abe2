//! Property tests: every parser that reads untrusted text (configs, payloads, hook output) returns a
//! value or a diagnostic for any input — it never panics. (The coverage-guided twins of these are
//! the cargo-fuzz targets in fuzz/, run by scripts/fuzz.sh; these run in every cargo test.)

use std::path::PathBuf;
use std::time::Duration;

use hookbridge_core::config::{parse_hooks_file, parse_hooks_yaml, ConfigSource, Scope};
use hookbridge_core::decision::{interpret, merge, render_claude, AnsweredHook, HookExecution, RunStatus};
use hookbridge_core::event::{EventName, EventPayload};
use proptest::prelude::*;

fn source() -> ConfigSource {
    ConfigSource {
        path: PathBuf::from("/p/hooks.json"),
        scope: Scope::Project,
        hooks_dir: PathBuf::from("/p"),
        plugin: None,
        description: None,
    }
}

/// JSON-ish text: mostly structural characters and the words hooks.json uses.
fn jsonish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("{".to_string()),
            Just("}".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just(",".to_string()),
            Just(":".to_string()),
            Just("\"hooks\"".to_string()),
            Just("\"PreToolUse\"".to_string()),
            Just("\"matcher\"".to_string()),
            Just("\"type\"".to_string()),
            Just("\"command\"".to_string()),
            Just("\"timeout\"".to_string()),
            Just("\"if\"".to_string()),
            Just("\"(\"".to_string()),
            Just("5".to_string()),
            Just("-1".to_string()),
            Just("null".to_string()),
            Just("true".to_string()),
            Just("\n".to_string()),
            "\"[a-zA-Z(|*.]{0,6}\"".prop_map(|s| s),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// YAML-ish text: indentation, list items, flow collections, anchors and the seed's keys.
fn yamlish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("hooks:".to_string()),
            Just("\n".to_string()),
            Just("  ".to_string()),
            Just("- ".to_string()),
            Just("PreToolUse:".to_string()),
            Just("SessionStop:".to_string()),
            Just("type: ".to_string()),
            Just("command".to_string()),
            Just("matcher".to_string()),
            Just("llm".to_string()),
            Just("match: ".to_string()),
            Just("tool: ".to_string()),
            Just("args: ".to_string()),
            Just("action: block".to_string()),
            Just("timeout_ms: ".to_string()),
            Just("on_failure: ".to_string()),
            Just("{".to_string()),
            Just("}".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just(", ".to_string()),
            Just("&a ".to_string()),
            Just("*a".to_string()),
            Just("'".to_string()),
            Just("\"".to_string()),
            Just("|".to_string()),
            Just("---".to_string()),
            Just("5".to_string()),
            "[a-zA-Z*\\[?]{0,6}".prop_map(|s| s),
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(800))]

    #[test]
    fn yaml_reader_never_panics_and_points_inside_the_text(text in yamlish()) {
        let parsed = parse_hooks_yaml(&text, source(), 0, "/p");
        for d in &parsed.diagnostics {
            prop_assert!(d.file.is_some());
            if let Some(p) = d.position {
                prop_assert!(p.line >= 1 && p.line <= text.lines().count().max(1) + 1, "{d} in {text:?}");
            }
        }
    }

    #[test]
    fn yaml_reader_never_panics_on_arbitrary_text(text in ".{0,200}") {
        let _ = parse_hooks_yaml(&text, source(), 0, "/p");
    }

    #[test]
    fn config_parser_never_panics(text in jsonish()) {
        let parsed = parse_hooks_file(&text, source(), 0, "/p");
        for d in &parsed.diagnostics {
            // Every diagnostic names the file; positions are inside the text.
            prop_assert!(d.file.is_some());
            if let Some(p) = d.position {
                prop_assert!(p.line >= 1 && p.line <= text.lines().count().max(1) + 1);
            }
        }
    }

    #[test]
    fn config_parser_never_panics_on_arbitrary_text(text in ".{0,200}") {
        let _ = parse_hooks_file(&text, source(), 0, "/p");
    }

    #[test]
    fn payload_parser_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200), event in 0usize..33) {
        let _ = EventPayload::parse(EventName::KNOWN[event].clone(), &bytes);
    }

    #[test]
    fn hook_output_pipeline_never_panics(stdout in jsonish(), stderr in ".{0,40}", code in 0i32..4, event in 0usize..33) {
        let event = EventName::KNOWN[event].clone();
        let execution = HookExecution {
            warm: Default::default(),
            status: RunStatus::Exited(code),
            stdout: stdout.into_bytes(),
            stderr: stderr.into_bytes(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            duration: Duration::ZERO,
            finish_order: 0,
            unsandboxed: None,
        };
        let answer = interpret(&event, &execution);
        let decision = merge(&event, &[AnsweredHook { answer, finish_order: 0, on_failure: hookbridge_core::config::OnFailure::Continue, label: "CMD".into(), must_succeed: false }]);
        let rendered = render_claude(&event, Some("Bash"), &decision, "hookbridge run");
        prop_assert!(rendered.exit_code >= 0);
    }
}
