#pragma once
// Where ctwin's bundled data lives (models/, topologies/, scenarios/, validation/), so that a
// front end started from any directory finds "topologies/dgx-h100-superpod.json".

#include <filesystem>
#include <string>

#include "ctwin/core/bundled_names.hpp"

namespace ctwin::api {

/// $CTWIN_DATA_DIR when set, else the source tree this ctwin was built from.
[[nodiscard]] std::filesystem::path data_dir();

/// `path` as given when it exists (or is absolute), else the same path under data_dir() when
/// that exists, else as given (so that the reader's error names what the user wrote).
[[nodiscard]] std::filesystem::path resolve_data_path(const std::string& path);

/// A file named as a path (tried as resolve_data_path does), as a bundled name of the kind
/// ("llama3-70b", "dgx-h100-superpod"), or "-" for standard input. A bare name that is neither
/// is an InputError naming `origin` (a flag; empty: the name itself) and listing the bundled
/// names; any other path is returned as given, so that the reader's error says what is wrong with it.
[[nodiscard]] std::filesystem::path resolve_named(const std::string& name_or_path, DataKind kind,
                                                  const std::string& origin = "");

}  // namespace ctwin::api
