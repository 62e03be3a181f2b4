#pragma once
// Running the built `ctwin` binary from tests, and the bad-input contract: exit status 2 and
// exactly one line naming the file (or flag) and the place in it.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <string>
#include <vector>

namespace ctwin::cli_testing {

struct Outcome {
  int status = -1;  // exit status, or -1 when the process did not exit normally
  std::string output;  // stdout and stderr together
};

inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

inline Outcome run_ctwin(const std::string& arguments) {
  const std::string command = shell_quote(CTWIN_BINARY) + " " + arguments + " 2>&1";
  Outcome outcome;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "popen failed for " << command;
    return outcome;
  }
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) outcome.output.append(buffer, read);
  const int status = ::pclose(pipe);
  if (status != -1 && WIFEXITED(status)) outcome.status = WEXITSTATUS(status);
  return outcome;
}

inline std::string topology(const std::string& name) {
  return std::string(CTWIN_SOURCE_DIR) + "/topologies/" + name + ".json";
}

// The contract for bad input: status 2, one line, every `parts` in it.
inline ::testing::AssertionResult one_line_error(const Outcome& outcome, const std::vector<std::string>& parts) {
  if (outcome.status != 2) {
    return ::testing::AssertionFailure() << "exit status " << outcome.status << ", expected 2; output:\n" << outcome.output;
  }
  const auto newlines = std::count(outcome.output.begin(), outcome.output.end(), '\n');
  if (newlines != 1 || outcome.output.back() != '\n') {
    return ::testing::AssertionFailure() << "expected exactly one line, got " << newlines << ":\n" << outcome.output;
  }
  for (const auto& part : parts) {
    if (outcome.output.find(part) == std::string::npos) {
      return ::testing::AssertionFailure() << "'" << part << "' missing from: " << outcome.output;
    }
  }
  return ::testing::AssertionSuccess();
}

// A fresh temporary folder per test for the bad files it writes.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ctwin-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  std::filesystem::path dir_;
};

}  // namespace ctwin::cli_testing
