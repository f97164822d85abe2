//! Dispatching one event: select the hooks it reaches, run them all at once, merge their answers.
//!
//! This is the engine behind `hookbridge run` and the Python binding. Every selected hook runs in
//! parallel (Claude Code does the same: three `sleep 2` hooks take two seconds), all supervised by
//! one [`run_all`](crate::process::run_all) loop on the calling thread; answers are merged by the
//! core in completion order,
//! and the outcome of every hook — including the ones that failed, timed out, were not runnable or
//! were skipped — is kept in the [`EventReport`] for logs and `--format report`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookbridge_core::config::{HookKind, HookSet, HookSpec, HttpPolicy, Selection};
use hookbridge_core::decision::{
    interpret_hook, merge, users_own_hook_must_succeed, AnsweredHook, CancelReason, EventDecision,
    HookAnswer, HookExecution, HookOutput, NotRunReason, RunStatus, SpawnFailure,
};
use hookbridge_core::event::{EventName, EventPayload};

use crate::audit::HookFacts;
pub use crate::detached::{AsyncAnswers, AsyncHooks};
use crate::hook_kinds::{self, JobContext};
use crate::process::warm::{self, NotWarm, WarmMode, WarmPlan};
use crate::process::{run_jobs, Flow, Job, ProcessSpec};
use crate::report::{EventReport, HookReport, HookSummary};

/// Settings of one dispatch.
#[derive(Debug, Clone)]
pub struct DispatchOptions {
    /// `CLAUDE_PROJECT_DIR` / `AMPLIFIER_PROJECT_DIR` for hooks.
    pub project_dir: PathBuf,
    /// Where hooks run; `None`: the payload's `cwd` if it is a directory, else the current one.
    pub cwd: Option<PathBuf>,
    /// Replaces Claude Code's per-event default timeout for hooks that set none.
    pub default_timeout: Option<Duration>,
    /// No hook may run longer than this, whatever it asks for.
    pub max_timeout: Option<Duration>,
    /// Timeouts that reach the project's hooks only: those of the environment
    /// (`HOOKBRIDGE_DEFAULT_TIMEOUT`, `HOOKBRIDGE_MAX_TIMEOUT`), which a project's settings can
    /// set. `default_timeout`, when set, wins over theirs; of two caps the lower applies.
    pub project_timeouts: ProjectTimeouts,
    /// Bytes of stdout and of stderr kept per hook.
    pub output_cap: usize,
    /// The env file offered to SessionStart/Setup/CwdChanged/FileChanged hooks as `CLAUDE_ENV_FILE`
    /// and `AMPLIFIER_ENV_FILE`.
    pub env_file: Option<PathBuf>,
    /// Extra environment for every hook: never over a variable the hook protocol sets
    /// (`CLAUDE_PROJECT_DIR`, `CLAUDE_ENV_FILE`, …), which are always hookbridge's.
    pub extra_env: Vec<(OsString, OsString)>,
    /// For a host that reads back what hooks write to their env file (the Amplifier module): the
    /// project's hooks get this env file and environment in place of `env_file` and `extra_env`,
    /// so that what a project's hooks export never reaches your hooks (a `PATH` of the project's
    /// for your guard, an `LD_PRELOAD` from a sandboxed hook for an unsandboxed one), nor yours
    /// the project's. `None`: every hook gets `env_file` and `extra_env`.
    pub project_env: Option<ScopeEnv>,
    /// What happens to `async: true` command hooks: by default they run in the background (their
    /// answer cannot change this event). When the host itself answers asynchronously —
    /// `hookbridge run` when every selected hook is async — they are awaited like the others.
    pub async_hooks: AsyncHooks,
    /// Stops the run from elsewhere (another thread, a signal handler): every hook still running
    /// is killed with its process group, and gets no answer.
    pub canceller: Option<crate::process::Canceller>,
    /// Who answers `prompt` hooks: `None` asks the provider the hook's environment configures
    /// (see `model_api`); a host with a model of its own (an Amplifier session) passes it here.
    pub model: Option<Arc<dyn crate::model_api::ModelJudge>>,
    /// Where the answers of async hooks run on a background thread go, for a host that shows them
    /// on a later request as Claude Code does; `None`: dropped.
    pub async_answers: Option<AsyncAnswers>,
    /// Told the first stdout line of each synchronous command hook as soon as it is complete (see
    /// [`FirstLineWatch`](crate::process::FirstLineWatch)).
    pub first_line: Option<crate::process::FirstLineWatch>,
    /// Stop the other hooks once an answer decides the event, as Claude Code does (a blocked
    /// prompt, a PermissionRequest decision). `false` for a host that waits for every hook and
    /// weighs all their answers (Codex).
    pub stop_once_decided: bool,
    /// Whether `mcp_tool` hooks may call servers of the project's own `.mcp.json`: only once the
    /// project is trusted (see `hookbridge_core::trust`). A user's server of the same name wins
    /// over the project's either way.
    pub project_mcp_servers: bool,
    /// Whether command hooks may run in a warm Python service at all (managed policy's
    /// `warm: false` says no).
    pub warm_allowed: bool,
    /// The managed policy's floor under hooks' sandboxes (`sandboxHooks`, `sandboxNetwork`).
    pub sandbox_floor: hookbridge_core::config::managed::SandboxFloor,
    /// Where every dispatched event is put on the record ([`crate::audit`]); `None`: nowhere.
    pub audit: Option<Arc<crate::audit::AuditLog>>,
    /// Where every dispatched event's spans are exported ([`crate::otel`]); `None`: nowhere.
    pub telemetry: Option<Arc<crate::otel::Telemetry>>,
    /// The session restricts personal configuration: a failure of one of the user's own hooks
    /// blocks where Claude Code blocks it
    /// ([`hookbridge_core::decision::users_own_hook_must_succeed`]).
    /// [`DispatchOptions::new`] reads Claude Code's `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG` from
    /// this process's environment, which the agent passes on to its hooks.
    pub restrict_personal_config: bool,
}

