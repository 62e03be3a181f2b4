// One file of an `accept --measured` folder, checked against the bundled quick plan on 512 DGX
// H100 GPUs: the input's first line is the file's name (its extension picks the reader: .csv,
// nccl-tests .log, ib_send_bw/osu .txt), the rest its text. Issue 36: measured rates a build
// cannot reach were compared as measurements; whatever a file holds, reading the folder ends
// in the set or in an InputError naming the file and line.

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "ctwin/acceptance/acceptance_check.hpp"
#include "ctwin/acceptance/acceptance_plan.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ctwin::api::AcceptancePlan kPlan =
      ctwin::api::load_acceptance_plan((ctwin::fuzzing::repo_root() / "scenarios/acceptance/quick.json").string());
  static const ctwin::fabric::Fabric kBuild(
      ctwin::api::attach_gpu_arch(ctwin::fabric::load_cluster(ctwin::fuzzing::repo_root() / "topologies/dgx-h100-superpod.json")),
      512);
  static const std::filesystem::path kFolder =
      std::filesystem::temp_directory_path() / ("ctwin-fuzz-measured-" + std::to_string(::getpid()));
  const std::string text = ctwin::fuzzing::text_of(data, size);
  const auto newline = text.find('\n');
  std::string name = text.substr(0, newline == std::string::npos ? 0 : newline);
  // One plain name inside the folder; anything else would write outside it.
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == ".." || name.size() > 200) {
    name = "measured.csv";
  }
  std::error_code ignored;
  std::filesystem::remove_all(kFolder, ignored);
  std::filesystem::create_directories(kFolder);
  std::ofstream(kFolder / name, std::ios::binary) << (newline == std::string::npos ? text : text.substr(newline + 1));
  return ctwin::fuzzing::expect_input_error_at_most(
      [&] { (void)ctwin::api::read_measured(kFolder.string(), kPlan, kBuild); });
}
