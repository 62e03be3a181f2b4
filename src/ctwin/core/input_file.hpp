#pragma once
// Reading a whole input file, with the failures a user can cause (a missing file, a directory
// where a file belongs, an unreadable file) as InputErrors naming the path.

#include <filesystem>
#include <string>

namespace ctwin {

/// The file's bytes; "-" is standard input. Throws InputError naming `path` for a directory, a
/// missing or unreadable file, or one larger than 256 MiB (no input ctwin reads comes near it;
/// /dev/zero is refused).
[[nodiscard]] std::string read_input_file(const std::filesystem::path& path);

/// How messages name the input: the path, or "<stdin>" for "-".
[[nodiscard]] std::string input_source_name(const std::filesystem::path& path);

}  // namespace ctwin
