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
    /// One line whatever the input: control characters echoed from the user's input (a
    /// newline inside a `-w` argument) are escaped (found by fuzzing).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", OneLine(&self.origin), OneLine(&self.message))?;
        if let Some(fix) = &self.fix {
            write!(f, " ({})", OneLine(fix))?;
        }
        Ok(())
    }
}

/// Text with control characters written as escapes (`\n`, `\u{1b}`).
struct OneLine<'a>(&'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for ch in self.0.chars() {
            if ch.is_control() {
                write!(f, "{}", ch.escape_default())?;
            } else {
                write!(f, "{ch}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for InputError {}

#[cfg(test)]
mod tests {
    use super::InputError;

    #[test]
    fn a_message_is_one_line_whatever_the_input() {
        let e = InputError::new("workload 'hack\nbench'", "unknown front end 'hack\r'")
            .with_fix("known:\thackbench");
        assert_eq!(
            e.to_string(),
            "workload 'hack\\nbench': unknown front end 'hack\\r' (known:\\thackbench)"
        );
    }
}
