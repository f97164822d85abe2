//! Which hook commands may run warm: those the engine can prove are "this Python interpreter runs
//! this script with these arguments", and exactly which interpreter the shell would have started.
//!
//! The shaping decision: **prove it or spawn.** The command is read as `/bin/sh` would read a
//! simple command — words, single and double quotes, backslashes, `$NAME` and `${NAME}` — and
//! anything else the shell would interpret (pipes, redirections, `;`, globs, `~`, command
//! substitution, assignments, interpreter options) makes the hook spawn as before, with the
//! reason recorded. The interpreter must be a real executable found the way `execvp` finds it; a
//! wrapper script in its place is not proven and spawns, except a pyenv shim, whose choice of
//! version is reproduced (`pyenv`). A bare program name is looked up in `PATH` and its `#!` line
//! read (a Python console script), unless it names a common program that never is one.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use hookbridge_core::shell_words::{simple_command, NotSimple};

use super::super::Program;
use super::NotWarm;

/// A hook command proven to be a plain Python run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonRun {
    /// The interpreter, absolute, as the shell would find it (not resolved through symlinks: a
    /// virtualenv's `python` is a symlink whose location is what makes it the virtualenv's).
    pub interpreter: PathBuf,
    /// The interpreter as written (`python3`, or a path), for `sys.orig_argv`.
    pub interpreter_as_written: String,
    /// What it runs.
    pub target: Target,
    /// The arguments after the script or module.
    pub args: Vec<String>,
    /// `interpreter` is a pyenv shim with this root, still to be seen through (see `pyenv`).
    pub pyenv_root: Option<PathBuf>,
}

/// What a Python run runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A script file: as written (`sys.argv[0]`) and absolute (`__file__`).
    Script { as_written: String, path: PathBuf },
    /// `-m module`: the module's name.
    Module(String),
}

/// Reads `program` as a Python run, with `lookup` giving a variable's value as the hook's shell
/// would see it and `cwd` the hook's working directory.
pub fn python_run(
    program: &Program,
    lookup: &dyn Fn(&str) -> Option<OsString>,
    cwd: &Path,
) -> Result<PythonRun, NotWarm> {
    let Program::Shell { command } = program else {
        return Err(NotWarm::NotAShellCommand);
    };
    let words = shell_words(command, lookup)?;
    let Some(first) = words.first() else {
        return Err(NotWarm::NotPython);
    };
    let path_var = lookup("PATH");
    if is_python_name(file_name(first)) {
        let (interpreter, pyenv_root) = find_program(first, path_var.as_deref(), cwd)?;
        let Some(script) = words.get(1) else {
            return Err(NotWarm::NotPython);
        };
        let (target, args) = match (script.as_str(), words.get(2)) {
            ("-m", Some(module)) if is_module_name(module) => (Target::Module(module.clone()), &words[3..]),
            (option, _) if option.starts_with('-') => {
                return Err(NotWarm::InterpreterOption(option.to_string()))
            }
            _ => (
                Target::Script {
                    as_written: script.clone(),
                    path: script_file(script, cwd)?,
                },
                &words[2..],
            ),
        };
        return Ok(PythonRun {
            interpreter,
            interpreter_as_written: first.clone(),
            target,
            args: args.to_vec(),
            pyenv_root,
        });
    }
    // A script run directly: the kernel reads its `#!` line. A bare name (a package's console
    // script, `my-guard check`) is found in PATH as the shell finds it, and the kernel is given
    // the path the shell built.
    let script_as_written = if first.contains('/') {
        first.clone()
    } else if NEVER_PYTHON.contains(&first.as_str()) {
        // The usual hook commands (`bash x.sh`, `node x.js`, `jq …`) cost no PATH walk.
        return Err(NotWarm::NotPython);
    } else {
        script_on_path(first, path_var.as_deref())?
    };
    let script = script_file(&script_as_written, cwd)?;
    if !is_executable(&script) {
        return Err(NotWarm::Script(format!("{first} is not executable")));
    }
    let (interpreter_as_written, (interpreter, pyenv_root)) =
        shebang_interpreter(&script, path_var.as_deref(), cwd)?;
    Ok(PythonRun {
        interpreter,
        interpreter_as_written,
        target: Target::Script {
            as_written: script_as_written,
            path: script,
        },
        args: words[1..].to_vec(),
        pyenv_root,
    })
}

/// Programs hooks commonly start by bare name that are never a Python console script: shells,
/// other languages' runtimes and package runners, and common tools. Only a shortcut: a name not
/// listed is looked up in `PATH` and read.
const NEVER_PYTHON: &[&str] = &[
    "bash",
    "sh",
    "dash",
    "zsh",
    "ksh",
    "fish",
    "node",
    "nodejs",
    "deno",
    "bun",
    "npx",
    "npm",
    "pnpm",
    "yarn",
    "ruby",
    "perl",
    "php",
    "pwsh",
    "go",
    "java",
    "jq",
    "git",
    "uv",
    "uvx",
    "cat",
    "tee",
    "grep",
    "sed",
    "awk",
    "curl",
    "osascript",
    "notify-send",
    "terminal-notifier",
];

