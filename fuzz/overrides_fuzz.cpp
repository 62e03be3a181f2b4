// `--set key=value` strings, one per input line, applied to the default scenario and read
// back as `ctwin run` reads it.

#include <sstream>
#include <string>
#include <vector>

#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/scenario.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const nlohmann::json kDefault =
      ctwin::load_json_file(ctwin::fuzzing::repo_root() / "scenarios/default.json");
  std::vector<std::string> assignments;
  std::istringstream lines(ctwin::fuzzing::text_of(data, size));
  for (std::string line; std::getline(lines, line);) assignments.push_back(line);
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    const auto root = ctwin::fuzzing::repo_root();
    (void)ctwin::replay::parse_scenario(kDefault, "scenarios/default.json", root / "scenarios", root, assignments);
  });
}
