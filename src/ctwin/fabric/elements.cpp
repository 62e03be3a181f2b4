#include "ctwin/fabric/elements.hpp"

namespace ctwin::fabric {

const char* to_string(VertexKind kind) {
  switch (kind) {
    case VertexKind::kGpu: return "gpu";
    case VertexKind::kNvSwitch: return "nvswitch";
    case VertexKind::kPcieSwitch: return "pcie_switch";
    case VertexKind::kCpu: return "cpu";
    case VertexKind::kNic: return "nic";
    case VertexKind::kLeaf: return "leaf";
    case VertexKind::kSpine: return "spine";
    case VertexKind::kCore: return "core";
    case VertexKind::kRouter: return "router";
    case VertexKind::kBorder: return "border";
  }
  return "?";
}

const char* to_string(LinkKind kind) {
  switch (kind) {
    case LinkKind::kNvlink: return "nvlink";
    case LinkKind::kPcie: return "pcie";
    case LinkKind::kCpuLink: return "cpu_link";
    case LinkKind::kAccess: return "nic_leaf";
    case LinkKind::kLeafSpine: return "leaf_spine";
    case LinkKind::kSpineCore: return "spine_core";
    case LinkKind::kLocal: return "local";
    case LinkKind::kGlobal: return "global";
    case LinkKind::kBorder: return "border";
    case LinkKind::kDci: return "dci";
  }
  return "?";
}

}  // namespace ctwin::fabric
