#pragma once
// --gpu: a GPU profile given as a file or as a short name under models/gpus ("h100-sxm").

#include <filesystem>
#include <string>

#include "ctwin/compute/gpu_spec.hpp"

namespace ctwin::cli {

/// The profile file for `name_or_path`; InputError naming --gpu and listing the bundled
/// profiles when it is neither a file nor a bundled name.
[[nodiscard]] std::filesystem::path resolve_gpu_path(const std::string& name_or_path);

[[nodiscard]] compute::GpuSpec load_gpu_option(const std::string& name_or_path);

}  // namespace ctwin::cli
