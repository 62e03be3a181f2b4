#pragma once
// The PCIe generations a topology or parts file may name: read in one range, and advised within it.

namespace ctwin::fabric {

/// The newest generation a file may name (Gen7, specified 2025). A build check never advises a
/// later one: that advice could not be taken (issue 36: Gen8 for a 3.2 Tb/s NIC).
inline constexpr int kMaxPcieGeneration = 7;

}  // namespace ctwin::fabric
