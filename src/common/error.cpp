#include "common/error.hpp"

namespace psbench {

std::string format_error_line(const std::string& what) { return "psbench: error: " + what; }

}  // namespace psbench
