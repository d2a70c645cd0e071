//! The scenario's `[cgroups]` tree (docs/scenario.md): one table per cgroup path with the
//! cgroup v2 cpu controller files as keys.
//!
//! ```toml
//! [cgroups."/top-app"]
//! weight = 300              # cpu.weight, 1..=10000 (default 100)
//! idle = false              # cpu.idle
//! max = "50000 100000"      # cpu.max "QUOTA PERIOD" in µs; "max" = no limit
//! uclamp_min = 10           # cpu.uclamp.min, percent 0..=100
//! uclamp_max = 80.5         # cpu.uclamp.max, percent, or "max"
//! tasks = ["spinner*"]      # comm globs of the tasks placed in this group
//! ```

use crate::error::InputError;
use crate::sched::fair::group::bandwidth::{MAX_CFS_QUOTA_PERIOD_NS, MIN_CFS_QUOTA_PERIOD_NS};
use crate::sched::fair::group::shares::{CGROUP_WEIGHT_MAX, CGROUP_WEIGHT_MIN};
use crate::sched::fair::group::CgroupSpec;
use toml::Value;

/// The keys one cgroup table may hold.
pub const CGROUP_KEYS: &[&str] = &["weight", "idle", "max", "uclamp_min", "uclamp_max", "tasks"];

/// Parse `[cgroups]`: a table of path → settings. Paths come out parents first.
pub fn cgroups(v: &Value, origin: &str) -> Result<Vec<CgroupSpec>, InputError> {
    let Value::Table(t) = v else {
        return Err(InputError::new(
            format!("{origin}: key 'cgroups'"),
            "expected a table of cgroup paths",
        )
        .with_fix("write [cgroups.\"/name\"] sections"));
    };
    let mut out: Vec<CgroupSpec> = Vec::new();
    // BTreeMap order puts "/a" before "/a/b".
    let sorted: std::collections::BTreeMap<_, _> = t.iter().collect();
    for (path, settings) in sorted {
        let at = format!("{origin}: cgroups.\"{path}\"");
        check_path(path, &at)?;
        let parent = &path[..path.rfind('/').unwrap_or(0)];
        if !parent.is_empty() && !out.iter().any(|g| g.path == parent) {
            return Err(InputError::new(
                at,
                format!("the parent cgroup '{parent}' is not declared"),
            )
            .with_fix(format!(
                "add a [cgroups.\"{parent}\"] section (it may be empty)"
            )));
        }
        out.push(one_group(path, settings, &at)?);
    }
    Ok(out)
}

fn check_path(path: &str, at: &str) -> Result<(), InputError> {
    let ok = path.starts_with('/')
        && path.len() > 1
        && path[1..]
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    if ok {
        Ok(())
    } else {
        Err(
            InputError::new(at, format!("'{path}' is not a cgroup path"))
                .with_fix("use an absolute path below the root such as \"/bg\" or \"/apps/web\""),
        )
    }
}

fn one_group(path: &str, v: &Value, at: &str) -> Result<CgroupSpec, InputError> {
    let Value::Table(t) = v else {
        return Err(
            InputError::new(at, "expected a table of cpu controller settings")
                .with_fix(format!("known keys: {}", CGROUP_KEYS.join(", "))),
        );
    };
    let mut g = CgroupSpec::new(path);
    for (key, val) in t {
        let at = format!("{at}.{key}");
        match key.as_str() {
            "weight" => g.weight = weight(val, &at)?,
            "idle" => match val {
                Value::Boolean(b) => g.idle = *b,
                Value::Integer(i @ 0..=1) => g.idle = *i == 1,
                _ => {
                    return Err(InputError::new(at, "expected true or false")
                        .with_fix("write idle = true (cpu.idle = 1) or idle = false"))
                }
            },
            "max" => g.max = cpu_max(val, &at)?,
            "uclamp_min" => g.uclamp[0] = uclamp(val, &at)?,
            "uclamp_max" => g.uclamp[1] = uclamp(val, &at)?,
            "tasks" => g.tasks = globs(val, &at)?,
            _ => {
                return Err(InputError::new(at, format!("unknown cgroup key '{key}'"))
                    .with_fix(format!("known keys: {}", CGROUP_KEYS.join(", "))))
            }
        }
    }
    if g.uclamp[0] > g.uclamp[1] {
        return Err(InputError::new(at, "uclamp_min is above uclamp_max")
            .with_fix("lower uclamp_min or raise uclamp_max"));
    }
    Ok(g)
}

