//! The registry's rules, each against what amplifier-core 2.0.2 does.

use super::*;
use crate::hook_result::ContextInjection;
use crate::hook_result::InjectionRole;
use serde_json::json;

const TS: &str = "2026-11-21T23:51:44.219033671+00:00";

/// What a scripted handler does.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Script {
    Answer(HookResult),
    Fail,
    Invalid,
}

fn answer(value: Value) -> Script {
    Script::Answer(HookResult::from_value(value).expect("valid test answer"))
}

/// Registers `(name, priority, script)` on "e" and emits `data`; returns the result and the
/// calls made as (name, data seen).
fn emit(
    handlers: &[(&str, i32, Script)],
    defaults: Value,
    data: Value,
) -> (HookResult, Vec<(String, Value)>) {
    let mut registry = HookRegistry::new();
    let mut scripts = std::collections::HashMap::new();
    for (name, priority, script) in handlers {
        let id = registry.register("e", *priority, Some(name));
        scripts.insert(id, script.clone());
    }
    registry.set_default_fields(defaults.as_object().cloned().unwrap_or_default());
    let mut calls = Vec::new();
    let result = registry.emit_with("e", data, TS, |handler, data| {
        calls.push((handler.name.clone(), data.clone()));
        match &scripts[&handler.id] {
            Script::Answer(result) => Ok(result.clone()),
            Script::Fail => Err(HandlerError::Failed("boom".into())),
            Script::Invalid => Err(HandlerError::InvalidResult("not a HookResult".into())),
        }
    });
    (result, calls)
}

fn called(calls: &[(String, Value)]) -> Vec<&str> {
    calls.iter().map(|(name, _)| name.as_str()).collect()
}

