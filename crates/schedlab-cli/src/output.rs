//! Where results go: the `--json` target, checked before the run and written atomically.

use crate::cli_error::CliError;
use schedlab::InputError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `--json -` (stdout) or `--json FILE`.
pub enum JsonTarget {
    Stdout,
    File(PathBuf),
}

impl JsonTarget {
    /// Parse and check the target before the run, so a typo costs no simulation time.
    pub fn from_arg(arg: &str) -> Result<Self, InputError> {
        if arg == "-" {
            return Ok(JsonTarget::Stdout);
        }
        let path = PathBuf::from(arg);
        let origin = format!("--json {arg}");
        if arg.is_empty() || path.file_name().is_none() {
            return Err(InputError::new(origin, "not a file name")
                .with_fix("give a file such as out.json, or - for stdout"));
        }
        check_output_path(&path, &origin, "out.json")?;
        Ok(JsonTarget::File(path))
    }

    pub fn write(&self, text: &str) -> Result<(), CliError> {
        match self {
            JsonTarget::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())?;
                out.flush()?;
                Ok(())
            }
            JsonTarget::File(path) => schedlab::fsutil::write_atomic(path, text)
                .map_err(|e| CliError::Io(format!("--json {}: cannot write: {e}", path.display()))),
        }
    }
}

/// An output file flag's value is usable: not a folder, and its folder exists (checked
/// before a run so a typo costs no simulation time). `example` names a file for the fix.
pub fn check_output_path(path: &Path, origin: &str, example: &str) -> Result<(), InputError> {
    if path.is_dir() {
        return Err(InputError::new(origin, "is a folder")
            .with_fix(format!("give a file name inside it, such as {example}")));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(InputError::new(
            origin,
            format!("the folder '{}' does not exist", parent.display()),
        )
        .with_fix("create it first, or write the file elsewhere"));
    }
    Ok(())
}
