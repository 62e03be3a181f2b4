// A plan or sweep shard as `--merge` reads it: the input is one shard's JSON, merged with itself
// (plan) and alone (sweep). Issue 36: an edited shard printed a step of -5 s and an MFU of 750 %,
// and a grid_points of 10^18 was std::bad_alloc; merged figures are re-validated field by field.

#include <string>
#include <vector>

#include "ctwin/plan/plan.hpp"
#include "ctwin/studies/sweep.hpp"
#include "ctwin/core/json_reader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    const nlohmann::json shard = ctwin::parse_json_text(ctwin::fuzzing::text_of(data, size), "shard.json");
    if (shard.is_object() && shard.contains("axes")) {
      (void)ctwin::api::merge_sweeps({shard}, {"shard.json"});
    } else {
      (void)ctwin::api::plan_json(ctwin::api::merge_plans({shard, shard}, {"a.json", "b.json"}), 0);
    }
  });
}
