// Library layering (docs/architecture.md, Layers): a layer includes only layers to its left in
//   core -> engine -> fabric -> network -> ... -> api -> {plan, acceptance, studies, validation} -> cli
// with engine and fabric side by side (fabric does not use the engine). Checked on the sources
// by scanning every #include "ctwin/<layer>/..." under src/ctwin/<layer>/. The front ends (cli/
// and the Python core, python/src/) include only the public boundary: core and api, the domains
// over api reaching them through api/public_<domain>.hpp (docs/architecture.md, "The public
// boundary"). Those four headers are the one place api/ names a layer above it, so no library
// file may include them.

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

// What a front end may include: the lower layers' types and the domains it uses reach it through
// api/public_*.hpp.
const std::set<std::string>& public_boundary() {
  static const std::set<std::string> kPublic{"core", "api"};
  return kPublic;
}

// The domains over api; each has one header in api/ that front ends include instead of its own.
const std::set<std::string>& domains() {
  static const std::set<std::string> kDomains{"plan", "acceptance", "studies", "validation"};
  return kDomains;
}

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
      {"cli", public_boundary()},
  };
  return kAllowed;
}

struct Include {
  std::string file;  // relative to src/
  int line = 0;
  std::string layer;
  std::string path;  // what is included, below ctwin/<layer>/
};

// The domain whose boundary header `file` (relative to src/) is: "plan" for ctwin/api/public_plan.hpp;
// empty for any other file.
std::string boundary_domain_of(const std::string& file) {
  static const std::regex kBoundary(R"(^ctwin/api/public_([a-z]+)\.hpp$)");
  std::smatch match;
  if (std::regex_match(file, match, kBoundary) && domains().count(match[1].str()) > 0) return match[1].str();
  return "";
}

bool is_source(const fs::path& path) {
  const auto ext = path.extension();
  return ext == ".hpp" || ext == ".cpp" || ext == ".h" || ext == ".cc";
}

std::vector<Include> ctwin_includes(const fs::path& file, const fs::path& src) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*["<]ctwin/([A-Za-z0-9_]+)/([A-Za-z0-9_./]+)[">])");
  std::vector<Include> found;
  std::ifstream in(file);
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    std::smatch match;
    if (std::regex_search(text, match, kInclude)) {
      found.push_back({fs::relative(file, src).string(), line, match[1].str(), match[2].str()});
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
      const std::string boundary_of = boundary_domain_of(fs::relative(entry.path(), kSrc).string());
      for (const Include& include : ctwin_includes(entry.path(), kSrc)) {
        ++includes;
        const bool ok = include.layer == layer || below.count(include.layer) > 0 || include.layer == boundary_of;
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

// Library files that include a domain's boundary header, as "file:line: ctwin/api/<header>": api/
// would then depend on a domain above it, or one domain on another.
std::vector<std::string> boundary_headers_included(const fs::path& file, const fs::path& root) {
  std::vector<std::string> found;
  for (const Include& include : ctwin_includes(file, root)) {
    const std::string target = "ctwin/" + include.layer + "/" + include.path;
    if (!boundary_domain_of(target).empty()) {
      found.push_back(include.file + ":" + std::to_string(include.line) + ": " + target);
    }
  }
  return found;
}

TEST(Layering, OnlyFrontEndsIncludeTheDomainsBoundaryHeaders) {
  std::size_t headers = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kSrc / "ctwin")) {
    if (!entry.is_regular_file() || !is_source(entry.path())) continue;
    const std::string file = fs::relative(entry.path(), kSrc).string();
    if (!boundary_domain_of(file).empty()) ++headers;
    if (file.rfind("ctwin/cli/", 0) == 0) continue;
    for (const std::string& bad : boundary_headers_included(entry.path(), kSrc)) {
      ADD_FAILURE() << bad << " is a front end's header: a library layer includes the domain itself, if allowed";
    }
  }
  EXPECT_EQ(headers, domains().size()) << "one api/public_<domain>.hpp per domain";
}

// Includes of `file` outside `allowed` (and `own`), as "file:line: ctwin/<layer>/".
std::vector<std::string> outside(const fs::path& file, const fs::path& root, const std::string& own,
                                 const std::set<std::string>& allowed) {
  std::vector<std::string> found;
  for (const Include& include : ctwin_includes(file, root)) {
    if (include.layer != own && allowed.count(include.layer) == 0) {
      found.push_back(include.file + ":" + std::to_string(include.line) + ": ctwin/" + include.layer + "/");
    }
  }
  return found;
}

TEST(Layering, PythonCoreIncludesOnlyThePublicBoundary) {
  const fs::path dir = fs::path(CTWIN_SOURCE_DIR) / "python" / "src";
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || !is_source(entry.path())) continue;
    ++files;
    for (const std::string& bad : outside(entry.path(), dir, "", public_boundary())) {
      ADD_FAILURE() << "python/src/" << bad << " is below the public boundary: name it through an api/ header";
    }
  }
  EXPECT_GE(files, 10U);
}

// The rule bites: a front end reaching into replay/ or straight into a domain is caught, one
// through api/ is not.
TEST(Layering, FrontEndBelowTheBoundaryIsCaught) {
  const fs::path dir = fs::temp_directory_path() / ("ctwin-frontend-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "run_command.cpp";
  std::ofstream(file) << "#include \"ctwin/api/evaluate.hpp\"\n"
                         "#include \"ctwin/api/public_replay.hpp\"\n"
                         "#include \"ctwin/api/public_studies.hpp\"\n"
                         "#include \"ctwin/studies/sweep.hpp\"\n"
                         "#include \"ctwin/replay/training_step.hpp\"\n";
  const auto bad = outside(file, dir, "cli", allowed().at("cli"));
  fs::remove_all(dir);
  ASSERT_EQ(bad.size(), 2U);
  EXPECT_EQ(bad[0], "run_command.cpp:4: ctwin/studies/");
  EXPECT_EQ(bad[1], "run_command.cpp:5: ctwin/replay/");
}

// A library file including a domain's boundary header is caught (plan would reach studies through
// it); the domain's own header is not.
TEST(Layering, LibraryIncludingABoundaryHeaderIsCaught) {
  const fs::path dir = fs::temp_directory_path() / ("ctwin-boundary-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "plan_space.cpp";
  std::ofstream(file) << "#include \"ctwin/plan/plan.hpp\"\n"
                         "#include \"ctwin/api/public_replay.hpp\"\n"
                         "#include \"ctwin/api/public_studies.hpp\"\n";
  const auto bad = boundary_headers_included(file, dir);
  fs::remove_all(dir);
  ASSERT_EQ(bad.size(), 1U);
  EXPECT_EQ(bad[0], "plan_space.cpp:3: ctwin/api/public_studies.hpp");
  EXPECT_EQ(boundary_domain_of("ctwin/api/public_plan.hpp"), "plan");
  EXPECT_EQ(boundary_domain_of("ctwin/api/public_replay.hpp"), "");
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
