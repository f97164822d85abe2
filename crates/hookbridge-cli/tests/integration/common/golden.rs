//! The golden conformance harness: replays each measured case through `hookbridge run` and checks
//! that Claude Code, with hookbridge as its only hook, would have behaved as it did with the hooks
//! registered directly.
//!
//! For one case:
//! 1. A temp work dir gets `project/` (the case's `files/`, plus `.amplifier/hooks/hooks.json` with
//!    the case's `settings.hooks`, `.claude/settings.local.json`'s hooks appended per event, and
//!    `disableAllHooks`) and `home/` (the case's `home/`, plus `~/.amplifier/hooks/hooks.json` from
//!    `user_settings`).
//! 2. The recorded hook calls are grouped into event invocations: consecutive calls of one event
//!    with the same payload are siblings of one parallel invocation (when one payload repeats, the
//!    k-th call of each command belongs to the k-th invocation, unless the payload carries a
//!    `tool_use_id`, which makes it one invocation). Invocations the oracle could not record are
//!    added from the case's [`Harness`] (`synthesized`), unrecorded hooks of recorded invocations
//!    from its `unrecorded`, and every tool call of the model view with no PreToolUse recorded
//!    becomes a PreToolUse invocation where no hook may run (so a matcher or `if` that wrongly
//!    matches is caught).
//! 3. Each invocation's payload (placeholders expanded, `session_id`/`transcript_path`/`cwd`/
//!    `prompt_id` added back as `payload_keys` lists them) goes to
//!    `hookbridge run --event E --format report`, with HOME and HOOKBRIDGE_LOG in the work dir.
//! 4. Checks: (a) the hooks hookbridge selected are exactly the ones Claude Code ran; (b) each
//!    recorded hook's exit code, stdout and stderr match (normalized and truncated like the oracle);
//!    (c) hookbridge's answers, read with Claude Code's single-hook rules (`claude_view`), show the
//!    model the same hook texts the recording shows, and have the same effects (permission
//!    decisions, deferral, stop, updatedInput); plus the files hooks leave in the project.
//!
//! Claude Code's recorder logs a hook only when it finishes: a hook hookbridge cancelled (the
//! outcome was already decided) or timed out is compared as "not recorded" unless the case's
//! harness says Claude Code ran it. Everything the harness knows about a single case is in that case's
//! `harness.json` ([`Harness`]), beside its recording, each fact with its evidence.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use super::claude_view::{claude_view, Answer, Channel, Effect, Shown};
use super::normalize::{
    truncate_like_oracle, CommandMask, Placeholders, RecordedText, HOOK_OUTPUT_LIMIT, MODEL_TEXT_LIMIT,
};
use super::{hookbridge_run, run_with_deadline};

/// A synthesized invocation's payload that the hook itself saved: the one in the recording's
/// `collected_files/hook_stdin.txt`.
const FROM_HOOK_STDIN: &str = "@collected_files:hook_stdin.txt";

/// A PreToolUse payload as Claude Code sends it (the oracle's placeholders): what an unhooked tool
/// call's invocation is made from ([`unhooked_tool_calls`]).
const PRE_TOOL_USE: &str = r#"{"session_id":"$SESSION","transcript_path":"$HOME/.claude/projects/$PROJECT_SLUG/$SESSION.jsonl","cwd":"$PROJECT","prompt_id":"$PROMPT_ID","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch ran_bash","description":"d"},"tool_use_id":"$TOOLU_1"}"#;

// ------------------------------------------------------------------------------------------------
// A case's harness facts: `harness.json` beside its recording.

/// What the harness knows about one case beyond its recording, each fact with its evidence: the
/// case's `harness.json`, beside its `expected.json` (a measured case's folder; for a golden case,
/// its folder of recordings with the pinned version, `golden-<version>/<case>/`, for the golden
/// folders are the shared catalog's, copied verbatim). A case without one needs none.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Harness {
    /// Event invocations the oracle could not record, written out from the case's turns.
    #[serde(default)]
    pub synthesized: Vec<Synthesized>,
    /// Hooks that ran in recorded invocations without being recorded.
    #[serde(default)]
    pub unrecorded: Vec<UnrecordedHook>,
    /// Recorded hooks whose exit code and output are not compared.
    #[serde(default)]
    pub results_not_compared: Vec<NotCompared>,
    /// For a case marked `"mux": false`: what a single hookbridge hook can and cannot reproduce.
    #[serde(default)]
    pub mux_false: Option<MuxFalse>,
    /// Why the case's hooks race (no sleep decides which finishes first): their context
    /// paragraphs are compared as a multiset, for their order is completion order in both.
    #[serde(default)]
    pub order_race: Option<String>,
    /// Timing bounds.
    #[serde(default)]
    pub timing: Option<Timing>,
    /// How each project file the oracle collected is compared, by its name.
    #[serde(default)]
    pub collected: BTreeMap<String, Collected>,
    /// Where hookbridge knowingly differs from Claude Code today: the test passes only while the
    /// case differs exactly so.
    #[serde(default)]
    pub known_gap: Option<KnownGap>,
}

/// An event invocation the oracle could not record.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Synthesized {
    pub event: String,
    /// The payload Claude Code sends, with the oracle's placeholders; or the string
    /// `@collected_files:hook_stdin.txt`: the payload the hook saved there.
    pub payload: Value,
    /// The hooks (command, or prompt for prompt hooks) Claude Code ran in this invocation.
    pub hooks: Vec<String>,
    pub expect: Expect,
    /// How many such invocations Claude Code made in a row.
    #[serde(default = "one")]
    pub times: usize,
    pub evidence: String,
}

fn one() -> usize {
    1
}

/// A hook that ran in recorded invocations without being recorded.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnrecordedHook {
    pub event: String,
    /// Only invocations for these tool calls (empty: every invocation of `event`).
    #[serde(default)]
    pub tool_use_ids: Vec<String>,
    pub command: String,
    pub expect: Expect,
    pub evidence: String,
}

/// A recorded hook whose exit code and output are not compared.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotCompared {
    pub command: String,
    pub why: String,
}

/// What hookbridge must report for a hook whose outcome the oracle did not record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Expect {
    /// Not checked (only that it was selected).
    Selected,
    Exited(i32),
    TimedOut,
    Signaled,
}

/// How the model view of a `"mux": false` case is compared.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ModelView {
    #[default]
    Compare,
    /// Not compared at all.
    Skip,
    /// Compared, except for recorded texts that contain one of these.
    Ignore(Vec<String>),
}

/// A case marked `"mux": false`: what a single hookbridge hook can and cannot reproduce.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MuxFalse {
    pub model_view: ModelView,
    /// Hooks hookbridge deliberately runs although Claude Code dropped them.
    #[serde(default)]
    pub also_runs: Vec<AlsoRuns>,
    /// Substrings hookbridge's diagnostics must contain.
    #[serde(default)]
    pub diagnostics: Vec<String>,
    pub why: String,
}

/// A hook hookbridge runs although Claude Code dropped it.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlsoRuns {
    pub event: String,
    /// The match query (the tool's name, for a tool event).
    pub query: String,
    pub command: String,
}

/// Timing bounds of a case.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// The most seconds one invocation may take.
    pub max_seconds: f64,
    /// Seconds to wait before checking the files the hooks leave.
    #[serde(default)]
    pub settle_seconds: f64,
    pub why: String,
}

/// How a collected project file is compared.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Collected {
    Exact,
    /// An `ls -l /proc/self/fd` listing: exact once socket inodes, pids and times are masked as
    /// the oracle masks them (`socket:[N]`, `/proc/N/`, `$MTIME`).
    FdListing,
    /// These lines must be in both (after the oracle's env-dump filter).
    Lines(Vec<String>),
    /// Not compared, for this reason.
    Skip(String),
}

/// A case where hookbridge knowingly differs from Claude Code today.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownGap {
    pub why: String,
    /// The differences it must show, each a substring of one reported difference; every reported
    /// difference must be one of them. A gap that fails in another way is a new failure.
    pub differences: Vec<String>,
}

impl KnownGap {
    /// What is wrong with `failures` as this gap's differences, if anything.
    pub fn unexpected(&self, failures: &[String]) -> Vec<String> {
        let mut wrong: Vec<String> = failures
            .iter()
            .filter(|f| !self.differences.iter().any(|d| f.contains(d.as_str())))
            .map(|f| format!("a difference not pinned for this gap: {f}"))
            .collect();
        wrong.extend(
            self.differences
                .iter()
                .filter(|d| !failures.iter().any(|f| f.contains(d.as_str())))
                .map(|d| format!("a pinned difference did not show: {d:?}")),
        );
        wrong
    }
}

