//! Bounded, whole-answer reading of what a hook gives back, the same for every kind of hook: a
//! process's stdout, an http endpoint's body, an MCP tool's text ([`Collector`]); and, for the
//! supervisor, one hook's pipe read as it becomes readable into its collector (`Capture`).
//!
//! The shaping decision: **a cap bounds memory, never the answer.** Up to `cap` bytes are kept in
//! memory; what comes after them goes to an unnamed temporary file (the page cache holds it, not
//! our heap), up to `spill_limit` bytes; when the output is a JSON answer (whitespace, then `{`),
//! the spilled rest is read back, so a 5 MB deny is read whole and still denies. Plain text past
//! the cap is cut, as Claude Code cuts what it shows. An answer larger than `cap + spill_limit`
//! stays marked `truncated`, and the core reads a truncated JSON answer as a failure of the hook
//! (which follows its `onFailure`), never as plain text that lets the action through.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use hookbridge_core::decision::answer_shaped;

use super::CapturedOutput;

/// One output being collected: kept up to `cap`, spilled past it up to `spill_limit`.
pub(crate) struct Collector {
    captured: CapturedOutput,
    cap: usize,
    /// Bytes past the cap that may be kept on disk (0: none).
    spill_limit: u64,
    /// Where they are, once the cap was passed.
    spill: Option<Spill>,
}

/// Output past the cap, in an unnamed temporary file.
struct Spill {
    file: File,
    len: u64,
    /// Writing failed (a full disk): what was kept so far is all there is.
    broken: bool,
}

impl Collector {
    pub(crate) fn new(cap: usize, spill_limit: u64) -> Collector {
        Collector {
            captured: CapturedOutput::default(),
            cap,
            spill_limit,
            spill: None,
        }
    }

    /// The most this collector can give back whole: the cap and the spill together.
    pub(crate) fn limit(&self) -> u64 {
        (self.cap as u64).saturating_add(self.spill_limit)
    }

    /// What is kept in memory so far.
    pub(crate) fn kept(&self) -> &[u8] {
        &self.captured.bytes
    }

