#pragma once
// `--set key=value` on the command line: a dotted path into a loaded JSON document and a new
// value. Values that parse as JSON keep their type (4, true, {"a":1}); anything else is a
// string ("400Gbps"). Validation is left to the strict reader that reads the document next.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctwin {

/// Applies each "a.b.c=value" to `document`. A malformed assignment, or a path that walks
/// through a value that is neither object nor array, is an InputError naming the flag.
void apply_overrides(nlohmann::json& document, const std::vector<std::string>& assignments);

}  // namespace ctwin
