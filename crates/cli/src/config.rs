//! Layered settings of `signet serve`: a flag wins over its environment variable, which wins
//! over the TOML file given by `--config` (or `SIGNET_CONFIG`), which wins over the default.
//!
//! The file's keys are the long flags of `signet serve --help` (`timestamp-window` or
//! `timestamp_window`). Its settings are handed to clap as flags, for the settings no flag and no
//! environment variable gives, so that a value is parsed and checked the same way wherever it
//! comes from. `signet config check` prints the outcome with each value's source.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, Subcommand};
use signet_server::database::mask_url;

use crate::Cli;
use crate::serve::ServeArgs;

pub const ENV: &str = "SIGNET_CONFIG";

#[derive(Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    command: ConfigCommand,
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Print the settings `signet serve` would run with (the same flags, environment and
    /// --config file), each with where it came from, secrets masked; fail if they are invalid
    Check(ServeArgs),
}

/// Command lines with the configuration file's settings added.
pub struct Layered {
    pub argv: Vec<OsString>,
    /// The settings the file gave (clap ids).
    from_file: BTreeSet<String>,
    file: Option<PathBuf>,
}

/// Adds to `argv` the settings of the configuration file that no flag and no environment
/// variable gives, when the command is `serve` or `config check`.
pub fn layer(argv: Vec<OsString>) -> anyhow::Result<Layered> {
    let unchanged = |argv| Layered {
        argv,
        from_file: BTreeSet::new(),
        file: None,
    };
    let text: Vec<String> = argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let Some(at) = text
        .iter()
        .position(|a| a == "serve")
        .map(|i| i + 1)
        .or_else(|| text.windows(2).position(|w| w == ["config", "check"]).map(|i| i + 2))
    else {
        return Ok(unchanged(argv));
    };
    let Some(file) = flag_value(&text[at..], "config")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os(ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
    else {
        return Ok(unchanged(argv));
    };
    let content = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
    let table: toml::Table = content
        .parse()
        .with_context(|| format!("{} is not a TOML file of settings", file.display()))?;

    let mut command = Cli::command();
    command.build();
    let serve = command.find_subcommand("serve").expect("the serve command");
    let mut added = Vec::new();
    let mut from_file = BTreeSet::new();
    for (key, value) in &table {
        let long = key.replace('_', "-");
        let Some(arg) = serve
            .get_arguments()
            .find(|a| a.get_long() == Some(long.as_str()) && long != "config")
        else {
            bail!(
                "{}: unknown setting `{key}`; the settings are the long flags of `signet serve --help`",
                file.display()
            );
        };
        let given_as_flag = text[at..]
            .iter()
            .any(|a| *a == format!("--{long}") || a.starts_with(&format!("--{long}=")));
        let given_in_env = arg.get_env().is_some_and(|env| std::env::var_os(env).is_some());
        if given_as_flag || given_in_env {
            continue;
        }
        let takes_values = arg.get_action().takes_values();
        let values = match value {
            toml::Value::Boolean(on) if !takes_values => {
                if *on {
                    added.push(OsString::from(format!("--{long}")));
                }
                from_file.insert(arg.get_id().to_string());
                continue;
            }
            toml::Value::Array(items) => items.iter().map(scalar).collect::<Option<Vec<_>>>(),
            other => scalar(other).map(|v| vec![v]),
        };
        let Some(values) = values.filter(|_| takes_values) else {
            bail!("{}: `{key}` has a value of the wrong kind", file.display());
        };
        for v in values {
            added.push(OsString::from(format!("--{long}={v}")));
        }
        from_file.insert(arg.get_id().to_string());
    }
    let mut argv = argv;
    argv.splice(at..at, added);
    Ok(Layered {
        argv,
        from_file,
        file: Some(file),
    })
}

fn scalar(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The value of `--name VALUE` or `--name=VALUE`.
fn flag_value(args: &[String], name: &str) -> Option<String> {
    let flag = format!("--{name}");
    let mut args = args.iter();
    while let Some(a) = args.next() {
        if *a == flag {
            return args.next().cloned();
        }
        if let Some(value) = a.strip_prefix(&format!("{flag}=")) {
            return Some(value.to_owned());
        }
    }
    None
}

pub fn run(args: ConfigArgs, layered: &Layered, matches: &ArgMatches) -> anyhow::Result<()> {
    match args.command {
        ConfigCommand::Check(serve) => check(layered, matches, &serve),
    }
}

/// `signet config check`: every setting as a line of TOML (the output can serve as a file),
/// with its source, then whether the server would accept them.
pub fn check(layered: &Layered, matches: &ArgMatches, args: &ServeArgs) -> anyhow::Result<()> {
    let mut command = Cli::command();
    command.build();
    let serve = command.find_subcommand("serve").expect("the serve command");
    if let Some(file) = &layered.file {
        println!("# signet serve settings, with --config {}", file.display());
    } else {
        println!("# signet serve settings (no --config file)");
    }
    for arg in serve.get_arguments() {
        let id = arg.get_id().as_str();
        let Some(long) = arg.get_long() else { continue };
        if matches!(id, "help" | "version" | "config") {
            continue;
        }
        let key = long.replace('-', "_");
        let source = match matches.value_source(id) {
            Some(ValueSource::CommandLine) if layered.from_file.contains(id) => "file".to_owned(),
            Some(ValueSource::CommandLine) => "flag".to_owned(),
            Some(ValueSource::EnvVariable) => format!("env {}", arg.get_env().unwrap_or_default().to_string_lossy()),
            Some(ValueSource::DefaultValue) => "default".to_owned(),
            _ => {
                println!("# {key} (not set)");
                continue;
            }
        };
        let values: Vec<String> = if arg.get_action().takes_values() {
            let raw = matches.get_raw(id).into_iter().flatten();
            raw.map(|v| v.to_string_lossy().into_owned())
                .map(|v| if arg.is_hide_env_values_set() { mask_url(&v) } else { v })
                .map(|v| toml_value(&v))
                .collect()
        } else {
            vec![matches.get_flag(id).to_string()]
        };
        let shown = match values.as_slice() {
            [one] if !matches!(arg.get_action(), clap::ArgAction::Append) => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        println!("{key} = {shown}  # {source}");
    }
    let key = if std::env::var_os("SIGNET_MASTER_KEY").is_some() {
        "SIGNET_MASTER_KEY (hidden)"
    } else {
        "the key file (--master-key-file, or <db>.key beside a SQLite file)"
    };
    println!("# master key: {key}");
    let config = crate::serve::server_config(args)?;
    config.validate()?;
    config.validate_for_database(args.shared_database())?;
    println!("# valid");
    Ok(())
}

/// A number or a boolean as it is, anything else as a TOML string.
fn toml_value(raw: &str) -> String {
    if raw.parse::<i64>().is_ok() || raw.parse::<f64>().is_ok_and(f64::is_finite) || raw == "true" || raw == "false" {
        raw.to_owned()
    } else {
        toml::Value::String(raw.to_owned()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_toml() {
        assert_eq!(toml_value("300"), "300");
        assert_eq!(toml_value("1.5"), "1.5");
        assert_eq!(toml_value("127.0.0.1:8080"), "\"127.0.0.1:8080\"");
        assert_eq!(toml_value("a\"b"), "'a\"b'");
    }
}
