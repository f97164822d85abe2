//! hookbridge-core: the pure, synchronous heart of hookbridge.
//!
//! It owns everything that can be decided without running a process: the event names and their
//! payloads, the hook configuration (discovery, parsing, validation), Claude Code's matcher rules,
//! the interpretation of one hook's exit code and output, the merging of several hooks' answers
//! into one decision. Hosts live in crates of their own (hookbridge-amplifier). No I/O happens here except reading config files
//! during discovery, and no async runtime is involved: the runner crate drives processes and feeds
//! their results back into these types.

#![forbid(unsafe_code)]

pub mod config;
pub mod decision;
pub mod diagnostics;
pub mod env_paths;
pub mod event;
pub mod matcher;
pub mod mcp;
pub mod seed;
pub mod shell_words;
pub mod timeout;
pub mod tool_names;
pub mod trust;