/// One row of `emit`'s rules: handlers `(name, priority, script)`, the session's default fields
/// and the data emitted; the handlers called, in order, and the result (only the fields that
/// differ from a default `HookResult`).
struct Case {
    what: &'static str,
    handlers: Vec<(&'static str, i32, Script)>,
    defaults: Value,
    data: Value,
    calls: Vec<&'static str>,
    result: Value,
}

fn cont() -> Script {
    answer(json!({}))
}

fn stamped(mut v: Value) -> Value {
    v["timestamp"] = json!(TS);
    v
}

fn check(case: Case) {
    let (result, calls) = emit(&case.handlers, case.defaults, case.data);
    assert_eq!(called(&calls), case.calls, "{}: calls", case.what);
    let mut expected = HookResult::default().to_value();
    for (key, value) in case.result.as_object().unwrap() {
        expected[key] = value.clone();
    }
    // Fill ContextInjection defaults in the expectation.
    if let Some(items) = expected["context_injections"].as_array_mut() {
        for item in items {
            let full = serde_json::to_value(ContextInjection::new("")).unwrap();
            let mut full = full.as_object().unwrap().clone();
            full.extend(item.as_object().unwrap().clone());
            *item = Value::Object(full);
        }
    }
    assert_eq!(result.to_value(), expected, "{}", case.what);
}

/// One test per row of the rules: `registry::tests::emit::<row>`.
macro_rules! emit_rules {
    ($($name:ident: $case:expr,)*) => {
        mod emit {
            use super::*;
            $(
                #[test]
                fn $name() {
                    check($case);
                }
            )*
        }
    };
}

emit_rules! {
    no_handlers_original_data_no_defaults_no_timestamp: Case {
        what: "no handlers: original data, no defaults, no timestamp",
        handlers: vec![],
        defaults: json!({"s": 1}),
        data: json!({"k": 1}),
        calls: vec![],
        result: json!({"action": "continue", "data": {"k": 1}}),
    },
    no_handlers_and_non_object_data_give_an_empty_object: Case {
        what: "no handlers, non-object data: data {}",
        handlers: vec![],
        defaults: json!({}),
        data: json!([1, 2]),
        calls: vec![],
        result: json!({"action": "continue", "data": {}}),
    },
    defaults_merged_data_wins_timestamp_overwritten: Case {
        what: "defaults merged, data wins, timestamp overwritten",
        handlers: vec![("a", 0, cont())],
        defaults: json!({"s": 1, "k": 0, "timestamp": "d"}),
        data: json!({"k": 1, "timestamp": "caller"}),
        calls: vec!["a"],
        result: json!({"action": "continue", "data": {"s": 1, "k": 1, "timestamp": TS}}),
    },
    ascending_priority_ties_in_registration_order: Case {
        what: "ascending priority, ties in registration order",
        handlers: vec![
            ("p5", 5, cont()),
            ("p0a", 0, cont()),
            ("m3", -3, cont()),
            ("p0b", 0, cont()),
        ],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["m3", "p0a", "p0b", "p5"],
        result: json!({"action": "continue", "data": {"timestamp": TS}}),
    },
    deny_short_circuits_and_is_returned_as_is: Case {
        what: "deny short-circuits and is returned as is",
        handlers: vec![
            (
                "a",
                0,
                answer(json!({"action": "ask_user", "approval_prompt": "p"})),
            ),
            (
                "d",
                1,
                answer(
                    json!({"action": "deny", "reason": "no", "data": {"x": 1}, "user_message": "u"}),
                ),
            ),
            ("z", 2, cont()),
        ],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["a", "d"],
        result: json!({"action": "deny", "reason": "no", "data": {"x": 1}, "user_message": "u"}),
    },
    modify_replaces_wholesale_the_next_handler_sees_the_new_data: Case {
        what: "modify replaces wholesale; the next handler sees only the new data",
        handlers: vec![
            ("m", 0, answer(json!({"action": "modify", "data": {"m": 1}}))),
            ("n", 1, answer(json!({"action": "modify"}))),
            (
                "c",
                2,
                answer(json!({"action": "continue", "data": {"ignored": 1}})),
            ),
        ],
        defaults: json!({"s": 1}),
        data: json!({"k": 1}),
        calls: vec!["m", "n", "c"],
        result: json!({"action": "continue", "data": {"m": 1}}),
    },
    modify_with_an_empty_object_empties_the_data: Case {
        what: "modify with {} empties the data",
        handlers: vec![("m", 0, answer(json!({"action": "modify", "data": {}})))],
        defaults: json!({}),
        data: json!({"k": 1}),
        calls: vec!["m"],
        result: json!({"action": "continue", "data": {}}),
    },
    continue_drops_user_message_reason_suppress_output: Case {
        what: "continue drops user_message, reason, suppress_output",
        handlers: vec![(
            "c",
            0,
            answer(json!({"user_message": "u", "reason": "r", "suppress_output": true})),
        )],
        defaults: json!({}),
        data: json!({"k": 1}),
        calls: vec!["c"],
        result: json!({"action": "continue", "data": stamped(json!({"k": 1}))}),
    },
    inject_context_without_text_counts_as_continue: Case {
        what: "inject_context without text counts as continue",
        handlers: vec![(
            "i",
            0,
            answer(json!({"action": "inject_context", "user_message": "u"})),
        )],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["i"],
        result: json!({"action": "continue", "data": {"timestamp": TS}}),
    },
    context_injection_on_continue_is_ignored: Case {
        what: "context_injection on continue is ignored",
        handlers: vec![("c", 0, answer(json!({"context_injection": "x"})))],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["c"],
        result: json!({"action": "continue", "data": {"timestamp": TS}}),
    },
    single_injection_returned_unchanged_stamped_and_projected: Case {
        what: "single injection returned unchanged, stamped and projected",
        handlers: vec![(
            "i",
            0,
            answer(
                json!({"action": "inject_context", "context_injection": "hi", "user_message": "um",
                "reason": "r", "data": {"x": 1}, "suppress_output": true}),
            ),
        )],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["i"],
        result: json!({"action": "inject_context", "context_injection": "hi", "user_message": "um",
            "reason": "r", "data": {"x": 1}, "suppress_output": true,
            "context_injections": [{"content": "hi", "hook_name": "i", "event": "e"}]}),
    },
    empty_injection_text_still_counts: Case {
        what: "empty injection text still counts",
        handlers: vec![(
            "i",
            0,
            answer(json!({"action": "inject_context", "context_injection": ""})),
        )],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["i"],
        result: json!({"action": "inject_context", "context_injection": "",
            "context_injections": [{"content": "", "hook_name": "i", "event": "e"}]}),
    },
    a_non_empty_list_wins_over_the_text_role_ephemeral_projected: Case {
        what: "a non-empty list wins over the text; role/ephemeral projected from the list",
        handlers: vec![(
            "i",
            0,
            answer(
                json!({"action": "inject_context", "context_injection": "T", "ephemeral": true,
                "context_injection_role": "assistant", "append_to_last_tool_result": true,
                "context_injections": [{"content": "L1", "role": "user", "hook_name": "hn", "event": "ev"},
                                       {"content": "L2"}]}),
            ),
        )],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["i"],
        result: json!({"action": "inject_context", "context_injection": "L1\n\nL2",
            "context_injection_role": "user",
            "context_injections": [{"content": "L1", "role": "user", "hook_name": "i", "event": "e"},
                                   {"content": "L2", "hook_name": "i", "event": "e"}]}),
    },
    several_injections_are_merged_first_role_or_ephemeral: Case {
        what: "several injections merged: first role/suppress, OR ephemeral/append, rest dropped",
        handlers: vec![
            (
                "a",
                0,
                answer(json!({"action": "inject_context", "context_injection": "a",
                "suppress_output": true, "user_message": "u", "data": {"d": 1}})),
            ),
            (
                "b",
                1,
                answer(
                    json!({"action": "inject_context", "context_injection": "b", "ephemeral": true,
                "append_to_last_tool_result": true, "context_injection_role": "assistant",
                "suppress_output": false}),
                ),
            ),
            (
                "c",
                2,
                answer(json!({"action": "inject_context", "context_injection": "c"})),
            ),
        ],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["a", "b", "c"],
        result: json!({"action": "inject_context", "context_injection": "a\n\nb\n\nc",
            "ephemeral": true, "append_to_last_tool_result": true, "suppress_output": true,
            "context_injections": [
                {"content": "a", "hook_name": "a", "event": "e"},
                {"content": "b", "role": "assistant", "ephemeral": true, "append_to_last_tool_result": true,
                 "hook_name": "b", "event": "e"},
                {"content": "c", "hook_name": "c", "event": "e"}]}),
    },
    suppress_output_comes_from_the_first_injecting_answer_only: Case {
        what: "suppress_output comes from the first injecting answer only",
        handlers: vec![
            (
                "a",
                0,
                answer(json!({"action": "inject_context", "context_injection": "a"})),
            ),
            (
                "b",
                1,
                answer(
                    json!({"action": "inject_context", "context_injection": "b", "suppress_output": true}),
                ),
            ),
        ],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["a", "b"],
        result: json!({"action": "inject_context", "context_injection": "a\n\nb",
            "context_injections": [{"content": "a", "hook_name": "a", "event": "e"},
                                   {"content": "b", "hook_name": "b", "event": "e"}]}),
    },
    first_ask_user_wins_beats_injections_keeps_its_own_data_only: Case {
        what: "first ask_user wins, beats injections, keeps its own data only",
        handlers: vec![
            ("m", 0, answer(json!({"action": "modify", "data": {"m": 1}}))),
            (
                "i",
                1,
                answer(json!({"action": "inject_context", "context_injection": "c"})),
            ),
            (
                "a1",
                2,
                answer(json!({"action": "ask_user", "approval_prompt": "p1",
                "context_injections": [{"content": "z"}]})),
            ),
            (
                "a2",
                3,
                answer(json!({"action": "ask_user", "approval_prompt": "p2", "data": {"q": 1}})),
            ),
        ],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["m", "i", "a1", "a2"],
        result: json!({"action": "ask_user", "approval_prompt": "p1",
            "context_injections": [{"content": "z"}]}),
    },
    ask_user_data_is_kept_as_the_handler_gave_it: Case {
        what: "ask_user data is kept as the handler gave it",
        handlers: vec![("a", 0, answer(json!({"action": "ask_user", "data": {"c": 1}})))],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["a"],
        result: json!({"action": "ask_user", "data": {"c": 1}}),
    },
    a_failing_handler_is_skipped: Case {
        what: "a failing handler is skipped",
        handlers: vec![
            ("f", 0, Script::Fail),
            ("m", 1, answer(json!({"action": "modify", "data": {"z": 1}}))),
        ],
        defaults: json!({}),
        data: json!({"k": 1}),
        calls: vec!["f", "m"],
        result: json!({"action": "continue", "data": {"z": 1}}),
    },
    an_invalid_answer_fails_closed_even_after_ask_user_and_injection: Case {
        what: "an invalid answer fails closed, even after an ask_user and an injection",
        handlers: vec![
            (
                "i",
                0,
                answer(json!({"action": "inject_context", "context_injection": "T"})),
            ),
            ("a", 1, answer(json!({"action": "ask_user"}))),
            ("bad", 2, Script::Invalid),
            ("z", 3, cont()),
        ],
        defaults: json!({}),
        data: json!({}),
        calls: vec!["i", "a", "bad"],
        result: json!({"action": "deny", "reason": INVALID_RESPONSE_REASON}),
    },
    non_object_data_passed_through_without_defaults_or_timestamp: Case {
        what: "non-object data passed through without defaults or timestamp; comes back as {}",
        handlers: vec![("c", 0, answer(json!({"data": {"q": 1}})))],
        defaults: json!({"s": 1}),
        data: json!(null),
        calls: vec!["c"],
        result: json!({"action": "continue", "data": {}}),
    },
    modify_turns_non_object_data_into_an_object: Case {
        what: "modify turns non-object data into an object",
        handlers: vec![
            ("m", 0, answer(json!({"action": "modify", "data": {"a": 1}}))),
            ("c", 1, cont()),
        ],
        defaults: json!({}),
        data: json!([1]),
        calls: vec!["m", "c"],
        result: json!({"action": "continue", "data": {"a": 1}}),
    },
}

#[test]
fn handlers_see_the_chain_of_data() {
    let (_, calls) = emit(
        &[
            ("a", 0, answer(json!({"action": "modify", "data": {"m": 1}}))),
            ("b", 1, answer(json!({}))),
        ],
        json!({"s": 1}),
        json!({"k": 1}),
    );
    assert_eq!(calls[0].1, json!({"s": 1, "k": 1, "timestamp": TS}));
    assert_eq!(calls[1].1, json!({"m": 1}));
    let (_, calls) = emit(&[("a", 0, answer(json!({})))], json!({"s": 1}), json!("text"));
    assert_eq!(calls[0].1, json!("text"));
}

#[test]
fn merged_keys_keep_python_dict_order() {
    let (_, calls) = emit(
        &[("a", 0, answer(json!({})))],
        json!({"zz": 1, "aa": 2, "timestamp": "d"}),
        json!({"yy": 1, "aa": 9}),
    );
    let keys: Vec<&String> = calls[0].1.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["zz", "aa", "timestamp", "yy"]);
}