// ------------------------------------------------------------------------------------------------
// Cases.

pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    /// "golden" or "measured".
    pub origin: &'static str,
    pub spec: Value,
    pub expected: Value,
    /// What the harness knows about the case beyond its recording (its `harness.json`).
    pub harness: Harness,
}

/// Every case folder of `dir`; a folder without an `expected.json` is an error.
pub fn load_cases(dir: &Path, origin: &'static str) -> Result<Vec<Case>, String> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    names.into_iter().map(|path| load_case(path, origin)).collect()
}

/// The Claude Code version the cases' `expected.json` were recorded with: the pinned one
/// (`tests/npm/claude-code/package.json`; a check of the integration binary's `conformance` module
/// holds the two together). The measured cases (`tests/conformance/cases/`) hold their recording in
/// their folder; the golden cases, a byte copy of the shared catalog (recorded with 2.1.328), have
/// theirs in `tests/conformance/golden-<version>/<case>/expected.json`. Both are written by
/// `tests/conformance/record_reference.py` (docs/claude-code.md#claude-code-versions).
pub const REFERENCE_VERSION: &str = "2.1.332";

/// Where a golden case's recording with [`REFERENCE_VERSION`] is, beside `golden/`.
pub fn golden_reference_dir(golden: &Path) -> PathBuf {
    golden.with_file_name(format!("golden-{REFERENCE_VERSION}"))
}

/// The case in folder `path`.
pub fn load_case(path: PathBuf, origin: &'static str) -> Result<Case, String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let expected = match origin {
        "golden" => golden_reference_dir(path.parent().expect("a case folder has a parent"))
            .join(&name)
            .join("expected.json"),
        _ => path.join("expected.json"),
    };
    if !expected.is_file() {
        return Err(format!(
            "{origin} {name}: no {} (record it with tests/conformance/record_reference.py, or remove the folder)",
            expected.display()
        ));
    }
    let read = |file: &Path| -> Result<Value, String> {
        let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))
    };
    let mut case = Case {
        spec: read(&path.join("case.json"))?,
        expected: read(&expected)?,
        name,
        dir: path,
        origin,
        harness: Harness::default(),
    };
    let harness = case.harness_path();
    if harness.exists() {
        let text = fs::read_to_string(&harness).map_err(|e| format!("{}: {e}", harness.display()))?;
        case.harness = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", harness.display()))?;
    }
    Ok(case)
}

impl Case {
    /// Where the case's harness facts are ([`Harness`]): beside its recording.
    pub fn harness_path(&self) -> PathBuf {
        match self.origin {
            "golden" => golden_reference_dir(self.dir.parent().expect("a case folder has a parent"))
                .join(&self.name)
                .join("harness.json"),
            _ => self.dir.join("harness.json"),
        }
    }

    fn mux_false(&self) -> bool {
        self.spec.get("mux") == Some(&Value::Bool(false))
    }

