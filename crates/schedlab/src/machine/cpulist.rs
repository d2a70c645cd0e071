//! Linux cpulist strings ("0-3,8,10-11"), as sysfs prints CPU and node sets; machine
//! files use them for frequency-domain members too.

/// Parse a cpulist; the result is ascending with no duplicates. Empty text = empty set.
pub fn parse_cpulist(text: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.trim().is_empty()) {
        let part = part.trim();
        let num = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{part}' is not a CPU number or range A-B"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(format!("range '{part}' runs backwards"));
                }
                if b - a > 1 << 20 {
                    return Err(format!("range '{part}' is implausibly large"));
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Format an ascending set as a cpulist with ranges.
pub fn format_cpulist(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let v = parse_cpulist("0-3,8,10-11\n").unwrap();
        assert_eq!(v, [0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(format_cpulist(&v), "0-3,8,10-11");
        assert_eq!(parse_cpulist("").unwrap(), Vec::<usize>::new());
        assert!(parse_cpulist("3-1").is_err());
        assert!(parse_cpulist("a").is_err());
    }
}
