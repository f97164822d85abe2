//! `http` hooks: the hook input POSTed as JSON to `url`, as Claude Code 2.1.328 does it (measured,
//! cases 260–296): no redirect is followed (a 3xx is an answer outside 2xx), the body is read
//! whole however large (bounded as a command's stdout is: kept to the cap, spilled to disk, a JSON
//! answer read back), and the core reads it with Claude Code's rules for http answers (a body
//! that is not JSON is a failure, never plain text). A status outside 2xx or an unreachable
//! endpoint is a non-blocking error, worded as Claude Code words it (`HTTP 500 from <url>`,
//! `connect ECONNREFUSED <host>:<port>`); running out of time is a timeout (no answer). http hooks
//! do not run on SessionStart and Setup.
//!
//! Header values may name environment variables (`$VAR`, `${VAR}`), but only those the hook lists
//! in `allowedEnvVars` (and the policy's `httpHookAllowedEnvVars` allows): any other reference
//! becomes empty, so a config cannot leak a secret it was not given. Interpolated values never
//! appear in reports.

use hookbridge_core::config::{HttpHook, HttpPolicy};
use hookbridge_core::decision::{HookFailure, HookFailureKind, RunStatus};

use super::JobContext;
use crate::model_api::{post_json, PostError, Redirects};
use crate::process::capture::Collector;
use crate::process::{InProcessJob, InProcessOutcome, ProcessSpec};

/// The job that calls `hook`'s endpoint.
pub(crate) fn job(hook: &HttpHook, ctx: JobContext<'_>) -> InProcessJob {
    let url = hook.url.clone();
    let headers: Vec<(String, String)> = hook
        .headers
        .iter()
        .map(|(name, value)| {
            let value = interpolate(value, |var| {
                allowed(hook, ctx.policy, var).then(|| ctx.var(var)).flatten()
            });
            (name.clone(), value)
        })
        .collect();
    let body = ctx.payload_text().into_bytes();
    let cap = ctx.output_cap;
    InProcessJob {
        kind: hookbridge_core::config::HookType::Http,
        timeout: ctx.timeout,
        work: Box::new(move |deadline| {
            // The body is read as a command's stdout is: an answer past the cap is read whole.
            let collector = Collector::new(cap, ProcessSpec::DEFAULT_STDOUT_SPILL_LIMIT);
            match post_json(&url, &headers, &body, deadline, Redirects::Never, collector) {
                Ok(response) => InProcessOutcome {
                    status: RunStatus::Responded(response.status),
                    stdout_truncated: response.body.truncated,
                    stdout: response.body.bytes,
                    stderr: Vec::new(),
                    duration: Default::default(),
                },
                Err(PostError::TimedOut) => InProcessOutcome::of(RunStatus::TimedOut),
                // Node's words for it, as Claude Code reports them (`connect ECONNREFUSED …`).
                Err(PostError::Unreachable(cause)) => InProcessOutcome::of(RunStatus::Failed(
                    HookFailure::new(HookFailureKind::Unreachable, cause),
                )),
            }
        }),
    }
}

fn allowed(hook: &HttpHook, policy: &HttpPolicy, var: &str) -> bool {
    hook.allowed_env_vars.iter().any(|v| v == var) && policy.allows_env_var(var)
}

/// `$VAR` and `${VAR}` in `value` replaced by `lookup(VAR)`, empty where it gives nothing.
fn interpolate(value: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, tail) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (&braced[..end], &braced[end + 1..]),
                None => ("", after),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        out.push_str(&lookup(name).unwrap_or_default());
        rest = tail;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_variables_are_interpolated() {
        let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_string());
        assert_eq!(interpolate("Bearer $TOKEN", lookup), "Bearer s3cret");
        assert_eq!(interpolate("Bearer ${TOKEN}!", lookup), "Bearer s3cret!");
        assert_eq!(interpolate("x-$HOME-y", lookup), "x--y");
        assert_eq!(interpolate("cost: $5", lookup), "cost: ");
        assert_eq!(interpolate("just $", lookup), "just $");
        assert_eq!(interpolate("${unclosed", lookup), "${unclosed");
    }
}
