// Every build warning's advice, taken: each `field=value` a warning's fix suggests is applied to
// the build that raised it, and the build must then load and the warning be gone. Issue 36: a
// 3.2 Tb/s NIC was advised `server.pcie.generation=8`, which the topology reader refuses.

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/core/overrides.hpp"

namespace ctwin::api {
namespace {

// Builds that raise each check ctwin makes of a topology (fabric/build_checks.cpp and
// ignored_fields); a check missing here fails FixesCoverEveryCheckWithAValue.
struct Trigger {
  std::string topology;
  std::int64_t gpus;
  std::vector<std::string> changes;
};

const std::vector<Trigger>& triggers() {
  static const std::vector<Trigger> all = {
      {"dgx-h100-superpod", 64, {"server.nics.bandwidth=800Gbps"}},    // above Gen5 and above the switch port
      {"dgx-h100-superpod", 64, {"server.nics.bandwidth=3200Gbps"}},   // past Gen7: issue 36's Gen8 advice
      {"dgx-h100-superpod", 64, {"server.nics.bandwidth=1600Gbps"}},   // Gen7 carries it
      {"pcie-l40s", 16, {}},                                           // the bundled Gen4 server with 400G NICs
      {"dgx-h100-superpod", 1024, {"fabric.oversubscription.leaf=2"}},  // rail-optimized leaves left idle
      {"dgx-h100-superpod", 1024, {"fabric.kind=top_of_rack"}},         // fields the kind ignores
      {"dgx-h100-superpod", 1280, {}},                                  // spines stranding ports
  };
  return all;
}

Build build_of(const Trigger& trigger, const std::vector<std::string>& more = {}) {
  Build build;
  build.cluster = trigger.topology;
  build.gpus = trigger.gpus;
  for (const auto& change : trigger.changes) build.changes.push_back(parse_override(change));
  for (const auto& change : more) build.changes.push_back(parse_override(change));
  return build;
}

// The alternatives a fix offers ("A, B) or NICs of ... (C)"), each as the assignments it names.
std::vector<std::vector<std::string>> suggested_settings(const std::string& fix) {
  static const std::regex alternative(" or ");
  static const std::regex assignment(R"(([a-z_]+(\.[a-z0-9_]+)+)=([^\s,;)]+))");
  std::vector<std::vector<std::string>> out;
  for (std::sregex_token_iterator it(fix.begin(), fix.end(), alternative, -1), end; it != end; ++it) {
    const std::string part = *it;
    std::vector<std::string> settings;
    for (std::sregex_iterator m(part.begin(), part.end(), assignment), none; m != none; ++m) settings.push_back((*m)[0]);
    if (!settings.empty()) out.push_back(settings);
  }
  return out;
}

std::size_t count_of(const std::vector<fabric::BuildWarning>& warnings, const std::string& check) {
  return static_cast<std::size_t>(
      std::count_if(warnings.begin(), warnings.end(), [&](const auto& w) { return w.check == check; }));
}

TEST(BuildWarningFixes, EverySuggestedSettingLoadsAndSilencesItsWarning) {
  std::size_t applied = 0;
  for (const Trigger& trigger : triggers()) {
    const auto warnings = build_warnings(build_of(trigger));
    ASSERT_FALSE(warnings.empty()) << trigger.topology << " " << trigger.gpus;
    for (const auto& warning : warnings) {
      for (const auto& settings : suggested_settings(warning.fix)) {
        SCOPED_TRACE(warning.check + ": " + warning.fix);
        std::vector<fabric::BuildWarning> after;
        ASSERT_NO_THROW(after = build_warnings(build_of(trigger, settings)));
        EXPECT_LT(count_of(after, warning.check), count_of(warnings, warning.check));
        for (const auto& other : after) EXPECT_NE(other.message, warning.message);
        ++applied;
      }
    }
  }
  EXPECT_GE(applied, 9u);
}

TEST(BuildWarningFixes, AdviceNeverNamesAPcieGenerationTheReaderRefuses) {
  const auto warnings = build_warnings(build_of(triggers()[1]));
  ASSERT_EQ(count_of(warnings, "nic_above_pcie"), 1u);
  const std::string& fix = warnings.front().fix;
  EXPECT_EQ(fix.find("generation=8"), std::string::npos) << fix;
  EXPECT_NE(fix.find("no PCIe generation up to Gen7"), std::string::npos) << fix;
  EXPECT_NE(fix.find("server.nics.bandwidth=504Gbps"), std::string::npos) << fix;
}

// Each check whose fix can name a value has a trigger above, so its advice is taken here.
TEST(BuildWarningFixes, FixesCoverEveryCheckWithAValue) {
  std::set<std::string> with_values;
  for (const Trigger& trigger : triggers()) {
    for (const auto& warning : build_warnings(build_of(trigger))) {
      if (!suggested_settings(warning.fix).empty()) with_values.insert(warning.check);
    }
  }
  EXPECT_EQ(with_values, (std::set<std::string>{"ignored_field", "leaf_ports_idle", "nic_above_pcie",
                                                 "nic_above_switch_port"}));
}

}  // namespace
}  // namespace ctwin::api
