#pragma once
// The vocabulary of NCCL collectives as nccl-tests reports them: operations, algorithms
// (NCCL_ALGO), protocols (NCCL_PROTO), and the bus-bandwidth factors that make busbw
// comparable across GPU counts (nccl-tests doc/PERFORMANCE.md).

#include <string>
#include <string_view>
#include <vector>

namespace ctwin::collectives {

enum class Op { kAllReduce, kAllGather, kReduceScatter, kAlltoall, kBroadcast, kReduce, kSendRecv };
enum class Algorithm { kAuto, kRing, kTree, kNvls, kNvlsTree, kHalvingDoubling, kDirect, kPat, kHierarchical };
enum class Protocol { kAuto, kSimple, kLL, kLL128 };

/// Names as on the command line: all_reduce, ...; ring, tree, nvls, nvlstree, hd, direct, pat,
/// hierarchical (across the sites of a build, collectives/plan.hpp);
/// simple, ll, ll128. Parsing throws InputError naming `flag` for anything else.
[[nodiscard]] std::string_view name(Op op);
[[nodiscard]] std::string_view name(Algorithm algorithm);
[[nodiscard]] std::string_view name(Protocol protocol);
[[nodiscard]] Op parse_op(std::string_view text, std::string_view flag = "--op");
[[nodiscard]] Algorithm parse_algorithm(std::string_view text, std::string_view flag = "--algo");
[[nodiscard]] Protocol parse_protocol(std::string_view text, std::string_view flag = "--proto");
[[nodiscard]] std::vector<Protocol> concrete_protocols();

/// busbw = algbw × factor, with n ranks: all_reduce 2(n−1)/n; all_gather, reduce_scatter and
/// alltoall (n−1)/n; broadcast, reduce and sendrecv 1.
[[nodiscard]] double busbw_factor(Op op, int ranks);

/// Whether nccl-tests prints a reduction operator / a root for the op.
[[nodiscard]] bool has_redop(Op op);
[[nodiscard]] bool has_root(Op op);

}  // namespace ctwin::collectives
