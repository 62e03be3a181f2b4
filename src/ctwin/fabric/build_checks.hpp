#pragma once
// Physical nonsense a topology or an override can describe and the models would still run:
// an 800G NIC behind a PCIe Gen5 x16 slot gives exactly the 400G step time with no word why.
// Each check returns a warning with the numbers and the fix; none stops a run, because the
// user may ask for such a build on purpose (to see what the slot costs).

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ctwin/fabric/builders/tier_plan.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {

struct BuildWarning {
  std::string check;    ///< "nic_above_pcie", "nic_above_switch_port", "leaf_ports_idle", "spine_ports_stranded", ...
  std::string message;  ///< what was found, with the numbers
  std::string fix;      ///< what to change
};

/// The checks on `spec` built as `topology` plans it.
[[nodiscard]] std::vector<BuildWarning> check_build(const ClusterSpec& spec, const Topology& topology);

/// A fat tree's own checks (FatTree::check): leaf ports idle, spine and core ports stranded.
void check_fat_tree(const ClusterSpec& spec, const TierPlan& plan, std::vector<BuildWarning>& warnings);

/// Fields of a topology document (after overrides) that its reader ignores: nodes_per_su and
/// rails_per_leaf of a top-of-rack fabric, left over when `--set fabric.kind=top_of_rack`
/// changes a rail-optimized topology.
[[nodiscard]] std::vector<BuildWarning> ignored_fields(const nlohmann::json& document);

}  // namespace ctwin::fabric
