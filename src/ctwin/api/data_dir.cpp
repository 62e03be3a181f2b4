#include "ctwin/api/data_dir.hpp"

#include <cstdlib>

namespace ctwin::api {

std::filesystem::path data_dir() {
  // Read once per call, not cached: a notebook may point it elsewhere between calls.
  if (const char* given = std::getenv("CTWIN_DATA_DIR"); given != nullptr && *given != '\0') return given;
  return CTWIN_SOURCE_DATA_DIR;
}

std::filesystem::path resolve_data_path(const std::string& path) {
  const std::filesystem::path given(path);
  if (given.is_absolute() || std::filesystem::exists(given)) return given;
  const std::filesystem::path bundled = data_dir() / given;
  return std::filesystem::exists(bundled) ? bundled : given;
}

}  // namespace ctwin::api