/// The env file and exported environment of one scope's hooks ([`DispatchOptions::project_env`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeEnv {
    /// Offered to SessionStart/Setup/CwdChanged/FileChanged hooks as `CLAUDE_ENV_FILE` and
    /// `AMPLIFIER_ENV_FILE`.
    pub file: Option<PathBuf>,
    /// Set for every hook of the scope, as [`DispatchOptions::extra_env`].
    pub vars: Vec<(OsString, OsString)>,
}

/// Timeouts for the project's hooks only ([`DispatchOptions::project_timeouts`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProjectTimeouts {
    /// For the project's hooks that set no `timeout`.
    pub default: Option<Duration>,
    /// No hook of the project's runs longer.
    pub max: Option<Duration>,
}

impl DispatchOptions {
    /// Per stream: [`hook_kinds::DEFAULT_OUTPUT_CAP`].
    pub const DEFAULT_OUTPUT_CAP: usize = hook_kinds::DEFAULT_OUTPUT_CAP;
    /// Output kept for all the hooks of one event together: with many hooks each one's cap shrinks
    /// (never below [`Self::MIN_OUTPUT_CAP`]), so a flood from every hook at once stays bounded.
    pub const EVENT_OUTPUT_BUDGET: usize = 16 * 1024 * 1024;
    pub const MIN_OUTPUT_CAP: usize = 1024 * 1024;

    /// The per-stream cap for each of `hooks` hooks of one event.
    pub fn output_cap_for(&self, hooks: usize) -> usize {
        let share = Self::EVENT_OUTPUT_BUDGET / (2 * hooks.max(1));
        self.output_cap.min(share.max(Self::MIN_OUTPUT_CAP))
    }

    pub fn new(project_dir: impl Into<PathBuf>) -> DispatchOptions {
        DispatchOptions {
            project_dir: project_dir.into(),
            cwd: None,
            default_timeout: None,
            max_timeout: None,
            project_timeouts: ProjectTimeouts::default(),
            output_cap: Self::DEFAULT_OUTPUT_CAP,
            env_file: None,
            extra_env: Vec::new(),
            project_env: None,
            async_hooks: AsyncHooks::BackgroundThread,
            canceller: None,
            model: None,
            async_answers: None,
            first_line: None,
            stop_once_decided: true,
            project_mcp_servers: false,
            warm_allowed: true,
            sandbox_floor: hookbridge_core::config::managed::SandboxFloor::NONE,
            audit: None,
            telemetry: None,
            restrict_personal_config: env_truthy("CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG"),
        }
    }

    /// What the project's trust decides: whether its own MCP servers may be called, and whether
    /// its hooks run sandboxed (`hookbridge trust --sandboxed`).
    pub fn apply_trust(&mut self, trust: &hookbridge_core::trust::Applied) {
        self.project_mcp_servers = trust.project_servers_allowed();
        self.sandbox_floor = self.sandbox_floor.stricter(trust.sandbox_floor());
    }

    /// What the loaded files decide: the managed policy's limits (no warm runs, a shorter maximum
    /// timeout) and the floor under hooks' sandboxes that the policy and the user's own settings
    /// set ([`HookSet::sandbox_floor`](hookbridge_core::config::HookSet::sandbox_floor)).
    pub fn apply_settings(&mut self, set: &hookbridge_core::config::HookSet) {
        self.sandbox_floor = self.sandbox_floor.stricter(set.sandbox_floor());
        if let Some(rules) = &set.managed {
            self.warm_allowed &= rules.warm;
            if let Some(max) = rules.max_timeout {
                self.max_timeout = Some(self.max_timeout.map_or(max, |own| own.min(max)));
            }
        }
    }

