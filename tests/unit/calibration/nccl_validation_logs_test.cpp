// The committed nccl-tests validation logs (validation/nccl, re-rendered from the shared
// transcription by render_logs.py) read back through the same reader calibration uses: every
// log parses, has the rows its manifest says, and agrees with itself within its printed rounding.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/nccl_log.hpp"
#include "ctwin/calibration/nccl_log_check.hpp"
#include "ctwin/calibration/nccl_op.hpp"

namespace ctwin::calibration {
namespace {

namespace fs = std::filesystem;
const fs::path kFolder = fs::path(CTWIN_SOURCE_DIR) / "validation/nccl";

nlohmann::json manifest() {
  std::ifstream in(kFolder / "setups.json");
  return nlohmann::json::parse(in);
}

TEST(NcclValidationLogs, EveryLogParsesWithTheManifestsRowsAndIsConsistent) {
  const nlohmann::json logs = manifest().at("logs");
  ASSERT_GE(logs.size(), 100U);
  for (const nlohmann::json& entry : logs) {
    const std::string id = entry.at("id");
    SCOPED_TRACE(id);
    const std::optional<NcclOp> op = parse_nccl_op(entry.at("op").get<std::string>());
    ASSERT_TRUE(op.has_value());
    const NcclLog log = read_nccl_log(kFolder / entry.at("log").get<std::string>());
    EXPECT_EQ(log.op, op) << "the log's '# collective: <op>_perf' line names the op";
    EXPECT_EQ(log.rows.size(), entry.at("rows").get<std::size_t>());
    EXPECT_EQ(log.skipped_lines, 0);
    for (const NcclRow& row : log.rows) EXPECT_EQ(row.in_place.has_value(), entry.at("in_place").get<bool>());
    if (entry.at("avg_busbw_GBps").is_null()) {
      EXPECT_FALSE(log.avg_busbw_GBps.has_value());
    } else {
      EXPECT_EQ(log.avg_busbw_GBps, entry.at("avg_busbw_GBps").get<double>());
    }
    for (const NcclInconsistency& bad : find_inconsistencies(log, *op, entry.at("nranks").get<int>())) {
      ADD_FAILURE() << "line " << bad.line << ' ' << bad.group << ' ' << bad.field << ' ' << bad.printed
                    << " GB/s, expected " << bad.expected << " +- " << bad.tolerance;
    }
  }
}

TEST(NcclValidationLogs, ManifestMapsEachLogToATopologyOrSaysWhyNot) {
  const std::set<std::string> roles = {"check", "underperforming"};
  // The manifest held by name: a range-for over manifest().at(...) walks a freed temporary
  // (AddressSanitizer's heap-use-after-free under scripts/test.sh --sanitize).
  const nlohmann::json document = manifest();
  for (const nlohmann::json& entry : document.at("logs")) {
    SCOPED_TRACE(entry.at("id").get<std::string>());
    EXPECT_TRUE(roles.contains(entry.at("role").get<std::string>()));
    EXPECT_FALSE(entry.at("topology_note").get<std::string>().empty());
    if (!entry.at("topology").is_null()) {
      EXPECT_TRUE(fs::exists(fs::path(CTWIN_SOURCE_DIR) / entry.at("topology").get<std::string>()));
    }
    EXPECT_LE(entry.at("nranks").get<int>(), entry.at("nodes").get<int>() * entry.at("gpus_per_node").get<int>());
    const nlohmann::json& flags = entry.at("quality_flags");
    const bool degraded = std::find(flags.begin(), flags.end(), "reported_as_underperforming") != flags.end();
    if (degraded) {
      EXPECT_EQ(entry.at("role"), "underperforming") << "a degraded run must not check the defaults";
    }
  }
}

}  // namespace
}  // namespace ctwin::calibration
