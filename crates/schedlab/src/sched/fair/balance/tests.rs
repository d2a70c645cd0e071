//! Unit tests of the balancer's pure decisions (spec placement §3.5–§3.7).
