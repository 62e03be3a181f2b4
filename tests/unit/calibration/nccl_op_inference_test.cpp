// calibrate --nccl asked for --op on standard nccl-tests logs (issue 35): older nccl-tests print
// no "<op>_perf" line, and neither does a log saved without its command. The op now comes from
// the file's name or the columns nccl-tests prints per op.

#include "ctwin/calibration/nccl_op_inference.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ctwin/core/error.hpp"
#include "source_root.hpp"

namespace ctwin::calibration {
namespace {

// A bundled log with every line naming its op ("all_reduce_perf") removed, read as `source`.
NcclLog without_op_line(const std::string& bundled, const std::string& source) {
  std::ifstream in(kRoot + "/validation/nccl/logs/" + bundled + ".log");
  std::stringstream kept;
  for (std::string line; std::getline(in, line);) {
    if (line.find("_perf") == std::string::npos) kept << line << '\n';
  }
  return parse_nccl_log(kept, source);
}

TEST(NcclOpInference, TheColumnsNameTheOpOfAStandardLog) {
  for (const auto& [bundled, op] : std::vector<std::pair<std::string, NcclOp>>{
           {"aic-h100_sxm-all_reduce-half-8gpu", NcclOp::kAllReduce},
           {"aic-h100_sxm-reduce_scatter-half-8gpu", NcclOp::kReduceScatter},
           {"aic-h100_sxm-all_reduce-half-2gpu", NcclOp::kAllReduce},
           {"nccltests-309-gj-2node-allreduce-default", NcclOp::kAllReduce}}) {
    const NcclLog log = without_op_line(bundled, "run.log");
    ASSERT_FALSE(log.op) << bundled;
    const int ranks = bundled.ends_with("2gpu") ? 2 : bundled.ends_with("8gpu") ? 8 : 16;
    EXPECT_EQ(infer_nccl_op(log, ranks), op) << bundled;
  }
}

TEST(NcclOpInference, AllGatherAndAlltoallNeedTheirNameOrOp) {
  const NcclLog unnamed = without_op_line("aic-h100_sxm-all_gather-half-8gpu", "run.log");
  try {
    (void)infer_nccl_op(unnamed, 8);
    ADD_FAILURE() << "an unnamed all_gather was guessed";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("run.log"), std::string::npos) << what;
    EXPECT_NE(what.find("give --op"), std::string::npos) << what;
  }
  EXPECT_EQ(infer_nccl_op(without_op_line("aic-h100_sxm-all_gather-half-8gpu", "h100-allgather-8.log"), 8), NcclOp::kAllGather);
  EXPECT_EQ(infer_nccl_op(without_op_line("aic-h100_sxm-alltoall-half-8gpu", "logs/alltoall.txt"), 8), NcclOp::kAlltoall);
}

TEST(NcclOpInference, FileNamesNameOneCollectiveOrNone) {
  EXPECT_EQ(op_from_file_name("/x/all_reduce.log"), NcclOp::kAllReduce);
  EXPECT_EQ(op_from_file_name("ReduceScatter-16.log"), NcclOp::kReduceScatter);
  EXPECT_EQ(op_from_file_name("reduce_perf.log"), NcclOp::kReduce);
  EXPECT_EQ(op_from_file_name("run.log"), std::nullopt);
  EXPECT_EQ(op_from_file_name("allreduce-vs-allgather.log"), std::nullopt);
}

}  // namespace
}  // namespace ctwin::calibration
