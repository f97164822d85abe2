//! OpenTelemetry through `hookbridge run`: with the standard `OTEL_*` variables set, each event's
//! span and a child span per hook reach a loopback OTLP/HTTP receiver that decodes them; the
//! host's `TRACEPARENT` is joined; no secret travels; and the answer never waits for the export.

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::fake_model::{FakeServer, Received, Reply};
use common::project::Project;
use serde_json::{json, Value};

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

/// What the receiver got once `n` requests arrived (a hang guard bounds the wait, never a
/// measure of speed: the export is posted by a process `run` left behind).
fn wait_for(server: &FakeServer, n: usize) -> Vec<Received> {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let got = server.received();
        if got.len() >= n || Instant::now() > until {
            return got;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn attrs(span: &Value) -> serde_json::Map<String, Value> {
    span["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kv| {
            let v = &kv["value"];
            let value = v
                .get("stringValue")
                .or_else(|| v.get("intValue"))
                .or_else(|| v.get("doubleValue"))
                .cloned()
                .unwrap_or(Value::Null);
            (kv["key"].as_str().unwrap().to_string(), value)
        })
        .collect()
}

fn with_otel(mut cmd: Command, endpoint: &str) -> Command {
    cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer%20otel-sekret-header",
        )
        .env("OTEL_SERVICE_NAME", "guards")
        .env("OTEL_EXPORTER_OTLP_TIMEOUT", "5000")
        .env("TRACEPARENT", format!("00-{TRACE}-{PARENT}-01"));
    cmd
}