    fn local_settings(&self) -> Option<Value> {
        let text = fs::read_to_string(self.dir.join("files/.claude/settings.local.json")).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// The mask that turns every hook command and prompt of the case into `CMD`.
    pub fn mask(&self) -> CommandMask {
        CommandMask::new(self.all_commands())
    }

    pub fn mask_with(&self, more: Vec<String>) -> CommandMask {
        let mut all = self.all_commands();
        all.extend(more);
        CommandMask::new(all)
    }

    pub fn is_mux_false(&self) -> bool {
        self.mux_false()
    }

    /// Whether the case configures a hook that is not a command (prompt, agent, http, mcp_tool).
    pub fn has_hooks_of_other_kinds(&self) -> bool {
        let settings = [
            self.spec.get("settings").cloned(),
            self.spec.get("user_settings").cloned(),
        ];
        settings
            .into_iter()
            .flatten()
            .filter_map(|s| s.get("hooks").cloned())
            .filter_map(|h| h.as_object().cloned())
            .flat_map(|events| events.into_iter().map(|(_, groups)| groups))
            .filter_map(|groups| groups.as_array().cloned())
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array).cloned())
            .flatten()
            .any(|h| {
                h.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t != "command")
            })
    }

    /// Every hook command and prompt the case configures (for masking `[command]`).
    fn all_commands(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut sources = vec![
            self.spec.get("settings").cloned(),
            self.spec.get("user_settings").cloned(),
        ];
        sources.push(self.local_settings());
        for s in sources.into_iter().flatten() {
            if let Some(events) = s.get("hooks").and_then(Value::as_object) {
                for groups in events.values().filter_map(Value::as_array) {
                    for g in groups {
                        for h in g.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                            for k in ["command", "prompt"] {
                                if let Some(c) = h.get(k).and_then(Value::as_str) {
                                    out.push(c.to_string());
                                }
                            }
                            // Exec form: Claude Code names the hook `command arg…` (case 157).
                            if let (Some(c), Some(args)) = (
                                h.get("command").and_then(Value::as_str),
                                h.get("args").and_then(Value::as_array),
                            ) {
                                let args: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
                                out.push(format!("{c} {}", args.join(" ")));
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

// ------------------------------------------------------------------------------------------------
// Invocations.

#[derive(Debug, Clone)]
pub struct Call {
    pub command: String,
    pub exit_code: i64,
    pub stdout: String,
    pub stderr: String,
}

#[derive(Debug, Clone)]
pub struct Invocation {
    pub event: String,
    /// The payload Claude Code sent, with placeholders.
    pub payload: Value,
    /// Recorded hook calls (siblings).
    pub calls: Vec<Call>,
    /// Hooks that ran here unrecorded: (command, expect, evidence).
    pub unrecorded: Vec<(String, Expect, String)>,
    /// Why this invocation is in the list if it was not recorded.
    pub synthesized: Option<String>,
}

impl Invocation {
    pub fn describe(&self, index: usize) -> String {
        let tool = self.payload.get("tool_name").and_then(Value::as_str);
        let id = self.payload.get("tool_use_id").and_then(Value::as_str);
        let mut s = format!("#{index} {}", self.event);
        if let Some(t) = tool {
            s.push_str(&format!(
                "({t}{})",
                id.map(|i| format!(" {i}")).unwrap_or_default()
            ));
        }
        if let Some(active) = self.payload.get("stop_hook_active") {
            s.push_str(&format!("(stop_hook_active={active})"));
        }
        if self.synthesized.is_some() {
            s.push_str(" [synthesized]");
        }
        s
    }

    fn match_query(&self) -> Option<&str> {
        self.payload
            .get("tool_name")
            .or_else(|| self.payload.get("source"))
            .and_then(Value::as_str)
    }
}

const NOISY_NUMBERS: &[&str] = &[
    "duration_ms",
    "end_time",
    "start_time",
    "total_tokens",
    "ttft_ms",
    "timestamp",
    "totalDurationMs",
    "totalTokens",
    "totalToolUseCount",
];

/// `"<n>"` placeholders for noisy numbers back to numbers, and strings the oracle cut at 600
/// characters (`text[:600] + "...[N chars]"`) back to their length, by repeating the last visible
/// character (the big payloads of the cases are runs of one character, 173).
fn denoise(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(restore_length(s)),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = if NOISY_NUMBERS.contains(&k.as_str()) && v == "<n>" {
                        Value::from(0)
                    } else {
                        denoise(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(denoise).collect()),
        other => other.clone(),
    }
}

fn restore_length(s: &str) -> String {
    const PAYLOAD_LIMIT: usize = 600;
    if let Some(stripped) = s.strip_suffix(" chars]") {
        if let Some(i) = stripped.rfind("...[") {
            if let Ok(n) = stripped[i + 4..].parse::<usize>() {
                let visible = &s[..i];
                if visible.chars().count() == PAYLOAD_LIMIT && n > PAYLOAD_LIMIT {
                    let last = visible.chars().last().unwrap_or(' ');
                    return format!("{visible}{}", last.to_string().repeat(n - PAYLOAD_LIMIT));
                }
            }
        }
    }
    s.to_string()
}

/// The payload Claude Code sent, rebuilt from a recorded call: the oracle dropped session_id,
/// transcript_path, cwd and prompt_id (keeping cwd/transcript_path only when unusual);
/// `payload_keys` says which were there.
fn recorded_payload(call: &Value) -> Result<Value, String> {
    let payload = call
        .get("payload")
        .and_then(Value::as_object)
        .ok_or("a hook call without a JSON payload")?;
    let keys: Vec<&str> = call
        .get("payload_keys")
        .and_then(Value::as_str)
        .unwrap_or("")
        .split(' ')
        .collect();
    let mut out = Map::new();
    if keys.contains(&"session_id") {
        out.insert("session_id".into(), "$SESSION".into());
    }
    if keys.contains(&"transcript_path") {
        let t = payload.get("transcript_path").cloned();
        out.insert(
            "transcript_path".into(),
            t.unwrap_or("$HOME/.claude/projects/$PROJECT_SLUG/$SESSION.jsonl".into()),
        );
    }
    if keys.contains(&"cwd") {
        out.insert(
            "cwd".into(),
            payload.get("cwd").cloned().unwrap_or("$PROJECT".into()),
        );
    }
    if keys.contains(&"prompt_id") {
        out.insert("prompt_id".into(), "$PROMPT_ID".into());
    }
    for (k, v) in payload {
        if k != "cwd" && k != "transcript_path" {
            out.insert(k.clone(), denoise(v));
        }
    }
    Ok(Value::Object(out))
}

/// Group `hook_calls` into invocations and add the synthesized ones.
pub fn invocations(case: &Case) -> Result<Vec<Invocation>, String> {
    // Runs of consecutive calls with the same event and payload. The oracle sorted each run by
    // command, so when one payload repeats (Stop with stop_hook_active=true, 29 and 178) the run
    // holds several invocations: the k-th call of each command belongs to the k-th invocation.
    let calls = case
        .expected
        .get("hook_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut runs: Vec<(String, Vec<&Value>)> = Vec::new();
    for c in &calls {
        let event = c
            .get("event")
            .and_then(Value::as_str)
            .ok_or("a hook call without an event")?;
        let key = format!(
            "{event}\u{0}{}",
            c.get("payload")
                .or(c.get("payload_raw"))
                .map(Value::to_string)
                .unwrap_or_default()
        );
        match runs.last_mut() {
            Some((k, run)) if *k == key => run.push(c),
            _ => runs.push((key, vec![c])),
        }
    }
    let mut out: Vec<Invocation> = Vec::new();
    for (_, run) in runs {
        let first = out.len();
        for c in run {
            let command = c
                .get("command")
                .and_then(Value::as_str)
                .ok_or("a hook call without a command")?
                .to_string();
            let call = Call {
                command: command.clone(),
                exit_code: c
                    .get("exit_code")
                    .and_then(Value::as_i64)
                    .ok_or("a hook call without an exit code")?,
                stdout: c.get("stdout").and_then(Value::as_str).unwrap_or("").to_string(),
                stderr: c.get("stderr").and_then(Value::as_str).unwrap_or("").to_string(),
            };
            // A payload with a tool_use_id belongs to exactly one invocation, which may run one
            // command twice (the same command with and without `if`, case 183).
            let unique_payload = c.pointer("/payload/tool_use_id").is_some();
            match out[first..]
                .iter_mut()
                .find(|inv| unique_payload || !inv.calls.iter().any(|x| x.command == command))
            {
                Some(inv) => inv.calls.push(call),
                None => out.push(Invocation {
                    event: c
                        .get("event")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    payload: recorded_payload(c)?,
                    calls: vec![call],
                    unrecorded: Vec::new(),
                    synthesized: None,
                }),
            }
        }
    }
    for u in &case.harness.unrecorded {
        let mut found = false;
        for inv in out.iter_mut().filter(|i| i.event == u.event) {
            let id = inv
                .payload
                .get("tool_use_id")
                .and_then(Value::as_str)
                .unwrap_or("");
            if u.tool_use_ids.is_empty() || u.tool_use_ids.iter().any(|t| t == id) {
                inv.unrecorded
                    .push((u.command.clone(), u.expect, u.evidence.clone()));
                found = true;
            }
        }
        if !found {
            return Err(format!(
                "harness.json's unrecorded names a {} invocation the case did not record",
                u.event
            ));
        }
    }
    let mut synthesized = Vec::new();
    for s in &case.harness.synthesized {
        let payload: Value = if s.payload.as_str() == Some(FROM_HOOK_STDIN) {
            let text = case
                .expected
                .pointer("/collected_files/hook_stdin.txt")
                .and_then(Value::as_str)
                .ok_or("collected_files has no hook_stdin.txt")?;
            serde_json::from_str(text.trim()).map_err(|e| format!("hook_stdin.txt: {e}"))?
        } else {
            s.payload.clone()
        };
        for _ in 0..s.times {
            synthesized.push(Invocation {
                event: s.event.clone(),
                payload: payload.clone(),
                calls: Vec::new(),
                unrecorded: s
                    .hooks
                    .iter()
                    .map(|h| (h.clone(), s.expect, s.evidence.clone()))
                    .collect(),
                synthesized: Some(s.evidence.clone()),
            });
        }
    }
    synthesized.extend(out);
    synthesized.extend(unhooked_tool_calls(case, &synthesized));
    Ok(synthesized)
}

const AUTO_EVIDENCE: &str =
    "a tool call the model made with no PreToolUse hook recorded: Claude Code ran no hook for it";

/// A PreToolUse invocation, with no hook, for every tool call in the model view that has none
/// recorded (or synthesized): Claude Code ran no hook there, so hookbridge must run none either.
/// Without these, a matcher or `if` that wrongly matches would go unnoticed (150–153).
fn unhooked_tool_calls(case: &Case, known: &[Invocation]) -> Vec<Invocation> {
    let exp = &case.expected;
    let mut blocks: Vec<Value> = Vec::new();
    for m in exp
        .get("model_view")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        blocks.extend(
            m.get("blocks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .cloned(),
        );
    }
    blocks.extend(
        exp.get("model_view_only_in_earlier_requests")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .cloned(),
    );
    // Calls refused before any hook: the tool does not exist in this session (02, 82).
    let unavailable: Vec<&str> = blocks
        .iter()
        .filter(|b| {
            b.get("tool_result")
                .and_then(Value::as_str)
                .is_some_and(|t| t.contains("No such tool available"))
        })
        .filter_map(|b| b.get("id").and_then(Value::as_str))
        .collect();
    let covered = |id: &str| {
        known.iter().any(|i| {
            i.event == "PreToolUse" && i.payload.get("tool_use_id").and_then(Value::as_str) == Some(id)
        })
    };
    let mut out: Vec<Invocation> = Vec::new();
    for b in &blocks {
        let (Some(tool), Some(id), Some(input)) = (
            b.get("tool_use").and_then(Value::as_str),
            b.get("id").and_then(Value::as_str),
            b.get("input"),
        ) else {
            continue;
        };
        if unavailable.contains(&id) || covered(id) || out.iter().any(|i| i.payload["tool_use_id"] == id) {
            continue;
        }
        let mut input = denoise(input);
        // PreToolUse gets file tools' paths absolute (01).
        if let Some(path) = input
            .get("file_path")
            .and_then(Value::as_str)
            .filter(|p| !p.starts_with('/'))
        {
            input["file_path"] = Value::from(format!("$PROJECT/{path}"));
        }
        let mut payload: Value = serde_json::from_str(PRE_TOOL_USE).expect("template");
        payload["tool_name"] = Value::from(tool);
        payload["tool_input"] = input;
        payload["tool_use_id"] = Value::from(id);
        out.push(Invocation {
            event: "PreToolUse".into(),
            payload,
            calls: Vec::new(),
            unrecorded: Vec::new(),
            synthesized: Some(AUTO_EVIDENCE.to_string()),
        });
    }
    out
}

// ------------------------------------------------------------------------------------------------
// Running a case.

pub const SESSION_ID: &str = "5e551011-0000-4000-8000-00000000c0de";
pub const PROMPT_ID: &str = "9a0e5d1d-0000-4000-8000-00000000c0de";

/// The outcome of one case.
#[derive(Debug, Default)]
pub struct Outcome {
    pub failures: Vec<String>,
    pub notes: Vec<String>,
    pub invocations: usize,
    pub hooks: usize,
}

struct Ctx<'a> {
    case: &'a Case,
    work: PathBuf,
    project: PathBuf,
    home: PathBuf,
    ph: Placeholders,
    mask: CommandMask,
    /// The oracle's fake API, for cases with prompt hooks: it answers every model call with the
    /// case's `fake_toolless_text`, as the oracle's did.
    model: Option<super::fake_model::FakeServer>,
}

impl Ctx<'_> {
    fn expand(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.ph.expand(s).replace("$PROMPT_ID", PROMPT_ID)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.expand(x)).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), self.expand(x))).collect()),
            other => other.clone(),
        }
    }
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The hooks.json hookbridge reads for one Claude Code settings object (plus appended local hooks).
fn hooks_file(settings: &Value, local: Option<&Value>) -> Option<Value> {
    let mut out = Map::new();
    let mut hooks = settings.get("hooks").cloned();
    if let Some(local_hooks) = local.and_then(|l| l.get("hooks")) {
        hooks = Some(match hooks {
            Some(Value::Object(mut h)) if local_hooks.is_object() => {
                for (event, groups) in local_hooks.as_object().unwrap() {
                    match (h.get_mut(event), groups) {
                        (Some(Value::Array(existing)), Value::Array(more)) => {
                            existing.extend(more.iter().cloned())
                        }
                        _ => {
                            h.insert(event.clone(), groups.clone());
                        }
                    }
                }
                Value::Object(h)
            }
            None => local_hooks.clone(),
            Some(other) => other,
        });
    }
    if let Some(h) = hooks {
        out.insert("hooks".into(), h);
    }
    for s in [Some(settings), local].into_iter().flatten() {
        if let Some(d) = s.get("disableAllHooks") {
            out.insert("disableAllHooks".into(), d.clone());
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

fn setup<'a>(case: &'a Case, work: &Path) -> Result<Ctx<'a>, String> {
    let project = work.join("project");
    let home = work.join("home");
    let io = |e: std::io::Error| format!("setting up the temp project: {e}");
    fs::create_dir_all(&project).map_err(io)?;
    fs::create_dir_all(&home).map_err(io)?;
    // Claude Code's project has `.claude/` (its settings.json registers the hooks; with hookbridge,
    // hookbridge). Hooks may write there (07).
    fs::create_dir_all(project.join(".claude")).map_err(io)?;
    fs::create_dir_all(home.join(".claude")).map_err(io)?;
    if case.dir.join("files").is_dir() {
        copy_tree(&case.dir.join("files"), &project).map_err(io)?;
    }
    if case.dir.join("home").is_dir() {
        copy_tree(&case.dir.join("home"), &home).map_err(io)?;
    }
    let empty = Value::Object(Map::new());
    let settings = case.spec.get("settings").unwrap_or(&empty);
    let local = case.local_settings();
    let write = |dir: &Path, v: Value| -> Result<(), String> {
        let d = dir.join(".amplifier/hooks");
        fs::create_dir_all(&d).map_err(io)?;
        fs::write(d.join("hooks.json"), serde_json::to_string_pretty(&v).unwrap()).map_err(io)
    };
    if let Some(v) = hooks_file(settings, local.as_ref()) {
        write(&project, v)?;
    }
    if let Some(v) = case.spec.get("user_settings").and_then(|u| hooks_file(u, None)) {
        write(&home, v)?;
    }
    let ph = Placeholders::new(work, SESSION_ID);
    // hookbridge is Claude Code's hook: where Claude Code names "the hook's command", it names ours.
    // The answer may name it too (a further block's label, cases 104/106); mask it like the others.
    let mut own = Vec::new();
    for event in [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SubagentStop",
        "UserPromptSubmit",
    ] {
        let line = own_command_line(event, &project);
        own.push(ph.normalize(&line));
        own.push(line);
    }
    let toolless = case
        .spec
        .get("toolless_text")
        .or_else(|| case.spec.get("fake_toolless_text"))
        .and_then(Value::as_str);
    let model = toolless.map(|text| {
        super::fake_model::FakeServer::start(super::fake_model::Reply::ModelText(text.to_string()))
    });
    Ok(Ctx {
        case,
        model,
        mask: case.mask_with(own),
        ph,
        work: work.to_path_buf(),
        project,
        home,
    })
}

/// What `--format report` printed for one invocation.
struct Ran {
    report: Value,
    elapsed: Duration,
}

/// Python's `shlex.quote`: how a shell command line names an argument.
fn shell_quote(arg: &str) -> String {
    let safe = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c));
    if safe {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\"'\"'"))
    }
}

