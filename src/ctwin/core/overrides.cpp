#include "ctwin/core/overrides.hpp"

#include <charconv>
#include <string_view>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/limits.hpp"

namespace ctwin {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    const std::size_t end = dot == std::string_view::npos ? path.size() : dot;
    parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// Valid JSON keeps its type, read as strictly as a file (a repeated key is an error); anything
// else, a number beyond double's range included, stays the string it was.
nlohmann::json parse_value(const std::string& text) {
  if (!nlohmann::json::accept(text)) return nlohmann::json(text);
  return parse_json_text(text, "--set");
}

}  // namespace

Override parse_override(const std::string& assignment, const std::string& origin) {
  // Files are UTF-8 by the JSON grammar; a flag can hold any bytes, and a key or value that is
  // not UTF-8 would fail later, inside an error message (found by fuzz/overrides_fuzz.cpp).
  try {
    (void)nlohmann::json(assignment).dump();
  } catch (const nlohmann::json::type_error&) {
    throw InputError(origin, "", nlohmann::json(assignment).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                                     " is not valid UTF-8");
  }
  const std::size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw InputError(origin, "", "expected key=value, got '" + assignment + "'");
  }
  return {assignment.substr(0, equals), parse_value(assignment.substr(equals + 1))};
}

void apply_changes(nlohmann::json& document, const std::vector<Override>& changes, const std::string& origin) {
  for (const Override& change : changes) {
    const std::string& key = change.path;
    const auto parts = split_path(key);
    // Each part is a level of nesting the document then holds (see limits::kMaxJsonDepth).
    if (parts.size() > limits::kMaxJsonDepth) {
      throw InputError(origin, "", "'" + key.substr(0, 40) + "...' has more than " +
                                       std::to_string(limits::kMaxJsonDepth) + " parts");
    }
    nlohmann::json* node = &document;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      if (part.empty()) throw InputError(origin, "", "empty field name in '" + key + "'");
      const bool last = i + 1 == parts.size();
      if (node->is_array()) {
        std::size_t index = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
        if (ec != std::errc() || end != part.data() + part.size() || index >= node->size()) {
          throw InputError(origin, "", "'" + part + "' in '" + key + "' is not an index of a " +
                                           std::to_string(node->size()) + "-element array");
        }
        node = &(*node)[index];
      } else if (node->is_object() || node->is_null()) {
        if (node->is_null()) *node = nlohmann::json::object();
        node = &(*node)[part];
      } else {
        throw InputError(origin, "", "cannot set '" + key + "': '" + parts[i - 1] + "' is a " + node->type_name() +
                                         ", not an object");
      }
      if (last) *node = change.value;
    }
  }
}

void apply_overrides(nlohmann::json& document, const std::vector<std::string>& assignments) {
  std::vector<Override> changes;
  changes.reserve(assignments.size());
  for (const std::string& assignment : assignments) changes.push_back(parse_override(assignment));
  apply_changes(document, changes);
}

}  // namespace ctwin
