//! OpenTelemetry: each dispatched event as a span, each of its hooks as a child span, sent to an
//! OTLP/HTTP endpoint when the standard `OTEL_*` variables ask for traces.
//!
//! - [`spans`]: the export request of one event, built from its audit lines (pure).
//! - [`Telemetry`]: the exporter the environment configures ([`Telemetry::from_env`]) and how its
//!   requests are shipped. Shipping never makes the agent wait for the export: a long-lived host
//!   posts from a background thread ([`Shipping::Thread`]); `hookbridge run`, which exits as soon as
//!   it has answered, writes the request into a spool that one exporting process of its own drains
//!   and lingers on ([`Shipping::Spool`], [`spool`]) — with no standard output or error, so the
//!   host, which waits for the hook's streams to close, does not wait for it.
//!
//! Only traces, only OTLP over HTTP, always the JSON encoding (every OTLP/HTTP receiver must accept
//! it, whichever of `http/json` or `http/protobuf` is asked for); `grpc` is refused with a problem
//! report. Why not the `opentelemetry` crates: measured, they add 85 crates (tokio, hyper,
//! reqwest, tonic, prost) to the binary's 105 for what is one JSON POST per event over the
//! `ureq` agent hookbridge already has (docs/audit.md).

pub mod spans;
pub mod spool;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::audit::Line;
use spans::{Parent, Resource};

/// Where and how to export, as the `OTEL_*` variables say.
#[derive(Debug, Clone)]
pub struct OtelConfig {
    /// The traces URL (`…/v1/traces`).
    pub endpoint: String,
    /// Sent with every request; never written anywhere.
    pub headers: Vec<(String, String)>,
    pub timeout: Duration,
    pub resource: Resource,
    /// The host's span (`TRACEPARENT`), which the event spans join.
    pub parent: Option<Parent>,
}

/// The variables read, in the order of precedence per setting.
const ENDPOINT_VARS: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
];

fn var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn first_var(names: &[&str]) -> Option<String> {
    names.iter().find_map(|n| var(n))
}

/// `k=v,k2=v2`, values percent-decoded (the OpenTelemetry environment's list form).
fn pairs(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            let decode = |t: &str| {
                percent_encoding::percent_decode_str(t.trim())
                    .decode_utf8_lossy()
                    .into_owned()
            };
            let key = decode(k);
            (!key.is_empty()).then(|| (key, decode(v)))
        })
        .collect()
}

impl OtelConfig {
    /// The configuration the environment asks for: `Ok(None)` when it asks for no traces
    /// (`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER` without `otlp`, or no OTLP endpoint set);
    /// `Err` with a problem when it asks for what hookbridge cannot send (`grpc`).
    pub fn from_env() -> Result<Option<OtelConfig>, String> {
        // The common case, no OpenTelemetry at all, costs one lookup per variable.
        let Some(endpoint_var) = ENDPOINT_VARS.iter().find(|n| var(n).is_some()) else {
            return Ok(None);
        };
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        if let Some(exporters) = var("OTEL_TRACES_EXPORTER") {
            if !exporters.split(',').any(|e| e.trim() == "otlp") {
                return Ok(None);
            }
        }
        let protocol = first_var(&[
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
        ]);
        if let Some(p) = protocol.as_deref().filter(|p| !p.starts_with("http/")) {
            return Err(format!(
                "OpenTelemetry: the OTLP protocol {p:?} is not supported (hookbridge sends OTLP over \
                 HTTP: set OTEL_EXPORTER_OTLP_PROTOCOL=http/json); no spans are exported"
            ));
        }
        let raw = var(endpoint_var).unwrap_or_default();
        let endpoint = if *endpoint_var == "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" {
            raw
        } else {
            format!("{}/v1/traces", raw.trim_end_matches('/'))
        };
        match url::Url::parse(&endpoint) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => {
                return Err(format!(
                    "OpenTelemetry: {endpoint_var} is not an http(s) URL; no spans are exported"
                ))
            }
        }
        let mut headers = var("OTEL_EXPORTER_OTLP_HEADERS")
            .map(|h| pairs(&h))
            .unwrap_or_default();
        for (k, v) in var("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
            .map(|h| pairs(&h))
            .unwrap_or_default()
        {
            headers.retain(|(key, _)| !key.eq_ignore_ascii_case(&k));
            headers.push((k, v));
        }
        let timeout = first_var(&["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"])
            .and_then(|ms| ms.parse::<u64>().ok())
            .map_or(Duration::from_secs(10), Duration::from_millis)
            .min(Duration::from_secs(60));
        let mut attributes = var("OTEL_RESOURCE_ATTRIBUTES")
            .map(|a| pairs(&a))
            .unwrap_or_default();
        if let Some(name) = var("OTEL_SERVICE_NAME") {
            attributes.retain(|(k, _)| k != "service.name");
            attributes.push(("service.name".into(), name));
        }
        if !attributes.iter().any(|(k, _)| k == "service.name") {
            attributes.push(("service.name".into(), "hookbridge".into()));
        }
        attributes.push(("service.version".into(), env!("CARGO_PKG_VERSION").into()));
        Ok(Some(OtelConfig {
            endpoint,
            headers,
            timeout,
            resource: Resource { attributes },
            parent: var("TRACEPARENT").and_then(|t| Parent::from_traceparent(&t)),
        }))
    }

