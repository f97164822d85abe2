//! The matcher compiler (JavaScript regular expressions, as Claude Code reads them): any pattern
//! compiles or is refused, and matching never panics.
//! The body is `targets::matcher` (fuzz/targets.rs), which the test suite also runs on every corpus file.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../targets.rs"]
mod targets;

fuzz_target!(|data: &[u8]| targets::matcher(data));
