//! `click-flatten`: prints a configuration with every compound element
//! expanded, in Click's canonical flat form.
#![forbid(unsafe_code)]

use clap::{ArgAction, Parser};
use rclick_cli::{flatten, parse_define, Source};

/// Flattens a Click router configuration.
#[derive(Parser, Debug)]
#[command(
    name = "click-flatten",
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Cli {
    /// Read the router configuration from FILE.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    file: Option<String>,
    /// Use EXPR as the router configuration.
    #[arg(
        short = 'e',
        long = "expression",
        visible_alias = "expr",
        value_name = "EXPR"
    )]
    expr: Option<String>,
    /// Write the output to FILE.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
    /// Print this message and exit.
    #[arg(long = "help", action = ArgAction::Help)]
    help: Option<bool>,
    /// The configuration file, and NAME=value definitions.
    #[arg(value_name = "ROUTERFILE | NAME=VALUE")]
    rest: Vec<String>,
}

fn main() {
    let cli = Cli::parse_from(std::env::args_os());
    let mut defines = Vec::new();
    let mut sources = Vec::new();
    if let Some(f) = cli.file {
        sources.push(Source::File(f));
    }
    if let Some(e) = cli.expr {
        sources.push(Source::Expr(e));
    }
    for a in cli.rest {
        match parse_define(&a) {
            Some(d) => defines.push(d),
            None => sources.push(Source::File(a)),
        }
    }
    if sources.len() > 1 {
        eprintln!("click-flatten: router configuration specified twice");
        std::process::exit(1);
    }
    let source = sources.pop().unwrap_or(Source::File("-".into()));
    std::process::exit(flatten(source, &defines, cli.output.as_deref()));
}