/// dash's builtins: a command word that names one runs the builtin, whatever PATH holds.
const SHELL_BUILTINS: &[&str] = &[
    ".", ":", "[", "alias", "bg", "break", "cd", "chdir", "command", "continue", "echo", "eval", "exec",
    "exit", "export", "false", "fc", "fg", "getopts", "hash", "jobs", "kill", "local", "printf", "pwd",
    "read", "readonly", "return", "set", "shift", "test", "times", "trap", "true", "type", "ulimit", "umask",
    "unalias", "unset", "wait",
];

/// Where the shell finds the program `name` (no slash): `dir/name` for the first absolute `PATH`
/// entry that has it as an executable file. An entry that is empty or relative, or a builtin,
/// is not followed (the hook spawns).
fn script_on_path(name: &str, path_var: Option<&std::ffi::OsStr>) -> Result<String, NotWarm> {
    if SHELL_BUILTINS.contains(&name) {
        return Err(NotWarm::NotPython);
    }
    let path_var = path_var.ok_or(NotWarm::Variable("PATH".into()))?;
    for dir in path_var.as_bytes().split(|&b| b == b':') {
        let dir = std::str::from_utf8(dir).map_err(|_| NotWarm::NotUtf8)?;
        if !dir.starts_with('/') {
            return Err(NotWarm::Script(format!(
                "PATH has a relative entry (`{dir}`) before {name} is found"
            )));
        }
        let candidate = format!("{dir}/{name}");
        let path = Path::new(&candidate);
        if path.is_file() && is_executable(path) {
            return Ok(candidate);
        }
    }
    // Not found: the hook fails as it would have; nothing says it is Python.
    Err(NotWarm::NotPython)
}

/// A dotted module name as `-m` takes it (`pkg.hooks.guard`).
fn is_module_name(name: &str) -> bool {
    name.split('.').all(|part| {
        part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `python`, `python3`, `python3.12`: names that mean a CPython interpreter.
fn is_python_name(name: &str) -> bool {
    let Some(version) = name.strip_prefix("python") else {
        return false;
    };
    version.is_empty()
        || (version.starts_with(|c: char| c.is_ascii_digit())
            && version.chars().all(|c| c.is_ascii_digit() || c == '.')
            && !version.ends_with('.'))
}

fn file_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The interpreter of a `#!/path/python3` or `#!/usr/bin/env python3` line (no options).
fn shebang_interpreter(
    script: &Path,
    path_var: Option<&std::ffi::OsStr>,
    cwd: &Path,
) -> Result<(String, (PathBuf, Option<PathBuf>)), NotWarm> {
    let mut head = [0u8; 256];
    let read = std::fs::File::open(script)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| NotWarm::Script(e.to_string()))?;
    let head = &head[..read];
    let Some(rest) = head.strip_prefix(b"#!") else {
        return Err(NotWarm::NotPython);
    };
    let line = rest.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = std::str::from_utf8(line).map_err(|_| NotWarm::NotUtf8)?;
    let parts: Vec<&str> = line.split_ascii_whitespace().collect();
    match parts.as_slice() {
        [env, name] if file_name(env) == "env" && is_python_name(name) => {
            Ok((name.to_string(), find_program(name, path_var, cwd)?))
        }
        [interpreter] if is_python_name(file_name(interpreter)) => {
            Ok((interpreter.to_string(), find_program(interpreter, None, cwd)?))
        }
        [_, option, ..] if option.starts_with('-') => Err(NotWarm::InterpreterOption(option.to_string())),
        _ => Err(NotWarm::NotPython),
    }
}

fn script_file(word: &str, cwd: &Path) -> Result<PathBuf, NotWarm> {
    // As CPython makes `__file__` absolute: joined to the working directory, not normalized.
    let path = if word.starts_with('/') {
        PathBuf::from(word)
    } else {
        cwd.join(word)
    };
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => Ok(path),
        Ok(_) => Err(NotWarm::Script(format!("{word} is not a regular file"))),
        Err(e) => Err(NotWarm::Script(format!("{word}: {e}"))),
    }
}

/// `word` made absolute against `cwd`, with `.` and `..` folded but symlinks kept: where the
/// interpreter is, as its own `sys.executable` computation finds it.
fn absolute(word: &str, cwd: &Path) -> PathBuf {
    let joined = if word.starts_with('/') {
        PathBuf::from(word)
    } else {
        cwd.join(word)
    };
    let mut out = PathBuf::from("/");
    for part in joined.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(p) => out.push(p),
            _ => {}
        }
    }
    out
}

