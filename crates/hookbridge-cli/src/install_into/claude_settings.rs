//! Editing one Claude Code settings file (`settings.json`): add, update or remove the hooks that
//! run `hookbridge run`, and nothing else.
//!
//! Pure: a parsed document in, the edited document and a list of what changed out. The file's
//! other keys, their order (serde_json's `preserve_order`) and every other hook stay as they were,
//! and applying the same registrations twice changes nothing, so a second `install-into` writes no
//! byte. A hook is "ours" by what it runs, not by the program's name: its shell command is the
//! shape this module writes — any program, then exactly `run [--host H] --event <the event it is
//! registered on>`, the hooks' cap (`--max-timeout N`) and the async flags — so a renamed or
//! versioned copy (`hookbridge-1.2`) finds and replaces its own entries, and so does the line
//! copied by hand from the README (`hookbridge run --event Stop`). A `hookbridge run` the user wrote
//! with other arguments (`--project-dir ~/policy --no-user-hooks`: a policy of their own) is theirs
//! and is never replaced or removed ([`hand_written_runs`] lets `install-into` say it is kept).

use serde_json::{Map, Value};

use super::TIMEOUT_MARGIN_SECS;

/// One hook to register: `command` on `event`, with the agent's outer `timeout` in seconds
/// (written in the agent's unit, [`Registration::per_second`]). Each registered command carries
/// `--max-timeout` its outer timeout less [`TIMEOUT_MARGIN_SECS`]: hookbridge then stops any hook
/// that would outlast the registration (one added or lengthened after `install-into`, a project's)
/// itself, following its `onFailure`, and answers with what the others said — where the agent's own
/// timeout would kill hookbridge and lose every answer, a deny already given among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub event: String,
    pub command: String,
    pub timeout: u64,
    /// When the event has `async: true` hooks: the outer timeout of a registration with `async:
    /// true` that runs only those (Claude Code delivers an async hook's answer on a later request
    /// only for a hook registered that way); the first one then leaves them out.
    pub async_timeout: Option<u64>,
    /// The same for `asyncRewake` hooks, registered with `asyncRewake: true` (Claude Code wakes the
    /// model with an exit 2 only for a hook registered that way).
    pub rewake_timeout: Option<u64>,
    /// The agent's timeouts count this many per second (1 for seconds, 1000 for milliseconds).
    pub per_second: u64,
}

impl Registration {
    /// The matcher group Claude Code reads: no matcher (hookbridge applies each hook's own).
    pub fn group(&self) -> Value {
        let mut main = self.capped(self.timeout);
        let mut hooks = Vec::new();
        for (timeout, flag, key) in [
            (self.async_timeout, ASYNC_FLAGS[0], "async"),
            (self.rewake_timeout, ASYNC_FLAGS[1], "asyncRewake"),
        ] {
            if let Some(timeout) = timeout {
                main.push_str(&format!(" {flag} skip"));
                hooks.push(serde_json::json!({
                    "type": "command",
                    "command": format!("{} {flag} only", self.capped(timeout)),
                    key: true,
                    "timeout": timeout.saturating_mul(self.per_second),
                }));
            }
        }
        let main = serde_json::json!({
            "type": "command",
            "command": main,
            "timeout": self.timeout.saturating_mul(self.per_second),
        });
        hooks.insert(0, main);
        serde_json::json!({ "hooks": hooks })
    }

    /// The command of an entry whose outer timeout is `timeout` seconds: no hook behind it runs
    /// past the margin before it.
    fn capped(&self, timeout: u64) -> String {
        let cap = timeout.saturating_sub(TIMEOUT_MARGIN_SECS).max(1);
        format!("{} {MAX_TIMEOUT_FLAG} {cap}", self.command)
    }
}

/// What an edit did, per event, in the order it was done.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub unchanged: Vec<String>,
    pub removed: Vec<String>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.updated.is_empty() && self.removed.is_empty()
    }
}

/// A settings document whose shape does not let hooks be edited safely; nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error("the file is not a JSON object")]
    NotAnObject,
    #[error("`hooks` is not an object")]
    HooksNotAnObject,
    #[error("`hooks.{0}` is not a list of matcher groups")]
    EventNotAList(String),
}

/// The flags a registration adds after `--event E`, each with `skip` or `only` (see
/// [`Registration::group`]).
const ASYNC_FLAGS: [&str; 2] = ["--async-hooks", "--async-rewake-hooks"];

