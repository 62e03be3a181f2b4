#pragma once
// The collective sweep `ctwin collective` and Python's ctwin.collective ask for, as both take it:
// texts, nccl-tests' -b/-e/-f sizes and the flags' defaults, read into a query in one place so
// that the two front ends parse and refuse it alike, each naming its own field.

#include <string>

#include "ctwin/collectives/predict.hpp"

namespace ctwin::api {

struct CollectiveFlags {
  std::string op = "all_reduce";
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string begin = "8";  ///< the smallest size, as nccl-tests' -b reads it ("8", "1K", "64M")
  std::string end = "8G";
  double factor = 2;
  std::string dtype = "float";
  std::string network = "flow";
  int channels = 0;  ///< 0: one per rail
  bool every_transfer = false;
};

/// What errors call each field.
struct CollectiveFlagNames {
  std::string op, algorithm, protocol, begin, end, dtype, network, channels;
};
inline const CollectiveFlagNames kCollectiveCliFlags{"--op",  "--algo",  "--proto",   "--begin",
                                                     "--end", "--dtype", "--network", "--channels"};
inline const CollectiveFlagNames kCollectivePythonKeywords{"op",  "algorithm", "protocol", "begin",
                                                           "end", "dtype",     "network",  "channels"};

/// The sweep's query; InputError naming the field for a bad text or a channel count outside 0..64.
[[nodiscard]] collectives::CollectiveQuery collective_query(const CollectiveFlags& flags, const CollectiveFlagNames& names);

}  // namespace ctwin::api
