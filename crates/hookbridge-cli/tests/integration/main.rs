//! The `hookbridge` binary's integration tests, in one test binary: each module one subject (its
//! opening says which), all sharing `common` (running the binary with a watchdog, the test
//! `Project`, the conformance harness, the fake model endpoints). One binary links once, where one
//! per file linked 29 times.
//!
//! Select a module with nextest's filters: `cargo nextest run -p hookbridge-cli -E 'test(/^trust::/)'`.

mod common;

mod async_background;
mod async_hooks;
mod audit_log;
mod binary;
mod cli_failsafe;
mod conformance;
mod docs_commands;
mod exit_codes;
mod host_amplifier;
mod host_codex;
mod host_gemini;
mod hostile_config;
mod install_into;
mod limits;
mod manage_plugins;
mod managed_policy;
mod mcp_tool_hooks;
mod migrate;
mod network_hooks;
mod run_faults;
mod runner_failsafe;
mod sandbox;
mod seed_dialect;
mod skill_shell_command;
mod snapshots;
mod telemetry;
mod test_command;
mod trust;
mod users_own_hooks;
