//! The matcher compiler (JavaScript regular expressions, as Claude Code reads them): any pattern
//! compiles or is refused, and matching never panics.
#![no_main]
use hookbridge_core::matcher::Matcher;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (pattern, query) = text.split_once('\n').unwrap_or((text, "Bash"));
    for extended in [false, true] {
        if let Ok(m) = Matcher::compile(Some(pattern), extended) {
            let _ = m.is_match(query);
        }
    }
});