    /// POSTs one export request; `Err` says why it was not accepted.
    pub fn post(&self, body: &[u8]) -> Result<(), String> {
        use crate::model_api::{post_json, PostError, Redirects};
        let deadline = Instant::now() + self.timeout;
        let collector = crate::process::capture::Collector::new(64 * 1024, 0);
        match post_json(
            &self.endpoint,
            &self.headers,
            body,
            deadline,
            Redirects::Never,
            collector,
        ) {
            Ok(r) if (200..300).contains(&r.status) => Ok(()),
            Ok(r) => Err(format!("the OTLP endpoint answered HTTP {}", r.status)),
            Err(PostError::TimedOut) => Err(format!(
                "the OTLP endpoint did not answer within {:?}",
                self.timeout
            )),
            Err(PostError::Unreachable(why)) => Err(format!("the OTLP endpoint is unreachable: {why}")),
        }
    }
}

/// How export requests leave this process.
#[derive(Debug, Clone)]
pub enum Shipping {
    /// Posted from a background thread (at most [`Telemetry::MAX_IN_FLIGHT`] at once; past that a
    /// request is dropped and said to be). For a host that outlives its events.
    Thread,
    /// Written into the spool folder `dir` ([`spool::hand_over`]); `program args…` is started to
    /// export it unless an exporter already holds the folder (it runs [`spool::drain`]). For a
    /// process that exits once it has answered.
    Spool {
        dir: PathBuf,
        program: PathBuf,
        args: Vec<String>,
    },
}

/// An exporter: its configuration and its way of shipping.
#[derive(Debug)]
pub struct Telemetry {
    /// Who fired the events (`claude`, `amplifier`, …), as the audit log names it.
    pub host: String,
    pub config: OtelConfig,
    pub shipping: Shipping,
    in_flight: Arc<AtomicUsize>,
}

impl Telemetry {
    pub const MAX_IN_FLIGHT: usize = 8;

    /// The exporter the environment configures, if any (see [`OtelConfig::from_env`]).
    pub fn from_env(host: &str, shipping: Shipping) -> Result<Option<Telemetry>, String> {
        Ok(OtelConfig::from_env()?.map(|config| Telemetry::new(host, config, shipping)))
    }

    pub fn new(host: &str, config: OtelConfig, shipping: Shipping) -> Telemetry {
        Telemetry {
            host: host.to_string(),
            config,
            shipping,
            in_flight: Arc::default(),
        }
    }

    /// Ships the spans of one event (`lines`, which started at `started`); an `Err` is a problem
    /// to report, never a reason to change the event's answer.
    pub fn export(&self, lines: &[Line], started: SystemTime) -> Result<(), String> {
        let mut ids = RandomIds;
        let Some(request) = spans::export_request(
            lines,
            started,
            self.config.parent,
            &self.config.resource,
            &mut ids,
        ) else {
            return Ok(());
        };
        let body = serde_json::to_vec(&request).map_err(|e| format!("OpenTelemetry: {e}"))?;
        match &self.shipping {
            Shipping::Thread => {
                if self.in_flight.fetch_add(1, Ordering::AcqRel) >= Self::MAX_IN_FLIGHT {
                    self.in_flight.fetch_sub(1, Ordering::AcqRel);
                    return Err(format!(
                        "OpenTelemetry: {} exports are still waiting for {}; this event's spans were dropped",
                        Self::MAX_IN_FLIGHT,
                        self.config.endpoint
                    ));
                }
                let config = self.config.clone();
                let in_flight = self.in_flight.clone();
                std::thread::Builder::new()
                    .name("hookbridge-otel".into())
                    .spawn(move || {
                        // Nobody waits for this thread; a failure has no one to go to.
                        let _ = config.post(&body);
                        in_flight.fetch_sub(1, Ordering::AcqRel);
                    })
                    .map(drop)
                    .map_err(|e| format!("OpenTelemetry: no thread to export with: {e}"))
            }
            Shipping::Spool { dir, program, args } => spool::hand_over(dir, &body, program, args),
        }
    }
}

/// Random ids from the operating system.
struct RandomIds;

impl spans::Ids for RandomIds {
    fn trace_id(&mut self) -> [u8; 16] {
        let mut id = [0u8; 16];
        while id == [0; 16] {
            let _ = getrandom::fill(&mut id);
            if id == [0; 16] {
                id = fallback_bytes();
            }
        }
        id
    }

    fn span_id(&mut self) -> [u8; 8] {
        let mut id = [0u8; 8];
        while id == [0; 8] {
            let _ = getrandom::fill(&mut id);
            if id == [0; 8] {
                id.copy_from_slice(&fallback_bytes()[..8]);
            }
        }
        id
    }
}

/// Bytes that differ per call and per process, should the system's random source fail.
fn fallback_bytes() -> [u8; 16] {
    static COUNTER: AtomicUsize = AtomicUsize::new(1);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed) as u128;
    let t = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let mixed = t ^ (u128::from(std::process::id()) << 64) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    mixed.max(1).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_resource_lists_are_percent_decoded_pairs() {
        assert_eq!(
            pairs("api-key=a%20b, x=1=2 ,bad, =v"),
            [
                ("api-key".to_string(), "a b".to_string()),
                ("x".to_string(), "1=2".to_string())
            ]
        );
    }
}
