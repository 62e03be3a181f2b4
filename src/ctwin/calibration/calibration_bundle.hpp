#pragma once
// One calibration file for a whole machine: the GPU profile fitted to its GEMMs, layers or runs,
// and the cluster fitted to its nccl-tests logs. `ctwin calibrate ... --bundle FILE` writes or
// merges one section at a time; `run`, `scale`, `sweep`, `collective` and a scenario's
// `calibration` field read it back.
//
//   {"ctwin_calibration": "bundle",
//    "gpu":  {<a GPU profile, as `ctwin calibrate --gemm/--layers/--training -o` writes it>},
//    "nccl": {<a cluster calibration, as `ctwin calibrate --nccl -o` writes it>}}
//
// Either section may be missing. A file `ctwin calibrate --nccl` wrote on its own
// ("ctwin_calibration": "nccl") reads as a bundle with only the cluster part. The GPU profile is
// held inline, so it must carry its own GEMM table (no "gemm_table_from": the bundle has no
// neighbouring profiles to borrow from).

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/nccl_fit.hpp"
#include "ctwin/compute/gpu_spec.hpp"

namespace ctwin::calibration {

struct CalibrationBundle {
  std::optional<compute::GpuSpec> gpu;
  std::optional<NcclCalibration> nccl;
  /// The file's document, for cache keys: two bundles with equal text calibrate alike.
  std::string text;
};

enum class BundleSection { kGpu, kNccl };

/// Reads a bundle (or a lone nccl calibration) strictly; InputError naming the file and field.
[[nodiscard]] CalibrationBundle read_calibration_bundle(const std::filesystem::path& path);

/// `bundle` (a bundle's document, or null for a new one) with `section` set to `document`,
/// which must read as that section (InputError naming `origin` otherwise). A lone nccl
/// calibration given as `bundle` becomes the bundle's nccl section.
[[nodiscard]] nlohmann::json merge_into_bundle(nlohmann::json bundle, BundleSection section, nlohmann::json document,
                                               const std::string& origin);

/// merge_into_bundle on the file at `path` (created when it does not exist), written back.
void merge_into_bundle_file(const std::filesystem::path& path, BundleSection section, nlohmann::json document,
                            const std::string& origin);

}  // namespace ctwin::calibration
