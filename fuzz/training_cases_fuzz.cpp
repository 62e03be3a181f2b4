// A training-validation cases file (published runs with their scenarios), as `ctwin validate
// --training` reads it; its scenarios resolve against the repository.

#include "ctwin/replay/training_validation.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    const auto root = ctwin::fuzzing::repo_root();
    (void)ctwin::replay::load_training_cases(ctwin::fuzzing::scratch_file(data, size, ".json"), root);
  });
}
