// nccl-tests output, as `ctwin calibrate --nccl` and `ctwin validate` read it, with the checks
// calibration makes before fitting (rank count, self-consistency).

#include <sstream>

#include "ctwin/calibration/nccl_log.hpp"
#include "ctwin/calibration/nccl_log_check.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    std::istringstream in(ctwin::fuzzing::text_of(data, size));
    const auto log = ctwin::calibration::parse_nccl_log(in, "run.log");
    const int ranks = log.ranks.value_or(8);
    ctwin::calibration::require_fit_ready(log, log.op.value_or(ctwin::calibration::NcclOp::kAllReduce), ranks);
  });
}
