#include "ctwin/collectives/collective.hpp"

#include <array>
#include <utility>

#include "ctwin/core/error.hpp"

namespace ctwin::collectives {
namespace {

constexpr std::array<std::pair<Op, std::string_view>, 7> kOps{{{Op::kAllReduce, "all_reduce"},
                                                               {Op::kAllGather, "all_gather"},
                                                               {Op::kReduceScatter, "reduce_scatter"},
                                                               {Op::kAlltoall, "alltoall"},
                                                               {Op::kBroadcast, "broadcast"},
                                                               {Op::kReduce, "reduce"},
                                                               {Op::kSendRecv, "sendrecv"}}};
constexpr std::array<std::pair<Algorithm, std::string_view>, 9> kAlgorithms{{{Algorithm::kAuto, "auto"},
                                                                             {Algorithm::kRing, "ring"},
                                                                             {Algorithm::kTree, "tree"},
                                                                             {Algorithm::kNvls, "nvls"},
                                                                             {Algorithm::kNvlsTree, "nvlstree"},
                                                                             {Algorithm::kHalvingDoubling, "hd"},
                                                                             {Algorithm::kDirect, "direct"},
                                                                             {Algorithm::kPat, "pat"},
                                                                             {Algorithm::kHierarchical, "hierarchical"}}};
constexpr std::array<std::pair<Protocol, std::string_view>, 4> kProtocols{
    {{Protocol::kAuto, "auto"}, {Protocol::kSimple, "simple"}, {Protocol::kLL, "ll"}, {Protocol::kLL128, "ll128"}}};

template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
  for (const auto& [known, text] : table) {
    if (known == value) return text;
  }
  throw InternalError("unnamed enum value");
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// NCCL_ALGO and NCCL_PROTO are case-insensitive ("Ring", "LL128"), so these are too.
template <typename Enum, std::size_t N>
Enum parse(const std::array<std::pair<Enum, std::string_view>, N>& table, std::string_view text, std::string_view flag) {
  std::string folded(text);
  for (char& c : folded) c = lower(c);
  std::string list;
  for (const auto& [known, name] : table) {
    if (folded == name) return known;
    list += (list.empty() ? "" : ", ") + std::string(name);
  }
  throw InputError(std::string(flag), "", "unknown value '" + std::string(text) + "' (expected " + list + ")");
}

}  // namespace

std::string_view name(Op op) { return name_of(kOps, op); }
std::string_view name(Algorithm algorithm) { return name_of(kAlgorithms, algorithm); }
std::string_view name(Protocol protocol) { return name_of(kProtocols, protocol); }
Op parse_op(std::string_view text, std::string_view flag) { return parse(kOps, text, flag); }
Algorithm parse_algorithm(std::string_view text, std::string_view flag) { return parse(kAlgorithms, text, flag); }
Protocol parse_protocol(std::string_view text, std::string_view flag) { return parse(kProtocols, text, flag); }

std::vector<Protocol> concrete_protocols() { return {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}; }

double busbw_factor(Op op, int ranks) {
  const double n = ranks;
  switch (op) {
    case Op::kAllReduce:
      return 2 * (n - 1) / n;
    case Op::kAllGather:
    case Op::kReduceScatter:
    case Op::kAlltoall:
      return (n - 1) / n;
    case Op::kBroadcast:
    case Op::kReduce:
    case Op::kSendRecv:
      return 1;
  }
  throw InternalError("unknown op");
}

bool has_redop(Op op) { return op == Op::kAllReduce || op == Op::kReduceScatter || op == Op::kReduce; }
bool has_root(Op op) { return op == Op::kBroadcast || op == Op::kReduce; }

}  // namespace ctwin::collectives
