#pragma once

namespace psbench::ps {

class NodeLink;
class RmaLink;

/// The shared memory a run's servers and workers set up for their transports, collectively, before either role
/// starts: the node's window (same-node peers) and the RMA windows (peers that --intra-node or --inter-node rma
/// names). A pair of peers uses the node's window where it has one, else RMA where the RMA link serves it, else
/// messages.
struct Links {
  /// No shared memory: every pair uses messages.
  Links() = default;
  /// The node's window alone, or nothing (nullptr).
  Links(const NodeLink* node) : window(node) {}  // NOLINT(google-explicit-constructor): a link is a Links
  /// Both (either may be nullptr).
  Links(const NodeLink* node, const RmaLink* one_sided) : window(node), rma(one_sided) {}

  const NodeLink* window = nullptr;  ///< the node's shared window, or nullptr
  const RmaLink* rma = nullptr;      ///< the RMA windows, or nullptr
};

}  // namespace psbench::ps
