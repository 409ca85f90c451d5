#pragma once

#include <functional>
#include <string>
#include <vector>

namespace psbench::perf {

/// Runs work in a forked child and returns the numbers it produced, sent back over a pipe. For SimGrid 3.32,
/// whose Engine is a process-wide singleton: each simulation gets a fresh process. A UserError thrown in the
/// child is thrown again here with its message; a child that dies throws SystemError naming what.
std::vector<double> run_forked(const std::function<std::vector<double>()>& work, const std::string& what);

}  // namespace psbench::perf
