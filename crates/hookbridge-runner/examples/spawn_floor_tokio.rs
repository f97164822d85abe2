//! A diagnostic floor for `scripts/bench.sh`: `spawn_floor 1` on an async runtime — a
//! current-thread tokio runtime with IO and timers, `tokio::process`, stdout and stderr piped, the
//! child in its own process group, one environment variable set — and nothing else. Compared with
//! `spawn_floor 1`, it shows what starting an async runtime costs a fresh process: the reason
//! hookbridge's runner supervises its hooks with a plain `poll(2)` loop instead
//! (`crates/hookbridge-runner/src/process/mod.rs`).
//!
//! Usage: `spawn_floor_tokio [CMD]` — CMD defaults to `true`.

use std::io::Read;
use std::process::{ExitCode, Stdio};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn main() -> ExitCode {
    let command = std::env::args().nth(1).unwrap_or_else(|| "true".to_string());
    let mut payload = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut payload) {
        eprintln!("spawn_floor_tokio: reading stdin: {e}");
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("spawn_floor_tokio: starting the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let spawned = tokio::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(&command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .env("CLAUDE_PROJECT_DIR", ".")
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                eprintln!("spawn_floor_tokio: spawning /bin/sh: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(&payload).await; // EPIPE when the child exited first: fine
        }
        let mut sink = Vec::new();
        let mut failed = false;
        if let Some(mut stdout) = child.stdout.take() {
            failed |= stdout.read_to_end(&mut sink).await.is_err();
        }
        if let Some(mut stderr) = child.stderr.take() {
            failed |= stderr.read_to_end(&mut sink).await.is_err();
        }
        failed |= !child.wait().await.map(|s| s.success()).unwrap_or(false);
        if failed {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    })
}