    /// The timeout for `hook` on `event`: its own, else ours, else Claude Code's default for its
    /// kind (prompt and llm 30 s, agent 60 s) or event; capped.
    pub fn timeout_for(&self, event: &EventName, hook: &HookSpec) -> Duration {
        let own = hook.timeout;
        let claude_default =
            (hook.kind.hook_type().default_timeout_secs()).unwrap_or(event.traits().default_timeout_secs);
        // The environment's settings reach the project's hooks only: a project's settings can set
        // the agent's environment, and a second's cap would let the user's guards time out.
        let project = match hook.source.scope {
            hookbridge_core::config::Scope::Project => self.project_timeouts,
            _ => ProjectTimeouts::default(),
        };
        let default = self
            .default_timeout
            .or(project.default)
            .unwrap_or(Duration::from_secs(claude_default));
        let timeout = own.unwrap_or(default);
        [self.max_timeout, project.max]
            .into_iter()
            .flatten()
            .fold(timeout, Duration::min)
    }
}

/// Dispatch `payload` to the hooks of `set` it reaches. Blocks the calling thread until every hook
/// has ended (or was stopped by an early decision).
pub fn dispatch(set: &HookSet, payload: &EventPayload, options: &DispatchOptions) -> EventReport {
    dispatch_selection(set.select(payload), payload, options)
}

/// [`dispatch`] for a selection the caller has already made with [`HookSet::select`] (for the
/// same payload), so that a caller who looks at it first does not select twice.
pub fn dispatch_selection(
    selection: Selection<'_>,
    payload: &EventPayload,
    options: &DispatchOptions,
) -> EventReport {
    if selection.hooks.is_empty() && selection.skipped.is_empty()
        || (options.audit.is_none() && options.telemetry.is_none())
    {
        return run_selection(selection, payload, options);
    }
    // On the record (crate::audit) and in the traces (crate::otel): the facts only the selection
    // has, the run, then its lines.
    let started = std::time::SystemTime::now();
    let clock = std::time::Instant::now();
    let facts: Vec<HookFacts> = selection
        .hooks
        .iter()
        .map(|hook| HookFacts::of(hook, &options.project_dir, &options.sandbox_floor))
        .collect();
    let mut report = run_selection(selection, payload, options);
    let time = humantime::format_rfc3339_millis(started).to_string();
    let host = match (&options.audit, &options.telemetry) {
        (Some(audit), _) => audit.host.as_str(),
        (None, Some(telemetry)) => telemetry.host.as_str(),
        (None, None) => "",
    };
    let lines = crate::audit::event_lines(
        &report,
        &facts,
        host,
        payload.session_id(),
        &time,
        clock.elapsed().as_secs_f64() * 1000.0,
    );
    let mut warnings = Vec::new();
    if let Some(audit) = &options.audit {
        if let Err(e) = audit.append(&lines) {
            warnings.push(format!(
                "the audit log {} could not be written: {e}",
                audit.path.display()
            ));
        }
    }
    if let Some(telemetry) = &options.telemetry {
        if let Err(e) = telemetry.export(&lines, started) {
            warnings.push(e);
        }
    }
    drop(lines);
    report.warnings.extend(warnings);
    report
}

/// Whether the environment variable `name` is set to a word Claude Code reads as on (its
/// `isEnvTruthy`: `1`, `true`, `yes` or `on`, in any case, spaces around ignored).
fn env_truthy(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| ["1", "true", "yes", "on"].contains(&v.trim().to_lowercase().as_str()))
}

/// [`dispatch_selection`] without the record.
fn run_selection(selection: Selection<'_>, payload: &EventPayload, options: &DispatchOptions) -> EventReport {
    let event = payload.event().clone();
    let match_query = payload.match_query();
    let skipped = selection
        .skipped
        .iter()
        .map(|s| (HookSummary::of(s.hook), s.reason.clone()))
        .collect();
    if selection.hooks.is_empty() {
        return EventReport {
            event,
            match_query,
            decision: EventDecision::default(),
            hooks: Vec::new(),
            skipped,
            warnings: selection.warnings,
        };
    }
    let mut warnings = selection.warnings.clone();
    let session_id = session_id_for_env(payload, &mut warnings);
    let mut runs = Runs::plan(&selection, payload, options, session_id.as_deref());
    runs.start_background(&event, &selection, options);
    runs.run_jobs(&event, &selection, options);
    let (hooks, decision) = answer_all(&event, &selection, runs.executions(), options);
    EventReport {
        event,
        match_query,
        decision,
        hooks,
        skipped,
        warnings,
    }
}

