#include "ctwin/api/gpu_profile.hpp"

#include "ctwin/api/data_dir.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::api {

std::filesystem::path resolve_gpu_path(const std::string& name_or_path, const std::string& field) {
  const std::filesystem::path given = resolve_data_path(name_or_path);
  if (is_file_path(given)) return given;
  if (auto bundled = find_bundled(data_dir(), DataKind::kGpu, name_or_path)) return *bundled;
  throw InputError(field, "", "unknown GPU '" + name_or_path + "' (expected a profile file or one of: " +
                                    bundled_names(data_dir(), DataKind::kGpu) + ")");
}

compute::GpuSpec load_gpu_option(const std::string& name_or_path, const std::string& field) {
  return compute::load_gpu_spec(resolve_gpu_path(name_or_path, field));
}

}  // namespace ctwin::api