/// The command line the harness starts hookbridge with: as registered in Claude Code, the string
/// Claude Code would show as the hook's command.
fn own_command_line(event: &str, project: &Path) -> String {
    let bin = super::hookbridge_bin();
    let args = [
        bin.to_string_lossy().as_ref(),
        "run",
        "--event",
        event,
        "--project-dir",
        &project.to_string_lossy(),
        "--format",
        "report",
    ]
    .iter()
    .map(|a| shell_quote(a))
    .collect::<Vec<_>>();
    args.join(" ")
}

fn run_invocation(ctx: &Ctx, inv: &Invocation, deadline: Duration) -> Result<Ran, String> {
    let payload = ctx.expand(&inv.payload);
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .unwrap_or(ctx.project.clone());
    if cwd.starts_with(&ctx.project) {
        // Claude Code's session cwd exists when it sends it (case 05: `cd sub`).
        let _ = fs::create_dir_all(&cwd);
    }
    let log = ctx.work.join("diagnostics.log");
    let mut cmd = hookbridge_run(&inv.event, &ctx.project, &ctx.home, &log, "report");
    cmd.current_dir(if cwd.is_dir() { &cwd } else { &ctx.project });
    // The oracle ran Claude Code against its fake API; hookbridge inherits that address (83, 86).
    if let Some(model) = &ctx.model {
        cmd.env("ANTHROPIC_BASE_URL", &model.url)
            .env("ANTHROPIC_API_KEY", "sk-ant-oracle");
    }
    // What Claude Code gives every hook (71), hookbridge included.
    cmd.env("CLAUDECODE", "1")
        .env("CLAUDE_PROJECT_DIR", &ctx.project)
        .env("CLAUDE_CODE_SESSION_ID", SESSION_ID);
    // Claude Code's own environment (the case's `env`) and the settings' `env`, which Claude Code
    // applies to itself, are inherited by its hook (71).
    for pointer in ["/env", "/settings/env"] {
        if let Some(env) = ctx.case.spec.pointer(pointer).and_then(Value::as_object) {
            for (k, v) in env {
                cmd.env(k, v.as_str().unwrap_or_default());
            }
        }
    }
    if inv.event == "SessionStart" {
        // Claude Code gives each SessionStart hook its own env file (72); hookbridge is that hook.
        let file = ctx
            .ph
            .expand("$HOME/.claude/session-env/$SESSION/sessionstart-hook-0.sh");
        let _ = fs::create_dir_all(Path::new(&file).parent().unwrap());
        cmd.env("CLAUDE_ENV_FILE", file);
    }
    // As Claude Code writes it to a hook: compact JSON and a newline (cases 71, 189).
    let mut stdin = serde_json::to_vec(&payload).unwrap();
    stdin.push(b'\n');
    let done = run_with_deadline(cmd, &stdin, deadline);
    if done.timed_out {
        return Err(format!("hookbridge did not answer within {deadline:?} (killed)"));
    }
    if done.code != Some(0) {
        return Err(format!(
            "hookbridge --format report exited with {:?}; stderr: {}",
            done.code,
            done.stderr_str()
        ));
    }
    let report: Value = serde_json::from_slice(&done.stdout).map_err(|e| {
        format!(
            "the report is not JSON ({e}): {}",
            truncate_like_oracle(&done.stdout_str(), 500)
        )
    })?;
    Ok(Ran {
        report,
        elapsed: done.elapsed,
    })
}

