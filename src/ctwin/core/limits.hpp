#pragma once
// The range policy: for every quantity a user can give ctwin, the physical bounds it must lie
// in, with its unit. Readers (JSON files, flags, CSV and log parsers) check against these where
// the value is read, so that a mistake is reported against the file and field that made it and
// never reaches an internal check. docs/hardening.md lists each bound and why it is where it is.
//
// The bounds are wide: an order of magnitude or more beyond any hardware ctwin models, yet
// tight enough that every derived time fits int64 picoseconds (2^63 ps is 106 days) and every
// derived count fits int64.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "ctwin/core/units.hpp"

namespace ctwin::limits {

/// A link, NIC, memory or measured bandwidth: 1 Mb/s to 100 Tb/s (a B200's HBM is 64 Tb/s).
inline constexpr double kMinBitsPerSecond = 1e6;
inline constexpr double kMaxBitsPerSecond = 100e12;
/// A latency or overhead read from a file: at most 1 s (fabric hops are ~100 ns to ~10 us).
inline constexpr SimTime kMaxLatency = SimTime::from_ps(1'000'000'000'000);
/// A memory capacity or cache size: at most 1 PiB.
inline constexpr std::int64_t kMaxCapacityBytes = std::int64_t{1} << 50;
/// One GPU's compute rate: 1 GFLOP/s to 1 EFLOP/s (a B200 is 9 PFLOP/s dense FP4).
inline constexpr double kMinFlopsPerSecond = 1e9;
inline constexpr double kMaxFlopsPerSecond = 1e18;
/// One message (a collective's buffer, a traffic transfer): at most 1 TiB, more than any
/// GPU's memory (288 GB for a B300).
inline constexpr std::int64_t kMaxMessageBytes = std::int64_t{1} << 40;
/// Rows of a collective sweep (nccl-tests -b 8 -e 8G -f 2 prints 31).
inline constexpr std::int64_t kMaxSweepRows = 4096;
/// NCCL channels (NCCL's MAXCHANNELS is 32, 64 since 2.12) and flows per GPU pair.
inline constexpr std::int64_t kMaxChannels = 64;
/// GPUs in one build or run: 2^24, as `run` always allowed.
inline constexpr std::int64_t kMaxGpus = std::int64_t{1} << 24;
/// Tokens in one sequence: 2^24 (16,777,216; the longest context any released model claims
/// is 10M). A sequence must also fit the GPU's memory: see workload::check_sequence_fits.
inline constexpr std::int64_t kMaxSeqLen = std::int64_t{1} << 24;
/// Tokens in one micro-batch (micro_batch · seq_len): 2^26; in one step (global_batch ·
/// seq_len): 2^36 (Llama 3 405B trained on 16M-token steps, 2^24).
inline constexpr std::int64_t kMaxTokensPerMicroBatch = std::int64_t{1} << 26;
inline constexpr std::int64_t kMaxTokensPerStep = std::int64_t{1} << 36;
/// A GEMM dimension (M, N or K): 2^24. The operands must also fit the GPU's memory.
inline constexpr std::int64_t kMaxGemmDim = std::int64_t{1} << 24;

/// Arrays and objects nested in one JSON document, and parts of a `--set` path: 256. ctwin's
/// deepest file nests 7; nlohmann::json copies and compares values recursively, so 100,000
/// nested '[' overflowed the stack in a copy (issue 36).
inline constexpr std::size_t kMaxJsonDepth = 256;

/// The smallest share of its nominal rate a degraded part may run at (`--degrade` GPU speeds, HBM,
/// NIC and link shares, `--straggler-speed`): 10^-3. Below it a part is failed, not slow (a 400G
/// NIC at 10^-3 is 400 Mb/s; a GPU at 10^-3 is slower than a CPU); `nic:3=1e-12` drained its
/// flows past the end of int64 picoseconds and `gpu:3=1e-300` overflowed a kernel's time.
inline constexpr double kMinDegradedShare = 1e-3;

/// Why `share` is not in [kMinDegradedShare, 1], or nothing.
[[nodiscard]] std::optional<std::string> degraded_share_problem(double share);

/// Why `rate` is outside [kMinBitsPerSecond, kMaxBitsPerSecond], or nothing when inside.
[[nodiscard]] std::optional<std::string> bandwidth_problem(Bandwidth rate);
/// Why `rate` is outside [kMinFlopsPerSecond, kMaxFlopsPerSecond], or nothing.
[[nodiscard]] std::optional<std::string> flop_rate_problem(FlopRate rate);
/// Why `time` is negative or above kMaxLatency, or nothing.
[[nodiscard]] std::optional<std::string> latency_problem(SimTime time);
/// Why `size` is not in [1 B, kMaxCapacityBytes], or nothing.
[[nodiscard]] std::optional<std::string> capacity_problem(Bytes size);
/// Why `size` is not in [0 B, kMaxMessageBytes], or nothing.
[[nodiscard]] std::optional<std::string> message_problem(Bytes size);

/// Throws InternalError unless `value` is finite and >= 0: every time, rate and size a result
/// reports is checked with this before anything prints it. `what` names the field.
void require_finite_non_negative(double value, const char* what);

/// `gpus` as the int a build holds; InputError naming `flag` unless it is in [1, kMaxGpus]. Every
/// count that reaches a build from a front end goes through this rather than a cast: Python's
/// gpus=2**32+64 wrapped to a build of 64 GPUs (issue 36).
[[nodiscard]] int gpu_count(std::int64_t gpus, const std::string& flag = "--gpus");

/// a · b, or nothing when it overflows int64 (for products of user-given counts).
[[nodiscard]] std::optional<std::int64_t> checked_product(std::int64_t a, std::int64_t b);

}  // namespace ctwin::limits
