#include "ctwin/core/bundled_names.hpp"

#include <algorithm>
#include <system_error>
#include <vector>

namespace ctwin {

std::string_view data_folder(DataKind kind) {
  switch (kind) {
    case DataKind::kScenario: return "scenarios";
    case DataKind::kTopology: return "topologies";
    case DataKind::kModel: return "models/llm";
    case DataKind::kGpu: return "models/gpus";
    case DataKind::kAcceptancePlan: return "scenarios/acceptance";
    case DataKind::kStack: return "models/stacks";
  }
  return "";
}

std::string_view data_kind_name(DataKind kind) {
  switch (kind) {
    case DataKind::kScenario: return "scenario";
    case DataKind::kTopology: return "topology";
    case DataKind::kModel: return "model";
    case DataKind::kGpu: return "GPU profile";
    case DataKind::kAcceptancePlan: return "acceptance plan";
    case DataKind::kStack: return "software stack";
  }
  return "";
}

bool is_bare_name(std::string_view text) {
  return !text.empty() && text != "-" && text.find('/') == std::string_view::npos && !text.ends_with(".json");
}

std::optional<std::filesystem::path> find_bundled(const std::filesystem::path& root, DataKind kind,
                                                  std::string_view name) {
  if (!is_bare_name(name)) return std::nullopt;
  std::filesystem::path file = root / data_folder(kind) / (std::string(name) + ".json");
  std::error_code ignored;
  if (!std::filesystem::is_regular_file(file, ignored)) return std::nullopt;
  return file;
}

std::string bundled_names(const std::filesystem::path& root, DataKind kind) {
  std::vector<std::string> names;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(root / data_folder(kind), ignored)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());  // directory order is not deterministic
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none found" : out;
}

}  // namespace ctwin