/// Finds `word` as `execvp` would: as a path when it has a slash, else in `PATH`. The result must
/// be an executable ELF binary, or a pyenv shim (returned with pyenv's root, to be seen through):
/// any other script in its place would choose the interpreter itself.
fn find_program(
    word: &str,
    path_var: Option<&std::ffi::OsStr>,
    cwd: &Path,
) -> Result<(PathBuf, Option<PathBuf>), NotWarm> {
    let candidates: Vec<PathBuf> = if word.contains('/') {
        vec![absolute(word, cwd)]
    } else {
        let search = path_var
            .map(|p| p.as_bytes().to_vec())
            .unwrap_or_else(|| b"/bin:/usr/bin".to_vec());
        search
            .split(|&b| b == b':')
            .map(|dir| {
                let dir = std::str::from_utf8(if dir.is_empty() { b"." } else { dir }).unwrap_or("\u{0}");
                absolute(dir, cwd).join(word)
            })
            .collect()
    };
    for candidate in candidates {
        if !is_executable(&candidate) || !candidate.is_file() {
            continue;
        }
        let mut head = Vec::with_capacity(1024);
        let read = std::fs::File::open(&candidate).and_then(|f| f.take(1024).read_to_end(&mut head));
        if read.is_ok() && head.starts_with(b"\x7fELF") {
            return Ok((candidate, None));
        }
        if let Some(root) = super::pyenv::shim_root(&candidate, &head) {
            return Ok((candidate, Some(root)));
        }
        return Err(NotWarm::Interpreter(format!(
            "{} is a script, not the interpreter itself (a wrapper chooses the interpreter)",
            candidate.display()
        )));
    }
    Err(NotWarm::Interpreter(format!("{word} not found")))
}

fn is_executable(path: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access(2) reads a NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
}

/// The words of a simple command, as `sh` would pass them to `execve`; `Err` for anything the
/// shell would do more with, leading assignments included (they change the environment).
fn shell_words(command: &str, lookup: &dyn Fn(&str) -> Option<OsString>) -> Result<Vec<String>, NotWarm> {
    let command = simple_command(command, lookup).map_err(|why| match why {
        NotSimple::Syntax(c) => NotWarm::ShellSyntax(c),
        NotSimple::Variable(name) => NotWarm::Variable(name),
        NotSimple::NotUtf8 => NotWarm::NotUtf8,
    })?;
    if !command.assignments.is_empty() {
        return Err(NotWarm::ShellSyntax('='));
    }
    Ok(command.words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_simple_command_without_assignments_is_read() {
        let lookup = |name: &str| (name == "DIR").then(|| OsString::from("/project"));
        assert_eq!(
            shell_words("python3 \"$DIR/h.py\"", &lookup).unwrap(),
            ["python3", "/project/h.py"]
        );
        for (command, why) in [
            ("A=1 python3 h.py", NotWarm::ShellSyntax('=')),
            ("python3 h.py | jq .", NotWarm::ShellSyntax('|')),
            ("python3 $UNSET/h.py", NotWarm::Variable("UNSET".into())),
        ] {
            assert_eq!(shell_words(command, &lookup).unwrap_err(), why, "{command}");
        }
    }

    #[test]
    fn a_bare_name_is_found_as_the_shell_finds_it() {
        let path = |p: &str| Some(std::ffi::OsString::from(p));
        assert_eq!(
            script_on_path("sh", path("/nonexistent:/bin/").as_deref()).unwrap(),
            "/bin//sh"
        );
        assert_eq!(
            script_on_path("test", path("/bin").as_deref()).unwrap_err(),
            NotWarm::NotPython
        );
        assert!(matches!(
            script_on_path("sh", path("bin:/bin").as_deref()),
            Err(NotWarm::Script(_))
        ));
        assert_eq!(
            script_on_path("no-such-program-here", path("/bin").as_deref()).unwrap_err(),
            NotWarm::NotPython
        );
        assert_eq!(
            script_on_path("sh", None).unwrap_err(),
            NotWarm::Variable("PATH".into())
        );
    }

    /// A listed program is refused before any lookup: here the PATH walk would have stopped at
    /// the relative entry with another reason.
    #[test]
    fn common_non_python_programs_cost_no_path_walk() {
        let lookup = |name: &str| (name == "PATH").then(|| OsString::from("bin:/usr/bin"));
        for command in ["bash hook.sh", "node hook.js", "jq -r .tool_name", "uvx guard"] {
            let program = Program::Shell {
                command: command.into(),
            };
            assert_eq!(
                python_run(&program, &lookup, Path::new("/")).unwrap_err(),
                NotWarm::NotPython,
                "{command}"
            );
        }
        let program = Program::Shell {
            command: "some-guard check".into(),
        };
        assert!(matches!(
            python_run(&program, &lookup, Path::new("/")),
            Err(NotWarm::Script(_))
        ));
    }

    #[test]
    fn python_names() {
        for name in ["python", "python3", "python3.12", "python2.7"] {
            assert!(is_python_name(name), "{name}");
        }
        for name in [
            "python3-config",
            "pythonw",
            "python3.",
            "py",
            "ipython",
            "python3.12-dbg",
        ] {
            assert!(!is_python_name(name), "{name}");
        }
    }
}
