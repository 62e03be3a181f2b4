#pragma once
// A process's peak resident set, per bench case. Linux keeps one peak per process, so without
// a restart a small case run after a large one reports the large one's peak.

namespace ctwin::cli {

/// Peak resident set since the process started or since the last successful restart, GiB.
[[nodiscard]] double peak_rss_gib();

/// Returns freed heap memory to the system and restarts the peak at what is resident now
/// (writes 5 to /proc/self/clear_refs, Linux 4.0 and later). False where that is refused:
/// peaks then stay process-wide.
bool restart_peak_rss();

}  // namespace ctwin::cli
