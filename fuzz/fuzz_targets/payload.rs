//! The event payload parser (`hookbridge run`'s stdin): any bytes give a payload or an error, and
//! a payload's bytes for hooks are well-formed.
#![no_main]
use hookbridge_core::event::{EventName, EventPayload};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let event = EventName::KNOWN[data.first().copied().unwrap_or(0) as usize % EventName::KNOWN.len()].clone();
    if let Ok(payload) = EventPayload::parse(event, data) {
        let _ = payload.to_stdin_bytes();
        let _ = payload.match_query();
        let _ = payload.tool_call();
    }
});
