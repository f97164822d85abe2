//! OpenTelemetry: each dispatched event as a span, each of its hooks as a child span, sent to an
//! OTLP/HTTP endpoint when the standard `OTEL_*` variables ask for traces.
//!
//! - [`spans`]: the export request of one event, built from its audit lines (pure).
//! - [`Telemetry`]: the exporter the environment configures ([`Telemetry::from_env`]) and how its
//!   requests are shipped. Shipping never makes the agent wait for the export: a long-lived host
//!   posts from one background thread ([`Shipping::Thread`]); `hookbridge run`, which exits as soon as
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
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
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
    /// Posted, oldest first, by one background thread of this process, started with the first
    /// export (at most [`Telemetry::MAX_WAITING`] wait for it; past that an event's spans are
    /// dropped and said to be). A post that fails is said with the next event. For a host that
    /// outlives its events.
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
    /// [`Shipping::Thread`]'s thread, once started.
    poster: Mutex<Option<Poster>>,
}

/// The one thread that posts a long-lived host's export requests: a bounded queue into it, and
/// what went wrong since an event last said so.
#[derive(Debug)]
struct Poster {
    queue: SyncSender<Vec<u8>>,
    failed: Arc<Mutex<Failures>>,
}

/// The posts that failed since they were last said: the first one's reason, and how many more.
#[derive(Debug, Default)]
struct Failures {
    first: Option<String>,
    more: usize,
}

impl Failures {
    fn add(&mut self, why: String) {
        match self.first {
            None => self.first = Some(why),
            Some(_) => self.more += 1,
        }
    }

    /// The failures in one sentence, and none left.
    fn take(&mut self) -> Option<String> {
        let first = self.first.take()?;
        let more = std::mem::take(&mut self.more);
        Some(match more {
            0 => format!("OpenTelemetry: an earlier export failed: {first}"),
            n => format!(
                "OpenTelemetry: {} earlier exports failed, the first: {first}",
                n + 1
            ),
        })
    }
}

impl Poster {
    fn start(config: &OtelConfig) -> Result<Poster, String> {
        let (queue, requests) = sync_channel::<Vec<u8>>(Telemetry::MAX_WAITING);
        let failed = Arc::new(Mutex::new(Failures::default()));
        let (config, failures) = (config.clone(), failed.clone());
        std::thread::Builder::new()
            .name("hookbridge-otel".into())
            .spawn(move || {
                // Ends when the exporter is dropped and what it queued is posted.
                for body in requests {
                    if let Err(why) = config.post(&body) {
                        failures.lock().unwrap_or_else(|e| e.into_inner()).add(why);
                    }
                }
            })
            .map_err(|e| format!("OpenTelemetry: no thread to export with: {e}"))?;
        Ok(Poster { queue, failed })
    }
}

impl Telemetry {
    /// Export requests that may wait for [`Shipping::Thread`]'s thread.
    pub const MAX_WAITING: usize = 64;

    /// The exporter the environment configures, if any (see [`OtelConfig::from_env`]).
    pub fn from_env(host: &str, shipping: Shipping) -> Result<Option<Telemetry>, String> {
        Ok(OtelConfig::from_env()?.map(|config| Telemetry::new(host, config, shipping)))
    }

    pub fn new(host: &str, config: OtelConfig, shipping: Shipping) -> Telemetry {
        Telemetry {
            host: host.to_string(),
            config,
            shipping,
            poster: Mutex::default(),
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
            Shipping::Thread => self.queue(body),
            Shipping::Spool { dir, program, args } => spool::hand_over(dir, &body, program, args),
        }
    }

    /// Hands `body` to the posting thread (started if it is not running); says what failed since
    /// the last time, or that the queue is full.
    fn queue(&self, body: Vec<u8>) -> Result<(), String> {
        let mut slot = self.poster.lock().unwrap_or_else(|e| e.into_inner());
        let mut body = Some(body);
        // Twice at most: a thread that is gone (it panicked) is replaced once.
        for _ in 0..2 {
            let poster = match slot.as_mut() {
                Some(poster) => poster,
                None => slot.insert(Poster::start(&self.config)?),
            };
            let earlier = poster.failed.lock().unwrap_or_else(|e| e.into_inner()).take();
            let queued = match poster.queue.try_send(body.take().expect("sent once")) {
                Ok(()) => Ok(()),
                Err(TrySendError::Full(_)) => Err(format!(
                    "OpenTelemetry: {} exports are still waiting for {}; this event's spans were dropped",
                    Self::MAX_WAITING,
                    self.config.endpoint
                )),
                Err(TrySendError::Disconnected(lost)) => {
                    *slot = None;
                    body = Some(lost);
                    continue;
                }
            };
            return match (queued, earlier) {
                (Ok(()), None) => Ok(()),
                (Ok(()), Some(earlier)) => Err(earlier),
                (Err(now), None) => Err(now),
                (Err(now), Some(earlier)) => Err(format!("{now}; {earlier}")),
            };
        }
        Err("OpenTelemetry: the exporting thread stopped twice; this event's spans were dropped".into())
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
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    fn config(endpoint: String, timeout: Duration) -> OtelConfig {
        OtelConfig {
            endpoint,
            headers: vec![],
            timeout,
            resource: Resource { attributes: vec![] },
            parent: None,
        }
    }

    /// An OTLP endpoint on loopback that reads each request whole and answers `status`.
    fn endpoint_answering(status: u16) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream);
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let _ = write!(
                    reader.get_mut(),
                    "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                );
            }
        });
        url
    }

    #[test]
    fn a_failed_post_from_the_thread_is_said_with_the_next_event() {
        let telemetry = Telemetry::new(
            "amplifier",
            config(endpoint_answering(500), Duration::from_secs(10)),
            Shipping::Thread,
        );
        assert_eq!(telemetry.queue(b"{}".to_vec()), Ok(()));
        let failed = telemetry.poster.lock().unwrap().as_ref().unwrap().failed.clone();
        let waited = Instant::now();
        while failed.lock().unwrap().first.is_none() {
            assert!(
                waited.elapsed() < Duration::from_secs(10),
                "the post never failed"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(
            telemetry.queue(b"{}".to_vec()),
            Err("OpenTelemetry: an earlier export failed: the OTLP endpoint answered HTTP 500".into())
        );
    }

    #[test]
    fn one_thread_posts_and_past_its_queue_an_event_is_dropped_and_said() {
        // Takes the connection and never answers: the first post holds the thread.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let _held: Vec<_> = listener.incoming().collect();
        });
        let telemetry = Telemetry::new(
            "amplifier",
            config(url, Duration::from_secs(60)),
            Shipping::Thread,
        );
        let answers: Vec<_> = (0..Telemetry::MAX_WAITING + 2)
            .map(|_| telemetry.queue(b"{}".to_vec()))
            .collect();
        let queued = answers.iter().filter(|a| a.is_ok()).count();
        assert!(
            (Telemetry::MAX_WAITING..=Telemetry::MAX_WAITING + 1).contains(&queued),
            "{queued} queued (the thread may have taken one)"
        );
        let dropped = answers.last().unwrap().as_ref().unwrap_err();
        assert!(
            dropped.contains("64 exports are still waiting for http://127.0.0.1:")
                && dropped.ends_with("this event's spans were dropped"),
            "{dropped}"
        );
    }

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