#[test]
fn flow_after_done() {
    let mut registry = HookRegistry::new();
    registry.register("e", 0, Some("a"));
    registry.register("e", 1, Some("b"));
    let mut fold = EmitFold::start(registry.snapshot("e"), "e", json!({}), TS);
    assert_eq!(fold.next_call().unwrap().handler.name, "a");
    assert_eq!(
        fold.accept(Ok(HookResult::deny("x"))),
        Flow::Done(HookResult::deny("x"))
    );
    assert!(fold.next_call().is_none() && fold.is_done());
    assert_eq!(
        fold.accept(Ok(HookResult::default())),
        Flow::Done(HookResult::deny("x"))
    );
    assert_eq!(fold.finish(), HookResult::deny("x"));
}

#[test]
fn snapshot_is_frozen() {
    let mut registry = HookRegistry::new();
    let later = registry.register("e", 5, Some("later"));
    registry.register("e", 0, Some("first"));
    let mut fold = EmitFold::start(registry.snapshot("e"), "e", json!({}), TS);
    registry.unregister(later);
    registry.register("e", 1, Some("new"));
    let mut seen = Vec::new();
    while let Some(call) = fold.next_call() {
        seen.push(call.handler.name.clone());
        fold.accept(Ok(HookResult::default()));
    }
    assert_eq!(seen, ["first", "later"]);
}

