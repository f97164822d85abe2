//! The stdio transport: the server is a program started for the call, in its own process group in
//! the project, spoken to in newline-delimited JSON-RPC on its stdin and stdout; its whole group is
//! stopped when the call is answered or the time is up.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use hookbridge_core::decision::HookFailureKind::{Internal, TooLarge, Unreachable};
use serde_json::Value;

use super::{incoming, initialize, initialized, tools_call, CallError, Incoming, MAX_MESSAGE_BYTES};

/// A stdio server ready to start.
pub(super) struct StdioServer {
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    pub cwd: Option<PathBuf>,
    /// The sandbox it runs in, if any (see the module above).
    pub sandbox: Option<crate::process::SandboxPlan>,
}

/// The server's process group and whatever of its own left it, stopped when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        crate::process::kill_tree(self.0.id() as i32);
        let _ = self.0.wait();
    }
}

/// Start the server, initialize, call the tool; the `tools/call` result.
pub(super) fn call(
    server: &StdioServer,
    tool: &str,
    arguments: Value,
    deadline: Instant,
) -> Result<Value, CallError> {
    let mut command = Command::new(&server.command);
    command
        .args(&server.args)
        .envs(server.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    // A backstop for the group kill below: should this process die before the call ends, the
    // server is killed with it (the signal follows the death of the thread that started it).
    // SAFETY: prctl is async-signal-safe and touches only the child's own attributes.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    if let Some(cwd) = &server.cwd {
        command.current_dir(cwd);
    }
    if let Some(plan) = &server.sandbox {
        crate::process::confine_command(&mut command, plan).map_err(|e| {
            CallError::Failed(
                Unreachable,
                format!("could not start `{}` in its sandbox: {e}", server.command),
            )
        })?;
    }
    let mut child = command
        .spawn()
        .map_err(|e| CallError::Failed(Unreachable, format!("could not start `{}`: {e}", server.command)))?;
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let _running = Running(child);
    // Lines are read on a thread of their own, so a silent server cannot outlast the deadline; a
    // descendant that keeps the pipe open leaves only that thread waiting, never the hook. Each
    // line is bounded, and so is how many wait to be read: a server that floods cannot make this
    // process hold more than a few messages.
    let (lines, received) = mpsc::sync_channel::<Line>(4);
    std::thread::Builder::new()
        .name("hookbridge-mcp-read".into())
        .spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let line = match read_line(&mut reader, MAX_MESSAGE_BYTES) {
                    Ok(Some(line)) => Line::Message(line),
                    Ok(None) => break,
                    Err(too_long) => Line::TooLong(too_long),
                };
                let stop = matches!(line, Line::TooLong(_));
                if lines.send(line).is_err() || stop {
                    break;
                }
            }
        })
        .map_err(|e| CallError::Failed(Internal, format!("could not start a reader thread: {e}")))?;
    let mut send = |message: Value| -> Result<(), CallError> {
        let mut line = message.to_string();
        line.push('\n');
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| CallError::Failed(Unreachable, format!("the server stopped reading: {e}")))
    };
    send(initialize(1))?;
    answer(&received, 1, deadline, &mut send)?;
    send(initialized())?;
    send(tools_call(2, tool, arguments))?;
    answer(&received, 2, deadline, &mut send)
}

/// One line from the server, or what was wrong with it.
enum Line {
    Message(Vec<u8>),
    /// A line longer than a message may be (its length so far): the call fails.
    TooLong(u64),
}

/// The next line of `reader` without its newline, `None` at the end; a line longer than `limit`
/// is not kept (its length so far is the error).
fn read_line(reader: &mut impl BufRead, limit: u64) -> Result<Option<Vec<u8>>, u64> {
    let mut line = Vec::new();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => &[],
        };
        if available.is_empty() {
            return Ok((!line.is_empty()).then_some(line));
        }
        let (piece, done) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], Some(end + 1)),
            None => (available, None),
        };
        if line.len() as u64 + piece.len() as u64 > limit {
            return Err(line.len() as u64 + piece.len() as u64);
        }
        line.extend_from_slice(piece);
        let used = done.unwrap_or(piece.len());
        reader.consume(used);
        if done.is_some() {
            return Ok(Some(line));
        }
    }
}

/// The result of request `id`, answering the server's own requests on the way.
fn answer(
    received: &mpsc::Receiver<Line>,
    id: u64,
    deadline: Instant,
    send: &mut impl FnMut(Value) -> Result<(), CallError>,
) -> Result<Value, CallError> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match received.recv_timeout(left) {
            Ok(Line::Message(line)) => line,
            Ok(Line::TooLong(length)) => {
                return Err(CallError::Failed(TooLarge, format!(
                    "a message from the server is longer than {} MiB ({length} bytes read); the call was abandoned",
                    MAX_MESSAGE_BYTES >> 20
                )))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => return Err(CallError::TimedOut),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(CallError::Failed(Unreachable, "the server exited before it answered".into()))
            }
        };
        let Some(message) = super::message_of(&line)? else {
            continue; // not JSON-RPC (a log line on stdout): not ours to read
        };
        match incoming(&message, id) {
            Incoming::Answer(result) => return result,
            Incoming::Reply(reply) => send(reply)?,
            Incoming::Ignored => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded_and_read_without_their_newline() {
        let mut input: &[u8] = b"{\"a\":1}\nshort\n0123456789abc\nlast";
        assert_eq!(read_line(&mut input, 10).unwrap(), Some(b"{\"a\":1}".to_vec()));
        assert_eq!(read_line(&mut input, 10).unwrap(), Some(b"short".to_vec()));
        assert_eq!(read_line(&mut input, 10), Err(13));
        let mut rest: &[u8] = b"last";
        assert_eq!(read_line(&mut rest, 10).unwrap(), Some(b"last".to_vec()));
        assert_eq!(read_line(&mut rest, 10).unwrap(), None);
    }
}
