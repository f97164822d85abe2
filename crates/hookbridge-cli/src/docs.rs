//! `hookbridge completions <shell>`, `hookbridge man` and `hookbridge schema`: shell completion
//! scripts and a man page generated from the one clap definition of the command line, and the JSON
//! Schemas of a hooks file and of a hook's answer generated from the parser's and the output
//! checker's tables — none can drift from what it describes.

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

#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Which schema.
    #[arg(value_enum, default_value_t = SchemaOf::HooksFile)]
    of: SchemaOf,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum SchemaOf {
    /// A hooks file (`hooks.json`, settings' `hooks`), from the config parser's tables.
    HooksFile,
    /// A hook's JSON answer on stdout, from the output checker's tables.
    HookOutput,
}

/// Writes the JSON Schema `args` asks for to stdout.
pub fn schema(args: SchemaArgs) -> anyhow::Result<ExitCode> {
    let schema = match args.of {
        SchemaOf::HooksFile => hookbridge_core::config::hooks_file_schema(),
        SchemaOf::HookOutput => hookbridge_core::decision::output_schema::hook_output_schema(),
    };
    let text = serde_json::to_string_pretty(&schema)? + "\n";
    write_out(text.as_bytes())
}

fn write_out(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        other => other.context("writing to stdout").map(|()| ExitCode::SUCCESS),
    }
}
