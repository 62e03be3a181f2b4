#pragma once
// A GPU profile named as a file or as a short name under models/gpus ("h100-sxm"): what the
// CLI's --gpu and Python's gpu= both take.

#include <filesystem>
#include <string>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::api {

/// The profile file for `name_or_path`; InputError naming `field` and listing the bundled
/// profiles when it is neither a file nor a bundled name.
[[nodiscard]] std::filesystem::path resolve_gpu_path(const std::string& name_or_path, const std::string& field = "--gpu");

[[nodiscard]] compute::GpuSpec load_gpu_option(const std::string& name_or_path, const std::string& field = "--gpu");

/// `spec` with server.gpu_arch set from the profile its server.gpu names, when that names one; left
/// empty otherwise, so that a build whose GPU ctwin has no profile for still summarises, and only a
/// collective on it is refused (collectives::nccl_arch_of says which GPU lacks a profile).
[[nodiscard]] fabric::ClusterSpec attach_gpu_arch(fabric::ClusterSpec spec);

}  // namespace ctwin::api
