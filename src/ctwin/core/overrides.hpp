#pragma once
// Changes to a loaded JSON document before its strict reader reads it: `--set key=value` on the
// command line, `Scenario.with_(...)` in Python. A change is a dotted path into the document and
// a new value. From text, values that parse as JSON keep their type (4, true, {"a":1}); anything
// else is a string ("400Gbps"). Validation is left to the strict reader that reads the document
// next.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctwin {

struct Override {
  std::string path;  ///< dotted: "parallel.tp", "cluster.fabric.oversubscription.leaf", "links.0.bandwidth"
  nlohmann::json value;
};

/// "a.b.c=value" as an Override; a malformed assignment is an InputError naming `origin`.
[[nodiscard]] Override parse_override(const std::string& assignment, const std::string& origin = "--set");

/// Applies each change to `document`. A path with an empty part, or one that walks through a
/// value that is neither object nor array, is an InputError naming `origin`.
void apply_changes(nlohmann::json& document, const std::vector<Override>& changes, const std::string& origin = "--set");

/// The same for "a.b.c=value" assignments.
void apply_overrides(nlohmann::json& document, const std::vector<std::string>& assignments);

}  // namespace ctwin
