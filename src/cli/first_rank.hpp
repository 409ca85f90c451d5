#pragma once

#include <functional>

namespace psbench::cli {

/// Runs work on rank 0 only; a UserError there ends every rank with one message (the file tools and the model
/// are serial).
void on_first_rank(const std::function<void()>& work);

}  // namespace psbench::cli
