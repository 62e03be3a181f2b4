// `--degrade` terms, one per input line, parsed against a 16-GPU DGX H100 build and applied to
// it, as `ctwin run --degrade` and `accept --synthesize` do: tiny shares (issue 36's
// nic:3=1e-12, gpu:3=1e-300) must be refused by the floor, not reach the flow solver.

#include <sstream>
#include <string>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ctwin::fabric::ClusterSpec kSpec =
      ctwin::fabric::load_cluster(ctwin::fuzzing::repo_root() / "topologies/dgx-h100-superpod.json");
  std::istringstream lines(ctwin::fuzzing::text_of(data, size));
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    ctwin::fabric::Fabric degraded(kSpec, 16);
    for (std::string line; std::getline(lines, line);) {
      const auto degradation = ctwin::fabric::parse_degradation(line, "--degrade", degraded);
      ctwin::fabric::apply_degradation(degraded, degradation);
      (void)ctwin::fabric::term(degraded, degradation);
    }
  });
}
