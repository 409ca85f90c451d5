#include "perf/prediction.hpp"

namespace psbench::perf {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kIdeal: return "ideal";
    case Kind::kRevised: return "revised";
    case Kind::kMva: return "mva";
    case Kind::kSim: return "sim";
  }
  return "?";
}

}  // namespace psbench::perf