/// Run one case and check everything; never panics on a difference (it becomes a failure).
pub fn run_case(case: &Case) -> Outcome {
    let mut o = Outcome::default();
    let tmp = match tempfile::Builder::new().prefix("hb-golden-").tempdir() {
        Ok(t) => t,
        Err(e) => {
            o.failures.push(format!("cannot create a temp dir: {e}"));
            return o;
        }
    };
    let ctx = match setup(case, tmp.path()) {
        Ok(c) => c,
        Err(e) => {
            o.failures.push(e);
            return o;
        }
    };
    let invs = match invocations(case) {
        Ok(i) => i,
        Err(e) => {
            o.failures
                .push(format!("cannot read the recorded invocations: {e}"));
            return o;
        }
    };
    if invs.is_empty() {
        o.failures.push(
            "no recorded or synthesized invocation: nothing to check (add the invocations Claude Code made to the case's harness.json, `synthesized`)"
                .into(),
        );
        return o;
    }
    o.invocations = invs.len();
    let mux = case.harness.mux_false.as_ref();
    match (case.mux_false(), mux) {
        (true, None) => o.failures.push(format!(
            "\"mux\": false ({}) but the case's harness.json has no mux_false: say what a single hook can reproduce",
            case.spec
                .get("mux_reason")
                .and_then(Value::as_str)
                .unwrap_or("no mux_reason")
        )),
        (false, Some(_)) => o
            .failures
            .push("harness.json has a mux_false but the case is not \"mux\": false".into()),
        (true, Some(m)) => o.notes.push(format!("mux:false — {}", m.why)),
        (false, None) => {}
    }
    let timing = case.harness.timing.as_ref();
    let deadline = Duration::from_secs(120);
    let mut shown: Vec<(String, Shown)> = Vec::new();
    let mut effects: Vec<(String, Effect)> = Vec::new();
    let mut diagnostics: Vec<String> = Vec::new();
    for (i, inv) in invs.iter().enumerate() {
        let who = inv.describe(i);
        let ran = match run_invocation(&ctx, inv, deadline) {
            Ok(r) => r,
            Err(e) => {
                o.failures.push(format!("{who}: {e}"));
                continue;
            }
        };
        if let Some(Timing {
            max_seconds: max,
            why,
            ..
        }) = timing
        {
            if ran.elapsed.as_secs_f64() > *max {
                o.failures.push(format!(
                    "{who}: took {:.1} s, more than {max} s ({why})",
                    ran.elapsed.as_secs_f64()
                ));
            }
        }
        let hooks = ran
            .report
            .get("hooks")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        o.hooks += hooks.len();
        diagnostics.extend(
            ran.report
                .get("diagnostics")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(String::from),
        );
        check_selection(inv, &who, &hooks, mux, &mut o);
        check_results(&ctx, inv, &who, &hooks, &mut o);
        let answer = match answer_of(&ctx, &ran.report) {
            Ok(a) => a,
            Err(e) => {
                o.failures.push(format!("{who}: {e}"));
                continue;
            }
        };
        match claude_view(&inv.event, &inv.payload, &answer) {
            Ok(view) => {
                shown.extend(view.shown.into_iter().map(|s| (who.clone(), s)));
                effects.extend(view.effects.into_iter().map(|e| (who.clone(), e)));
            }
            Err(e) => o.failures.push(format!(
                "{who}: cannot tell what Claude Code shows for hookbridge's answer {answer:?}: {e}"
            )),
        }
    }
    if let Some(m) = mux {
        for want in &m.diagnostics {
            if !diagnostics.iter().any(|d| d.contains(want.as_str())) {
                o.failures.push(format!(
                    "diagnostics do not mention {want:?}; they are: {diagnostics:#?}"
                ));
            }
        }
    }
    let model_view = mux.map(|m| m.model_view.clone()).unwrap_or_default();
    if !matches!(model_view, ModelView::Skip) {
        let mut expected = expected_view(case, &ctx.mask, &model_view);
        if let Some(why) = &case.harness.order_race {
            expected.order_free = true;
            o.notes
                .push(format!("context paragraphs compared without order ({why})"));
        }
        o.failures
            .extend(compare_shown(&expected, &shown, &ctx.mask, &mut o.notes));
        o.failures
            .extend(compare_effects(case, &invs, &effects, &mut o.notes));
    }
    if let Some(timing) = timing {
        std::thread::sleep(Duration::from_secs_f64(timing.settle_seconds));
    }
    check_files(&ctx, &mut o);
    check_collected(&ctx, &mut o);
    o
}

fn answer_of(ctx: &Ctx, report: &Value) -> Result<Answer, String> {
    let a = report.get("answer").ok_or("the report has no `answer`")?;
    // The recorded texts went through the oracle's `sh -c` recorder (see `as_recorded_by_oracle`).
    let text = |k: &str| {
        a.get(k)
            .and_then(Value::as_str)
            .map(|s| as_recorded_by_oracle(&ctx.ph.normalize(s)))
            .unwrap_or_default()
    };
    Ok(Answer {
        exit_code: a
            .get("exit_code")
            .and_then(Value::as_i64)
            .ok_or("answer without exit_code")? as i32,
        stdout: text("stdout"),
        stderr: text("stderr"),
    })
}

fn label(h: &Value) -> String {
    h.pointer("/hook/label")
        .and_then(Value::as_str)
        .unwrap_or("<no label>")
        .to_string()
}

/// (a) The hooks hookbridge selected are the ones Claude Code ran.
fn check_selection(inv: &Invocation, who: &str, hooks: &[Value], mux: Option<&MuxFalse>, o: &mut Outcome) {
    // A hook hookbridge cancelled once the outcome was decided (as Claude Code stops waiting, cases
    // 119, 120, 134) never finishes, and the recorder logs only finished hooks.
    // A hook killed by its timeout never finishes either. Both count when the harness knows Claude
    // Code ran them unrecorded (the harness's `synthesized` / `unrecorded`).
    let listed = |h: &Value| inv.unrecorded.iter().any(|u| u.0 == label(h));
    let unfinished = |h: &&Value| {
        matches!(
            h.get("status").and_then(Value::as_str),
            Some("cancelled" | "timed_out")
        ) && !listed(h)
    };
    for h in hooks.iter().filter(unfinished) {
        o.notes.push(format!(
            "{who}: hookbridge {} `{}` before it finished, and the recording has no trace of it ({})",
            if h.get("status") == Some(&Value::from("cancelled")) {
                "cancelled"
            } else {
                "timed out"
            },
            short(&label(h)),
            h.get("detail").and_then(Value::as_str).unwrap_or("")
        ));
    }
    let mut ours: Vec<String> = hooks.iter().filter(|h| !unfinished(h)).map(label).collect();
    let mut want: Vec<String> = inv.calls.iter().map(|c| c.command.clone()).collect();
    want.extend(inv.unrecorded.iter().map(|u| u.0.clone()));
    if let Some(m) = mux {
        for also in &m.also_runs {
            if also.event == inv.event && inv.match_query() == Some(also.query.as_str()) {
                want.push(also.command.clone());
            }
        }
    }
    ours.sort();
    want.sort();
    if ours != want {
        // Multiset differences: the same command may run twice (sync and async, 190).
        let minus = |a: &[String], b: &[String]| {
            let mut rest = b.to_vec();
            a.iter()
                .filter(|x| match rest.iter().position(|y| y == *x) {
                    Some(i) => {
                        rest.remove(i);
                        false
                    }
                    None => true,
                })
                .cloned()
                .collect::<Vec<String>>()
        };
        let missing = minus(&want, &ours);
        let extra = minus(&ours, &want);
        o.failures.push(format!(
            "{who}: (a) hooks run differ{}\n    Claude Code ran: {want:?}\n    hookbridge ran:  {ours:?}\n    missing: {missing:?}\n    extra:   {extra:?}",
            inv.payload
                .get("tool_input")
                .and_then(|t| t.get("command").or_else(|| t.get("file_path")))
                .map(|c| format!(" for {}", short(&c.to_string())))
                .unwrap_or_default()
        ));
    }
    for h in hooks {
        if h.get("status").and_then(Value::as_str) == Some("not_run") {
            o.notes.push(format!(
                "{who}: hookbridge selected but did not run `{}`: {}",
                label(h),
                h.get("detail").and_then(Value::as_str).unwrap_or("")
            ));
        }
    }
}

