#include "ctwin/api/gpu_profile.hpp"

#include <algorithm>
#include <vector>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

const std::filesystem::path kGpuFolder = "models/gpus";

std::string bundled_names() {
  std::vector<std::string> names;
  const auto folder = resolve_data_path(kGpuFolder.string());
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ignored)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());  // directory order is not deterministic
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none found" : out;
}

}  // namespace

std::filesystem::path resolve_gpu_path(const std::string& name_or_path, const std::string& field) {
  const std::filesystem::path given = resolve_data_path(name_or_path);
  if (std::filesystem::is_regular_file(given)) return given;
  const bool looks_like_name = name_or_path.find('/') == std::string::npos && !name_or_path.ends_with(".json");
  if (looks_like_name) {
    const std::filesystem::path bundled = resolve_data_path((kGpuFolder / (name_or_path + ".json")).string());
    if (std::filesystem::is_regular_file(bundled)) return bundled;
  }
  throw InputError(field, "", "unknown GPU '" + name_or_path + "' (expected a profile file or one of: " +
                                    bundled_names() + ")");
}

compute::GpuSpec load_gpu_option(const std::string& name_or_path, const std::string& field) {
  return compute::load_gpu_spec(resolve_gpu_path(name_or_path, field));
}

}  // namespace ctwin::api
