#include "ctwin/replay/checkpoint_spec.hpp"

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::replay {
namespace {

// Bounds that catch typos: a save more rarely than every ten million steps is no save, and no
// optimizer keeps more than 64 bytes of state per parameter.
constexpr long long kMaxEverySteps = 10'000'000;
constexpr double kMaxBytesPerParameter = 64;

}  // namespace

double checkpoint_bytes_per_parameter(bool fp32_master) { return 2.0 + 8.0 + (fp32_master ? 4.0 : 0.0); }

CheckpointSpec read_checkpoint(const nlohmann::json& object, const std::string& source,
                               const fabric::ClusterSpec& cluster) {
  if (!object.is_object()) throw InputError(source, "/checkpoint", "expected an object {every_steps, mode, tier}");
  JsonObjectReader r(object, source, "/checkpoint");
  CheckpointSpec spec;
  spec.every_steps = r.integer("every_steps", 1, kMaxEverySteps);
  spec.mode = r.choice("mode", {"blocking", "async"}) == "async" ? CheckpointMode::kAsync : CheckpointMode::kBlocking;
  spec.tier = r.string("tier");
  const fabric::StorageTierSpec* tier = cluster.storage ? cluster.storage->find(spec.tier) : nullptr;
  if (tier == nullptr || !tier->shared()) {
    r.fail("tier", "'" + spec.tier + "' is not a shared storage tier (parallel_fs, object_store) of the cluster" +
                       (cluster.storage ? "" : ": the cluster has no storage object"));
  }
  if (!(tier->write_per_server.bytes_per_second() > 0)) {
    r.fail("tier", "storage tier '" + spec.tier + "' gives no write_per_server: a save's time needs it");
  }
  if (r.has("bytes_per_parameter")) spec.bytes_per_parameter = r.number("bytes_per_parameter", 1, kMaxBytesPerParameter);
  if (r.has("host_copy_per_gpu")) {
    spec.host_copy_per_gpu_Bps = r.bandwidth("host_copy_per_gpu").bytes_per_second();
  } else {
    // The GPU's own x16 link to the host, at what DMA achieves on it (the topology's figure).
    spec.host_copy_per_gpu_Bps = cluster.server.pcie.achieved().bytes_per_second();
    if (!(spec.host_copy_per_gpu_Bps > 0)) {
      r.fail("host_copy_per_gpu", "the cluster's server gives no PCIe link: give the device-to-host rate, e.g. \"50GBps\"");
    }
  }
  r.finish();
  return spec;
}

const char* to_string(CheckpointMode mode) { return mode == CheckpointMode::kAsync ? "async" : "blocking"; }

}  // namespace ctwin::replay
