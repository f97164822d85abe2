//! `hookbridge completions <shell>`, `hookbridge man` and `hookbridge schema`: shell completion
//! scripts and a man page generated from the one clap definition of the command line, and the JSON
//! Schema of a hooks file generated from the parser's tables — none can drift from what it
//! describes.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Writes the completion script for `args.shell` to stdout, for `command`.
pub fn completions(args: CompletionsArgs, mut command: clap::Command) -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "hookbridge", &mut out);
    write_out(&out)
}

/// Writes the man page (roff) to stdout, for `command`.
pub fn man(command: clap::Command) -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut out)
        .context("rendering the man page")?;
    write_out(&out)
}

/// Writes the JSON Schema of a hooks file to stdout.
pub fn schema() -> anyhow::Result<ExitCode> {
    let text = serde_json::to_string_pretty(&hookbridge_core::config::hooks_file_schema())? + "\n";
    write_out(text.as_bytes())
}

fn write_out(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        other => other.context("writing to stdout").map(|()| ExitCode::SUCCESS),
    }
}
