//! The whole-process floor for `scripts/bench.sh`: the least a native program must do to run N
//! hooks the way `hookbridge run` does. It reads the payload on stdin, spawns N `/bin/sh -c CMD`
//! children at once with piped stdin and stdout, writes the payload to each and closes its stdin,
//! reads each stdout to EOF (discarding it), and waits for each. No runtime, no config, no output.
//!
//! Usage: `spawn_floor [N] [CMD]` — N defaults to 1, CMD to `true`.
//!
//! The payload is written to every child before any output is read, which is fine for payloads
//! that fit in a pipe buffer (64 KiB on Linux) — the benchmarks' payloads do. It is a yardstick,
//! not a hook runner.

use std::io::{self, Read, Write};
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let n: usize = match args.next().map(|a| a.parse()) {
        None => 1,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("spawn_floor: N must be a number: {e}");
            return ExitCode::from(64);
        }
    };
    let command = args.next().unwrap_or_else(|| "true".to_string());

    let mut payload = Vec::new();
    if let Err(e) = io::stdin().read_to_end(&mut payload) {
        eprintln!("spawn_floor: reading stdin: {e}");
        return ExitCode::FAILURE;
    }

    let mut children = Vec::with_capacity(n);
    for _ in 0..n {
        match Command::new("/bin/sh")
            .arg("-c")
            .arg(&command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
        {
            Ok(child) => children.push(child),
            Err(e) => {
                eprintln!("spawn_floor: spawning /bin/sh: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    for child in &mut children {
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(&payload); // EPIPE when the child exited first: fine
        }
    }
    let mut failed = false;
    for child in &mut children {
        if let Some(mut stdout) = child.stdout.take() {
            failed |= io::copy(&mut stdout, &mut io::sink()).is_err();
        }
        failed |= !child.wait().map(|s| s.success()).unwrap_or(false);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
