// A measured-layer file, as `ctwin layer --measured FILE` reads it.

#include "ctwin/replay/layer_times.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    (void)ctwin::replay::read_layer_measurements(ctwin::fuzzing::scratch_file(data, size, ".json"));
  });
}
