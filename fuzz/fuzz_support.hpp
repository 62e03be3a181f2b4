#pragma once
// What every fuzz target shares: the contract it checks, and a scratch file for readers that
// take a path.
//
// The contract is the README's: any input either reads cleanly or is refused with an
// InputError. Anything else thrown (an InternalError from a broken invariant, a
// std::out_of_range from a library, std::bad_alloc from a size nobody bounded) is a finding,
// and so is a sanitizer report; libFuzzer stops on abort() and saves the input.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "ctwin/core/error.hpp"

namespace ctwin::fuzzing {

template <typename Read>
int expect_input_error_at_most(Read read) {
  try {
    read();
  } catch (const InputError&) {
    // The one way bad input may end.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctwin fuzz: not an InputError: %s\n", e.what());
    std::abort();
  }
  return 0;
}

/// The repository root (CTWIN_SOURCE_DIR), where scenarios find their models and topologies.
inline std::filesystem::path repo_root() { return CTWIN_SOURCE_DIR; }

/// `data` written to a scratch file of this process (one per target and process), for readers
/// that take a path. Named with `suffix` so readers that look at the extension see one.
inline std::filesystem::path scratch_file(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ctwin-fuzz-" + std::to_string(::getpid()) + suffix);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                               static_cast<std::streamsize>(size));
  return path;
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace ctwin::fuzzing
