//! Measurements of this process taken from the operating system.

/// Peak resident set size of this process in bytes (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    rss_and_peak_bytes().1
}

/// Resident set size of this process in bytes now and its peak so far
/// (Linux `VmRSS` and `VmHWM`, read at once), each if known.
pub fn rss_and_peak_bytes() -> (Option<u64>, Option<u64>) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    (field(&status, "VmRSS:"), field(&status, "VmHWM:"))
}

/// A `kB` field of a `/proc/<pid>/status` text, in bytes.
fn field(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}
