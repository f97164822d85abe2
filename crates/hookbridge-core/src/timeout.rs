//! Timeouts as values checked once: a number of seconds from a config file, a flag or the
//! environment becomes a capped [`Duration`] where it is read, never a float converted later.
//!
//! The one design decision is the cap. `Duration::from_secs_f64(1e20)` panics, and a far-future
//! `Instant` overflows, so every timeout is held below [`MAX_TIMEOUT`] from the moment it is read
//! (as nextest's `far_future_duration`). Claude Code 2.1.328 takes `"timeout": 1e20` (also `1e308`,
//! `1e9`, `3000000`) without complaint and lets the hook run to its end: the file loads and the hook
//! is not cut short (measured with the oracle, PreToolUse hook sleeping 1 s then blocking). What it
//! does after 24.8 days cannot be measured in a test's time; the cap is 2³¹−1 ms, the longest delay
//! a JavaScript timer holds, so that nothing hookbridge does differs from Claude Code in any run that
//! ends within that time. `MAX_TIMEOUT` added to any `Instant` of a running process cannot overflow.

use std::time::Duration;

/// The longest timeout hookbridge applies: 2³¹−1 ms (24 days, 20 hours, 31 minutes).
pub const MAX_TIMEOUT: Duration = Duration::from_millis(i32::MAX as u64);

/// Why a number of seconds is not a timeout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeoutError {
    #[error("must be a positive number of seconds, found {0}")]
    NotPositive(String),
    #[error("must be a number of seconds, found `{0}`")]
    NotANumber(String),
}

/// A timeout as read: its capped duration, and whether the cap applied (worth a warning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout {
    pub duration: Duration,
    /// The value asked for more than [`MAX_TIMEOUT`].
    pub capped: bool,
}

impl Timeout {
    /// `secs` seconds, capped at [`MAX_TIMEOUT`]. Zero, negative, NaN and infinite values are
    /// errors (Claude Code's schema wants a positive number); a tiny positive value rounds down to
    /// nanoseconds as `Duration` does.
    pub fn from_secs(secs: f64) -> Result<Timeout, TimeoutError> {
        if !(secs.is_finite() && secs > 0.0) {
            return Err(TimeoutError::NotPositive(secs.to_string()));
        }
        if secs >= MAX_TIMEOUT.as_secs_f64() {
            return Ok(Timeout {
                duration: MAX_TIMEOUT,
                capped: secs > MAX_TIMEOUT.as_secs_f64(),
            });
        }
        // Below the cap: `from_secs_f64` cannot panic.
        Ok(Timeout {
            duration: Duration::from_secs_f64(secs),
            capped: false,
        })
    }

    /// A number of seconds written as text (a command-line flag, an environment variable such as
    /// `HOOKBRIDGE_MAX_TIMEOUT`): surrounding whitespace is ignored.
    pub fn parse(text: &str) -> Result<Timeout, TimeoutError> {
        let trimmed = text.trim();
        let secs: f64 = trimmed
            .parse()
            .map_err(|_| TimeoutError::NotANumber(trimmed.to_string()))?;
        Timeout::from_secs(secs)
    }
}

/// `secs` seconds as a capped [`Duration`]: the function the CLI calls for `--default-timeout`,
/// `--max-timeout` and `HOOKBRIDGE_*_TIMEOUT` (see [`Timeout::from_secs`]).
pub fn timeout_from_secs(secs: f64) -> Result<Duration, TimeoutError> {
    Timeout::from_secs(secs).map(|t| t.duration)
}

/// Text such as `"30"` or `"1e20"` as a capped [`Duration`] (see [`Timeout::parse`]).
pub fn parse_timeout(text: &str) -> Result<Duration, TimeoutError> {
    Timeout::parse(text).map(|t| t.duration)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn absurd_values_are_capped_and_never_panic() {
        for secs in [1e20, 1e308, f64::MAX, 3e6, 1e9, MAX_TIMEOUT.as_secs_f64() * 2.0] {
            let t = Timeout::from_secs(secs).unwrap();
            assert_eq!(t.duration, MAX_TIMEOUT, "{secs}");
            assert!(t.capped, "{secs}");
            // The supervisor adds the timeout to a start instant: never an overflow.
            assert!(Instant::now().checked_add(t.duration).is_some());
        }
        assert_eq!(parse_timeout("1e20"), Ok(MAX_TIMEOUT));
        assert_eq!(timeout_from_secs(1e300), Ok(MAX_TIMEOUT));
    }

    #[test]
    fn ordinary_values_are_exact() {
        assert_eq!(timeout_from_secs(5.0), Ok(Duration::from_secs(5)));
        assert_eq!(timeout_from_secs(0.25), Ok(Duration::from_millis(250)));
        assert_eq!(parse_timeout(" 600 "), Ok(Duration::from_secs(600)));
        let at_cap = Timeout::from_secs(MAX_TIMEOUT.as_secs_f64()).unwrap();
        assert_eq!(
            at_cap,
            Timeout {
                duration: MAX_TIMEOUT,
                capped: false
            }
        );
    }

    #[test]
    fn non_positive_and_non_numbers_are_errors() {
        for secs in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0] {
            assert!(
                matches!(Timeout::from_secs(secs), Err(TimeoutError::NotPositive(_))),
                "{secs}"
            );
        }
        assert!(matches!(parse_timeout("soon"), Err(TimeoutError::NotANumber(_))));
        assert!(matches!(parse_timeout(""), Err(TimeoutError::NotANumber(_))));
        assert!(matches!(parse_timeout("inf"), Err(TimeoutError::NotPositive(_))));
    }
}