#[test]
fn each_event_is_a_span_and_each_hook_a_child_span_at_the_otlp_receiver() {
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: "{}".into(),
    });
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "echo 'no rm' >&2; exit 2"},
        {"type": "command", "command": "true"},
        {"type": "command", "command": "no-such-program-for-hookbridge-otel"},
    ]}]}}));
    let mut cmd = with_otel(p.command("PreToolUse", "claude"), &format!("{}/", server.url));
    cmd.env("SECRET_TOKEN", "env-sekret-value");
    let done = p.finish(cmd, &serde_json::to_vec(&p.payload("PreToolUse")).unwrap());
    assert_eq!(done.code, Some(2), "{}", done.stderr_str());
    assert_eq!(done.stderr_str(), "no rm\n");

    let got = wait_for(&server, 1);
    assert_eq!(got.len(), 1, "one export request per event: {got:#?}");
    let request = &got[0];
    assert_eq!(request.path, "/v1/traces");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("authorization"), Some("Bearer otel-sekret-header"));
    assert!(
        !request.raw_body.contains("sekret"),
        "no secret in the spans: {}",
        request.raw_body
    );

    let resource = &request.body["resourceSpans"][0];
    let service = attrs(&resource["resource"]);
    assert_eq!(service["service.name"], "guards");
    let scope = &resource["scopeSpans"][0];
    assert_eq!(scope["scope"]["name"], "hookbridge");
    let spans = scope["spans"].as_array().unwrap();
    assert_eq!(spans.len(), 4, "{spans:#?}");
    let event = &spans[0];
    assert_eq!(event["name"], "hookbridge.hook");
    assert_eq!(event["kind"], 1);
    assert_eq!(event["traceId"], TRACE, "the host's trace");
    assert_eq!(event["parentSpanId"], PARENT, "a child of the host's span");
    // Claude Code's names and types for the event's hooks (measured: claude_code.hook).
    let event_attrs = attrs(event);
    for (key, want) in [
        ("span.type", json!("hook")),
        ("hook_event", json!("PreToolUse")),
        ("hook_name", json!("PreToolUse:Bash")),
        ("num_hooks", json!(3)),
        ("num_success", json!(1)),
        ("num_blocking", json!(1)),
        ("num_non_blocking_error", json!(1)),
        ("num_cancelled", json!(0)),
        ("session.id", json!("contract-session")),
        ("gen_ai.conversation.id", json!("contract-session")),
        ("gen_ai.tool.name", json!("Bash")),
        ("hookbridge.outcome", json!("denied")),
        ("hookbridge.host", json!("claude")),
    ] {
        assert_eq!(event_attrs[key], want, "{key}: {event}");
    }
    assert!(event_attrs["duration_ms"].is_i64(), "{event}");
    assert_eq!(event["status"]["code"], 2, "a hook failed: {event}");
    assert_eq!(event["status"]["message"], "1 hook(s) failed");
    for hook in &spans[1..] {
        assert_eq!(hook["traceId"], TRACE);
        assert_eq!(hook["parentSpanId"], event["spanId"]);
        assert_eq!(hook["name"], "hookbridge.hook.run");
        assert_eq!(hook["kind"], 1);
        let start: u128 = hook["startTimeUnixNano"].as_str().unwrap().parse().unwrap();
        let end: u128 = hook["endTimeUnixNano"].as_str().unwrap().parse().unwrap();
        assert!(end >= start && start > 1_700_000_000_000_000_000, "{hook}");
        assert_eq!(hook["spanId"].as_str().unwrap().len(), 16);
    }
    let by_label = |label: &str| {
        spans[1..]
            .iter()
            .find(|s| attrs(s)["hookbridge.hook.label"] == label)
            .unwrap_or_else(|| panic!("no span for {label}: {spans:#?}"))
    };
    let blocker = attrs(by_label("echo 'no rm' >&2; exit 2"));
    assert_eq!(
        (
            blocker["hookbridge.decision"].clone(),
            blocker["process.exit.code"].clone(),
            blocker["hook_type"].clone()
        ),
        (json!("deny"), json!(2), json!("command"))
    );
    assert_eq!(blocker["hookbridge.reason"], "no rm");
    assert_eq!(blocker["hookbridge.hook.digest"].as_str().unwrap().len(), 64);
    assert_eq!(by_label("true")["status"]["code"], 0);
    let missing = by_label("no-such-program-for-hookbridge-otel");
    assert_eq!(
        missing["status"]["code"], 2,
        "a failed hook is an error span: {missing}"
    );
    assert_eq!(attrs(missing)["process.exit.code"], 127);
    // Without a traceparent, a trace of its own.
    let mut cmd = p.command("PreToolUse", "claude");
    cmd.env(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        format!("{}/custom/path", server.url),
    );
    p.finish(cmd, &serde_json::to_vec(&p.payload("PreToolUse")).unwrap());
    let got = wait_for(&server, 2);
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].path, "/custom/path", "a traces endpoint is used as it is");
    let event = &got[1].body["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
    assert_ne!(event["traceId"], TRACE);
    assert!(event.get("parentSpanId").is_none(), "{event}");
    assert_eq!(
        attrs(&got[1].body["resourceSpans"][0]["resource"])["service.name"],
        "hookbridge"
    );
}

#[test]
fn the_answer_never_waits_for_the_export() {
    // The receiver takes the request and answers only after ten minutes, so the exporting process
    // gives up after its 60 s timeout and says so in the diagnostics log before it exits. A run that
    // waited for it would find that line there when it returns; one that did not, cannot.
    let server = FakeServer::start(Reply::Slow(Duration::from_secs(600), "{}".into()));
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "echo 'no rm' >&2; exit 2"},
    ]}]}}));
    let mut cmd = with_otel(p.command("PreToolUse", "claude"), &server.url);
    cmd.env("OTEL_EXPORTER_OTLP_TIMEOUT", "60000");
    let done = p.finish(cmd, &serde_json::to_vec(&p.payload("PreToolUse")).unwrap());
    assert_eq!((done.code, done.stderr_str()), (Some(2), "no rm\n".to_string()));
    assert!(
        !p.log_text().contains("did not answer"),
        "the run waited for the export: {}",
        p.log_text()
    );
    assert_eq!(wait_for(&server, 1).len(), 1, "the spans were still sent");
}

