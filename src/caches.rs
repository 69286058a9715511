//! The CPU's cache sizes as Linux lists them (`/sys/devices/system/cpu/cpu0/cache`): what the
//! streaming stores' threshold and the fused time steps' pass depth are sized by. A wrong or
//! missing listing (some virtual machines) only costs speed.

use std::sync::OnceLock;

/// The last-level cache in bytes: the largest cache listed for CPU 0, or 32 MiB where none is.
pub(crate) fn last_level() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| listed().map(|(_, bytes)| bytes).max().unwrap_or(32 << 20))
}

/// The level-2 cache of one core in bytes (the largest level-2 cache listed), or 1 MiB where
/// none is.
pub(crate) fn level_2() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| listed().filter(|&(level, _)| level == 2).map(|(_, bytes)| bytes).max().unwrap_or(1 << 20))
}

/// Every cache of CPU 0: its level and size.
fn listed() -> impl Iterator<Item = (u32, usize)> {
    (0..8).filter_map(|index| {
        let read =
            |file: &str| std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu0/cache/index{index}/{file}"));
        let level = read("level").ok()?.trim().parse().ok()?;
        Some((level, size(&read("size").ok()?)?))
    })
}

/// Bytes of a cache size as Linux writes it (`"32768K"`, `"1M"`, `"512"`).
fn size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, unit) = match text.strip_suffix(['K', 'M', 'G']) {
        Some(digits) => (digits, text.as_bytes()[text.len() - 1]),
        None => (text, b' '),
    };
    let shift = match unit {
        b'K' => 10,
        b'M' => 20,
        b'G' => 30,
        _ => 0,
    };
    digits.parse::<usize>().ok()?.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_linux_writes_them() {
        assert_eq!(size("32768K\n"), Some(32 << 20));
        assert_eq!(size("1M"), Some(1 << 20));
        assert_eq!(size("512"), Some(512));
        assert_eq!(size(""), None);
        assert_eq!(size("K"), None);
        assert_eq!(size("99999999999999999999G"), None);
        assert!(last_level() >= level_2() && level_2() > 0);
    }
}
