#include "ctwin/core/error.hpp"

#include <sstream>

namespace ctwin {
namespace {

std::string locate(const std::string& source, const std::string& pointer, const std::string& message) {
  std::string where = source;
  if (!pointer.empty()) where += (where.empty() ? "" : ": ") + pointer;
  return where.empty() ? message : where + ": " + message;
}

}  // namespace

InputError::InputError(std::string source, std::string pointer, const std::string& message)
    : std::runtime_error(locate(source, pointer, message)),
      source_(std::move(source)),
      pointer_(std::move(pointer)),
      message_(message) {}

void fail_assertion(const char* condition, const char* why, const char* file, int line) {
  std::ostringstream text;
  text << "internal error: " << why << " (" << condition << " failed at " << file << ':' << line << ')';
  throw InternalError(text.str());
}

}  // namespace ctwin
