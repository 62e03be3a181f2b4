#include "ctwin/acceptance/acceptance_p2p.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

#include "ctwin/fabric/router.hpp"

namespace ctwin::api {
namespace {

int unit_of(const fabric::Fabric& fabric, int node) { return node / fabric.topology().nodes_per_unit(); }

int nic_of(const fabric::Fabric& fabric, fabric::GpuId gpu) { return fabric.server().nic_of_gpu(fabric.local_index(gpu)); }

}  // namespace

std::string pair_label(const GpuPair& pair) { return std::to_string(pair.src) + "->" + std::to_string(pair.dst); }

std::optional<GpuPair> parse_pair_label(const std::string& text) {
  const std::size_t arrow = text.find("->");
  if (arrow == std::string::npos) return std::nullopt;
  GpuPair pair;
  const char* begin = text.data();
  const auto [a_end, a_error] = std::from_chars(begin, begin + arrow, pair.src);
  const auto [b_end, b_error] = std::from_chars(begin + arrow + 2, begin + text.size(), pair.dst);
  if (a_error != std::errc() || a_end != begin + arrow || b_error != std::errc() || b_end != begin + text.size()) {
    return std::nullopt;
  }
  return pair;
}

PathClass path_class(const fabric::Fabric& fabric, const GpuPair& pair) {
  const int a = fabric.node_of(pair.src);
  const int b = fabric.node_of(pair.dst);
  if (a == b) return PathClass::kSameNode;
  if (fabric.switch_of_nic(a, nic_of(fabric, pair.src)) == fabric.switch_of_nic(b, nic_of(fabric, pair.dst))) {
    return PathClass::kSameRail;
  }
  return unit_of(fabric, a) == unit_of(fabric, b) ? PathClass::kCrossRail : PathClass::kCrossSu;
}

std::vector<GpuPair> class_pairs(const fabric::Fabric& fabric, PathClass path) {
  const int nodes = fabric.nodes();
  const int per_node = fabric.gpus_per_node();
  const int rails = fabric.server().nics();
  std::vector<GpuPair> pairs;
  const auto gpu = [&](int node, int local) { return static_cast<fabric::GpuId>(node * per_node + local); };
  const auto add = [&](fabric::GpuId src, fabric::GpuId dst) {
    if (src < fabric.gpus() && dst < fabric.gpus() && path_class(fabric, {src, dst}) == path) pairs.push_back({src, dst});
  };
  switch (path) {
    case PathClass::kSameNode:
      if (per_node < 2) break;
      for (int node = 0; node < nodes; ++node) {
        for (int g = 0; g < per_node; ++g) add(gpu(node, g), gpu(node, (g + 1) % per_node));
      }
      break;
    case PathClass::kSameRail:
    case PathClass::kCrossRail:
      for (int node = 0; node + 1 < nodes; node += 2) {
        for (int r = 0; r < rails; ++r) {
          const int other = path == PathClass::kSameRail ? r : (r + 1) % rails;
          const int g = fabric.server().gpu_of_nic(r);
          const int h = fabric.server().gpu_of_nic(other);
          add(gpu(node, g), gpu(node + 1, h));
          add(gpu(node + 1, g), gpu(node, h));
        }
      }
      break;
    case PathClass::kCrossSu: {
      const int per_unit = fabric.topology().nodes_per_unit();
      if (nodes <= per_unit) break;
      for (int node = 0; node < nodes; ++node) {
        for (int r = 0; r < rails; ++r) {
          const int g = fabric.server().gpu_of_nic(r);
          add(gpu(node, g), gpu((node + per_unit) % nodes, g));
        }
      }
      break;
    }
  }
  return pairs;
}

SimTime p2p_time(const fabric::Fabric& fabric, const std::vector<fabric::LinkId>& route, Bytes size,
                 const std::vector<double>& factors) {
  double latency_s = 0;
  double slowest = std::numeric_limits<double>::infinity();
  for (const fabric::LinkId id : route) {
    const fabric::Link& link = fabric.link(id);
    latency_s += link.latency.seconds();
    const double rate = link.achieved().bytes_per_second() * (factors.empty() ? 1.0 : factors[id]);
    slowest = std::min(slowest, rate);
  }
  if (route.empty()) return SimTime();
  return SimTime::from_seconds(latency_s + static_cast<double>(size.count()) / slowest);
}

SimTime p2p_time(const fabric::Fabric& fabric, const GpuPair& pair, Bytes size, const std::vector<double>& factors) {
  return p2p_time(fabric, fabric::route(fabric, pair.src, pair.dst), size, factors);
}

double p2p_metric(const AcceptanceTest& test, SimTime time) {
  if (test.metric == "latency") return time.seconds() * 1e6;
  const double seconds = time.seconds();
  return seconds > 0 ? static_cast<double>(test.size.count()) / seconds / 1e9 : 0;
}

}  // namespace ctwin::api
