//! Reading a config file a project controls, bounded: a regular file only (never a FIFO, socket
//! or device, which could block or never end), at most a fixed size, UTF-8. Every hooks file,
//! settings file and `.mcp.json` hookbridge reads goes through here.

use std::fs;
use std::path::Path;

/// The largest config file hookbridge reads (16 MiB): far above any real hooks file (a thousand
/// hooks take about 200 KiB), far below what would exhaust memory. An endless file (`/dev/zero`
/// behind a symlink is stopped earlier, as a device) is read no further than this.
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// The most events, matcher groups and hooks one hooks file holds (counted together): Claude Code
/// has 34 events and a real file a few dozen hooks. Past it the whole file is skipped (reported),
/// and the rest of it only skipped over: each hook costs some microseconds to read and pin, and a
/// file a repository controls must not make every event of its user wait seconds.
pub const MAX_ENTRIES_PER_FILE: usize = 10_000;

/// The most problems listed for one file; the rest are counted in one line (a file of a million
/// unknown keys would otherwise write a million lines to the diagnostics log on every event).
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;

/// What discovery reads from one hooks directory (a project's `.amplifier/hooks/`, the user's)
/// at most, for the same reason: the files' sizes together, their events, matcher groups and
/// hooks together, their plugin folders, and their listed problems. Past any of them the
/// directory's remaining files are not read (one error says so); the other directories are read
/// as ever, so a repository's cannot crowd out the user's own hooks.
pub const MAX_BYTES_PER_HOOKS_DIR: u64 = 4 * MAX_CONFIG_BYTES;
/// See [`MAX_BYTES_PER_HOOKS_DIR`].
pub const MAX_ENTRIES_PER_HOOKS_DIR: usize = 2 * MAX_ENTRIES_PER_FILE;
/// See [`MAX_BYTES_PER_HOOKS_DIR`]: a thousand plugins load in tens of milliseconds.
pub const MAX_PLUGINS_PER_HOOKS_DIR: usize = 2_000;
/// See [`MAX_BYTES_PER_HOOKS_DIR`].
pub const MAX_DIAGNOSTICS_PER_HOOKS_DIR: usize = 5 * MAX_DIAGNOSTICS_PER_FILE;

/// Why a config file that is there was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A directory, FIFO, socket or device: never read (a FIFO would block, a device may not end).
    #[error("not a regular file ({0}); ignored")]
    NotAFile(&'static str),
    #[error("larger than {} MiB, the most hookbridge reads from a config file; ignored", MAX_CONFIG_BYTES >> 20)]
    TooLarge,
    #[error("not valid UTF-8; ignored")]
    NotUtf8,
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// What a file that is not a regular file is, for messages.
fn file_kind(meta: &fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
    }
    Some("not a file")
}

/// Read an opened config file into `buffer`: one `fstat` to see that it is a regular file of a
/// sane size, then at most [`MAX_CONFIG_BYTES`] + 1 bytes (a file may grow while it is read).
pub(super) fn read_checked(file: fs::File, buffer: &mut Vec<u8>) -> Result<(), ReadError> {
    let meta = file.metadata()?;
    if let Some(kind) = file_kind(&meta) {
        return Err(ReadError::NotAFile(kind));
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(ReadError::TooLarge);
    }
    /// `File` without its size query (made above already): reads straight into the buffer.
    struct Plain(fs::File);
    impl std::io::Read for Plain {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf)
        }
    }
    buffer.reserve(meta.len() as usize + 1);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(Plain(file), MAX_CONFIG_BYTES + 1),
        buffer,
    )?;
    if buffer.len() as u64 > MAX_CONFIG_BYTES {
        return Err(ReadError::TooLarge);
    }
    Ok(())
}

/// The text of the file at `path`, read as a config file is (a regular file only, at most `max`
/// bytes, UTF-8): for the other files a hook's run depends on (a project's `.mcp.json`), so that
/// no file a project controls can exhaust memory or block on a FIFO.
pub fn read_bounded(path: &Path, max: u64) -> Result<String, ReadError> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    // Non-blocking: opening a FIFO returns at once (it is then refused as not a regular file).
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, rustix::fs::OFlags::NONBLOCK.bits() as i32);
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = file_kind(&meta) {
        return Err(ReadError::NotAFile(kind));
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge);
    }
    let mut buffer = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, max + 1), &mut buffer)?;
    if buffer.len() as u64 > max {
        return Err(ReadError::TooLarge);
    }
    String::from_utf8(buffer).map_err(|_| ReadError::NotUtf8)
}
