//! The spans of one dispatched event, as an OTLP/HTTP JSON export request (pure).
//!
//! One span for the event, and one child span per hook that ran, built from the event's audit
//! lines ([`crate::audit::record`]) so that a span says what the record says and never more: no
//! environment values, header values, payloads or hook output.
//!
//! Names, as measured from Claude Code 2.1.328 and 2.1.332 (`claude_code.hook`, one INTERNAL span
//! per event's hooks; docs/audit.md): the event's span carries Claude Code's
//! `span.type`, `hook_event`, `hook_name` (`PreToolUse:Bash`), `num_hooks`, `num_success`,
//! `num_blocking`, `num_non_blocking_error`, `num_cancelled`, `duration_ms`, `session.id` and
//! `gen_ai.conversation.id`, and like Claude Code's it is an error only when a hook failed.
//! Claude Code has no span per hook; hookbridge adds one as a child, with `hook_type` (Claude
//! Code's word), the OpenTelemetry conventions' `process.exit.code`, `http.response.status_code`
//! and `gen_ai.tool.name`, and `hookbridge.*` for what only hookbridge knows (source, digest,
//! trust, how it ran, decision, reason).
//!
//! The encoding is OTLP's JSON mapping of `ExportTraceServiceRequest`: trace and span ids in hex,
//! times as decimal strings of Unix nanoseconds, enums and `intValue`s as numbers (as Claude Code
//! sends them).

use std::borrow::Cow;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::audit::record::{EventLine, HookLine};
use crate::audit::Line;

/// A trace id and the span a new span descends from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parent {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
}

