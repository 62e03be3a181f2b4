// A scenario file, with its model, cluster and GPU resolved against the repository, validated
// as `ctwin run` validates it (split, memory and time bounds), without the replay.

#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/scenario.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    auto document = ctwin::parse_json_text(ctwin::fuzzing::text_of(data, size), "scenario.json");
    const auto root = ctwin::fuzzing::repo_root();
    (void)ctwin::replay::parse_scenario(std::move(document), "scenario.json", root, root);
  });
}