/// The payload's session id, where hooks may get it as an environment variable; a warning says
/// why not when they may not.
fn session_id_for_env(payload: &EventPayload, warnings: &mut Vec<String>) -> Option<String> {
    payload
        .session_id()
        .filter(|id| match unusable_in_environment(id) {
            Some(why) => {
                warnings.push(format!(
                    "the payload's session_id {why}: hooks get no AMPLIFIER_SESSION_ID or CLAUDE_CODE_SESSION_ID (it is still in their stdin)"
                ));
                false
            }
            None => true,
        })
        .map(str::to_string)
}

/// One event's selected hooks on their way: which run as jobs here, which in the background, and
/// the executions of those that have ended, in the order they ended.
struct Runs {
    /// Jobs to run, each with the index of its hook in the selection.
    jobs: Vec<Job>,
    job_hooks: Vec<usize>,
    /// Async hooks run in the background, each with the index of its hook.
    background: Vec<ProcessSpec>,
    background_hooks: Vec<usize>,
    executions: Vec<Option<HookExecution>>,
    timeouts: Vec<Duration>,
    /// How many have ended: the next one's finish order.
    finished: usize,
    /// Why the hooks still running were stopped, once an answer decided the event.
    stopped_by: Option<CancelReason>,
}

/// The read layers the event's sandboxed hooks share, when there are several (a hook alone
/// enters one layer of its own, which costs less than two).
fn shared_sandbox_reads(
    selection: &Selection<'_>,
    options: &DispatchOptions,
) -> Option<Arc<crate::process::ReadLayers>> {
    let floor = &options.sandbox_floor;
    let sandboxed = selection
        .hooks
        .iter()
        .filter(|hook| hookbridge_core::config::managed::effective_sandbox(hook, floor).is_some())
        .count();
    (sandboxed > 1).then(|| Arc::new(crate::process::ReadLayers::default()))
}

impl Runs {
    /// Each selected hook as a job, or its execution when it ends without one (a rule hook,
    /// decided here; a hook that cannot run).
    fn plan(
        selection: &Selection<'_>,
        payload: &EventPayload,
        options: &DispatchOptions,
        session_id: Option<&str>,
    ) -> Runs {
        let event = payload.event();
        let count = selection.hooks.len();
        let mut runs = Runs {
            jobs: Vec::new(),
            job_hooks: Vec::new(),
            background: Vec::new(),
            background_hooks: Vec::new(),
            executions: vec![None; count],
            timeouts: Vec::with_capacity(count),
            finished: 0,
            stopped_by: None,
        };
        let output_cap = options.output_cap_for(count);
        // The stdin bytes and the working directory (a stat) are made when the first hook that
        // runs outside this thread needs them: an event only rule hooks reach needs neither.
        let mut stdin: Option<Arc<[u8]>> = None;
        let mut cwd: Option<Option<PathBuf>> = None;
        let sandbox_reads = shared_sandbox_reads(selection, options);
        // The seed dialect's stdin, per event name as written (usually one).
        let mut seed_stdins: Vec<(&str, Arc<[u8]>)> = Vec::new();
        for (index, hook) in selection.hooks.iter().enumerate() {
            let timeout = options.timeout_for(event, hook);
            runs.timeouts.push(timeout);
            if let HookKind::Rule(rule) = &hook.kind {
                let execution = hook_kinds::rule::evaluate(rule, payload, runs.finished);
                if runs.stopped_by.is_none() && options.stop_once_decided {
                    runs.stopped_by = decided_early(event, hook, &execution);
                }
                runs.ended(index, execution);
                continue;
            }
            let stdin = match hook.seed_event.as_deref() {
                None => stdin
                    .get_or_insert_with(|| Arc::from(payload.to_stdin_bytes()))
                    .clone(),
                Some(written) => match seed_stdins.iter().find(|(w, _)| *w == written) {
                    Some((_, bytes)) => bytes.clone(),
                    None => {
                        let bytes = seed_stdin(payload, written);
                        seed_stdins.push((written, bytes.clone()));
                        bytes
                    }
                },
            };
            let context = JobContext {
                stdin,
                cwd: cwd
                    .get_or_insert_with(|| {
                        options
                            .cwd
                            .clone()
                            .or_else(|| payload.cwd().map(PathBuf::from).filter(|p| p.is_dir()))
                    })
                    .clone(),
                env: hook_env(hook, event, options, session_id),
                timeout,
                output_cap,
                policy: selection.http_policy.unwrap_or(&HttpPolicy::NONE),
                model: options.model.clone(),
                first_line: (!is_async(hook)).then(|| options.first_line.clone()).flatten(),
                project_mcp_servers: options.project_mcp_servers,
                project_dir: &options.project_dir,
                warm_allowed: options.warm_allowed,
                sandbox_floor: options.sandbox_floor,
                sandbox_reads: sandbox_reads.clone(),
            };
            // (The core reads a judge not run there as the block Claude Code answers.)
            let judge_not_run = matches!(hook.kind, HookKind::Prompt(_) | HookKind::Agent(_))
                && !event.traits().runs_judge_hooks;
            let job = if judge_not_run {
                Err(NotRunReason::NoJudgesOn(event.clone()))
            } else {
                hook_kinds::job_for(hook, event.as_str(), context)
            };
            match job {
                Err(why) => {
                    let execution = HookExecution::without_output(RunStatus::NotRun(why), runs.finished);
                    runs.ended(index, execution);
                }
                Ok(Job::Process(spec)) if is_async(hook) && options.async_hooks != AsyncHooks::Await => {
                    runs.background.push(spec);
                    runs.background_hooks.push(index);
                }
                Ok(job) => {
                    runs.jobs.push(job);
                    runs.job_hooks.push(index);
                }
            }
        }
        runs
    }