#[test]
fn what_cannot_be_exported_is_said_and_what_is_switched_off_is_not_sent() {
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: "{}".into(),
    });
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "true"},
    ]}]}}));
    let payload = serde_json::to_vec(&p.payload("PreToolUse")).unwrap();
    for (var, value) in [("OTEL_SDK_DISABLED", "true"), ("OTEL_TRACES_EXPORTER", "none")] {
        let mut cmd = with_otel(p.command("PreToolUse", "claude"), &server.url);
        cmd.env(var, value);
        assert_eq!(p.finish(cmd, &payload).code, Some(0));
    }
    let mut cmd = with_otel(p.command("PreToolUse", "claude"), &server.url);
    cmd.env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc");
    let done = p.finish(cmd, &payload);
    assert_eq!(done.code, Some(0), "the answer stands");
    assert!(
        p.log_text()
            .contains("the OTLP protocol \"grpc\" is not supported"),
        "{}",
        p.log_text()
    );
    // An endpoint that refuses: said in the diagnostics log by the exporting process.
    let (refused, _held) = crate::common::refusing_url("");
    let done = p.finish(with_otel(p.command("PreToolUse", "claude"), &refused), &payload);
    assert_eq!(done.code, Some(0));
    let until = Instant::now() + Duration::from_secs(60);
    while !p
        .log_text()
        .contains("otel-export: OpenTelemetry: the OTLP endpoint is unreachable")
        && Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        p.log_text()
            .contains("otel-export: OpenTelemetry: the OTLP endpoint is unreachable"),
        "{}",
        p.log_text()
    );
    assert_eq!(server.received().len(), 0, "nothing was sent while switched off");
}

#[test]
fn concurrent_runs_share_the_spool_and_every_event_is_exported_once() {
    // 24 runs at once hand their spans to the spool of one configuration: whichever exporter
    // holds it posts them all, and a run that wrote while it was letting go is not lost.
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: "{}".into(),
    });
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "true"},
    ]}]}}));
    let payload = serde_json::to_vec(&p.payload("PreToolUse")).unwrap();
    let runs: Vec<_> = (0..24)
        .map(|_| {
            let mut cmd = with_otel(p.command("PreToolUse", "claude"), &server.url);
            cmd.env_remove("TRACEPARENT")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let mut child = cmd.spawn().unwrap();
            std::io::Write::write_all(&mut child.stdin.take().unwrap(), &payload).unwrap();
            child
        })
        .collect();
    for mut run in runs {
        assert!(run.wait().unwrap().success());
    }
    let got = wait_for(&server, 24);
    let traces: std::collections::BTreeSet<String> = got
        .iter()
        .map(|r| r.body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"].to_string())
        .collect();
    assert_eq!((got.len(), traces.len()), (24, 24), "one export per event");
    // Nothing is sent twice: the folder is empty once they are posted.
    let spool = p.home.join(".local/state/hookbridge/otel-spool");
    let folder = std::fs::read_dir(&spool).unwrap().next().unwrap().unwrap().path();
    let left: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "exporter.lock")
        .collect();
    assert_eq!(left, Vec::<String>::new(), "posted requests leave the spool");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.received().len(), 24, "no export twice");
    // The header's secret names the folder (a hash) but is never written.
    for entry in walk(&p.home) {
        let text = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&text).contains("otel-sekret-header"),
            "{} holds the header's secret",
            entry.display()
        );
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn the_exporter_removes_the_spool_of_a_configuration_untouched_for_a_day() {
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: "{}".into(),
    });
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "true"},
    ]}]}}));
    // Another endpoint's spool, one request still in it, untouched for two days.
    let old = p.home.join(".local/state/hookbridge/otel-spool/abcdefabcdefabcd");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("00000000000000000001-1-0.json"), "{}").unwrap();
    std::fs::File::open(&old)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(2 * 24 * 3600))
        .unwrap();
    let payload = serde_json::to_vec(&p.payload("PreToolUse")).unwrap();
    let done = p.finish(
        with_otel(p.command("PreToolUse", "claude"), &server.url),
        &payload,
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    wait_for(&server, 1);
    // The exporter sweeps once it has lingered after its last request: it removes the folder,
    // then says so in the log (wait for both: the line follows the removal).
    let said = "removed with the 1 export request(s) still waiting in it";
    let until = Instant::now() + Duration::from_secs(60);
    while (old.exists() || !p.log_text().contains(said)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!old.exists(), "the abandoned spool is still there");
    assert!(p.log_text().contains(said), "{}", p.log_text());
    assert_eq!(server.received().len(), 1, "the old request was not posted here");
}
