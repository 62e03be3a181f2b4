#pragma once
// Bundled data named by a short name, wherever a file is accepted: "llama3-70b" for
// models/llm/llama3-70b.json, "dgx-h100-superpod" for topologies/dgx-h100-superpod.json. A
// bare name has no '/' and no ".json", so it never shadows a file the user meant. Every command
// that reads such a file resolves it through api::resolve_named, so a name works everywhere.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ctwin {

enum class DataKind { kScenario, kTopology, kModel, kGpu, kAcceptancePlan, kStack };

/// Where bundled data of the kind lives under the data root: "models/llm".
[[nodiscard]] std::string_view data_folder(DataKind kind);
/// How messages call it: "model", "GPU profile".
[[nodiscard]] std::string_view data_kind_name(DataKind kind);

[[nodiscard]] bool is_bare_name(std::string_view text);

/// root/<folder>/<name>.json when `name` is bare and that file exists.
[[nodiscard]] std::optional<std::filesystem::path> find_bundled(const std::filesystem::path& root, DataKind kind,
                                                                std::string_view name);

/// The bundled names of the kind, sorted, comma-separated ("none found" when there are none).
[[nodiscard]] std::string bundled_names(const std::filesystem::path& root, DataKind kind);

}  // namespace ctwin
