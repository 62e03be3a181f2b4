#include "ctwin/calibration/nccl_comparison.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::calibration {

int nccl_type_bytes(const std::string& type, const std::string& source) {
  if (type == "int8" || type == "uint8" || type == "fp8_e4m3" || type == "fp8_e5m2") return 1;
  if (type == "half" || type == "bfloat16" || type == "bf16" || type == "fp16") return 2;
  if (type == "float" || type == "int32" || type == "uint32" || type == "int" || type == "uint") return 4;
  if (type == "double" || type == "int64" || type == "uint64") return 8;
  throw InputError(source, "", "unknown nccl-tests type '" + type + "' (expected int8, half, bfloat16, float, double, ...)");
}

LogComparison compare_with_log(const NcclLog& log, collectives::Op op, const fabric::Fabric& fabric,
                               collectives::CollectiveQuery query) {
  query.op = op;
  query.sizes.clear();
  if (log.rows.empty()) throw InputError(log.source, "", "has no data rows");
  const std::string type = log.rows.front().type.empty() ? "float" : log.rows.front().type;
  query.element_bytes = nccl_type_bytes(type, log.source);
  for (const NcclRow& row : log.rows) {
    if (!row.type.empty() && row.type != type) {
      throw InputError(log.source, "line " + std::to_string(row.line), "mixes types '" + type + "' and '" + row.type + "'");
    }
    query.sizes.push_back(row.size);
  }
  const collectives::CollectiveResult predicted = collectives::predict_collective(fabric, query);
  CTWIN_ASSERT(predicted.rows.size() == log.rows.size(), "one prediction per measured row");

  LogComparison comparison{op, fabric.gpus(), {}};
  const double factor = collectives::busbw_factor(op, fabric.gpus());
  for (std::size_t i = 0; i < log.rows.size(); ++i) {
    const NcclRow& measured = log.rows[i];
    const collectives::CollectiveRow& row = predicted.rows[i];
    BusbwComparison pair;
    pair.size = measured.size;
    pair.measured_time = measured.out_of_place.time();
    pair.predicted_time = row.time;
    const double bytes = static_cast<double>(measured.size.count());
    const double measured_s = measured.out_of_place.time_us * 1e-6;
    const double predicted_s = row.time.seconds();
    pair.measured_busbw_GBps = measured_s > 0 ? bytes / measured_s / 1e9 * factor : 0;
    pair.predicted_busbw_GBps = predicted_s > 0 ? bytes / predicted_s / 1e9 * factor : 0;
    pair.error = predicted_s > 0 ? measured_s / predicted_s - 1 : 0;
    pair.algorithm = row.algorithm;
    pair.protocol = row.protocol;
    comparison.rows.push_back(pair);
  }
  return comparison;
}

bool is_large(Bytes size) { return size >= Bytes(1 << 20); }

}  // namespace ctwin::calibration
