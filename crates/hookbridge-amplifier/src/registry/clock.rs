//! The emit time as amplifier-core writes it (chrono's RFC 3339 with `+00:00`).

use std::time::{SystemTime, UNIX_EPOCH};

/// `now` as amplifier-core stamps it (see [`rfc3339_utc`]).
pub fn now_rfc3339() -> String {
    rfc3339_utc(SystemTime::now())
}

/// Formats `time` like chrono's `DateTime<Utc>::to_rfc3339()`, which amplifier-core uses:
/// `2026-11-21T23:51:44.219033671+00:00`. The fraction has 9, 6 or 3 digits, the fewest that
/// are exact, and is left out when the time is a whole second. The calendar is humantime's; a
/// clock set before 1970 (which humantime cannot write) reads as the epoch.
pub fn rfc3339_utc(time: SystemTime) -> String {
    let time = time.max(UNIX_EPOCH);
    // `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`: split off the nine digits and the `Z`.
    let full = humantime::format_rfc3339_nanos(time).to_string();
    let full = full.trim_end_matches('Z');
    let (seconds, fraction) = full.split_once('.').unwrap_or((full, ""));
    let fraction = match fraction.trim_end_matches('0').len() {
        0 => "",
        1..=3 => &fraction[..3],
        4..=6 => &fraction[..6],
        _ => fraction,
    };
    let dot = if fraction.is_empty() { "" } else { "." };
    format!("{seconds}{dot}{fraction}+00:00")
}