/// The flag after `--event E` that caps every hook of the registration (see [`Registration`]).
const MAX_TIMEOUT_FLAG: &str = "--max-timeout";

/// Whether `command`, registered on `event`, is a registration of hookbridge's (see the module
/// doc).
pub fn is_hookbridge_run(command: &str, event: &str) -> bool {
    let Ok(simple) = hookbridge_core::shell_words::simple_command(command, &|_| None) else {
        return false;
    };
    match simple.words.as_slice() {
        [_, run, rest @ ..] => run == "run" && is_registration_tail(rest, event),
        _ => false,
    }
}

/// Every `hookbridge run` the user wrote in `settings` with arguments other than a registration's
/// (`(event, command)`): kept as theirs, beside hookbridge's own.
pub fn hand_written_runs(settings: &Value) -> Vec<(String, String)> {
    other_commands(settings)
        .into_iter()
        .filter(|(_, command)| {
            // Loosely: its words need not be a simple command's (`~/policy`, `$HOME`).
            let mut words = command.split_whitespace();
            let program = words.next().and_then(|p| p.rsplit('/').next());
            program == Some("hookbridge") && words.next() == Some("run")
        })
        .collect()
}

/// `[--host H] --event <event>`, then at most once each `--max-timeout <whole seconds>` and each
/// of [`ASYNC_FLAGS`] with `skip` or `only`: the arguments after `run` of a registration of
/// `event` (of this version or an earlier one, which had no cap), whatever the program is called.
fn is_registration_tail(words: &[String], event: &str) -> bool {
    let words = match words {
        [host, _, rest @ ..] if host == "--host" => rest,
        _ => words,
    };
    let [flag, named, flags @ ..] = words else {
        return false;
    };
    if flag != "--event" || named != event || flags.len() % 2 != 0 {
        return false;
    }
    let pairs: Vec<(&str, &str)> = flags
        .chunks(2)
        .map(|pair| (pair[0].as_str(), pair[1].as_str()))
        .collect();
    pairs.iter().enumerate().all(|(i, (flag, value))| {
        let known = if *flag == MAX_TIMEOUT_FLAG {
            !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit())
        } else {
            ASYNC_FLAGS.contains(flag) && ["skip", "only"].contains(value)
        };
        known && !pairs[..i].iter().any(|(earlier, _)| earlier == flag)
    })
}

/// Make `settings` register exactly `wanted` (one group per event, at the place of the first
/// hookbridge hook already there, else last), and no hookbridge hook on any other event.
pub fn register(settings: &mut Value, wanted: &[Registration]) -> Result<Changes, ShapeError> {
    let hooks = hooks_object(settings, true)?.expect("created");
    check_lists(hooks)?;
    let mut changes = Changes::default();
    for registration in wanted {
        let groups = hooks
            .entry(registration.event.clone())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("checked");
        let desired = registration.group();
        let event = registration.event.as_str();
        let ours: Vec<usize> = (0..groups.len())
            .filter(|&i| holds_ours(&groups[i], event))
            .collect();
        if ours.len() == 1 && groups[ours[0]] == desired {
            changes.unchanged.push(registration.event.clone());
            continue;
        }
        let place = ours.first().copied();
        let place = strip_ours(groups, event, place);
        match place {
            Some(at) => {
                groups.insert(at, desired);
                changes.updated.push(registration.event.clone());
            }
            None => {
                groups.push(desired);
                changes.added.push(registration.event.clone());
            }
        }
    }
    let stale: Vec<String> = hooks
        .iter()
        .filter(|(event, groups)| {
            !wanted.iter().any(|r| &r.event == *event)
                && groups
                    .as_array()
                    .is_some_and(|g| g.iter().any(|group| holds_ours(group, event)))
        })
        .map(|(event, _)| event.clone())
        .collect();
    for event in stale {
        remove_from_event(hooks, &event);
        changes.removed.push(event);
    }
    Ok(changes)
}

/// Remove every hookbridge hook; groups, events and `hooks` itself go when only ours made them.
pub fn unregister(settings: &mut Value) -> Result<Changes, ShapeError> {
    let mut changes = Changes::default();
    let Some(hooks) = hooks_object(settings, false)? else {
        return Ok(changes);
    };
    check_lists(hooks)?;
    let events: Vec<String> = hooks
        .iter()
        .filter(|(event, groups)| {
            groups
                .as_array()
                .is_some_and(|g| g.iter().any(|group| holds_ours(group, event)))
        })
        .map(|(event, _)| event.clone())
        .collect();
    for event in events {
        remove_from_event(hooks, &event);
        changes.removed.push(event);
    }
    if hooks.is_empty() && !changes.removed.is_empty() {
        settings.as_object_mut().expect("checked").remove("hooks");
    }
    Ok(changes)
}

