#pragma once
// Where the unit tests find the repository's bundled files (CMake passes the source folder).
// One definition for every test file, so that test files can share a unity batch.

#include <filesystem>
#include <string>

namespace ctwin {

/// The repository root, for `kRoot + "/scenarios/..."`.
inline const std::string kRoot = CTWIN_SOURCE_DIR;
/// The same folder as a path, for `kRootDir / "validation/..."`.
inline const std::filesystem::path kRootDir = CTWIN_SOURCE_DIR;
/// The bundled default scenario (Llama 3 8B on 64 H100).
inline const std::string kDefaultScenario = kRoot + "/scenarios/default.json";

}  // namespace ctwin
