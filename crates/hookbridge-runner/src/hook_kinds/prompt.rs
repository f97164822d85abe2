//! `prompt` hooks: one model call with Claude Code's judge prompt, the hook's `prompt` (its
//! `$ARGUMENTS` replaced by the hook input), and the verdict schema. The reply becomes a
//! [`RunStatus::Judged`](hookbridge_core::decision::RunStatus::Judged) verdict; a reply that is not one, a refusal or an HTTP error is a
//! non-blocking error, as in Claude Code (case 199: "A hook gave no usable answer").
//!
//! One request per hook per event, bounded by the hook's timeout (Claude Code's default for prompt
//! hooks: 30 s) and [`MAX_TOKENS`]. The model's reply text is kept where a command's stdout would
//! be, for reports.

use std::sync::Arc;

use hookbridge_core::config::PromptHook;
use hookbridge_core::decision::{judge_prompt, verdict_schema, Verdict, JUDGE_SYSTEM_PROMPT};

use super::JobContext;
use crate::model_api::{JudgeRequest, ModelJudge, Provider};
use crate::process::InProcessJob;

/// Output tokens allowed for a verdict: a JSON object with a one-sentence reason.
pub const MAX_TOKENS: u32 = 1024;

/// The job that asks the model about `hook`.
pub(crate) fn job(hook: &PromptHook, ctx: JobContext<'_>) -> InProcessJob {
    // The host's model if it gave one, else the provider the environment configures.
    let judge: Result<Arc<dyn ModelJudge>, crate::model_api::UnknownProvider> = match &ctx.model {
        Some(model) => Ok(model.clone()),
        None => Provider::from_env(|name| ctx.var(name)).map(|p| Arc::new(p) as Arc<dyn ModelJudge>),
    };
    let request = JudgeRequest {
        system: JUDGE_SYSTEM_PROMPT.to_string(),
        user: judge_prompt(&hook.prompt, &ctx.payload_text()),
        model: hook.model.clone(),
        max_tokens: MAX_TOKENS,
        schema: Some(verdict_schema()),
    };
    InProcessJob {
        kind: hookbridge_core::config::HookType::Prompt,
        timeout: ctx.timeout,
        work: Box::new(move |deadline| {
            let judge = match judge {
                Ok(j) => j,
                Err(why) => return super::not_configured(why),
            };
            match judge.judge(&request, deadline) {
                Ok(reply) => super::judged_outcome(reply, |r| Verdict::parse(r).map_err(|e| e.to_string())),
                Err(e) => super::failed_call(e),
            }
        }),
    }
}
