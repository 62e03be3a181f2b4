#pragma once
// --seed as every command reads it: a whole number from 0 to 2^64 - 1, taken as written or
// refused. CLI11 turns "-1" into 2^64 - 1 and clamps 2^64 to it (issue 36's probe), so a seed
// that was given would not be the seed that ran.

#include <cerrno>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

namespace ctwin::cli {

inline CLI::Validator seed_range() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string expected = "a whole number from 0 to 18446744073709551615, got '" + text + "'";
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return expected;
        errno = 0;
        (void)std::strtoull(text.c_str(), nullptr, 10);
        return errno == ERANGE ? expected : std::string();
      },
      "SEED");
}

}  // namespace ctwin::cli
