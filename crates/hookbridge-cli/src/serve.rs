//! `hookbridge serve`: this user's warm Python services (see the runner's `process::warm`).
//! Services start on first use by themselves; this command shows them (`--status`), stops them
//! (`--stop`), or starts one ahead of time for an interpreter.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use hookbridge_runner::process::warm::{self, WarmMode};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Show the running services (socket, pid, interpreter, runs so far).
    #[arg(long, conflicts_with_all = ["stop", "python"])]
    status: bool,
    /// Stop every running service once the hooks it runs have ended (services also exit by
    /// themselves after 15 idle minutes).
    #[arg(long, conflicts_with = "python")]
    stop: bool,
    /// Start the service for this interpreter now (default: the `python3` found in PATH, which
    /// must be the interpreter itself, not a shim).
    #[arg(long, value_name = "INTERPRETER")]
    python: Option<PathBuf>,
}

pub fn serve(args: ServeArgs) -> Result<ExitCode> {
    if args.status {
        return status();
    }
    if args.stop {
        // Each service takes no more runs at once; the hooks it runs end as they would have
        // (their own timeouts bound that), and their answers reach their runs, before it exits.
        let mut stopping = Vec::new();
        for (socket, outcome) in warm::stop_services()? {
            match outcome {
                Ok(service) if service.running > 0 => {
                    println!(
                        "stopping {}: waiting for the {} hook(s) it runs to end",
                        socket.display(),
                        service.running
                    );
                    stopping.push((socket, service));
                }
                Ok(service) => stopping.push((socket, service)),
                Err(why) => println!("{}: {why}", socket.display()),
            }
        }
        for (socket, service) in stopping {
            // A service with no hook running exits at once; one with hooks, when they end.
            while !service.wait(Duration::from_secs(60)) {
                println!("still waiting for {} (pid {})", socket.display(), service.pid);
            }
            println!("stopped {}", socket.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let python = match args.python {
        Some(python) => python,
        None => which_python3()?,
    };
    let socket = warm::ensure_service(&python, Duration::from_secs(10))
        .with_context(|| format!("starting the warm service for {}", python.display()))?;
    println!(
        "warm service for {} listening on {}",
        python.display(),
        socket.display()
    );
    if WarmMode::from_env() == WarmMode::Off {
        println!(
            "note: hooks run warm only with {}=1 (or always) in the environment hookbridge runs in",
            WarmMode::VARIABLE
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn status() -> Result<ExitCode> {
    let mode = match WarmMode::from_env() {
        WarmMode::Off => "off",
        WarmMode::On => "on",
        WarmMode::Always => "always",
    };
    println!(
        "{}={mode} · services in {}",
        WarmMode::VARIABLE,
        warm::service_dir()?.display()
    );
    let services = warm::services()?;
    if services.is_empty() {
        println!("no warm services running");
    }
    for service in services {
        match service.answer {
            Ok(answer) => println!(
                "{}  pid {}  python {} ({})  runs {}  running now {}",
                service.socket.display(),
                answer["pid"],
                answer["python"].as_str().unwrap_or("?"),
                answer["version"].as_str().unwrap_or("?"),
                answer["runs"],
                answer["children"],
            ),
            Err(why) => println!("{}  not answering: {why}", service.socket.display()),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The first `python3` in PATH.
fn which_python3() -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("python3"))
        .find(|candidate| candidate.is_file())
        .context("no python3 in PATH; name the interpreter with --python")
}
