#pragma once
// Where ctwin's bundled data lives (models/, topologies/, scenarios/, validation/), so that a
// front end started from any directory finds "topologies/dgx-h100-superpod.json".

#include <filesystem>
#include <string>

namespace ctwin::api {

/// $CTWIN_DATA_DIR when set, else the source tree this ctwin was built from.
[[nodiscard]] std::filesystem::path data_dir();

/// `path` as given when it exists (or is absolute), else the same path under data_dir() when
/// that exists, else as given (so that the reader's error names what the user wrote).
[[nodiscard]] std::filesystem::path resolve_data_path(const std::string& path);

}  // namespace ctwin::api
