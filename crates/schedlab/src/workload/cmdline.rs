//! Shared command-line handling of the benchmark front ends: splitting a `-w` string into
//! words (shell quoting), getopt_long-style option parsing, and typed option values. Every
//! error names the tool and the option, and says what to write instead.

use crate::error::InputError;
use crate::time::{parse_duration, Ns};
use std::str::FromStr;

/// Split a command line into words: whitespace separates, single and double quotes group,
/// a backslash escapes the next character (outside single quotes).
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => cur.push(chars.next().ok_or("trailing backslash")?),
                        Some(x) => cur.push(x),
                        None => return Err("unterminated double quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.push(chars.next().ok_or("trailing backslash")?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// One option a tool accepts: `-x` and/or `--long`, with or without a value.
#[derive(Debug, Clone, Copy)]
pub struct OptSpec {
    pub short: Option<char>,
    pub long: &'static str,
    pub takes_value: bool,
}

pub const fn flag(short: char, long: &'static str) -> OptSpec {
    OptSpec {
        short: Some(short),
        long,
        takes_value: false,
    }
}

pub const fn value(short: char, long: &'static str) -> OptSpec {
    OptSpec {
        short: Some(short),
        long,
        takes_value: true,
    }
}

/// A flag with no short form (`--launcher`).
pub const fn long_flag(long: &'static str) -> OptSpec {
    OptSpec {
        short: None,
        long,
        takes_value: false,
    }
}

pub const fn long_value(long: &'static str) -> OptSpec {
    OptSpec {
        short: None,
        long,
        takes_value: true,
    }
}

impl OptSpec {
    /// How errors name the option: `-g/--groups`.
    pub fn display(&self) -> String {
        match self.short {
            Some(s) => format!("-{s}/--{}", self.long),
            None => format!("--{}", self.long),
        }
    }
}

/// Parsed options in command-line order (the last of a repeated option wins, as getopt
/// loops do), plus positional words.
#[derive(Debug, Default)]
pub struct Parsed {
    pub opts: Vec<(OptSpec, Option<String>)>,
    pub positional: Vec<String>,
}

impl Parsed {
    /// The value of the last occurrence of `long`, with its spec (for errors).
    pub fn get(&self, long: &str) -> Option<(&OptSpec, &str)> {
        self.opts
            .iter()
            .rev()
            .find(|(s, _)| s.long == long)
            .map(|(s, v)| (s, v.as_deref().unwrap_or("")))
    }

    pub fn has(&self, long: &str) -> bool {
        self.opts.iter().any(|(s, _)| s.long == long)
    }
}

/// getopt_long over `args` (the words after the tool name): `-g 4`, `-g4`, `-Tp`,
/// `--groups 4`, `--groups=4`; `--` ends the options.
pub fn getopt(tool: &str, args: &[String], specs: &[OptSpec]) -> Result<Parsed, InputError> {
    let known = || {
        specs
            .iter()
            .map(|s| s.display())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let unknown = |what: &str| {
        InputError::new(
            format!("{tool} options"),
            format!("unknown option '{what}'"),
        )
        .with_fix(format!("{tool} accepts {}", known()))
    };
    let missing = |s: &OptSpec| {
        InputError::new(
            format!("{tool} {}", s.display()),
            "the option needs a value",
        )
        .with_fix(format!("write e.g. {} N", s.display()))
    };
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            out.positional.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let spec = specs
                .iter()
                .find(|s| s.long == name)
                .ok_or_else(|| unknown(a))?;
            let val = if spec.takes_value {
                match inline {
                    Some(v) => Some(v),
                    None => {
                        let v = args.get(i).ok_or_else(|| missing(spec))?;
                        i += 1;
                        Some(v.clone())
                    }
                }
            } else if inline.is_some() {
                return Err(InputError::new(
                    format!("{tool} {}", spec.display()),
                    "the option takes no value",
                )
                .with_fix(format!("write {} alone", spec.display())));
            } else {
                None
            };
            out.opts.push((*spec, val));
        } else if a.len() > 1 && a.starts_with('-') {
            let cs: Vec<char> = a[1..].chars().collect();
            let mut k = 0;
            while k < cs.len() {
                let c = cs[k];
                k += 1;
                let spec = specs
                    .iter()
                    .find(|s| s.short == Some(c))
                    .ok_or_else(|| unknown(&format!("-{c}")))?;
                if spec.takes_value {
                    let rest: String = cs[k..].iter().collect();
                    let v = if !rest.is_empty() {
                        rest
                    } else {
                        let v = args.get(i).ok_or_else(|| missing(spec))?;
                        i += 1;
                        v.clone()
                    };
                    out.opts.push((*spec, Some(v)));
                    break;
                }
                out.opts.push((*spec, None));
            }
        } else {
            out.positional.push(a.clone());
        }
    }
    Ok(out)
}

/// A numeric option value, at least `min`.
pub fn number<T>(tool: &str, spec: &OptSpec, text: &str, min: T) -> Result<T, InputError>
where
    T: FromStr + PartialOrd + Copy + std::fmt::Display,
{
    match text.trim().parse::<T>() {
        Ok(v) if v >= min => Ok(v),
        _ => Err(InputError::new(
            format!("{tool} {}", spec.display()),
            format!("'{text}' is not an integer ≥ {min}"),
        )
        .with_fix(format!("write e.g. {} {min}", spec.display()))),
    }
}

