// Library layering (docs/architecture.md, Layers): a layer includes only layers to its left in
//   core -> engine -> fabric -> network -> ... -> api -> {plan, acceptance, studies, validation} -> cli
// with engine and fabric side by side (fabric does not use the engine). Checked on the sources
// by scanning every #include "ctwin/<layer>/..." under src/ctwin/<layer>/.

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// What each layer may include besides itself.
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> kAllowed{
      {"core", {}},
      {"engine", {"core"}},
      {"fabric", {"core"}},
      {"network", {"core", "engine", "fabric"}},
      {"collectives", {"core", "engine", "fabric", "network"}},
      {"compute", {"core"}},
      {"workload", {"core", "compute"}},
      {"replay", {"core", "engine", "fabric", "network", "collectives", "compute", "workload"}},
      {"analysis", {"core", "engine", "fabric", "network", "collectives", "compute", "workload", "replay"}},
      {"calibration", {"core", "engine", "fabric", "network", "collectives", "compute"}},
      {"api", {"core", "engine", "fabric", "network", "collectives", "compute", "calibration", "workload", "replay",
               "analysis"}},
      // The domains over the evaluation API, side by side: none includes another.
      {"plan", {"core", "engine", "fabric", "network", "collectives", "compute", "calibration", "workload", "replay",
                "analysis", "api"}},
      {"acceptance", {"core", "engine", "fabric", "network", "collectives", "compute", "calibration", "workload", "replay",
                   "analysis", "api"}},
      {"studies", {"core", "engine", "fabric", "network", "collectives", "compute", "calibration", "workload", "replay",
                "analysis", "api"}},
      {"validation", {"core", "engine", "fabric", "network", "collectives", "compute", "calibration", "workload", "replay",
                   "analysis", "api"}},
      {"cli", {"core", "engine", "fabric", "network", "collectives", "compute", "calibration", "workload", "replay",
               "analysis", "api", "plan", "acceptance", "studies", "validation"}},
  };
  return kAllowed;
}

struct Include {
  std::string file;  // relative to src/
  int line = 0;
  std::string layer;
};

bool is_source(const fs::path& path) {
  const auto ext = path.extension();
  return ext == ".hpp" || ext == ".cpp" || ext == ".h" || ext == ".cc";
}

std::vector<Include> ctwin_includes(const fs::path& file, const fs::path& src) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*["<]ctwin/([A-Za-z0-9_]+)/)");
  std::vector<Include> found;
  std::ifstream in(file);
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    std::smatch match;
    if (std::regex_search(text, match, kInclude)) {
      found.push_back({fs::relative(file, src).string(), line, match[1].str()});
    }
  }
  return found;
}

const fs::path kSrc = fs::path(CTWIN_SOURCE_DIR) / "src";

TEST(Layering, EveryLayerDirectoryIsKnown) {
  std::set<std::string> present;
  for (const auto& entry : fs::directory_iterator(kSrc / "ctwin")) {
    if (entry.is_directory()) present.insert(entry.path().filename().string());
  }
  for (const auto& [layer, below] : allowed()) {
    EXPECT_TRUE(present.count(layer)) << "src/ctwin/" << layer << " is missing";
  }
  for (const auto& layer : present) {
    EXPECT_TRUE(allowed().count(layer)) << "src/ctwin/" << layer
                                        << " is not in this test's layer list: add it to allowed() with its place";
  }
}

TEST(Layering, LayersIncludeOnlyLayersToTheirLeft) {
  std::size_t files = 0;
  std::size_t includes = 0;
  for (const auto& [layer, below] : allowed()) {
    const fs::path dir = kSrc / "ctwin" / layer;
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || !is_source(entry.path())) continue;
      ++files;
      for (const Include& include : ctwin_includes(entry.path(), kSrc)) {
        ++includes;
        const bool ok = include.layer == layer || below.count(include.layer) > 0;
        EXPECT_TRUE(ok) << include.file << ':' << include.line << ": layer '" << layer << "' includes ctwin/"
                        << include.layer << "/ (allowed: itself"
                        << [&allowed = below] {  // clang 14 cannot capture a structured binding by name
                             std::string list;
                             for (const auto& b : allowed) list += ", " + b;
                             return list;
                           }()
                        << ')';
      }
    }
  }
  // Not vacuous: the scan saw the sources and their includes.
  EXPECT_GE(files, 30U);
  EXPECT_GE(includes, 50U);
}

TEST(Layering, ScannerRecognisesIncludeForms) {
  const fs::path dir = fs::temp_directory_path() / ("ctwin-layering-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "sample.cpp";
  std::ofstream(file) << "#include \"ctwin/core/units.hpp\"\n"
                         "  #  include <ctwin/network/flow_model.hpp>\n"
                         "#include \"other/ctwin/fabric/x.hpp\"\n"
                         "// #include is not at the start\n"
                         "#include <vector>\n";
  const auto found = ctwin_includes(file, dir);
  fs::remove_all(dir);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].layer, "core");
  EXPECT_EQ(found[0].line, 1);
  EXPECT_EQ(found[1].layer, "network");
  EXPECT_EQ(found[1].line, 2);
}

}  // namespace