/// Every hook of `settings` that is not ours: `(event, command)` for each shell command hook.
pub fn other_commands(settings: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten() {
            for hook in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                if let Some(command) = hook.get("command").and_then(Value::as_str) {
                    if !is_ours(hook, event) {
                        found.push((event.clone(), command.to_string()));
                    }
                }
            }
        }
    }
    found
}

/// The events on which `settings` registers hookbridge.
pub fn registered_events(settings: &Value) -> Vec<String> {
    settings
        .get("hooks")
        .and_then(Value::as_object)
        .map(|hooks| {
            hooks
                .iter()
                .filter(|(event, groups)| {
                    groups
                        .as_array()
                        .is_some_and(|g| g.iter().any(|group| holds_ours(group, event)))
                })
                .map(|(event, _)| event.clone())
                .collect()
        })
        .unwrap_or_default()
}

fn hooks_object(settings: &mut Value, create: bool) -> Result<Option<&mut Map<String, Value>>, ShapeError> {
    let root = settings.as_object_mut().ok_or(ShapeError::NotAnObject)?;
    if !root.contains_key("hooks") {
        if !create {
            return Ok(None);
        }
        root.insert("hooks".into(), Value::Object(Map::new()));
    }
    root.get_mut("hooks")
        .expect("present")
        .as_object_mut()
        .map(Some)
        .ok_or(ShapeError::HooksNotAnObject)
}

/// Every event value must be a list before anything is edited: an edit stops half-way otherwise.
fn check_lists(hooks: &Map<String, Value>) -> Result<(), ShapeError> {
    match hooks.iter().find(|(_, groups)| !groups.is_array()) {
        Some((event, _)) => Err(ShapeError::EventNotAList(event.clone())),
        None => Ok(()),
    }
}

fn is_ours(hook: &Value, event: &str) -> bool {
    hook.get("type").and_then(Value::as_str) == Some(hookbridge_core::config::HookType::Command.name())
        && hook.get("args").is_none()
        && hook
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|command| is_hookbridge_run(command, event))
}

fn holds_ours(group: &Value, event: &str) -> bool {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|hooks| hooks.iter().any(|hook| is_ours(hook, event)))
}

/// Remove our hooks from every group of `groups`, and the groups left with no hook; returns where
/// a group replacing the one at `place` (an index before the removal) goes: its index, or just
/// after it when it still holds other hooks.
fn strip_ours(groups: &mut Vec<Value>, event: &str, place: Option<usize>) -> Option<usize> {
    let mut kept = Vec::with_capacity(groups.len());
    let mut new_place = None;
    for (index, mut group) in std::mem::take(groups).into_iter().enumerate() {
        let mut emptied = false;
        if let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) {
            let before = hooks.len();
            hooks.retain(|hook| !is_ours(hook, event));
            emptied = before > 0 && hooks.is_empty();
        }
        if Some(index) == place {
            new_place = Some(kept.len() + usize::from(!emptied));
        }
        if !emptied {
            kept.push(group);
        }
    }
    *groups = kept;
    new_place
}

