//! The hook-kind seam: every kind of Claude Code hook becomes a [`Job`] the supervisor runs, and
//! every job ends as the same [`HookExecution`](hookbridge_core::decision::HookExecution) that the core reads with
//! [`interpret_hook`](hookbridge_core::decision::interpret_hook). Merging, rendering and the
//! Amplifier translation therefore never depend on the kind.
//!
//! | kind | runs as | reads like stdout | fails as |
//! |---|---|---|---|
//! | `command` ([`command`]) | a child process | its stdout | exit codes, signals |
//! | `http` ([`http`]) | a POST on a thread of ours, no redirect followed | the response body, as Claude Code reads an http answer (JSON or `{}`; never plain text) | non-2xx, unreachable, a body that is not JSON |
//! | `prompt` ([`prompt`]) | one model call on a thread of ours | the model's verdict | unreadable reply, HTTP error |
//! | `agent` ([`agent`]) | a tool-using model conversation (Read, Grep, Glob over the project) on a thread of ours | the final verdict | no verdict in 50 turns, HTTP error |
//! | `mcp_tool` ([`mcp`]) | a stdio MCP server started for the call, on a thread of ours | the tool's text output | `isError`, JSON-RPC errors, no such server |
//! | `llm` ([`llm`], the seed's) | one model call on a thread of ours, or the cache | the model's verdict | unreadable reply, HTTP error |
//! | `matcher` ([`rule`], the seed's) | globs, on the dispatching thread | the seed's `{"action"}` when it matches | — |
//!
//! Whether a hook can run here at all is decided in one place, [`readiness`], which dispatch,
//! `list`, `validate` and `test` all ask.

pub mod agent;
pub mod command;
pub mod http;
pub mod llm;
pub mod mcp;
pub mod prompt;
pub mod rule;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookbridge_core::config::{HookKind, HookSpec, HttpPolicy};
use hookbridge_core::decision::{HookFailure, HookFailureKind, NotRunReason};

use crate::model_api::ModelJudge;
use crate::process::Job;

/// What a hook's output may be, per stream, unless the host sets another cap: 4 MiB, above what
/// Claude Code passes to the model unshortened (a 2 MB exit-2 stderr reaches it whole,
/// conformance case 69), and bounded.
pub const DEFAULT_OUTPUT_CAP: usize = 4 * 1024 * 1024;

/// Why a configured hook cannot run, if it cannot: the one answer to "can this hook run here?".
pub fn readiness(hook: &HookSpec, policy: &HttpPolicy) -> Result<(), NotRunReason> {
    match &hook.kind {
        HookKind::Command(_)
        | HookKind::Prompt(_)
        | HookKind::Agent(_)
        | HookKind::Rule(_)
        | HookKind::Llm(_)
        | HookKind::McpTool(_) => Ok(()),
        HookKind::Http(h) if policy.allows_url(&h.url) => Ok(()),
        HookKind::Http(h) => Err(NotRunReason::UrlNotAllowed { url: h.url.clone() }),
    }
}

/// Everything a hook's job is built from.
pub(crate) struct JobContext<'a> {
    /// The payload exactly as a command hook reads it on stdin.
    pub stdin: Arc<[u8]>,
    pub cwd: Option<PathBuf>,
    /// The variables hookbridge sets for this hook, on top of its own environment.
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
    pub output_cap: usize,
    pub policy: &'a HttpPolicy,
    /// Who answers prompt hooks, when the host brings its own model.
    pub model: Option<Arc<dyn ModelJudge>>,
    /// Told a command hook's first stdout line as soon as it is complete.
    pub first_line: Option<crate::process::FirstLineWatch>,
    /// Whether the project's own `.mcp.json` servers may be called (the project is trusted).
    pub project_mcp_servers: bool,
    /// The project root, which a project hook's files were pinned from.
    pub project_dir: &'a Path,
    /// Whether command hooks may run warm at all (managed policy).
    pub warm_allowed: bool,
    /// The managed policy's floor under command hooks' sandboxes.
    pub sandbox_floor: hookbridge_core::config::managed::SandboxFloor,
    /// The read layers the event's sandboxed hooks share ([`crate::process::ReadLayers`]).
    pub sandbox_reads: Option<Arc<crate::process::ReadLayers>>,
}

impl JobContext<'_> {
    /// A variable as the hook would see it: hookbridge's own for it first, then the process's.
    pub(crate) fn var(&self, name: &str) -> Option<String> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.to_string_lossy().into_owned())
            .or_else(|| std::env::var(name).ok())
    }

    /// The payload JSON as text, without the newline that ends it on stdin.
    pub(crate) fn payload_text(&self) -> String {
        let text = String::from_utf8_lossy(&self.stdin);
        text.strip_suffix('\n').unwrap_or(&text).to_string()
    }
}

/// A model's reply as an outcome: the verdict `read` finds in it, or why there is none; the reply
/// is kept where a command's stdout would be, for reports.
pub(crate) fn judged_outcome(
    reply: String,
    read: impl FnOnce(&str) -> Result<hookbridge_core::decision::Verdict, String>,
) -> crate::process::InProcessOutcome {
    use hookbridge_core::decision::RunStatus;
    let status = match read(&reply) {
        Ok(verdict) => RunStatus::Judged(verdict),
        Err(e) => RunStatus::Failed(HookFailure::new(
            HookFailureKind::Unreadable,
            format!("no usable verdict: {e}"),
        )),
    };
    crate::process::InProcessOutcome {
        status,
        stdout: reply.into_bytes(),
        stdout_truncated: false,
        stderr: Vec::new(),
        duration: Default::default(),
    }
}

