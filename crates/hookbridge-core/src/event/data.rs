//! Typed views of each event's payload.
//!
//! [`EventPayload`](super::EventPayload) keeps the payload as a JSON map, because hooks must receive
//! every field — including ones newer than hookbridge. [`EventData`] is the typed reading of that
//! map for code that decides things (the Amplifier translation, hosts, tests): one variant per
//! Claude Code 2.1.332 event, fields named as on the wire, optional wherever Claude Code omits them
//! on some path. Common fields (`session_id`, `cwd`, …) live in [`CommonFields`].

use serde::Deserialize;
use serde_json::{Map, Value};

/// Fields every event may carry.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct CommonFields {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub permission_mode: Option<String>,
    pub prompt_id: Option<String>,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
}

/// A tool call of PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, PermissionDenied.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolEvent {
    pub tool_name: String,
    pub tool_input: Map<String, Value>,
    pub tool_use_id: Option<String>,
    /// PostToolUse: the tool's structured output.
    pub tool_response: Option<Value>,
    /// PostToolUseFailure: `Exit code N…` and the output.
    pub error: Option<String>,
    pub is_interrupt: Option<bool>,
    pub duration_ms: Option<f64>,
    /// PermissionRequest.
    pub permission_suggestions: Option<Vec<Value>>,
    /// PermissionDenied.
    pub reason: Option<String>,
    /// MCP tools: `{name, source}`.
    pub mcp_server: Option<Value>,
}

/// PreSkillShellCommand's own fields (measured with Claude Code 2.1.332, cases 300, 306, 307).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SkillShellCommand {
    pub tool_name: String,
    pub tool_input: Map<String, Value>,
    /// `<Skill tool_use id>:preamble-<n>`: no tool call in the transcript has it.
    pub tool_use_id: Option<String>,
    /// The skill's or command's name, without `/`.
    pub command_name: Option<String>,
    /// `projectSettings`, `userSettings`, …
    pub command_source: Option<String>,
    /// `user` (a typed slash command), `claude` (the Skill tool) or `other`.
    pub invoked_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct StopEvent {
    #[serde(default)]
    pub stop_hook_active: bool,
    pub last_assistant_message: Option<String>,
    /// SubagentStop.
    pub agent_transcript_path: Option<String>,
    pub background_tasks: Option<Vec<Value>>,
    pub session_crons: Option<Vec<Value>>,
}

/// The typed payload of one event.
#[derive(Debug, Clone, PartialEq)]
pub enum EventData {
    SessionStart {
        source: Option<String>,
        model: Option<String>,
        session_title: Option<String>,
    },
    Setup {
        trigger: Option<String>,
    },
    InstructionsLoaded {
        file_path: Option<String>,
        memory_type: Option<String>,
        load_reason: Option<String>,
    },
    UserPromptSubmit {
        prompt: Option<String>,
    },
    UserPromptExpansion {
        expansion_type: Option<String>,
        command_name: Option<String>,
        command_args: Option<String>,
        prompt: Option<String>,
    },
    MessageDisplay {
        delta: Option<String>,
        is_final: Option<bool>,
    },
    PreToolUse(ToolEvent),
    PermissionRequest(ToolEvent),
    PermissionDenied(ToolEvent),
    /// A skill's or custom command's inline `` !`cmd` `` before it runs (Claude Code 2.1.332):
    /// `tool_name` `Bash` (or `PowerShell`), `tool_input.command` with the arguments filled in.
    PreSkillShellCommand(SkillShellCommand),
    PostToolUse(ToolEvent),
    PostToolUseFailure(ToolEvent),
    PostToolBatch {
        tool_calls: Vec<Value>,
    },
    Notification {
        message: Option<String>,
        title: Option<String>,
        notification_type: Option<String>,
    },
    SubagentStart {
        agent_id: Option<String>,
        agent_type: Option<String>,
    },
    SubagentStop(StopEvent),
    TaskCreated {
        task_id: Option<String>,
        task_subject: Option<String>,
    },
    TaskCompleted {
        task_id: Option<String>,
        task_subject: Option<String>,
    },
    Stop(StopEvent),
    StopFailure {
        error: Option<String>,
        error_details: Option<String>,
    },
    TeammateIdle {
        teammate_name: Option<String>,
    },
    ConfigChange {
        source: Option<String>,
        file_path: Option<String>,
    },
    CwdChanged {
        old_cwd: Option<String>,
        new_cwd: Option<String>,
    },
    DirectoryAdded {
        directory: Option<String>,
        source: Option<String>,
    },
    FileChanged {
        file_path: Option<String>,
        event: Option<String>,
    },
    WorktreeCreate {
        name: Option<String>,
    },
    WorktreeRemove {
        worktree_path: Option<String>,
    },
    PreCompact {
        trigger: Option<String>,
        custom_instructions: Option<String>,
    },
    PostCompact {
        trigger: Option<String>,
        compact_summary: Option<String>,
    },
    Elicitation {
        mcp_server_name: Option<String>,
        message: Option<String>,
    },
    ElicitationResult {
        mcp_server_name: Option<String>,
        action: Option<String>,
    },
    SessionEnd {
        reason: Option<String>,
    },
    PreModelSwitch {
        from_model: Option<String>,
        to_model: Option<String>,
    },
    PostModelSwitch {
        from_model: Option<String>,
        to_model: Option<String>,
    },
    /// An event hookbridge does not know: its fields as they came.
    Unknown(Map<String, Value>),
}

