// A topology file: strict JSON, the cluster reader, and the build of its first node(s), since
// a cluster the reader accepts must build or be refused with an InputError.

#include <algorithm>

#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    const auto document = ctwin::parse_json_text(ctwin::fuzzing::text_of(data, size), "topology.json");
    const ctwin::fabric::ClusterSpec spec = ctwin::fabric::parse_cluster(document, "topology.json");
    // Two nodes (at most 64 GPUs): a scale-out tier, small enough to stay fast.
    const ctwin::fabric::Fabric built(spec, std::min(2 * spec.server.gpus, 64));
  });
}
