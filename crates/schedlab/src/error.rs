//! User-facing input errors: every one names where the problem is and how to fix it.

use std::fmt;

/// A problem with user input (file, flag or preset). `origin` is where ("x.json:3:7",
/// "--features", "machine 'smp:0'"), `message` what is wrong, `fix` what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub origin: String,
    pub message: String,
    pub fix: Option<String>,
}

impl InputError {
    pub fn new(origin: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            origin: origin.into(),
            message: message.into(),
            fix: None,
        }
    }

    pub fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)?;
        if let Some(fix) = &self.fix {
            write!(f, " ({fix})")?;
        }
        Ok(())
    }
}

impl std::error::Error for InputError {}
