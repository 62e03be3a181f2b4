#pragma once
// JSON text as ctwin writes it: every report, file and cache key goes through json_text.

#include <string>

#include <nlohmann/json.hpp>

namespace ctwin {

/// `value` as JSON text (`indent` as nlohmann's dump). Strings a user gave outside a JSON file
/// (a file name, a flag) may hold bytes that are not UTF-8 (a legal Linux file name); they are
/// written as U+FFFD instead of ending the command in nlohmann's type_error.316 (issue 36).
[[nodiscard]] inline std::string json_text(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ctwin
