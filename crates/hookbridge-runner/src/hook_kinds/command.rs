//! `command` hooks: a child process, run by `/bin/sh -c` (shell form), directly (exec form, `args`)
//! or by PowerShell, with the payload on stdin.

use hookbridge_core::config::{CommandHook, Shell};

use super::JobContext;
use crate::process::{ProcessSpec, Program};

/// The process that runs `command`.
pub(crate) fn process_spec(command: &CommandHook, ctx: JobContext<'_>) -> ProcessSpec {
    let program = match (&command.args, command.shell) {
        (Some(args), _) => Program::Exec {
            program: command.resolved_command.clone(),
            args: args.clone(),
        },
        (None, Shell::Default) => Program::Shell {
            command: command.resolved_command.clone(),
        },
        (None, Shell::PowerShell) => Program::Exec {
            program: "pwsh".into(),
            args: vec![
                "-NoProfile".into(),
                "-Command".into(),
                command.resolved_command.clone(),
            ],
        },
    };
    ProcessSpec {
        program,
        cwd: ctx.cwd,
        env: ctx.env,
        stdin: ctx.stdin,
        timeout: ctx.timeout,
        output_cap: ctx.output_cap,
        stdout_spill_limit: ProcessSpec::DEFAULT_STDOUT_SPILL_LIMIT,
        kill_grace: ProcessSpec::DEFAULT_KILL_GRACE,
        leak_grace: ProcessSpec::DEFAULT_LEAK_GRACE,
        first_line: ctx.first_line,
        warm: command.warm && ctx.warm_allowed,
    }
}
