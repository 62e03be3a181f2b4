#include "ctwin/replay/placement.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/replay/node_placement.hpp"

namespace ctwin::replay {

PlacementSpec read_placement(const nlohmann::json& value, const std::string& source) {
  PlacementSpec spec;
  spec.named = true;
  if (value.is_string()) {
    const auto text = value.get<std::string>();
    if (text == "domain_aligned") return spec;
    if (text == "contiguous") {
      spec.policy = PlacementPolicy::kContiguous;
      return spec;
    }
    if (const auto node_policy = node_policy_named(text)) {
      spec.policy = *node_policy;
      return spec;
    }
    throw InputError(source, "/placement", "unknown placement '" + text + "' (expected " + kPlacementForms + ")");
  }
  if (!value.is_object()) throw InputError(source, "/placement", std::string("expected ") + kPlacementForms);
  if (!value.contains("gpus")) return read_node_placement(value, source);
  for (const auto& [key, item] : value.items()) {
    if (key != "gpus") throw InputError(source, "/placement/" + key, "unknown key (expected gpus)");
  }
  if (!value.contains("gpus") || !value["gpus"].is_array()) {
    throw InputError(source, "/placement/gpus", "expected a list with the cluster GPU of every rank");
  }
  spec.policy = PlacementPolicy::kExplicit;
  const auto& list = value["gpus"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& gpu = list[i];
    if (!gpu.is_number_integer() || gpu.get<std::int64_t>() < 0 || gpu.get<std::int64_t>() >= limits::kMaxGpus) {
      throw InputError(source, "/placement/gpus/" + std::to_string(i),
                       "expected a GPU index from 0 to " + std::to_string(limits::kMaxGpus - 1));
    }
    spec.gpus.push_back(gpu.get<std::int64_t>());
  }
  return spec;
}

const char* placement_name(PlacementPolicy policy) {
  switch (policy) {
    case PlacementPolicy::kContiguous: return "contiguous";
    case PlacementPolicy::kExplicit: return "explicit";
    case PlacementPolicy::kPacked: return "packed";
    case PlacementPolicy::kSpread: return "spread";
    case PlacementPolicy::kTopologyAware: return "topology_aware";
    case PlacementPolicy::kFragmented: return "fragmented";
    case PlacementPolicy::kNodes: return "nodes";
    case PlacementPolicy::kDomainAligned: break;
  }
  return "domain_aligned";
}

Placement::Placement(std::int64_t ranks) : ranks_(ranks), cluster_gpus_(ranks) {}

Placement::Placement(const PlacementSpec& spec, std::int64_t ranks, std::int64_t block, std::int64_t domain_gpus,
                     const std::string& source)
    : policy_(spec.policy), named_(spec.named), ranks_(ranks), block_(std::max<std::int64_t>(1, block)),
      domain_gpus_(std::max<std::int64_t>(1, domain_gpus)) {
  if (spec.policy == PlacementPolicy::kExplicit) {
    if (static_cast<std::int64_t>(spec.gpus.size()) != ranks) {
      throw InputError(source, "/placement/gpus", "lists " + std::to_string(spec.gpus.size()) +
                                                      " GPUs for a job of " + std::to_string(ranks) + " ranks (one per rank)");
    }
    std::set<std::int64_t> seen;
    for (std::size_t i = 0; i < spec.gpus.size(); ++i) {
      if (!seen.insert(spec.gpus[i]).second) {
        throw InputError(source, "/placement/gpus/" + std::to_string(i),
                         "GPU " + std::to_string(spec.gpus[i]) + " holds another rank already");
      }
    }
    gpus_ = spec.gpus;
    identity_ = true;
    for (std::int64_t r = 0; r < ranks; ++r) identity_ = identity_ && gpus_[static_cast<std::size_t>(r)] == r;
  } else if (spec.policy == PlacementPolicy::kDomainAligned) {
    if (block_ <= domain_gpus_) {
      unit_ranks_ = domain_gpus_ / block_ * block_;
      unit_gpus_ = domain_gpus_;
    } else {
      unit_ranks_ = block_;
      unit_gpus_ = (block_ + domain_gpus_ - 1) / domain_gpus_ * domain_gpus_;
    }
    identity_ = unit_ranks_ == unit_gpus_;
  }
  finish();
}

void Placement::chosen_by(PlacementPolicy policy, NodeFootprint footprint) {
  policy_ = policy;
  named_ = true;
  identity_ = false;
  cluster_gpus_ = std::max(cluster_gpus_, footprint.build_nodes * domain_gpus_);
  footprint_ = std::move(footprint);
}

void Placement::finish() {
  std::set<std::int64_t> domains;
  std::int64_t highest = 0;
  for (std::int64_t r = 0; r < ranks_; ++r) {
    const std::int64_t g = gpu(r);
    highest = std::max(highest, g);
    // Units hold whole domains: listing every rank's domain is only needed for an explicit list.
    if (!gpus_.empty()) domains.insert(g / domain_gpus_);
  }
  cluster_gpus_ = highest + 1;
  domains_ = gpus_.empty() ? (highest / domain_gpus_ + 1) : static_cast<std::int64_t>(domains.size());
  // Blocks are consecutive ranks; one straddles when its first and last rank, or any two, sit in
  // different domains.
  straddling_ = 0;
  for (std::int64_t b = 0; b + block_ <= ranks_; b += block_) {
    const std::int64_t first = gpu(b) / domain_gpus_;
    for (std::int64_t r = b + 1; r < b + block_; ++r) {
      if (gpu(r) / domain_gpus_ != first) {
        ++straddling_;
        break;
      }
    }
  }
}

}  // namespace ctwin::replay
