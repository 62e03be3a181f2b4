#include "ctwin/cli/peak_rss.hpp"

#include <malloc.h>
#include <sys/resource.h>

#include <fstream>

namespace ctwin::cli {

double peak_rss_gib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB on Linux
}

bool restart_peak_rss() {
  // Memory an earlier case freed may still sit in malloc's pools, resident, and would count
  // against the next case from its first byte.
  malloc_trim(0);
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
  clear_refs.flush();
  return static_cast<bool>(clear_refs);
}

}  // namespace ctwin::cli
