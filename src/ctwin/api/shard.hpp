#pragma once
// Shards of a plan or a sweep (`--shard i/N`, a Slurm job array's slices): shard i of N takes the
// items whose index is i-1 modulo N, and a merge reads the N files back. Interleaved rather than
// contiguous slices, so that every shard gets a like mix of cheap and costly items.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "ctwin/api/scenario.hpp"

namespace ctwin::api {

/// "i/N" (1 <= i <= N); InputError naming --shard otherwise. `index` is 0-based.
void parse_shard(const std::string& text, std::size_t& index, std::size_t& count);

/// The shards a merge has read: each of one count, each index once, all of them in the end.
class ShardSet {
 public:
  /// `index` 1-based, as the files write it; InputError naming `source` for a shard of another
  /// count, out of range, or given twice.
  void add(std::size_t index, std::size_t count, const std::string& source);
  /// InputError naming --merge when a shard is missing.
  void check_complete() const;
  [[nodiscard]] std::size_t count() const { return count_; }

 private:
  std::size_t count_ = 0;
  std::set<std::size_t> seen_;
};

/// FNV-1a, 64 bits, as 16 hex digits: a fingerprint of a scenario's text that a merge compares,
/// so that shards of different inputs with the same model and grid are not joined.
[[nodiscard]] std::string fingerprint(const std::string& text);

/// The fingerprint of a scenario's document and its changes (not of the model and cluster files
/// it names): what two plans or sweeps whose shards may be merged must share.
[[nodiscard]] std::string scenario_fingerprint(const Scenario& scenario);

}  // namespace ctwin::api