fn s(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_string)
}

impl EventData {
    /// Read `fields` (already normalized to snake_case) as the payload of `event`.
    pub fn from_fields(
        event: &super::EventName,
        fields: &Map<String, Value>,
    ) -> Result<EventData, serde_json::Error> {
        use super::EventName as E;
        let tool = || serde_json::from_value::<ToolEvent>(Value::Object(fields.clone()));
        let stop = || serde_json::from_value::<StopEvent>(Value::Object(fields.clone()));
        let f = |k: &str| s(fields, k);
        Ok(match event {
            E::SessionStart => EventData::SessionStart {
                source: f("source"),
                model: f("model"),
                session_title: f("session_title"),
            },
            E::Setup => EventData::Setup {
                trigger: f("trigger"),
            },
            E::InstructionsLoaded => EventData::InstructionsLoaded {
                file_path: f("file_path"),
                memory_type: f("memory_type"),
                load_reason: f("load_reason"),
            },
            E::UserPromptSubmit => EventData::UserPromptSubmit { prompt: f("prompt") },
            E::UserPromptExpansion => EventData::UserPromptExpansion {
                expansion_type: f("expansion_type"),
                command_name: f("command_name"),
                command_args: f("command_args"),
                prompt: f("prompt"),
            },
            E::MessageDisplay => EventData::MessageDisplay {
                delta: f("delta"),
                is_final: fields.get("final").and_then(Value::as_bool),
            },
            E::PreToolUse => EventData::PreToolUse(tool()?),
            E::PermissionRequest => EventData::PermissionRequest(tool()?),
            E::PermissionDenied => EventData::PermissionDenied(tool()?),
            E::PreSkillShellCommand => {
                EventData::PreSkillShellCommand(serde_json::from_value(Value::Object(fields.clone()))?)
            }
            E::PostToolUse => EventData::PostToolUse(tool()?),
            E::PostToolUseFailure => EventData::PostToolUseFailure(tool()?),
            E::PostToolBatch => EventData::PostToolBatch {
                tool_calls: fields
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            },
            E::Notification => EventData::Notification {
                message: f("message"),
                title: f("title"),
                notification_type: f("notification_type"),
            },
            E::SubagentStart => EventData::SubagentStart {
                agent_id: f("agent_id"),
                agent_type: f("agent_type"),
            },
            E::SubagentStop => EventData::SubagentStop(stop()?),
            E::TaskCreated => EventData::TaskCreated {
                task_id: f("task_id"),
                task_subject: f("task_subject"),
            },
            E::TaskCompleted => EventData::TaskCompleted {
                task_id: f("task_id"),
                task_subject: f("task_subject"),
            },
            E::Stop => EventData::Stop(stop()?),
            E::StopFailure => EventData::StopFailure {
                error: f("error"),
                error_details: f("error_details"),
            },
            E::TeammateIdle => EventData::TeammateIdle {
                teammate_name: f("teammate_name"),
            },
            E::ConfigChange => EventData::ConfigChange {
                source: f("source"),
                file_path: f("file_path"),
            },
            E::CwdChanged => EventData::CwdChanged {
                old_cwd: f("old_cwd"),
                new_cwd: f("new_cwd"),
            },
            E::DirectoryAdded => EventData::DirectoryAdded {
                directory: f("directory"),
                source: f("source"),
            },
            E::FileChanged => EventData::FileChanged {
                file_path: f("file_path"),
                event: f("event"),
            },
            E::WorktreeCreate => EventData::WorktreeCreate { name: f("name") },
            E::WorktreeRemove => EventData::WorktreeRemove {
                worktree_path: f("worktree_path"),
            },
            E::PreCompact => EventData::PreCompact {
                trigger: f("trigger"),
                custom_instructions: f("custom_instructions"),
            },
            E::PostCompact => EventData::PostCompact {
                trigger: f("trigger"),
                compact_summary: f("compact_summary"),
            },
            E::Elicitation => EventData::Elicitation {
                mcp_server_name: f("mcp_server_name"),
                message: f("message"),
            },
            E::ElicitationResult => EventData::ElicitationResult {
                mcp_server_name: f("mcp_server_name"),
                action: f("action"),
            },
            E::SessionEnd => EventData::SessionEnd { reason: f("reason") },
            E::PreModelSwitch => EventData::PreModelSwitch {
                from_model: f("from_model"),
                to_model: f("to_model"),
            },
            E::PostModelSwitch => EventData::PostModelSwitch {
                from_model: f("from_model"),
                to_model: f("to_model"),
            },
            E::Unknown(_) => EventData::Unknown(fields.clone()),
        })
    }
}