    /// Hook `index` ended with `execution` (whose finish order is [`Runs::finished`]).
    fn ended(&mut self, index: usize, execution: HookExecution) {
        self.executions[index] = Some(execution);
        self.finished += 1;
    }

    /// Starts the async hooks in the background; each counts as ended, detached.
    fn start_background(&mut self, event: &EventName, selection: &Selection<'_>, options: &DispatchOptions) {
        if self.background.is_empty() {
            return;
        }
        let hooks = std::mem::take(&mut self.background_hooks);
        let delivery = options
            .async_answers
            .as_ref()
            .map(|answers| crate::detached::Delivery {
                event: event.clone(),
                hooks: hooks.iter().map(|&i| selection.hooks[i].clone()).collect(),
                answers: answers.clone(),
            });
        let background = std::mem::take(&mut self.background);
        let status = match crate::detached::run_in_background(background, options.async_hooks, delivery) {
            Ok(()) => RunStatus::Detached,
            Err(e) => RunStatus::SpawnFailed(SpawnFailure::other(format!(
                "could not start the async hooks' supervisor: {e}"
            ))),
        };
        for index in hooks {
            let execution = HookExecution::without_output(status.clone(), self.finished);
            self.ended(index, execution);
        }
    }

    /// Runs the jobs until all have ended, or an answer decided the event and the rest were
    /// stopped, or the run was cancelled.
    fn run_jobs(&mut self, event: &EventName, selection: &Selection<'_>, options: &DispatchOptions) {
        let mut jobs = std::mem::take(&mut self.jobs);
        if self.stopped_by.is_some() {
            // A rule hook already decided the event (a blocked prompt): nothing else starts.
            jobs.clear();
        }
        let job_hooks = std::mem::take(&mut self.job_hooks);
        run_jobs(jobs, options.canceller.as_ref(), |job_index, outcome| {
            let index = job_hooks[job_index];
            let execution = outcome.into_execution(self.finished);
            let decided = options
                .stop_once_decided
                .then(|| decided_early(event, selection.hooks[index], &execution))
                .flatten();
            self.ended(index, execution);
            match decided {
                Some(why) => {
                    self.stopped_by = Some(why);
                    Flow::StopTheRest
                }
                None => Flow::Continue,
            }
        });
    }

    /// Every hook's execution with its timeout, in selection order. The process groups of hooks
    /// that did not finish were killed when the run stopped (by an early decision, or by the
    /// canceller): they are cancelled.
    fn executions(self) -> impl Iterator<Item = (HookExecution, Duration)> {
        let why = self.stopped_by.unwrap_or(CancelReason::RunStopped);
        self.executions
            .into_iter()
            .map(move |slot| {
                slot.unwrap_or_else(|| HookExecution::without_output(RunStatus::Cancelled(why), usize::MAX))
            })
            .zip(self.timeouts)
    }
}

/// Each hook's answer, read from its execution, and the event's decision merged from them.
fn answer_all(
    event: &EventName,
    selection: &Selection<'_>,
    executions: impl Iterator<Item = (HookExecution, Duration)>,
    options: &DispatchOptions,
) -> (Vec<HookReport>, EventDecision) {
    let hooks: Vec<HookReport> = (selection.hooks.iter().zip(executions))
        .map(|(hook, (execution, timeout))| HookReport {
            hook: HookSummary::of(hook),
            answer: interpret_hook(event, hook, &execution),
            execution,
            timeout,
            on_failure: hook.on_failure,
            must_succeed: users_own_hook_must_succeed(event, hook, options.restrict_personal_config),
        })
        .collect();
    let answered: Vec<AnsweredHook> = hooks.iter().map(HookReport::answered).collect();
    let decision = merge(event, &answered);
    (hooks, decision)
}

