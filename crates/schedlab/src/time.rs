//! Simulated time: integer nanoseconds, and parsing of human durations ("10ms", "2.5s").

/// Simulated time or duration in nanoseconds.
pub type Ns = u64;

pub const NSEC_PER_USEC: Ns = 1_000;
pub const NSEC_PER_MSEC: Ns = 1_000_000;
pub const NSEC_PER_SEC: Ns = 1_000_000_000;

/// Parse a duration such as `10s`, `2.5s`, `250ms`, `100us`, `500ns`, or a bare number of
/// seconds. Negative, empty or non-finite values are rejected with a message suitable for
/// an `InputError`.
pub fn parse_duration(text: &str) -> Result<Ns, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(format!(
            "duration '{text}' is negative; give a positive time such as 10s"
        ));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: f64 = match unit.trim() {
        "" | "s" => 1e9,
        "ms" => 1e6,
        "us" | "µs" => 1e3,
        "ns" => 1.0,
        "min" => 60e9,
        other => {
            return Err(format!(
                "unknown time unit '{other}' in '{text}'; use ns, us, ms, s or min"
            ))
        }
    };
    let value: f64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a duration; write e.g. 10s, 250ms or 100us"))?;
    let ns = value * scale;
    if !ns.is_finite() || ns >= u64::MAX as f64 {
        return Err(format!("duration '{text}' is out of range"));
    }
    Ok(ns.round() as Ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_duration("10s"), Ok(10 * NSEC_PER_SEC));
        assert_eq!(parse_duration("2.5s"), Ok(2_500_000_000));
        assert_eq!(parse_duration("250ms"), Ok(250 * NSEC_PER_MSEC));
        assert_eq!(parse_duration("100us"), Ok(100_000));
        assert_eq!(parse_duration("7"), Ok(7 * NSEC_PER_SEC));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("3 parsecs").is_err());
        assert!(parse_duration("").is_err());
    }
}