impl Parent {
    /// W3C `traceparent` (`00-<trace id>-<parent id>-<flags>`), as a host passes it in the
    /// `TRACEPARENT` variable: the spans then join the host's trace.
    pub fn from_traceparent(text: &str) -> Option<Parent> {
        let mut parts = text.trim().split('-');
        let (version, trace, span, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if version.len() != 2
            || version == "ff"
            || flags.len() != 2
            || (version == "00" && parts.next().is_some())
        {
            return None;
        }
        let mut trace_id = [0u8; 16];
        let mut span_id = [0u8; 8];
        hex_into(trace, &mut trace_id)?;
        hex_into(span, &mut span_id)?;
        hex_into(flags, &mut [0u8; 1])?;
        (trace_id != [0; 16] && span_id != [0; 8]).then_some(Parent { trace_id, span_id })
    }
}

fn hex_into(text: &str, out: &mut [u8]) -> Option<()> {
    if text.len() != out.len() * 2
        || !text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(())
}

/// A trace id as OTLP/JSON and W3C trace context write it: 32 lowercase hex digits.
fn trace_hex(id: [u8; 16]) -> String {
    format!("{:032x}", u128::from_be_bytes(id))
}

/// A span id: 16 lowercase hex digits.
fn span_hex(id: [u8; 8]) -> String {
    format!("{:016x}", u64::from_be_bytes(id))
}

/// Where the ids of new spans come from (random in use; fixed in tests).
pub trait Ids {
    fn trace_id(&mut self) -> [u8; 16];
    fn span_id(&mut self) -> [u8; 8];
}

/// What describes the exporter in every request: `service.name` and the rest of the resource.
#[derive(Debug, Clone, Default)]
pub struct Resource {
    pub attributes: Vec<(String, String)>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportRequest {
    resource_spans: Vec<ResourceSpans>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceSpans {
    resource: ResourceJson,
    scope_spans: Vec<ScopeSpans>,
}

#[derive(Serialize)]
struct ResourceJson {
    attributes: Vec<KeyValue>,
}

#[derive(Serialize)]
struct ScopeSpans {
    scope: Scope,
    spans: Vec<Span>,
}

#[derive(Serialize)]
struct Scope {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Span {
    trace_id: String,
    span_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    parent_span_id: String,
    name: String,
    /// `SPAN_KIND_INTERNAL`.
    kind: u8,
    start_time_unix_nano: String,
    end_time_unix_nano: String,
    attributes: Vec<KeyValue>,
    status: Status,
}

#[derive(Serialize)]
struct Status {
    /// 0 unset, 1 ok, 2 error.
    code: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

#[derive(Serialize)]
struct KeyValue {
    key: Cow<'static, str>,
    value: AnyValue,
}

#[derive(Serialize)]
enum AnyValue {
    #[serde(rename = "stringValue")]
    String(String),
    #[serde(rename = "intValue")]
    Int(i64),
}

fn s(key: &'static str, value: impl Into<String>) -> KeyValue {
    KeyValue {
        key: Cow::Borrowed(key),
        value: AnyValue::String(value.into()),
    }
}

fn int(key: &'static str, value: i64) -> KeyValue {
    KeyValue {
        key: Cow::Borrowed(key),
        value: AnyValue::Int(value),
    }
}

fn nanos(at: SystemTime) -> String {
    at.duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos()
        .to_string()
}

fn after(start: SystemTime, ms: f64) -> SystemTime {
    start + Duration::from_secs_f64(ms.max(0.0) / 1000.0)
}

/// The export request for one event's `lines` (its hooks' lines, then the event's), which started
/// at `started`; its span is a child of `parent` when the host passed one.
pub fn export_request(
    lines: &[Line],
    started: SystemTime,
    parent: Option<Parent>,
    resource: &Resource,
    ids: &mut dyn Ids,
) -> Option<ExportRequest> {
    let event = lines.iter().find_map(|l| match l {
        Line::Event(e) => Some(e),
        Line::Hook(_) => None,
    })?;
    let hooks: Vec<&HookLine> = lines
        .iter()
        .filter_map(|l| match l {
            Line::Hook(h) => Some(h),
            Line::Event(_) => None,
        })
        .collect();
    let trace_id = parent.map_or_else(|| ids.trace_id(), |p| p.trace_id);
    let event_id = ids.span_id();
    let mut spans = vec![event_span(event, &hooks, started, trace_id, event_id, parent)];
    for hook in hooks {
        spans.push(hook_span(hook, started, trace_id, ids.span_id(), event_id));
    }
    Some(ExportRequest {
        resource_spans: vec![ResourceSpans {
            resource: ResourceJson {
                attributes: resource
                    .attributes
                    .iter()
                    .map(|(k, v)| KeyValue {
                        key: Cow::Owned(k.clone()),
                        value: AnyValue::String(v.clone()),
                    })
                    .collect(),
            },
            scope_spans: vec![ScopeSpans {
                scope: Scope {
                    name: "hookbridge",
                    version: env!("CARGO_PKG_VERSION"),
                },
                spans,
            }],
        }],
    })
}

/// Claude Code's `hook_name`: the event, and for a tool event the tool (`PreToolUse:Bash`).
fn hook_name(event: &str, tool: Option<&str>) -> String {
    match tool {
        Some(tool) => format!("{event}:{tool}"),
        None => event.to_string(),
    }
}

fn common(attributes: &mut Vec<KeyValue>, session: Option<&str>, event: &str, tool: Option<&str>) {
    attributes.push(s("span.type", "hook"));
    attributes.push(s("hook_event", event));
    attributes.push(s("hook_name", hook_name(event, tool)));
    if let Some(session) = session {
        attributes.push(s("session.id", session));
        attributes.push(s("gen_ai.conversation.id", session));
    }
    if let Some(tool) = tool {
        attributes.push(s("gen_ai.tool.name", tool));
    }
}

/// The span of one event's hooks, as Claude Code's `claude_code.hook` is: one per event, its
/// counts, its status an error only when a hook failed.
fn event_span(
    event: &EventLine,
    hooks: &[&HookLine],
    started: SystemTime,
    trace_id: [u8; 16],
    id: [u8; 8],
    parent: Option<Parent>,
) -> Span {
    let c = &event.common;
    let blocking = hooks.iter().filter(|h| crate::audit::blocks(h.decision)).count();
    let cancelled = hooks.iter().filter(|h| h.decision == "cancelled").count();
    let succeeded = hooks.len().saturating_sub(blocking + cancelled + event.failed);
    let mut attributes = Vec::with_capacity(16);
    common(&mut attributes, c.session.as_deref(), c.event, c.tool.as_deref());
    attributes.push(int("num_hooks", event.hooks as i64));
    attributes.push(int("num_success", succeeded as i64));
    attributes.push(int("num_blocking", blocking as i64));
    attributes.push(int("num_non_blocking_error", event.failed as i64));
    attributes.push(int("num_cancelled", cancelled as i64));
    attributes.push(int("duration_ms", event.duration_ms.round() as i64));
    attributes.push(s("hookbridge.host", c.host));
    attributes.push(s("hookbridge.outcome", event.outcome));
    if let Some(reason) = &event.reason {
        attributes.push(s("hookbridge.reason", reason.clone()));
    }
    attributes.push(int("hookbridge.num_skipped", event.skipped as i64));
    attributes.push(int("hookbridge.num_held", event.held as i64));
    Span {
        trace_id: trace_hex(trace_id),
        span_id: span_hex(id),
        parent_span_id: parent.map(|p| span_hex(p.span_id)).unwrap_or_default(),
        name: "hookbridge.hook".into(),
        kind: 1,
        start_time_unix_nano: nanos(started),
        end_time_unix_nano: nanos(after(started, event.duration_ms)),
        attributes,
        status: match event.failed {
            0 => Status {
                code: 0,
                message: None,
            },
            n => Status {
                code: 2,
                message: Some(format!("{n} hook(s) failed")),
            },
        },
    }
}

/// One hook's run, a child of its event's span (Claude Code has no span per hook).
fn hook_span(hook: &HookLine, started: SystemTime, trace_id: [u8; 16], id: [u8; 8], parent: [u8; 8]) -> Span {
    let c = &hook.common;
    let mut attributes = Vec::with_capacity(20);
    common(&mut attributes, c.session.as_deref(), c.event, c.tool.as_deref());
    attributes.push(s("hook_type", hook.hook.kind.name()));
    attributes.push(int("duration_ms", hook.duration_ms.round() as i64));
    match (hook.status, hook.code) {
        ("exited", Some(code)) => attributes.push(int("process.exit.code", i64::from(code))),
        ("responded", Some(code)) => attributes.push(int("http.response.status_code", i64::from(code))),
        _ => {}
    }
    attributes.push(s("hookbridge.hook.label", hook.hook.label.clone()));
    attributes.push(s("hookbridge.hook.source", hook.hook.source.clone()));
    if let Some(plugin) = hook.hook.plugin {
        attributes.push(s("hookbridge.hook.plugin", plugin));
    }
    attributes.push(s("hookbridge.hook.digest", hook.hook.digest));
    attributes.push(s("hookbridge.hook.trust", hook.trust));
    attributes.push(s("hookbridge.hook.ran", hook.ran.word()));
    attributes.push(s("hookbridge.hook.status", hook.status));
    if let Some(failure) = hook.failure {
        attributes.push(s("hookbridge.hook.failure", failure));
    }
    attributes.push(s("hookbridge.decision", hook.decision));
    if let Some(reason) = &hook.reason {
        attributes.push(s("hookbridge.reason", reason.clone()));
    }
    attributes.push(int("hookbridge.stdout_bytes", hook.stdout_bytes as i64));
    attributes.push(int("hookbridge.stderr_bytes", hook.stderr_bytes as i64));
    let failure = hook.failure();
    Span {
        trace_id: trace_hex(trace_id),
        span_id: span_hex(id),
        parent_span_id: span_hex(parent),
        name: "hookbridge.hook.run".into(),
        kind: 1,
        start_time_unix_nano: nanos(started),
        end_time_unix_nano: nanos(after(started, hook.duration_ms)),
        attributes,
        status: match failure {
            Some(_) => Status {
                code: 2,
                message: Some(hook.reason.clone().unwrap_or_else(|| hook.status.to_string())),
            },
            None => Status {
                code: 0,
                message: None,
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_is_read_as_w3c_says() {
        let p = Parent::from_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(trace_hex(p.trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(span_hex(p.span_id), "00f067aa0ba902b7");
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        ] {
            assert_eq!(Parent::from_traceparent(bad), None, "{bad}");
        }
        // A later version may add fields.
        assert!(
            Parent::from_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x").is_some()
        );
    }
}
