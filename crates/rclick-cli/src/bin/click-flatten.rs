//! `click-flatten`: prints a configuration with every compound element
//! expanded, in Click's canonical flat form.
#![forbid(unsafe_code)]

use clap::{ArgAction, Parser};
use rclick_cli::{flatten, ConfigArgs, Source};

/// Flattens a Click router configuration.
#[derive(Parser, Debug)]
#[command(
    name = "click-flatten",
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Cli {
    #[command(flatten)]
    config: ConfigArgs,
    /// Write the output to FILE.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
    /// Print this message and exit.
    #[arg(long = "help", action = ArgAction::Help)]
    help: Option<bool>,
}

fn main() {
    let cli = Cli::parse_from(std::env::args_os());
    let (source, defines) = match cli.config.resolve() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("click-flatten: {e}");
            std::process::exit(1);
        }
    };
    let source = source.unwrap_or(Source::File("-".into()));
    std::process::exit(flatten(source, &defines, cli.output.as_deref()));
}
