//! The CLI's error type: bad input (exit 2) or a failed write (exit 1).

use schedlab::InputError;
use std::fmt;

#[derive(Debug)]
pub enum CliError {
    /// The user's input is wrong; the message says where and how to fix it.
    Input(InputError),
    /// Writing output failed.
    Io(String),
    /// Our reader went away (`schedlab features | head`): not an error.
    BrokenPipe,
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Io(_) => 1,
            CliError::BrokenPipe => 0,
        }
    }
}

impl From<InputError> for CliError {
    fn from(e: InputError) -> Self {
        CliError::Input(e)
    }
}

impl From<std::io::Error> for CliError {
    /// Errors writing to stdout/stderr.
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Io(format!("cannot write output: {e}"))
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(e) => write!(f, "{e}"),
            CliError::Io(m) => write!(f, "{m}"),
            CliError::BrokenPipe => write!(f, "broken pipe"),
        }
    }
}