#[test]
fn collect_rules() {
    let mut registry = HookRegistry::new();
    let answers = [
        (
            "deny",
            Ok(HookResult::from_value(json!({"action": "deny", "data": {"a": 1}})).unwrap()),
        ),
        ("slow", Err(HandlerError::TimedOut)),
        ("err", Err(HandlerError::Failed("x".into()))),
        ("bad", Err(HandlerError::InvalidResult("x".into()))),
        (
            "dict",
            Ok(HookResult::from_value(json!({"data": {"b": 2}})).unwrap()),
        ),
        ("none", Ok(HookResult::default())),
        (
            "mod",
            Ok(HookResult::from_value(json!({"action": "modify", "data": {"m": 1}})).unwrap()),
        ),
        ("echo", Ok(HookResult::default())),
    ];
    for (name, _) in &answers {
        registry.register("c", 0, Some(name));
    }
    registry.set_default_fields(json!({"s": 1}).as_object().unwrap().clone());
    let mut seen = Vec::new();
    let out = registry.emit_and_collect_with("c", json!({"x": 1}), |handler, data| {
        seen.push(data.clone());
        let (_, outcome) = answers.iter().find(|(n, _)| *n == handler.name).unwrap();
        if handler.name == "echo" {
            return Ok(HookResult::continue_with(data.as_object().unwrap().clone()));
        }
        outcome.clone()
    });
    let out: Vec<Value> = out.into_iter().map(Value::Object).collect();
    assert_eq!(
        out,
        vec![json!({"a": 1}), json!({"b": 2}), json!({"m": 1}), json!({"x": 1})]
    );
    assert!(
        seen.iter().all(|d| *d == json!({"x": 1})),
        "no defaults, no timestamp, no chaining"
    );
    assert!(registry
        .emit_and_collect_with("none", json!({}), |_, _| unreachable!())
        .is_empty());
}