/// Longest value given to a hook as an environment variable taken from the payload. The kernel
/// refuses to start a program with any one string past 128 KiB (`MAX_ARG_STRLEN`), so one
/// oversized value would keep every hook from starting; session ids are UUIDs.
const MAX_ENV_VALUE_FROM_PAYLOAD: usize = 4096;

/// Why `value` cannot be an environment variable's value, if it cannot.
fn unusable_in_environment(value: &str) -> Option<String> {
    if value.contains('\0') {
        Some("contains a NUL byte".into())
    } else if value.len() > MAX_ENV_VALUE_FROM_PAYLOAD {
        Some(format!(
            "is {} bytes long (more than {MAX_ENV_VALUE_FROM_PAYLOAD})",
            value.len()
        ))
    } else {
        None
    }
}

/// Claude Code stops waiting once some answers are in: a UserPromptSubmit block kills the other
/// hooks (case 134); the first PermissionRequest decision wins (cases 119–120).
fn decided_early(event: &EventName, hook: &HookSpec, execution: &HookExecution) -> Option<CancelReason> {
    if !matches!(event, EventName::UserPromptSubmit | EventName::PermissionRequest) {
        return None; // no need to read the answer twice
    }
    match (event, interpret_hook(event, hook, execution)) {
        (EventName::UserPromptSubmit, HookAnswer::Blocking { .. } | HookAnswer::Rejected { .. }) => {
            Some(CancelReason::PromptBlocked)
        }
        (EventName::UserPromptSubmit, HookAnswer::Output(HookOutput::Json(j)))
            if j.decision == Some(hookbridge_core::decision::TopDecision::Block) =>
        {
            Some(CancelReason::PromptBlocked)
        }
        (EventName::PermissionRequest, HookAnswer::Output(HookOutput::Json(j)))
            if j.request_decision().is_some() =>
        {
            Some(CancelReason::PermissionDecided)
        }
        _ => None,
    }
}

/// The payload with the seed dialect's fields added (never replacing one the payload has):
/// `event` (as the hook was written), `tool` and `args` (tool events), `timestamp` (RFC 3339, UTC);
/// `session_id` is Claude Code's own.
fn seed_stdin(payload: &EventPayload, written: &str) -> Arc<[u8]> {
    use serde_json::Value;
    let mut fields = payload.fields().clone();
    let mut add = |key: &str, value: Value| {
        fields.entry(key.to_string()).or_insert(value);
    };
    add("event", Value::String(written.to_string()));
    if let Some(call) = payload.tool_call() {
        add("tool", Value::String(call.tool_name.to_string()));
        add("args", Value::Object(call.tool_input.clone()));
    }
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now().max(std::time::UNIX_EPOCH))
        .to_string();
    add("timestamp", Value::String(now));
    let mut bytes = serde_json::to_vec(&fields).expect("a JSON map always serializes");
    bytes.push(b'\n');
    Arc::from(bytes)
}

/// How a command hook would run with warm runs as `mode` says, for `event`, started in `cwd`:
/// what `list` and `test` show. `None` for hooks that are not commands.
pub fn warm_plan(
    hook: &HookSpec,
    event: &EventName,
    options: &DispatchOptions,
    cwd: &Path,
    mode: WarmMode,
) -> Option<Result<WarmPlan, NotWarm>> {
    let HookKind::Command(command) = &hook.kind else {
        return None;
    };
    if hookbridge_core::config::managed::effective_sandbox(hook, &options.sandbox_floor).is_some() {
        // Said without building the spec, which would make the hook's temporary folder.
        return Some(Err(NotWarm::Sandboxed));
    }
    let context = JobContext {
        stdin: Arc::from(&[][..]),
        cwd: Some(cwd.to_path_buf()),
        env: hook_env(hook, event, options, None),
        timeout: Duration::ZERO,
        output_cap: 0,
        policy: &HttpPolicy::NONE,
        model: None,
        first_line: None,
        project_mcp_servers: false,
        project_dir: &options.project_dir,
        warm_allowed: options.warm_allowed,
        sandbox_floor: options.sandbox_floor,
        sandbox_reads: None,
    };
    Some(warm::plan_without_running(
        // Not sandboxed: a sandboxed hook was answered above.
        &hook_kinds::command::process_spec(command, None, None, context),
        mode,
    ))
}

/// `async: true` command hooks: started in the background unless the host awaits them.
fn is_async(hook: &HookSpec) -> bool {
    matches!(&hook.kind, HookKind::Command(c) if c.run_async)
}

