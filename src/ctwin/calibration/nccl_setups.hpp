#pragma once
// The manifest of measured nccl-tests logs (validation/nccl/setups.json): for each log, what
// ran (op, ranks, nodes, NCCL environment), which bundled topology models that hardware, and
// whether the log checks the shipped defaults ("check") or only serves calibration because its
// source reports the cluster underperforming ("underperforming"). Provenance fields are read
// and kept as text, so a manifest with an unknown or misspelt key is still rejected.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/collectives/collective.hpp"

namespace ctwin::calibration {

struct NcclSetup {
  std::string id;
  std::filesystem::path log;                 ///< resolved against the manifest's folder
  collectives::Op op = collectives::Op::kAllReduce;
  std::string dtype;                         ///< nccl-tests' -d type: float, half, int8
  int ranks = 0;
  int nodes = 0;
  int gpus_per_node = 0;
  std::string gpu;
  std::string cluster;                       ///< logs with the same id ran on the same machines
  std::optional<std::string> topology;       ///< bundled topology file; none = no model of it
  std::map<std::string, std::string> nccl_env;
  std::string role;                          ///< "check" or "underperforming"
  std::string notes;
  std::vector<std::string> quality_flags;
  std::string source;                        ///< the source's address, for reports
};

/// Reads the manifest at `path`. Throws InputError naming the file and field.
[[nodiscard]] std::vector<NcclSetup> read_nccl_setups(const std::filesystem::path& path);

/// The algorithm and protocol the setup forced with NCCL_ALGO / NCCL_PROTO (auto if not).
[[nodiscard]] collectives::Algorithm forced_algorithm(const NcclSetup& setup);
[[nodiscard]] collectives::Protocol forced_protocol(const NcclSetup& setup);

}  // namespace ctwin::calibration