/// A duration option: `500us`, `1ms`, `2s` (a bare number is in `bare_unit`).
pub fn duration(tool: &str, spec: &OptSpec, text: &str, bare_unit: &str) -> Result<Ns, InputError> {
    let t = text.trim();
    let with_unit = if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        format!("{t}{bare_unit}")
    } else {
        t.to_string()
    };
    parse_duration(&with_unit).map_err(|m| {
        InputError::new(format!("{tool} {}", spec.display()), m)
            .with_fix(format!("write e.g. {} 500us", spec.display()))
    })
}

/// The most tasks one front end may create: beyond it a typo (`-f 1000001`) would make the
/// simulator allocate without bound. 1 M tasks take about 2 GB (docs/performance.md,
/// the `sleepers-1m` row).
pub const MAX_TASKS: u64 = 1_000_000;

/// Refuse a run of `tasks` tasks (as computed from `options`, e.g. "-g 10 -f 20") beyond
/// [`MAX_TASKS`].
pub fn check_tasks(tool: &str, options: &str, tasks: u128) -> Result<(), InputError> {
    if tasks <= MAX_TASKS as u128 {
        return Ok(());
    }
    Err(InputError::new(
        format!("{tool} {options}"),
        format!("{tasks} tasks is more than the simulator takes ({MAX_TASKS})"),
    )
    .with_fix("use smaller counts"))
}

/// The value of `long` parsed as a number ≥ `min`, or `default` when absent.
pub fn number_or<T>(tool: &str, p: &Parsed, long: &str, default: T, min: T) -> Result<T, InputError>
where
    T: FromStr + PartialOrd + Copy + std::fmt::Display,
{
    match p.get(long) {
        Some((spec, v)) => number(tool, spec, v, min),
        None => Ok(default),
    }
}

/// The `long` option as a nice value (-20..=19), or `default` when absent.
pub fn nice_or(tool: &str, p: &Parsed, long: &str, default: i32) -> Result<i32, InputError> {
    match p.get(long) {
        None => Ok(default),
        Some((spec, v)) => match v.trim().parse::<i32>() {
            Ok(n) if (-20..=19).contains(&n) => Ok(n),
            _ => Err(InputError::new(
                format!("{tool} {}", spec.display()),
                format!("'{v}' is not a nice value"),
            )
            .with_fix("use an integer from -20 to 19")),
        },
    }
}

/// The `long` option as a CPU list (`0-3,6`) of CPUs that exist, or `None` when absent.
pub fn cpus_opt(
    tool: &str,
    p: &Parsed,
    long: &str,
    nr_cpus: usize,
) -> Result<Option<Vec<usize>>, InputError> {
    let Some((spec, v)) = p.get(long) else {
        return Ok(None);
    };
    let place = format!("{tool} {}", spec.display());
    let l = crate::machine::cpulist::parse_cpulist(v).map_err(|e| {
        InputError::new(&place, e).with_fix(format!("write e.g. {} 0-3", spec.display()))
    })?;
    if let Some(bad) = l.iter().find(|&&c| c >= nr_cpus) {
        return Err(
            InputError::new(&place, format!("CPU {bad} does not exist ({nr_cpus} CPUs)"))
                .with_fix(format!("use CPU ids 0..{}", nr_cpus - 1)),
        );
    }
    Ok(Some(l))
}

/// Error for an option the real tool has but the simulator does not model.
pub fn unsupported(tool: &str, spec: &OptSpec, why: &str) -> InputError {
    InputError::new(
        format!("{tool} {}", spec.display()),
        format!("not modelled: {why}"),
    )
    .with_fix(format!(
        "leave {} out (docs/workloads.md lists what {tool} supports)",
        spec.display()
    ))
}

/// The first of `refused` (long name, why) that was given, as an `unsupported` error.
pub fn refuse(tool: &str, p: &Parsed, refused: &[(&str, &str)]) -> Result<(), InputError> {
    for &(long, why) in refused {
        if let Some((spec, _)) = p.get(long) {
            return Err(unsupported(tool, spec, why));
        }
    }
    Ok(())
}

/// Error for stray positional words.
pub fn no_positional(tool: &str, p: &Parsed) -> Result<(), InputError> {
    match p.positional.first() {
        Some(w) => Err(InputError::new(
            format!("{tool} options"),
            format!("unexpected argument '{w}'"),
        )
        .with_fix(format!("{tool} takes only options; see docs/workloads.md"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        split_words(s).unwrap()
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(w("a  b"), vec!["a", "b"]);
        assert_eq!(w("a 'b c' \"d e\" f\\ g"), vec!["a", "b c", "d e", "f g"]);
        assert!(split_words("a 'b").is_err());
    }

    #[test]
    fn getopt_forms() {
        let specs = [
            value('g', "groups"),
            flag('T', "threads"),
            flag('p', "pipe"),
        ];
        let p = getopt("t", &w("-g4 -Tp --groups=5 x"), &specs).unwrap();
        assert_eq!(p.get("groups").unwrap().1, "5");
        assert!(p.has("threads") && p.has("pipe"));
        assert_eq!(p.positional, vec!["x"]);
        let e = getopt("t", &w("-q"), &specs).unwrap_err().to_string();
        assert!(
            e.contains("unknown option '-q'") && e.contains("-g/--groups"),
            "{e}"
        );
        let e = getopt("t", &w("-g"), &specs).unwrap_err().to_string();
        assert!(
            e.contains("-g/--groups") && e.contains("needs a value"),
            "{e}"
        );
    }
}