#[test]
fn registration_order_and_listing() {
    let mut registry = HookRegistry::new();
    registry.register("a", 3, Some("x"));
    registry.register("b", -5, None);
    registry.register("a", 1, Some("y"));
    registry.register("a", 3, Some("z"));
    registry.register("a", -2, Some("w"));
    let all = registry.list_handlers(None);
    assert_eq!(all["a"], ["w", "y", "x", "z"]);
    assert!(all["b"][0].starts_with("_auto_b_"));
    assert_eq!(
        registry.list_handlers(Some("zz")),
        IndexMap::from([("zz".to_owned(), Vec::<String>::new())])
    );
    assert_eq!(registry.list_handlers(None).len(), 2, "queries create no entries");
}

#[test]
fn unregister_table() {
    // (registrations as (event, priority, name), operations, expected list_handlers(None))
    enum Op {
        Name(&'static str),
        Handle(usize),
    }
    type Expected = &'static [(&'static str, &'static [&'static str])];
    type Registrations = Vec<(&'static str, i32, &'static str)>;
    let cases: Vec<(&str, Registrations, Vec<Op>, Expected)> = vec![
        (
            "by name removes the newest live duplicate first",
            vec![("e", 0, "d"), ("e", 1, "d"), ("e", -1, "d")],
            vec![Op::Name("d")],
            &[("e", &["d", "d"])],
        ),
        (
            "repeated by-name calls remove older duplicates too (no orphan)",
            vec![("e", 0, "d"), ("e", 1, "d"), ("e", -1, "d")],
            vec![Op::Name("d"), Op::Name("d"), Op::Name("d"), Op::Name("d")],
            &[("e", &[])],
        ),
        (
            "by name crosses events, newest first",
            vec![("e", 0, "d"), ("e2", 1, "d")],
            vec![Op::Name("d")],
            &[("e", &["d"]), ("e2", &[])],
        ),
        (
            "a handle removes its own registration; by name skips removed ones",
            vec![("e", 0, "d"), ("e2", 0, "d"), ("e", 0, "d")],
            vec![Op::Handle(2), Op::Name("d")],
            &[("e", &["d"]), ("e2", &[])],
        ),
        (
            "handles are idempotent; unknown names are ignored",
            vec![("e", 0, "a"), ("e", 0, "b")],
            vec![Op::Handle(0), Op::Handle(0), Op::Name("nope")],
            &[("e", &["b"])],
        ),
        (
            "a stale handle does not remove a re-registration of the name",
            vec![("e", 0, "n")],
            vec![Op::Name("n")],
            &[("e", &[])],
        ),
    ];
    for (what, registrations, ops, expected) in cases {
        let mut registry = HookRegistry::new();
        let ids: Vec<HandlerId> = registrations
            .iter()
            .map(|(event, priority, name)| registry.register(event, *priority, Some(name)))
            .collect();
        for op in ops {
            match op {
                Op::Name(name) => {
                    registry.unregister_by_name(name);
                }
                Op::Handle(index) => {
                    registry.unregister(ids[index]);
                }
            }
        }
        let listed = registry.list_handlers(None);
        let expected: IndexMap<String, Vec<String>> = expected
            .iter()
            .map(|(event, names)| (event.to_string(), names.iter().map(|n| n.to_string()).collect()))
            .collect();
        assert_eq!(listed, expected, "{what}");
    }
    // The stale-handle case, end to end.
    let mut registry = HookRegistry::new();
    let old = registry.register("e", 0, Some("n"));
    registry.unregister_by_name("n");
    registry.register("e", 0, Some("n"));
    assert!(!registry.unregister(old));
    assert_eq!(registry.list_handlers(Some("e"))["e"], ["n"]);
}