fn remove_from_event(hooks: &mut Map<String, Value>, event: &str) {
    let Some(groups) = hooks.get_mut(event).and_then(Value::as_array_mut) else {
        return;
    };
    strip_ours(groups, event, None);
    if groups.is_empty() {
        hooks.shift_remove(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reg(event: &str, timeout: u64) -> Registration {
        Registration {
            event: event.into(),
            command: format!("hookbridge run --event {event}"),
            timeout,
            async_timeout: None,
            rewake_timeout: None,
            per_second: 1,
        }
    }

    #[test]
    fn ours_is_hookbridge_run_by_any_path_and_nothing_else() {
        let ours = |command: &str| is_hookbridge_run(command, "Stop");
        assert!(ours("hookbridge run --event Stop"));
        assert!(
            !ours("/usr/local/bin/hookbridge run --event Stop --project-dir x"),
            "the user's own: other arguments"
        );
        assert!(ours("'/a b/hookbridge' run --event Stop"));
        assert!(!ours("hookbridge list"));
        assert!(!ours("myhookbridge run"));
        assert!(!ours("echo hookbridge run"));
        assert!(!ours("hookbridge run --event Stop | tee log"));
        assert!(!ours(""));
    }

    #[test]
    fn a_renamed_copy_is_ours_by_the_arguments_it_is_registered_with() {
        let ours = |command: &str, event: &str| is_hookbridge_run(command, event);
        for registration in [
            reg("Stop", 605),
            Registration {
                async_timeout: Some(7),
                rewake_timeout: Some(9),
                command: "'/opt/hb 1.2/hookbridge-1.2' run --event Stop".into(),
                ..reg("Stop", 605)
            },
        ] {
            let group = registration.group();
            for hook in group["hooks"].as_array().unwrap() {
                let renamed = hook["command"]
                    .as_str()
                    .unwrap()
                    .replace("hookbridge run", "hb-next run");
                assert!(ours(&renamed, "Stop"), "{renamed}");
                assert!(!ours(&renamed, "SessionStart"), "{renamed}: another event's");
            }
        }
        assert!(ours(
            "/opt/hb-2 run --host gemini --event BeforeTool",
            "BeforeTool"
        ));
        assert!(!ours("/opt/hb-2 run --event Stop --project-dir x", "Stop"));
        assert!(!ours(
            "/opt/hb-2 run --event Stop --async-hooks skip --async-hooks only",
            "Stop"
        ));
        assert!(!ours("/opt/hb-2 run --event Stop --async-hooks later", "Stop"));
        assert!(ours("/opt/hb-2 run --event Stop --max-timeout 600", "Stop"));
        assert!(
            ours("/opt/hb-2 run --event Stop --async-hooks skip", "Stop"),
            "before the cap"
        );
        assert!(!ours("/opt/hb-2 run --event Stop --max-timeout 1e3", "Stop"));
        assert!(!ours("/opt/hb-2 run --event Stop --max-timeout ''", "Stop"));
        assert!(!ours(
            "/opt/hb-2 run --event Stop --max-timeout 6 --max-timeout 7",
            "Stop"
        ));
        assert!(!ours("make run --event", "Stop"));
        assert!(!ours("./deploy.sh run --event", "Stop"));

        let mut settings = json!({});
        let renamed = |event: &str| Registration {
            command: format!("/opt/hookbridge-1.2 run --event {event}"),
            ..reg(event, 605)
        };
        register(&mut settings, &[renamed("Stop")]).unwrap();
        let again = register(&mut settings, &[renamed("Stop")]).unwrap();
        assert_eq!(again.unchanged, ["Stop"]);
        let other_copy = register(&mut settings, &[reg("Stop", 605)]).unwrap();
        assert_eq!(other_copy.updated, ["Stop"]);
        assert_eq!(settings["hooks"]["Stop"].as_array().unwrap().len(), 1);
        assert_eq!(unregister(&mut settings).unwrap().removed, ["Stop"]);
        assert_eq!(settings, json!({}));
    }

    #[test]
    fn register_keeps_other_keys_order_and_hooks_and_is_idempotent() {
        let mut settings = json!({
            "model": "opus",
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
                ]
            },
            "permissions": {"allow": []}
        });
        let wanted = [reg("PreToolUse", 605), reg("Stop", 605)];
        let changes = register(&mut settings, &wanted).unwrap();
        assert_eq!(changes.added, ["PreToolUse", "Stop"]);
        let keys: Vec<&String> = settings.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "hooks", "permissions"]);
        let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["hooks"][0]["command"], "./guard.sh");
        assert_eq!(pre[1], wanted[0].group());
        let before = settings.clone();
        let again = register(&mut settings, &wanted).unwrap();
        assert!(again.is_empty(), "{again:?}");
        assert_eq!(again.unchanged, ["PreToolUse", "Stop"]);
        assert_eq!(settings, before);
    }

    #[test]
    fn a_changed_timeout_or_a_hand_written_registration_is_replaced_in_place() {
        let mut settings = json!({"hooks": {"Stop": [
            {"hooks": [{"type": "command", "command": "echo first"}]},
            {"hooks": [{"type": "command", "command": "hookbridge run --event Stop"}]},
            {"hooks": [{"type": "command", "command": "echo last"}]},
        ]}});
        let changes = register(&mut settings, &[reg("Stop", 35)]).unwrap();
        assert_eq!(changes.updated, ["Stop"]);
        let stop = settings["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 3);
        assert_eq!(stop[1]["hooks"][0]["timeout"], 35);
        assert_eq!(stop[2]["hooks"][0]["command"], "echo last");
    }

    /// A `hookbridge run` of the user's own, with arguments no registration has (a policy of
    /// theirs), is neither replaced nor removed, and is named as kept.
    #[test]
    fn a_hand_written_hookbridge_run_with_other_arguments_is_the_users() {
        let policy = "hookbridge run --event PreToolUse --project-dir ~/policy --no-user-hooks";
        let original =
            json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": policy}]}]}});
        let mut settings = original.clone();
        let changes = register(&mut settings, &[reg("PreToolUse", 605)]).unwrap();
        assert_eq!(changes.added, ["PreToolUse"]);
        let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre[0], original["hooks"]["PreToolUse"][0], "kept, in its place");
        assert_eq!(pre[1], reg("PreToolUse", 605).group());
        assert_eq!(
            hand_written_runs(&settings),
            [("PreToolUse".to_string(), policy.to_string())]
        );
        unregister(&mut settings).unwrap();
        assert_eq!(settings, original);
    }

    #[test]
    fn two_registrations_on_one_event_become_one_and_shared_groups_keep_their_other_hooks() {
        let mut settings = json!({"hooks": {"Stop": [
            {"hooks": [
                {"type": "command", "command": "echo keep"},
                {"type": "command", "command": "hookbridge run --event Stop"}
            ]},
            {"hooks": [{"type": "command", "command": "/opt/hookbridge run --event Stop"}]},
        ]}});
        register(&mut settings, &[reg("Stop", 605)]).unwrap();
        let stop = settings["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2, "{stop:?}");
        assert_eq!(
            stop[0]["hooks"],
            json!([{"type": "command", "command": "echo keep"}])
        );
        assert_eq!(stop[1], reg("Stop", 605).group());
    }

    #[test]
    fn events_no_longer_wanted_lose_our_hook() {
        let mut settings = json!({"hooks": {"WorktreeCreate": [
            {"hooks": [{"type": "command", "command": "hookbridge run --event WorktreeCreate"}]}
        ]}});
        let changes = register(&mut settings, &[reg("Stop", 605)]).unwrap();
        assert_eq!(changes.removed, ["WorktreeCreate"]);
        assert_eq!(settings, json!({"hooks": {"Stop": [reg("Stop", 605).group()]}}));
    }

    #[test]
    fn unregister_restores_what_register_changed() {
        let original = json!({
            "env": {"A": "1"},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./g.sh"}]}]}
        });
        let mut settings = original.clone();
        register(&mut settings, &[reg("PreToolUse", 605), reg("Stop", 605)]).unwrap();
        let changes = unregister(&mut settings).unwrap();
        assert_eq!(changes.removed, ["PreToolUse", "Stop"]);
        assert_eq!(settings, original);

        let mut empty = json!({});
        register(&mut empty, &[reg("Stop", 605)]).unwrap();
        unregister(&mut empty).unwrap();
        assert_eq!(empty, json!({}));

        let mut untouched = json!({"hooks": {}});
        assert!(unregister(&mut untouched).unwrap().is_empty());
        assert_eq!(
            untouched,
            json!({"hooks": {}}),
            "an empty hooks object we did not empty stays"
        );
    }

    #[test]
    fn shapes_that_cannot_be_edited_change_nothing() {
        for (mut doc, error) in [
            (json!([]), ShapeError::NotAnObject),
            (json!({"hooks": []}), ShapeError::HooksNotAnObject),
            (
                json!({"hooks": {"Stop": [], "PreToolUse": {"x": 1}}}),
                ShapeError::EventNotAList("PreToolUse".into()),
            ),
        ] {
            let before = doc.clone();
            assert_eq!(register(&mut doc, &[reg("Stop", 1)]), Err(error));
            assert_eq!(doc, before);
        }
    }

    #[test]
    fn other_commands_lists_every_hook_but_ours() {
        let mut settings = json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./g.sh"}, {"type": "prompt", "prompt": "p"}]}
        ]}});
        register(&mut settings, &[reg("PreToolUse", 605)]).unwrap();
        assert_eq!(
            other_commands(&settings),
            [("PreToolUse".to_string(), "./g.sh".to_string())]
        );
        assert_eq!(registered_events(&settings), ["PreToolUse"]);
    }
}
