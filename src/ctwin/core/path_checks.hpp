#pragma once
// Questions about a path that answer "no" instead of throwing. std::filesystem's throwing forms
// raise filesystem_error for a name past NAME_MAX or PATH_MAX, or a folder that cannot be read,
// and a user's path must not end in an internal error: the reader that then opens it names the
// path in an InputError (issue 36's probe: a 600-character --cluster).

#include <filesystem>
#include <system_error>

namespace ctwin {

[[nodiscard]] inline bool path_exists(const std::filesystem::path& path) {
  std::error_code ignored;
  return std::filesystem::exists(path, ignored);
}

[[nodiscard]] inline bool is_file_path(const std::filesystem::path& path) {
  std::error_code ignored;
  return std::filesystem::is_regular_file(path, ignored);
}

[[nodiscard]] inline bool is_folder_path(const std::filesystem::path& path) {
  std::error_code ignored;
  return std::filesystem::is_directory(path, ignored);
}

}  // namespace ctwin