/// The variables hookbridge sets for every hook from what it knows (the hook protocol), which no
/// host's `extra_env` or [`ScopeEnv`] may set.
pub const PROTOCOL_VARS: &[&str] = &[
    "CLAUDE_PROJECT_DIR",
    "AMPLIFIER_PROJECT_DIR",
    "AMPLIFIER_HOOKS_DIR",
    "CLAUDE_PLUGIN_ROOT",
    "CLAUDE_PLUGIN_DATA",
    "AMPLIFIER_SESSION_ID",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_ENV_FILE",
    "AMPLIFIER_ENV_FILE",
];

/// The environment Claude Code gives a hook, plus the Amplifier names of the shell-hooks spec.
fn hook_env(
    hook: &HookSpec,
    event: &EventName,
    options: &DispatchOptions,
    session_id: Option<&str>,
) -> Vec<(OsString, OsString)> {
    let (env_file, vars) = match (&options.project_env, hook.source.scope) {
        (Some(project), hookbridge_core::config::Scope::Project) => (project.file.as_ref(), &project.vars),
        _ => (options.env_file.as_ref(), &options.extra_env),
    };
    // Never a protocol variable from the host's list: the sandbox reads the project and the env
    // file from them, so an exported `CLAUDE_PROJECT_DIR` or `CLAUDE_ENV_FILE` would move what
    // a sandboxed hook may write.
    let mut env: Vec<(OsString, OsString)> = Vec::with_capacity(10 + vars.len());
    env.extend(
        vars.iter()
            .filter(|(name, _)| !PROTOCOL_VARS.iter().any(|p| name == p))
            .cloned(),
    );
    let project = options.project_dir.as_os_str().to_os_string();
    env.push(("CLAUDE_PROJECT_DIR".into(), project.clone()));
    env.push(("AMPLIFIER_PROJECT_DIR".into(), project));
    env.push((
        "AMPLIFIER_HOOKS_DIR".into(),
        hook.source.hooks_dir.as_os_str().to_os_string(),
    ));
    if let Some(plugin) = &hook.source.plugin {
        env.push((
            "CLAUDE_PLUGIN_ROOT".into(),
            plugin.root.as_os_str().to_os_string(),
        ));
        env.push((
            "CLAUDE_PLUGIN_DATA".into(),
            plugin.data_dir.as_os_str().to_os_string(),
        ));
        ensure_dir(&plugin.data_dir);
    }
    if let Some(id) = session_id {
        env.push(("AMPLIFIER_SESSION_ID".into(), id.into()));
        if std::env::var_os("CLAUDE_CODE_SESSION_ID").is_none() {
            env.push(("CLAUDE_CODE_SESSION_ID".into(), id.into()));
        }
    }
    let gets_env_file = matches!(
        event,
        EventName::SessionStart | EventName::Setup | EventName::CwdChanged | EventName::FileChanged
    );
    if let (true, Some(file)) = (gets_env_file, env_file) {
        env.push(("CLAUDE_ENV_FILE".into(), file.as_os_str().to_os_string()));
        env.push(("AMPLIFIER_ENV_FILE".into(), file.as_os_str().to_os_string()));
    }
    env
}