/// (b) Each recorded hook's exit code, stdout and stderr; unrecorded hooks' expected status.
fn check_results(ctx: &Ctx, inv: &Invocation, who: &str, hooks: &[Value], o: &mut Outcome) {
    let find = |cmd: &str| hooks.iter().find(|h| label(h) == cmd);
    for call in &inv.calls {
        let Some(h) = find(&call.command) else { continue }; // reported by (a)
        if let Some(NotCompared { why, .. }) = ctx
            .case
            .harness
            .results_not_compared
            .iter()
            .find(|s| s.command == call.command)
        {
            o.notes.push(format!(
                "{who}: `{}`: result not compared ({why})",
                short(&call.command)
            ));
            continue;
        }
        let status = h.get("status").and_then(Value::as_str).unwrap_or("?");
        let code = h.get("code").and_then(Value::as_i64);
        if status != "exited" || code != Some(call.exit_code) {
            o.failures.push(format!(
                "{who}: (b) `{}`: Claude Code saw exit {}, hookbridge reports {status} {code:?} ({})",
                short(&call.command),
                call.exit_code,
                h.get("detail").and_then(Value::as_str).unwrap_or("")
            ));
        }
        for (stream, recorded) in [("stdout", &call.stdout), ("stderr", &call.stderr)] {
            let ours = h.get(stream).and_then(Value::as_str).unwrap_or("");
            let ours =
                truncate_like_oracle(&as_recorded_by_oracle(&ctx.ph.normalize(ours)), HOOK_OUTPUT_LIMIT);
            if &ours != recorded {
                o.failures.push(format!(
                    "{who}: (b) `{}` {stream} differs\n    Claude Code: {}\n    hookbridge:  {}",
                    short(&call.command),
                    show(recorded),
                    show(&ours)
                ));
            }
        }
    }
    for (cmd, expect, evidence) in &inv.unrecorded {
        let Some(h) = find(cmd) else { continue };
        let status = h.get("status").and_then(Value::as_str).unwrap_or("?");
        let code = h.get("code").and_then(Value::as_i64);
        let ok = match expect {
            Expect::Selected => true,
            Expect::Exited(c) => status == "exited" && code == Some(i64::from(*c)),
            Expect::TimedOut => status == "timed_out",
            Expect::Signaled => status == "signaled",
        };
        if !ok {
            o.failures.push(format!(
                "{who}: (b) unrecorded `{}`: expected {expect:?} ({evidence}), hookbridge reports {status} {code:?}",
                short(cmd)
            ));
        }
    }
}

/// The oracle's recorder runs each recorded hook as `sh -c` (argv0 `sh`), where Claude Code (case
/// 71) and hookbridge run `/bin/sh -c`: the shell's own messages say `sh:` in the recording and
/// `/bin/sh:` here (case 15). Recorded-hook output only; the model-view texts are not touched.
fn as_recorded_by_oracle(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|l| match l.strip_prefix("/bin/sh: ") {
            Some(rest) => format!("sh: {rest}"),
            None => l.to_string(),
        })
        .collect()
}

fn short(s: &str) -> String {
    truncate_like_oracle(s, 70)
}

fn show(s: &str) -> String {
    format!("{:?}", truncate_like_oracle(s, 600))
}

// ------------------------------------------------------------------------------------------------
// The recorded model view.

/// Hook texts in the recording, by channel.
#[derive(Debug, Default)]
pub struct ExpectedView {
    /// (channel, text, repeatable): texts only in earlier requests were de-duplicated by the oracle
    /// (one entry however often they occurred), so one may stand for several of ours.
    pub items: Vec<(Channel, RecordedText, bool)>,
    /// Paragraphs of Claude Code's context message that came from hooks, in order.
    pub context: Vec<RecordedText>,
    /// The context message was never sent (no model request): context paragraphs are unobservable.
    pub no_requests: bool,
    /// Compare context paragraphs regardless of order ([`Harness::order_race`]).
    pub order_free: bool,
}

fn is_hook_label(text: &str) -> bool {
    // `<Event>[:<qualifier>] hook ` — every hook text Claude Code writes starts like this.
    let head: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == ':' || *c == '_' || *c == '-' || *c == '*')
        .collect();
    let event_ok = head.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    event_ok && text[head.len()..].starts_with(" hook ")
}

fn hook_system_text(t: &str) -> bool {
    is_hook_label(t)
        && (t.contains(" hook additional context: ") || t.contains(" hook blocking error from command: "))
}

/// A hook's user text without the frame 2.1.332 sends it to the model in (`<system-reminder>`
/// and claude_view's `HOOK_TEXT_LEAD`): the text as the stream-json output shows it.
fn unframed(t: &str) -> &str {
    t.strip_prefix("<system-reminder>\n")
        .and_then(|rest| rest.strip_prefix(super::claude_view::HOOK_TEXT_LEAD))
        .and_then(|rest| rest.strip_prefix('\n'))
        .and_then(|rest| rest.strip_suffix("\n</system-reminder>"))
        .unwrap_or(t)
}

fn hook_user_text(t: &str) -> bool {
    let t = unframed(t);
    let t2 = t.strip_prefix("<system-reminder>\n").unwrap_or(t);
    is_hook_label(t2) && (t2.contains(" hook feedback:\n") || t2.contains(" hook additional context: "))
}

/// Extra paragraphs Claude Code itself adds to its context message in some setups (MCP tools,
/// subagents: 02, 58, 177); they are never a hook's.
const CLAUDE_OWN_PARAGRAPHS: &[&str] = &["The following deferred tools are now available"];

fn hook_context_paragraph(p: &str) -> bool {
    [
        "SessionStart",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "SubagentStart",
    ]
    .iter()
    .any(|e| p.starts_with(e))
        && is_hook_label(p)
}

pub fn expected_view(case: &Case, mask: &CommandMask, rule: &ModelView) -> ExpectedView {
    let exp = &case.expected;
    let ignored = |raw: &str| matches!(rule, ModelView::Ignore(list) if list.iter().any(|x| raw.contains(x)));
    let mut v = ExpectedView {
        no_requests: exp.get("model_request_count") == Some(&Value::from(0)),
        ..Default::default()
    };
    // tool ids whose denial the recording attributes to a hook (bare texts: ask, some denies, PermissionRequest).
    let mut hook_denied: Vec<String> = Vec::new();
    for m in exp
        .get("tool_result_meta")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if m.pointer("/permission_decision/source") == Some(&Value::from("hook"))
            && m.pointer("/permission_decision/decision") == Some(&Value::from("reject"))
        {
            hook_denied.extend(m.get("id").and_then(Value::as_str).map(String::from));
        }
    }
    let stream: Vec<Value> = exp
        .get("stream_system_events")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for e in &stream {
        if e.get("subtype") == Some(&Value::from("permission_denied"))
            && e.get("decision_reason_type") == Some(&Value::from("hook"))
        {
            hook_denied.extend(e.get("tool_use_id").and_then(Value::as_str).map(String::from));
        }
    }
    // (role, block) from the final request, earlier requests, and results never sent.
    let mut blocks: Vec<(String, Value, bool)> = Vec::new();
    for m in exp
        .get("model_view")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("").to_string();
        for b in m.get("blocks").and_then(Value::as_array).into_iter().flatten() {
            blocks.push((role.clone(), b.clone(), false));
        }
    }
    for b in exp
        .get("model_view_only_in_earlier_requests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        blocks.push((
            b.get("role").and_then(Value::as_str).unwrap_or("").to_string(),
            b.clone(),
            true,
        ));
    }
    for b in exp
        .get("tool_results_never_sent_to_model")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        blocks.push(("user".into(), b.clone(), false));
    }
    // Each hook user text the model saw, unframed (as the stream has it): how often, and as sent.
    let mut user_counts: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for (role, b, earlier) in &blocks {
        let earlier = *earlier;
        if let Some(t) = b.get("tool_result").and_then(Value::as_str) {
            let id = b.get("id").and_then(Value::as_str).unwrap_or("").to_string();
            let hooky = (t.starts_with("PreToolUse:") && t.contains(" hook error: "))
                || t.starts_with("Hook PreToolUse:")
                || hook_denied.contains(&id);
            if hooky && !ignored(t) {
                v.items.push((
                    Channel::ToolResult(Some(id)),
                    RecordedText::new(t, MODEL_TEXT_LIMIT, mask),
                    earlier,
                ));
            }
        } else if let Some(t) = b.get("text").and_then(Value::as_str) {
            if ignored(t) {
                continue;
            }
            if role == "system" && hook_system_text(t) {
                v.items.push((
                    Channel::System,
                    RecordedText::new(t, MODEL_TEXT_LIMIT, mask),
                    earlier,
                ));
            } else if role == "user" && hook_user_text(t) {
                let seen = user_counts
                    .entry(unframed(t).to_string())
                    .or_insert((0, t.to_string()));
                seen.0 += 1;
                v.items.push((
                    Channel::User,
                    RecordedText::new(t, MODEL_TEXT_LIMIT, mask),
                    earlier,
                ));
            }
        } else if let Some(paras) = b
            .get("context_message_extra_paragraphs")
            .and_then(Value::as_array)
        {
            let mut in_hook = false;
            for p in paras.iter().filter_map(Value::as_str) {
                // A paragraph belongs to a hook if it is labelled, or continues a labelled one (68:
                // a persisted output's preview) unless it is one of Claude Code's own (177).
                let own = CLAUDE_OWN_PARAGRAPHS.iter().any(|prefix| p.starts_with(prefix));
                in_hook = hook_context_paragraph(p) || (in_hook && !p.is_empty() && !own);
                if in_hook && !ignored(p) {
                    v.context.push(RecordedText::new(p, MODEL_TEXT_LIMIT, mask));
                }
            }
        }
    }
    // Stop feedback the model never saw because the run ended (9th block at the cap, 29 and 86).
    let mut stream_counts: BTreeMap<String, usize> = BTreeMap::new();
    for e in &stream {
        if e.get("type") == Some(&Value::from("user")) && e.get("isSynthetic") == Some(&Value::Bool(true)) {
            for b in e
                .pointer("/message/content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(t) = b
                    .get("text")
                    .and_then(Value::as_str)
                    .filter(|t| hook_user_text(t))
                {
                    *stream_counts.entry(t.to_string()).or_default() += 1;
                }
            }
        }
    }
    for (t, n) in stream_counts {
        let Some((seen, sent)) = user_counts.get(unframed(&t)) else {
            continue;
        };
        if n > *seen && !ignored(&t) {
            for _ in *seen..n {
                v.items
                    .push((Channel::User, RecordedText::new(sent, 600, mask), false));
            }
        }
    }
    if let Some(r) = exp.pointer("/result/result").and_then(Value::as_str) {
        if r.starts_with("UserPromptSubmit operation blocked by hook:")
            || r.starts_with("Operation stopped by hook:")
            || r.starts_with("Compaction blocked by PreCompact hook:")
        {
            v.items.push((
                Channel::Result,
                RecordedText::new(r, MODEL_TEXT_LIMIT, mask),
                false,
            ));
        }
    }
    v
}

