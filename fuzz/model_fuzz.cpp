// A model file, ctwin's own or a Hugging Face config.json (the reader picks by its keys), and
// the parameter count and FLOPs every command derives from it.

#include "ctwin/core/json_reader.hpp"
#include "ctwin/workload/hf_config.hpp"
#include "ctwin/workload/model_spec.hpp"
#include "ctwin/workload/parameter_count.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    const auto document = ctwin::parse_json_text(ctwin::fuzzing::text_of(data, size), "model.json");
    const ctwin::workload::ModelSpec model = ctwin::workload::is_hf_config(document)
                                                 ? ctwin::workload::parse_hf_config(document, "model.json")
                                                 : ctwin::workload::parse_model_spec(document, "model.json");
    (void)ctwin::workload::count_parameters(model);
  });
}
