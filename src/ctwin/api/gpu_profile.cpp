#include "ctwin/api/gpu_profile.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::api {
namespace {

std::optional<std::filesystem::path> find_gpu_path(const std::string& name_or_path) {
  std::filesystem::path given = resolve_data_path(name_or_path);
  if (is_file_path(given)) return given;
  return find_bundled(data_dir(), DataKind::kGpu, name_or_path);
}

}  // namespace

std::filesystem::path resolve_gpu_path(const std::string& name_or_path, const std::string& field) {
  if (auto found = find_gpu_path(name_or_path)) return *found;
  throw InputError(field, "", "unknown GPU '" + name_or_path + "' (expected a profile file or one of: " +
                                    bundled_names(data_dir(), DataKind::kGpu) + ")");
}

compute::GpuSpec load_gpu_option(const std::string& name_or_path, const std::string& field) {
  return compute::load_gpu_spec(resolve_gpu_path(name_or_path, field));
}

fabric::ClusterSpec attach_gpu_arch(fabric::ClusterSpec spec) {
  namespace fs = std::filesystem;
  const auto found = find_gpu_path(spec.server.gpu);
  if (!found) return spec;
  const fs::path& file = *found;
  // Builds are read many times over (a size or plan study reads one per option), profiles hold
  // their GEMM tables: one read per file and modification time.
  static std::mutex mutex;
  static std::map<std::pair<std::string, fs::file_time_type>, std::string> read;
  std::error_code error;
  const auto modified = fs::last_write_time(file, error);
  const std::pair key{fs::absolute(file).lexically_normal().string(), error ? fs::file_time_type{} : modified};
  {
    const std::lock_guard lock(mutex);
    if (const auto it = read.find(key); it != read.end()) {
      spec.server.gpu_arch = it->second;
      return spec;
    }
  }
  spec.server.gpu_arch = compute::read_gpu_arch(file);
  const std::lock_guard lock(mutex);
  read.emplace(key, spec.server.gpu_arch);
  return spec;
}

}  // namespace ctwin::api