#[test]
fn newest_duplicate_is_removed_first() {
    let mut registry = HookRegistry::new();
    let a = registry.register("e", 5, Some("d"));
    let b = registry.register("e", 0, Some("d"));
    let c = registry.register("e", 3, Some("d"));
    assert_eq!(registry.unregister_by_name("d"), Some(c));
    assert_eq!(registry.unregister_by_name("d"), Some(b));
    assert_eq!(registry.unregister_by_name("d"), Some(a));
    assert_eq!(registry.unregister_by_name("d"), None);
}

#[test]
fn set_default_fields_replaces() {
    let mut registry = HookRegistry::new();
    registry.set_default_fields(json!({"a": 1, "b": 2}).as_object().unwrap().clone());
    registry.set_default_fields(json!({"c": 3}).as_object().unwrap().clone());
    assert_eq!(Value::Object(registry.default_fields().clone()), json!({"c": 3}));
}

#[test]
fn auto_names_look_like_uuid4_and_differ() {
    let names: std::collections::HashSet<String> = (0..1000).map(|_| auto_handler_name("tool:pre")).collect();
    assert_eq!(names.len(), 1000);
    for name in names.iter().take(50) {
        let uuid = name.strip_prefix("_auto_tool:pre_").unwrap();
        let parts: Vec<&str> = uuid.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12],
            "{uuid}"
        );
        assert!(uuid
            .chars()
            .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert!(parts[2].starts_with('4'), "{uuid}");
        assert!(
            matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'),
            "{uuid}"
        );
    }
}

#[test]
fn rfc3339_table() {
    use std::time::Duration;
    let at = |secs: u64, nanos: u32| UNIX_EPOCH + Duration::new(secs, nanos);
    let cases = [
        (at(0, 0), "1970-01-01T00:00:00+00:00"),
        (
            at(1_795_305_104, 219_033_671),
            "2026-11-21T23:51:44.219033671+00:00",
        ),
        (at(1_795_305_104, 219_033_000), "2026-11-21T23:51:44.219033+00:00"),
        (at(1_795_305_104, 219_000_000), "2026-11-21T23:51:44.219+00:00"),
        (at(951_782_400, 1), "2000-02-29T00:00:00.000000001+00:00"),
        (at(4_107_542_399, 0), "2100-02-28T23:59:59+00:00"),
        (at(253_402_300_799, 10_000_000), "9999-12-31T23:59:59.010+00:00"),
        (
            UNIX_EPOCH - Duration::new(1, 500_000_000),
            "1970-01-01T00:00:00+00:00",
        ),
    ];
    for (time, expected) in cases {
        assert_eq!(rfc3339_utc(time), expected);
    }
}

#[test]
fn kernel_event_constants() {
    assert_eq!(kernel_events::ALL_EVENTS.len(), 43);
    let unique: std::collections::HashSet<_> = kernel_events::ALL_EVENTS.iter().collect();
    assert_eq!(unique.len(), 43);
    assert_eq!(HookRegistry::CONTEXT_PRE_COMPACT, "context:pre_compact");
    for (_, value) in kernel_events::REGISTRY_CLASS_ATTRIBUTES {
        assert!(kernel_events::ALL_EVENTS.contains(&value));
    }
}

#[test]
fn injection_role_projection_uses_first_injection() {
    let (result, _) = emit(
        &[
            (
                "a",
                0,
                answer(
                    json!({"action": "inject_context", "context_injection_role": "assistant",
                    "context_injections": [{"content": "x", "role": "user"}]}),
                ),
            ),
            (
                "b",
                1,
                answer(json!({"action": "inject_context", "context_injection": "b"})),
            ),
        ],
        json!({}),
        json!({}),
    );
    assert_eq!(result.context_injection_role, InjectionRole::User);
    assert_eq!(result.context_injection.as_deref(), Some("x\n\nb"));
}

#[test]
fn log_messages_match_the_kernel() {
    assert_eq!(
        HandlerError::Failed("ValueError: boom".into()).log_message("e", "h0"),
        "Hook handler error for event 'e' (handler 'h0'): hook handler failed: ValueError: boom"
    );
    assert_eq!(
        HandlerError::TimedOut.log_message("c", "slow"),
        "Hook handler timed out for event 'c' (handler 'slow')"
    );
    assert!(HandlerError::TimedOut.is_warning());
}
