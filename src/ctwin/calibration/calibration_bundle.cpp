#include "ctwin/calibration/calibration_bundle.hpp"

#include <utility>

#include "ctwin/calibration/calibrated_profile.hpp"
#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::calibration {
namespace {

compute::GpuSpec parse_bundled_gpu(const nlohmann::json& document, const std::string& source, const std::string& pointer) {
  if (!document.is_object()) throw InputError(source, pointer, "expected a GPU profile object");
  compute::GpuSpec gpu = compute::parse_gpu_spec(document, source + " " + pointer);
  if (!gpu.gemm_table_from.empty()) {
    throw InputError(source, pointer + "/gemm_table_from",
                     "a bundled profile cannot borrow another's GEMM table; calibrate it with --gemm so it has its own");
  }
  return gpu;
}

bool is_lone_nccl(const nlohmann::json& document) {
  return document.is_object() && document.contains("ctwin_calibration") && document["ctwin_calibration"] == "nccl";
}

}  // namespace

CalibrationBundle read_calibration_bundle(const std::filesystem::path& path) {
  const nlohmann::json document = load_json_file(path);
  const std::string source = path.string();
  CalibrationBundle bundle;
  bundle.text = json_text(document);
  if (is_lone_nccl(document)) {
    bundle.nccl = parse_nccl_calibration(document, source, "");
    return bundle;
  }
  if (!document.is_object()) throw InputError(source, "", "expected a calibration bundle object");
  JsonObjectReader top(document, source, "");
  (void)top.choice("ctwin_calibration", {"bundle", "nccl"});
  if (const auto* gpu = top.optional("gpu")) bundle.gpu = parse_bundled_gpu(*gpu, source, "/gpu");
  if (const auto* nccl = top.optional("nccl")) bundle.nccl = parse_nccl_calibration(*nccl, source, "/nccl");
  top.finish();
  if (!bundle.gpu && !bundle.nccl) throw InputError(source, "", "a calibration bundle needs a \"gpu\" or an \"nccl\" section");
  return bundle;
}

nlohmann::json merge_into_bundle(nlohmann::json bundle, BundleSection section, nlohmann::json document,
                                 const std::string& origin) {
  // Check what goes in before it is written: a bundle that cannot be read back is worse than none.
  if (section == BundleSection::kGpu) {
    (void)parse_bundled_gpu(document, origin, "");
  } else {
    (void)parse_nccl_calibration(document, origin, "");
  }
  if (bundle.is_null()) bundle = nlohmann::json{{"ctwin_calibration", "bundle"}};
  if (is_lone_nccl(bundle)) bundle = nlohmann::json{{"ctwin_calibration", "bundle"}, {"nccl", std::move(bundle)}};
  bundle[section == BundleSection::kGpu ? "gpu" : "nccl"] = std::move(document);
  return bundle;
}

void merge_into_bundle_file(const std::filesystem::path& path, BundleSection section, nlohmann::json document,
                            const std::string& origin) {
  nlohmann::json bundle;
  if (path_exists(path)) {
    bundle = load_json_file(path);
    // Refuse to overwrite what is not a calibration (a profile or a scenario given by mistake).
    (void)read_calibration_bundle(path);
  }
  write_profile(merge_into_bundle(std::move(bundle), section, std::move(document), origin), path);
}

}  // namespace ctwin::calibration
