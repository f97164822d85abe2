//! Async (`async: true`) command hooks: started in the background and left running.
//!
//! Claude Code starts such a hook and moves on; its answer can only matter on a later turn, which a
//! one-shot `hookbridge run` does not have. So the hook is started in its own process group with the
//! payload on stdin from an anonymous temporary file (it can read at its own pace after hookbridge
//! has exited) and its output discarded; the start itself, or its failure, is reported.

use std::io::{Seek, SeekFrom, Write};
use std::process::{Command, Stdio};

use crate::process::{ProcessSpec, Program};

/// Start `spec`'s program detached from hookbridge.
pub fn spawn_detached(spec: &ProcessSpec) -> std::io::Result<()> {
    let mut stdin = tempfile::tempfile()?;
    stdin.write_all(&spec.stdin)?;
    stdin.seek(SeekFrom::Start(0))?;
    let mut command = match &spec.program {
        Program::Shell { command } => {
            let mut c = Command::new("/bin/sh");
            c.arg("-c").arg(command);
            c
        }
        Program::Exec { program, args } => {
            let mut c = Command::new(program);
            c.args(args);
            c
        }
    };
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    command.envs(spec.env.iter().map(|(k, v)| (k, v)));
    command
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn()?;
    // Reap it when it ends, so a long-lived host (the Python binding) leaves no zombies; a one-shot
    // `hookbridge run` exits first and the child is reparented to init.
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}