/// (c) Texts: every text hookbridge's answers show must be in the recording and vice versa.
pub fn compare_shown(
    expected: &ExpectedView,
    ours: &[(String, Shown)],
    mask: &CommandMask,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut failures = Vec::new();
    let mut used = vec![false; expected.items.len()];
    let mut extra = Vec::new();
    let mut our_context: Vec<(String, String)> = Vec::new();
    for (who, s) in ours {
        let (text, _) = mask.apply(&s.text);
        if s.channel == Channel::Context {
            our_context.push((who.clone(), text));
            continue;
        }
        let fits = |ch: &Channel, rec: &RecordedText| {
            let same_channel = match (&s.channel, ch) {
                (Channel::ToolResult(None), Channel::ToolResult(_)) => true,
                (a, b) => a == b,
            };
            same_channel && rec.matches(&text)
        };
        let hit = expected
            .items
            .iter()
            .enumerate()
            .position(|(i, (ch, rec, _))| !used[i] && fits(ch, rec))
            .or_else(|| {
                expected
                    .items
                    .iter()
                    .position(|(ch, rec, repeatable)| *repeatable && fits(ch, rec))
            });
        match hit {
            Some(i) => used[i] = true,
            None => extra.push(format!("{who}: {} {}", s.channel, show(&text))),
        }
    }
    let missing: Vec<String> = expected
        .items
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((ch, rec, _), _)| format!("{ch} {}", show(&rec.raw)))
        .collect();
    if !missing.is_empty() || !extra.is_empty() {
        failures.push(format!(
            "(c) model view differs\n    shown by Claude Code, not by hookbridge's answers:\n{}\n    shown by hookbridge's answers, not by Claude Code:\n{}",
            list(&missing),
            list(&extra)
        ));
    }
    if expected.no_requests && expected.context.is_empty() {
        if !our_context.is_empty() {
            notes.push(format!(
                "no model request was made: {} context paragraph(s) not observable",
                our_context.len()
            ));
        }
        return failures;
    }
    let same = our_context.len() == expected.context.len()
        && if expected.order_free {
            let mut used = vec![false; expected.context.len()];
            our_context.iter().all(|(_, t)| {
                let hit = expected
                    .context
                    .iter()
                    .enumerate()
                    .position(|(i, rec)| !used[i] && rec.matches(t));
                hit.map(|i| used[i] = true).is_some()
            })
        } else {
            our_context
                .iter()
                .zip(&expected.context)
                .all(|((_, t), rec)| rec.matches(t))
        };
    if !same {
        failures.push(format!(
            "(c) context paragraphs differ\n    Claude Code:\n{}\n    hookbridge's answers:\n{}",
            list(&expected.context.iter().map(|r| show(&r.raw)).collect::<Vec<_>>()),
            list(
                &our_context
                    .iter()
                    .map(|(w, t)| format!("{w}: {}", show(t)))
                    .collect::<Vec<_>>()
            )
        ));
    }
    failures
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        return "      (none)".into();
    }
    items
        .iter()
        .map(|i| format!("      - {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// (c) Effects: permission decisions, deferral, stop, updatedInput.
pub fn compare_effects(
    case: &Case,
    invs: &[Invocation],
    ours: &[(String, Effect)],
    notes: &mut Vec<String>,
) -> Vec<String> {
    let exp = &case.expected;
    let mut failures = Vec::new();
    // Permission decisions the recording attributes to a hook, and config rejections.
    let mut hook_decisions: Vec<(String, bool)> = Vec::new();
    let mut config_rejected: Vec<String> = Vec::new();
    for m in exp
        .get("tool_result_meta")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = m.get("id").and_then(Value::as_str).unwrap_or("").to_string();
        let accept = m.pointer("/permission_decision/decision") == Some(&Value::from("accept"));
        match m.pointer("/permission_decision/source").and_then(Value::as_str) {
            Some("hook") => hook_decisions.push((id, accept)),
            Some("config") if !accept => config_rejected.push(id),
            _ => {}
        }
    }
    let mut used = vec![false; ours.len()];
    for (id, accept) in &hook_decisions {
        let hit = ours.iter().enumerate().position(|(i, (_, e))| {
            !used[i]
                && matches!(e, Effect::Permission { id: oid, accept: a }
                    if a == accept && oid.as_deref().is_none_or(|o| o == id))
        });
        match hit {
            Some(i) => used[i] = true,
            None => failures.push(format!(
                "(c) Claude Code records a hook {} for {id}; no hookbridge answer gives it",
                if *accept { "allow" } else { "denial" }
            )),
        }
    }
    for (i, (who, e)) in ours.iter().enumerate() {
        if let Effect::Permission { id, accept } = e {
            if used[i] {
                continue;
            }
            if *accept && id.as_ref().is_some_and(|id| config_rejected.contains(id)) {
                notes.push(format!(
                    "{who}: the hook's allow is overridden by a settings deny rule, as recorded"
                ));
            } else {
                failures.push(format!(
                    "(c) {who}: hookbridge's answer {} {}, Claude Code records no such hook decision",
                    if *accept { "allows" } else { "denies" },
                    id.as_deref().unwrap_or("the permission request")
                ));
            }
        }
    }
    let terminal = exp
        .pointer("/result/terminal_reason")
        .and_then(Value::as_str)
        .unwrap_or("");
    for (effect, reason) in [
        ("defer", "tool_deferred"),
        ("continue:false", "hook_stopped"),
        ("Stop continue:false", "stop_hook_prevented"),
    ] {
        let ours_has = ours.iter().any(|(_, e)| match effect {
            "defer" => *e == Effect::Defer,
            "continue:false" => *e == Effect::HookStopped,
            _ => *e == Effect::StopPrevented,
        });
        if ours_has != (terminal == reason) {
            failures.push(format!(
                "(c) Claude Code's run ended with terminal_reason {terminal:?}; hookbridge's answers {} {effect}",
                if ours_has { "do give" } else { "give no" }
            ));
        }
    }
    // updatedInput: a PostToolUse for the same call shows the input that actually ran.
    let input_of = |event: &str, id: &str| {
        invs.iter()
            .filter(|i| i.event == event && i.synthesized.is_none())
            .find(|i| i.payload.get("tool_use_id").and_then(Value::as_str) == Some(id))
            .and_then(|i| i.payload.get("tool_input").cloned())
    };
    let mut expected_updates: Vec<(String, Value)> = Vec::new();
    for inv in invs
        .iter()
        .filter(|i| i.event == "PreToolUse" && i.synthesized.is_none())
    {
        let Some(id) = inv.payload.get("tool_use_id").and_then(Value::as_str) else {
            continue;
        };
        if let (Some(before), Some(after)) = (inv.payload.get("tool_input"), input_of("PostToolUse", id)) {
            if *before != after && !expected_updates.iter().any(|(i, _)| i == id) {
                expected_updates.push((id.to_string(), after));
            }
        }
    }
    let our_updates: Vec<(&String, Option<&String>, &Value)> = ours
        .iter()
        .filter_map(|(w, e)| match e {
            Effect::UpdatedInput { id, input } => Some((w, id.as_ref(), input)),
            _ => None,
        })
        .collect();
    for (id, after) in &expected_updates {
        // Several hooks may answer; the last one in our list is what hookbridge passed on.
        match our_updates
            .iter()
            .rev()
            .find(|(_, oid, _)| oid.map(String::as_str) == Some(id))
        {
            Some((_, _, input)) if *input == after => {}
            Some((who, _, input)) => failures.push(format!(
                "(c) {who}: updatedInput {input} but the tool ran with {after} in Claude Code"
            )),
            None => failures.push(format!(
                "(c) the tool {id} ran with the updated input {after}; hookbridge gives no updatedInput"
            )),
        }
    }
    for (who, id, input) in &our_updates {
        let id = id.map(String::as_str).unwrap_or("");
        if expected_updates.iter().any(|(i, _)| i == id) {
            continue;
        }
        match input_of("PostToolUse", id) {
            Some(after) => failures.push(format!(
                "(c) {who}: hookbridge's answer rewrites the input to {input}, but the tool ran with {after}"
            )),
            None => notes.push(format!(
                "{who}: updatedInput {input} not verifiable: no PostToolUse recorded for {id}"
            )),
        }
    }
    failures
}

// ------------------------------------------------------------------------------------------------
// Files hooks leave behind.

fn project_files(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = format!("{prefix}{name}");
        if e.path().is_dir() {
            // The oracle lists every file but `.claude/`'s; `.amplifier/` is hookbridge's `.claude/`.
            if name == ".claude" || name == ".amplifier" {
                continue;
            }
            project_files(&e.path(), &format!("{rel}/"), out);
        } else {
            out.push(rel);
        }
    }
}

