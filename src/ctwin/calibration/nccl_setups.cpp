#include "ctwin/calibration/nccl_setups.hpp"

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::calibration {
namespace {

std::string text_or_empty(JsonObjectReader& reader, std::string_view key) {
  const nlohmann::json* value = reader.optional(key);
  if (value == nullptr || value->is_null()) return {};
  if (value->is_string()) return value->get<std::string>();
  return value->dump();
}

NcclSetup read_setup(JsonObjectReader reader, const std::filesystem::path& folder) {
  NcclSetup setup;
  setup.id = reader.string("id");
  setup.log = folder / reader.string("log");
  setup.op = collectives::parse_op(reader.string("op"), reader.pointer_to("op"));
  setup.dtype = reader.string("dtype");
  setup.ranks = static_cast<int>(reader.integer("nranks", 1, 1'000'000));
  setup.nodes = static_cast<int>(reader.integer("nodes", 1, 1'000'000));
  setup.gpus_per_node = static_cast<int>(reader.integer("gpus_per_node", 1, 1024));
  if (setup.ranks > setup.nodes * setup.gpus_per_node) {
    reader.fail("nranks", "more ranks than nodes x gpus_per_node");
  }
  setup.gpu = text_or_empty(reader, "gpu");
  setup.cluster = reader.string("cluster");
  const std::string topology = text_or_empty(reader, "topology");
  if (!topology.empty()) setup.topology = topology;
  if (const nlohmann::json* env = reader.optional("nccl_env"); env != nullptr && !env->is_null()) {
    if (!env->is_object()) reader.fail("nccl_env", "must be an object of NCCL variables");
    for (const auto& [key, value] : env->items()) {
      setup.nccl_env[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  setup.role = reader.choice("role", {"check", "underperforming"});
  setup.notes = text_or_empty(reader, "notes");
  if (const nlohmann::json* flags = reader.optional("quality_flags"); flags != nullptr && flags->is_array()) {
    for (const auto& flag : *flags) setup.quality_flags.push_back(flag.is_string() ? flag.get<std::string>() : flag.dump());
  }
  if (const nlohmann::json* source = reader.optional("source"); source != nullptr && source->is_object()) {
    setup.source = source->value("url", source->value("repo", std::string()));
  }
  // Provenance kept in the manifest for people; read so that finish() only rejects typos.
  for (const char* documentation : {"topology_note", "algorithm", "nccl_version", "role_reason", "rows", "in_place",
                                    "avg_busbw_GBps", "derived"}) {
    (void)reader.optional(documentation);
  }
  reader.finish();
  return setup;
}

}  // namespace

std::vector<NcclSetup> read_nccl_setups(const std::filesystem::path& path) {
  const nlohmann::json document = load_json_file(path);
  JsonObjectReader top(document, path.string(), "");
  (void)top.optional("description");
  (void)top.optional("not_rendered");  // sources with nothing to replay, listed for people
  const nlohmann::json& logs = top.required("logs");
  if (!logs.is_array()) top.fail("logs", "must be an array of setups");
  top.finish();
  std::vector<NcclSetup> setups;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    if (!logs[i].is_object()) throw InputError(path.string(), "/logs/" + std::to_string(i), "must be an object");
    setups.push_back(read_setup(JsonObjectReader(logs[i], path.string(), "/logs/" + std::to_string(i)),
                                path.parent_path()));
  }
  return setups;
}

collectives::Algorithm forced_algorithm(const NcclSetup& setup) {
  const auto found = setup.nccl_env.find("NCCL_ALGO");
  if (found == setup.nccl_env.end()) return collectives::Algorithm::kAuto;
  return collectives::parse_algorithm(found->second, setup.id + ": NCCL_ALGO");
}

collectives::Protocol forced_protocol(const NcclSetup& setup) {
  const auto found = setup.nccl_env.find("NCCL_PROTO");
  if (found == setup.nccl_env.end()) return collectives::Protocol::kAuto;
  return collectives::parse_protocol(found->second, setup.id + ": NCCL_PROTO");
}

}  // namespace ctwin::calibration
