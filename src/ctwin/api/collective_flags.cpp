#include "ctwin/api/collective_flags.hpp"

#include "ctwin/calibration/nccl_comparison.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/network/network_model.hpp"

namespace ctwin::api {
namespace {

Bytes nccl_size_field(const std::string& field, const std::string& text) {
  try {
    return parse_nccl_size(text);
  } catch (const UnitError& e) {
    throw InputError(field, "", e.what());
  }
}

}  // namespace

collectives::CollectiveQuery collective_query(const CollectiveFlags& flags, const CollectiveFlagNames& names) {
  collectives::CollectiveQuery query;
  query.op = collectives::parse_op(flags.op, names.op);
  query.algorithm = collectives::parse_algorithm(flags.algorithm, names.algorithm);
  query.protocol = collectives::parse_protocol(flags.protocol, names.protocol);
  query.sizes = collectives::size_sweep(nccl_size_field(names.begin, flags.begin), nccl_size_field(names.end, flags.end),
                                        flags.factor);
  query.element_bytes = calibration::nccl_type_bytes(flags.dtype, names.dtype);
  query.network = network::parse_model_kind(flags.network, names.network, "");
  query.every_transfer = flags.every_transfer;
  if (flags.channels < 0 || flags.channels > 64) {
    throw InputError(names.channels, "", "must be between 0 (one per rail) and 64 (NCCL's most), got " +
                                             std::to_string(flags.channels));
  }
  query.tuning.channels = flags.channels;
  return query;
}

}  // namespace ctwin::api
