//! SD_* flags with the bit order and meta-properties of include/linux/sched/sd_flags.h.

use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign, Not};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SdFlags(pub u32);

impl SdFlags {
    pub const BALANCE_NEWIDLE: SdFlags = SdFlags(1 << 0);
    pub const BALANCE_EXEC: SdFlags = SdFlags(1 << 1);
    pub const BALANCE_FORK: SdFlags = SdFlags(1 << 2);
    pub const BALANCE_WAKE: SdFlags = SdFlags(1 << 3);
    pub const WAKE_AFFINE: SdFlags = SdFlags(1 << 4);
    pub const ASYM_CPUCAPACITY: SdFlags = SdFlags(1 << 5);
    pub const ASYM_CPUCAPACITY_FULL: SdFlags = SdFlags(1 << 6);
    pub const SHARE_CPUCAPACITY: SdFlags = SdFlags(1 << 7);
    pub const CLUSTER: SdFlags = SdFlags(1 << 8);
    pub const SHARE_LLC: SdFlags = SdFlags(1 << 9);
    pub const SERIALIZE: SdFlags = SdFlags(1 << 10);
    pub const ASYM_PACKING: SdFlags = SdFlags(1 << 11);
    pub const PREFER_SIBLING: SdFlags = SdFlags(1 << 12);
    pub const OVERLAP: SdFlags = SdFlags(1 << 13);
    pub const NUMA: SdFlags = SdFlags(1 << 14);
    pub const EMPTY: SdFlags = SdFlags(0);

    /// Kernel names, in bit order.
    pub const NAMES: [&'static str; 15] = [
        "SD_BALANCE_NEWIDLE",
        "SD_BALANCE_EXEC",
        "SD_BALANCE_FORK",
        "SD_BALANCE_WAKE",
        "SD_WAKE_AFFINE",
        "SD_ASYM_CPUCAPACITY",
        "SD_ASYM_CPUCAPACITY_FULL",
        "SD_SHARE_CPUCAPACITY",
        "SD_CLUSTER",
        "SD_SHARE_LLC",
        "SD_SERIALIZE",
        "SD_ASYM_PACKING",
        "SD_PREFER_SIBLING",
        "SD_OVERLAP",
        "SD_NUMA",
    ];

    /// SDF_SHARED_CHILD flags: set from the bottom up (sd_flags.h).
    pub const SHARED_CHILD_MASK: SdFlags = SdFlags(
        Self::BALANCE_NEWIDLE.0
            | Self::BALANCE_EXEC.0
            | Self::BALANCE_FORK.0
            | Self::BALANCE_WAKE.0
            | Self::WAKE_AFFINE.0
            | Self::SHARE_CPUCAPACITY.0
            | Self::SHARE_LLC.0,
    );

    /// SD_DEGENERATE_GROUPS_MASK: the SDF_NEEDS_GROUPS flags, meaningless with one group.
    /// Every flag but SD_WAKE_AFFINE (sd_flags.h).
    pub const DEGENERATE_GROUPS_MASK: SdFlags = SdFlags(((1 << 15) - 1) & !Self::WAKE_AFFINE.0);

    pub fn contains(self, f: SdFlags) -> bool {
        self.0 & f.0 == f.0
    }

    pub fn intersects(self, f: SdFlags) -> bool {
        self.0 & f.0 != 0
    }

    pub fn is_shared_child(self) -> bool {
        self.0 & !Self::SHARED_CHILD_MASK.0 == 0 && self.0 != 0
    }

    /// Names of the set flags, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        (0..15)
            .filter(move |b| self.0 & (1 << b) != 0)
            .map(|b| Self::NAMES[b])
    }
}

impl BitOr for SdFlags {
    type Output = SdFlags;
    fn bitor(self, o: SdFlags) -> SdFlags {
        SdFlags(self.0 | o.0)
    }
}

impl BitOrAssign for SdFlags {
    fn bitor_assign(&mut self, o: SdFlags) {
        self.0 |= o.0
    }
}

impl BitAnd for SdFlags {
    type Output = SdFlags;
    fn bitand(self, o: SdFlags) -> SdFlags {
        SdFlags(self.0 & o.0)
    }
}

impl Not for SdFlags {
    type Output = SdFlags;
    fn not(self) -> SdFlags {
        SdFlags(!self.0)
    }
}

impl fmt::Debug for SdFlags {
    /// The debugfs `flags` file form: names separated by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = self.names().collect();
        write!(f, "{}", names.join(" "))
    }
}
