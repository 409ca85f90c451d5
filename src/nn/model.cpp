#include "nn/model.hpp"

#include <omp.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "common/aligned_buffer.hpp"
#include "common/check.hpp"
#include "common/error.hpp"
#include "nn/initializer.hpp"
#include "nn/network.hpp"
#include "nn/network_plan.hpp"
#include "nn/softmax_cross_entropy.hpp"

namespace psbench::nn {
namespace {

/// Samples per evaluation pass; a ragged tail is padded with zeros and its padding ignored.
constexpr int kEvalBatch = 128;

[[noreturn]] void throw_onednn_failure(const dnnl::error& error, const std::string& what) {
  throw SystemError("oneDNN failed to " + what + ": " + error.what() + " (status " +
                    std::to_string(static_cast<int>(error.status)) + ")");
}

}  // namespace

class Model::Impl {
 public:
  Impl(NetworkPlan plan, int batch, std::uint64_t seed, int threads, std::span<float> gradient_storage)
      : plan_(std::move(plan)),
        threads_(threads),
        parameters_(plan_.parameter_count),
        own_gradients_(gradient_storage.empty() ? plan_.parameter_count : 0),
        gradients_(gradient_storage.empty() ? own_gradients_.span() : gradient_storage),
        engine_(dnnl::engine::kind::cpu, 0),
        stream_(engine_),
        train_(engine_, plan_, batch, parameters_.span(), gradients_, Pass::kTraining, nn::input_row_values(plan_)) {
    initialise_parameters(plan_, seed, parameters_.span());
  }

  [[nodiscard]] const NetworkPlan& plan() const { return plan_; }
  [[nodiscard]] std::span<float> parameters() const { return parameters_.span(); }
  [[nodiscard]] std::span<float> gradients() const { return gradients_; }
  [[nodiscard]] int batch() const { return train_.batch(); }

  float train_step(const float* images, const std::int32_t* labels, GradientListener* listener) {
    omp_set_num_threads(threads_);
    train_.set_input(images);
    train_.forward(stream_);
    const int batch = train_.batch();
    const BatchLoss loss = softmax_cross_entropy(train_.logits(), labels, batch, classes(), train_.diff_logits(),
                                                 1.0F / static_cast<float>(batch));
    const auto mean_loss = static_cast<float>(loss.loss_sum / batch);
    if (listener != nullptr) listener->backward_started(mean_loss);
    train_.backward(stream_, listener);
    return mean_loss;
  }

  Evaluation evaluate(const float* images, const std::int32_t* labels, std::size_t count) {
    omp_set_num_threads(threads_);
    if (!eval_) {
      eval_.emplace(engine_, plan_, kEvalBatch, parameters_.span(), std::span<float>(), Pass::kInference,
                    sample_values());
      padded_images_.resize(static_cast<std::size_t>(kEvalBatch) * sample_values());
    }
    Evaluation result;
    for (std::size_t first = 0; first < count; first += kEvalBatch) {
      const std::size_t samples = std::min<std::size_t>(kEvalBatch, count - first);
      const float* batch_images = images + first * sample_values();
      const std::int32_t* batch_labels = labels + first;
      if (samples < kEvalBatch) {
        std::copy_n(batch_images, samples * sample_values(), padded_images_.begin());
        std::fill(padded_images_.begin() + static_cast<std::ptrdiff_t>(samples * sample_values()), padded_images_.end(),
                  0.0F);
        batch_images = padded_images_.data();
      }
      eval_->set_input(batch_images);
      eval_->forward(stream_);
      const BatchLoss loss =
          softmax_cross_entropy(eval_->logits(), batch_labels, static_cast<int>(samples), classes(), nullptr, 0.0F);
      result.loss_sum += loss.loss_sum;
      result.correct += loss.correct;
      result.samples += static_cast<std::int64_t>(samples);
    }
    return result;
  }

 private:
  [[nodiscard]] int classes() const { return plan_.layers.back().out.channels; }
  [[nodiscard]] std::size_t sample_values() const { return plan_.layers.front().in.values(); }

  NetworkPlan plan_;
  int threads_;
  AlignedBuffer parameters_;
  AlignedBuffer own_gradients_;  // P values unless gradient storage was given, else empty
  std::span<float> gradients_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  Network train_;
  std::optional<Network> eval_;
  std::vector<float> padded_images_;
};

Model::Model(const std::string& spec, InputShape input, int num_classes, int batch, std::uint64_t seed, int threads,
             std::span<float> gradient_storage) {
  NetworkPlan plan = plan_network(spec, input, num_classes);
  PSBENCH_CHECK(gradient_storage.empty() || gradient_storage.size() == plan.parameter_count)
      << "gradient storage of " << gradient_storage.size() << " values for a model of " << plan.parameter_count;
  if (batch < 1) throw UserError("batch size " + std::to_string(batch) + " must be at least 1");
  if (threads < 1) throw UserError("--threads " + std::to_string(threads) + " must be at least 1");
  // oneDNN's OpenMP runtime picks kernels for the thread count in force when primitives are created.
  omp_set_num_threads(threads);
  try {
    impl_ = std::make_unique<Impl>(std::move(plan), batch, seed, threads, gradient_storage);
  } catch (const dnnl::error& error) {
    throw_onednn_failure(error, "build model '" + spec + "'");
  }
}

Model::~Model() = default;

std::size_t Model::parameter_count() const { return impl_->plan().parameter_count; }

std::span<float> Model::parameters() { return impl_->parameters(); }

std::span<const float> Model::gradients() const { return impl_->gradients(); }

std::span<float> Model::gradients() { return impl_->gradients(); }

int Model::batch() const { return impl_->batch(); }

std::size_t Model::input_row_values() const { return nn::input_row_values(impl_->plan()); }

double Model::flops_per_step() const { return impl_->plan().flops_per_step(impl_->batch()); }

float Model::train_step(const float* images, const std::int32_t* labels, GradientListener* listener) {
  try {
    return impl_->train_step(images, labels, listener);
  } catch (const dnnl::error& error) {
    throw_onednn_failure(error, "run a training step");
  }
}

Evaluation Model::evaluate(const float* images, const std::int32_t* labels, std::size_t count) {
  try {
    return impl_->evaluate(images, labels, count);
  } catch (const dnnl::error& error) {
    throw_onednn_failure(error, "evaluate");
  }
}

}  // namespace psbench::nn
