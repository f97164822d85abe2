//! The diagnostics log: where problems go when the answer channel (stdout/stderr) belongs to the
//! agent host.
//!
//! Location: `$HOOKBRIDGE_LOG` if set, else `~/.amplifier/hookbridge/diagnostics.log`. One line per
//! problem, prefixed with a UTC timestamp and the event. The file is rotated to `.1` past 10 MiB.
//! Writing it must never fail the run: a log that cannot be written is ignored.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

const ROTATE_AT: u64 = 10 * 1024 * 1024;

pub fn path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HOOKBRIDGE_LOG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(
        PathBuf::from(home)
            .join(".amplifier")
            .join("hookbridge")
            .join("diagnostics.log"),
    )
}

/// Append `lines` (each one problem) to the log.
pub fn append(context: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let Some(path) = path() else { return };
    if let Some(parent) = path.parent() {
        let _ = fs::create_dir_all(parent);
    }
    if fs::metadata(&path).map(|m| m.len() > ROTATE_AT).unwrap_or(false) {
        let _ = fs::rename(&path, path.with_extension("log.1"));
    }
    let Ok(mut file) = OpenOptions::new().create(true).append(true).open(&path) else {
        return;
    };
    let stamp = timestamp();
    let mut text = String::new();
    for line in lines {
        for (i, part) in line.lines().enumerate() {
            text.push_str(&stamp);
            text.push(' ');
            text.push_str(context);
            text.push_str(if i == 0 { ": " } else { ":   " });
            text.push_str(part);
            text.push('\n');
        }
    }
    let _ = file.write_all(text.as_bytes());
}

/// Write to the controlling terminal, if there is one (never to stdout/stderr, which the host reads).
pub fn to_terminal(lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    if let Ok(mut tty) = OpenOptions::new().write(true).open("/dev/tty") {
        for line in lines {
            let _ = writeln!(tty, "hookbridge: {line}");
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` from the system clock (civil-from-days, no date crate needed).
fn timestamp() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
