//! From hook processes to one decision, with Claude Code's exact semantics.
//!
//! Three steps, each a pure function so every rule can be tested in isolation:
//! 1. [`interpret`]: one hook's exit status and output become a [`HookAnswer`] — exit 2 blocks with
//!    stderr, other codes are non-blocking errors, stdout starting with `{` is JSON if it parses and
//!    plain text otherwise.
//! 2. [`merge`]: all answers of one event become an [`EventDecision`] — deny beats defer beats ask
//!    beats allow, the last hook to finish supplies a blocking message and `updatedInput`, every
//!    context is kept in completion order. Claude Code merges by completion order (measured in
//!    conformance cases 63–65), so that order is an input here, not an accident of scheduling.
//! 3. [`render_claude`]: the decision becomes one exit code + stdout + stderr that makes Claude Code
//!    act exactly as if each hook had answered it directly.

mod answer;
pub(crate) mod claude;
mod execution;
pub mod foreign;
mod in_words;
pub mod json_text;
mod judged;
mod merge;
pub mod output_schema;
mod read;
mod verdict;

pub use answer::{
    async_delivery, HookAnswer, HookJson, HookOutput, NoVerdictReason, PermissionDecision, RequestDecision,
    SpecificOutput, TopDecision,
};
pub use claude::{context_label, render_claude, success_label, ClaudeAnswer, Stdout};
pub use execution::{
    CancelReason, HookExecution, HookFailure, HookFailureKind, NotRunReason, RunStatus, SpawnFailure,
    SpawnFailureKind, WarmRun,
};
pub use in_words::{in_words, outcome, InWords, Outcome};
pub use judged::{verdict_answer, Judge};
pub use merge::{
    merge, users_own_hook_must_succeed, AnsweredHook, Blocking, BlockingSource, Context, ContextKind,
    EventDecision, Problem, StopRequest,
};
pub use read::{answer_shaped, interpret, interpret_hook, NON_JSON_BODY};
pub use verdict::{judge_prompt, verdict_schema, Verdict, VerdictError, JUDGE_SYSTEM_PROMPT};
