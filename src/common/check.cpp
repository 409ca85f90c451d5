#include "common/check.hpp"

#include <cstdio>
#include <cstdlib>

namespace psbench {
namespace {

FatalHandler g_fatal_handler = nullptr;
std::string g_check_prefix;

}  // namespace

void set_fatal_handler(FatalHandler handler) { g_fatal_handler = handler; }

void set_check_prefix(const std::string& prefix) { g_check_prefix = prefix; }

void check_failed(const char* file, int line, const char* expression, const std::string& detail) {
  std::string message = "psbench: check failed";
  if (!g_check_prefix.empty()) message += " on " + g_check_prefix;
  message += " at " + std::string(file) + ":" + std::to_string(line) + ": " + expression;
  if (!detail.empty()) message += " (" + detail + ")";
  if (g_fatal_handler != nullptr) g_fatal_handler(message);
  std::fprintf(stderr, "%s\n", message.c_str());
  std::abort();
}

}  // namespace psbench
