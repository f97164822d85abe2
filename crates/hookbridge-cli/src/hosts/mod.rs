//! Agents other than Claude Code whose hooks `hookbridge run --host <agent>` answers: each host is
//! one module that says how its events and payloads become Claude Code's, and how the merged
//! decision is answered in its terms. `run` does the rest (discovery, selection, dispatch) as for
//! Claude Code. Amplifier, a host that loads hookbridge as a library, has a crate of its own
//! (hookbridge-amplifier).

pub mod codex;
pub mod gemini;

/// An agent's event → Claude Code's event, and the matcher the event implies (Cursor's
/// `beforeShellExecution` is PreToolUse on `Bash`).
pub type EventTable = &'static [(&'static str, &'static str, Option<&'static str>)];
