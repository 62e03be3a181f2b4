#pragma once
// Two kinds of failure: InputError is the user's (a bad file, field or flag) and carries where
// in the input it happened; InternalError is ours (a broken invariant). Neither ever exits the
// process: front ends decide what to print and which code to return.

#include <stdexcept>
#include <string>

namespace ctwin {

/// Bad input. `source` is a file path or a flag such as "--gpus"; `pointer` is a JSON pointer
/// into that file ("/fabric/switch/ports"), empty when the whole source is meant.
class InputError : public std::runtime_error {
 public:
  InputError(std::string source, std::string pointer, const std::string& message);

  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const std::string& pointer() const { return pointer_; }
  [[nodiscard]] const std::string& message() const { return message_; }

 private:
  std::string source_;
  std::string pointer_;
  std::string message_;
};

/// A broken invariant inside ctwin: a bug, never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_assertion(const char* condition, const char* why, const char* file, int line);

}  // namespace ctwin

#define CTWIN_ASSERT(condition, why)                                   \
  do {                                                                 \
    if (!(condition)) ::ctwin::fail_assertion(#condition, why, __FILE__, __LINE__); \
  } while (false)
