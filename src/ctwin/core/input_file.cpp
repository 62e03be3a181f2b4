#include "ctwin/core/input_file.hpp"

#include <fstream>
#include <iostream>
#include <system_error>

#include "ctwin/core/error.hpp"

namespace ctwin {

namespace {

std::string read_stream(std::istream& in, const std::string& source) {
  // No input ctwin reads comes near this; reading stops there, so a device such as /dev/zero
  // given as a file is refused instead of read forever.
  constexpr std::size_t kMaxBytes = std::size_t{1} << 28;
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxBytes) throw InputError(source, "", "larger than 256 MiB: not an input file");
  }
  if (in.bad()) throw InputError(source, "", "cannot be read");
  return text;
}

}  // namespace

std::string input_source_name(const std::filesystem::path& path) { return path == "-" ? "<stdin>" : path.string(); }

std::string read_input_file(const std::filesystem::path& path) {
  if (path == "-") return read_stream(std::cin, input_source_name(path));
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw InputError(path.string(), "", "is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "cannot open file");
  return read_stream(in, path.string());
}

}  // namespace ctwin