fn weight(v: &Value, at: &str) -> Result<u64, InputError> {
    match v {
        Value::Integer(i) if (CGROUP_WEIGHT_MIN as i64..=CGROUP_WEIGHT_MAX as i64).contains(i) => {
            Ok(*i as u64)
        }
        _ => Err(InputError::new(at, format!("cpu.weight {v} is not valid"))
            .with_fix("use an integer from 1 to 10000 (100 is the default)")),
    }
}

/// cpu.max: "max", "max PERIOD", "QUOTA" or "QUOTA PERIOD" in microseconds (period
/// default 100000), as cgroup v2 writes it.
pub fn cpu_max(v: &Value, at: &str) -> Result<Option<(u64, u64)>, InputError> {
    let fix = "write max = \"QUOTA PERIOD\" in µs, e.g. \"50000 100000\" (quota ≥ 1000, \
               period 1000..=1000000), or \"max\"";
    let Value::String(s) = v else {
        return Err(InputError::new(at, "expected a string").with_fix(fix));
    };
    let parts: Vec<&str> = s.split_whitespace().collect();
    let bad = || InputError::new(at, format!("malformed cpu.max '{s}'")).with_fix(fix);
    let num = |x: &str| x.parse::<u64>().map_err(|_| bad());
    let (quota, period) = match parts.as_slice() {
        [q] => (*q, None),
        [q, p] => (*q, Some(num(p)?)),
        _ => return Err(bad()),
    };
    let period_ns = period.unwrap_or(100_000) * 1000;
    if !(MIN_CFS_QUOTA_PERIOD_NS..=MAX_CFS_QUOTA_PERIOD_NS).contains(&period_ns) {
        return Err(bad());
    }
    if quota == "max" {
        return Ok(None);
    }
    let quota_ns = num(quota)? * 1000;
    if quota_ns < MIN_CFS_QUOTA_PERIOD_NS {
        return Err(bad());
    }
    Ok(Some((quota_ns, period_ns)))
}

/// cpu.uclamp.*: a percentage with up to two decimals, or "max"; to capacity units as
/// cpu_uclamp_write rounds it.
fn uclamp(v: &Value, at: &str) -> Result<u32, InputError> {
    let pct = match v {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        Value::String(s) if s == "max" => 100.0,
        _ => f64::NAN,
    };
    if !(0.0..=100.0).contains(&pct) {
        return Err(
            InputError::new(at, format!("{v} is not a uclamp percentage"))
                .with_fix("use a number from 0 to 100 (percent of capacity 1024) or \"max\""),
        );
    }
    let scaled = (pct * 100.0).round() as u64;
    Ok(((scaled * 1024 + 5000) / 10000).min(1024) as u32)
}

fn globs(v: &Value, at: &str) -> Result<Vec<String>, InputError> {
    let fix = "write tasks = [\"name\", \"prefix*\"] (comm globs with * and ?)";
    let Value::Array(items) = v else {
        return Err(InputError::new(at, "expected an array of strings").with_fix(fix));
    };
    items
        .iter()
        .map(|i| match i {
            Value::String(s) if !s.is_empty() => Ok(s.clone()),
            _ => Err(InputError::new(at, "expected non-empty strings").with_fix(fix)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_max_forms() {
        let s = |x: &str| Value::String(x.into());
        assert_eq!(
            cpu_max(&s("50000 100000"), "t").unwrap(),
            Some((50_000_000, 100_000_000))
        );
        assert_eq!(cpu_max(&s("max"), "t").unwrap(), None);
        assert_eq!(
            cpu_max(&s("20000"), "t").unwrap(),
            Some((20_000_000, 100_000_000))
        );
        assert!(cpu_max(&s("50000 100000 3"), "t").is_err());
        assert!(cpu_max(&s("10 100000"), "t").is_err());
        assert!(cpu_max(&s("fifty"), "t").is_err());
    }

    #[test]
    fn uclamp_percent_to_capacity() {
        assert_eq!(uclamp(&Value::Integer(50), "t").unwrap(), 512);
        assert_eq!(uclamp(&Value::String("max".into()), "t").unwrap(), 1024);
        assert!(uclamp(&Value::Integer(101), "t").is_err());
    }
}
