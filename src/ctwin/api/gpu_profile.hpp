#pragma once
// A GPU profile named as a file or as a short name under models/gpus ("h100-sxm"): what the
// CLI's --gpu and Python's gpu= both take.

#include <filesystem>
#include <string>

#include "ctwin/compute/gpu_spec.hpp"

namespace ctwin::api {

/// The profile file for `name_or_path`; InputError naming `field` and listing the bundled
/// profiles when it is neither a file nor a bundled name.
[[nodiscard]] std::filesystem::path resolve_gpu_path(const std::string& name_or_path, const std::string& field = "--gpu");

[[nodiscard]] compute::GpuSpec load_gpu_option(const std::string& name_or_path, const std::string& field = "--gpu");

}  // namespace ctwin::api