fn ensure_dir(dir: &Path) {
    if !dir.is_dir() {
        let _ = std::fs::create_dir_all(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookbridge_core::config::{parse_hooks_file, ConfigSource, Scope};

    /// `hooks`, a hooks file's JSON, as a project's hooks.
    fn project_hooks(hooks: &serde_json::Value) -> HookSet {
        let source = ConfigSource {
            path: PathBuf::from("/t/hooks.json"),
            scope: Scope::Project,
            hooks_dir: PathBuf::from("/t"),
            plugin: None,
            description: None,
        };
        let mut set = HookSet::default();
        set.extend(parse_hooks_file(&hooks.to_string(), source, 0, "/t"));
        set
    }

    /// With a project env of its own (the Amplifier module), a project's hook gets the project's
    /// env file and exports and yours get yours: what one side exported never reaches the other.
    /// Neither may set a protocol variable, which the sandbox reads what a hook may write from.
    #[test]
    fn a_projects_exports_reach_only_its_own_hooks_and_never_set_a_protocol_variable() {
        let hooks = serde_json::json!({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": "true"},
        ]}]}});
        let set = project_hooks(&hooks);
        let (_, _, project_hook) = set.hooks().next().unwrap();
        let mut user_hook = project_hook.clone();
        user_hook.source = Arc::new(ConfigSource {
            scope: Scope::User,
            ..(*project_hook.source).clone()
        });
        let mut options = DispatchOptions::new("/project");
        options.env_file = Some("/env/yours.env".into());
        options.extra_env = vec![
            ("YOURS".into(), "1".into()),
            ("CLAUDE_PROJECT_DIR".into(), "/home/u".into()),
        ];
        options.project_env = Some(ScopeEnv {
            file: Some("/env/project.env".into()),
            vars: vec![
                ("PATH".into(), "/project/tools".into()),
                ("CLAUDE_ENV_FILE".into(), "/home/u/.bashrc".into()),
            ],
        });
        let get = |env: &[(OsString, OsString)], name: &str| -> Vec<String> {
            env.iter()
                .filter(|(k, _)| k == name)
                .map(|(_, v)| v.to_string_lossy().into_owned())
                .collect()
        };
        let project = hook_env(project_hook, &EventName::SessionStart, &options, None);
        assert_eq!(get(&project, "CLAUDE_ENV_FILE"), ["/env/project.env"]);
        assert_eq!(get(&project, "PATH"), ["/project/tools"]);
        assert!(get(&project, "YOURS").is_empty());
        let user = hook_env(&user_hook, &EventName::SessionStart, &options, None);
        assert_eq!(get(&user, "CLAUDE_ENV_FILE"), ["/env/yours.env"]);
        assert_eq!(get(&user, "YOURS"), ["1"]);
        assert!(
            get(&user, "PATH").is_empty(),
            "the project's PATH never reaches your hook"
        );
        assert_eq!(
            get(&user, "CLAUDE_PROJECT_DIR"),
            ["/project"],
            "only hookbridge's"
        );
        let later = hook_env(project_hook, &EventName::PreToolUse, &options, None);
        assert!(
            get(&later, "CLAUDE_ENV_FILE").is_empty(),
            "no env file but the protocol's"
        );
        options.project_env = None;
        let same = hook_env(project_hook, &EventName::SessionStart, &options, None);
        assert_eq!(get(&same, "CLAUDE_ENV_FILE"), ["/env/yours.env"]);
        assert_eq!(get(&same, "YOURS"), ["1"]);
    }

    /// Two PermissionRequest hooks: the first allows at once, the second denies a moment later.
    /// Claude Code follows the first decision and stops the other hook; a host that weighs every
    /// answer (`stop_once_decided: false`) gets both.
    #[test]
    fn a_decision_stops_the_other_hooks_unless_the_host_weighs_every_answer() {
        let allow =
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}"#;
        let hooks = serde_json::json!({"hooks": {"PermissionRequest": [{"hooks": [
            {"type": "command", "command": format!("echo '{allow}'")},
            {"type": "command", "command": format!("sleep 1; echo '{deny}'")},
        ]}]}});
        let set = project_hooks(&hooks);
        let payload = EventPayload::from_value(
            EventName::PermissionRequest,
            serde_json::json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": "/"}),
        )
        .unwrap();
        let answered = |stop_once_decided: bool| {
            let mut options = DispatchOptions::new("/");
            options.stop_once_decided = stop_once_decided;
            let report = dispatch(&set, &payload, &options);
            report
                .hooks
                .iter()
                .filter(|h| matches!(&h.answer, HookAnswer::Output(HookOutput::Json(j)) if j.request_decision().is_some()))
                .count()
        };
        assert_eq!(answered(true), 1, "the deny is cancelled once the allow is in");
        assert_eq!(answered(false), 2, "both answers are in");
    }

    /// A hook that cannot be started says why as a typed reason, the same in its run and in its
    /// answer: whoever reads the report tells a missing working folder from a refused program
    /// without reading the sentence.
    #[test]
    fn a_hook_that_cannot_start_says_why_as_a_typed_reason() {
        let hooks = serde_json::json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "true"},
        ]}]}});
        let set = project_hooks(&hooks);
        let payload = EventPayload::from_value(EventName::Stop, serde_json::json!({"cwd": "/"})).unwrap();
        let gone = tempfile::tempdir().unwrap().path().join("gone");
        let mut options = DispatchOptions::new("/");
        options.cwd = Some(gone.clone());
        let report = dispatch(&set, &payload, &options);
        let [hook] = &report.hooks[..] else {
            panic!("one hook ran: {:?}", report.hooks)
        };
        let RunStatus::SpawnFailed(failure) = &hook.execution.status else {
            panic!("{:?}", hook.execution.status)
        };
        assert_eq!(
            failure.kind,
            hookbridge_core::decision::SpawnFailureKind::NotFound
        );
        assert!(
            failure.message.contains(&format!(
                "working directory `{}` is not a directory",
                gone.display()
            )),
            "{failure}"
        );
        assert_eq!(
            hook.answer,
            HookAnswer::NoVerdict {
                why: hookbridge_core::decision::NoVerdictReason::CouldNotStart(failure.clone())
            }
        );
    }
}
