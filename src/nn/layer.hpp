#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <vector>

namespace psbench::nn {

/// Whether a layer is built to train (forward_training, backward primitives, gradient buffers) or only to infer.
enum class Pass { kTraining, kInference };

/// What every layer of a network is built with.
struct BuildContext {
  dnnl::engine engine;        ///< the CPU engine
  dnnl::primitive_attr attr;  ///< scratchpad_mode::user: the network owns one scratchpad for all primitives
  Pass pass;                  ///< training or inference
  /// The forward propagation kind for this pass.
  [[nodiscard]] dnnl::prop_kind forward_kind() const;
};

/// Makes the context for a pass on an engine, with a user-managed scratchpad.
BuildContext make_build_context(const dnnl::engine& engine, Pass pass);

/// One primitive execution with its arguments bound once at construction.
struct Step {
  dnnl::primitive primitive;                   ///< what runs
  std::unordered_map<int, dnnl::memory> args;  ///< DNNL_ARG_* to the memory it reads or writes
  /// Executes the primitive on the stream.
  void run(dnnl::stream& stream) const { primitive.execute(stream, args); }
};

/// Where a layer reads its input and writes the gradient of the loss with respect to that input.
struct LayerInput {
  dnnl::memory src;       ///< the previous layer's output, or the images
  dnnl::memory diff_src;  ///< where backward writes d(loss)/d(src); empty when no one needs it (first layer)
};

/// Pointers into the flat parameter and gradient vectors for one layer (canonical plain layouts).
struct ParameterSlot {
  float* weights = nullptr;       ///< oihw (convolution, inner product over an image) or oi
  float* bias = nullptr;          ///< o
  float* diff_weights = nullptr;  ///< same layout as weights, in the gradient vector
  float* diff_bias = nullptr;     ///< same layout as bias, in the gradient vector
};

/// A built layer: its output, the buffer its successor writes the output's gradient into, and the
/// primitive executions of its forward and backward passes, all created once.
class Layer {
 public:
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  /// The forward output (activations).
  [[nodiscard]] const dnnl::memory& dst() const { return dst_; }
  /// d(loss)/d(dst), same layout as dst(); empty when built for inference.
  [[nodiscard]] const dnnl::memory& diff_dst() const { return diff_dst_; }
  /// Runs the forward pass: reads the input given at construction, writes dst().
  void forward(dnnl::stream& stream) const;
  /// Runs the backward pass: reads diff_dst(), writes the parameter gradients and the input's gradient.
  void backward(dnnl::stream& stream) const;
  /// The largest scratchpad any of this layer's primitives needs, in bytes.
  [[nodiscard]] std::size_t scratchpad_bytes() const;
  /// Gives every primitive that needs one the shared scratchpad (at least scratchpad_bytes() long).
  void bind_scratchpad(const dnnl::memory& scratchpad);

 protected:
  Layer() = default;

  dnnl::memory dst_;            ///< output activations
  dnnl::memory diff_dst_;       ///< gradient with respect to dst_
  std::vector<Step> forward_;   ///< forward executions, in order
  std::vector<Step> backward_;  ///< backward executions, in order
};

/// Allocates one scratchpad big enough for every primitive of layers and binds it to them (they run one at a
/// time on one in-order stream, so they can share it); returns it, empty when no primitive needs one.
dnnl::memory share_scratchpad(const dnnl::engine& engine, const std::vector<std::unique_ptr<Layer>>& layers);

/// Returns source's values in layout want: source itself when the layouts match, else a new buffer that a
/// reorder appended to steps fills.
dnnl::memory stage_input(const BuildContext& context, const dnnl::memory& source, const dnnl::memory::desc& want,
                         std::vector<Step>& steps);

/// Returns candidate when it already has layout want (a copy an earlier step made), else a copy of source in
/// layout want made by a reorder appended to steps.
dnnl::memory reuse_or_stage(const BuildContext& context, const dnnl::memory& candidate, const dnnl::memory& source,
                            const dnnl::memory::desc& want, std::vector<Step>& steps);

/// Where a primitive writes an output that must end up in target but which it wants in layout want.
struct StagedOutput {
  dnnl::memory memory;      ///< what the primitive writes: target itself, or a buffer in layout want
  std::vector<Step> after;  ///< the reorder from that buffer into target, if one is needed
};

/// Returns target itself when its layout is want, else a buffer in layout want and the reorder into target.
StagedOutput stage_output(const BuildContext& context, const dnnl::memory& target, const dnnl::memory::desc& want);

/// Appends a primitive's step to steps, then the reorders that move its staged outputs into place.
void append_with_outputs(std::vector<Step>& steps, Step step, std::initializer_list<const StagedOutput*> outputs);

}  // namespace psbench::nn