/// Files in the project after the run: every file hookbridge's hooks made must also be there under
/// Claude Code; a recorded file we lack must be a tool's (its name appears in the turns, in a hook's
/// output such as an updatedInput, or in the case's input files).
fn check_files(ctx: &Ctx, o: &mut Outcome) {
    let mut ours = Vec::new();
    project_files(&ctx.project, "", &mut ours);
    let recorded: Vec<String> = ctx
        .case
        .expected
        .get("files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect();
    let extra: Vec<&String> = ours.iter().filter(|f| !recorded.contains(f)).collect();
    if !extra.is_empty() {
        o.failures.push(format!(
            "hooks run by hookbridge left files Claude Code's hooks did not: {extra:?}"
        ));
    }
    let mut corpus = ctx
        .case
        .spec
        .get("turns")
        .map(Value::to_string)
        .unwrap_or_default();
    for c in ctx
        .case
        .expected
        .get("hook_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        corpus.push_str(c.get("stdout").and_then(Value::as_str).unwrap_or(""));
    }
    let mut inputs = Vec::new();
    project_files(&ctx.case.dir.join("files"), "", &mut inputs);
    for f in &inputs {
        corpus.push_str(&fs::read_to_string(ctx.case.dir.join("files").join(f)).unwrap_or_default());
    }
    let unexplained: Vec<&String> = recorded
        .iter()
        .filter(|f| !ours.contains(f))
        .filter(|f| !corpus.contains(f.rsplit('/').next().unwrap_or(f)))
        .collect();
    if !unexplained.is_empty() {
        o.failures.push(format!(
            "Claude Code's run left files that hookbridge's hooks did not make and no tool call explains: {unexplained:?}"
        ));
    }
}

/// The oracle's filter for environment dumps (run_case.py).
fn env_filter(name: &str, text: &str) -> String {
    if !(name.contains("env") && text.contains('=')) {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut keep = Vec::new();
    for line in &lines {
        let key = line.split('=').next().unwrap_or("");
        if ["TOKEN", "SECRET", "API_KEY"].iter().any(|t| key.contains(t)) {
            keep.push(format!("{key}=<redacted>"));
        } else if ["CLAUDE", "SETTINGS_", "AI_AGENT"]
            .iter()
            .any(|p| key.starts_with(p))
            || ["HOME", "PWD", "SHELL", "FOO"].contains(&key)
        {
            keep.push(line.to_string());
        }
    }
    format!(
        "{}\n(+{} inherited variables of the parent environment, omitted)\n",
        keep.join("\n"),
        lines.len() - keep.len()
    )
}

fn check_collected(ctx: &Ctx, o: &mut Outcome) {
    let Some(files) = ctx
        .case
        .expected
        .get("collected_files")
        .and_then(Value::as_object)
    else {
        return;
    };
    let sort_lines = ctx.case.spec.get("collect_sort_lines") == Some(&Value::Bool(true));
    for (name, recorded) in files {
        let recorded = recorded.as_str().unwrap_or("");
        let Some(rule) = ctx.case.harness.collected.get(name) else {
            o.failures.push(format!(
                "collected file {name} has no rule in the case's harness.json (`collected`): decide how to compare it"
            ));
            continue;
        };
        if let Collected::Skip(why) = rule {
            o.notes.push(format!("collected {name} not compared ({why})"));
            continue;
        }
        let Ok(text) = fs::read_to_string(ctx.project.join(name)) else {
            o.failures.push(format!(
                "collected file {name}: hookbridge's hooks did not write it"
            ));
            continue;
        };
        let mut text = text;
        if sort_lines {
            let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
            lines.sort();
            text = lines.concat();
        }
        let mut ours = truncate_like_oracle(&ctx.ph.normalize(&env_filter(name, &text)), 3000);
        if let Collected::FdListing = rule {
            ours = mask_fd_listing(&ours);
        }
        match rule {
            Collected::Exact | Collected::FdListing if ours != recorded => o.failures.push(format!(
                "collected file {name} differs\n    Claude Code: {}\n    hookbridge:  {}",
                show(recorded),
                show(&ours)
            )),
            Collected::Lines(lines) => {
                for l in lines {
                    let in_ours = ours.lines().any(|x| x == l.as_str());
                    let in_recorded = recorded.lines().any(|x| x == l.as_str());
                    if !(in_ours && in_recorded) {
                        o.failures.push(format!(
                            "collected file {name}: line {l:?} in Claude Code's: {in_recorded}, in hookbridge's: {in_ours}\n    hookbridge's: {}",
                            show(&ours)
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The oracle's masks for an `ls -l` of `/proc/self/fd`: `socket:[123]` → `socket:[N]`,
/// `/proc/123/` → `/proc/N/`, and a modification time `Nov 23 23:19 ` → `$MTIME `.
fn mask_fd_listing(text: &str) -> String {
    let digits_after = |text: &str, marker: &str, close: char, replacement: &str| -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(marker) {
            let after = &rest[at + marker.len()..];
            let n = after.bytes().take_while(u8::is_ascii_digit).count();
            out.push_str(&rest[..at + marker.len()]);
            if n > 0 && after[n..].starts_with(close) {
                out.push_str(replacement);
                rest = &after[n..];
            } else {
                rest = after;
            }
        }
        out.push_str(rest);
        out
    };
    let text = digits_after(text, "socket:[", ']', "N");
    let text = digits_after(&text, "/proc/", '/', "N");
    text.lines()
        .map(|line| {
            // `lrwx------ 1 root root 64 Nov 23 23:19 0 -> …`: fields 6–8 are the time.
            let fields: Vec<&str> = line.splitn(9, ' ').collect();
            if fields.len() == 9 && fields[7].len() == 5 && fields[7].as_bytes()[2] == b':' {
                format!("{} $MTIME {}", fields[..5].join(" "), fields[8])
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}

/// The `harness.json` files of the golden cases' recordings (`golden-<version>/<case>/`) whose
/// case is not among `loaded`: facts about a case that is gone. (A measured case's lies in its
/// own folder.)
pub fn stray_harness_files(golden: &Path, loaded: &[&str]) -> Vec<String> {
    let Ok(entries) = fs::read_dir(golden_reference_dir(golden)) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("harness.json").is_file())
        .filter(|e| !loaded.contains(&e.file_name().to_string_lossy().as_ref()))
        .map(|e| format!("{} has no case", e.path().join("harness.json").display()))
        .collect()
}
