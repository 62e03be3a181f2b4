#include "ctwin/api/data_dir.hpp"

#include <cstdlib>
#include <system_error>

#include "ctwin/core/error.hpp"

namespace ctwin::api {

std::filesystem::path data_dir() {
  // Read once per call, not cached: a notebook may point it elsewhere between calls.
  if (const char* given = std::getenv("CTWIN_DATA_DIR"); given != nullptr && *given != '\0') return given;
  return CTWIN_SOURCE_DATA_DIR;
}

std::filesystem::path resolve_data_path(const std::string& path) {
  // The error_code forms: a name past PATH_MAX (a probe's 600-character '[[[...' flag) makes the
  // throwing ones raise filesystem_error, an internal error; here it is a file that does not
  // exist, and the reader's error names it.
  std::error_code ignored;
  const std::filesystem::path given(path);
  if (given.is_absolute() || std::filesystem::exists(given, ignored)) return given;
  const std::filesystem::path bundled = data_dir() / given;
  return std::filesystem::exists(bundled, ignored) ? bundled : given;
}

std::filesystem::path resolve_named(const std::string& name_or_path, DataKind kind, const std::string& origin) {
  if (name_or_path == "-") return name_or_path;
  const std::filesystem::path given = resolve_data_path(name_or_path);
  std::error_code ignored;
  if (std::filesystem::exists(given, ignored)) return given;
  if (auto bundled = find_bundled(data_dir(), kind, name_or_path)) return *bundled;
  if (!is_bare_name(name_or_path)) return given;
  const std::string what = "no such file or bundled " + std::string(data_kind_name(kind));
  const std::string bundled = " (bundled: " + bundled_names(data_dir(), kind) + ")";
  if (origin.empty()) throw InputError(name_or_path, "", what + bundled);
  throw InputError(origin, "", "'" + name_or_path + "': " + what + bundled);
}

}  // namespace ctwin::api
