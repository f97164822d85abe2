//! `command` hooks: a child process, run by `/bin/sh -c` (shell form), directly (exec form, `args`)
//! or by PowerShell, with the payload on stdin.

use hookbridge_core::config::managed::SandboxUnavailable;
use hookbridge_core::config::{CommandHook, Sandbox, Shell};

use super::JobContext;
use std::path::{Path, PathBuf};

use crate::process::{ProcessSpec, Program, SandboxPlan};

/// The process that runs `command`, in `sandbox` (its own, raised to the managed policy's floor);
/// `plugin_data`: its plugin's `${CLAUDE_PLUGIN_DATA}` folder, if it is a plugin's.
pub(crate) fn process_spec(
    command: &CommandHook,
    sandbox: Option<&Sandbox>,
    plugin_data: Option<&Path>,
    ctx: JobContext<'_>,
) -> ProcessSpec {
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
    let mut env = ctx.env;
    // Where this machine cannot enforce the sandbox and the settings say to run without it, the
    // hook runs unsandboxed and says why; else the sandbox is made, and a kernel that cannot
    // enforce it fails the spawn (the hook is not run).
    let unsandboxed = sandbox
        .filter(|_| ctx.sandbox_floor.where_unavailable() == SandboxUnavailable::RunUnsandboxed)
        .and_then(|sandbox| crate::process::unenforceable(&sandbox.network));
    let sandbox = sandbox.filter(|_| unsandboxed.is_none()).map(|sandbox| {
        let given = |name: &str| {
            env.iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| PathBuf::from(v))
        };
        let project =
            given("CLAUDE_PROJECT_DIR").or_else(|| std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from));
        // What the hook protocol gives the hook to write: the env file, hookbridge's own variable
        // (dispatch's `hook_env`) or its host's, never a project's; and its plugin's data folder,
        // taken from where discovery put it, not from a variable (a project's plugins have a
        // folder of their own, so one named like the user's is never given the user's state).
        let data = plugin_data.filter(|dir| dir.is_absolute() && std::fs::create_dir_all(dir).is_ok());
        // Only a path that can be an env file (`env_file::usable`: a regular file with one link,
        // never a folder, whose rule would grant everything beneath it).
        // Nor one reached through a symlinked folder (`/x/link-to-home/.bash_profile`): the grant
        // would follow it to wherever it leads (red-team pass 11).
        let env_file = given("CLAUDE_ENV_FILE").filter(|path| {
            crate::env_file::usable(path).is_ok()
                && path
                    .parent()
                    .is_some_and(|parent| std::fs::canonicalize(parent).is_ok_and(|real| real == parent))
        });
        // The env file is often not there yet (Claude Code leaves it to the hook to make), and a
        // rule needs it there: it is made, empty, in the folder the host made for it (an empty
        // env file exports nothing), never through a symlink.
        if let Some(file) = &env_file {
            use std::os::unix::fs::OpenOptionsExt;
            let _ = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(file);
        }
        let granted: Vec<PathBuf> = env_file.into_iter().collect();
        let plan = SandboxPlan::new(
            sandbox,
            project.as_deref(),
            given("HOME").as_deref(),
            &granted,
            data,
        );
        if let Some(temp) = plan.temp_dir() {
            env.push(("TMPDIR".into(), temp.into()));
        }
        Box::new(match &ctx.sandbox_reads {
            Some(layers) => plan.sharing(layers),
            None => plan,
        })
    });
    ProcessSpec {
        program,
        cwd: ctx.cwd,
        env,
        stdin: ctx.stdin,
        timeout: ctx.timeout,
        output_cap: ctx.output_cap,
        stdout_spill_limit: ProcessSpec::DEFAULT_STDOUT_SPILL_LIMIT,
        kill_grace: ProcessSpec::DEFAULT_KILL_GRACE,
        leak_grace: ProcessSpec::DEFAULT_LEAK_GRACE,
        first_line: ctx.first_line,
        warm: command.warm && ctx.warm_allowed,
        sandbox,
        unsandboxed,
    }
}