/// A model call that gave no reply, as an outcome.
pub(crate) fn failed_call(e: crate::model_api::ModelCallError) -> crate::process::InProcessOutcome {
    use crate::model_api::ModelCallError as E;
    use hookbridge_core::decision::RunStatus;
    let kind = match &e {
        E::TimedOut => return crate::process::InProcessOutcome::of(RunStatus::TimedOut),
        E::Unreachable { .. } | E::Host(_) => HookFailureKind::Unreachable,
        E::Status { .. } | E::Refused(_) => HookFailureKind::Refused,
        E::Malformed { .. } => HookFailureKind::Unreadable,
        E::NotConfigured(_) => HookFailureKind::NotConfigured,
    };
    crate::process::InProcessOutcome::of(RunStatus::Failed(HookFailure::new(
        kind,
        format!("no usable verdict: {e}"),
    )))
}

/// A hook whose model or server is not configured here, said in `why`, as an outcome.
pub(crate) fn not_configured(why: impl std::fmt::Display) -> crate::process::InProcessOutcome {
    crate::process::InProcessOutcome::of(hookbridge_core::decision::RunStatus::Failed(HookFailure::new(
        HookFailureKind::NotConfigured,
        why.to_string(),
    )))
}

/// The job that runs `hook` on `event`, or why it cannot run. Rule hooks are not jobs: dispatch
/// decides them itself ([`rule::evaluate`]) and never asks for one.
pub(crate) fn job_for(hook: &HookSpec, event: &str, ctx: JobContext<'_>) -> Result<Job, NotRunReason> {
    readiness(hook, ctx.policy)?;
    match &hook.kind {
        HookKind::Command(c) => {
            // A project hook's relative paths were pinned from the project root; run elsewhere,
            // one may name a file nobody trusted.
            if hook.source.scope == hookbridge_core::config::Scope::Project {
                if let Some(cwd) = ctx.cwd.as_deref().filter(|cwd| *cwd != ctx.project_dir) {
                    if let Some(file) = hookbridge_core::trust::unpinned_from(c, hook, ctx.project_dir, cwd) {
                        return Err(NotRunReason::NotPinnedHere {
                            cwd: cwd.to_path_buf(),
                            file,
                        });
                    }
                }
            }
            let sandbox = hookbridge_core::config::managed::effective_sandbox(hook, &ctx.sandbox_floor);
            let plugin_data = hook.source.plugin.as_ref().map(|p| p.data_dir.as_path());
            Ok(Job::Process(command::process_spec(
                c,
                sandbox.as_deref(),
                plugin_data,
                ctx,
            )))
        }
        HookKind::Http(h) => Ok(Job::InProcess(http::job(h, ctx))),
        HookKind::Prompt(p) => Ok(Job::InProcess(prompt::job(p, ctx))),
        HookKind::Llm(l) => Ok(Job::InProcess(llm::job(
            l,
            hook.seed_event.as_deref().unwrap_or(event),
            ctx,
        ))),
        HookKind::Rule(_) => unreachable!("dispatch decides rule hooks itself, without a job"),
        HookKind::McpTool(m) => Ok(Job::InProcess(mcp::job(hook, m, ctx))),
        HookKind::Agent(p) => Ok(Job::InProcess(agent::job(p, ctx))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_api::ModelCallError as E;
    use hookbridge_core::decision::RunStatus;

    /// Each way a model call can fail is a failure of its own kind (a timeout is a timeout).
    #[test]
    fn a_failed_model_call_is_a_failure_of_its_kind() {
        let endpoint = || "https://api.example.com/v1/messages".to_string();
        let cases = [
            (
                E::Unreachable {
                    endpoint: endpoint(),
                    cause: "refused".into(),
                },
                Some(HookFailureKind::Unreachable),
            ),
            (
                E::Status {
                    endpoint: endpoint(),
                    status: 529,
                    detail: None,
                },
                Some(HookFailureKind::Refused),
            ),
            (E::Refused(None), Some(HookFailureKind::Refused)),
            (
                E::Malformed {
                    endpoint: endpoint(),
                    cause: "not JSON".into(),
                },
                Some(HookFailureKind::Unreadable),
            ),
            (
                E::NotConfigured("no ANTHROPIC_API_KEY".into()),
                Some(HookFailureKind::NotConfigured),
            ),
            (E::Host("ValueError".into()), Some(HookFailureKind::Unreachable)),
            (E::TimedOut, None),
        ];
        for (error, kind) in cases {
            let said = error.to_string();
            match (failed_call(error).status, kind) {
                (RunStatus::Failed(failure), Some(kind)) => {
                    assert_eq!(failure.kind, kind, "{said}");
                    assert_eq!(failure.message, format!("no usable verdict: {said}"));
                }
                (RunStatus::TimedOut, None) => {}
                (status, kind) => panic!("{said}: {status:?}, expected {kind:?}"),
            }
        }
    }
}