    /// Records `chunk`: counted whole, kept up to the cap, spilled after it.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.captured.bytes.len());
        self.captured.keep(self.cap, chunk);
        if chunk.len() > room {
            self.spill_over(&chunk[room..]);
        }
    }

    /// Reads `reader` to its end, or until one byte past [`Collector::limit`] (the rest is not
    /// read: an endpoint that sends forever is cut off, and the answer marked truncated).
    pub(crate) fn read_from(&mut self, reader: impl Read) -> io::Result<()> {
        let mut reader = reader.take(self.limit().saturating_add(1));
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) => return Ok(()),
                Ok(n) => self.push(&buffer[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn spill_over(&mut self, bytes: &[u8]) {
        if self.spill_limit == 0 {
            return;
        }
        if self.spill.is_none() {
            self.spill = Some(match tempfile::tempfile() {
                Ok(file) => Spill {
                    file,
                    len: 0,
                    broken: false,
                },
                Err(_) => {
                    self.spill_limit = 0;
                    return;
                }
            });
        }
        let Some(spill) = self.spill.as_mut().filter(|s| !s.broken) else {
            return;
        };
        let take = bytes
            .len()
            .min(self.spill_limit.saturating_sub(spill.len) as usize);
        if take > 0 {
            match (&spill.file).write_all(&bytes[..take]) {
                Ok(()) => spill.len += take as u64,
                Err(_) => spill.broken = true,
            }
        }
    }

    /// What was collected. When the kept part is (the start of) a JSON answer — whitespace, then
    /// `{`, or whitespace only — the spilled rest is read back, so that an answer larger than the
    /// cap is still read whole.
    pub(crate) fn finish(mut self) -> CapturedOutput {
        let mut captured = std::mem::take(&mut self.captured);
        let Some(mut spill) = self.spill.take() else {
            return captured;
        };
        if answer_shaped(&captured.bytes) && spill.len > 0 {
            let kept = captured.bytes.len();
            captured.bytes.reserve_exact(spill.len as usize);
            let read_back = spill
                .file
                .seek(SeekFrom::Start(0))
                .and_then(|_| (&spill.file).take(spill.len).read_to_end(&mut captured.bytes));
            if read_back.is_err() {
                captured.bytes.truncate(kept);
            }
            captured.truncated = captured.total_len > captured.bytes.len() as u64;
        }
        captured
    }
}

/// Reads per pipe per wake-up, so that one flooding hook cannot hold the supervisor's loop.
const READS_PER_WAKE: usize = 16;

/// One output pipe and what has been collected from it.
pub(super) struct Capture {
    /// `None` once EOF (or a read error) was seen; dropping it closes our end.
    pipe: Option<File>,
    collected: Collector,
}

impl Capture {
    pub(super) fn new(pipe: File, cap: usize, spill_limit: u64) -> Self {
        Capture {
            pipe: Some(pipe),
            collected: Collector::new(cap, spill_limit),
        }
    }

    pub(super) fn is_open(&self) -> bool {
        self.pipe.is_some()
    }

    /// The pipe while it is open, to poll.
    pub(super) fn pipe(&self) -> Option<&File> {
        self.pipe.as_ref()
    }

    /// What is kept in memory so far.
    pub(super) fn kept(&self) -> &[u8] {
        self.collected.kept()
    }

    /// Adds `bytes` as if the pipe had given them (a line the runner writes on the hook's behalf).
    pub(super) fn push(&mut self, bytes: &[u8]) {
        self.collected.push(bytes);
    }

    /// A capture with nothing left to read, to take another's place.
    pub(super) fn closed() -> Self {
        Capture {
            pipe: None,
            collected: Collector::new(0, 0),
        }
    }

    /// Reads what the pipe holds now (at most a few chunks), keeping up to the cap and spilling
    /// what comes after it, up to the spill limit.
    pub(super) fn read_available(&mut self, buffer: &mut Vec<u8>) {
        for _ in 0..READS_PER_WAKE {
            let Some(pipe) = self.pipe.as_ref() else {
                return;
            };
            buffer.clear();
            match rustix::io::read(pipe, rustix::buffer::spare_capacity(buffer)) {
                Ok(0) => self.pipe = None,
                Ok(_) => self.collected.push(buffer),
                Err(rustix::io::Errno::INTR) => continue,
                Err(rustix::io::Errno::AGAIN) => return,
                Err(_) => self.pipe = None,
            }
        }
    }

    /// What was captured (see [`Collector::finish`]).
    pub(super) fn into_captured(self) -> CapturedOutput {
        self.collected.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(input: &[u8], cap: usize, spill: u64) -> CapturedOutput {
        let mut c = Collector::new(cap, spill);
        c.read_from(input).unwrap();
        c.finish()
    }

    #[test]
    fn a_json_answer_past_the_cap_is_read_whole_and_plain_text_is_cut() {
        let reason = "r".repeat(5000);
        let answer = format!("  {{\"decision\":\"block\",\"reason\":\"{reason}\"}}");
        let got = collect(answer.as_bytes(), 100, 1 << 20);
        assert_eq!(got.bytes, answer.as_bytes());
        assert!(!got.truncated);
        let plain = "p".repeat(5000);
        let got = collect(plain.as_bytes(), 100, 1 << 20);
        assert_eq!(got.bytes.len(), 100);
        assert!(got.truncated);
        assert_eq!(got.total_len, 5000);
    }

    #[test]
    fn an_answer_past_the_cap_and_the_spill_is_marked_truncated_and_not_read_on() {
        let answer = format!("{{\"reason\":\"{}\"}}", "r".repeat(10_000));
        let got = collect(answer.as_bytes(), 100, 1000);
        assert!(got.truncated);
        assert_eq!(got.bytes.len(), 1100);
        // Reading stops one byte past the limit: an endless body is not read to its end.
        assert_eq!(got.total_len, 1101);
    }
}
